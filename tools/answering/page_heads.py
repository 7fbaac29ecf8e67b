"""What a page's heading says, for the statement reader: the scale it states, the primary statements titled on it
(a title, not a sentence that names a statement), and whose statements they are (the consolidated group's, a
parent company's or a guarantor group's, a segment's, an investee's). `finrag.tools.answering.tables` re-exports
these; its tables carry what they return (`Table.scale`, `statement`, `title`, `scope`).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.retrieval.text_memo import TextMemo
from finrag.tools.vocabulary.statements import STATEMENT_TITLES

__all__ = ["page_scale", "statement_titles", "page_titles", "page_statement", "page_title", "table_scope"]

_SCALE_RX = re.compile(r"(?i)(?:\bin\s+|\(|\$\s*|dollars\s+in\s+|amounts\s+in\s+)(thousands|millions|billions)\b"
                       r"|\((thousands|millions|billions)\b")


def page_scale(text: str) -> Optional[str]:
    """'thousands', 'millions' or 'billions' when the page states a scale ('(In millions, except ...)',
    '(Millions)', '$ in thousands'), else None."""
    m = _SCALE_RX.search(text)
    if not m:
        return None
    return (m.group(1) or m.group(2)).lower()


def statement_titles(text: str) -> list[str]:
    """The primary statements whose titles stand as short lines of a page ('Consolidated Statements of Cash
    Flows'), in page order; prose that merely mentions a statement is not a title."""
    out = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line or len(line) > 100:
            continue
        for name, rx in STATEMENT_TITLES.items():
            m = rx.search(line)
            if m and not _in_prose(line, m) and not re.search(r"(?i)\b(?:see|refer|notes? to|accompanying|included in|index|data|"
                                                             r"selected|certain|summary|summari[sz]ed|supplemental|"
                                                             r"reconciliation|information)\b", line):
                out.append(name)
    return out


def _in_prose(text: str, m: re.Match) -> bool:
    """A statement's name inside a sentence ('... included in our consolidated balance sheets and ...'), not a
    title: written in lower case, or after a lower-case word (a title is capitalised or in capitals:
    'Consolidated Balance Sheets', 'CONSOLIDATED STATEMENTS OF OPERATIONS')."""
    if m.group(0)[:1].islower():
        return True
    before = text[:m.start()].split()
    return bool(before) and before[-1][:1].islower()


_TITLES = TextMemo(lambda text: tuple(statement_titles(text)), max_units=200_000)  # entries: a few MB


def page_titles(text: str) -> tuple[str, ...]:
    """`statement_titles` of a whole page, remembered by the text's length and hash: the reader looks for a
    statement's pages in every page of a routed filing, and a server meets the same filing again."""
    return _TITLES(text)


def page_statement(text: str) -> Optional[str]:
    """Which primary statement a page holds ('income', 'balance', 'cash_flow'), from a title near its top
    (remembered by the text, like `page_titles`: the reader asks it of the page before every continued table)."""
    return _STATEMENTS(text)[0]


def _page_statement(text: str) -> tuple[Optional[str]]:
    head = "\n".join(text.splitlines()[:15])
    found = statement_titles(head)
    if found:
        return (found[0],)
    flat = " ".join(text.split())[:300]
    best = None
    for name, rx in STATEMENT_TITLES.items():
        m = rx.search(flat)
        if m and not _in_prose(flat, m) and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return (best[1] if best else None,)


_STATEMENTS = TextMemo(_page_statement, max_units=200_000)  # entries (a 1-tuple: None is a value here)


_PARENT = re.compile(r"(?i)\bparent(?:[- ]company)?(?:[- ]only)?\b(?! company and)|\bregistrant only\b|"
                     r"\b(?:condensed )?financial information of (?:the )?registrant\b|\bguarantor\b|\bobligor group\b|"
                     r"\bdeed of cross guarantee\b")
_SEGMENT = re.compile(r"(?i)\bsegment (?:information|results|reporting|data|revenues?)\b|\breportable segments?\b|"
                      r"\bby (?:reportable )?segment\b|\bbusiness segments?\b")


_INVESTEE = re.compile(r"(?i)\bequity[- ]method investees?\b|\binvestees\b|\bunconsolidated (?:affiliates?|subsidiar(?:y|ies)|"
                       r"entit(?:y|ies)|joint ventures?)\b")


_EXHIBIT = re.compile(r"(?i)^exhibit\s+99(?:\.\d+)?\b")
"""A page headed 'Exhibit 99.x': in a 10-K, another entity's financial statements filed with it (an equity
investee's, Rule 3-09: MGM's 2018 10-K carries CityCenter Holdings' balance sheet as Exhibit 99.3). In an 8-K's
earnings release every page is Exhibit 99.1, so every table is ranked alike there."""


def table_scope(caption: str) -> str:
    """'parent', 'segment', 'investee' or '' for the heading text above a table (see `Table.scope`)."""
    flat = " ".join(caption.split())
    head = flat[-600:]  # the words nearest the table
    if _EXHIBIT.match(flat):
        return "investee"
    if _PARENT.search(head):
        return "parent"
    if _INVESTEE.search(head):
        return "investee"
    if _SEGMENT.search(head):
        return "segment"
    return ""


def page_title(text: str) -> str:
    """The first primary statement's title near the top of a page, as written ('' when none)."""
    head = " ".join(text.split())[:400]
    for rx in STATEMENT_TITLES.values():
        m = rx.search(head)
        if m and not _in_prose(head, m):
            return m.group(0)
    return ""
