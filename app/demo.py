"""`finrag demo`: write the generated filings, index them, and show what each system does with the same questions.

The six filings (three fictional companies, fiscal 2022 and 2023; `finrag.tools.demo`) share headings and
boilerplate and differ in their numbers, so a chunk about "total revenue" from one filing reads like the
same chunk from the other five. For each question the demo prints, per system, whether the expected answer
(stated verbatim in the asked filing) is in the answer, how many context chunks came from the asked
filing and where the others came from (the same company's other year, or another company), and the step
that explains it (HDRR's route, Agentic's verification). The summary counts the same things over all
questions; it is computed from the runs, not written in advance.
"""
from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Callable

from finrag.api import run_query
from finrag.state.systems import BY_NAME
from finrag.tools.demo.corpus import demo_questions, generate_demo_corpus
from finrag.tools.indexing import open_index
from finrag.tools.indexing.embedders import get_embedder
from finrag.tools.indexing.indexer import build_variant, index_paths
from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.store import Store

DEMO_METRICS = ("revenue", "net_income", "employees", "tax_rate", "acquisition", "hq")
"""The questions the demo asks first (one per metric, in this order): numbers from the statements and the
text, a fact only one company has, and a question without a year (routed to the company's latest filing)."""


def shell_word(text: str) -> str:
    """`text` as one word of a POSIX shell command: in double quotes when nothing in it is special there (a
    question's apostrophe reads better so), else as `shlex.quote` writes it."""
    if text and not re.search(r'[\\"$`!]', text):
        return text if re.fullmatch(r"[\w./:@%+=,-]+", text) else f'"{text}"'
    return shlex.quote(text)


def finrag_command(argv0: str | None = None, cwd: Path | None = None) -> str:
    """How to run finrag again from where the user is, as a command that works when pasted: `finrag` when that name
    on the PATH is this program, else the program's path (`.venv/bin/finrag` after the quick start, which puts
    nothing on the PATH), else `PYTHON -m finrag.cli`."""
    import shutil
    import sys

    cwd = cwd or Path.cwd()
    prog = Path(argv0 if argv0 is not None else sys.argv[0])

    def shown(path: Path) -> str:
        path = path if path.is_absolute() else cwd / path
        try:
            rel = path.relative_to(cwd)
            text = str(rel) if rel.parent != Path(".") else f"./{rel}"
        except ValueError:
            text = str(path)
        return shlex.quote(text)

    if prog.name == "finrag" and (prog.is_absolute() or (cwd / prog).exists()):
        on_path = shutil.which("finrag")
        here = (prog if prog.is_absolute() else cwd / prog).resolve()
        if on_path and Path(on_path).resolve() == here:
            return "finrag"
        return shown(prog)
    return f"{shown(Path(sys.executable))} -m finrag.cli"


def pick_questions(qs: list[dict], n: int) -> list[dict]:
    first = [next(q for q in qs if q["metric"] == m) for m in DEMO_METRICS if any(q["metric"] == m for q in qs)]
    rest = [q for q in qs if q not in first]
    return (first + rest)[: max(0, n)]


def _company_key(doc_id: str) -> str:
    return doc_id.split("_", 1)[0]


def _origin(doc_id: str, gold: str) -> str:
    if doc_id == gold:
        return "asked filing"
    return "same company, other year" if _company_key(doc_id) == _company_key(gold) else "other company"


def _why(res: dict) -> str:
    r = res["routing"]
    if r["status"] != "not_routed":
        docs = ", ".join(r["routed_docs"]) or "no filing"
        return f"routed to {docs} ({r['reason'] or r['status']})"
    v = res.get("verification")
    if v:
        verdict = "passed" if v["belongs"] else "failed"
        retries = f", {v['retries']} retr{'y' if v['retries'] == 1 else 'ies'}" if v["retries"] else ", no retry"
        dropped = int(v.get("unverified_dropped") or 0)
        # the chunks the reason names were dropped before answering: the contexts above no longer hold them
        gone = (f"; those {dropped} chunk{'s' if dropped != 1 else ''} of other companies were dropped, not used"
                if dropped else "")
        return f"verification {verdict} ({v['reason']}{retries}{gone})"
    return "no routing step: every filing competes"


def _short(text: str, needle: str = "", width: int = 110) -> str:
    """The answer in one line of `width`: around the expected answer when it is there, else its start."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    at = text.find(needle) if needle else -1
    if at < 0:
        return text[: width - 1] + "…"
    start = max(0, min(at - width // 3, len(text) - width + 2))
    return ("…" if start else "") + text[start: start + width - 2] + "…"


_ORIGIN_WORDS = {"same company, other year": "from the same company's other year", "other company": "from other companies"}


def show(qs: list[dict], systems: list[str], ask: Callable[[dict, str], dict], out=print) -> dict:
    """Ask every question with every system; print the per-question lines and the summary; return the tallies."""
    out("what each system does:")
    for s in systems:
        out(f"  {s:11s} {BY_NAME[s].description}")
    out("")
    found: Counter[str] = Counter()
    origins: dict[str, Counter] = {s: Counter() for s in systems}
    for i, q in enumerate(qs, 1):
        out(f"Q{i} {q['question']}")
        pages = ", ".join(str(p + 1) for p in q["evidence_pages"])  # as a PDF viewer counts pages
        out(f"   expected: {q['answer']}  (stated in {q['doc_id']}, p. {pages})")
        for s in systems:
            res = ask(q, s)
            ctx = [c["doc_id"] for c in res["contexts"]]
            where = Counter(_origin(d, q["doc_id"]) for d in ctx)
            origins[s].update(where)
            hit = q["answer"] in res["answer"]
            found[s] += hit
            others = ", ".join(f"{n} {_ORIGIN_WORDS[k]}" for k, n in where.items() if k != "asked filing")
            out(f"   {s:11s} {'found' if hit else 'MISSED':6s} {where['asked filing']}/{len(ctx)} chunks from the "
                f"asked filing{f' (others: {others})' if others else ''}")
            out(f"   {'':11s} {_why(res)}")
            out(f"   {'':11s} answer: {_short(res['answer'], q['answer'] if hit else '')}")
        out("")
    n = len(qs)
    out("summary                          " + "".join(f"{s:>12s}" for s in systems))
    out("expected answer in the answer    " + "".join(f"{f'{found[s]}/{n}':>12s}" for s in systems))
    for label, key in (("chunks from the asked filing", "asked filing"),
                       ("  same company, other year", "same company, other year"),
                       ("  other company", "other company")):
        cells = []
        for s in systems:
            total = sum(origins[s].values())
            cells.append(f"{origins[s][key]} ({100 * origins[s][key] / total:.0f}%)" if total else "-")
        out(f"{label:33s}" + "".join(f"{c:>12s}" for c in cells))
    routed = [s for s in systems if BY_NAME[s].routes]
    unrouted = [s for s in systems if s not in routed]
    if routed and unrouted:
        wrong = {s: origins[s]["same company, other year"] + origins[s]["other company"] for s in systems}
        out("")
        out(f"why routing wins: the filings look alike, so {', '.join(unrouted)} drew "
            f"{', '.join(str(wrong[s]) for s in unrouted)} of their chunks from filings that were not asked about "
            f"(Agentic checks the company, not the year); {', '.join(routed)} searched the asked filing only "
            f"({', '.join(str(wrong[s]) for s in routed)} such chunks).")
    return {"found": dict(found), "origins": {s: dict(c) for s, c in origins.items()}, "questions": n}


def run_demo(home: Path, index_dir: Path, systems: list[str], n_questions: int, progress: bool) -> int:
    corpus = home / "filings"
    print("finrag demo: six 10-K-like filings of three fictional companies, fiscal 2022 and 2023, with the same")
    print("headings and boilerplate and different numbers, so a passage from one reads like the same passage")
    print("from the other five: the cross-document confusion finrag is built to avoid. Offline: no LLM, no network.")
    print(f"1/3 writing the filings to {corpus}")
    paths = generate_demo_corpus(corpus)
    print(f"    {len(paths)} filings: " + ", ".join(p.name for p in paths))
    print(f"2/3 indexing them into {index_dir} (offline embedder)")
    with writer_lock(index_dir):
        store = Store(index_dir, create=True)
        try:
            store.check_embedder(get_embedder())
            rep = index_paths([corpus], store, progress=progress)
            for variant in ("meta", "llmctx"):
                build_variant(store, variant, progress=False)
        finally:
            store.close()
    print(f"    {len(rep.indexed)} indexed, {len(rep.unchanged)} unchanged, {rep.chunks} chunks")
    qs = pick_questions(demo_questions(paths), n_questions)
    print(f"3/3 answering {len(qs)} questions with {', '.join(systems)}\n")
    open_index.reset()

    def ask(q: dict, system: str) -> dict:
        return run_query(q["question"], system=system, index=str(index_dir), qid=q["id"]).model_dump()

    show(qs, systems, ask)
    if qs:
        print(f"\nTry: {finrag_command()} ask --index {shell_word(str(index_dir))} --system hdrr "
              f"{shell_word(qs[0]['question'])}")
    return 0
