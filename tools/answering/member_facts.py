"""Segment, product-line and region values from an inline-XBRL filing's one-member facts.

    result = answer_member(asked, facts, doc_id, info)   # a ReaderResult, or None (not a member question)

A filing tags a breakdown of a line item as facts in contexts with one explicit member of an axis
(`srt:ProductOrServiceAxis`, `us-gaap:StatementBusinessSegmentsAxis`, `srt:StatementGeographicalAxis`, or a
filer's own segment/product/region axis) and prints each beside a row label ("iPhone", "Automotive sales",
"Germany"). `finrag.tools.documents.xbrl` keeps them (`member_facts`, with `row`); this module:

* takes the line item the question names (`xbrl_facts.asked_item`) and the members tagged with its concepts;
* names each member by its displayed row labels and by its QName ("aapl:GreaterChinaSegmentMember" -> "Greater
  China"; "country:DE" -> "Germany"), without the words every label shares ("net", "total", "revenue", "sales");
* takes the member whose name's words are all in the question (`QuestionFacts.words`), the longest name first,
  then one of the axis the question names ("segment", "region", "product line"); else one the question names in
  part or by its initials ("regulatory credit" revenue, "AWS", "EMEA"); when a word names several members none of
  which is the others' parent ("leasing"), the answer names them and states no value (`ranked_members`);
  the company's own name, aliases and tickers count on neither side ("Acme Widgets' revenue" is not the
  "Widgets" member's);
* answers its fact for the asked period (`xbrl_facts.choose_fact`), cited to the page it is displayed on, or
  its change, its share of the total or a margin of it (`member_math`).

When the question names a breakdown outright (`QuestionFacts.member_cue`: "segment", "revenue from <Place>",
"product line") and no member matches, or the member has no fact for the period, the answer says that and lists
the members the filing does tag: never the consolidated total as if it were the member's value. Members that are
reconciling columns (eliminations, corporate, unallocated) are never answered.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from finrag.state.question import QuestionFacts
from finrag.tools.question.measure import part_qualifier, word_forms

__all__ = ["Member", "ambiguous_members", "available", "company_words", "member_name",
           "members_of", "name_key", "partial_pick", "qualified_away", "ranked_members"]

_AXES = ("srt:ProductOrServiceAxis", "us-gaap:StatementBusinessSegmentsAxis", "srt:StatementGeographicalAxis")
_OWN_AXIS = re.compile(r"(?i)segment|product|service|geograph|region|countr|market|line")
_SKIP_MEMBER = re.compile(r"(?i)eliminat|corporate|intersegment|reconcil|consolidat|allother|unallocated|"
                          r"^[^:]*:(?:operatingsegments|segmentreportingreconcilingitem|materialreconcilingitems)member$")
_SHARED_WORDS = {"net", "total", "revenue", "sale", "of", "and", "the", "from", "income", "operating", "segment",
                 "amount", "by", "in", "consolidated", "reportable", "member", "other", "all", "operation", "a"}
_GENERIC_ALONE = {"other", "all", "total", "net"}
_COUNTRIES = {"US": "United States", "CN": "China", "DE": "Germany", "GB": "United Kingdom", "JP": "Japan",
              "CA": "Canada", "FR": "France", "IN": "India", "IE": "Ireland", "KR": "South Korea", "TW": "Taiwan",
              "MX": "Mexico", "BR": "Brazil", "AU": "Australia", "CH": "Switzerland", "NL": "Netherlands",
              "SG": "Singapore", "IT": "Italy", "ES": "Spain"}


def member_name(member: str) -> str:
    """How a member QName reads ("aapl:GreaterChinaSegmentMember" -> "Greater China", "country:DE" -> "Germany")."""
    prefix, _, local = member.partition(":")
    if prefix == "country":
        return _COUNTRIES.get(local, local)
    local = re.sub(r"(?:Segment)?Member$", "", local)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", local).split()
    return " ".join(w.lower() if w in ("And", "Of", "The") else w for w in words)


def _clean_label(row: str) -> str:
    """A displayed row label as analysts say it: footnote marks, trademarks, a trailing colon, a leading "Total"."""
    text = re.sub(r"\s*\(\d\)|[\u00ae\u2122*]", "", row or "")
    return re.sub(r"(?i)^total\s+", "", text).strip(" :,")


@dataclass
class Member:
    """One member of an axis tagged with the asked line item: its names and its facts."""

    axis: str
    member: str
    facts: list[dict]
    names: list[tuple[str, frozenset[str]]]
    """(a name as displayed, its distinctive words): row labels first, then the QName's reading."""

    def matches(self, words: set[str], own: frozenset[str] = frozenset()) -> Optional[tuple[int, str]]:
        """(how many words, the name) of the longest name whose distinctive words are all in `words`; the
        company's own words (`own`: "Acme Widgets" against a "Widgets" member) count on neither side."""
        hits = [(len(key - own), name) for name, key in self.names if key - own and key - own <= words - own]
        return max(hits) if hits else None


def company_words(info: dict) -> frozenset[str]:
    """The words of the routed company's own names (company, registrant, aliases, tickers): no member's name or
    qualifier ("Acme Widgets' revenue" is not the "Widgets" member's)."""
    return frozenset(word_forms(" ".join(str(n) for n in [info.get("company"), info.get("registrant"),
                                                          *(info.get("aliases") or []), *(info.get("tickers") or [])]
                                        if n)))


def name_key(name: str) -> frozenset[str]:
    """A member's name's distinctive words (without the words every label shares: "net", "total", "revenue",
    "sales", ...); empty for a generic name ("Other", "Total") or a QName split into letters."""
    words = [w for w in word_forms(name) if w not in _SHARED_WORDS]
    if not words or (len(words) == 1 and words[0] in _GENERIC_ALONE) or any(w.isdigit() for w in words):
        return frozenset()
    if "." not in name and any(len(w) == 1 for w in words):  # a QName's capitals split apart ("I Phone")
        return frozenset()
    return frozenset(words)


def _acronym(name: str) -> str:
    """The initials of a name of three or more words ("Amazon Web Services" -> 'aws'), '' otherwise."""
    words = [w for w in re.findall(r"[A-Za-z]+", name) if w.lower() not in ("and", "of", "the")]
    return "".join(w[0] for w in words).lower() if len(words) >= 3 and all(w[0].isupper() for w in words) else ""


def members_of(facts: dict, concepts: list[str]) -> list[Member]:
    """The members of a breakdown axis tagged with one of `concepts`, in the filing's order."""
    contexts = facts.get("member_contexts") or {}
    grouped: dict[tuple[str, str], list[dict]] = {}
    for f in facts.get("member_facts") or []:
        ctx = contexts.get(f.get("context"))
        if not ctx or f.get("concept") not in concepts:
            continue
        axis, member = str(ctx.get("axis", "")), str(ctx.get("member", ""))
        if (axis not in _AXES and not _OWN_AXIS.search(axis.partition(":")[2])) or _SKIP_MEMBER.search(member):
            continue
        grouped.setdefault((axis, member), []).append(f)
    out = []
    for (axis, member), group in grouped.items():
        labels = [_clean_label(str(f.get("row") or "")) for f in group if f.get("row")]
        names: list[tuple[str, frozenset[str]]] = []
        for name in [*dict.fromkeys(labels), member_name(member)]:
            if name and all(n != name for n, _ in names):
                names.append((name, name_key(name)))
        for name, _key in list(names):  # "Amazon Web Services" is asked as "AWS", "Europe, Middle East & Africa" as "EMEA"
            acronym = _acronym(name)
            if acronym and all(n.lower() != acronym for n, _ in names):
                names.append((acronym.upper(), frozenset({acronym})))
        out.append(Member(axis, member, group, names))
    return out


_CUE_AXES = {"segment": re.compile(r"(?i)segment"), "region": re.compile(r"(?i)geograph|region|countr"),
             "product": re.compile(r"(?i)product|service")}


def _axis_of_cue(axis: str, cue: Optional[str]) -> bool:
    """Is `axis` the kind of breakdown the question names ("the Automotive segment": the segment axis's member,
    not the product axis's "Automotive sales")?"""
    return cue is not None and bool(_CUE_AXES[cue].search(axis.partition(":")[2]))


def available(members: list[Member], limit: int = 8) -> str:
    shown = [next((n for n, k in m.names if k), m.names[-1][0] if m.names else m.member) for m in members]
    shown = list(dict.fromkeys(shown))
    return ", ".join(shown[:limit]) + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


# words of a measure, not of a member's name: a question's "credit" or "product" alone names no member
_MEASURE_WORDS = {"product", "service", "cost", "gross", "margin", "expense", "cash", "flow", "interest", "tax",
                  "profit", "earning", "share", "stock", "equity", "debt", "asset", "liability", "capital", "financial",
                  "growth", "change", "year", "quarter", "fiscal", "month", "ended", "percent", "percentage", "dollar",
                  "business", "company", "line", "category", "region", "geographic", "country", "unit", "division"}


def ranked_members(asked: QuestionFacts, members: list[Member], own: frozenset[str]) -> list[tuple[tuple[int, str], int, Member]]:
    """The members the question names, best first: ((how many words, the name), position, member).

    A member whose name's distinctive words are all in the question comes first (`Member.matches`, the longest
    name first, then one of the axis the question names). Without one, a member the question names in part
    ("regulatory credit revenue" for "Automotive regulatory credits", "storage" for "Energy generation and
    storage"): the most of its name's words, measure words ("product", "service" alone) not counted; when several
    members have as many, the one whose words all the others hold (the parent of "... storage sales" and "...
    storage leasing"); nothing when none is (`ambiguous_members` names them)."""
    words = set(asked.words)
    order = {w: k for k, w in reversed(list(enumerate(asked.words)))}  # a word's first place in the question

    def first(name: str) -> int:  # "services rather than products": the member named first
        return min((order.get(w, len(order)) for w in name_key(name) - own), default=len(order))

    scored = sorted(((hit, i, m) for i, m in enumerate(members) for hit in [m.matches(words, own)]
                     if hit and not qualified_away(name_key(hit[1]), asked.words, own)),
                    key=lambda t: (-t[0][0], not _axis_of_cue(t[2].axis, asked.member_cue), first(t[0][1]), t[1]))
    if scored:
        return scored
    keys = _partial_keys(members)
    chosen, _maybe = partial_pick(asked.words, keys, own)
    picked = [((len(keys[i] & words), _partial_name(members[i], asked.words)), i, members[i]) for i in chosen]
    if not picked:
        picked = _the_other(asked, members)
    return sorted(picked, key=lambda t: (not _axis_of_cue(t[2].axis, asked.member_cue), t[1]))


_OTHER_ASKED = re.compile(r"(?i)\b(?:all )?other (?:revenues?|net sales|sales|segments?|products?(?: and services?)?|"
                          r"services?)\b")


def _the_other(asked: QuestionFacts, members: list[Member]) -> list[tuple[tuple[int, str], int, Member]]:
    """"Other revenues": the breakdown's one member named "other" ("Product and Service Other", "All other"), named in
    part; none when the breakdown has no such member or several."""
    if not _OTHER_ASKED.search(asked.text or ""):
        return []
    others = [(i, m) for i, m in enumerate(members) if any(_generic_other(n) for n, _k in m.names)]
    if len(others) != 1:
        return []
    i, m = others[0]
    name = next((n for n, _k in m.names if _generic_other(n)), m.names[0][0] if m.names else m.member)
    return [((1, name), i, m)]


def _generic_other(name: str) -> bool:
    """A name that says "other" and nothing but what every breakdown's names say ("Product and Service Other", "All
    other", "Services and other"); not a place's ("Latin America, Caribbean and other")."""
    words = set(word_forms(name))
    return "other" in words and words - _SHARED_WORDS <= {"product", "service"}


def qualified_away(key: frozenset[str], words: list[str], own: frozenset[str]) -> bool:
    """A one-word name that is a measure's word ("Services", "Products") against a question that qualifies that word
    ("advertising services", "cloud services"): another part is asked, not this one."""
    if len(key) != 1 or not key <= {"service", "product"}:
        return False
    hits = [k for k, w in enumerate(words) if w in key]
    return bool(hits) and all(k > 0 and words[k - 1] not in own and not words[k - 1].isdigit()
                              and part_qualifier(f"{words[k - 1]} sales") is not None for k in hits)


_GEOGRAPHIC = re.compile(r"(?i)geograph|region|countr|area")
"""A place is named whole: "state" is not "United States", "Asia" not "Rest of Asia Pacific"."""


_PLACE_WORDS = {"state", "united", "north", "south", "east", "west", "rest", "world", "greater", "middle", "central",
                "other", "international", "global", "america", "americas"}
"""Words of place names that name no place alone ("Please state ..." is not "United States")."""


def _partial_keys(members: list[Member]) -> list[frozenset[str]]:
    """Each member's words a question may name it by in part: none for a place (named whole), no initials."""
    return [frozenset() if _GEOGRAPHIC.search(m.axis.partition(":")[2]) or m.member.startswith("country:")
            else frozenset().union(*(k for n, k in m.names if not _is_acronym(n, k))) for m in members]


def _is_acronym(name: str, key: frozenset[str]) -> bool:
    return name.isupper() and key == {name.lower()}


def _partial_name(m: Member, words: list[str]) -> str:
    return next((n for n, k in m.names if k & set(words)), m.names[0][0] if m.names else m.member)


def partial_pick(words: list[str], keys: list[frozenset[str]], own: frozenset[str]) -> tuple[list[int], list[int]]:
    """Candidates (by their names' distinctive words, `keys`) the question names in part: (those chosen, those it
    may mean). The most of the question's words, measure words and one- or two-letter words ("s" of "Inc.'s")
    left out; among several, the one whose words all the others hold (the parent of "... storage sales" and "...
    storage leasing"); when none is, nothing is chosen and the candidates are returned as the ones it may mean."""
    usable = {w for w in words if len(w) > 2} - _MEASURE_WORDS - _PLACE_WORDS - own
    hits = [(len((k - own) & usable), i) for i, k in enumerate(keys) if (k - own) & usable]
    if not hits:
        return [], []
    top = max(n for n, _i in hits)
    best = [i for n, i in hits if n == top]
    if len({keys[i] - own for i in best}) == 1:
        return best, []
    parents = [i for i in best if all(keys[i] - own <= keys[j] - own for j in best)]
    return (parents, []) if parents else ([], best)


def ambiguous_members(asked: QuestionFacts, members: list[Member], own: frozenset[str]) -> list[str]:
    """When `ranked_members` named none: the names of the members the question names in part but cannot tell
    apart ("leasing": Automotive leasing, Energy generation and storage leasing); [] when it names none."""
    _chosen, maybe = partial_pick(asked.words, _partial_keys(members), own)
    return list(dict.fromkeys(_partial_name(members[i], asked.words) for i in maybe))

