"""Real EDGAR filings end to end (issue 20): routing, evidence and exact values on inline-XBRL HTML as downloaded.

    python -m bench.edgar_real                                   # ../shared/data/edgar, scratch index in runs/
    python -m bench.edgar_real --edgar DIR --index runs/edgar-idx --out docs/results/edgar_real.json
    python -m bench.edgar_real --write-questions q.jsonl         # the generated questions only
    python -m bench.edgar_real --questions q.jsonl --index IDX   # ask given questions (e.g. with older code)
    python -m bench.edgar_real --reader-only --no-rows --out docs/results/edgar_real_reader_only.json  # no iXBRL

The filings are indexed as they are, without renaming, into a scratch index (`finrag index`, MiniLM). Questions
are generated from each filing's own inline-XBRL facts, in analysts' phrasing: the company by short name, ticker
or legal name (`dei:EntityRegistrantName`), the period as a fiscal year or quarter in the registrant's calendar
("Q2 of fiscal 2025", "FY2024", "FY24", "in its 2024 fiscal year") or as a period-end date ("for the quarter
ended June 28, 2025", "as of September 28, 2024"); for a 10-Q both the quarter and the year to date, for a 10-K
also the prior fiscal year (its comparative column: no filing of that year is in the folder). The gold value is the fact of the
concept in the context without dimensions whose period is the one asked (duration of ~3 months, the year to
date or ~12 months ending at `dei:DocumentPeriodEndDate`; an instant at that date), with its scale and sign.

Each question is asked to HDRR offline (`run_query(system="hdrr")`, no LLM) and judged three ways:
* exact filing: the routed documents are exactly the gold filing;
* evidence: a context of the gold filing covers a page on which the gold fact is displayed;
* value: the answer states the gold value (a number in it, read with its "million"/"billion" word, within 0.5%;
  per-share values to the cent).
Prints the totals and tables per concept and per form; `--out` writes them with every question's outcome. For
answers from the tagged facts it also counts how often the table reader, run beside them, read the same question
and how often it disagreed (`table_check` of the answer's `reader`).

`--reader-only` measures the statement-table reader on EDGAR HTML without usable inline XBRL: the same questions
(generated from the original filings' facts) are asked of copies of the filings with the inline-XBRL markup
stripped (`strip_ixbrl`: the hidden `ix:header` removed, every other `ix:` tag unwrapped, the displayed text
untouched), indexed into their own scratch index. That is what a user has whose tool saved the HTML without the
`ix:` tags (or who has a pre-2019 HTML filing): no tagged facts and no `dei:` identity, so the filing is known
from its cover page and file name and every value comes from the statement tables. (Switching the fact answerer
off by configuration would keep the `dei:` identity, which such a user does not have.) The pages and their
numbering are the same as the originals', so the gold pages still apply.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from finrag.eval.edgar_gold import ask, generate

REPO = Path(__file__).resolve().parents[1]


_IX_HEADER = re.compile(r"(?is)<ix:header\b.*?</ix:header\s*>")
_IX_TAG = re.compile(r"(?i)</?ix:[a-z]+\b[^>]*>")


def strip_ixbrl(markup: str) -> str:
    """The filing as a tool that drops inline XBRL saves it: no `ix:header`, the other `ix:` tags unwrapped."""
    return _IX_TAG.sub("", _IX_HEADER.sub("", markup))


def stripped_copies(edgar: Path, dest: Path) -> Path:
    """Copies of the folder's HTML filings without inline XBRL (same names), rewritten only when changed."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(edgar.glob("*.htm*")):
        text = strip_ixbrl(path.read_text(encoding="utf-8", errors="replace"))
        out = dest / path.name
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
    return dest


def _groups(rows: list[dict], key: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    return dict(sorted(groups.items()))


def table(rows: list[dict], key: str) -> list[str]:
    """A Markdown table of the three rates per value of `key` (concept, form or period)."""
    groups = _groups(rows, key)
    lines = [f"| {key} | n | exact filing | evidence | value |", "|---|---|---|---|---|"]
    for g in sorted(groups):
        rs = groups[g]
        lines.append(f"| {g} | {len(rs)} | " + " | ".join(f"{sum(r[m] for r in rs) / len(rs):.3f}"
                                                       for m in ("exact", "evidence", "value")) + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", default=str(REPO.parent / "shared" / "data" / "edgar"))
    ap.add_argument("--index", help="scratch index (default runs/edgar-real-idx; --reader-only: runs/edgar-real-noix-idx)")
    ap.add_argument("--reader-only", action="store_true",
                    help="ask copies of the filings with the inline XBRL stripped (the table reader's measurement)")
    ap.add_argument("--questions", help="ask these questions (JSONL) instead of generating them")
    ap.add_argument("--write-questions", help="write the generated questions (JSONL) and stop")
    ap.add_argument("--out", help="write the summary and every outcome as JSON")
    ap.add_argument("--no-rows", action="store_true", help="with --out: the summary tables only (what docs/results holds)")
    args = ap.parse_args(argv)
    if args.questions:
        questions = [json.loads(ln) for ln in Path(args.questions).read_text().splitlines() if ln.strip()]
    else:
        questions = generate(Path(args.edgar))
    if args.write_questions:
        Path(args.write_questions).write_text("".join(json.dumps(q) + "\n" for q in questions))
        print(f"{len(questions)} questions -> {args.write_questions}")
        return 0
    index = Path(args.index or REPO / "runs" / ("edgar-real-noix-idx" if args.reader_only else "edgar-real-idx"))
    folder = args.edgar
    if args.reader_only:
        folder = str(stripped_copies(Path(args.edgar), REPO / "runs" / "edgar-real-noix-files"))
    from finrag.cli import main as finrag_main

    if finrag_main(["index", folder, "--index", str(index), "-q"]) not in (0, None):
        print("indexing failed", file=sys.stderr)
        return 1
    rows = ask(questions, index)
    n = len(rows)
    summary = {m: round(sum(r[m] for r in rows) / n, 3) for m in ("exact", "evidence", "value")} if n else {}
    mode = "; inline XBRL stripped (table reader only)" if args.reader_only else ""
    print(f"{n} questions over {len({r['doc_id'] for r in rows})} filings; HDRR offline{mode}")
    print(f"exact filing {summary.get('exact')}  evidence {summary.get('evidence')}  value {summary.get('value')}")
    checked = [r for r in rows if r.get("table_agrees") is not None]
    if checked:  # answers from the tagged facts that the table reader also read (issue 20: say when they differ)
        summary["table_checked"] = len(checked)
        summary["table_disagrees"] = sum(1 for r in checked if r["table_agrees"] is False)
        print(f"table reader beside the facts: {len(checked)} read, {summary['table_disagrees']} disagree")
    for key in ("concept", "form", "period"):
        print()
        print("\n".join(table(rows, key)))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        groups = {key: {g: {m: round(sum(r[m] for r in rs) / len(rs), 3) for m in ("exact", "evidence", "value")}
                        | {"n": len(rs)} for g, rs in _groups(rows, key).items()} for key in ("concept", "form", "period")}
        out = {"summary": summary, "n": n, "reader_only": args.reader_only, **groups}
        Path(args.out).write_text(json.dumps(out if args.no_rows else {**out, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
