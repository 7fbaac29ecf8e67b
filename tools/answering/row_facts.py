"""An operand read from the filing's own rows: the inline-XBRL facts displayed on the row the question names.

    binding = bind_row(tagged, "row:contract assets", like="")   # RowBinding(concepts, facts) or None

A row item (`line_items.ROW`) is matched against each fact's displayed row label:
* the label is the operand's words (`line_items.match_score`: give or take "total", ", net", a plural, a
  parenthesis);
* or the label's words are the operand's but for words of the fact's own concept ("Cloud services and license
  support" tagged `RevenueFromContractWithCustomer...` is the operand "cloud services and license support
  revenues"; the same label tagged `...Expenses` is "... expenses");
* or, for a hidden fact, the concept's words are the operand's in any order ("MarketableSecuritiesNoncurrent" is
  "non-current marketable securities");
* or, scored (`label_cover`), the operand's words and the row's cover each other once stemmed and the
  shorthand written out: every operand word is in the label or the concept's name ("payments for acquisition of
  PP&E" is "Payments for acquisition of property, plant and equipment", PaymentsToAcquirePropertyPlantAndEquipment;
  "dividends and dividend equivalents paid" is "Payments for dividends and dividend equivalents"), and most of the
  label's words are the operand's; below that cover the operand is missing, never another row;
* or, failing all of those, for an operand that reads as no line item, the one row whose label holds all of the
  operand's words (two or more) and fewer more: the operand written short, its object named by the operand before it ("purchases of property and equipment,
  net of proceeds from sales and incentives" reads "Proceeds from property and equipment sales and incentives").

Facts of the consolidated contexts come first; a row tagged only with one member of an axis (Oracle's revenue by
product on the face of its income statement) is read from that member's facts (`RowBinding.facts` is then a view of
the filing's facts restricted to that member). Of several concepts on rows of the same words, those finrag reads as
the line item `like` are taken (a note's "Stock-based compensation" among deferred tax assets is not).
"""
from __future__ import annotations

import re
from typing import Optional

from finrag.tools.answering.fact_sources.xbrl import CONCEPTS, PREFIX, RowBinding
from finrag.tools.vocabulary.line_items import LINE_ITEMS, ROW, match_score

__all__ = ["RowBinding", "bind_row", "label_cover", "stem", "words_of"]


_FILLER = {"total", "net", "and", "&", "of", "the", "for", "from", "in", "on", "to", "a", "an"}


def words_of(text: str) -> set[str]:
    """Content words, singular, "non-current" as one word ("Marketable securities" -> {'marketable', 'security'})."""
    t = re.sub(r"\([^)]*\)", " ", text.lower().replace("’", "'"))  # a footnote mark "(1)", a gloss "(income)"
    t = re.sub(r"(?i)\bnon[- ]?current\b", "noncurrent", t)
    out = set()
    for w in re.findall(r"[a-z0-9&]+", t):
        if w in _FILLER:
            continue
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("s") and len(w) > 3 and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return out


_SHORTHAND = {"pp&e": "property plant equipment", "ppe": "property plant equipment",
              "sbc": "stock based compensation", "d&a": "depreciation amortization", "r&d": "research development",
              "sg&a": "selling general administrative", "capex": "capital expenditure", "opex": "operating expense"}
_IRREGULAR = {"paid": "pay", "sold": "sell", "bought": "buy", "made": "make", "spent": "spend", "spending": "spend"}
_SUFFIXES = ("itions", "ations", "ition", "ation", "ments", "ment", "ings", "ing", "ed", "es", "s", "e")


def stem(word: str) -> str:
    """A word's stem for matching an operand to a label: "acquisition" -> "acquis", "acquire" -> "acquir",
    "payments" -> "pay", "paid" -> "pay", "repurchases" -> "repurchas"."""
    w = _IRREGULAR.get(word, word)
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[:-len(suf)]
    return w


def _same(a: str, b: str) -> bool:
    """Two stems of one word: equal, or one a prefix of the other but for its last letter, five letters shared at
    least ("acquis" ~ "acquir"; "interest" and "internal" are not)."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 5 and n >= min(len(a), len(b)) - 1


def stems_of(text: str) -> list[str]:
    """The content words' stems, the shorthand written out first ("payments for PP&E" -> pay, property, plant,
    equipment)."""
    t = " ".join(_SHORTHAND.get(w, w) for w in re.findall(r"[a-z0-9&]+", text.lower().replace("’", "'")))
    return sorted({stem(w) for w in words_of(t)})


_QUALIFIERS = {"current", "noncurrent", "long", "short", "term", "gross", "deferred", "accrued", "other", "prior",
               "foreign", "domestic", "international", "federal", "state", "unrealized", "realized", "diluted", "basic"}


def label_cover(operand: str, label: str, concept: str = "", own: frozenset[str] = frozenset()) -> float:
    """How well a row covers the operand, 0 to 1: the harmonic mean of the share of the operand's words the label or
    the concept's name holds (stemmed, shorthand written out) and the share of the label's words the operand holds.
    A word the row lacks counts only as one item of the operand's list ("research, development and engineering" is
    the row "Research and development"); a qualifier or a modifier it lacks ("non-current", "cloud segment
    revenue") makes the row another measure: 0. `own`: the registrant's name's stems, no extra words of a label ("Total
    equity attributable to shareowners of The Coca-Cola Company" is the consolidated row)."""
    want = [w for w in stems_of(operand) if w not in own] or stems_of(operand)  # "AMZN fulfillment": the filer's
    lab = [w for w in stems_of(label) if (w not in own and w not in _FORMS) or w in want]
    have = lab + (stems_of(" ".join(re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", concept.partition(":")[2])))
                  if concept else [])
    if not want or not lab:
        return 0.0
    lacked = [w for w in want if not any(_same(w, h) for h in have)]
    listed = {stem(w) for w in re.findall(r"(?i)(?:,|\band)\s+([a-z]+)(?=\s*(?:$|,|\band\b))", operand)}  # a list's item
    if any(w in _QUALIFIERS or w not in listed for w in lacked) or len(lacked) * 3 > len(want):
        return 0.0
    c = 1 - len(lacked) / len(want)
    p = sum(any(_same(x, w) for w in want) for x in lab) / len(lab)
    return 2 * c * p / (c + p) if c + p else 0.0


_COVER = 0.8  # the least cover: below it the row is another measure, and the operand is missing


def _camel(concept: str) -> set[str]:
    local = concept.partition(":")[2]
    return words_of(" ".join(re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", local)))


def _own_name(tagged: dict) -> frozenset[str]:
    """The stems of the registrant's name and ticker ("COCA COLA CO", "KO" -> coca, cola, ko), but for the company-form
    words."""
    dei = tagged.get("dei") or {}
    symbols = dei.get("TradingSymbol") or []
    name = " ".join([str(dei.get("EntityRegistrantName") or ""), *([symbols] if isinstance(symbols, str) else symbols)])
    return frozenset(stems_of(name)) - _FORMS


_FORMS = frozenset(stem(w) for w in ("co", "inc", "corp", "corporation", "company", "ltd", "plc", "llc", "lp"))
"""A company's form in its name: no words of a measure ("... of The Coca-Cola Company")."""


def _score(item: str, fact: dict, want: set[str], like: str = "", own: frozenset[str] = frozenset()) -> float:
    row = str(fact.get("row") or "")
    concept = str(fact.get("concept", ""))
    if row:
        exact = match_score(item, row)
        if exact:
            return exact
        label = words_of(row)
        if label and label <= want and want - label <= _camel(concept):
            return 0.85  # "Cloud services and license support" (Revenues...) for "... support revenues"
    elif want and _camel(concept) == want:
        return 0.9  # a hidden fact: its concept's words are the operand's
    if row and (cover := label_cover(item[len(ROW):].partition("@")[0] if item.startswith(ROW) else item, row,
                                     concept, own)) >= _COVER:
        return 0.6 + 0.15 * cover  # scored (below every label match, 0.8 and up): the same words stemmed, the shorthand written out; below the cover, none
    if not like and row and len(want) >= 2 and want <= (label := words_of(row)) and len(label - want) < len(want):
        return _SHORT  # the operand written short ("proceeds from sales and incentives" after "purchases of
        # property and equipment"): all its words in the label, a few more; read only when one row alone holds them
    return 0.0


_SHORT = 0.5


def _best(facts: list[dict], item: str, like: str, contexts: Optional[dict] = None,
          own: frozenset[str] = frozenset()) -> list[str]:
    want = words_of(item[len(ROW):].partition("@")[0])
    scored: dict[str, float] = {}
    flow = LINE_ITEMS[like].flow if like in LINE_ITEMS else None
    for f in facts:
        if flow is not None and contexts is not None and f.get("context") in contexts and \
                ("instant" in contexts[f["context"]]) == flow:
            continue  # a row of the line item's words in a table of the other kind (a deferred tax asset's
            # "Depreciation and amortization" is no flow of the year): never another measure
        if like in LINE_ITEMS and str(f.get("concept", "")).endswith("Disclosure"):
            continue  # a note's fair-value table ("LiabilitiesFairValueDisclosure" on its "Total liabilities" row) is
            # no line of the statements: Coca-Cola prints no total liabilities, and that is said, not another measure
        s = _score(item, f, want, like, own)
        if s:
            scored[str(f["concept"])] = max(scored.get(str(f["concept"]), 0.0), s)
    if not scored:
        return []
    top = max(scored.values())
    if (top == _SHORT and len(scored) > 1) or (_SHORT < top < 0.8 and sum(s == top for s in scored.values()) > 1):
        return []  # an operand written short, or scored, that several rows cover alike: no one of them is the asked row
    best = sorted((c for c, s in scored.items() if s == top), key=lambda c: not c.startswith(PREFIX))
    preferred = [c for c in (PREFIX + c for c in CONCEPTS.get(like, ())) if c in best]
    return preferred or best


def bind_row(tagged: dict, item: str, like: str = "") -> Optional[RowBinding]:
    """The concepts and facts the row item reads (see the module docstring), or None when the filing shows no such
    row."""
    own = _own_name(tagged)
    concepts = _best(tagged.get("facts") or [], item, like, tagged.get("contexts"), own)
    if concepts:
        return RowBinding(concepts, tagged)
    if like in LINE_ITEMS and LINE_ITEMS[like].statement == "balance":
        return None  # a balance-sheet line is the consolidated one, never an investee's or a segment's (Coca-Cola's
        # equity-method investees' "Total liabilities"): without a consolidated row it is said missing
    members = tagged.get("member_facts") or []
    concepts = _best(members, item, like, tagged.get("member_contexts"), own)
    if not concepts:
        return None
    contexts = tagged.get("member_contexts") or {}
    want = words_of(item[len(ROW):].partition("@")[0])
    # the member whose row it is: the one displayed on the matching row most often
    counts: dict[str, int] = {}
    for f in members:
        if str(f.get("concept")) in concepts and _score(item, f, want, like, own):
            key = str((contexts.get(f.get("context")) or {}).get("member", ""))
            counts[key] = counts.get(key, 0) + 1
    member = max(counts, key=lambda k: counts[k]) if counts else ""
    ids = {cid for cid, c in contexts.items() if c.get("member") == member}
    view = {"facts": [f for f in members if f.get("context") in ids],
            "contexts": {cid: contexts[cid] for cid in ids}, "dei": tagged.get("dei") or {}}
    return RowBinding(concepts, view)
