"""Ranking the linker's readings (issue 35): one confident company, not every registrant a token could name.

At EDGAR scale every short word is somebody's ticker and every famous name begins a smaller registrant's name, so
the linker's accepted readings are ranked instead of all being routed. `rank` keeps the best and sets the others
aside as alternatives (`Candidate.set_aside`: below acceptance, their evidence kept in `reason`, the winner in
`alternative_to`; `routing.extracted.candidates` lists them, and an LLM router may still choose them):

* **a longer name no registrant has** ("Vanguard Group", "Silicon Valley Bank"): a derived name inside it is an
  alternative (`set_aside_inside_longer_names`, before tickers are read);
* **"Name (TICK)"**: the capitalised words right before a ticker in parentheses are that ticker's company, so
  another company read inside them ("Universal" in "Universal Health Realty (UHT)") is an alternative;
* **a second company needs evidence as strong as the first**: the most confident strong reading leads (a full or
  distinctive name, confidence `STRONG` or more, not followed by more capitalised words of a longer name: "Dow" in
  "Dow Jones"; a ticker in ticker context, or one that is no English word or abbreviation written as the subject:
  first or last word, possessive); another company is kept when its own strong evidence is within `MARGIN` of the
  lead's, or when a comparison or list cue joins its mention to a kept company's ("X vs Y", "X compared with Y",
  "X, Y and Z", "X/Y", or two names side by side: "Apple Microsoft revenue"). A weaker reading beside a named company ("NET debt at Ford", "Healthpeak MOB NOI",
  "Prudential Financial (PRU) PGIM flows", "Liberty Broadband (LBRDK) Charter stake") is an alternative. With no
  strong reading the most confident one leads.
"""
from __future__ import annotations

import re
from typing import Mapping

from finrag.tools.routing.mentions import Candidate, Company
from finrag.tools.routing.shapes import LISTED_TICKERS
from finrag.tools.routing.size import far_larger, size_rank
from finrag.tools.routing.ticker_score import LISTED_BETWEEN, after_legal_form
from finrag.tools.routing.words import is_finance_abbreviation, zipf

__all__ = ["COMPARISON", "MARGIN", "STRONG", "rank", "set_aside_inside_longer_names"]

STRONG = 0.85
"""A name reading at least this confident is strong evidence on its own."""
MARGIN = 0.1
"""A second company's strong evidence is as strong as the first's when it is at most this much less confident."""

_GLUE = re.compile(r"^[\s()]*(?:['’]s?\s*)?[\s()]*(?:,\s*(?:and|or)\b|,|&|/|\+|\band\b|\bor\b|\bplus\b|\bvs\.?|\bv\.?|"
                   r"\bversus\b|\bcompared\s+(?:with|to)\b|\brelative\s+to\b|\bagainst\b|\bthan\b)[\s()$]*$", re.I)
_NAME_RUN = re.compile(r"((?:[A-Z0-9][\w&'’.\-]*\s+(?:(?:&|of|and|de|the)\s+)?){0,5}[A-Z0-9][\w&'’.\-]*),?\s*\($")
_NEXT_CAPITAL = re.compile(r"^\s+(?!(?:FY|Q[1-4]|H[12]|CY)\b)[A-Z][a-z]")
COMPARISON = re.compile(r"(?i)\b(?:vs\.?|versus|compared\s+(?:with|to)|relative\s+to|against)(?=\W|$)")
_COMPARED = re.compile(COMPARISON.pattern + r"|\b(?:bigger|larger|smaller|higher|lower|more|less|better|worse|faster|"
                       r"slower)\s+(?:\w+\s+)?than\b")
"""A comparison word, or a comparative and 'than' ("Is Amazon bigger than Walmart by revenue?")."""
_LISTED_TICKER = re.compile(r",\s*[A-Z]{2,6}(?:\.[A-Z])?\s*(?=,)")
_NAME_KINDS = ("name", "head", "prefix", "short", "abbrev", "initialism", "word")
_DERIVED_KINDS = ("head", "prefix", "short", "abbrev")
_LONGER_NAME = re.compile(r"\b((?:[A-Z][\w\-]*)(?:\s+(?:[A-Z][\w'’\-]*|&|of|and|de)){0,3}),?\s+(Group|Holdings|"
                          r"Industries|Technologies|Enterprises|Brands|Partners|Capital|Bank|Bancorp|Bancshares|"
                          r"Financial|Trust)\b")


def _longer_name_follows(c: Candidate, text: str, starts: set[int]) -> bool:
    """'Dow' of "Dow Jones": a one-word name followed by a capitalised word that no reading starts at."""
    m = _NEXT_CAPITAL.match(text[c.end:])
    one_word = " " not in c.text.strip() and "-" not in c.text
    return bool(one_word and m and c.end + len(m.group(0)) - 2 not in starts)


def _strong(c: Candidate, text: str, starts: set[int]) -> bool:
    if c.kind == "ticker" or c.weak:
        return not c.weak
    return c.kind in _NAME_KINDS and c.confidence >= STRONG and not _longer_name_follows(c, text, starts)


def _distinct(c: Candidate, text: str, starts: set[int]) -> bool:
    """A name on its own, whatever its place: not a capitals-only short word, no longer name after it. (A bare
    ticker beside another is not: "MU HBM revenue", "Chevron PDC integration" name products, not companies.)"""
    return c.kind in _NAME_KINDS and not c.weak and not _longer_name_follows(c, text, starts)


def _linked(text: str, a: Candidate, b: Candidate, starts: set[int]) -> bool:
    first, second = (a, b) if a.start <= b.start else (b, a)
    gap = _LISTED_TICKER.sub("", after_legal_form(text[first.end:second.start]))  # "AAPL, SSNLF, HON": a list goes
    # on past SSNLF; "General Motors Company vs F": the legal form ends the name, the comparison comes after it
    if first.end > second.start:
        return False
    if not gap.strip():  # "Apple Microsoft revenue": two names side by side, a list without glue; a word only
        # derived from a name, not strong alone, qualifies the other ("Exxon Permian production", "FEMSA Brazil")
        return all(_distinct(c, text, starts) and not (c.kind in ("head", "prefix") and c.confidence < STRONG)
                   for c in (first, second))
    if not _GLUE.match(gap):
        return False
    abbreviation = any(c.kind in ("ticker", "initialism") and is_finance_abbreviation(c.text)
                       and LISTED_BETWEEN not in c.reason and LISTED_TICKERS not in c.reason for c in (a, b))
    return not abbreviation or bool(re.search(r"[A-Za-z&/]", gap))  # "vs FCF, AbbVie": a comma lists no abbreviation


def _parenthesised_owner(text: str, cands: list[Candidate]) -> None:
    """'Universal Health Realty (UHT)': readings of other companies inside the name before '(UHT)' are set aside."""
    for t in [c for c in cands if c.kind == "ticker" and c.accepted and c.key]:
        if not (text[:t.start].rstrip().endswith("(") and text[t.end:].lstrip().startswith(")")):
            continue
        m = _NAME_RUN.search(text[:text.rfind("(", 0, t.start) + 1])
        if not m:
            continue
        for c in cands:
            if c.accepted and c is not t and c.key != t.key and m.start(1) <= c.start and c.end <= m.end(1):
                c.set_aside(t.name, f"the name before '({t.text})' is {t.name}'s")


def _side_by_side(text: str, known: list[Candidate]) -> list[list[Candidate]]:
    """Runs of three or more companies written side by side, with nothing but spaces or commas between them ("NVDA
    AMD AVGO", "jpm bac c wfc"): a list, each one named (two side by side may be a company and its product); two of
    them at least no word, or all tickers and one no word; the others no abbreviation or common word ("KO PEP MDLZ",
    not "AAPL MSFT AI capex" nor "State Street HQ MA")."""
    runs: list[list[Candidate]] = []
    run: list[Candidate] = []
    for c in sorted(known, key=lambda c: c.start):
        if run and c.start < run[-1].end:
            continue  # another reading of the same words
        if run and not re.fullmatch(r"[\s,]+", text[run[-1].end:c.start]):
            runs.append(run)
            run = []
        run.append(c)
    runs.append(run)
    return [r for r in runs if len({c.key for c in r}) >= 3 and all(not c.wordish or _rare_word_ticker(c) for c in r)
            and (sum(not c.wordish for c in r) >= 2
                 or (all(c.kind == "ticker" for c in r) and any(not c.wordish for c in r)))]


def _rare_word_ticker(c: Candidate) -> bool:
    """A ticker that is also a less common word ('PEP'), not an abbreviation, a letter or a common word: a ticker
    in a list of tickers ("KO PEP MDLZ")."""
    return c.kind == "ticker" and len(c.text) >= 2 and not is_finance_abbreviation(c.text) and zipf(c.text) < 4.8


def _qualifies_a_name(text: str, c: Candidate, known: list[Candidate]) -> bool:
    """'Micron HBM': a reading right after another company's name, nothing but a space between."""
    return any(k.key != c.key and k.kind != "ticker" and k.end < c.start and not text[k.end:c.start].strip()
               for k in known)


def _compared_sides(text: str, known: list[Candidate], starts: set[int]) -> set[str]:
    """'Apple services margin vs Google Cloud margin': the companies on the two sides of a comparison word, each
    the nearest reading on its side and a name on its own (`_distinct`), a company's own name (a product may follow
    it), or a ticker that is no word; both kept."""
    out: set[str] = set()
    for m in _COMPARED.finditer(text):
        left = [c for c in known if c.end <= m.start()]
        right = [c for c in known if c.start >= m.end()]
        if not left or not right:
            continue
        pair = (max(left, key=lambda c: c.end), min(right, key=lambda c: c.start))
        if pair[0].key != pair[1].key and all(
                (_distinct(c, text, starts) or (c.kind == "ticker" and not c.wordish)
                 or (c.kind == "name" and not c.weak))  # "vs Google Cloud": a company's own name, a product after it
                and not _qualifies_a_name(text, c, known) for c in pair):
            out |= {c.key for c in pair}
    return out


def rank(text: str, cands: list[Candidate]) -> None:
    """Keep the best-evidenced companies of a question and set the other accepted readings aside (see the module
    docstring); `cands` is changed in place."""
    _parenthesised_owner(text, cands)
    known = [c for c in cands if c.accepted and c.key]
    if len({c.key for c in known}) < 2:
        return
    best: dict[str, Candidate] = {}
    for c in known:
        if c.key not in best or c.confidence > best[c.key].confidence:
            best[c.key] = c
    starts = {c.start for c in known}
    strong = [c for c in known if _strong(c, text, starts)]
    plain = [c for c in known if not _longer_name_follows(c, text, starts)]
    # a weak reading (a ticker that is a word, or no subject) never leads over one that is not: "Exxon Permian
    # production in BOE ..." is about Exxon, even with a capitalised word after its name
    lead = max(strong or [c for c in plain if not c.weak] or [c for c in known if not c.weak] or plain or known,
               key=lambda c: (c.confidence, -c.start))
    kept = {c.key for c in strong if c.confidence >= lead.confidence - MARGIN} | {lead.key}
    if COMPARISON.search(text):  # every company a comparison names: a ticker that is no word or abbreviation (not
        # one right after another company's name: "Micron HBM revenue vs ..." names Micron's product)
        kept |= {c.key for c in known if c.kind == "ticker" and not c.wordish and not _qualifies_a_name(text, c, known)}
    kept |= _compared_sides(text, known, starts)
    for run in _side_by_side(text, known):  # "NVDA AMD AVGO": three or more companies side by side are a list
        if kept & {c.key for c in run}:
            kept |= {c.key for c in run}
    kept = _sized_pairs(text, known, kept)
    grown = True
    while grown:  # a comparison or list cue joins a company to one already kept
        grown = False
        for c in known:
            if c.key not in kept and any(_linked(text, c, k, starts) for k in known if k.key in kept):
                kept.add(c.key)
                grown = True
    top = max((best[k] for k in kept), key=lambda c: (c.confidence, -c.start))
    for c in known:
        if c.key not in kept:
            c.set_aside(top.name, f"weaker evidence than '{top.text}' ({top.confidence:.2f}) and no comparison cue")


PAIR_RANK = 300
"""Two registrants both above this row of the SEC's market-value order (about the S&P 500's largest) side by side
are a pair whatever their sizes ("DUK NVDA")."""


def _capitals_pair(text: str, a: Candidate, b: Candidate) -> bool:
    """Two readings side by side, nothing but a space between, each a token in capitals that is no word nor
    abbreviation, a ticker among them ("UPS FDX", "ETR AVGO", "MU HBM")."""
    return (a.end < b.start and not text[a.end:b.start].strip() and "ticker" in (a.kind, b.kind)
            and all(c.text.isupper() and c.text.isalpha() and not c.wordish for c in (a, b)))


def _sized_pairs(text: str, known: list[Candidate], kept: set[str]) -> set[str]:
    """Two tickers side by side ("UPS FDX volume"): when neither registrant is far larger than the other (`size`),
    or both are among the `PAIR_RANK` largest, they are a pair and both are named; when one is far larger, the other is a product or segment of it that shares
    a smaller registrant's ticker ("MU HBM revenue": Micron's memory) and the larger one is the company, whichever
    comes first ("ETR AVGO semis revenue")."""
    kept = set(kept)
    ordered = sorted(known, key=lambda c: c.start)
    for a, b in zip(ordered, ordered[1:]):
        if a.key == b.key or not _capitals_pair(text, a, b) or not (kept & {a.key, b.key}):
            continue
        ra, rb = size_rank([a.ticker or a.text]), size_rank([b.ticker or b.text])
        if ra is not None and rb is not None and max(ra, rb) < PAIR_RANK:
            kept |= {a.key, b.key}  # two of the largest registrants: no product shares either's ticker
        elif far_larger(ra, [rb]):
            kept.discard(b.key)
            kept.add(a.key)
        elif far_larger(rb, [ra]):
            kept.discard(a.key)
            kept.add(b.key)
        elif ra is not None and rb is not None:
            kept |= {a.key, b.key}
    return kept or {known[0].key}


def set_aside_inside_longer_names(text: str, names: list[Candidate], companies: Mapping[str, Company]) -> None:
    """'Vanguard Group', 'Silicon Valley Bank' are names no registrant has: a derived name inside them (the head
    'Vanguard' of Vanguard Green Investment, the prefix 'Silicon Valley' of Silicon Valley Acquisition) is set aside
    when that company's names lack the group word; a company whose name merely starts a longer one is not meant."""
    for m in _LONGER_NAME.finditer(text):
        word = m.group(2)
        for c in names:
            if c.accepted and c.kind in _DERIVED_KINDS and m.start(1) <= c.start and c.end <= m.start(2) \
                    and not any(word.lower() in n.lower().split() for n in companies[c.key].names):
                c.set_aside(f"{m.group(1)} {word}", f"'{c.text}' begins the longer name '{m.group(1)} {word}', "
                            f"which is not {c.name}'s")
