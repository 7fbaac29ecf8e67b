"""One operand of a formula written in words, resolved: a line item at a period, the average of a balance, a number,
a metric the question defines or the catalog knows (written out), or `Unknown`.

    resolve("D&A from the cash flow statement", {})       # Item('depreciation_amortization')
    resolve("beginning total assets", {})                  # Item('total_assets', offset=-1)
    resolve("the average of opening and closing inventory", {})   # Average(Item('inventory'))
    resolve("total widgets sold", {})                      # Unknown('total widgets sold')

The line item is the one whose row label the phrase is (`line_items.match_score`), else the one a question pattern
finds in it with the fewest words left over; words left over must be the kind that do not change the measure
(where it is reported, "unadjusted", "expense", "GAAP"), else the operand is unknown: a measure finrag does not read
is never replaced by the nearest line item it does. A word one edit from a word of the line items' labels
("opertaing") is read as that word (`spelling.corrected`) when the phrase resolves to nothing as written.
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.state.formula import Average, BinOp, Call, Expr, Item, Number, Unknown
from finrag.tools.question.spelling import corrected
from finrag.tools.vocabulary.catalog import CATALOG
from finrag.tools.vocabulary.dates import MONTH_WORDS
from finrag.tools.vocabulary.line_items import LINE_ITEMS, match_score

__all__ = ["SUBJECT", "clean_phrase", "resolve", "name_key", "shifted", "split_and", "year_number"]

_WHERE = re.compile(r"(?i)\b(?:as )?(?:(?:reported|shown|presented|stated|found|disclosed|given|tagged|printed) )?(?:in|on|"
                    r"from|per|of|within) (?:the )?(?:filing's )?(?:consolidated )?(?:statements? of cash flows?|cash[- ]flow "
                    r"statement|balance sheet|statements? of (?:financial position|operations|income|earnings)|income "
                    r"statement|p&l|10-?[kq]|(?:foot)?notes?(?: to (?:the )?(?:consolidated )?financial statements)?|"
                    r"md&a|management's discussion(?: and analysis)?|filing|financial statements)\b")
_DURATION = r"(?:three|six|nine|twelve|3|6|9|12)[- ]months?"
_PERIOD = re.compile(rf"(?i)\b(?:(?:for|in|during|over|of)\s+)?(?:the\s+)?(?:first\s+)?{_DURATION}(?:\s+(?:ended|ending|to|"
                     r"through|period))?\b|\b(?:for|in|during|over)\s+the\s+(?:first\s+)?(?:half|quarter|nine months)\b|"
                     r"\b(?:h[12]|[369]m|ytd|year[- ]to[- ]date|first half)\b|\b[1-4]q\s*'?\d\d(?:\d\d)?\b|\b[12]h\s*'?\d\d(?:\d\d)?\b|"
                     rf"\b(?:(?:at|as of|on|for|ended|ending)\s+)?{MONTH_WORDS}\.? \d{{1,2}}(?:,? (?:19|20)\d\d)?\b|"
                     r"\bbetween (?:fy ?|fiscal (?:year )?)?['’]?\d{2,4} and (?:fy ?|fiscal (?:year )?)?['’]?\d{2,4}\b|"
                     r"\b(?:for|in|during|at|as of|over) (?:the )?(?:fiscal )?(?:year|period|quarter)(?: end(?:ed)?)?\b|"
                     r"\bq[1-4]\s*(?:fy\s*)?'?\d{2,4}\b|"
                     r"\b(?:for|in|at) (?:fy|fiscal ?)?['’]?\d{2,4}\b|\bfy ?\d{2,4}\b|\b(?:19|20)\d{2}\b|"
                     rf"\b(?:(?:at|as of|by)\s+)?(?:the\s+)?(?:end|close)\s+of\s+(?:the\s+)?(?=(?:fy\s*'?\d|fiscal\s+(?:year\s+)?"
                     rf"(?:19|20)\d\d|q[1-4]|[1-4]q|[12]h|(?:19|20)\d\d|{MONTH_WORDS}))")
"""A period written beside an operand; "at (the) end of FY23" is its date as much as "FY23" is (the words before a
dated token are its preposition, never the operand's)."""
_BEGIN = re.compile(r"(?i)\b(?:beginning(?: of (?:the )?(?:fiscal )?year)?|opening|start(?:ing)?(?: of (?:the )?(?:fiscal )?"
                    r"year)?|prior[- ](?:fiscal[- ])?year(?:[- ]end)?(?:'s)?|previous[- ](?:fiscal[- ])?year(?:[- ]end)?(?:'s)?|last year'?s?|"
                    r"year[- ]ago)(?!\w)")
_END = re.compile(r"(?i)\b(?:ending|closing|end(?:ing)? of (?:the )?(?:fiscal )?year|year[- ]end|current[- ](?:year|quarter|period)|"
                  r"this year'?s?)\b")
_AVERAGE = re.compile(r"(?i)^(?:the )?(?:simple )?(?:average|avg\.?|mean)(?: of)?\s+(.+)$")
_AVERAGE_WORDS = re.compile(r"(?i)\b(?:the|of|its|balances?|beginning|ending|opening|closing|start|end|begin|"
                            r"(?:end-of-)?year(?:[- ]end)?s?|prior|previous|current|two|2|and|between|at|over|for|"
                            r"fiscal|period|(?:fy ?)?(?:19|20)\d\d)\b|-")
_FILLER = {"the", "a", "an", "its", "their", "company", "company's", "companys", "firm's", "total's", "reported",
           "gaap", "unadjusted", "consolidated", "expense", "expenses", "spend", "spending", "cost", "costs", "amount", "amounts", "figure",
           "value", "balance", "balances", "line", "item", "of", "from", "in", "on", "for", "at", "to", "year",
           "period", "quarter", "quarterly", "fiscal", "net", "us", "usd", "dollars", "dollar", "$", "and", "as", "is", "was",
           "then", "by", "that", "this", "it", "which"}
_NUMBERS = {"zero": 0.0, "nothing": 0.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "twelve": 12.0, "one hundred": 100.0,
            "a hundred": 100.0, "hundred": 100.0}


def name_key(text: str) -> str:
    """A defined name as compared: lower case, words only ("Working-capital ratio" -> 'working capital ratio')."""
    return " ".join(re.findall(r"[a-z0-9&%]+", text.lower().replace("’", "'").replace("'s", "")))


def clean_phrase(phrase: str) -> str:
    """The phrase without the company's possessive, where it is reported and its period (how an answer names it)."""
    return _clean(phrase)


_FISCAL = re.compile(r"(?i)(?<![\w'])(?<!\bof\s)(?<!\bthe\s)(?<!\bbetween\s)(?<!\band\s)(?<!\bfrom\s)(?<!\bto\s)(?:(?:in|for|during)\s+)?(?:fiscal(?:\s+year)?|fy|q[1-4]|h[12]|[369]m|[1-4][qh])\s*"
                     r"(?:fy\s*)?(?:'\d\d|(?:19|20)?\d\d)(?![\w'])")


def _clean(phrase: str) -> str:
    t = re.sub(r"⟦[^⟧]*⟧", " ", phrase).replace("’", "'").strip(" .,;:?!\"'")
    t = re.sub(r"(?i)^(?:the|a|an|its|their|[\w&.-]+'s?)\s+(?=\w)", "", t) if re.match(r"(?i)^(?:the|a|an|its|their)\b", t) \
        else re.sub(r"^[A-Z][\w&.-]*'s?\s+", "", t)  # "Apple's net income": the company's name is no operand word
    t = _FISCAL.sub(" ", t)  # "fiscal 2024", "H1'25", "FY23" (not "end of FY23", `_PERIOD`'s): the period's words
    t = _PERIOD.sub(" ", t)  # the period first: "on the June 30, 2025 balance sheet" is where, once undated
    t = _WHERE.sub(" ", " ".join(t.split()))
    t = _PERIOD.sub(" ", t)
    t = _FISCAL.sub(" ", t)  # what is left of a period: "fiscal 2024", "H1'25", "FY23" are no words of the operand
    return re.sub(r"\s+,", ",", " ".join(t.split())).strip(" .,;:")


def resolve(phrase: str, defined: dict[str, Expr], anchor: Optional[int] = None) -> Expr:
    """The operand `phrase` names (see the module docstring); `anchor`: the latest year the formula writes, from
    which a dated operand's period offset is counted ("inventories at Dec 31, 2023" is -1 against 2024)."""
    text = re.sub(r"(?i)^(?:and|then|plus|,)\s+|\s+(?:and|then)$", "", phrase.strip(" ,;")).strip()
    both = re.search(r"(?i)⟦\s*(?:both\s+)?(?:the\s+)?current and (?:the\s+)?non-?current(?:\s+portions?)?\s*⟧", text)
    if both:  # "term debt (both the current and the non-current portion)": the two rows' sum
        base = " ".join(text.replace(both.group(0), " ").split())
        return BinOp(op="+", left=resolve(f"current {base}", defined, anchor),
                     right=resolve(f"non-current {base}", defined, anchor))
    text = re.sub(r"⟦([^⟧]*)⟧", lambda m: f" {m.group(1)} " if _is_period(m.group(1)) else m.group(0), text)
    twice = _label_twice(text, defined, anchor)
    if twice is not None:
        return twice
    side = re.fullmatch(r"(?i)\s*(.+?)\s*⟦\s*(?:the\s+)?((?:non-?|long-term |short-term )?current|long-term|short-term)"
                        r"(?:\s+portion)?\s*⟧\s*", text)
    if side:  # "term debt (current)", "term debt (non-current)": the qualifier names which row, it is no gloss
        text = f"{side.group(2)} {side.group(1)}"
    if "⟦" in text:  # a gloss: without it, else its words in place ("total cost (of revenue)")
        got = _resolve(" ".join(re.sub(r"⟦[^⟧]*⟧", " ", text).split()), defined, anchor)
        if isinstance(got, Unknown):
            got = _resolve(" ".join(text.replace("⟦", " ").replace("⟧", " ").split()), defined, anchor)
        text = " ".join(re.sub(r"⟦[^⟧]*⟧", " ", text).split())
    else:
        got = _resolve(text, defined, anchor)
        if isinstance(got, Unknown) and "(" in text:
            got = _resolve(" ".join(re.sub(r"\([^()]*\)", " ", text).split()), defined, anchor)
    if isinstance(got, Unknown):  # "total current liabilities, as of September 28, 2024": the operand ends at the clause
        head = re.split(r",\s|\s[—–-]\s|;\s|\?", text, maxsplit=1)[0]
        if head != text and head.strip() and not _label_comma(text[len(head):]):
            cut = _resolve(head, defined, anchor)
            if not isinstance(cut, Unknown):
                return cut
        if " and " in text:  # "cash and cash equivalents and current marketable securities": the sum of its items
            parts = split_and(text, defined, anchor)
            if len(parts) >= 2 and all(not isinstance(_resolve(p, defined, anchor), Unknown) for p in parts):
                total: Expr = _resolve(parts[0], defined, anchor)
                for p in parts[1:]:
                    total = BinOp(op="+", left=total, right=_resolve(p, defined, anchor))
                return total
        if got.offset or (_year_of(text.lower()) is not None and _year_of(got.phrase.lower()) is None):
            return got  # a row dated in its own words ("operating outlays FY2023"): its words, at that period
        return Unknown(phrase=text or phrase.strip() or "(nothing)")
    return got


def _label_twice(text: str, defined: dict[str, Expr], anchor: Optional[int]) -> Optional[Expr]:
    """A phrase that writes the same words twice across an "and" names two rows, whatever one label pattern would
    swallow ("current portion of debt and finance leases and debt and finance leases" is the current row plus the
    long-term one; "short-term debt and current portion of long-term debt", one row's label, repeats no two words)."""
    words = text.split()
    for i, w in enumerate(words):
        if w.lower() != "and" or i in (0, len(words) - 1):
            continue
        left, right = " ".join(words[:i]), " ".join(words[i + 1:])
        lw, rw = [x.lower().strip(",") for x in words[:i]], [x.lower().strip(",") for x in words[i + 1:]]
        pairs = {tuple(lw[k:k + 2]) for k in range(len(lw) - 1)}
        if not any(tuple(rw[k:k + 2]) in pairs and "and" not in rw[k:k + 2] for k in range(len(rw) - 1)):
            continue
        a, b = _resolve(left, defined, anchor), _resolve(right, defined, anchor)
        if isinstance(a, Item) and isinstance(b, Item) and a.item != b.item:
            return BinOp(op="+", left=a, right=b)
    return None


_CLAUSE_START = re.compile(r"(?i)(?:as|at|for|in|on|during|ended|ending|net|excluding|including|incl|excl|ex|which|where|"
                           r"i\.e|e\.g|from|per|the|each|both|all|then|so|that|this|these|those|round(?:ed)?|expressed|"
                           r"to|with|without|before|after|not|only|see|reported|shown|less|plus|minus|times|over|"
                           r"divided|multiplied)\b")


def _label_comma(rest: str) -> bool:
    """Is the comma that starts `rest` a list's inside one row's label ("cash, cash equivalents and short-term
    investments"), not the end of the operand before a clause ("total current liabilities, as of ...")? A label
    goes on with words of a list (no period, no clause word, an "and" before its last item)."""
    m = re.match(r",\s+(.+)$", rest)
    if not m:
        return False
    tail = m.group(1).strip(" .")
    return bool(re.search(r"\band\b", tail)) and not _CLAUSE_START.match(tail) and not re.search(r"[\d,;:()⟦]", tail) \
        and not _PERIOD.search(tail) and len(tail.split()) <= 6


def _is_period(words: str) -> bool:
    """Are the words a period and nothing else ("9M FY24", "H1 2025", "Q2 2024"; not "cash flow statement")?"""
    low = words.lower()
    return _year_of(low) is not None and not _PERIOD.sub(" ", low).strip(" ,.;:")


def shifted(expr: Expr, by: int) -> Expr:
    """The expression with every operand's period moved by `by` years."""
    if isinstance(expr, (Item, Unknown)):
        return expr.model_copy(update={"offset": expr.offset + by})
    if isinstance(expr, Average):
        return expr.model_copy(update={"of": expr.of.model_copy(update={"offset": expr.of.offset + by})})
    if isinstance(expr, BinOp):
        return expr.model_copy(update={"left": shifted(expr.left, by), "right": shifted(expr.right, by)})
    if isinstance(expr, Call):
        return expr.model_copy(update={"args": [shifted(a, by) for a in expr.args]})
    return expr


def split_and(text: str, defined: dict[str, Expr], anchor: Optional[int] = None, listed: bool = False) -> list[str]:
    """A list "A, B and C" split into the fewest operands, each the longest run of pieces that is one ("research and
    development", "depreciation and amortization (cash flow statement)" stay one); words finrag does not read stay
    one row's label unless `listed` (the question says it lists: "the sum of A and B")."""
    parts = re.split(r"(\s*,\s*(?:and\s+)?|\s+and\s+)", text)
    pieces, seps = parts[0::2], parts[1::2]
    if not all(p.strip() for p in pieces):
        pieces = [p for p in pieces if p.strip()]
        seps = [" and "] * (len(pieces) - 1)

    def run(i: int, j: int) -> Optional[str]:
        """Pieces i..j-1 as one operand: as written, their commas kept ("selling, general and administrative"), or
        joined by "and" ("cash, cash equivalents" as "cash and cash equivalents"); None when neither reads as one."""
        written = pieces[i] + "".join(seps[k] + pieces[k + 1] for k in range(i, j - 1))
        return next((t for t in (written, " and ".join(pieces[i:j]))
                     if not isinstance(_resolve(_unglossed(t), defined, anchor), Unknown)), None)

    out: list[str] = []
    i = 0
    while i < len(pieces):
        j, text_ = next(((j, t) for j in range(len(pieces), i, -1) if (t := run(i, j)) is not None),
                        (i + 1, pieces[i]))
        out.append(text_)
        i = j
    if not listed and any(isinstance(_resolve(_unglossed(p), defined, anchor), Unknown) for p in out):
        # a row's own label ("proceeds from property and equipment sales and incentives"), unless the parts repeat
        # their first words ("principal repayments of finance leases and principal repayments of ...")
        heads = {p.split()[0].lower() for p in pieces if p.split()}
        return pieces if len(pieces) > 1 and len(heads) == 1 and len(next(iter(heads))) >= 4 else [text]
    return out


def _unglossed(text: str) -> str:
    return " ".join(re.sub(r"\([^()]*\)|⟦[^⟧]*⟧", " ", text).split())


def _year_of(low: str) -> Optional[int]:
    quarter = re.search(r"\bq[1-4]\s*'(\d\d)\b|\bfy\s*'?(\d\d)\b|\b(?:q[1-4]|h[12]|[369]m)\s*(?:fy\s*)?'?(\d\d)\b|"
                        r"\b[1-4][qh]\s*'?(\d\d)\b", low)  # "2Q25", "1H25"
    if quarter:
        return 2000 + int(next(g for g in quarter.groups() if g))
    quarter = re.search(r"\b(?:q[1-4]|h[12]|[369]m)\s*(?:fy\s*)?((?:19|20)\d\d)\b", low)
    if quarter:  # "Q2 2024 revenue", "OI (H1 2024)", "NI (9M FY23)": the operand's own period
        return int(quarter.group(1))
    years = set(re.findall(r"\b((?:19|20)\d\d)\b", low))
    if len(years) == 1 and not re.search(r"(?i)\b(?:between|from|through|since|until)\b", low):
        return int(years.pop())  # "2023 revenue", "revenue in 2023": one year, the operand's own
    m = re.search(rf"(?i)\b(?:{MONTH_WORDS}\.? \d{{1,2}},? |fy ?|fiscal (?:year )?|year[- ]end |end of (?:fy ?|fiscal )?)"
                  r"((?:19|20)\d\d)\b", low)
    return int(m.group(1)) if m else None


SUBJECT = "@subject"
"""The key of `defined` that holds the measure a bare period operand refers to ("(current - prior) / prior" of "total
revenues"; "(beginning + ending) / 2" of "average inventories")."""
_PERIOD_ONLY = re.compile(r"(?i)^(?:(?:at|as of|on|for|by)\s+)?(?:the\s+)?(?:(?:end|close)\s+of\s+(?:the\s+)?(?=fy|fiscal|"
                          r"q[1-4]|'|\d|[a-z]{3,9}\.? \d))?(?:(?P<year>fy\s*'?\d\d\b|(?:fy|fiscal(?: year)?)?\s*'?(?:(?:19|20)\d\d|"
                          rf"'\d\d)|{MONTH_WORDS}\.? \d{{1,2}},? (?:19|20)\d\d)|"
                          r"q[1-4]\s*(?:fy\s*)?'?(?P<qyear>\d{2}|\d{4})|(?P<now>current|ending|closing|this year'?s?|"
                          r"current (?:year|period|quarter)|end of (?:the )?(?:year|period))|(?P<then>prior|previous|"
                          r"beginning|opening|last year'?s?|prior (?:year|period|quarter)|year[- ]ago|start of (?:the )?"
                          r"(?:year|period)))(?:\s+(?:period|year|quarter|balance|value|figure|amount))?$")


_HALF_ONLY = re.compile(r"(?i)^(?:h[12]|[1-4][qh]|[369]m)\s*(?:fy\s*)?'?(?:\d{2}|\d{4})$")
"""A half or nine months alone ("H1'24", "9M 2023"): a bare period as `_PERIOD_ONLY`'s quarters are."""


def year_number(text: str) -> Optional[int]:
    """A year written "2024", "FY24", "'24", "Q2'25" or "2Q25" (as 2025), else None."""
    m = re.search(r"((?:19|20)\d\d)|'(\d\d)\b|\bfy\s*(\d\d)\b|q[1-4]\s*'?(\d\d)\b|\b[1-4][qh]\s*'?(\d\d)\b", text.lower())
    if not m:
        return None
    if m.group(1):
        return int(m.group(1))
    return 2000 + int(next(g for g in m.groups()[1:] if g))


def _period_operand(text: str, defined: dict[str, Expr], anchor: Optional[int]) -> Optional[Expr]:
    """A bare period ("2023", "prior", "beginning", "Q2'24") as the subject measure at that period."""
    subject = defined.get(SUBJECT)
    m = _PERIOD_ONLY.match(text.strip(" .,;:?()")) or _HALF_ONLY.match(text.strip(" .,;:?()"))
    if not isinstance(subject, (Item, Unknown)) or not m:
        return None
    if m.groupdict().get("now"):
        offset = 0
    elif m.groupdict().get("then"):
        offset = -1
    else:
        year = year_number(text)
        if year is None or anchor is None or not 0 <= anchor - year <= 2:
            return None
        offset = year - anchor
    if isinstance(subject, Unknown):  # a row finrag has no name for keeps its words, for the filing's rows
        return subject.model_copy(update={"offset": offset, "phrase": _clean(subject.phrase) or subject.phrase})
    return subject.model_copy(update={"offset": offset, "phrase": text.strip()})


def _resolve(text: str, defined: dict[str, Expr], anchor: Optional[int]) -> Expr:
    period = _period_operand(text, defined, anchor)
    if period is not None:
        return period
    low = text.lower().replace("’", "'")
    dated = _year_of(low)
    cleaned = _clean(text)
    low = cleaned.lower()
    if not low:
        return Unknown(phrase=text or "(nothing)")
    number = re.fullmatch(r"\$?\s*(\d+(?:,\d{3})*(?:\.\d+)?)\s*%?", low)
    if number:
        return Number(value=float(number.group(1).replace(",", "")))
    if low in _NUMBERS:
        return Number(value=_NUMBERS[low])
    key = name_key(low)
    offset = dated - anchor if dated is not None and anchor is not None and 0 <= anchor - dated <= 2 else 0
    for name, expr in sorted(defined.items(), key=lambda kv: -len(kv[0])):  # a name the question defines ("EBITDA")
        hit = re.search(rf"\b{re.escape(name)}\b", key) if name and name != SUBJECT else None
        if (hit and _leftover_ok(key, hit.span())) or (name != SUBJECT and key == _initials(name)):
            return shifted(expr, offset) if offset else expr  # "WC at Dec 31, 2023": the defined measure then
    m = _AVERAGE.match(low)
    if m:
        words = _AVERAGE_WORDS.sub(" ", m.group(1))
        inner = _item(words) or _item(m.group(1).strip())  # a label with "and" of its own ("property, plant and ...")
        subject = defined.get(SUBJECT)
        if inner is None and not words.strip() and isinstance(subject, Item):
            inner = subject  # "the average of the opening and closing balances": of the measure the question names
        if inner is not None and not LINE_ITEMS[inner.item].flow:
            return Average(of=inner.model_copy(update={"offset": 0}))
        return Unknown(phrase=text)
    change = re.match(r"(?i)^(?:the )?(?:year[- ]over[- ]year )?(?:change|increase) in\s+(.+)$", low)
    if change:  # "change in inventory between FY2018 and FY2019": this period-end less the one before
        inner = _item(change.group(1))
        if inner is not None:
            return BinOp(op="-", left=inner, right=inner.model_copy(update={"offset": -1}))
    offset = -1 if _BEGIN.search(low) else 0
    if dated is not None and anchor is not None and 0 <= anchor - dated <= 2:
        offset = dated - anchor
    bare = _END.sub(" ", _BEGIN.sub(" ", low))
    item = _item(bare)
    if item is not None:
        return item.model_copy(update={"offset": offset, "phrase": text})
    metric = _metric(bare)
    if metric is not None:
        return metric
    fixed = corrected(text)  # "opertaing income": the line item it misspells, one edit from a word of its labels
    if fixed != text:
        again = _resolve(fixed, defined, anchor)
        if not isinstance(again, Unknown):
            return again
    if dated is not None and anchor is not None and 0 <= anchor - dated <= 2 and low != text.lower() and \
            len(set(re.findall(r"(?:19|20)\d\d|'\d\d\b", text))) == 1 and \
            not re.search(r"(?i)\b(?:between|from|through|since|until|change|growth|increase|decrease)\b", text):
        return Unknown(phrase=cleaned, offset=dated - anchor)  # "operating outlays FY2023": a row at its own period
    return Unknown(phrase=text)


def _initials(name: str) -> str:
    """A defined name's initials, as an abbreviation of it ("wc" for "working capital"); "" for one word."""
    words = name.split()
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


def _leftover_ok(text: str, span: tuple[int, int], item: str = "") -> bool:
    """Are the words of `text` outside `span` filler (or words of the item's own row labels: "trade", "notes" for
    receivables)?"""
    rest = (text[:span[0]] + " " + text[span[1]:]).lower()
    own = _LABEL_WORDS.get(item, set())
    words = [w for w in re.findall(r"[a-z0-9&$']+", rest) if w not in _FILLER and w not in own]
    return not words


_LABEL_WORDS = {name: set(re.findall(r"[a-z&]{3,}", " ".join(spec.labels))) - {"total"}
                for name, spec in LINE_ITEMS.items()}
_SHORT = {"cfo": "cfo", "ocf": "cfo", "operating cash flow": "cfo", "operating cash flows": "cfo",
          "cash from operating activities": "cfo", "dividends": "dividends_paid", "cash dividends": "dividends_paid",
          "buybacks": "share_repurchases", "share buybacks": "share_repurchases", "repurchases": "share_repurchases",
          "net earnings": "net_income", "net loss": "net_income", "ni": "net_income", "oi": "operating_income", "revenues": "revenue", "sales": "revenue",
          "cost of revenue": "cogs", "opex": "", "ebit": "operating_income", "pp&e": "ppe_net",
          "current liabilities": "total_current_liabilities", "current assets": "total_current_assets"}
"""Short forms an operand takes that no row label or question pattern reads alone."""


_OWNERS = re.compile(r"(?i)\b(?:share|stock|equity ?)(?:owner|holder)s?(?:'s?|’s?)?(?=\s|$)(?<!shareholders')")
"""The owners' word filers vary ("stockholders'", "shareowners'", "shareholder"), written as one."""


def _item(text: str) -> Optional[Item]:
    """The line item `text` names, or None (see the module docstring)."""
    t = " ".join(text.split()).strip(" .,;:")
    if not t:
        return None
    if _SHORT.get(t):
        return Item(item=_SHORT[t])
    anded = re.sub(r"\s+&\s+", " and ", t)
    if anded != t:  # "depreciation & amortization": an ampersand between words is "and"
        return _item(anded)
    owners = _OWNERS.sub("shareholders'", t)
    if owners != t:  # "shareowners' equity", "stockholders' deficit": the owners' one word, however the filer writes it
        return _item(owners)
    scored = [(match_score(name, t), name) for name in LINE_ITEMS]
    best = max(scored)
    if best[0] > 0:
        return Item(item=best[1])
    hits: list[tuple[int, int, str]] = []
    for name, spec in LINE_ITEMS.items():
        for p in spec.question:
            m = re.search(p, t, re.I)
            if m and _leftover_ok(t, m.span(), name):
                hits.append((-(m.end() - m.start()), m.start(), name))
                break
    if hits:
        return Item(item=min(hits)[2])
    for name, spec in LINE_ITEMS.items():  # the answer's own name for it ("total shareholders' equity")
        if name_key(spec.display) == name_key(t):
            return Item(item=name)
    return None


def _metric(text: str) -> Optional[Expr]:
    """A catalog metric the words name, written out as its expression (only when nothing but filler is left)."""
    for entry in CATALOG.values():
        for p in entry.names:
            m = re.search(p, text, re.I)
            if m and _leftover_ok(text, m.span()):
                return entry.expression
    return None
