"""Page furniture: the parts of a PDF page's text that belong to the page, not to what the filing says.

PyMuPDF puts a page's furniture on lines of their own: the "Table of Contents" link at the top of every page,
the page number at its foot (the last line before the blank line that ends a page in the index's text), the
trademark and registered marks of the page's superscripts moved to its end ("TM", "(R)", "®"), a table's
footnote letters ("(a)", "(b)") and running footers ("2021 Form 10-K"). Quoted as they are, an answer reads
"TM TM TM (R) (R) 33 Table of Contents ... $1,749" (issue 50). `without_furniture` removes those lines from a
text before it is cut into the sentences an answer quotes; the index keeps the text as it is.
"""
from __future__ import annotations

import re

__all__ = ["furniture_in", "without_furniture"]

_SP = r"[ \t\u00a0]*"
# a line that is only furniture, whatever surrounds it
_FURNITURE_LINE = re.compile(
    rf"(?i)^{_SP}(?:"
    r"table\s+of\s+contents"                                          # the per-page link back to the contents
    r"|(?:tm|sm|\(r\)|\(tm\)|\(sm\)|[®™℠©])(?:[ \t\u00a0]+(?:tm|sm|\(r\)|\(tm\)|[®™℠©]))*"  # marks alone
    r"|\([a-z]{1,2}\)(?:,?[ \t\u00a0]*\([a-z]{1,2}\))*"              # footnote letters alone: (a), (a), (b)
    r"|(?:.{0,60}\|[ \t\u00a0]*)?(?:19|20)\d\d[ \t\u00a0]+(?:annual report|form[ \t\u00a0]+10-?[kq])"
    r"(?:[ \t\u00a0]*\|?[ \t\u00a0]*\d{1,3})?"                       # running footers: "Apple Inc. | 2022 Form 10-K | 33", "2023 FORM 10-K 57"
    rf"){_SP}$")
_PAGE_NUMBER = re.compile(rf"^{_SP}(?:page{_SP})?\d{{1,3}}{_SP}$", re.I)
_CELL = re.compile(r"[\s$(),.%\u00a0\d-]*\d[\s$(),.%\u00a0\d-]*")  # a line that is a table cell's number
_MARK_RUN = re.compile(r"(?:(?<=\s)|^)(?:(?:TM|\(R\)|\(TM\)|[®™℠])(?:\s+|$)){2,}")  # a run left inside a line


def without_furniture(text: str) -> str:
    """`text` without its page furniture lines (see the module docstring); the other lines as they were.

    A page number is a number line beside a removed furniture line, or one that ends a page (the next line is
    the empty line between two pages) after text or before the next page's furniture; the last cell of a table
    that ends a page (a number line after another number line) stays.
    """
    lines = text.split("\n")
    furniture = [bool(_FURNITURE_LINE.match(ln)) for ln in lines]
    keep = []
    for i, line in enumerate(lines):
        if furniture[i]:
            continue
        if _PAGE_NUMBER.match(line):
            ends_page = i + 1 < len(lines) and lines[i + 1] == ""
            beside = (i > 0 and furniture[i - 1]) or (i + 1 < len(lines) and furniture[i + 1])
            after_cell = i > 0 and bool(_CELL.fullmatch(lines[i - 1]))
            next_page = next((j for j in range(i + 2, len(lines)) if lines[j].strip()), None) if ends_page else None
            opens_with_furniture = next_page is not None and furniture[next_page]
            if beside or (ends_page and (not after_cell or opens_with_furniture)):
                continue
        keep.append(_MARK_RUN.sub(" ", line) if "TM" in line or "(R)" in line or "®" in line else line)
    return "\n".join(keep)


_SEEN = re.compile(r"(?i)\btable\s+of\s+contents\b|(?:(?:\bTM\b|\(R\)|[®™])\s*){2,}|\|\s*(?:19|20)\d\d form 10-?[kq]\s*\|")


def furniture_in(answer: str) -> bool:
    """Does an answer quote page furniture ("Table of Contents", a run of marks, a running footer)? (measured by
    the quality guard over every system's answers)"""
    return bool(_SEEN.search(answer or ""))
