"""Cover facts from a filing's text when it tags none (PDFs, EDGAR HTML without inline XBRL): the auditor and the
public float (issue 33).

    result = answer_cover_text(asked, source, doc_id, info)   # a ReaderResult, or None

* **auditor**: the firm that signs the Report of Independent Registered Public Accounting Firm ("/s/ Ernst & Young
  LLP"), on a page that holds that report's title or its opinion ("We have audited"), or up to three pages after it; the
  most frequent signer when the report is signed more than once;
* **public float**: the cover page's sentence "aggregate market value of the ... stock held by non-affiliates ...
  as of <date> ... was $<amount>" (the first three pages), with its as-of date.

Each answer cites the page it is read from. None when the text says nothing of it: the other strategies answer,
never another figure presented as this one. Shares outstanding, the CIK and the fiscal year's end are not read from
text here (the table reader and the evidence answer quote the cover).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.answering.reader import Found, PageSource, ReaderResult
from finrag.tools.answering.xbrl_facts import owner
from finrag.tools.numbers import SCALE_WORDS

__all__ = ["answer_cover_text"]

_SIGNED = re.compile(r"/s/\s*([A-Z][A-Za-z&.,'\- ]{2,60}?(?:LLP|L\.L\.P\.|LLC|P\.C\.|AG|GmbH|S\.A\.|Ltd\.?))\b")
_REPORT = re.compile(r"(?i)report of independent registered public accounting firm|\bwe have audited\b")
_FLOAT = re.compile(r"(?is)aggregate market value of[^.]{0,200}?held by non-?affiliates(?P<rest>[^$]{0,400}?)"
                    r"\$\s?(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<scale>trillion|billion|million)?")
_AS_OF = re.compile(r"(?i)\bas of\s+([A-Z][a-z]+\.? \d{1,2},? \d{4})")
_MAX_PAGES = 400


def answer_cover_text(asked: QuestionFacts, source: PageSource, doc_id: str,
                      info: Optional[dict]) -> Optional[ReaderResult]:
    """The auditor or the public float from the filing's text (see the module docstring), or None."""
    info = info or {}
    whose = owner(info)
    n = min(source.page_count(doc_id), _MAX_PAGES)
    if asked.cover == "auditor":
        signers: Counter[str] = Counter()
        first: dict[str, int] = {}
        for p in range(n):
            text = source.page_text(doc_id, p)
            if "/s/" not in text or not any(_REPORT.search(source.page_text(doc_id, q)) for q in range(max(0, p - 3), p + 1)):
                continue  # a signature on the report's page or up to three pages after its opinion
            for m in _SIGNED.finditer(text):
                name = " ".join(m.group(1).split())
                signers[name] += 1
                first.setdefault(name, p)
        if not signers:
            return None
        name, _count = signers.most_common(1)[0]
        page = first[name]
        answer = (f"{whose} independent registered public accounting firm is {name} [{doc_id}, p. {page}]. Source: the "
                  "signature of the Report of Independent Registered Public Accounting Firm in the filing's text.")
        return ReaderResult(answer=answer, confident=True, kind="item", asked="cover",
                            pages_added=[(doc_id, page)], found=[_found(name, 0.0, "auditor", doc_id, page, info)])
    if asked.cover == "public_float":
        for p in range(min(n, 3)):
            text = " ".join(source.page_text(doc_id, p).split())
            hit = _FLOAT.search(text)
            if hit is None:
                continue
            value = float(hit.group("num").replace(",", "")) * SCALE_WORDS.get((hit.group("scale") or "").lower(), 1.0)
            when = _AS_OF.search(hit.group(0))
            as_of = f" as of {when.group(1)}" if when else ""
            answer = (f"{whose} public float (the aggregate market value of the voting stock held by non-affiliates)"
                      f"{as_of}: ${value:,.0f} (${value / 1e9:,.2f} billion) [{doc_id}, p. {p}]. Source: the "
                      "filing's cover page text.")
            return ReaderResult(answer=answer, confident=True, kind="item", asked="cover", value=value,
                                pages_added=[(doc_id, p)], found=[_found("public float", value, as_of.strip(), doc_id,
                                                                         p, info)])
    return None


def _found(label: str, value: float, header: str, doc_id: str, page: int, info: dict) -> Found:
    return Found(item="cover", year=int(info.get("fiscal_year") or 0), value=value, label=label, raw="", header=header,
                 doc_id=doc_id, page=page, scale=None, statement=None, score=1.0)
