"""Small hand-made inline-XBRL filings: `tenq_markup()` (the issue-20 tests) and `widgetco_tenk()` (issue 33), and
`widgetco_facts()`, the facts finrag's HTML reader collects from the latter.

Acme Widgets, Inc. (ACMW), FY2025 Q3 (fiscal year ends late September, period end June 28, 2025): a hidden
`ix:header` with dei facts and contexts for the quarter, the year to date, the prior year's quarter and year to
date, a balance-sheet instant and a segment (a dimension); the statement of operations on page 1, a balance
sheet on page 2."""
from __future__ import annotations

_CTX = {"q": ("2025-03-30", "2025-06-28"), "ytd": ("2024-09-29", "2025-06-28"), "pq": ("2024-03-31", "2024-06-29"),
        "pytd": ("2023-10-01", "2024-06-29")}


def _context(cid: str, period: str, dims: str = "") -> str:
    seg = f"<xbrli:segment><xbrldi:explicitMember dimension=\"us-gaap:SegmentsAxis\">{dims}</xbrldi:explicitMember>" \
          f"</xbrli:segment>" if dims else ""
    return (f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0009999999'
            f'</xbrli:identifier>{seg}</xbrli:entity><xbrli:period>{period}</xbrli:period></xbrli:context>')


def _fact(name: str, ctx: str, text: str, scale: int = 6, sign: str = "", unit: str = "usd") -> str:
    s = f' sign="{sign}"' if sign else ""
    return (f'<ix:nonFraction unitRef="{unit}" contextRef="{ctx}" decimals="-6" name="us-gaap:{name}" '
            f'format="ixt:num-dot-decimal" scale="{scale}"{s}>{text}</ix:nonFraction>')


def tenq_markup() -> str:
    """A FY2025 Q3 10-Q of a registrant whose fiscal year ends in late September."""
    ctxs = "".join(_context(k, f"<xbrli:startDate>{a}</xbrli:startDate><xbrli:endDate>{b}</xbrli:endDate>")
                   for k, (a, b) in _CTX.items())
    ctxs += _context("i", "<xbrli:instant>2025-06-28</xbrli:instant>")
    ctxs += _context("seg", "<xbrli:startDate>2025-03-30</xbrli:startDate><xbrli:endDate>2025-06-28</xbrli:endDate>",
                     "acme:WidgetsMember")
    hidden = ('<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="ytd">2025</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="ytd">Q3</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="ytd">--09-27</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="ytd">0009999999</ix:nonNumeric>')
    header = f'<div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden><ix:resources>{ctxs}' \
             f'</ix:resources></ix:header></div>'
    cover = ('<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM <ix:nonNumeric name="dei:DocumentType" '
             'contextRef="ytd">10-Q</ix:nonNumeric></p><p>For the quarterly period ended <ix:nonNumeric '
             'name="dei:DocumentPeriodEndDate" contextRef="ytd" format="ixt:date-monthname-day-year-en">June 28, 2025'
             '</ix:nonNumeric></p><p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="ytd">Acme Widgets, '
             'Inc.</ix:nonNumeric></p><table><tr><td>Common Stock</td><td><ix:nonNumeric name="dei:TradingSymbol" '
             'contextRef="ytd">ACMW</ix:nonNumeric></td></tr></table>')
    rows = [("Total net sales", "Revenues", ("94,036", "313,695", "85,777", "296,105"), ""),
            ("Net income", "NetIncomeLoss", ("23,434", "84,544", "21,448", "79,000"), ""),
            ("Diluted", "EarningsPerShareDiluted", ("1.57", "5.64", "1.40", "5.13"), "")]
    table = ""
    for label, name, texts, sign in rows:
        scale = 0 if name.startswith("Earnings") else 6
        unit = "usdPerShare" if scale == 0 else "usd"
        cells = "".join(f"<td>{_fact(name, c, t, scale, sign, unit)}</td>" for c, t in zip(_CTX, texts))
        table += f"<tr><td>{label}</td>{cells}</tr>"
    table += f"<tr><td>Widgets</td><td>{_fact('Revenues', 'seg', '50,000')}</td></tr>"
    statements = ('<div style="page-break-before:always"><p>CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS</p>'
                  '<p>(In millions)</p><table><tr><td></td><td>Three Months Ended June 28, 2025</td><td>Nine Months '
                  f'Ended June 28, 2025</td><td>June 29, 2024</td><td>June 29, 2024</td></tr>{table}</table></div>')
    balance = ('<div style="page-break-before:always"><p>CONDENSED CONSOLIDATED BALANCE SHEETS</p><table><tr>'
               f'<td>Total assets</td><td>{_fact("Assets", "i", "331,495")}</td></tr><tr><td>Capital expenditures</td>'
               f'<td>{_fact("PaymentsToAcquirePropertyPlantAndEquipment", "ytd", "9,473", sign="-")}</td></tr>'
               '</table></div>')
    return f"<html><body>{header}{cover}{statements}{balance}</body></html>"


# ---- Widgetco's FY2024 10-K (the analyst-questions benchmark's and the member answerer's tests)
def _wctx(cid: str, period: str, member: tuple[str, str] | None = None) -> str:
    seg = (f'<xbrli:segment><xbrldi:explicitMember dimension="{member[0]}">{member[1]}</xbrldi:explicitMember>'
           "</xbrli:segment>") if member else ""
    return (f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000012345'
            f"</xbrli:identifier>{seg}</xbrli:entity><xbrli:period>{period}</xbrli:period></xbrli:context>")


def _dur(a: str, b: str) -> str:
    return f"<xbrli:startDate>{a}</xbrli:startDate><xbrli:endDate>{b}</xbrli:endDate>"


def _wf(name: str, ctx: str, text: str, scale: int = 6, unit: str = "usd") -> str:
    return (f'<ix:nonFraction unitRef="{unit}" contextRef="{ctx}" decimals="-6" name="{name}" '
            f'format="ixt:num-dot-decimal" scale="{scale}">{text}</ix:nonFraction>')


WIDGETCO_INFO = {"company": "Widgetco", "registrant": "Widgetco, Inc.", "tickers": ["WID"], "fiscal_year": 2024,
                 "form": "10K", "period_end": "2024-12-31"}
"""The identity routing gives `widgetco_tenk`."""


def widgetco_tenk() -> str:
    """Widgetco's FY2024 10-K: revenue 10,000 (FY2023 8,000), of which Subscription 6,000 (a product member whose
    row says "Subscription (1)") and Germany 1,500 (a region member under a generic "Total" row, as Coca-Cola's);
    gross profit 4,000, net income 1,200 (900), current assets 3,000 / liabilities 2,000; auditor and shares on the
    cover; the CIK hidden in the header."""
    ctxs = (_wctx("fy", _dur("2024-01-01", "2024-12-31")) + _wctx("py", _dur("2023-01-01", "2023-12-31"))
            + _wctx("i", "<xbrli:instant>2024-12-31</xbrli:instant>")
            + _wctx("cover", "<xbrli:instant>2025-02-01</xbrli:instant>")
            + _wctx("sub", _dur("2024-01-01", "2024-12-31"), ("srt:ProductOrServiceAxis", "wid:SubscriptionMember"))
            + _wctx("svc", _dur("2024-01-01", "2024-12-31"), ("srt:ProductOrServiceAxis", "us-gaap:ServiceMember"))
            + _wctx("de", _dur("2024-01-01", "2024-12-31"), ("srt:StatementGeographicalAxis", "country:DE"))
            + _wctx("us", _dur("2024-01-01", "2024-12-31"), ("srt:StatementGeographicalAxis", "country:US")))
    hidden = ('<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="fy">0000012345</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="fy">--12-31</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="fy">2024</ix:nonNumeric>'
              '<ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="fy">FY</ix:nonNumeric>')
    header = (f'<div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden><ix:resources>{ctxs}'
              "</ix:resources></ix:header></div>")
    cover = ('<p>FORM <ix:nonNumeric name="dei:DocumentType" contextRef="fy">10-K</ix:nonNumeric> for the fiscal '
             'year ended <ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="fy" '
             'format="ixt:date-monthname-day-year-en">December 31, 2024</ix:nonNumeric></p><p><ix:nonNumeric '
             'name="dei:EntityRegistrantName" contextRef="fy">Widgetco, Inc.</ix:nonNumeric> <ix:nonNumeric '
             'name="dei:TradingSymbol" contextRef="fy">WID</ix:nonNumeric></p><p>'
             f'{_wf("dei:EntityCommonStockSharesOutstanding", "cover", "123,456,789", 0, "shares")} shares '
             "outstanding as of February 1, 2025</p>")
    rows = [("Total revenue", "us-gaap:Revenues", ("10,000", "8,000")),
            ("Gross profit", "us-gaap:GrossProfit", ("4,000", "3,000")),
            ("Net income", "us-gaap:NetIncomeLoss", ("1,200", "900"))]
    body = "".join(f"<tr><td>{label}</td><td>{_wf(n, 'fy', a)}</td><td>{_wf(n, 'py', b)}</td></tr>" for label, n, (a, b)
                   in rows)
    body += f"<tr><td>Subscription (1)</td><td>{_wf('us-gaap:Revenues', 'sub', '6,000')}</td></tr>"
    body += f"<tr><td>Services</td><td>{_wf('us-gaap:Revenues', 'svc', '4,000')}</td></tr>"
    geo = (f"<tr><td>Total</td><td>{_wf('us-gaap:Revenues', 'us', '8,500')}</td>"
           f"<td>{_wf('us-gaap:Revenues', 'de', '1,500')}</td></tr>")
    balance = (f"<tr><td>Total current assets</td><td>{_wf('us-gaap:AssetsCurrent', 'i', '3,000')}</td></tr>"
               f"<tr><td>Total current liabilities</td><td>{_wf('us-gaap:LiabilitiesCurrent', 'i', '2,000')}</td></tr>")
    audit = ('<p>/s/ <ix:nonNumeric name="dei:AuditorName" contextRef="fy">Ernst &amp; Young LLP</ix:nonNumeric></p>')
    page = '<div style="page-break-before:always">{}</div>'
    return ("<html><body>" + header + cover + page.format(f"<table>{body}</table>")
            + page.format(f"<table>{geo}{balance}</table>") + page.format(audit) + "</body></html>")


def widgetco_facts() -> dict:
    """The inline-XBRL facts finrag's HTML reader collects from `widgetco_tenk()`, parsed anew on each call."""
    from finrag.tools.documents.html import html_document

    data = html_document(widgetco_tenk())[1]
    assert data is not None
    return data
