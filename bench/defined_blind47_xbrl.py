"""Minimal inline-XBRL fact reader (standard library only) for the defined_blind47 gold."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from html.parser import HTMLParser
from pathlib import Path


@dataclass(frozen=True)
class Context:
    id: str
    has_dims: bool
    instant: date | None
    start: date | None
    end: date | None


@dataclass(frozen=True)
class Fact:
    name: str
    context: str
    unit: str | None
    value: float
    decimals: float  # inf for decimals="INF"


def _d(text: str) -> date:
    return date.fromisoformat(text.strip()[:10])


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.contexts: dict[str, Context] = {}
        self.facts: list[Fact] = []
        self.dei: dict[str, str] = {}
        self.dei_context: dict[str, str] = {}
        self._ctx: dict | None = None
        self._ctx_field: str | None = None
        self._nf: list[dict] = []  # stack of open nonFraction
        self._nn: dict | None = None
        self._nn_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "xbrli:context":
            self._ctx = {"id": a.get("id", ""), "dims": False, "instant": None, "start": None, "end": None}
        elif self._ctx is not None and tag in ("xbrli:instant", "xbrli:startdate", "xbrli:enddate"):
            self._ctx_field = tag.split(":")[1]
            self._buf = ""
        elif self._ctx is not None and tag in ("xbrldi:explicitmember", "xbrldi:typedmember"):
            self._ctx["dims"] = True
        elif tag == "ix:nonfraction":
            self._nf.append({"attrs": a, "text": ""})
        elif tag == "ix:nonnumeric" and a.get("name", "").startswith("dei:"):
            if self._nn is None:
                self._nn = {"name": a["name"], "text": ""}
                self.dei_context.setdefault(a["name"], a.get("contextref", ""))
                self._nn_depth = 0

    def handle_endtag(self, tag: str) -> None:
        if tag == "xbrli:context" and self._ctx is not None:
            c = self._ctx
            self.contexts[c["id"]] = Context(c["id"], c["dims"], c["instant"], c["start"], c["end"])
            self._ctx = None
        elif self._ctx_field is not None and tag == "xbrli:" + self._ctx_field:
            key = {"instant": "instant", "startdate": "start", "enddate": "end"}[self._ctx_field]
            assert self._ctx is not None
            self._ctx[key] = _d(self._buf)
            self._ctx_field = None
        elif tag == "ix:nonfraction" and self._nf:
            item = self._nf.pop()
            self._finish_nf(item)
            if self._nf:
                self._nf[-1]["text"] += item["text"]
        elif tag == "ix:nonnumeric" and self._nn is not None:
            self.dei.setdefault(self._nn["name"], self._nn["text"].strip())
            self._nn = None

    def handle_data(self, data: str) -> None:
        if self._ctx_field is not None:
            self._buf += data
        if self._nf:
            self._nf[-1]["text"] += data
        if self._nn is not None:
            self._nn["text"] += data

    def _finish_nf(self, item: dict) -> None:
        a = item["attrs"]
        text = item["text"].strip()
        fmt = a.get("format", "")
        if a.get("xsi:nil") == "true":
            return
        if "zero" in fmt or text in ("-", "—", "–", ""):
            val = 0.0
        else:
            digits = re.sub(r"[^0-9.,]", "", text)
            if "comma-decimal" in fmt or "numcommadecimal" in fmt:
                digits = digits.replace(".", "").replace(",", ".")
            else:
                digits = digits.replace(",", "")
            if "word" in fmt:
                return  # spelled-out counts ("two"); never used by the gold
            if not digits or digits == ".":
                raise ValueError(f"unparseable fact {a.get('name')}: {text!r}")
            val = float(digits)
        val *= 10 ** int(a.get("scale", "0") or 0)
        if a.get("sign") == "-":
            val = -val
        dec_text = a.get("decimals", "INF") or "INF"
        dec = float("inf") if dec_text.upper() == "INF" else float(dec_text)
        self.facts.append(Fact(a.get("name", ""), a.get("contextref", ""), a.get("unitref"), val, dec))


@dataclass
class Filing:
    stem: str
    contexts: dict[str, Context]
    facts: list[Fact]
    dei: dict[str, str]
    dei_context: dict[str, str]


def read(path: Path) -> Filing:
    p = _Parser()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    p.close()
    return Filing(path.stem, p.contexts, p.facts, p.dei, p.dei_context)
