"""Analyst-style development queries for routing at EDGAR scale (issue 35), written for this project.

Each query names its gold companies by their ticker in the scale corpus (`finrag.eval.routing_scale_corpus`: the
development corpus's ticker, else the registrant's first ticker in the SEC's list); none for a company the index
does not hold or a question about no company. The written queries (eval/data/routing_scale_queries.txt, by
category; its `holdout/` sections were written after the linker was changed on the others, and its `fresh/`
section after every change) are terse, as analysts
type them: abbreviations ("Net inc.", "rev", "mgmt", "comp", "dist", "div"), English words and finance
abbreviations that are also somebody's ticker (NET, COMP, CF, ASR, DEC, FOR, MA, BK, ALL, KEY ...), once meant as
the word and once written as a ticker ("$COMP", "(NET)", "ticker FOR"), famous names that start a smaller
registrant's name (Coca-Cola and Coca-Cola Consolidated, Lululemon and Lulu's Fashion Lounge, Chubb (CB) and CB
Financial Services), share classes of one registrant (GOOG/GOOGL, FOX/FOXA, NWS/NWSA, BRK.A/BRK.B), nicknames
and former names (Waste Mgmt, PSEG, BNY Mellon, Facebook, Anthem), comparisons ("X vs Y", "X compared with Y",
"X and Y") and companies no registrant is (private, gone or made up). `market_questions` adds plain questions
about registrants drawn from the whole SEC list (seeded), named as an analyst would: "$TICK", "Name (TICK)",
"ticker TICK", the name alone.

    python -m finrag.eval.routing_scale_questions            # (re)write eval/data/routing_scale_dev.jsonl
"""
from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Sequence

from finrag.eval.routing_scale_corpus import all_scale_companies

__all__ = ["QUESTIONS_FILE", "WRITTEN_FILE", "load_scale_questions", "market_questions", "scale_questions",
           "written_questions"]

QUESTIONS_FILE = Path(__file__).resolve().parent / "data" / "routing_scale_dev.jsonl"
WRITTEN_FILE = Path(__file__).resolve().parent / "data" / "routing_scale_queries.txt"

_METRICS = ["revenue", "net income", "operating margin", "capex", "free cash flow", "diluted EPS", "total debt",
            "gross margin", "R&D expense", "SG&A", "cash and equivalents", "dividends paid", "segment revenue",
            "Net inc.", "rev growth", "opex", "headcount", "goodwill", "inventory", "deferred revenue"]
_FORMS = ["${t} {m} 2024", "{n} ({t}) {m} FY2024", "ticker {t}: {m} 2024", "{n} {m} 2024", "{m} for {n} in 2024",
          "{n}'s {m} 2024", "{t} {m} FY24", "{m} 2024 {n} ({t})"]
# the spoken name's own tail (not `text.clean_company_name`: the generated questions are the scale benchmark's
# input and stay as they were; "UnitedHealth Group Incorporated" keeps its "Incorporated")
_LEGAL_TAIL = re.compile(r"(?i)(?:[\s,]+(?:inc|corp|corporation|co|company|ltd|limited|plc|llc|l\.?p|n\.?v|"
                         r"s\.?a|ag|se|/[a-z]{2,}/?))+\.?\s*$")


def _spoken_name(legal: str) -> str:
    """How an analyst writes a registrant's name: legal tail off, capitals only for short acronyms."""
    name = _LEGAL_TAIL.sub("", re.sub(r"^(?i:the)\s+", "", legal.strip())).strip(" ,.") or legal
    if any(c.islower() for c in name):
        return name
    return " ".join(w if len(re.sub(r"[^A-Z]", "", w)) <= 3 else w[:1] + w[1:].lower() for w in name.split())


def market_questions(companies: Sequence, n: int = 150, seed: int = 35) -> list[dict]:
    """Plain questions about `n` registrants outside the development corpus, drawn from `companies`
    (`ScaleCompany`, seeded): one named company each, in one of the ways analysts name companies."""
    r = random.Random(seed)
    pool = [c for c in companies if not c.dev and re.fullmatch(r"[A-Z]{2,5}", c.ticker)]
    spoken = [re.findall(r"\w+", _spoken_name(c.bench.legal).lower()) for c in companies]
    out = []
    for c in r.sample(pool, min(n, len(pool))):
        form = r.choice(_FORMS)
        words = re.findall(r"\w+", _spoken_name(c.bench.legal).lower())
        if "{t}" not in form and sum(s[:len(words)] == words for s in spoken) > 1:
            form = "{n} ({t}) {m} FY2024"  # the name alone would also name another registrant: its ticker too
        q = form.format(t=c.ticker, n=_spoken_name(c.bench.legal), m=r.choice(_METRICS)).replace("s's ", "s' ")
        out.append({"question": q, "category": "market", "gold_tickers": [c.ticker]})
    return out


def written_questions(path: Path = WRITTEN_FILE) -> list[dict]:
    """The written queries: '## category' sections of 'question | gold tickers' lines."""
    out, category = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            category = line[3:].split()[0]
        elif line.strip() and not line.startswith("#"):
            q, _, gold = line.rpartition("|")
            out.append({"question": q.strip(), "category": category,
                        "gold_tickers": [g.strip() for g in gold.split(",") if g.strip()]})
    return out


def scale_questions(companies: Sequence) -> list[dict]:
    """Every development query (written, market-wide, then the holdout), each with an id."""
    written = written_questions()
    qs = [*(q for q in written if "/" not in q["category"]), *market_questions(companies),
          *(q for q in written if "/" in q["category"])]  # holdout/, fresh/: written later, listed last
    return [{"id": f"{q['category']}-{i:03d}", **q} for i, q in enumerate(qs)]


def load_scale_questions(path: Path = QUESTIONS_FILE) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(QUESTIONS_FILE))
    args = ap.parse_args(argv)
    qs = scale_questions(all_scale_companies())
    Path(args.out).write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    print(f"{len(qs)} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
