"""What a file name says about a filing: company key, ticker, fiscal period, form, filing date.

sec-edgar-downloader's ``sec-edgar-filings/TICKER/FORM/ACCESSION/primary-document.html`` (id
``TICKER_FORM_ACCESSION``), then three layouts, tried in order: FinanceBench
``{COMPANY}_{PERIOD}_{TYPE}[_dated-{DATE}].pdf`` (``3M_2018_10K``, ``AMD_2022Q2_10Q``, ``PEPSICO_2023_8K_dated-2023-05-30``), the paper's
``{year}/{TICKER}.pdf``, and a generic fallback that picks a form word, a date, a quarter or a
year out of any name (``aapl-20230930.htm``). `canonical_company_key` normalises the company
part and fixes a one-letter typo of a key the alias book knows. Nothing here ever raises.
"""
from __future__ import annotations

import re
from pathlib import PurePath
from typing import Optional

from finrag.state.forms import FORM_KEYS
from finrag.tools.documents.doc_ids import PAPER_TICKER, downloader_parts, is_period_only, layout_doc_id
from finrag.tools.routing.aliases import AliasBook, builtin_aliases
from finrag.tools.routing.text import PathLike, edit_distance, squash
from finrag.tools.vocabulary.dates import iso_date

__all__ = ["FORMS", "canonical_company_key", "parse_path"]

FORMS = FORM_KEYS  # the form keys (one home: finrag.state.forms)

_FORM_WORDS = {
    "10K": "10K", "10-K": "10K", "10KA": "10K", "10K405": "10K",
    "10Q": "10Q", "10-Q": "10Q", "10QA": "10Q",
    "8K": "8K", "8-K": "8K", "8KA": "8K",
    "EARNINGS": "EARNINGS", "EARNING": "EARNINGS", "EARNINGSRELEASE": "EARNINGS",
    "PRESSRELEASE": "EARNINGS", "ER": "EARNINGS",
    "ANNUALREPORT": "ANNUALREPORT", "AR": "ANNUALREPORT",
}
_FB_NAME = re.compile(
    r"^(?P<company>[A-Za-z0-9&.\-]+(?:_[A-Za-z0-9&.\-]+)*?)_(?P<year>(?:19|20)\d{2})"
    r"(?:Q(?P<quarter>[1-4]))?_(?P<type>[A-Za-z0-9\-]+?)"
    r"(?:_dated[-_](?P<date>\d{4}-\d{2}-\d{2}))?$", re.IGNORECASE)


def _empty_path_info(doc_id: str = "") -> dict:
    return {"doc_id": doc_id, "layout": "", "company_key": "", "ticker": "", "fiscal_year": None,
            "quarter": None, "period": "", "form": "", "filed_date": None}


def _form_of(word: str) -> str:
    return _FORM_WORDS.get(re.sub(r"[_\s]", "", word.upper()), "")


def canonical_company_key(raw: str, book: Optional[AliasBook] = None) -> str:
    """Normalise a file-name company part; fix a one-letter typo of a known company key.

    'Pfizer' -> 'PFIZER'; 'ACTIVSIONBLIZZARD' -> 'ACTIVISIONBLIZZARD' (known from the
    alias file); 'JOHNSON_JOHNSON' stays as written.
    """
    key = re.sub(r"[^A-Z0-9_]", "", str(raw or "").upper().replace("-", "_").replace(" ", "_"))
    key = re.sub(r"_+", "_", key).strip("_")
    if not key:
        return ""
    known = (book or builtin_aliases()).known_keys()
    sq = squash(key)
    if sq in known:
        return key
    if len(sq) >= 6:
        best = [(edit_distance(sq, k, 1), v) for k, v in known.items() if abs(len(k) - len(sq)) <= 1]
        best = sorted(b for b in best if b[0] <= 1)
        if best and (len(best) == 1 or best[0][1] == best[1][1] or best[0][0] < best[1][0]):
            return best[0][1]
    return key


def parse_path(path: PathLike) -> dict:
    """What a file name says about a filing; never raises, unknown fields are empty.

    Returns ``doc_id`` (file name without extension), ``layout`` ('financebench',
    'paper', 'generic' or ''), ``company_key``, ``ticker``, ``fiscal_year``,
    ``quarter``, ``period`` ('2022' or '2023Q2'), ``form`` (one of FORMS or '')
    and ``filed_date`` (ISO, for dated filings).
    """
    if not isinstance(path, (str, PurePath)):
        return _empty_path_info()
    try:
        p = PurePath(str(path))
    except Exception:
        return _empty_path_info()
    stem = p.stem
    info = _empty_path_info(layout_doc_id(p))
    if not stem:
        return info
    try:
        downloaded = downloader_parts(p)
        if downloaded:  # the folders name ticker and form; the document itself gives the period
            ticker, form, _acc = downloaded
            entry = builtin_aliases().entry_for(tickers=[ticker.upper()])
            info.update(layout="sec-edgar-downloader", ticker=ticker.upper(), form=_form_of(form),
                        company_key=(entry.key or squash(entry.name)).upper() if entry else ticker.upper())
            return info
        return _parse_financebench(stem, info) or _parse_paper(p, stem, info) or _parse_company_folder(p, stem, info) \
            or _parse_generic(stem, info)
    except Exception:  # defensive: a file name must never break indexing
        return info


def _parse_financebench(stem: str, info: dict) -> Optional[dict]:
    m = _FB_NAME.match(stem)
    if not m or not _form_of(m.group("type")):
        return None
    year, quarter = int(m.group("year")), m.group("quarter")
    info.update(layout="financebench", company_key=canonical_company_key(m.group("company")),
                fiscal_year=year, quarter=int(quarter) if quarter else None,
                period=f"{year}Q{quarter}" if quarter else str(year), form=_form_of(m.group("type")))
    if m.group("date"):
        y, mo, d = m.group("date").split("-")
        info["filed_date"] = iso_date(int(y), int(mo), int(d))
    return info


def _parse_paper(p: PurePath, stem: str, info: dict) -> Optional[dict]:
    parent = p.parent.name
    if not re.fullmatch(r"(?:19|20)\d{2}", parent or "") or not PAPER_TICKER.fullmatch(stem):
        return None
    ticker = stem.upper().replace("-", ".")
    entry = builtin_aliases().entry_for(tickers=[ticker])
    key = (entry.key or squash(entry.name)) if entry else ticker
    info.update(layout="paper", company_key=key.upper(), ticker=ticker, fiscal_year=int(parent),
                period=parent, form="10K")
    return info


def _parse_company_folder(p: PurePath, stem: str, info: dict) -> Optional[dict]:
    """`AAPL/2023.pdf`, `Apple/10-K_FY2023.pdf`: the folder names the company, the file the period."""
    parent = p.parent.name
    if not parent or not is_period_only(stem) or re.fullmatch(r"(?:19|20)\d{2}", parent):
        return None
    info = _parse_generic(stem, info)
    words = [w for w in re.split(r"[^A-Za-z0-9&]+", parent) if w]
    company = "_".join(words)
    entry = builtin_aliases().entry_for(tickers=[company.upper()]) if PAPER_TICKER.fullmatch(company) else None
    if entry is not None and squash(company) not in builtin_aliases().known_keys():
        info["ticker"] = company.upper()
        company = entry.key or squash(entry.name)
    elif PAPER_TICKER.fullmatch(company) and company.isupper():
        info["ticker"] = company
    info.update(layout="company_folder", company_key=canonical_company_key(company) if company else "")
    if not info["form"] and info["fiscal_year"] and not info["quarter"]:
        info["form"] = "10K" if re.search(r"10-?K|annual", stem, re.I) or re.fullmatch(r"(?:FY)?\d{4}", stem, re.I) \
            else info["form"]
    return info


_GENERIC_FORM = re.compile(r"(?<![A-Za-z0-9])(10-?K|10-?Q|8-?K|earnings|annual[-_ ]?report)(?![A-Za-z])",
                           re.IGNORECASE)


def _parse_generic(stem: str, info: dict) -> dict:
    text = stem
    form_m = _GENERIC_FORM.search(text)
    date_m = re.search(r"(?<!\d)((?:19|20)\d{2})-?(\d{2})-?(\d{2})(?!\d)", text)
    q_m = re.search(r"(?<![A-Za-z0-9])(?:FY)?((?:19|20)\d{2})[-_ ]?Q([1-4])(?![0-9])|"
                    r"(?<![A-Za-z0-9])Q([1-4])[-_ ]?((?:19|20)\d{2})(?!\d)", text, re.IGNORECASE)
    y_m = re.search(r"(?<!\d)((?:19|20)\d{2})(?!\d)", text)
    form = _form_of(form_m.group(1)) if form_m else ""
    date = iso_date(*map(int, date_m.groups())) if date_m else None
    year = quarter = None
    if q_m:
        year = int(q_m.group(1) or q_m.group(4))
        quarter = int(q_m.group(2) or q_m.group(3))
    elif date:
        year = int(date[:4])
    elif y_m:
        year = int(y_m.group(1))
    cut = min([m.start() for m in (form_m, date_m, q_m, y_m) if m] or [len(text)])
    words = [w for w in re.split(r"[^A-Za-z0-9&]+", text[:cut]) if w and not w.isdigit()]
    company = "_".join(words)
    entry = builtin_aliases().entry_for(tickers=[company.upper()]) if PAPER_TICKER.fullmatch(company) else None
    if entry is not None and squash(company) not in builtin_aliases().known_keys():  # 'aapl-20230930.htm'
        info["ticker"] = company.upper()
        company = entry.key or squash(entry.name)
    info.update(layout="generic" if (company or year or form) else "",
                company_key=canonical_company_key(company) if company else "",
                fiscal_year=year, quarter=quarter,
                period=(f"{year}Q{quarter}" if quarter else str(year)) if year else "",
                form=form, filed_date=date if form in ("8K", "") and date else None)
    return info
