"""The context of a routed filing: a budget that follows the question, section preference, expansion.

Inside a routed filing every chunk is a candidate (the filing has a few hundred), so the question is not
which company but which part of the filing. `plan_context` decides, from the question alone:

* the scope (`section_intent.question_scope`): a `line_item` question keeps the paper's adaptive cutoff
  (its answer is one table row); an `open` one may fill `budget_tokens` (the paper's HDRR budget is
  5k-15k tokens), in score order, down to `floor` x the top chunk's score;
* the sections it points to (`section_intent.sections_for`): for an open question, chunks inside them get
  `section_weight` on top of their rerank score (a preference, never a filter: a chunk outside them can
  still win; a line item's answer is a statement row, so its scores stay the reranker's);
* expansion: for the top `expand_top` chunks of an open question, the chunk before and after it and the
  first chunk of its section (a note's heading, a table's title) join the context while the budget allows,
  so a table's title and its rows, or a note's heading and its body, arrive together.

The plan is returned as a dict and lands in the answer's `retrieval.context` record with the reason.
"""
from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any, Callable, Optional, overload

from finrag.tools.llm.tokens import count_tokens
from finrag.tools.question.section_intent import Scope, question_scope, sections_for
from finrag.tools.retrieval.text_memo import TextMemo
from finrag.tools.vocabulary.statements import statement_intent

__all__ = ["plan_context", "prefer_sections", "section_bonus", "fill_budget", "expansion_ids", "chunk_tokens",
           "chunk_tokens_of", "LazyRanking", "LazySequence"]

Labels = dict[int, tuple[Optional[str], Optional[str]]]


def chunk_tokens(text: str) -> int:
    """Tokens of one chunk, as the answer's `cost.context_tokens` counts them (`tools/llm/tokens.py`)."""
    return max(1, count_tokens(text or ""))


_TOKENS = TextMemo(chunk_tokens, max_units=500_000)  # entries: a chunk's token count, a few MB


def chunk_tokens_of(c: dict) -> int:
    """`chunk_tokens` of a candidate's text, remembered per chunk (keyed by chunk id and text, `TextMemo`): an
    open question's budget counts some thirty chunks, and the next question over the filing meets them again."""
    return _TOKENS(c.get("text", "") or "", c.get("chunk_id"))


def plan_context(question: str, *, budget_tokens: int, floor: float, section_weight: float,
                 expand_top: int, scope: Optional[Scope] = None) -> dict:
    """The context plan of one question: scope (`scope` when the caller knows it, else `question_scope`),
    budget, preferred sections and why."""
    if scope is None:
        scope = question_scope(question, bool(statement_intent(question)))
    cues = sections_for(question)
    plan: dict[str, Any] = {"rule": "budget", "scope": scope, "sections": [k for k, _ in cues],
            "cues": sorted({c for _, c in cues}), "budget_tokens": int(budget_tokens) if scope == "open" else None,
            "floor": float(floor) if scope == "open" else None, "section_weight": float(section_weight),
            "expand_top": int(expand_top) if scope == "open" else 0}
    plan["reason"] = (f"{'an open question' if scope == 'open' else 'a line-item question'}"
                      + (f": up to {budget_tokens} tokens" if scope == "open" else ": the adaptive cutoff")
                      + (f"; preferring {', '.join(plan['sections'])} (cue: {', '.join(plan['cues'])})"
                         if plan["sections"] and section_weight > 0 and scope == "open" else ""))
    return plan


def prefer_sections(candidates: Sequence[dict], labels: Labels, sections: Sequence[str], weight: float) -> int:
    """Add `weight` to `rerank_score` (and `score`) of every candidate whose item or note is in `sections`;
    each candidate's `section` is set to its (item, note) label. Returns how many got the bonus."""
    bonus = section_bonus(candidates, labels, sections, weight)
    for c, b in zip(candidates, bonus):
        if b:
            c["rerank_score"] = float(c["rerank_score"]) + weight
            c["score"] = c["rerank_score"]
    return sum(bonus)


def section_bonus(candidates: Sequence[dict], labels: Labels, sections: Sequence[str], weight: float) -> list[bool]:
    """Which candidates `prefer_sections` gives the bonus (their item or note is in `sections`, `weight` > 0);
    each candidate's `section` is set to its (item, note) label. Scores are left alone (a `LazyRanking` adds
    the bonus when it scores a candidate)."""
    wanted = set(sections)
    out = []
    shared: dict[tuple, dict] = {}  # one (read-only) record per label: ~400 candidates, a few dozen labels
    for c in candidates:
        item, note = labels.get(int(c["chunk_id"]), (None, None))
        record = shared.get((item, note))
        if record is None:
            record = shared[(item, note)] = {"item": item, "note": note}
        c["section"] = record
        out.append(bool(weight > 0 and wanted and (item in wanted or note in wanted)))
    return out


class LazySequence(Sequence[dict]):
    """A sequence of `length` items drawn from `items` only as far as it is read (`fill_budget` stops early)."""

    def __init__(self, items: Iterator[dict], length: int):
        self._items = items
        self._length = int(length)
        self._seen: list[dict] = []

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, k: int) -> dict: ...

    @overload
    def __getitem__(self, k: slice) -> list[dict]: ...

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self._length))]
        if k < 0:
            k += self._length
        while len(self._seen) <= k < self._length:
            nxt = next(self._items, None)
            if nxt is None:
                break
            self._seen.append(nxt)
        if not 0 <= k < len(self._seen):
            raise IndexError(k)
        return self._seen[k]


class LazyRanking(Sequence[dict]):
    """`sorted(items, key=lambda c: -c["rerank_score"])` (ties in the given order), scored only as far as it is
    read. `bound[i]` is an upper bound of item i's score (`ScoreParts.bound` plus its section bonus) and
    `score(i)` its exact score; an item is scored when its bound reaches the best score not yet handed out,
    and a scored item is handed out once no unscored item can beat it (or tie it from an earlier place). A
    scored item gets `rerank_score` and `score` as `rerank` sets them; unscored ones keep theirs (None).

    `fill_budget` reads an open question's ranking down to its floor or its budget, some 20-40 of ~400
    candidates, so the candidates below are never scored: the context is the one sorting them all gives.
    """

    def __init__(self, items: Sequence[dict], bound: Sequence[float], score: Callable[[int], float]):
        self.items = list(items)
        self.bound = list(bound)
        self._score = score
        self._order = sorted(range(len(self.items)), key=lambda i: -self.bound[i])
        self._pos = 0
        self._heap: list[tuple[float, int]] = []
        self.scored: dict[int, float] = {}
        self._out: list[int] = []

    def __len__(self) -> int:
        return len(self.items)

    def ensure(self, i: int) -> float:
        """Item i's exact score (scored now if it was not); it joins the ranking at its place."""
        got = self.scored.get(i)
        if got is None:
            got = float(self._score(i))
            self.scored[i] = got
            c = self.items[i]
            c["rerank_score"] = got
            c["score"] = got
            heapq.heappush(self._heap, (-got, i))
        return got

    def _advance(self) -> bool:
        """Hand out the next item of the ranking; False when all are out."""
        while True:
            while self._pos < len(self._order) and self._order[self._pos] in self.scored:
                self._pos += 1
            nxt = self._order[self._pos] if self._pos < len(self._order) else None
            if self._heap and (nxt is None or -self._heap[0][0] > self.bound[nxt]):
                self._out.append(heapq.heappop(self._heap)[1])
                return True
            if nxt is None:
                return False
            self.ensure(nxt)

    @overload
    def __getitem__(self, k: int) -> dict: ...

    @overload
    def __getitem__(self, k: slice) -> list[dict]: ...

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self.items)))]
        if k < 0:
            k += len(self.items)
        while len(self._out) <= k < len(self.items) and self._advance():
            pass
        if not 0 <= k < len(self._out):
            raise IndexError(k)
        return self.items[self._out[k]]

    def __iter__(self) -> Iterator[dict]:
        k = 0
        while True:
            try:
                yield self[k]
            except IndexError:
                return
            k += 1


def fill_budget(ranked: Sequence[dict], budget_tokens: int, floor: float,
                extra: Optional[Callable[[dict, int], list[dict]]] = None,
                always: Optional[set[int]] = None) -> list[dict]:
    """Chunks of `ranked` (best first) until `budget_tokens` is spent or a score falls below `floor` x the
    top score (the chunk ids in `always` pass that test); `extra(chunk, position)` may add chunks right
    after one (expansion), spent from the same budget. Chunks already in the context are not added twice;
    the first chunk always is."""
    if not ranked:
        return []
    top = float(ranked[0]["rerank_score"])
    kept: list[dict] = []
    seen: set[int] = set()
    used = 0

    def add(c: dict) -> bool:
        nonlocal used
        cid = int(c["chunk_id"])
        if cid in seen:
            return True
        cost = chunk_tokens_of(c)
        if kept and used + cost > budget_tokens:
            return False
        seen.add(cid)
        kept.append(c)
        used += cost
        return True

    for i, c in enumerate(ranked):
        if kept and float(c["rerank_score"]) < floor * top and int(c["chunk_id"]) not in (always or ()):
            break
        if not add(c):
            break
        for e in (extra(c, i) if extra else []):
            add(e)
    return kept


def expansion_ids(chunk: dict, labels: Labels, doc_chunk_ids: Sequence[int]) -> list[int]:
    """Chunk ids to add after `chunk`: its section's first chunk, then the chunk before and after it (same
    filing). `doc_chunk_ids` are the filing's chunk ids in order."""
    cid = int(chunk["chunk_id"])
    try:
        pos = list(doc_chunk_ids).index(cid)
    except ValueError:
        return []
    out: list[int] = []
    label = labels.get(cid)
    if label and (label[0] or label[1]):
        start = pos
        while start > 0 and labels.get(doc_chunk_ids[start - 1]) == label:
            start -= 1
        if start < pos - 1:
            out.append(int(doc_chunk_ids[start]))
    if pos > 0:
        out.append(int(doc_chunk_ids[pos - 1]))
    if pos + 1 < len(doc_chunk_ids):
        out.append(int(doc_chunk_ids[pos + 1]))
    return out
