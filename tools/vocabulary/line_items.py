"""Line items by name and common synonyms, and which statement each one lives in.

`LINE_ITEMS` maps a canonical item (`capex`, `revenue`, `total_current_liabilities`, ...) to the row labels
that carry it in filings (regular expressions over the cleaned label, most specific first), the statement
it belongs to and the words a question uses for it. `match_score(item, label)` says how well a row label
carries an item (0 = not at all); the reader picks the best-scoring row of the best statement.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["INCOME_ORDER", "LineItem", "LINE_ITEMS", "ROW", "line_item", "match_score", "item_in_question", "row_item_name"]


@dataclass(frozen=True)
class LineItem:
    name: str
    """Canonical name, e.g. 'capex'."""
    display: str
    """How the answer names it, e.g. 'capital expenditure'."""
    statement: str
    """'income', 'balance' or 'cash_flow': where the reader looks first."""
    labels: tuple[str, ...]
    """Row-label patterns, most specific first (full-label regular expressions, case-insensitive)."""
    question: tuple[str, ...] = ()
    """Question patterns that name the item."""
    exclude: tuple[str, ...] = ()
    """Row-label patterns that never carry the item (e.g. 'per share')."""
    sign: int = 0
    """+1 / -1: report the magnitude (capex is printed as a negative outflow); 0: keep the sign."""
    flow: bool = True
    """True for period amounts (income, cash flow), False for balances at period end."""
    sections: tuple[str, ...] = field(default=())
    """Section headings the row should sit under (e.g. 'investing') when the label alone is ambiguous."""
    under: tuple[tuple[str, str], ...] = ()
    """(section, label) patterns: a row whose label matches only under such a section heading (IBM's
    'Assuming dilution:' then 'Total')."""
    per_share: bool = False
    """A per-share amount (EPS): printed in dollars and cents, never in the table's "in millions"."""


# EPS rows: 'Diluted' alone counts only under an earnings-per-share heading, not under 'Shares used in computing
# earnings per share' or 'Weighted average shares'
_PER_SHARE_SECTION = (r"^(?!.*\b(?:shares used|weighted|number of|average (?:common )?shares|shares outstanding)\b).*"
                      r"\b(?:per (?:common |ordinary )?share|eps)\b",)
_EPS_EXCLUDE = (r"\bshares\b(?! of)", r"weighted", r"dividends?", r"anti-?dilutive", r"%", r"adjusted", r"non-?gaap",
                r"diluted (?:securities|effect)", r"effect of")


def _items() -> dict[str, LineItem]:
    L = LineItem
    items = [
        L("revenue", "total revenue", "income",
          (r"total (?:net )?revenues?(?: and other income)?", r"(?:total )?net revenues?", r"total net sales(?: and revenue)?",
           r"net sales(?: and revenues?)?", r"revenues?", r"(?:total )?(?:net )?operating revenues?", r"total revenues?, net",
           r"sales to customers", r"revenues?, net", r"net sales and operating revenues", r"sales"),
          (r"\b(?:total |net )?revenues?\b", r"\bnet sales\b", r"\btop ?line\b", r"\bsales\b"),
          exclude=(r"cost of", r"per share", r"deferred", r"unearned", r"%", r"percent", r"growth")),
        L("cogs", "cost of goods sold", "income",
          (r"(?:total )?cost of (?:goods |products |merchandise )?sold", r"(?:total )?cost of sales",
           r"(?:total )?cost of revenues?", r"cost of products sold", r"cost of (?:goods|products)",
           r"costs? of (?:net )?revenues?", r"cost of sales and operating expenses"),
          (r"\bcogs\b", r"\bcost of (?:goods|products|merchandise) sold\b", r"\bcost of (?:sales|revenues?)\b"), sign=1,
          exclude=(r"per share", r"%", r"excluding", r"exclusive")),
        L("gross_profit", "gross profit", "income", (r"gross (?:profit|margin)",), (r"\bgross profit\b",),
          exclude=(r"%", r"percent")),
        L("operating_income", "operating income", "income",
          (r"(?:total )?operating income(?: \(loss\))?", r"operating \(loss\) income", r"income(?: \(loss\))? from operations|(?:earnings \(loss\)|\(loss\) earnings|loss) from operations",
           r"\(loss\) income from operations", r"operating profit(?: \(loss\))?", r"earnings from operations",
           r"operating earnings", r"income from continuing operations before .*interest.*"),
          (r"\boperating (?:income|profit|earnings)\b", r"\b(?:income|earnings|loss|\(loss\)|income \(loss\)) from "
           r"operations\b", r"\boperating (?:\(loss\) income|income \(loss\)|loss(?:es)?)\b", r"\bebit\b"),
          exclude=(r"per share", r"%", r"non-?gaap", r"adjusted", r"margin", r"before income taxes$")),
        L("net_income", "net income", "income",
          (r"net (?:income|loss|income \(loss\)|\(loss\) income) attributable to (?!non)[\w .,&'’-]+",
           r"net (?:earnings|earnings \(loss\)|\(loss\) earnings) attributable to (?!non)[\w .,&'’-]+",
           r"net income(?: \(loss\))?", r"net \(loss\) income", r"net earnings(?: \(loss\))?", r"net loss",
           r"net income available to common (?:stockholders|shareholders)",
           r"consolidated net income attributable to (?!non)[\w .,&'’-]+", r"consolidated net income"),
          (r"\bnet (?:income|earnings|profit|loss)\b", r"\bnet income attributable\b"),
          exclude=(r"per (?:common )?share", r"noncontrolling", r"non-controlling", r"%", r"before", r"margin",
                   r"including", r"comprehensive", r"adjustments")),
        L("pretax_income", "income before income taxes", "income",
          (r"(?:income|earnings|\(loss\) income|income \(loss\)|loss) (?:from continuing operations )?before "
           r"(?:(?:the )?(?:provision|benefit)(?: ?\((?:benefit|provision)\))? for )?(?:income )?taxes(?: on income)?.*",
           r"pre-?tax income(?: \(loss\))?", r"pre-?tax earnings"),
          (r"\bpre-?tax (?:income|earnings)\b", r"\bincome before (?:income )?taxes\b"), exclude=(r"%",)),
        L("income_tax", "provision for income taxes", "income",
          (r"(?:provision for|\(?benefit\)? ?from|\(?provision\)? for|benefit from) income taxes.*",
           r"(?:provision|benefit)(?: ?\((?:benefit|provision)\))? for (?:income )?taxes(?: on income)?.*",
           r"income tax (?:expense|provision)(?: \(benefit\))?", r"income taxes", r"provision for taxes on income"),
          (r"\bincome tax(?:es)? (?:expense|provision)\b", r"\btax expense\b"), exclude=(r"before", r"deferred", r"%")),
        L("interest_expense", "interest expense", "income",
          (r"interest expense(?:, net)?", r"interest expense, net of .*", r"interest and debt expense", r"interest, net"),
          (r"\binterest expense\b",), exclude=(r"income$",), sign=1),
        L("sga", "selling, general and administrative expense", "income",
          (r"selling,? general,? and administrative(?: expenses?)?", r"marketing, general and administrative",
           r"selling, informational and administrative expenses", r"sg&a"),
          (r"\bsg&a\b", r"\bselling, general\b",)),
        L("sales_marketing", "sales and marketing expense", "income",
          (r"(?:sales|selling) and marketing(?: expenses?)?", r"marketing and sales(?: expenses?)?"),
          (r"\b(?:sales|selling) (?:and|&) marketing\b", r"\bmarketing (?:and|&) sales\b", r"\bs&m\b")),
        L("general_administrative", "general and administrative expense", "income",
          (r"general(?:,)? and administrative(?: expenses?)?",), (r"\bgeneral (?:and|&) administrative\b", r"\bg&a\b"),
          exclude=(r"selling", r"marketing")),
        L("rnd", "research and development", "income", (r"research(?:,)? and development(?: expenses?)?(?:, net)?",),
          (r"\br&d\b", r"\bresearch and development\b")),
        L("depreciation_amortization", "depreciation and amortization", "cash_flow",
          (r"depreciation(?:,)? (?:depletion )?and amortization(?: expense)?", r"depreciation, amortization and .*",
           r"depreciation and amortization of .*", r"depreciation(?: expense)?", r"depreciation, depletion and amortization"),
          (r"\bd&a\b", r"\bdepreciation\b"), exclude=(r"accumulated", r"less", r"excluding")),
        L("cfo", "cash from operations", "cash_flow",
          (r"net cash (?:provided by|from|generated (?:by|from))(?: \(used (?:in|for)\))? operating activities.*",
           r"net cash (?:provided by|from) operations", r"cash provided by operations",
           r"net cash (?:provided by|used in) \(?used (?:in|for)\)? operating activities",
           r"cash (?:flows? )?(?:provided by|from) operating activities", r"net cash (?:used in|provided by \(used in\)) operating activities",
           r"net cash provided by \(used in\) operating activities",
           r"net cash (?:and (?:cash equivalents|restricted cash) )?"
           r"(?:(?:provided|generated|used|\(used\)|\(used in\)|\(provided\))[ /]*(?:by|in|from|for)?[ /]*){1,3}"
           r"operating activities(?:, continuing operations|, total)?",
           r"cash (?:flows? )?(?:provided by|from|generated by|used (?:in|by))(?: \(used (?:in|for)\))? operating activities"),
          (r"\bcash (?:flow )?from operations\b", r"\boperating cash flows?\b", r"\bcash (?:flow|generated) from operating activities\b",
           r"\bcash provided by operating activities\b", r"\b(?:cash|generated?)\b.{0,40}\boperating activities\b"),
          exclude=(r"discontinued",)),
        L("capex", "capital expenditure", "cash_flow",
          (r"purchases? of property(?:,)? (?:plant )?and equipment.*", r"capital expenditures?.*",
           r"payments? for (?:acquisition of )?property(?:,)? (?:plant )?and equipment.*",
           r"payments? (?:to acquire|for (?:the )?(?:purchases?|acquisitions?) of) property(?:,)? (?:plant )?and equipment.*",
           r"additions? to property(?:,)? (?:plant )?and equipment.*", r"acquisitions? of property(?:,)? (?:plant )?and equipment.*",
           r"expenditures? for property.*", r"capital spending", r"purchases? of property and equipment.*",
           r"property(?:,)? (?:plant )?and equipment (?:additions|expenditures)", r"investments? in property, plant and equipment",
           r"purchases? of (?:land, )?buildings(?:,)? and equipment", r"purchase of property, plant and equipment and other intangible assets"),
          (r"\bcapital expenditures?\b", r"\bcapex\b", r"\bpurchases? of (?:pp&e|property)\b"), sign=1,
          exclude=(r"proceeds", r"sale of", r"accrued", r"unpaid")),
        L("dividends_paid", "dividends paid", "cash_flow",
          (r"(?:cash )?dividends paid(?: to .*)?", r"dividends? (?:paid )?(?:on|to) common .*",
           r"payments? (?:of|for) (?:cash )?dividends.*"),
          (r"\bdividends? paid\b",), sign=1, exclude=(r"noncontrolling", r"per share")),
        L("share_repurchases", "share repurchases", "cash_flow",
          (r"(?:purchases?|repurchases?) of (?:common |treasury )?(?:stock|shares).*", r"common stock repurchased.*"),
          (r"\b(?:stock|share) (?:repurchases?|buybacks?)\b",), sign=1),
        L("stock_based_compensation", "stock-based compensation", "cash_flow",
          (r"(?:stock|share)[- ]based compensation(?: expense)?", r"stock compensation(?: expense)?",
           r"share-based payment expense"),
          (r"\b(?:stock|share)[- ]based compensation\b", r"\bsbc\b")),
        L("total_costs_expenses", "total costs and expenses", "income",
          (r"total (?:operating )?costs and expenses", r"costs and expenses"), (r"\btotal costs and expenses\b",),
          exclude=(r"other",)),
        L("total_current_assets", "total current assets", "balance", (r"total current assets",),
          (r"\b(?:total )?current assets\b",), flow=False),
        L("total_current_liabilities", "total current liabilities", "balance", (r"total current liabilities",),
          (r"\b(?:total )?current liabilities\b",), flow=False),
        L("total_assets", "total assets", "balance", (r"total assets",), (r"\btotal assets\b",), flow=False),
        L("total_liabilities", "total liabilities", "balance", (r"total liabilities",), (r"\btotal liabilities\b",),
          flow=False, exclude=(r"equity", r"current")),
        L("total_equity", "total shareholders' equity", "balance",
          (r"total (?:[\w.&-]+ ){0,3}(?:stockholders|shareholders|share ?owners)[’']? equity(?: \(deficit\))?",
           r"total equity(?: \(deficit\))?",
           r"total (?:\w+ )?(?:stockholders|shareholders)[’']? \(deficit\) equity"),
          (r"\b(?:shareholders|stockholders)[’']? equity\b", r"\btotal equity\b", r"\bbook value\b"), flow=False,
          exclude=(r"liabilities and",)),
        L("inventory", "inventories", "balance",
          (r"(?:total )?inventor(?:y|ies)(?:, net)?", r"merchandise inventories", r"inventories, net"),
          (r"\binventor(?:y|ies)\b",), flow=False),
        L("receivables", "accounts receivable", "balance",
          (r"(?:trade )?accounts receivable(?:, net| - net|, less allowances.*| \(net.*)?.*", r"(?:trade )?receivables?(?:, net| - net)?.*",
           r"accounts and notes receivable.*", r"trade accounts receivable.*", r"receivables, less allowance.*"),
          (r"\b(?:accounts )?receivables?\b",), flow=False, exclude=(r"long-term", r"non-?current", r"financing")),
        L("accounts_payable", "accounts payable", "balance",
          (r"(?:trade )?accounts payable(?: and accrued (?:expenses|liabilities))?", r"accounts payable, trade", r"trade payables?"),
          (r"\baccounts payable\b", r"\bpayables?\b"), flow=False),
        L("cash", "cash and cash equivalents", "balance",
          (r"cash and (?:cash )?equivalents(?: at end of (?:year|period))?", r"cash(?:,)? cash equivalents and restricted cash",
           r"cash and short-term investments", r"cash"),
          (r"\bcash (?:and|&) (?:cash )?equivalents\b",), flow=False, exclude=(r"beginning",)),
        L("short_term_investments", "short-term investments", "balance",
          (r"short-term investments", r"marketable securities(?:, current)?", r"short-term marketable securities",
           r"current marketable securities", r"investments(?:, current)?"),
          (r"\bshort-term investments\b", r"\bmarketable securities\b"), flow=False, exclude=(r"long-term", r"non-?current")),
        L("ppe_net", "net property, plant and equipment", "balance",
          (r"(?:total )?property(?:,)? (?:plant )?and equipment(?:, net| - net|—net| net)(?: of .*)?",
           r"net property(?:,)? (?:plant )?and equipment", r"property and equipment, net", r"property, plant and equipment -? ?net",
           r"property, plant and equipment, less accumulated depreciation.*", r"net (?:pp&e|ppe)",
           r"property, equipment and capitalized software, net", r"property(?:,)? (?:plant )?and equipment",
           r"property and equipment"),
          (r"\b(?:net )?pp&?n?e\b", r"\bproperty,? plant,? (?:and|&) equipment\b", r"\bfixed assets\b"), flow=False,
          exclude=(r"gross", r"accumulated depreciation$", r"purchases", r"proceeds")),
        L("long_term_debt", "long-term debt", "balance",
          (r"long-term debt(?:, net| net of current (?:portion|maturities))?(?:, excluding current (?:portion|maturities))?.*",
           r"long-term borrowings"), (r"\blong-term debt\b",), flow=False, exclude=(r"current portion of", r"due within")),
        L("current_debt", "current portion of long-term debt", "balance",
          (r"(?:current portion|current maturities) of long-term debt.*", r"short-term (?:debt|borrowings).*",
           r"short-term borrowings and current portion of long-term debt", r"debt due within one year", r"current debt",
           r"debt maturing within one year", r"current portion of (?:long-term )?(?:debt|borrowings).*",
           r"notes payable.*", r"commercial paper"),
          (r"\bshort-term debt\b",), flow=False),
        L("eps_diluted", "diluted earnings per share", "income",
          (r"(?:basic and )?diluted (?:[\w()/,'’-]+ )*per (?:common |ordinary )?share.*",
           r".*per (?:common |ordinary )?share.*diluted.*", r"diluted eps", r"(?:basic and )?diluted"),
          (r"\bdiluted (?:eps|earnings per share|(?:net )?(?:income|loss|earnings) per share)\b",
           r"\b(?:eps|(?:earnings|net income|net loss|loss) per (?:common )?share)\b(?!.*\bbasic\b)"),
          exclude=_EPS_EXCLUDE, flow=True, sections=_PER_SHARE_SECTION, per_share=True,
          under=((r"assuming dilution|diluted(?: earnings per share| eps)?", r"total|net (?:income|earnings)(?: \(loss\))?"),)),
        L("eps_basic", "basic earnings per share", "income",
          (r"basic (?:[\w()/,'’-]+ )*per (?:common |ordinary )?share.*", r".*per (?:common |ordinary )?share.*basic.*",
           r"basic eps", r"basic(?: and diluted)?"),
          (r"\bbasic (?:eps|earnings per share|(?:net )?(?:income|loss|earnings) per share)\b",
           r"\b(?:eps|(?:earnings|net income|net loss|loss) per (?:common )?share)\b.*\bbasic\b"),
          exclude=_EPS_EXCLUDE, flow=True, sections=_PER_SHARE_SECTION, per_share=True,
          under=((r"basic(?: earnings per share| eps)?", r"total|net (?:income|earnings)(?: \(loss\))?"),)),
    ]
    return {i.name: i for i in items}


LINE_ITEMS: dict[str, LineItem] = _items()
ROW = "row:"
"""The prefix of a row item: an operand the question names that is no item above ("goodwill", "contract assets",
"demand creation expense"), read from the filing's own row labels (`line_item`)."""


def row_item_name(phrase: str, like: str = "") -> str:
    """The row item of an operand phrase ('row:contract assets'); `like`: the line item the phrase also reads as
    ('row:net cash used in operating activities@cfo'), whose statement, sign and period kind the row keeps."""
    words = " ".join(re.findall(r"[a-z0-9&']+", phrase.lower().replace("’", "'")))
    return ROW + words + (f"@{like}" if like else "")


_DIRECTION = (r"(?:(?:provided by|used in|generated by|from)(?:\s*\((?:provided by|used in|generated by)\))?|"
              r"\((?:provided by|used in|generated by)\) (?:provided by|used in|generated by))")
"""A cash flow's direction words, each printed form of the same row."""


@functools.lru_cache(maxsize=1024)
def line_item(name: str) -> LineItem:
    """`LINE_ITEMS[name]`, or for a row item the row whose label is its words, give or take "total", ", net", a
    plural's "s" and a parenthesis ("Interest expense (income), net"): in the statement of the line item it reads
    as, else in any primary statement (the sign as printed)."""
    if not name.startswith(ROW):
        return LINE_ITEMS[name]
    text, _, like = name[len(ROW):].partition("@")
    words = text.split()
    while len(words) > 1 and words[0] in ("total", "net"):
        words = words[1:]
    gap = r"(?:[\s,-]+|\s*\([^)]*\)[\s,-]*)"
    # a cash flow's direction as any filing prints it: "used in", "provided by", "provided by (used in)", "from"
    joined = re.sub(r"\b(?:provided by|used in|generated by)\b", "\x00", " ".join(words)).split()
    body = gap.join(_DIRECTION if w == "\x00" else re.escape(w) + ("s?" if w[-1:].isalpha() else "") for w in joined)
    label = rf"(?:total )?(?:net )?{body}(?:,? net)?(?: \([^)]*\))?(?:,? (?:net|total))?"
    if like in LINE_ITEMS:
        base = LINE_ITEMS[like]
        return LineItem(name, " ".join(words), base.statement, (label,), flow=base.flow, sign=base.sign,
                        per_share=base.per_share)
    return LineItem(name, " ".join(words), "", (label,), flow=True)


_COMPILED = {name: ([re.compile(rf"^(?:{p})$", re.I) for p in it.labels], [re.compile(p, re.I) for p in it.exclude])
             for name, it in LINE_ITEMS.items()}
_SECTIONS = {name: [re.compile(p, re.I) for p in it.sections] for name, it in LINE_ITEMS.items()}
_UNDER = {name: [(re.compile(rf"^(?:{a})$", re.I), re.compile(rf"^(?:{b})$", re.I)) for a, b in it.under]
          for name, it in LINE_ITEMS.items()}


def _compiled(item: str) -> tuple[list, list]:
    if item not in _COMPILED:  # a row item
        spec = line_item(item)
        _COMPILED[item] = ([re.compile(rf"^(?:{p})$", re.I) for p in spec.labels], [])
        _SECTIONS[item], _UNDER[item] = [], []
    return _COMPILED[item]


@functools.lru_cache(maxsize=65_536)  # pure; the reader scores every row label of a filing's statements per item
def _norm(label: str) -> str:
    t = label.lower().replace("’", "'").replace("\u2014", "-").replace("\u2013", "-")
    t = re.sub(r"\s*\((?:note|notes) [\w ,]+\)", "", t)
    t = t.replace("/(", " (").replace(")/", ") ")  # 'income/(loss)' -> 'income (loss)'

    t = re.sub(r"\s+", " ", t).strip(" :,.")
    t = re.sub(r"^(?:less:?|add:?|plus:?)\s+", "", t)
    return t


@functools.lru_cache(maxsize=131_072)  # pure; the reader scores every row of every table it read, per input
def match_score(item: str, label: str, section: Optional[str] = None) -> float:
    """How well a row label carries `item`: 1.0 for its first (most specific) pattern, falling by 0.02 per
    later pattern down to 0.8; 0 when no pattern matches or an exclusion does. An item with `sections`
    (EPS) takes its last, bare pattern ('Diluted') only from a row whose `section` heading matches one."""
    pats, excl = _compiled(item)
    t = _norm(label)
    if not t or any(x.search(t) for x in excl):
        return 0.0
    bare = len(pats) - 1 if _SECTIONS[item] else len(pats)
    for k, rx in enumerate(pats[:bare]):
        if rx.match(t):
            return max(0.8, 1.0 - 0.02 * k)
    if bare < len(pats) and pats[bare].match(t) and section and any(rx.search(_norm(section)) for rx in _SECTIONS[item]):
        return 0.95
    if section and any(srx.match(_norm(section)) and lrx.match(t) for srx, lrx in _UNDER[item]):
        return 0.9
    return 0.0


INCOME_ORDER = {name: rank for rank, names in enumerate((
    ("revenue",), ("cogs",), ("gross_profit",),
    ("sga", "sales_marketing", "general_administrative", "rnd", "total_costs_expenses"), ("operating_income",),
    ("interest_expense",), ("pretax_income",), ("income_tax",), ("net_income",))) for name in names}
"""The income statement's lines from the top down: a line is computed after those above it ("net income after
taxes" is net income)."""


def item_in_question(question: str, candidates: Optional[list[str]] = None) -> list[tuple[int, str]]:
    """Line items a question names: (position in the question, item), in order of appearance."""
    out = []
    q = question.lower().replace("’", "'")
    for name in candidates or list(LINE_ITEMS):
        for p in LINE_ITEMS[name].question:
            m = re.search(p, q)
            if m:
                out.append((m.start(), name))
                break
    return sorted(out)
