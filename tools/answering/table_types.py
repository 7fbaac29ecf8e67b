"""The types of a table read from a page: `Column` (a period column), `Row` (a label and its values) and `Table`.

`tables.py` reads them from a page's words or text; `table_file.py` stores and decodes them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Column", "Row", "Table"]


@dataclass
class Column:
    """One value column: the fiscal year of its period (None for '% change' and other non-period columns),
    the header text as read, and its x position on the page (None for text-parsed tables)."""

    year: Optional[int]
    header: str
    x: Optional[float] = None
    group: str = ""

    @property
    def months(self) -> Optional[int]:
        """3, 6, 9 or 12 when the header says so ('Three Months Ended', 'Thirteen Weeks Ended', 'Years
        Ended'), else None."""
        g = f"{self.group} {self.header}".lower()
        for word, n in (("thirteen", 3), ("twenty-six", 6), ("thirty-nine", 9), ("fifty-two", 12), ("fifty-three", 12),
                        ("three", 3), ("six", 6), ("nine", 9), ("twelve", 12), ("quarter", 3)):
            if word in g:
                return n
        if re.search(r"\b(?:fiscal )?years? ended\b", g):
            return 12
        return None


@dataclass
class Row:
    label: str
    values: dict[int, float] = field(default_factory=dict)
    """Column index -> value (dashes are 0.0)."""
    raw: dict[int, str] = field(default_factory=dict)
    """Column index -> the cell as printed."""
    section: str = ""
    """The last label-only row above it ('Current assets:', 'Cash flows from investing activities')."""


@dataclass
class Table:
    """One table of a page: its columns, rows, the page's scale and statement, and where it came from."""

    doc_id: str
    page: int
    columns: list[Column]
    rows: list[Row]
    scale: Optional[str] = None
    statement: Optional[str] = None
    title: str = ""
    method: str = "words"
    scope: str = ""
    """'parent' (parent-company-only or guarantor statements), 'segment', or 'investee' (equity-method investees'
    summarised results) when the table's caption or the page's heading says so; '' for the consolidated
    statements and other tables."""
    caption: str = ""
    """The label-only lines printed above the table's header row, back to the previous table's last row ("SUPPLEMENTAL
    DATA - NET REVENUES (In thousands)"): what a table of segments or regions breaks down."""

    def years(self) -> list[Optional[int]]:
        return [c.year for c in self.columns]

    def to_text(self, max_rows: int = 60) -> str:
        """A compact plain-text rendering for an LLM's context: header line, then `label | v1 | v2`."""
        scale = f" (in {self.scale})" if self.scale else ""
        head = " | ".join(f"{c.group + ' ' if c.group else ''}{c.header}".strip() for c in self.columns)
        lines = [f"[{self.doc_id}, p. {self.page}] {self.title or self.statement or 'table'}{scale}: {head}"]
        for r in self.rows[:max_rows]:
            cells = " | ".join(r.raw.get(i, "") for i in range(len(self.columns)))
            lines.append(f"{r.label} | {cells}")
        return "\n".join(lines)
