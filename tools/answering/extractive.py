"""The offline generator: an extractive answer from the context, every unit cited.

The sentences or table rows of the context that best cover the question's keywords and numbers, each
with its `[doc, p. N]` citation; never an empty string.
"""
from __future__ import annotations

import functools
import re
from typing import Iterator

from finrag.tools.answering.furniture import without_furniture
from finrag.tools.retrieval.vocabulary import SENTENCE_END, KeywordCoverage


def context_label(chunk: dict) -> str:
    """The citation label of a context: `[doc_id, p. N]` or `[doc_id, pp. N-M]`."""
    ps, pe = chunk.get("page_start"), chunk.get("page_end")
    pages = f"p. {ps}" if ps == pe else f"pp. {ps}-{pe}"
    return f"[{chunk.get('doc_id')}, {pages}]"


NO_CONTEXT = ("I could not find passages in the indexed filings that answer this question"
              " (no relevant context was retrieved).")
_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


_LABEL = re.compile(r"[A-Za-z]{3}")
_YEAR = re.compile(r"(?:19|20)\d\d")


_BULLETS = re.compile(r"\s*[•\u2022●▪]\s*")


@functools.lru_cache(maxsize=4096)  # pure, and read for every context chunk of every question: remembered
def _units(text: str, window: bool = False) -> tuple[str, ...]:
    """Candidate answer units: sentences (PDF lines re-joined) and table rows.

    PyMuPDF often puts each table cell on its own line, so a row is a line with a
    label followed by up to four short lines that carry its numbers.

    `window`: the text is a chunk, a window of characters that starts and ends wherever it falls, so the text
    before its first sentence end and after its last are pieces of sentences ("Loss from operations were
    benefits of $811 million", issue 34 case 11) and are not offered; the neighbouring chunk, which overlaps
    this one, holds them whole. Page furniture (page numbers, "Table of Contents", trademark marks, running
    footers: `furniture.without_furniture`) is no part of any unit. A run of bullets too long for one unit (a
    summary whose items end in semicolons) is cut into its bullets.
    """
    lines = [ln.strip() for ln in without_furniture(text).splitlines()]
    # a table's row ("Products | 37.2% | 36.5%") is no part of a sentence: the prose between rows is read apart
    runs: list[list[str]] = [[]]
    for ln in (ln for ln in lines if ln):
        if "|" in ln:
            runs.append([])
        else:
            runs[-1].append(ln)
    parts = [SENTENCE_END.split(" ".join(run)) for run in runs if run]
    if window and sum(map(len, parts)) > 1:  # the window's cut ends, where prose begins or ends it
        if runs[0]:
            parts[0] = parts[0][1:]
        if runs[-1] and not re.search(r"[.!?;]\W*$", parts[-1][-1] if parts[-1] else "."):
            parts[-1] = parts[-1][:-1]
    elif window and parts and parts[0] and runs[0] and parts[0][0][:1].islower():
        parts[0] = parts[0][1:]  # the window's one piece begins inside a word or a sentence: a cut piece
    sentences = [sent for part in parts for sent in part]
    # a bulleted summary whose items end in semicolons reads as one sentence too long to be a unit: its bullets are
    # ("• Gross margin percentage decreased seven basis points, driven primarily by ...;")
    sentences = [piece for sent in sentences
                 for piece in (_BULLETS.split(sent) if len(sent.strip()) > 600 else (sent,))]
    units = [s.strip() for s in sentences if 25 <= len(s.strip()) <= 600]
    for i, line in enumerate(lines):
        if not _LABEL.search(line) or len(line) > 160:
            continue
        if window and i == 0 and line[:1].islower():  # the window's cut start: the end of a word or a label
            continue
        row = [line]
        for nxt in lines[i + 1 : i + 5]:
            if not nxt or _LABEL.search(nxt.replace("million", "").replace("$", "")) or len(nxt) > 40:
                break
            row.append(nxt)
        cells = _NUM.findall(" ".join(row[1:]))
        if _NUM.search(" ".join(row)) and not (cells and all(_YEAR.fullmatch(n) for n in cells)):
            units.append(" ".join(row))  # not a label over cells that are only years: a table's header
    return tuple(units)


def covered_units(question: str, keywords: list[str], contexts: list[dict]) -> Iterator[tuple[float, float, int, str, dict]]:
    """Every answer unit of the contexts (`_units`: no cut sentence of a chunk), in context order, as (keyword
    coverage, score, context rank, unit, context): the score the answers rank units by is the coverage plus a small
    bonus for the context's rank (the extractive, evidence and prose answers each add their own)."""
    coverage = KeywordCoverage(keywords or question.split())
    for rank, ctx in enumerate(contexts):
        for unit in _units(ctx.get("text", ""), ctx.get("chunk_id") is not None):
            cov = coverage(unit)
            yield cov, cov + 0.02 * (len(contexts) - rank) / len(contexts), rank, unit, ctx


def extractive_answer(question: str, keywords: list[str], contexts: list[dict], max_units: int = 3) -> str:
    if not contexts:
        return NO_CONTEXT
    wants_number = bool(re.search(r"\b(how much|how many|what (?:is|was|were|are) (?:the )?(?:total|amount|fy|year)|"
                                  r"ratio|margin|rate|percent|%|usd|million|billion|amount|change|growth)\b",
                                  question, re.I))
    scored = []
    for _cov, s, rank, unit, ctx in covered_units(question, keywords, contexts):
        if wants_number and _NUM.search(unit):
            s += 0.15
        scored.append((s, rank, unit, ctx))
    if not scored:
        c = contexts[0]
        return f"{' '.join(without_furniture(c.get('text', '')).split())[:400]} {context_label(c)}"
    scored.sort(key=lambda t: (-t[0], t[1]))
    picked, seen = [], set()
    for _score, _, unit, ctx in scored:
        key = unit[:80]
        if key in seen:
            continue
        seen.add(key)
        picked.append(f"{' '.join(unit.split())[:500]} {context_label(ctx)}")
        if len(picked) >= max_units:
            break
    return "From the filings: " + " ... ".join(picked)
