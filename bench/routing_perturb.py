"""How robust routing is (issue 48): the labelled routing queries, each rewritten one way, the gold unchanged.

    python -m bench.routing_perturb --out runs/perturb.json            # every family, every labelled set
    python -m bench.routing_perturb --families ticker lower_ticker --show 5

A blind set measures the linker on the queries somebody happened to write; this measures it on the same queries
written the other ways analysts write them. For every labelled query that names a company (the dev scale set
eval/data/routing_scale_dev.jsonl and the blind sets bench/data/routing_blind{48,53,54}.jsonl), one of its gold
companies' mentions is found in the text (its ticker, its SEC name, its spoken or short name, an alias of
tools/routing/data/aliases.yaml, written any case, with "'s" or "(NYSE: X)" after it) and rewritten, one family at a
time (seeded: `--seed`):

* the mention in place, written as: `ticker` (AAPL), `lower_ticker` (aapl; only tickers of two letters or more
  that are no English word nor finance abbreviation: "on", "key", "v" in lower case are words), `full_name`
  (the legal name as a person types it, "Apple Inc."), `short_name` (the name people use, "Apple"), `possessive`
  ("Apple's"), `exchange_tag` ("Apple (NASDAQ: AAPL)");
* moved (queries with one gold company): the ticker or the short name at the `start`, in the `middle` or at the
  `end` of the rest of the query (`start_ticker`, `middle_name`, ...; a preposition left dangling before the old
  place is dropped);
* written as analysts also write it (session 56): `amp_and` ("&" and "and" swapped in the name), `suffix_added`
  ("Apple Inc", "Nvidia, Corp."), `suffix_dropped` (the legal name without its legal-form words), `all_caps`
  ("APPLE"), `punct_dropped` (a hyphen or a period dropped: "Coca Cola", "JP Morgan"), `dollar_ticker` ("$AAPL"),
  `item_lower_name` (one company: a line item, then the name in lower case, at the start: "revenue apple ..."),
  `ordinal_period` (an ordinal period right before the name: "3rd quarter Apple", "second half Apple");
* session 57: `lower_name` (the name people use in lower case, in place: "apple", "home depot"), `lower_name_typo`
  (a one-word name of six letters or more in lower case with two inner letters swapped: "nivdia"), `name_item` (a
  line item in lower case right after the name: "Apple capex ..."), `unknown_sharing` (one company: the mention
  replaced by its name's first word and a company-name word, "Apple Robotics", a company the index does not hold;
  gold: no company; skipped when a registrant's name begins so);
* `compare_glue` (two companies or more, written side by side): the glue between them ("and", ",", "vs.", "versus",
  "against", "&") swapped for another;
* with words added right before or after it: `calendar` (Q3, FY24, "Dec qtr", 1H25, TTM ...) and `finance`
  (YoY, EPS, FCF, GM, NII, ETR ...), with the mention as written and, `calendar_ticker` / `finance_ticker`, with
  the ticker in its place.

Per family: the queries rewritten, exact routing (the routed companies are exactly the gold ones), the extra-company
rate, the share routed nowhere, and `broken`: the share that the original query routed exactly and the rewrite
does not (what the rewrite alone broke). The registry is the one of `bench/routing_scale.py` at its largest size
(every SEC registrant with a ticker).
"""
from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.routing_scale import all_documents
from finrag.eval.routing_corpus import DATA
from finrag.eval.routing_scale_corpus import ScaleCompany, scale_companies
from finrag.eval.routing_scale_questions import load_scale_questions
from finrag.tools.routing.aliases import builtin_aliases
from finrag.tools.routing.registrants import load_registrants
from finrag.tools.routing.registry import Registry
from finrag.tools.routing.words import is_finance_abbreviation, zipf

REPO = Path(__file__).resolve().parents[1]
SETS = {"scale_dev": DATA / "routing_scale_dev.jsonl", "blind48": REPO / "bench/data/routing_blind48.jsonl",
        "blind53": REPO / "bench/data/routing_blind53.jsonl", "blind54": REPO / "bench/data/routing_blind54.jsonl",
        "blind55": REPO / "bench/data/routing_blind55.jsonl"}
DEFAULT_SETS = ["scale_dev", "blind48", "blind53", "blind54"]  # blind55 by name: older runs stay comparable
IN_PLACE = ["ticker", "lower_ticker", "full_name", "short_name", "possessive", "exchange_tag"]
MOVED = [f"{where}_{form}" for form in ("ticker", "name") for where in ("start", "middle", "end")]
AROUND = ["calendar", "calendar_ticker", "finance", "finance_ticker"]
# session 56: spellings analysts use that the families above do not write
WRITTEN = ["amp_and", "suffix_added", "suffix_dropped", "all_caps", "punct_dropped", "dollar_ticker",
           "item_lower_name", "ordinal_period"]
GLUE = ["compare_glue"]
# session 57: lower-case names in every place, a line item right after the name, typos in lower case, and a company
# the index does not hold whose name begins with a registrant's word (gold: no company)
LOWERED = ["lower_name", "lower_name_typo", "name_item", "unknown_sharing"]
FAMILIES = IN_PLACE + MOVED + AROUND + WRITTEN + GLUE + LOWERED
UNKNOWN_TAILS = ["Robotics", "Therapeutics", "Biosciences", "Pharmaceuticals", "Capital", "Ventures", "Labs",
                 "Logistics", "Semiconductor", "Analytics"]
ORDINAL_PERIODS = ["1st qtr", "2nd quarter", "3rd-quarter", "4th qtr", "first quarter", "second half", "third qtr",
                   "fourth-quarter", "1st half", "2nd half"]
LOWER_ITEMS = ["revenue", "net income", "gross margin", "capex", "free cash flow", "operating income", "eps",
               "total debt", "buybacks", "dividends"]
GLUES = [" and ", ", ", " vs. ", " versus ", " against ", " vs ", " & "]
_GLUE_BETWEEN = re.compile(r"(?i)^\s*(?:,\s*(?:and\s+)?|and|&|vs\.?|versus|v\.?|against|compared (?:to|with)|/)\s*$")
CALENDAR = ["Q3", "Q4'24", "FY24", "FY2023", "Dec qtr", "1H25", "Nov", "Q2 2024", "3Q23", "TTM", "YTD", "CY2024",
            "Mar-24", "H2", "Sept quarter"]
FINANCE = ["YoY", "EPS", "FCF", "GM", "NII", "ETR", "OCF", "EBITDA", "ROE", "opex", "capex", "rev", "Op margin",
           "SG&A", "D&A", "Net inc.", "bps", "q/q", "CF", "NI"]
_LEGAL_TAIL = re.compile(r"(?i)(?:[\s,]+(?:inc|corp|corporation|co|company|ltd|limited|plc|llc|l\.?p|n\.?v|s\.?a|"
                         r"ag|se|/[a-z]{2,}/?))+\.?\s*$")
_DANGLING = re.compile(r"(?i)(?:\b(?:at|for|of|from|in|by|on|with)\s+)$")
_NAME_BEFORE_TAG = re.compile(r"((?:[A-Z][\w&'’.\-]*\s+(?:(?:&|of|and|de)\s+)?){0,5}[A-Z][\w&'’.\-]*)\s*\("
                              r"(?:[A-Za-z]+\s*:\s*)?\$?$")
_STATE_MARK = re.compile(r"\s*/[A-Z]{2,}/?\s*$")


@dataclass
class Forms:
    """How one company can be written: its ticker, legal name, short name, exchange and every form to find."""

    ticker: str
    legal: str
    short: str
    exchange: str
    known: list[str]  # every form the query may already use, longest first
    spoken: str = ""  # the legal name without its legal-form words ('Apple' of 'Apple Inc.')


def _people_case(name: str) -> str:
    """'NVIDIA CORP' -> 'Nvidia Corp' (acronyms of three letters or fewer kept): how a person types a name the SEC
    conforms to capitals."""
    if any(c.islower() for c in name):
        return name
    return " ".join(w if len(re.sub(r"[^A-Z]", "", w)) <= 3 else w[:1] + w[1:].lower() for w in name.split())


def company_forms(company: ScaleCompany, aliases: dict[str, list[str]], exchanges: dict[str, str]) -> Forms:
    legal = _people_case(_STATE_MARK.sub("", company.bench.legal).strip())
    spoken = _LEGAL_TAIL.sub("", re.sub(r"(?i)^the\s+", "", legal)).strip(" ,.") or legal
    tickers = [company.ticker, *company.files, *company.bench.other_tickers]
    alias = [a for t in tickers for a in aliases.get(t, [])]
    short = (company.bench.short or alias or [spoken])[0]
    known = {legal, spoken, short, *company.bench.short, *alias, *tickers}
    return Forms(company.ticker, legal, short, exchanges.get(company.ticker, "NYSE"),
                 sorted((k for k in known if k), key=lambda k: (-len(k), k)), spoken)  # one order whatever the hash seed


def _legal_word(legal: str) -> str:
    """The legal-form word a legal name ends with, as a person types it ('Corp' of 'NVIDIA CORP'), else ''."""
    m = re.search(r"(?i)\b(inc|corp|corporation|co|company|ltd|plc)\.?\s*$", legal)
    return m.group(1).capitalize() if m else ""


def written(forms: Forms, family: str, rng: random.Random) -> str | None:
    """The company written one of the WRITTEN families' ways; None when the family does not apply to it."""
    named = [n for n in (forms.short, forms.spoken, forms.legal) if n]
    if family == "amp_and":
        for n in named:
            if " & " in n:
                return n.replace(" & ", " and ")
            if re.search(r"(?i) and ", n):
                return re.sub(r"(?i) and ", " & ", n, count=1)
        return None
    if family == "suffix_added":  # the name people use and the legal name's own legal-form word: 'Apple Inc'
        word = _legal_word(forms.legal)
        if not word or not forms.spoken or _LEGAL_TAIL.search(forms.spoken) or forms.spoken.split()[-1] == "ASA":
            return None
        return forms.spoken + rng.choice([" ", ", "]) + word + rng.choice(["", "."])
    if family == "suffix_dropped":
        return forms.spoken if forms.spoken and forms.spoken != forms.legal else None
    if family == "all_caps":
        return forms.short.upper() if any(c.islower() for c in forms.short) else None
    if family == "punct_dropped":
        for n in named:
            if re.search(r"\w[-.]\w", n):  # 'Coca-Cola' -> 'Coca Cola', 'J.P. Morgan' -> 'JP Morgan'
                return re.sub(r"(?<=\w)\.(?=\w)|(?<=\b\w)\.(?=\s)", "", n).replace("-", " ")
        return None
    if family == "dollar_ticker":
        return "$" + forms.ticker
    raise ValueError(family)


def find_mention(question: str, forms: Forms) -> tuple[int, int] | None:
    """The span of the company's mention: a known form at word boundaries (any case; a ticker in capitals or as
    '$tick'), with a possessive and a '(TICK)' / '(NYSE: TICK)' tag after it included."""
    for form in forms.known:
        ticker_like = form.isupper() and len(form) <= 5 and " " not in form
        # a ticker in capitals, or in lower case when it is no English word ('msft', not 'all' of Allstate)
        flags = 0 if ticker_like and zipf(form) >= 3.0 else re.I
        m = re.search(rf"(?<![\w&.\-])\$?{re.escape(form)}(?![\w&]|[.\-][A-Za-z0-9])", question, flags)
        if not m:
            continue
        start, end = m.start(), m.end()
        if ticker_like and (head := _NAME_BEFORE_TAG.search(question[:start])):
            start = head.start(1)  # 'Fox Factory (FOXF)': the name before the tag and the tag are one mention
        tail = re.match(r"['’]s?\b|['’](?=\s)", question[end:])
        end += tail.end() if tail else 0
        tag = re.match(r"\s*\((?:[A-Za-z]+\s*:\s*)?\$?[A-Za-z.\-]{1,6}\)", question[end:])
        end += tag.end() if tag else 0
        if ticker_like and question[end:end + 1] == ")":
            end += 1
        return start, end
    return None


def _insert(question: str, at: int, words: str) -> str:
    left, right = question[:at].rstrip(), question[at:].lstrip()
    return " ".join(p for p in (left, words, right) if p)


def _remove(question: str, span: tuple[int, int]) -> str:
    left = _DANGLING.sub("", question[:span[0]].rstrip() + " ").rstrip()
    rest = (left + " " + question[span[1]:].lstrip()).strip()
    return re.sub(r"\s+([,?.])", r"\1", re.sub(r"^[,\s]+|\s{2,}", " ", rest)).strip()


def perturb(question: str, span: tuple[int, int], forms: Forms, family: str, rng: random.Random) -> str | None:
    """The question rewritten in one family's way; None when the family does not apply."""
    a, b = span
    put = {"ticker": forms.ticker, "lower_ticker": forms.ticker.lower(), "full_name": forms.legal,
           "short_name": forms.short, "possessive": forms.short + ("'" if forms.short.endswith("s") else "'s"),
           "exchange_tag": f"{forms.short} ({forms.exchange.upper()}: {forms.ticker})"}
    if family == "lower_ticker" and (len(forms.ticker) < 2 or not forms.ticker.isalpha() or zipf(forms.ticker) >= 3.0
                                     or is_finance_abbreviation(forms.ticker)):
        return None
    if family in put:
        return question[:a] + put[family] + question[b:]
    if family in MOVED:
        where, form = family.split("_")
        rest = _remove(question, span)
        words = rest.split()
        if len(words) < 2:
            return None
        mention = forms.ticker if form == "ticker" else forms.short
        if where == "start":
            return f"{mention} {rest}"
        if where == "end":
            return f"{rest.rstrip('?.!')} {mention}" + ("?" if rest.endswith("?") else "")
        # the gap nearest the middle that splits no name (two capitalised words) nor a parenthesis
        gaps = [i for i in range(1, len(words)) if not (words[i - 1][:1].isupper() and words[i][:1].isupper())
                and words[i - 1] not in ("&", "(") and words[i] != "&" and not words[i - 1].endswith(":")
                and words[i - 1].count("(") <= words[i - 1].count(")")]
        if not gaps:
            return None
        mid = min(gaps, key=lambda i: (abs(i - len(words) / 2), i))
        return " ".join([*words[:mid], mention, *words[mid:]])
    if family in WRITTEN[:-2]:
        if family.startswith("suffix") and re.match(r"\s+[A-Z][a-z]", question[b:]):
            return None  # the mention only begins a longer name in the query ('Vertex' of 'Vertex Pharmaceuticals')
        got = written(forms, family, rng)
        return None if got is None else question[:a] + got + question[b:]
    if family == "ordinal_period":  # 'the 3rd quarter' right before the name
        if re.search(r"(?i)(?:[(:$]|\bticker|\bsymbol)\s*$", question[:a]):
            return None  # a ticker's own context ('(NYSE: T)', 'ticker T') is no place for a period
        return question[:a] + rng.choice(ORDINAL_PERIODS) + " " + question[a:]
    if family == "item_lower_name":  # 'revenue apple ...': a line item, then the name in lower case
        rest = _remove(question, span)
        if len(rest.split()) < 2:
            return None
        return f"{rng.choice(LOWER_ITEMS)} {forms.short.lower()} {rest}"
    if family == "lower_name":  # the name people use, in lower case, in its place
        return question[:a] + forms.short.lower() + question[b:] if forms.short.lower() != forms.short else None
    if family == "lower_name_typo":  # one word of six letters or more, lower case, two inner letters swapped
        word = forms.short
        if " " in word or len(word) < 6 or not word.isalpha():
            return None
        i = rng.randrange(1, len(word) - 2)
        typo = (word[:i] + word[i + 1] + word[i] + word[i + 2:]).lower()
        return None if typo == word.lower() else question[:a] + typo + question[b:]
    if family == "name_item":  # the name, then a line item right after it
        return question[:a] + forms.short + " " + rng.choice(LOWER_ITEMS) + " " + question[b:].lstrip()
    if family == "unknown_sharing":  # another company: the name's first word and a company-name word
        first = forms.short.split()[0]
        if not first[:1].isupper() or len(first) < 3 or not first.isalpha():
            return None
        return question[:a] + first + " " + rng.choice(UNKNOWN_TAILS) + " " + question[b:].lstrip()
    if family in AROUND:
        kind, _, ticker = family.partition("_")
        text = question[:a] + forms.ticker + question[b:] if ticker else question
        end = a + len(forms.ticker) if ticker else b
        word = rng.choice(CALENDAR if kind == "calendar" else FINANCE)
        return _insert(text, a, word) if rng.random() < 0.5 else _insert(text, end, word)
    raise ValueError(family)


def _registrant_begins(text: str, at: int, names: list[str]) -> bool:
    """Whether the two words at `at` begin a registrant's name on the SEC list (then no company the index lacks)."""
    two = " ".join(text[at:].split()[:2]).casefold()
    return any(n.startswith(two) for n in names)


def reglue(question: str, spans: list[tuple[int, int]], rng: random.Random) -> str | None:
    """A comparison's glue between its companies ('and', ',', 'vs.', 'versus', 'against') swapped for another one;
    None when the companies are not written side by side."""
    spans = sorted(spans)
    out, last, changed = [], 0, False
    glue = rng.choice(GLUES)
    for (_a, b), (c, _d) in zip(spans, spans[1:]):
        between = question[b:c]
        if b <= c and _GLUE_BETWEEN.match(between):
            new = glue if glue.strip() != between.strip() else rng.choice([g for g in GLUES if g != glue])
            out += [question[last:b], new]
            last, changed = c, True
    return "".join(out) + question[last:] if changed else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=DEFAULT_SETS, choices=list(SETS))
    ap.add_argument("--families", nargs="+", default=FAMILIES, choices=FAMILIES)
    ap.add_argument("--seed", type=int, default=55)
    ap.add_argument("--cache", type=Path, default=None, help="keep the generated DocumentInfo here between runs")
    ap.add_argument("--show", type=int, default=0, help="print this many failures per family")
    ap.add_argument("--out", help="write the rates and every failure as JSON here")
    args = ap.parse_args(argv)

    questions = [{**q, "set": name} for name in args.sets for q in load_scale_questions(SETS[name]) if q["gold_tickers"]]
    companies = scale_companies(None)
    docs = {d.doc_id: d for d in all_documents(args.cache)}
    registry = Registry([docs[i] for c in companies for i in c.doc_ids()])
    by_ticker: dict[str, ScaleCompany] = {}
    for c in companies:
        for t in (c.ticker, *c.files, *c.bench.other_tickers):
            by_ticker.setdefault(t, c)
            by_ticker.setdefault(t.replace(".", "-"), c)
    aliases: dict[str, list[str]] = defaultdict(list)
    for e in builtin_aliases().entries:
        for t in e.tickers:
            aliases[t] += e.names()
    exchanges = {t.replace("-", "."): r.exchange for r in load_registrants() for t in r.tickers}
    names = [r.name.casefold() for r in load_registrants()]

    def routed(q: str) -> set[str]:
        res = registry.resolve(registry.link(q), q, default_year=2024)
        return {registry.company_of(d) for d in res.doc_ids}

    rows: dict[str, list[dict]] = {f: [] for f in args.families}
    unfound = 0
    for q in questions:
        gold_cos = [by_ticker[t] for t in q["gold_tickers"] if t in by_ticker]
        gold = {registry.company_of(c.doc_ids()[0]) for c in gold_cos}
        found = [(c, span) for c in gold_cos
                 if (span := find_mention(q["question"], company_forms(c, aliases, exchanges)))]
        if not found:
            unfound += 1
            continue
        base = routed(q["question"]) == gold
        for family in args.families:
            rng = random.Random(f"{args.seed}|{q['question']}|{family}")
            company, span = rng.choice(found)
            if family == "ordinal_period":  # the period opens the query's first company, not one inside a list
                company, span = min(found, key=lambda f: f[1][0])
            if family in MOVED + ["item_lower_name"] and len(gold) > 1:
                continue  # a comparison's order is its meaning
            if family == "compare_glue":
                got_text = reglue(q["question"], [sp for _c, sp in found], rng) if len(found) > 1 else None
                if got_text is None:
                    continue
                text = got_text
                got = routed(text)
                rows[family].append({"set": q["set"], "original": q["question"], "question": text,
                                     "gold": sorted(gold), "routed": sorted(got), "exact": got == gold,
                                     "extra": bool(got - gold), "nowhere": not got, "base_exact": base})
                continue
            if family == "unknown_sharing" and len(gold) > 1:
                continue
            text = perturb(q["question"], span, company_forms(company, aliases, exchanges), family, rng)
            if text is None or (family == "unknown_sharing" and _registrant_begins(text, span[0], names)):
                continue
            want = set() if family == "unknown_sharing" else gold
            got = routed(text)
            rows[family].append({"set": q["set"], "original": q["question"], "question": text, "gold": sorted(want),
                                 "routed": sorted(got), "exact": got == want, "extra": bool(got - want),
                                 "nowhere": not got, "base_exact": base})
    summary = {}
    print(f"{len(questions)} labelled queries naming a company, {unfound} with no mention found (nicknames, "
          f"brands), seed {args.seed}\n")
    print(f"{'family':<16}{'n':>6}{'exact':>8}{'extra':>8}{'nowhere':>9}{'broken':>8}")
    for family, rs in rows.items():
        n = max(1, len(rs))
        s = {"n": len(rs), "exact": round(sum(r["exact"] for r in rs) / n, 4),
             "extra": round(sum(r["extra"] for r in rs) / n, 4), "nowhere": round(sum(r["nowhere"] for r in rs) / n, 4),
             "broken": round(sum(r["base_exact"] and not r["exact"] for r in rs) / n, 4)}
        summary[family] = s
        print(f"{family:<16}{s['n']:>6}{s['exact']:>8.3f}{s['extra']:>8.3f}{s['nowhere']:>9.3f}{s['broken']:>8.3f}")
    every = [r for rs in rows.values() for r in rs]
    summary["all"] = {"n": len(every), "exact": round(sum(r["exact"] for r in every) / max(1, len(every)), 4),
                      "broken": round(sum(r["base_exact"] and not r["exact"] for r in every) / max(1, len(every)), 4)}
    print(f"{'all':<16}{len(every):>6}{summary['all']['exact']:>8.3f}{'':>25}{summary['all']['broken']:>8.3f}")
    if args.show:
        for family, rs in rows.items():
            bad = [r for r in rs if r["base_exact"] and not r["exact"]][:args.show]
            for r in bad:
                print(f"  [{family}] {r['question']!r}: gold {r['gold']} got {r['routed']}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"seed": args.seed, "sets": args.sets, "summary": summary,
                                              "failures": {f: [r for r in rs if not r["exact"]]
                                                           for f, rs in rows.items()}}, indent=1) + "\n",
                                  encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
