"""Inline-XBRL facts of an EDGAR HTML filing, collected while `html.py` reads its pages.

`XbrlCollector` is fed the parser's tags and text (the hidden ``ix:header`` included) and keeps:

* ``contexts``: id -> ``{"start", "end"}`` (a duration) or ``{"instant"}``, for contexts without dimensions
  only (a segment, a parent-only column or a class of stock is not a consolidated value);
* ``facts``: every ``ix:nonFraction`` in those contexts: concept, context, value with ``scale`` and
  ``sign`` applied, the displayed text, unit, decimals, the zero-based page it is displayed on
  (-1 for a hidden fact) and ``row``, the first text cell of the table row it is displayed in (its label);
* ``member_contexts`` / ``member_facts``: the same for contexts with exactly one explicit member (a segment, a
  product line, a region: ``{"axis", "member"}`` beside the period), at most `MAX_MEMBER_FACTS` facts: what
  `finrag.tools.answering.member_facts` answers a segment question from (schema ``finrag.xbrl/2``; an index
  written before has none, and such a question is answered as not found);
* ``dei``: the document-and-entity facts (``dei:DocumentType``, ``dei:DocumentFiscalYearFocus``,
  ``dei:TradingSymbol``...), as text; ``TradingSymbol`` is a list (one per class of security).

`XbrlCollector.data_dict()` is the JSON-ready dict, or None for a filing without inline XBRL. Never raises.
`dei_facts(markup)` is the one reader of a document's dei facts outside the indexer (`finrag fetch`'s sidecar,
`finrag.tools.edgar.identity`): the same collector, fed by a parser that keeps no text.
A fact's number is read by `finrag.tools.numbers.fact_value` (re-exported here).
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Optional

from finrag.tools.numbers import MAX_DIGITS, MAX_SCALE, bounded_decimals, bounded_scale, fact_value

__all__ = ["FACTS_SCHEMA", "MAX_DIGITS", "MAX_SCALE", "XbrlCollector", "bounded_decimals", "bounded_scale", "dei_facts", "fact_value"]

_DEI_LISTS = {"TradingSymbol", "SecurityExchangeName", "Security12bTitle"}
_MAX_TEXT = 200
_MAX_CELL = 200  # characters of a table cell kept for a fact's row label
FACTS_SCHEMA = "finrag.xbrl/2"
"""The facts' shape (`data_dict`'s "schema"); a filing stored with another is parsed again by `finrag index`
even when its file is unchanged (`Store.stale_facts_docs`)."""
MAX_MEMBER_FACTS = 50_000
"""The most facts in one-member contexts kept per filing (real 10-Ks tag a few thousand)."""
_NUMERIC_CELL = re.compile(r"[$()\d,.\s%\u2014\u2013-]*")
_MAX_OPEN = 16
"""The most facts open at once (nested): real filings nest two or three; thousands of unclosed
``ix:nonFraction`` tags made every text event walk them all (issue 34: hostile content never hangs)."""


class XbrlCollector:
    """Collects contexts, numeric facts and dei facts from parser events (see the module docstring)."""

    def __init__(self) -> None:
        self.contexts: dict[str, dict] = {}
        self.dims: set[str] = set()
        self.facts: list[dict] = []
        self.dei: dict = {}
        self._ctx: Optional[dict] = None
        self._ctx_field = ""
        self._open: list[tuple[str, dict, list[str]]] = []  # (tag, attributes, text parts)
        self.seen = False
        self.member_contexts: dict[str, dict] = {}
        self._explicit: Optional[list[str]] = None  # [dimension, member text] of the open explicitMember
        self._cells: Optional[list[list[str]]] = None  # the open table row's cells (text parts)

    def start(self, tag: str, attrs: list, page: int, hidden: bool) -> None:
        """A start tag (lower-cased by HTMLParser)."""
        if tag == "tr":
            self._cells = []
            return
        if tag in ("td", "th"):
            if self._cells is None:
                self._cells = []
            self._cells.append([])
            return
        if not tag.startswith(("ix:", "xbrli:", "xbrldi:")):
            return
        self.seen = True
        a = {k.lower(): (v or "") for k, v in attrs if k}
        if tag == "xbrli:context":
            self._ctx = {"id": a.get("id", "")}
        elif self._ctx is not None and tag in ("xbrli:startdate", "xbrli:enddate", "xbrli:instant"):
            self._ctx_field = tag.split(":")[1]
        elif self._ctx is not None and tag in ("xbrldi:explicitmember", "xbrldi:typedmember", "xbrli:segment"):
            self._ctx["dims"] = True
            if tag == "xbrldi:explicitmember":
                self._explicit = [a.get("dimension", ""), ""]
            elif tag == "xbrldi:typedmember":
                self._ctx["typed"] = True
        elif tag in ("ix:nonfraction", "ix:nonnumeric"):
            name = a.get("name", "")
            if tag == "ix:nonnumeric" and not name.startswith("dei:"):
                return
            if len(self._open) >= _MAX_OPEN:
                return  # the end tag of an ignored fact closes an open one of its kind: no worse than unclosed
            a["_page"] = -1 if hidden else page
            self._open.append((tag, a, []))

    def data(self, text: str) -> None:
        """Text inside the current element."""
        if self._ctx is not None and self._ctx_field:
            self._ctx[self._ctx_field] = self._ctx.get(self._ctx_field, "") + text.strip()
        if self._explicit is not None and len(self._explicit[1]) < _MAX_TEXT:
            self._explicit[1] += text.strip()
        if self._cells and sum(map(len, self._cells[-1])) < _MAX_CELL:
            self._cells[-1].append(text)
        for _tag, _a, parts in self._open:
            if sum(map(len, parts)) < _MAX_TEXT:
                parts.append(text)

    def end(self, tag: str) -> None:
        """An end tag."""
        if tag == "tr":
            self._cells = None
        elif tag in ("xbrli:startdate", "xbrli:enddate", "xbrli:instant"):
            self._ctx_field = ""
        elif tag == "xbrldi:explicitmember" and self._explicit is not None and self._ctx is not None:
            self._ctx.setdefault("members", []).append(tuple(self._explicit))
            self._explicit = None
        elif tag == "xbrli:context" and self._ctx is not None:
            c, self._ctx = self._ctx, None
            if c.get("dims"):
                self.dims.add(c["id"])
                members = c.get("members") or []
                if len(members) == 1 and not c.get("typed") and members[0][0] and members[0][1]:
                    period = ({"instant": c["instant"]} if c.get("instant") else
                              {"start": c.get("startdate", ""), "end": c["enddate"]} if c.get("enddate") else None)
                    if period:
                        self.member_contexts[c["id"]] = {"axis": members[0][0], "member": members[0][1], **period}
            elif c.get("instant"):
                self.contexts[c["id"]] = {"instant": c["instant"]}
            elif c.get("enddate"):
                self.contexts[c["id"]] = {"start": c.get("startdate", ""), "end": c["enddate"]}
        elif tag in ("ix:nonfraction", "ix:nonnumeric"):
            for i in range(len(self._open) - 1, -1, -1):
                if self._open[i][0] == tag:
                    self._finish(*self._open.pop(i))
                    break

    def _finish(self, tag: str, a: dict, parts: list[str]) -> None:
        text = re.sub(r"\s+", " ", "".join(parts).replace("\xa0", " ")).strip()[:_MAX_TEXT]
        name = a.get("name", "")
        if name.startswith("dei:"):
            key = name[4:]
            if key in _DEI_LISTS:
                if text and text not in self.dei.setdefault(key, []):
                    self.dei[key].append(text)
            elif text and key not in self.dei:
                self.dei[key] = text
                if a.get("format"):
                    self.dei.setdefault("_formats", {})[key] = a["format"]
            if tag == "ix:nonnumeric":
                return
        value = fact_value(text, a.get("format", ""), a.get("scale"), a.get("sign", ""))
        if value is None or not a.get("contextref"):
            return
        if len(self.facts) >= MAX_MEMBER_FACTS * 4:
            return
        fact = {"concept": name, "context": a["contextref"], "value": value, "text": text,
                "unit": a.get("unitref", ""), "decimals": bounded_decimals(a.get("decimals", "")),
                "scale": a.get("scale", "0"), "sign": a.get("sign", ""), "page": a["_page"]}
        row = self._row_label()
        if row:
            fact["row"] = row
        self.facts.append(fact)

    def _row_label(self) -> str:
        """The first text cell of the open table row before the fact's own cell ("" outside a table)."""
        if not self._cells:
            return ""
        for cell in self._cells[:-1] or self._cells:
            text = re.sub(r"\s+", " ", "".join(cell).replace("\xa0", " ")).strip()
            if text and not _NUMERIC_CELL.fullmatch(text):
                return text[:_MAX_CELL]
        return ""

    def data_dict(self) -> Optional[dict]:
        """The collected facts as a JSON-ready dict (facts in contexts without dimensions; those of one-member
        contexts apart), or None."""
        if not self.seen or not (self.facts or self.dei):
            return None
        facts = [f for f in self.facts if f["context"] in self.contexts or f["concept"].startswith("dei:")]
        members = [f for f in self.facts if f["context"] in self.member_contexts][:MAX_MEMBER_FACTS]
        used = {f["context"] for f in members}
        return {"schema": FACTS_SCHEMA, "contexts": self.contexts, "facts": facts, "dei": self.dei,
                "member_contexts": {k: v for k, v in self.member_contexts.items() if k in used},
                "member_facts": members}


class _Tags(HTMLParser):
    """Feeds an `XbrlCollector` every tag and text of a document (hidden ones included), keeping nothing else."""

    def __init__(self, collector: XbrlCollector) -> None:
        super().__init__(convert_charrefs=True)
        self.collector = collector

    def handle_starttag(self, tag, attrs):
        self.collector.start(tag.lower(), attrs, 0, False)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        self.collector.end(tag.lower())

    def handle_data(self, data):
        self.collector.data(data)


def dei_facts(markup: str) -> dict:
    """The dei cover facts of an inline-XBRL document, as `XbrlCollector` keeps them: name -> text (a list for
    trading symbols, exchanges and security titles; nested facts each whole); {} when there are none or the
    markup cannot be read."""
    collector = XbrlCollector()
    try:
        parser = _Tags(collector)
        parser.feed(markup or "")
        parser.close()
    except Exception:  # HTMLParser is lenient; a failure here costs the facts, never the download
        return {}
    return {k: v for k, v in collector.dei.items() if k != "_formats"}
