"""A small hand-made inline-XBRL 10-Q for the issue-20 tests: `tenq_markup()`.

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
