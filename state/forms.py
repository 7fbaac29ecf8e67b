"""The forms a filing can be, written once: the keys finrag uses, their labels, and the SEC's form types.

`FormKey` is what `DocumentInfo.form`, `ExtractedMetadata.forms` and the question's reading hold ('10K', '10Q',
'8K', 'EARNINGS', 'ANNUALREPORT'); `FORM_LABELS` how a page shows a key ('10-K'); `FORM_DESCRIPTIONS` how a
chunk's context prefix names it ('10-K annual report'); `SEC_FORM_KEYS` the key of an SEC form type as dei facts
(`dei:DocumentType`) and `finrag fetch`'s sidecars write it ('10-K/A', '20-F', 'earnings'); `FETCH_FORMS` the
forms `finrag fetch` downloads.
"""
from __future__ import annotations

from typing import Literal

__all__ = ["FETCH_FORMS", "FORM_DESCRIPTIONS", "FORM_KEYS", "FORM_LABELS", "FormKey", "SEC_FORM_KEYS"]

FormKey = Literal["10K", "10Q", "8K", "EARNINGS", "ANNUALREPORT"]
FORM_KEYS: tuple[FormKey, ...] = ("10K", "10Q", "8K", "EARNINGS", "ANNUALREPORT")
"""Every form key, in the order routing lists them."""

FORM_LABELS: dict[str, str] = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "EARNINGS": "earnings release",
                               "ANNUALREPORT": "annual report"}
"""A key as a page shows it."""

FORM_DESCRIPTIONS: dict[str, str] = {"10K": "10-K annual report", "10Q": "10-Q quarterly report",
                                     "8K": "8-K current report", "EARNINGS": "earnings release",
                                     "ANNUALREPORT": "annual report"}
"""A key as a chunk's generated context names it (V-B's offline contextualizer)."""

SEC_FORM_KEYS: dict[str, FormKey] = {
    "10-K": "10K", "10-K/A": "10K", "10-KT": "10K", "20-F": "10K", "40-F": "10K",
    "10-Q": "10Q", "10-Q/A": "10Q", "10-QT": "10Q", "8-K": "8K", "8-K/A": "8K", "earnings": "EARNINGS"}
"""The key of an SEC form type (upper case, no spaces; a sidecar's 'earnings' as `finrag fetch` writes it)."""

FETCH_FORMS = ("10-K", "10-Q", "8-K", "earnings")
"""The forms `finrag fetch --forms` takes."""
