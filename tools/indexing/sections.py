"""Sections of a filing: the 10-K / 10-Q items and the notes to the financial statements, from its headings.

`detect_sections(pages)` finds headings in the page texts (PDF or EDGAR HTML, as parsed) and returns them in
document order as `Section`s, each with the character offset where it starts in `join_pages(pages)`'s text:

* **Items**: a line that starts with `Item N.` (`PART II` before it allowed), its title on the same line or
  the next one. The title, not the number, names the section (a 10-Q's Part II Item 1 is Legal Proceedings,
  a 10-K's Item 1 is Business): `ITEM_TITLES` maps it to a key such as `risk_factors`, `legal_proceedings`,
  `mdna`, `financial_statements`. 8-K items (`Item 2.02 Results of Operations ...`) are read the same way.
* **Notes** (inside the financial statements): a line `Note 12 - Income Taxes`, `12. Income Taxes` or
  `NOTE 12: INCOME TAXES` whose title names a topic of `NOTE_TOPICS` (acquisitions, segments, contingencies,
  income_taxes, debt ...); a `Note N` heading of another topic is `other` (it still ends the note before). Titles are compared with their spaces removed: PDF text often splits words
  ("Acquisit ions").
* **Financial statements after Item 15** (many 10-Ks put them behind the exhibits and signatures): an
  `Index to Financial Statements` or `Report of Independent Registered Public Accounting Firm` line after
  the last items starts `financial_statements` again, as does a primary statement's title at the top of a
  page inside MD&A (filings that print the statements within Item 7); a `Signatures` line is `signatures`.
* **Schedules between the statements and the notes** (Boeing's "Summary of Business Segment Data"): a page
  title there that names a note topic labels the pages like that note.
* **The table of contents** is not a section: a page with `TOC_ITEMS` or more item headings, all but one
  of which come again on later pages, is an index of the filing, and its headings are skipped (as are headings whose line says "of this report").

`label_chunks(sections, chunks)` gives each chunk the item and note it starts in (a note ends where the
next item starts). The store keeps one label per chunk (`tools/indexing/sections_store.py`).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Optional, Sequence

__all__ = ["Section", "ITEM_TITLES", "NOTE_TOPICS", "detect_sections", "label_chunks", "item_of_title",
           "note_topic"]

# (key, pattern on the title with spaces removed, lower case); the first that matches names the item
ITEM_TITLES: tuple[tuple[str, str], ...] = (
    ("risk_factors", r"^riskfactors"),
    ("unresolved_comments", r"^unresolvedstaff"),
    ("cybersecurity", r"^cybersecurity"),
    ("legal_proceedings", r"^legalproceedings"),
    ("mine_safety", r"^minesafety"),
    ("market_equity", r"^marketfor(the)?(registrant|company|ourcommon|common)"),
    ("selected_data", r"^(selectedfinancialdata|\[?reserved\]?)"),
    ("mdna", r"^management.?s?discussion"),
    ("market_risk", r"^quantitativeandqualitative"),
    ("financial_statements", r"^(consolidated)?financialstatements(andsupplementary)?"),
    ("accountant_changes", r"^changesinanddisagreements"),
    ("controls", r"^controlsandprocedures"),
    ("other_information", r"^otherinformation"),
    ("foreign_inspections", r"^disclosureregardingforeign"),
    ("governance", r"^(directors|executivecompensation|securityownership|certainrelationships|principalaccount)"),
    ("exhibits", r"^exhibits?(and|[,.]|$)"),
    ("form_summary", r"^form10-?ksummary"),
    ("unregistered_sales", r"^unregisteredsales"),
    ("defaults", r"^defaultsupon"),
    ("business", r"^business"),
    ("properties", r"^properties"),
    # 8-K items
    ("results_of_operations", r"^resultsofoperations"),
    ("officer_changes", r"^departureof|^electionof"),
    ("regulation_fd", r"^regulationfd"),
    ("other_events", r"^otherevents"),
    ("acquisition_completed", r"^completionofacquisition"),
    ("material_agreement", r"^entry(into|ofa)"),
    ("shareholder_vote", r"^submissionofmatters"),
)
_ITEM_RES = tuple((k, re.compile(p)) for k, p in ITEM_TITLES)

NOTE_TOPICS: tuple[tuple[str, str], ...] = (
    ("accounting_policies", r"accountingpolicies|basisofpresentation|organizationand"),
    ("acquisitions", r"acquisition|businesscombination|divestiture|dispositions"),
    ("segments", r"segment"),
    ("contingencies", r"contingenc|commitments|legalproceedings|litigation"),
    ("income_taxes", r"incometax|^taxes"),
    ("debt", r"debt|borrowing|creditfacilit|notespayable|financingarrangements"),
    ("leases", r"lease"),
    ("revenue", r"revenue|netsales"),
    ("goodwill", r"goodwill|intangible"),
    ("stock_compensation", r"stock-?based|share-?based|stockcompensation|equitycompensation|stockplans|incentive"),
    ("earnings_per_share", r"earningspershare|(netincome|earnings|loss)per(common)?share|percommonshare"),
    ("restructuring", r"restructuring|impairment"),
    ("pensions", r"retirement|pension|benefitplans|postemployment"),
    ("fair_value", r"fairvalue"),
    ("derivatives", r"derivative|hedg"),
    ("inventories", r"inventor"),
    ("property", r"property,?plant|property,?equipment|propertyandequipment"),
    ("investments", r"investment|equitysecurities|marketablesecurities"),
    ("equity", r"stockholders|shareholders|capitalstock|equity"),
    ("subsequent_events", r"subsequentevent"),
)
_NOTE_RES = tuple((k, re.compile(p)) for k, p in NOTE_TOPICS)

NOTE_ITEMS = (None, "financial_statements", "exhibits", "form_summary")  # notes live under these
NOTE_TOC = 6  # a page with this many note headings lists the notes
TOC_ITEMS = 4  # a page with this many item headings, all but one of them found again later, is a table of contents

_SPACE = re.compile(r"[\s\u00a0\u2002-\u200b]+")
_ITEM_LINE = re.compile(
    r"(?im)^[ \t\u00a0]*(?:part[ \t\u00a0]+[iv]+[ \t\u00a0]*[.,:\-\u2013\u2014]?[ \t\u00a0]*)?"
    r"item[ \t\u00a0]*(\d{1,2}(?:\.\d{2})?[a-c]?)\b[ \t\u00a0]*[.:\-\u2013\u2014]?[ \t\u00a0]*([^\n]{0,200})$")
_NOTE_LINE = re.compile(
    r"(?m)^[ \t\u00a0]*(?:(?:note|NOTE|Note)[ \t\u00a0]+(\d{1,2}|[A-Z](?![A-Za-z]))[ \t\u00a0]*[.:\-\u2013\u2014]?"
    r"|(\d{1,2})[ \t\u00a0]*[.:\u2013\u2014])"
    r"[ \t\u00a0]*\n?[ \t\u00a0]*([A-Z][^\n]{2,110})$")
_STATEMENTS_LINE = re.compile(  # where financial statements placed after Item 15 begin
    r"(?im)^[ \t\u00a0]*(index to (the )?(consolidated )?financial statements|report of independent registered "
    r"public accounting firm)[ \t\u00a0]*$")
_STATEMENT_TOP = re.compile(  # a primary statement's title as one of a page's first lines
    r"(?im)^[ \t\u00a0]*(consolidated[ \t\u00a0]+)?(statements?[ \t\u00a0]+of[ \t\u00a0]+(consolidated[ \t\u00a0]+)?"
    r"(income|operations|earnings)|income[ \t\u00a0]+statements?|balance[ \t\u00a0]+sheets?)[ \t\u00a0]*$")
_SIGNATURES_LINE = re.compile(r"(?m)^[ \t\u00a0]*(SIGNATURES?|Signatures?)[ \t\u00a0]*$")
_LATE_ITEMS = (None, "governance", "exhibits", "form_summary", "signatures")
_REFERENCE = re.compile(r"(?i)\b(of this|in this|see|refer|included in|incorporated)\b")


@dataclass(frozen=True)
class Section:
    """One heading: where it starts (`start`, a character offset in `join_pages(pages)`'s text; `page`,
    zero-based), its kind (`item` or `note`), the canonical `key` and the heading text as written."""
    start: int
    page: int
    kind: str
    key: str
    heading: str


def _squash(text: str) -> str:
    return _SPACE.sub("", text).lower().replace("\u2019", "'").replace("\u2018", "'")


def item_of_title(title: str) -> Optional[str]:
    """The item key a heading's title names (None when it names none)."""
    t = _squash(title)
    for key, rx in _ITEM_RES:
        if rx.search(t):
            return key
    return None


def note_topic(title: str) -> Optional[str]:
    """The note topic a note heading's title names (None when it names none)."""
    t = _squash(title)
    if len(t) > 90:
        return None
    for key, rx in _NOTE_RES:
        if rx.search(t):
            return key
    return None


def _next_line(text: str, pos: int) -> str:
    for line in text[pos:pos + 300].split("\n")[1:4]:
        if line.strip():
            return line.strip()
    return ""


def _page_items(page: str) -> list[tuple[int, str, str]]:
    """(offset in page, item key, heading) of the item headings on one page."""
    found = []
    for m in _ITEM_LINE.finditer(page):
        title = m.group(2).strip()
        if not title or re.fullmatch(r"[\d\s.]*", title):  # 'Item 7.' with its title on the next line
            title = _next_line(page, m.end())
        head = m.group(0).strip()
        if _REFERENCE.search(title[:40]) or len(_squash(title)) < 4:
            continue
        key = item_of_title(title)
        if key:
            found.append((m.start(), key, _SPACE.sub(" ", head)[:120]))
    return found


def detect_sections(pages: Sequence[str]) -> list[Section]:
    """The item and note headings of a filing, in document order (table-of-contents pages left out).

    A note heading counts inside the financial statements only (after an item heading of
    `NOTE_ITEMS`, or in a filing with no item headings before it): a numbered list in the business
    section or MD&A is not a note."""
    sections: list[Section] = []
    pos = 0
    current: Optional[str] = None
    in_notes = False  # a numbered note has begun since the last item heading
    per_page = [_page_items(page) for page in pages]
    later: list[set[str]] = [set() for _ in pages]  # item keys on the pages after each page
    seen: set[str] = set()
    for i in range(len(pages) - 1, -1, -1):
        later[i] = set(seen)
        seen |= {k for _, k, _ in per_page[i]}
    for page_no, page in enumerate(pages):
        items = per_page[page_no]
        keys = {k for _, k, _ in items}
        is_toc = len(keys) >= TOC_ITEMS and len(keys & later[page_no]) >= TOC_ITEMS - 1
        marks: list[tuple[int, str, str, str]] = []
        if not is_toc:
            marks += [(off, "item", key, head) for off, key, head in items]
        notes = [(m.start(), "note", t, _SPACE.sub(" ", m.group(0).strip())[:120])
                 for m in _NOTE_LINE.finditer(page)
                 if (t := note_topic(m.group(3)) or ("other" if m.group(1) and len(m.group(3)) < 80 else None))]
        if len(notes) < NOTE_TOC:  # an index of the notes is not where they start
            marks += notes
        if current == "financial_statements" and not notes and not in_notes:  # a schedule before the notes
            marks += _titled_table(page)
        marks += [(m.start(), "late", "financial_statements", m.group(1).strip()) for m in _STATEMENTS_LINE.finditer(page)]
        head = page[:sum(len(x) + 1 for x in page.split("\n")[:4])]
        if current == "mdna" and (m := _STATEMENT_TOP.search(head)):  # statements printed inside Item 7
            marks.append((m.start(), "top", "financial_statements", m.group(0).strip()))
        marks += [(m.start(), "late", "signatures", m.group(1).strip()) for m in _SIGNATURES_LINE.finditer(page)]
        for off, kind, key, head in sorted(marks):
            if kind in ("late", "top"):  # statements after Item 15 or inside MD&A, signatures: see the docstring
                if (current not in _LATE_ITEMS and not (current == "mdna" and kind == "top")
                        or current == key or is_toc or (key == "signatures" and not current)):
                    continue
                if key == "financial_statements" and _statements_read(sections):
                    continue  # Item 8 held the statements: this line is the exhibit list's
                kind = "item"
            if kind == "item":
                current = key
                in_notes = False
            elif current not in NOTE_ITEMS:
                continue
            if kind == "note":
                in_notes = True
            elif kind == "table":  # labelled like a note, but the numbered notes have not begun
                kind = "note"
            sections.append(Section(pos + off, page_no, kind, key, head))
        pos += len(page) + 1
    return sections


def _titled_table(page: str) -> list[tuple[int, str, str, str]]:
    """A table title among a page's first lines that names a note topic ('Summary of Business Segment
    Data' -> segments), as a `table` mark (labelled like a note); primary statements and running headers
    name none."""
    pos = 0
    for line in page.split("\n")[:5]:
        text = line.strip()
        if (8 <= len(text) <= 70 and text[:1].isupper() and not any(ch.isdigit() for ch in text)
                and not _STATEMENT_TOP.match(text) and "notes to" not in text.lower()):
            topic = note_topic(text)
            if topic and topic not in ("accounting_policies", "equity"):
                return [(pos, "table", topic, _SPACE.sub(" ", text)[:120])]
        pos += len(line) + 1
    return []


def _statements_read(sections: Sequence[Section]) -> bool:
    """Did an Item 8 / Item 1 'Financial Statements' section already run over more than two pages?"""
    for i, s in enumerate(sections):
        if s.kind == "item" and s.key == "financial_statements":
            nxt = next((t.page for t in sections[i + 1:] if t.kind == "item"), None)
            if nxt is None or nxt - s.page > 2:
                return True
    return False


def label_chunks(sections: Sequence[Section], chunk_starts: Sequence[int]) -> list[tuple[Optional[str], Optional[str]]]:
    """(item, note) of each chunk, given the chunks' start offsets: the last item heading at or before the
    chunk's start, and the last note heading after that item's heading (None where there is none)."""
    items = [s for s in sections if s.kind == "item"]
    notes = [s for s in sections if s.kind == "note"]
    item_starts = [s.start for s in items]
    note_starts = [s.start for s in notes]
    out: list[tuple[Optional[str], Optional[str]]] = []
    for start in chunk_starts:
        probe = start + 200  # a heading at the top of the chunk's first lines counts for the chunk
        i = bisect.bisect_right(item_starts, probe) - 1
        item = items[i] if i >= 0 else None
        j = bisect.bisect_right(note_starts, probe) - 1
        note = notes[j] if j >= 0 else None
        if note is not None and item is not None and note.start < item.start:
            note = None  # the note ended where the item began
        out.append((item.key if item else None, note.key if note else None))
    return out
