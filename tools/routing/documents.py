"""A filing's identity: company display name, name variants, and the `DocumentInfo` of a file.

`build_document_info` combines what the path says (`filenames.parse_path`) with what the cover
page says (`cover.parse_cover_page`) and the alias book: company key (a cover registrant fixes a
misspelt file key), display name, tickers, fiscal year, quarter, period, form, filing date and
the name variants the linker matches. `clean_company_name` drops "The" and legal-form tails;
`name_variants` lists the ways a name is written. Nothing here ever raises on bad input.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import PurePath
from typing import Optional

from finrag.state.forms import SEC_FORM_KEYS
from finrag.state.schema import DocumentInfo
from finrag.tools.routing.aliases import AliasBook, builtin_aliases
from finrag.tools.routing.cover import parse_cover_page
from finrag.tools.routing.dei import dei_identity
from finrag.tools.routing.filenames import canonical_company_key, parse_path
from finrag.tools.routing.text import PathLike, clean_company_name, edit_distance, squash
from finrag.tools.routing.words import is_finance_abbreviation, zipf
from finrag.tools.sequences import uniq
from finrag.tools.vocabulary.dates import MONTH_NAMES

__all__ = ["build_document_info", "clean_company_name", "name_variants", "names_same_company", "readable_key"]

_GENERIC_TAIL = re.compile(r"\s+(?:international|worldwide|global|holdings|group|systems|communications|"
                           r"stores|wholesale|companies|technologies|enterprises|industries)$", re.IGNORECASE)


def name_variants(name: str) -> list[str]:
    """Ways to write a company name: '&'/'and', hyphens, squashed, generic tail removed."""
    base = clean_company_name(name)
    if not base:
        return []
    out = [base]
    if base.lower().endswith(".com"):
        out.append(base[:-4])
    for v in list(out):
        short = _GENERIC_TAIL.sub("", v)
        if short != v and len(squash(short)) >= 3:
            out.append(short)
    for v in list(out):
        out += [v.replace("&", " and "), v.replace("&", " "), v.replace("-", " "), v.replace(".", "")]
        tokens = re.findall(r"[A-Za-z0-9]+", v)
        if len(tokens) > 1 and len("".join(tokens)) >= 5:
            out.append("".join(tokens))
    return uniq(re.sub(r"\s+", " ", v).strip() for v in out)


def readable_key(key: str) -> str:
    """A display name from a file key: 'JOHNSON_JOHNSON' -> 'Johnson Johnson'."""
    return " ".join(w.capitalize() if not any(c.isdigit() for c in w) else w for w in key.split("_") if w)


_ORIGIN_WORDS = {"dei": "the filing's dei facts say", "cover": "the filing's cover page says",
                 "sidecar": "the filing's sidecar (finrag fetch) says"}


def names_same_company(file_key: str, file_ticker: str, registrant: str, tickers: list[str], book: AliasBook) -> bool:
    """Whether a file name's company key (and ticker) can name the registrant the filing itself gives (its
    name and tickers): the same spelling, a prefix, a typo (2 edits), initials ('AMD'), one of its tickers, or
    the same alias-book entry. False only on evidence of another company (the issue 34 case 6 conflict)."""
    cleaned = clean_company_name(registrant)
    sk = squash(file_key)
    if not sk or not squash(cleaned):
        return True
    filing_tickers = {squash(t) for t in tickers if t}
    if sk in filing_tickers or (file_ticker and squash(file_ticker) in filing_tickers):
        return True
    variants = {squash(v) for v in [registrant, *name_variants(cleaned)] if squash(v)}
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z0-9]+", cleaned)).upper()
    if sk == initials or any(v.startswith(sk) or sk.startswith(v) for v in variants if min(len(v), len(sk)) >= 3):
        return True
    if any(edit_distance(sk, v, 2) <= 2 for v in variants if len(v) >= 5):
        return True
    mine = book.entry_for(file_key, [], [file_ticker or file_key])
    theirs = book.entry_for("", [registrant, cleaned], tickers)
    if mine is not None and mine is theirs:
        return True
    if mine is not None and (any(squash(n) in variants for n in mine.names())
                             or any(squash(t) in filing_tickers for t in mine.tickers)):
        return True
    return False


def _company_conflict(file_key: str, registrant: str, tickers: list[str], origin: str) -> str:
    """One line on a file name that names another company than the filing's own facts."""
    held = f" ({', '.join(tickers[:3])})" if tickers else ""
    return (f"the file name says {file_key}, {_ORIGIN_WORDS.get(origin, 'the filing says')} {registrant}{held}; "
            "using the filing's")


def build_document_info(path: PathLike, cover_text: str = "", book: Optional[AliasBook] = None,
                        dei: Optional[dict] = None) -> DocumentInfo:
    """Combine what the filing says about itself (never raises), most exact first: the `finrag fetch` sidecar,
    the inline-XBRL `dei` facts (`finrag.tools.documents.xbrl`), the cover page, the file name. A file name's
    date (`abbv-10-k-2025-02-14.html`) is a filing date, so there the cover's fiscal year comes first.
    `sources` says which of them gave each field."""

    book = book or builtin_aliases()
    p = parse_path(path)
    c = parse_cover_page(cover_text if isinstance(cover_text, str) else "")
    x = dei_identity(dei)
    src: dict[str, str] = {}

    def pick(name: str, *options: tuple[str, object]):
        for origin, value in options:
            if value:
                src[name] = origin
                return value
        return options[-1][1] if options else None

    registrant = pick("registrant", ("dei", x["registrant"]), ("cover", c["registrant"])) or ""
    cleaned = clean_company_name(registrant)
    key, file_ticker = p["company_key"], p["ticker"]
    conflicts: list[str] = []
    own_tickers = x["tickers"] if src.get("registrant") == "dei" else c["tickers"]
    if key and cleaned and not names_same_company(key, file_ticker, registrant, [*x["tickers"], *c["tickers"]], book):
        # the file name names another company than the filing's own facts: the filing's win (issue 34 case 6)
        conflicts.append(_company_conflict(file_ticker or key, registrant, own_tickers, src["registrant"]))
        key, file_ticker = "", ""
    if not key or (squash(key) not in book.known_keys() and cleaned
                   and 0 < edit_distance(squash(key), squash(cleaned), 2) <= 2):
        key = canonical_company_key(cleaned, book) if cleaned else (file_ticker or key)
    src["company_key"] = "filename" if key == p["company_key"] and key else src.get("registrant", "filename")
    src["company"] = src.get("registrant", "filename")
    entry = _entry_of(book, key, [cleaned] if cleaned else [], [*x["tickers"], *c["tickers"]], file_ticker)
    # a ticker as the file's key ('NET' of NET_2024) is no name when the filing names itself, nor when it reads
    # as a word or an abbreviation ('Net', 'Comp', 'Cash' would name the company); alone, 'ACME' may read 'Acme'
    key_no_name = bool(key and file_ticker and squash(key) == squash(file_ticker)) and bool(
        cleaned or zipf(key) >= 4.0 or is_finance_abbreviation(key))
    company = entry.name if entry else (cleaned or (key if key_no_name else readable_key(key)))
    tickers = pick("tickers", ("dei", uniq(x["tickers"])), ("cover", uniq([*c["tickers"], file_ticker]) if c["tickers"]
                                                            else []), ("filename", [file_ticker] if file_ticker else []))
    tickers = uniq([*(tickers or []), file_ticker]) if tickers else (list(entry.tickers[:1]) if entry else [])
    form = pick("form", ("dei", x["form"]), ("filename", p["form"]), ("cover", c["form"])) or ""
    dated_name = p["layout"] == "generic" and bool(re.search(r"(?:19|20)\d{2}-?\d{2}-?\d{2}", PurePath(str(path)).stem))
    names_year = ("filename", None if dated_name and c["fiscal_year"] else p["fiscal_year"])
    fiscal_year = pick("fiscal_year", ("dei", x["fiscal_year"]), names_year, ("cover", c["fiscal_year"]),
                       ("filename", p["fiscal_year"]))
    quarter = x["quarter"] if x["form"] else p["quarter"]
    if x["form"] and x["quarter"]:
        src["quarter"] = "dei"
    elif quarter:
        src["quarter"] = "filename"
    if x["fiscal_year"] and not x["quarter"] and form == "10Q":
        quarter = p["quarter"]
    if not quarter and form == "10Q" and c.get("quarter"):  # no dei: the 10-Q's own pages say which quarter
        quarter, src["quarter"] = c["quarter"], "cover"
    period_end_seen = x["period_end"] or c["period_end"]
    if not fiscal_year and quarter and form == "10Q" and period_end_seen:
        fiscal_year = _fiscal_year_of_quarter(str(period_end_seen), int(quarter))
        src["fiscal_year"] = "cover"
    period = (f"{fiscal_year}Q{quarter}" if quarter else str(fiscal_year)) if fiscal_year else ""
    if not x["fiscal_year"] and p["period"] and not dated_name:
        period = p["period"]
    filed = p["filed_date"] or (c["report_date"] if form == "8K" else None)
    fye = pick("fiscal_year_end", ("dei", x["fiscal_year_end"]), ("cover", c["fiscal_year_end"]))
    period_end = pick("period_end", ("dei", x["period_end"]), ("cover", c["period_end"]))
    aliases = uniq([*(name_variants(company) if not (key_no_name and company == key) else []),
                    *(name_variants(cleaned) if cleaned else []),
                    *(name_variants(readable_key(key)) if not key_no_name else []),
                     *((a for n in entry.names() for a in name_variants(n)) if entry else ())])
    if x["cik"]:
        src["cik"] = "dei"
    info = DocumentInfo(
        doc_id=p["doc_id"] or PurePath(str(path)).stem, path=str(path), company=company, company_key=key,
        registrant=registrant, tickers=tickers, fiscal_year=fiscal_year, quarter=quarter,
        period=period, form=form, filed_date=filed, fiscal_year_end=fye, period_end=period_end,
        items=list(c["items"]), aliases=aliases, cik=x["cik"], sources=src,
        identity_conflicts=[*conflicts, *_period_conflicts(p, x, dated_name)])
    return with_sidecar_identity(info, book)


def _fiscal_year_of_quarter(period_end: str, quarter: int) -> Optional[int]:
    """The fiscal year a quarter ending `period_end` belongs to: the calendar year its fiscal year ends in (Oracle's
    Q1 ended August 31, 2024: fiscal 2025; Apple's Q3 ended June 29, 2024: fiscal 2024)."""
    try:
        end = _dt.date.fromisoformat(period_end)
    except ValueError:
        return None
    months = end.month + 3 * (4 - quarter)
    year = end.year + (months - 1) // 12
    month = (months - 1) % 12 + 1
    return year - 1 if (month == 1 and end.day <= 7 and quarter == 4) else year


def _entry_of(book: AliasBook, key: str, names: list[str], tickers: list[str], file_ticker: str = ""):
    """The alias-book entry of a filing, by key, name or ticker; an entry found by a name (not its own key) whose
    tickers the filing's own tickers (cover, dei) contradict is another company's: the file key 'COKE' (Coca-Cola
    Consolidated) squashes like Coca-Cola's alias 'Coke'. Then only its tickers choose."""
    own = uniq([*tickers, file_ticker])
    entry = book.entry_for(key, names, own)
    held = {squash(t) for t in tickers if t}
    if entry is not None and held and entry.tickers and not held & {squash(t) for t in entry.tickers} \
            and not (entry.key and squash(entry.key) == squash(key)):
        entry = book.entry_for("", [], own)
    return entry


def _period_conflicts(p: dict, x: dict, dated_name: bool) -> list[str]:
    """Lines on a file name whose fiscal period or form differs from the dei facts' (which win)."""
    out = []
    named = f"{p['fiscal_year']}Q{p['quarter']}" if p["fiscal_year"] and p["quarter"] else \
        (str(p["fiscal_year"]) if p["fiscal_year"] and not dated_name else "")
    facts = f"{x['fiscal_year']}Q{x['quarter']}" if x["fiscal_year"] and x["quarter"] else \
        (str(x["fiscal_year"]) if x["fiscal_year"] else "")
    if named and facts and (named != facts if p["quarter"] and x["quarter"] else named[:4] != facts[:4]):
        out.append(f"the file name says fiscal period {named}, the filing's dei facts say {facts}; using the filing's")
    if p["form"] and x["form"] and p["form"] != x["form"]:
        out.append(f"the file name says form {p['form']}, the filing's dei facts say {x['form']}; using the filing's")
    return out


def with_sidecar_identity(info: DocumentInfo, book: AliasBook) -> DocumentInfo:
    """The identity in the filing's sidecar `<filing>.json`, written by `finrag fetch` (`finrag.tools.edgar.identity`),
    replaces what the path and cover suggest: company, CIK-exact name, tickers at filing time (+ today's, so ticker
    history follows), form, fiscal year and period, period end, filing date, 8-K items. No sidecar: `info` as is."""
    import json
    import os
    from pathlib import Path

    try:
        side = Path(os.fspath(info.path)).with_suffix(".json")
        data = json.loads(side.read_text(encoding="utf-8")) if side.is_file() else None
    except (OSError, ValueError, TypeError):
        return info
    if not isinstance(data, dict) or data.get("schema") != "finrag.edgar.filing/1":
        return info
    registrant = str(data.get("company") or data.get("conformed_name") or "")
    cleaned = clean_company_name(registrant)
    tickers = uniq(str(t).upper() for t in [*(data.get("tickers") or []), *(data.get("current_tickers") or [])] if t)
    key = canonical_company_key(cleaned, book) if cleaned else (tickers[0] if tickers else info.company_key)
    entry = _entry_of(book, key, [cleaned] if cleaned else [], tickers)
    company = entry.name if entry else (cleaned or info.company)
    form = SEC_FORM_KEYS.get(str(data.get("kind") or ""), info.form)
    fy = data.get("fiscal_year") if isinstance(data.get("fiscal_year"), int) else info.fiscal_year
    fp = str(data.get("fiscal_period") or "")
    quarter = int(fp[1]) if form == "10Q" and fp in ("Q1", "Q2", "Q3", "Q4") else None
    fye = str(data.get("fiscal_year_end") or "")
    fye_text = f"{MONTH_NAMES[int(fye[:2]) - 1]} {int(fye[2:])}" if fye.isdigit() and len(fye) == 4 \
        and 1 <= int(fye[:2]) <= 12 else info.fiscal_year_end
    aliases = uniq([*name_variants(company), *(name_variants(cleaned) if cleaned else []),
                    *((a for n in entry.names() for a in name_variants(n)) if entry else ())])
    return info.model_copy(update={
        "company": company, "company_key": key, "registrant": registrant, "tickers": tickers, "fiscal_year": fy,
        "quarter": quarter, "period": (f"{fy}Q{quarter}" if quarter else str(fy)) if fy else info.period,
        "form": form, "filed_date": data.get("filing_date") if form in ("8K", "EARNINGS") else None,
        "fiscal_year_end": fye_text, "period_end": data.get("period_end") or info.period_end,
        "items": [str(i) for i in data.get("items") or []] or info.items, "aliases": aliases,
        "cik": str(data.get("cik") or info.cik),
        "sources": {**info.sources, **{k: "sidecar" for k in ("registrant", "company", "tickers", "form", "fiscal_year",
                                                              "quarter", "period_end", "fiscal_year_end", "cik")}}})
