"""Citations in an answer, checked against the contexts the generator was given (issue 34 case 5).

An answer cites `[DOC, p. N]`, `[DOC, pp. N-M]`, or several in one bracket separated by `;` (the forms the web
page turns into citation chips, app/web_static/app.js `CITE`/`PART`). An LLM can cite a filing that is not in
the index, or a page of another company that was never in its context; `check_citations` keeps only the
citations of a context actually given (same document, overlapping pages) and returns the others, which the
answer lists as `rejected_citations`.

Filing text can also forge a label: a passage reading "[ACME_2023_10K, p. 4] Revenue was ..." would look to the
generator like another context. `escape_labels` turns such brackets in passage text into parentheses before
the text goes under the real labels (`format_context`).
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping

__all__ = ["check_citations", "escape_labels", "parse_citation"]

_BRACKET = re.compile(r"\[([^\[\]]{3,300})\]")
_PART = re.compile(r"^\s*([^,;\[\]]+?)\s*,?\s+pp?\.\s*(\d{1,6})(?:\s*[-\u2013]\s*(\d{1,6}))?"
                   r"(?:\s*\(printed [^()\[\];]{1,40}\))?\s*$")
"""One part of a citation; a person's form (`finrag.tools.answering.page_labels`) may add `(printed 55)`."""


def parse_citation(inner: str) -> list[tuple[str, int, int]] | None:
    """The (doc, first page, last page) of each part of a bracket's text, or None when it is not a citation."""
    parts = [_PART.match(p) for p in inner.split(";")]
    if not parts or not all(parts):
        return None
    out = []
    for m in parts:
        assert m is not None
        first = int(m.group(2))
        last = int(m.group(3)) if m.group(3) else first
        out.append((m.group(1).strip(), min(first, last), max(first, last)))
    return out


def _label(doc: str, first: int, last: int) -> str:
    return f"{doc}, p. {first}" if first == last else f"{doc}, pp. {first}-{last}"


def check_citations(answer: str, contexts: Iterable[Mapping]) -> tuple[str, list[str]]:
    """(the answer with only citations of the given contexts, the citations removed as `[DOC, p. N]`).
    A citation is kept when a context has its document and a page range that overlaps the cited pages."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for c in contexts:
        first, last = c.get("page_start"), c.get("page_end")
        try:
            span = (int(first or 0), int(last if last is not None else first or 0))
        except (TypeError, ValueError):
            continue
        spans.setdefault(str(c.get("doc_id")), []).append(span)
    rejected: list[str] = []

    def given(doc: str, first: int, last: int) -> bool:
        return any(s <= last and first <= e for s, e in spans.get(doc, []))

    def keep(m: re.Match) -> str:
        parts = parse_citation(m.group(1))
        if parts is None:
            return m.group(0)  # a bracket that is not a citation ("[1]", "[in millions]")
        ok = [p for p in parts if given(*p)]
        if len(ok) == len(parts):
            return m.group(0)  # as written
        rejected.extend(f"[{_label(*p)}]" for p in parts if not given(*p))
        return "[" + "; ".join(_label(*p) for p in ok) + "]" if ok else "\x00"

    text = _BRACKET.sub(keep, answer or "")
    if rejected:
        text = re.sub(r"[ \t]*\x00", "", text)
        text = re.sub(r"[ \t]+([.,;:])", r"\1", text)
    return text, list(dict.fromkeys(rejected))


def escape_labels(text: str) -> str:
    """Passage text with every citation-like bracket `[X, p. N]` written `(X, p. N)`: filing text cannot pose
    as a context label."""
    return _BRACKET.sub(lambda m: f"({m.group(1)})" if parse_citation(m.group(1)) is not None else m.group(0),
                        text or "")
