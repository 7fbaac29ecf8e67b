"""A company's filings from its submissions JSON (`{data}/submissions/CIK##########.json`), by form and year.

The submissions JSON lists the most recent filings column by column (`filings.recent`: accessionNumber,
filingDate, reportDate, form, primaryDocument, items, ...) and names older pages in `filings.files`; an older
page is requested only when the years asked for reach back past the recent list.

Forms: `10-K`, `10-Q`, `8-K` (the primary document) and `earnings` (an 8-K reporting Item 2.02, Results of
Operations; its press-release exhibit EX-99.x is downloaded). Years are fiscal years, estimated before download
from the period of report and the company's fiscal year end (`fiscalYearEnd`, MMDD) by `finrag.tools.fiscal`'s
rule: a period that ends after the fiscal year end (plus `SLACK_DAYS` for 52/53-week years) belongs to the next
fiscal year. The filing's own dei
facts, read after download, are what the sidecar records.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from finrag.state.forms import FETCH_FORMS
from finrag.tools.edgar.client import EdgarClient, EdgarError
from finrag.tools.edgar.tickers import Company
from finrag.tools.fiscal import fiscal_year_of_period as fiscal_year_of

__all__ = ["FORMS", "Filing", "fiscal_year_of", "list_filings", "parse_forms", "parse_years", "submissions"]

FORMS = FETCH_FORMS  # one home: finrag.state.forms
_FORM_ALIASES = {"10K": "10-K", "10-K": "10-K", "10Q": "10-Q", "10-Q": "10-Q", "8K": "8-K", "8-K": "8-K",
                 "EARNINGS": "earnings", "EARNINGS-RELEASE": "earnings"}


@dataclass
class Filing:
    cik: int
    company: str
    tickers: list[str]
    kind: str  # one of FORMS
    form: str  # the form as EDGAR lists it
    accession: str
    filing_date: str
    report_date: str
    primary_document: str
    items: list[str] = field(default_factory=list)
    fiscal_year_end: str = ""
    fiscal_year: Optional[int] = None

    @property
    def folder_url_path(self) -> str:
        return f"/Archives/edgar/data/{self.cik}/{self.accession.replace('-', '')}"

    @property
    def key(self) -> str:
        """What resume compares: one accession can give an 8-K and its earnings exhibit."""
        return f"{self.accession}:{self.kind}"


def parse_forms(text: str) -> list[str]:
    out = []
    for raw in str(text or "").split(","):
        if not raw.strip():
            continue
        f = _FORM_ALIASES.get(raw.strip().upper())
        if not f:
            raise ValueError(f"unknown form {raw.strip()!r}; use some of {', '.join(FORMS)}")
        if f not in out:
            out.append(f)
    if not out:
        raise ValueError(f"no forms given; use some of {', '.join(FORMS)}")
    return out


def parse_years(text: str) -> tuple[int, int]:
    """'2021-2024' or '2023' -> (first, last)."""
    parts = [p.strip() for p in str(text or "").replace("–", "-").split("-")]
    try:
        first, last = int(parts[0]), int(parts[-1])
    except ValueError:
        raise ValueError(f"bad --years {text!r}; expected YEAR or FIRST-LAST, e.g. 2021-2024") from None
    if len(parts) > 2 or not (1993 <= first <= last <= 2100):
        raise ValueError(f"bad --years {text!r}; expected YEAR or FIRST-LAST, e.g. 2021-2024")
    return first, last


def submissions(client: EdgarClient, company: Company) -> dict:
    url = f"{client.data}/submissions/CIK{company.cik10}.json"
    data = client.get_json(url)
    if not isinstance(data, dict) or not isinstance(data.get("filings"), dict) \
            or not isinstance(data["filings"].get("recent"), dict):
        raise EdgarError(f"unexpected submissions JSON from {url}: no filings.recent")
    return data


def _rows(columns: dict, url: str):
    try:
        n = len(columns["accessionNumber"])
        for i in range(n):
            yield {k: (v[i] if isinstance(v, list) and i < len(v) else "") for k, v in columns.items()}
    except (KeyError, TypeError):
        raise EdgarError(f"unexpected submissions JSON from {url}: no accessionNumber column") from None


def list_filings(client: EdgarClient, company: Company, forms: list[str], years: tuple[int, int]) -> list[Filing]:
    """The company's filings of `forms` in fiscal `years` (inclusive), oldest first."""
    data = submissions(client, company)
    name = str(data.get("name") or company.title)
    tickers = [str(t) for t in data.get("tickers") or []] or ([company.ticker] if company.ticker else [])
    fye = str(data.get("fiscalYearEnd") or "1231")
    pages = [(data["filings"]["recent"], f"{client.data}/submissions/CIK{company.cik10}.json")]
    oldest = min((d for d in data["filings"]["recent"].get("filingDate") or [] if d), default="")
    if oldest and oldest > f"{years[0]}-01-01":
        for extra in data["filings"].get("files") or []:
            if isinstance(extra, dict) and str(extra.get("filingTo", "9999")) >= f"{years[0]}-01-01" and extra.get("name"):
                url = f"{client.data}/submissions/{extra['name']}"
                cols = client.get_json(url)
                if not isinstance(cols, dict):
                    raise EdgarError(f"unexpected submissions page from {url}")
                pages.append((cols, url))
    out: list[Filing] = []
    seen: set[str] = set()
    for cols, url in pages:
        for r in _rows(cols, url):
            form = str(r.get("form") or "")
            items = [i.strip() for i in str(r.get("items") or "").split(",") if i.strip()]
            kinds = [k for k in forms if (k == form) or (k == "earnings" and form == "8-K" and "2.02" in items)]
            period = str(r.get("reportDate") or "") or str(r.get("filingDate") or "")
            fy = fiscal_year_of(period, fye)
            for kind in kinds:
                if fy is None or not (years[0] <= fy <= years[1]):
                    continue
                f = Filing(cik=company.cik, company=name, tickers=tickers, kind=kind, form=form,
                           accession=str(r["accessionNumber"]), filing_date=str(r.get("filingDate") or ""),
                           report_date=str(r.get("reportDate") or ""), primary_document=str(r.get("primaryDocument") or ""),
                           items=items, fiscal_year_end=fye, fiscal_year=fy)
                if f.key not in seen:
                    seen.add(f.key)
                    out.append(f)
    return sorted(out, key=lambda f: (f.filing_date, f.accession, f.kind))
