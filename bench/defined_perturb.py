"""Robustness of question-defined metrics (issue 47, round f55d): mechanical paraphrases of the defined sets whose
gold is unchanged, run through HDRR offline and judged as `bench.defined_blind` judges, rates per transform family.

    python -m bench.defined_perturb --index /work/main/runs/s53/edgar --out runs/perturb.json
    python -m bench.defined_perturb --write runs/perturbed.jsonl        # the paraphrases only, no run
    python -m bench.defined_perturb --reading --per-family 0 --show      # the question model's readings only (fast)
    python -m bench.defined_perturb --index IDX --families units,periods --per-family 80 --seed 7 --out x.json

Each family rewrites one aspect of a question and leaves everything else (and so the gold) as it is; a transform
that finds nothing of its aspect in a question does not apply to it (the question is not in that family's
sample). The families:
* `order`: the definition sentence moved after (or before) the question sentence.
* `operators`: "divided by" as over, "/", relative to, as a share of, per dollar of; "minus" / "less" as net of,
  less, minus, "-"; "plus" as "+", together with; "as a percentage of" as "as a % of" (percent questions only).
* `syntax`: "defined as" as computed as, calculated as, "=", ":=", "is"; "Define X as A" as "Let X be A", "X := A";
  a two-operand "A divided by B" as "take A and divide it by B", "numerator A, denominator B", "the ratio of A to B".
* `units`: USD millions as $M, $mm, "in millions of dollars", "($ in millions)"; billions as $bn, USD bn;
  percent as %, pct, "in percent"; a ratio gets "(x)" or "in times".
* `rounding`: "Round to two decimals" as "2 dp", "to 2 decimal places", "(2 d.p.)", "rounded to two decimal places".
* `periods`: FY2024 as fiscal 2024, FY24, fiscal year 2024, the fiscal year ended <its end>; "three months ended"
  as "quarter ended", "3 months ended"; "six/nine months ended" as "6M/9M ended", "year-to-date period ended";
  "at December 31, 2024" as "at year-end 2024" (December year ends); one period phrase moved to the front
  ("FY2024: ...").
* `company`: the company as its ticker, its name, its name in lower case, possessive added or dropped.
* `punctuation`: sentences on their own lines, a bulleted definition, the question mark dropped or doubled, the
  operands' words in title case, the whole question in lower case but the company.
* `name_period` (session 56): the question's one period phrase moved into the defined name's slot ("Define X for
  FY2024 as A / B", "Define Apple's FY2024 X as ...").
* `new_syntax` (session 57): one definition in syntax none of the older sets uses: another introducer ("X is given
  by A", "We compute X as A", "Read X as A", "X here means A", "X, i.e. A", "X, which we take to be A"), an operator
  word none wrote ("÷", "as a fraction of", "after subtracting", "deducting", "B divided into A"), or a sum's operands
  in the other order.
* `synonyms` (session 56): one operand's words as another name of the same line item (stockholders' / shareholders' /
  shareowners' equity, net cash provided by operating activities / operating cash flow / CFO, capex / purchases of
  property and equipment, SG&A, R&D, D&A, current assets, COGS).

Seeded and reproducible: each (question, family) draws its variant from `random.Random(f"{seed}:{id}:{family}")`,
so a question's paraphrase does not depend on which others are sampled. The sample per family is the first
`--per-family` applicable questions in a seeded shuffle. The same questions unperturbed are run too, so each
family's rates sit beside the originals' rates on the same questions ("delta").

`--reading` runs no retrieval: it compares what the question model (`read_question`) reads from each paraphrase
with what it reads from the original (the formula's expression, unit and problems, the decimals, the years, the
year-to-date months). A paraphrase read differently is a cause in the question model, found in seconds.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

from bench.defined_blind import judge
from finrag.tools.vocabulary.dates import MONTH_NAMES

SETS = ("defined_blind47", "defined_blind47c", "defined_blind47d", "defined_blind53", "defined_blind54")
DATA = Path(__file__).resolve().parent / "data"
FAMILIES = ("order", "operators", "syntax", "units", "rounding", "periods", "company", "punctuation", "name_period",
            "synonyms", "new_syntax")

# the EDGAR filings' companies: the doc id's stem -> (ticker, name, the names a question may write)
COMPANIES = {
    "aapl": ("AAPL", "Apple", ("Apple Inc.", "Apple")), "apple": ("AAPL", "Apple", ("Apple Inc.", "Apple")),
    "amzn": ("AMZN", "Amazon", ("Amazon.com, Inc.", "Amazon.com", "Amazon")),
    "ba": ("BA", "Boeing", ("The Boeing Company", "Boeing")), "hubs": ("HUBS", "HubSpot", ("HubSpot, Inc.", "HubSpot")),
    "ibm": ("IBM", "IBM", ("IBM",)), "ko": ("KO", "Coca-Cola", ("The Coca-Cola Company", "Coca-Cola")),
    "meta": ("META", "Meta", ("Meta Platforms, Inc.", "Meta Platforms", "Meta")),
    "oracle": ("ORCL", "Oracle", ("Oracle Corporation", "Oracle")), "tsla": ("TSLA", "Tesla", ("Tesla, Inc.", "Tesla")),
}
MONTHS = MONTH_NAMES
_NUM_WORD = {1: "one", 2: "two", 3: "three", 4: "four", 0: "zero"}
Transform = Callable[[dict, random.Random], "str | None"]


def _company(q: dict) -> tuple[str, str, tuple[str, ...]] | None:
    return COMPANIES.get(re.split(r"[-.]", q["doc"])[0].lower())


def _sub_once(pattern: str, repl: str | Callable[[re.Match[str]], str], text: str, flags: int = 0) -> str | None:
    new, n = re.subn(pattern, repl, text, flags=flags)
    return new if n and new != text else None


def _choose(rng: random.Random, options: list[str], current: str) -> str:
    rest = [o for o in options if o.lower() != current.lower()]
    return rng.choice(rest or options)


# -- order ---------------------------------------------------------------------------------------------------------
_DEF = re.compile(r"(?i)\b(?:define[ds]?|defined as|computed as|calculated as|where\b|measured as)|:=|\s=\s")
_PRONOUN = re.compile(r"(?i)\b(?:it|its|that|this|they)\b")  # "What is it?" needs its definition first
_ASK = re.compile(r"(?i)\?\s*$|^\s*(?:what|how|compute|calculate|give|report|find)\b")


def sentences(text: str) -> list[str]:
    """The question's sentences (a period, question mark or exclamation mark and a space end one; "Inc." does not)."""
    parts = re.split(r"(?<!\bInc)(?<!\bCo)(?<!\bCorp)(?<=[.?!])\s+(?=[A-Z(])", text.strip())
    return [p for p in parts if p]


def order(q: dict, rng: random.Random) -> str | None:
    """Swap the definition's sentence with the question's sentence."""
    ss = sentences(q["question"])
    defs = [i for i, s in enumerate(ss) if _DEF.search(s) and not _ASK.search(s)]
    asks = [i for i, s in enumerate(ss) if _ASK.search(s) and not _DEF.search(s) and not _PRONOUN.search(s)]
    if len(defs) != 1 or len(asks) != 1:
        return None
    d, a = defs[0], asks[0]
    ss[d], ss[a] = ss[a], ss[d]
    return " ".join(ss)


# -- operators -----------------------------------------------------------------------------------------------------
_DIV = [" divided by ", " over ", " / ", " relative to ", " as a share of ", " per dollar of "]
_MINUS = [" minus ", " less ", " - ", " net of "]
_PLUS = [" plus ", " + ", " together with "]


def operators(q: dict, rng: random.Random) -> str | None:
    """Write each operator of one kind (all its occurrences) in another of its words."""
    text = q["question"]
    kinds = []
    if re.search(r" divided by | / ", text):  # "as a share of" asks a percentage: only where the gold is one
        kinds.append((r" divided by | / ", _DIV if q["unit"] == "percent" else [w for w in _DIV if "share" not in w]))
    if re.search(r" minus | less ", text) and not re.search(r"(?i)\bless than\b", text):
        # "net of" a number or of "the same ratio" is no phrase anyone writes
        net = not re.search(r"(?i) (?:minus|less) (?:\d|one\b|the same\b)", text)
        kinds.append((r" minus | less ", _MINUS if net else [w for w in _MINUS if "net" not in w]))
    if re.search(r" plus | \+ ", text):
        kinds.append((r" plus | \+ ", _PLUS))
    if q["unit"] == "percent" and re.search(r"(?i) as a percent(?:age)? of ", text):
        kinds.append((r"(?i) as a percent(?:age)? of ", [" as a % of ", " as a percentage of ", " as a percent of "]))
    if not kinds:
        return None
    pattern, words = rng.choice(kinds)
    current = re.search(pattern, text)
    word = _choose(rng, words, current.group(0) if current else "")
    return _sub_once(pattern, word, text)


# -- definition syntax ---------------------------------------------------------------------------------------------
_VERB = re.compile(r"(?i)\b(defined as|computed as|calculated as|measured as)\b")
_DEFINE_AS = re.compile(r"\b(Define|define) ([^.,;:?]{2,60}?) as ")
_EQ = re.compile(r"(?<=[A-Za-z)]) (=|:=) ")
_TWO = re.compile(r"(?P<lead>\b(?:defined as|computed as|calculated as|as|=|:=)\s+)"
                  r"(?P<a>[A-Za-z][\w'&\- ]{2,60}?) (?:divided by|/) (?P<b>[A-Za-z][\w'&\- ]{2,60}?)"
                  r"(?P<end>[.;?]|,\s|$)")
_OPS = re.compile(r"(?i)\b(plus|minus|less|times|over|divided|average|and)\b|[+*/()-]")


def syntax(q: dict, rng: random.Random) -> str | None:
    """The definition written another way: its verb, its "=" sign, or a two-operand ratio in words or by role."""
    text = q["question"]
    options: list[Callable[[], str | None]] = []
    if m := _VERB.search(text):
        verb = m.group(1)
        options.append(lambda: _sub_once(re.escape(verb), _choose(rng, ["defined as", "computed as", "calculated as",
                                                                        "measured as"], verb), text))
    if _DEFINE_AS.search(text):
        options.append(lambda: _sub_once(_DEFINE_AS.pattern, lambda m: rng.choice(
            [f"{'Let' if m.group(1)[0] == 'D' else 'let'} {m.group(2)} be ", f"{m.group(1)} {m.group(2)} := "]),
            text, 0))
    if m2 := _EQ.search(text):
        sign = m2.group(1)
        options.append(lambda: _sub_once(_EQ.pattern, f" {_choose(rng, ['=', ':=', 'is defined as'], sign)} ", text))
    if (m3 := _TWO.search(text)) and not _OPS.search(m3.group("a")) and not _OPS.search(m3.group("b")):
        a, b, lead = m3.group("a"), m3.group("b"), m3.group("lead")
        forms = [f"{lead}take {a} and divide it by {b}", f"{lead}a ratio with numerator {a} and denominator {b}",
                 f"{lead}the ratio of {a} to {b}"]
        options.append(lambda: text[:m3.start()] + rng.choice(forms) + m3.group("end") + text[m3.end():])
    rng.shuffle(options)
    for make in options:
        if new := make():
            return new
    return None


# -- units ---------------------------------------------------------------------------------------------------------
_UNIT_WORDS = {
    "usd_millions": (r"(?i)\b(?:in )?(?:USD|US\$|\$) ?(?:millions|million|mm|mn|M)\b|\bin millions(?: of (?:US )?"
                     r"dollars| USD)?\b|\bmillions of dollars\b",
                     ["in USD millions", "in $M", "in $mm", "in millions of dollars", "in $ millions", "USD mn"]),
    "usd_billions": (r"(?i)\b(?:in )?(?:USD|US\$|\$) ?(?:billions|billion|bn|B)\b|\bin billions(?: of (?:US )?"
                     r"dollars| USD)?\b",
                     ["in USD billions", "in $bn", "in $B", "in billions of dollars", "USD bn"]),
    "percent": (r"(?i)\b(?:as a percent(?:age)?|in percent|in %|percent|pct)(?! of)\b",
                ["as a percentage", "in %", "in percent", "pct", "as a percent"]),
}


def units(q: dict, rng: random.Random) -> str | None:
    """The answer's unit written in other words (the same scale: the gold's rounding stays the same)."""
    text = q["question"]
    if q["unit"] == "ratio":
        if re.search(r"(?i)\b(times|multiple)\b|\(x\)", text):
            return None
        tail = rng.choice([" Express it in times.", " Give it as a multiple (x)."])
        return text.rstrip() + tail
    spec = _UNIT_WORDS.get(q["unit"])
    if not spec or not (m := re.search(spec[0], text)):
        return None
    return text[:m.start()] + _choose(rng, spec[1], m.group(0)) + text[m.end():]


# -- rounding ------------------------------------------------------------------------------------------------------
_ROUND = re.compile(r"(?i)(?:\b(?:round(?:ed)?|rounding) to (?:the nearest )?)?\b(one|two|three|four|zero|\d)"
                    r"[ -]?(?:decimal places?|decimals?|dp\b|d\.p\.)")


def rounding(q: dict, rng: random.Random) -> str | None:
    """The asked decimals written another way."""
    text, dec = q["question"], q.get("decimals")
    if dec is None or not (m := _ROUND.search(text)):
        return None
    word = _NUM_WORD.get(dec, str(dec))
    forms = [f"{dec} dp", f"to {dec} decimal places", f"rounded to {word} decimal places", f"{dec} d.p.",
             f"round to {word} decimals", f"{word} decimals"]
    return text[:m.start()] + _choose(rng, forms, m.group(0)) + text[m.end():]


# -- periods -------------------------------------------------------------------------------------------------------
_FY = re.compile(r"\b(?:FY\s?(20\d\d|\d\d)|fiscal(?: year)? (20\d\d))\b(?![-/]\d)")
_MONTHS_ENDED = re.compile(r"(?i)\b(three|six|nine|3|6|9)[ -]months? (?:period )?ended\b")
_DATE = r"(?:" + "|".join(MONTHS) + r") \d{1,2}, 20\d\d"
_PERIOD_PHRASE = re.compile(r"(?i)(?:,\s*)?\b(?:for|in|during) (?:the )?(?:FY\s?(?:20)?\d\d|fiscal(?: year)? 20\d\d|"
                            r"(?:three|six|nine) months ended " + _DATE + r")\b")


def _year_end(q: dict, year: int) -> str | None:
    """The end of fiscal `year` in the question's filing, from the gold's input periods (a ~12-month duration)."""
    for i in q.get("inputs") or []:
        m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)\.\.(\d{4})-(\d\d)-(\d\d)", i.get("period", ""))
        if m and int(m.group(4)) == year and int(m.group(4)) * 12 + int(m.group(5)) - int(m.group(1)) * 12 - int(
                m.group(2)) >= 11:
            return f"{MONTHS[int(m.group(5)) - 1]} {int(m.group(6))}, {year}"
    return None


def periods(q: dict, rng: random.Random) -> str | None:
    """A period written another way, or one period phrase moved to the front."""
    text = q["question"]
    options: list[Callable[[], str | None]] = []
    if len(_FY.findall(text)) == 1 and (m := _FY.search(text)):
        year = int(m.group(1) or m.group(2))
        year += 2000 if year < 100 else 0
        forms = [f"FY{year}", f"FY{year % 100:02d}", f"fiscal {year}", f"fiscal year {year}"]
        options.append(lambda fy=forms: text[:m.start()] + _choose(rng, fy, m.group(0)) + text[m.end():])
        end = _year_end(q, year)
        if end and "10-k" in q["doc"].lower() and text[:m.start()].rstrip().lower().endswith(("for", "in", "during")):
            options.append(lambda: text[:m.start()] + f"the fiscal year ended {end}" + text[m.end():])
    if mm := _MONTHS_ENDED.search(text):
        n = {"three": 3, "six": 6, "nine": 9}.get(mm.group(1).lower(), 0) or int(mm.group(1))
        spans = {3: ["quarter ended", "3 months ended", "three-month period ended"],
                 6: ["6 months ended", "six-month period ended", "year-to-date period ended", "6M ended"],
                 9: ["9 months ended", "nine-month period ended", "year-to-date period ended", "9M ended"]}[n]
        options.append(lambda: text[:mm.start()] + rng.choice(spans) + text[mm.end():])
    if (dy := re.search(r"\b(at|as of) December 31, (20\d\d)\b", text)) and "10-k" in q["doc"].lower():
        options.append(lambda: text[:dy.start()] + rng.choice([f"at year-end {dy.group(2)}",
                                                                f"as of the {dy.group(2)} year-end"]) + text[dy.end():])
    if len(_PERIOD_PHRASE.findall(text)) == 1 and (mp := _PERIOD_PHRASE.search(text)) and mp.start() > 0:
        phrase = re.sub(r"(?i)^(?:,\s*)?(?:for|in|during) ", "", mp.group(0))
        rest = (text[:mp.start()] + text[mp.end():]).strip()
        options.append(lambda: f"{phrase[0].upper()}{phrase[1:]}: {rest}")  # the rest as written (its company's case)
    rng.shuffle(options)
    for make in options:
        if new := make():
            return new
    return None


# -- company -------------------------------------------------------------------------------------------------------
def company(q: dict, rng: random.Random) -> str | None:
    """The company written as its ticker, its name, its name in lower case, or with the possessive toggled."""
    c = _company(q)
    if not c:
        return None
    ticker, name, names = c
    text = q["question"]
    for alias in (*names, ticker):
        m = re.search(r"(?<![\w$])" + re.escape(alias) + r"(?:'s)?(?![\w-])", text)
        if m:
            break
    else:
        return None
    said = m.group(0)
    possessive = said.endswith("'s")
    options = [ticker, name, name.lower()] if not possessive else [f"{ticker}'s", f"{name}'s", f"{name.lower()}'s",
                                                                  said[:-2]]
    if not possessive and re.match(r" [a-z]", text[m.end():m.end() + 2]):
        options.append(f"{name}'s")
    return text[:m.start()] + _choose(rng, options, said) + text[m.end():]


# -- punctuation and case ------------------------------------------------------------------------------------------
def punctuation(q: dict, rng: random.Random) -> str | None:
    """Line breaks, bullets, question marks, title-cased operands, lower case."""
    text = q["question"]
    ss = sentences(text)
    options: list[Callable[[], str | None]] = []
    if len(ss) > 1:
        options.append(lambda: "\n".join(ss))
        options.append(lambda: "\n".join(f"- {s}" for s in ss))
    if text.rstrip().endswith("?"):
        options.append(lambda: text.rstrip()[:-1] + rng.choice(["", "??", " ?"]))
    if (m := _VERB.search(text)) or (m := re.search(r" (?:=|:=) ", text)):
        tail = re.split(r"(?<=[.;?])\s", text[m.end():], maxsplit=1)
        clause = re.sub(r"(?<![\w-])([a-z])([a-z]{3,})\b", lambda w: w.group(1).upper() + w.group(2), tail[0])
        options.append(lambda: text[:m.end()] + clause + (" " + tail[1] if len(tail) > 1 else ""))
    c = _company(q)
    keep = [n for n in ((*c[2], c[0]) if c else ()) if n in text]
    if keep:
        def lower() -> str:
            out = text.lower()
            for n in keep:
                out = re.sub(re.escape(n.lower()), n, out)
            return out
        options.append(lower)
    rng.shuffle(options)
    for make in options:
        if (new := make()) and new != text:
            return new
    return None


# -- the period in the defined name's slot (session 56) ---------------------------------------------------------------
_DEFINE_NAME = re.compile(r"\b(?P<verb>Define|define) (?P<name>[^.,;:?]{2,60}?) as ")
_A_PERIOD = re.compile(r"(?i)(?:,\s*)?\b(?:for|in|during) (?:the )?(?:FY\s?(?:20)?\d\d|fiscal(?: year)? 20\d\d|"
                       r"(?:three|six|nine) months ended " + _DATE + r")\b|(?:,\s*)?\b(?:at|as of) " + _DATE + r"\b")


def name_period(q: dict, rng: random.Random) -> str | None:
    """The question's one period phrase moved into the defined name's slot: "Define X as A / B for FY2024" ->
    "Define X for FY2024 as A / B" (or "Define Apple's FY2024 X as ..." for a fiscal year)."""
    text = q["question"]
    d = _DEFINE_NAME.search(text)
    found = list(_A_PERIOD.finditer(text))
    if not d or len(found) != 1 or found[0].start() < d.end():
        return None
    mp = found[0]
    phrase = mp.group(0).lstrip(", ")
    rest = (text[:mp.start()] + text[mp.end():]).replace(" .", ".").replace(" ,", ",").replace(" ?", "?")
    d = _DEFINE_NAME.search(rest)
    if not d:
        return None
    fy = re.fullmatch(r"(?i)(?:for|in|during) (?:the )?(FY\s?(?:20)?\d\d|fiscal(?: year)? 20\d\d)", phrase)
    name = d.group("name")
    if fy and rng.random() < 0.5 and (owner := re.match(r"(.+?'s) (.+)$", name)):
        named = f"{owner.group(1)} {fy.group(1)} {owner.group(2)}"  # "Define Apple's FY2024 cash ratio as"
    else:
        named = f"{name} {phrase}"
    return rest[:d.start()] + f"{d.group('verb')} {named} as " + rest[d.end():]


# -- operand synonyms (session 56) ----------------------------------------------------------------------------------
_SYNONYMS: list[tuple[str, list[str]]] = [
    (r"(?i)\b(?:stockholders|shareholders|shareowners)['’](?= (?:equity|deficit))",
     ["stockholders'", "shareholders'", "shareowners'"]),
    (r"(?i)\bnet cash (?:provided by|from|generated by) operating activities\b",
     ["cash flow from operations", "operating cash flow", "net cash from operating activities", "CFO"]),
    (r"(?i)\b(?:purchases of property and equipment|capital expenditures)\b(?! \(| excluding| including| net\b|,)",
     ["capex", "capital expenditures", "purchases of property and equipment"]),
    (r"(?i)\bselling, general(?:,)? and administrative(?: expenses?)?\b", ["SG&A", "SG&A expense"]),
    (r"(?i)\bresearch and development(?: expenses?)?\b(?! and\b)", ["R&D", "R&D expense"]),
    (r"(?i)\bdepreciation and amortization\b(?! of)", ["D&A", "depreciation & amortization"]),
    (r"(?i)\btotal current assets\b", ["current assets"]),
    (r"(?i)\btotal current liabilities\b", ["current liabilities"]),
    (r"(?i)\bcost of (?:sales|revenues?)\b(?! \()", ["COGS", "cost of goods sold"]),
]
"""An operand's words and the words analysts and other filers use for the same line item (the gold does not change)."""


def synonyms(q: dict, rng: random.Random) -> str | None:
    """Every occurrence of one operand's words written as another name of the same line item."""
    text = q["question"]
    kinds = [(p, words) for p, words in _SYNONYMS if re.search(p, text)]
    if not kinds:
        return None
    pattern, words = rng.choice(kinds)
    current = re.search(pattern, text)
    return _sub_once(pattern, _choose(rng, words, current.group(0) if current else ""), text)


# -- the same definitions in syntax the older sets never used (session 57) -----------------------------------------
_NAMED_VERB = re.compile(r"(?P<name>\b[\w&'’-]+(?: (?!is\b)[\w&'’-]+){0,4}),? (?:is )?(?:defined|computed|calculated|measured) as ")
_NEW_OPERATORS: list[tuple[str, list[str]]] = [
    (r" divided by ", [" ÷ ", " as a fraction of ", " into "]),
    (r" (?:minus|less) (?!the same\b|\d|one\b)", [" after subtracting ", " deducting "]),
    (r" plus ", [" added to "]),
]
_SUM = re.compile(r"(?P<a>\b[A-Za-z][\w'’&-]*(?: [\w'’&-]+){0,6}) (?P<op>\+|plus) (?P<b>[A-Za-z][\w'’&-]*(?: [\w'’&-]+){0,6})"
                  r"(?=[.;?)]|$)")
_NO_SWAP = re.compile(r"(?i)\b(?:the|of|for|in|at|as|to|by|and|divided|over|minus|less|times|define|defined|where|"
                      r"what|is|was|(?:19|20)\d\d|fy\d+)$")


def new_syntax(q: dict, rng: random.Random) -> str | None:
    """One definition written in syntax none of the older sets uses: another introducer ("Define X as A" as "X is
    given by A", "We compute X as A", "Read X as A", "X here means A"; "X, defined as A" as "X (which we take to be
    A)", "X, i.e. A"), an operator word none wrote ("÷", "as a fraction of", "after subtracting", "deducting", "added
    to"), or a sum's two operands in the other order."""
    text = q["question"]
    options: list[Callable[[], str | None]] = []
    if (d := _DEFINE_NAME.search(text)) and d.group("name").lower() not in ("it", "this", "that"):
        name = d.group("name")
        forms = [f"{name} is given by ", f"We compute {name} as ", f"Read {name} as ", f"{name} here means "]
        options.append(lambda: text[:d.start()] + rng.choice(forms) + text[d.end():])
    elif v := _NAMED_VERB.search(text):
        vname = v.group("name")
        forms = [f"{vname}, i.e. ", f"{vname}, which we take to be ", f"{vname}, worked out as "]
        options.append(lambda: text[:v.start()] + rng.choice(forms) + text[v.end():])
    if q["unit"] == "percent" or not re.search(r"(?i)percent|%", text):  # "as a fraction of" asks a ratio
        kinds = [(p, w) for p, w in _NEW_OPERATORS if re.search(p, text)]
        if kinds:
            pattern, words = rng.choice(kinds)
            if q["unit"] == "percent":
                words = [w for w in words if "fraction" not in w] or words
            word = rng.choice(words)
            if word == " into ":  # "B into A" is A / B: only a two-operand "A divided by B"
                m = re.search(r"(?P<a>\b[A-Za-z][\w'’&-]*(?: [\w'’&-]+){0,5}) divided by (?P<b>[A-Za-z][\w'’&-]*"
                              r"(?: [\w'’&-]+){0,5})(?=[.;?]|,\s|$)", text)
                if m and not _NO_SWAP.search(m.group("a").split()[0]) and not re.search(
                        r"(?i)\b(?:as|define|defined|=|is|what|of)\b", m.group("a")):
                    options.append(lambda m=m: text[:m.start()] + f"{m.group('b')} divided into {m.group('a')}"
                                   + text[m.end():])
            else:
                options.append(lambda pattern=pattern, word=word: _sub_once(pattern, word, text))
    if (m := _SUM.search(text)) and not re.search(r"(?i)\b(?:defined|define|as|is|=|what|how|of|for)\b",
                                                   m.group("a")) and not _NO_SWAP.search(m.group("b")) and \
            not re.search(r"(?i)\band\b", m.group("b")):
        options.append(lambda: text[:m.start()] + f"{m.group('b')} {m.group('op')} {m.group('a')}" + text[m.end():])
    rng.shuffle(options)
    for make in options:
        if (new := make()) and new != text:
            return new
    return None


TRANSFORMS: dict[str, Transform] = {"order": order, "operators": operators, "syntax": syntax, "units": units,
                                    "rounding": rounding, "periods": periods, "company": company,
                                    "punctuation": punctuation, "name_period": name_period, "synonyms": synonyms,
                                    "new_syntax": new_syntax}


def load(sets: tuple[str, ...] = SETS) -> list[dict]:
    out = []
    for name in sets:
        for line in (DATA / f"{name}.jsonl").read_text().splitlines():
            if line.strip():
                out.append({**json.loads(line), "set": name})
    return out


def perturb(questions: list[dict], families: tuple[str, ...] = FAMILIES, seed: int = 55,
            per_family: int | None = None) -> list[dict]:
    """One paraphrase per (question, family) where the family applies; `per_family` caps each family's sample."""
    rows = []
    for fam in families:
        order_ = list(questions)
        random.Random(f"{seed}:{fam}").shuffle(order_)
        made = 0
        for q in order_:
            new = TRANSFORMS[fam](q, random.Random(f"{seed}:{q['id']}:{fam}"))
            if not new or new == q["question"]:
                continue
            rows.append({**q, "family": fam, "original": q["question"], "question": new})
            made += 1
            if per_family and made >= per_family:
                break
    return rows


def _rates(rows: list[dict]) -> dict:
    val = [r for r in rows if r["expect"] == "value"]
    ref = [r for r in rows if r["expect"] == "refuse"]
    n = lambda rs, k: round(sum(bool(r[k]) for r in rs) / len(rs), 3) if rs else None  # noqa: E731
    return {"n_value": len(val), "n_refuse": len(ref), "value_stated": n(val, "value"),
            "other_measure": n(val, "other"), "refusal_said": n(ref, "said")}


def _canon(node: object) -> object:
    """An expression's dump without the words of operands that resolved to a line item (a phrase's case or a moved
    period word is no other reading); other operands keep their words, lower-cased."""
    if isinstance(node, dict):
        return {k: (" ".join(str(v).lower().split()) if k == "phrase" else _canon(v)) for k, v in node.items()
                if not (k == "phrase" and node.get("item"))}
    if isinstance(node, list):
        return [_canon(v) for v in node]
    return node


def reading(question: str) -> dict:
    """What the question model reads that the gold depends on: the formula (expression, unit, whether it has
    problems), the decimals, the years written and the year-to-date months."""
    from finrag.tools.question.read import read_question

    f = read_question(question)
    fm = f.formula
    return {"expression": _canon(fm.expression.model_dump()) if fm and fm.expression else None,
            "unit": fm.unit if fm else None, "problems": bool(fm and fm.problems), "decimals": f.decimals,
            "years": sorted(set(f.years_written)), "ytd_months": f.ytd_months}


def readings(rows: list[dict]) -> dict[str, dict]:
    """Per family: how many paraphrases the question model reads differently from their original, and in what."""
    out: dict[str, dict] = {}
    for r in rows:
        a, b = reading(r["original"]), reading(r["question"])
        diff = sorted(k for k in a if a[k] != b[k])
        r["reading_diff"] = diff
        fam = out.setdefault(r["family"], {"n": 0, "changed": 0, "by_field": {}})
        fam["n"] += 1
        fam["changed"] += bool(diff)
        for k in diff:
            fam["by_field"][k] = fam["by_field"].get(k, 0) + 1
    return out


def _cell(before: dict, after: dict, key: str) -> str:
    return f"{'-' if before[key] is None else before[key]} -> {'-' if after[key] is None else after[key]}"


def _ask(question: str, index: str, system: str) -> dict:
    from finrag.api import QuestionError, run_query

    try:
        return run_query(question, system=system, index_dir=index)
    except QuestionError as err:
        return {"answer": f"Error: {err}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", help="the index of the EDGAR filings")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--seed", type=int, default=55)
    ap.add_argument("--per-family", type=int, default=60)
    ap.add_argument("--system", default="hdrr")
    ap.add_argument("--reading", action="store_true",
                    help="compare the question model's reading of each paraphrase with its original's (no index, fast)")
    ap.add_argument("--write", help="write the paraphrases (JSONL) and stop")
    ap.add_argument("--out", help="write every row and the rates (JSON)")
    ap.add_argument("--show", action="store_true", help="print the paraphrases whose outcome differs from the original's")
    args = ap.parse_args(argv)
    questions = load(tuple(args.sets.split(",")))
    rows = perturb(questions, tuple(args.families.split(",")), args.seed, args.per_family)
    if args.write:
        Path(args.write).write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{len(rows)} paraphrases -> {args.write}")
        return 0
    if args.reading:
        table = readings(rows)
        for fam, t in table.items():
            print(f"{fam:<12} {t['n']:>4} read differently: {t['changed']:>4} ({t['changed'] / t['n']:.3f}) "
                  f"{t['by_field']}")
        if args.show:
            for r in rows:
                if r["reading_diff"]:
                    print(f"\n{r['id']} [{r['family']}] {r['reading_diff']}\n  O: {r['original']}\n  P: {r['question']}")
        if args.out:
            Path(args.out).write_text(json.dumps({"readings": table, "rows": rows}, indent=1))
        return 0
    if not args.index:
        ap.error("--index is needed to run the questions")
    originals: dict[str, dict] = {}
    t0 = time.perf_counter()
    for r in rows:
        if r["id"] not in originals:
            originals[r["id"]] = judge(r, _ask(r["original"], args.index, args.system))
        r.update({f"orig_{k}": v for k, v in originals[r["id"]].items() if k in ("ok", "value", "said", "other")})
        r.update(judge(r, _ask(r["question"], args.index, args.system)))
    table = {}
    for fam in args.families.split(","):
        fr = [r for r in rows if r["family"] == fam]
        orig = [{**r, **{k: r[f"orig_{k}"] for k in ("value", "said", "other")}} for r in fr]
        table[fam] = {"perturbed": _rates(fr), "original": _rates(orig)}
    print(f"{'family':<12} {'n(v/r)':>8} {'value':>13} {'other':>13} {'said':>13}   (original -> perturbed)")
    for fam, t in table.items():
        p, o = t["perturbed"], t["original"]
        print(f"{fam:<12} {p['n_value']:>4}/{p['n_refuse']:<3} {_cell(o, p, 'value_stated'):>13} "
              f"{_cell(o, p, 'other_measure'):>13} {_cell(o, p, 'refusal_said'):>13}")
    print(f"{len(rows)} paraphrases, {len(originals)} originals, {time.perf_counter() - t0:.0f} s")
    if args.show:
        for r in rows:
            if r["ok"] != r["orig_ok"]:
                print(f"\n{r['id']} [{r['family']}] {'LOST' if r['orig_ok'] else 'gained'}\n  O: {r['original']}\n  "
                      f"P: {r['question']}\n  A: {r['answer'][:300]}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"table": table, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
