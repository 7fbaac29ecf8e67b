"""Names that continue an indexed company's name into another company's (issue 48; a part of the linker).

"Apple Hospitality REIT", "Coca-Cola Consolidated", "Coca-Cola FEMSA", "Target Hospitality" and "Meta Materials"
begin with an indexed company's name, but name another company. Two principles, both about the words right after
the matched name:

* **every SEC registrant is known** (`registrants.py`): when the capitalised words after a matched name continue it
  into another registrant's whole longer name (legal tail aside; "Franklin Templeton", a brand of Franklin Resources,
  only begins Franklin Templeton Holdings Trust's) (the registrant's tickers are not the matched company's), the longer
  registrant wins. If the index holds it, the question is about it; if not, the question names a company the index
  does not hold, and it is answered as such (no figure of the shorter company's);
* **a possessive, a legal form or an institution's noun ends the name**: capitalised words after a matched name that
  carry the possessive ("Meta Materials' revenue"), end in a legal-form word ("Apple Leasing Corp") or in the noun
  of an institution ("Boeing Employees Credit Union") make a longer name that is not the matched company's own,
  whether or not the SEC lists it.

A question typed in lower case tells nothing by its case: after a name written in lower case, lower-case words
continue it into a registrant's name as capitalised ones do ("coca-cola consolidated").

`longer_name(text, tokens, i, n, own_tickers)` returns the longer name at tokens[i:] (its end token, its display
name and the registrant's tickers, empty when not listed), or None.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Sequence

from finrag.tools.routing.mentions import Candidate
from finrag.tools.routing.registrants import load_registrants
from finrag.tools.routing.text import CASED_SUFFIX_WORD, SUFFIX_WORDS, clean_company_name, strip_accents
from finrag.tools.routing.words import zipf
from finrag.tools.sequences import uniq
from finrag.tools.vocabulary.dates import MONTH_RE

if TYPE_CHECKING:
    from finrag.tools.routing.linker import Linker

__all__ = ["LongerName", "continued", "longer_name", "registrant_prefixes"]

_TOKEN = re.compile(r"[^\W_]+|&")
_POSSESSIVE_AFTER = re.compile(r"^(?:['’]s\b|['’](?=\s|$|[,.?!]))")
_CAPITAL_NEXT = re.compile(r"^['’]s?\s+[A-Z]")
"""A possessive before a capitalised word is inside a name ("Sam's Club"), not at its end."""
_LEGAL_WORD = re.compile(rf"(?i)^(?:{CASED_SUFFIX_WORD.pattern}|{SUFFIX_WORDS})$")
"""A legal-form word in any case ('Co', 'CO'): the company's own name goes on, no other name begins."""
_LEGAL_END = re.compile(rf"^{CASED_SUFFIX_WORD.pattern}$")
"""A legal-form word written as one ('Corp', 'Inc'): it ends a longer name ('inc.' in lower case may be 'income')."""
_INSTITUTION = re.compile(r"^(?:Union|Bank|Bancorp|Bancshares|Foundation|University|Hospital|Association|Cooperative)$")
"""A capitalised run after a company's name that ends in the noun of an institution ("Boeing Employees Credit Union",
"Apple Bank") names that institution, listed with the SEC or not."""
_PARTICLE = re.compile(r"^(?:de|del|do|du|des)$")
"""The 'of' of a company's name in Romance languages ("Walmart de Mexico", "Visa do Brasil"): the capitalised word
after it goes on the name (not 'da', 'di', 'van': a person's name, "Intuitive da Vinci", is a product's)."""
_COMMON = 3.5
"""Words of a company's name are ordinary English words ('Materials', 'Hospitality'); coined words name products."""
_NOT_NAME = re.compile(rf"(?i)^(?:{MONTH_RE}|FY\w*|Q[1-4]\w*|[1-4]Q\w*|H[12]|CY\w*|YE\w*|\d.*)$")


@dataclass(frozen=True)
class LongerName:
    """A longer name at the matched one: the index of its last token, how it is shown, the registrant's tickers."""

    last: int
    name: str
    tickers: tuple[str, ...] = ()
    why: str = ""


def _tokens(name: str) -> tuple[str, ...]:
    return tuple(strip_accents(m.group(0)).casefold() for m in _TOKEN.finditer(name))


@lru_cache(maxsize=1)
def _by_first_token() -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """Every SEC registrant's conformed name and tickers, by the first token of its name (read once)."""
    out: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for r in load_registrants():
        first = _TOKEN.search(r.name)
        if first:
            out.setdefault(strip_accents(first.group(0)).casefold(), []).append((r.name, r.tickers))
    return out


@lru_cache(maxsize=4096)
def registrant_prefixes(first: str) -> tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]:
    """The registrants whose name begins with the token `first`: (name as tokens, legal tail removed; the name as
    shown; its tickers), names of two tokens or more."""
    out = []
    for name, tickers in _by_first_token().get(first, ()):
        shown = clean_company_name(name) or name
        toks = _tokens(shown)
        if len(toks) >= 2:
            out.append((toks, shown, tuple(t.replace("-", ".") for t in tickers)))
    return tuple(out)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not _NOT_NAME.match(word)


def _written_as_the_name(word: str, lower: bool) -> bool:
    """A word that may go on a name: capitalised, or in lower case after a name written in lower case ("coca-cola
    consolidated": a question typed in lower case tells nothing by its case)."""
    return _capitalised(word) or (lower and word.islower() and not _NOT_NAME.match(word))


def longer_name(text: str, tokens: Sequence[tuple[str, int, int]], i: int, n: int,
                own_tickers: set[str]) -> Optional[LongerName]:
    """The longer name that tokens[i:i + n] (a matched company name, `own_tickers` its company's) begins, if the
    capitalised words after it continue it into another registrant's name or end in a possessive or a legal form."""
    key = tuple(t for t, _, _ in tokens[i:i + n])
    lower = text[tokens[i][1]:tokens[i + n - 1][2]].islower() if n else False
    best: Optional[LongerName] = None
    for toks, shown, tickers in registrant_prefixes(key[0]) if key else ():
        if len(toks) <= n or toks[:n] != key or own_tickers & {t.replace(".", "") for t in tickers}:
            continue
        m = 0
        while n + m < len(toks) and i + n + m < len(tokens) and tokens[i + n + m][0] == toks[n + m] \
                and _written_as_the_name(text[tokens[i + n + m][1]:tokens[i + n + m][2]], lower):
            m += 1
        if m and n + m == len(toks) and (best is None or i + n + m - 1 > best.last):
            best = LongerName(i + n + m - 1, shown, tickers, f"continues into the registrant {shown}'s name")
    if best is not None:
        return best
    j = i + n
    if j + 1 < len(tokens) and _PARTICLE.match(text[tokens[j][1]:tokens[j][2]]) \
            and _capitalised(text[tokens[j + 1][1]:tokens[j + 1][2]]) and not lower \
            and not text[tokens[j - 1][2]:tokens[j + 1][1]].replace(text[tokens[j][1]:tokens[j][2]], "").strip():
        # "Walmart de Mexico": a lower-case name particle and a capitalised word go on the name: another company's
        k = j + 2
        while k < len(tokens) and k < j + 4 and _capitalised(text[tokens[k][1]:tokens[k][2]]) \
                and not text[tokens[k - 1][2]:tokens[k][1]].strip():
            k += 1
        shown = text[tokens[i][1]:tokens[k - 1][2]]
        return LongerName(k - 1, shown, (), f"'{shown}' goes on past a name particle: a longer name")
    while j < len(tokens) and j < i + n + 3 and tokens[j][1] - tokens[j - 1][2] <= 2 \
            and _capitalised(word := text[tokens[j][1]:tokens[j][2]]) and not _LEGAL_WORD.match(word) \
            and text[tokens[j - 1][2]:tokens[j][1]].strip() in ("", "-"):
        j += 1
        end = tokens[j - 1][2]
        if (_POSSESSIVE_AFTER.match(text[end:end + 3]) and not _CAPITAL_NEXT.match(text[end:end + 6])) or (
                j < len(tokens) and _LEGAL_END.match(text[tokens[j][1]:tokens[j][2]])
                and text[end:tokens[j][1]].strip() in ("", ",")) or _INSTITUTION.match(word):
            shown = text[tokens[i][1]:end]
            legal = j < len(tokens) and bool(_LEGAL_END.match(text[tokens[j][1]:tokens[j][2]]))
            if not legal and any(zipf(text[a:b]) < _COMMON for _t, a, b in tokens[i + n:j]):
                return None  # a product or a brand of the company's own ('Microsoft Azure's'), not a company's name
            return LongerName(j - 1, shown, (), f"'{shown}' ends in a possessive or a legal form: a longer name")
    return None


def continued(linker: Linker, text: str, toks: list[tuple[str, int, int]], i: int, n: int,
              found: list[Candidate]) -> Optional[tuple[int, list[Candidate]]]:
    """A matched name the words after it continue into another company's (`continuation.py`): the readings of
    the matched name are set aside; the longer registrant is read instead (indexed or not). Returns the longer
    name's last token and its reading, or None."""
    live = [c for c in found if c.accepted]
    if not live:
        return None
    if own_next := _own_name_goes_on(linker, text, toks, i, n, live):
        return own_next, []
    own = {t.replace(".", "").replace("-", "") for c in live for t in linker.companies[c.key].tickers}
    longer = longer_name(text, toks, i, n, own)
    if longer is None:
        return None
    start, end = toks[i][1], toks[longer.last][2]
    surface = text[start:end]
    for c in live:
        c.set_aside(longer.name, f"'{surface}' {longer.why}, not {c.name}'s")
    keys = uniq(k for t in longer.tickers for k in sorted(linker.ticker_index.get(t, ())
                                                          or linker.ticker_index.get(t.replace(".", ""), ())))
    if keys:
        return longer.last, [Candidate(linker.companies[k].name or k, k, linker.companies[k].in_registry, 0.9,
                                       f"'{surface}' {longer.why}", "name", surface, start, end) for k in keys[:1]]
    if longer.tickers:
        return longer.last, [Candidate(longer.name, "", False, 0.9, f"'{surface}' {longer.why}, which the index "
                                       "does not hold", "unknown", surface, start, end, ticker=longer.tickers[0])]
    return longer.last, []


def _own_name_goes_on(linker: Linker, text: str, toks: list[tuple[str, int, int]], i: int, n: int,
                      live: list[Candidate]) -> int:
    """'O'Reilly Auto', 'Texas Instr': a capitalised word after the matched name that abbreviates the next word of
    the company's own name (its first three letters or more) is part of that name, not another company: the
    index of that token, else 0."""
    j = i + n
    if j >= len(toks) or len(toks[j][0]) < 3 or not text[toks[j][1]:toks[j][1] + 1].isupper() \
            or toks[j][1] - toks[j - 1][2] > 1:
        return 0
    key = tuple(t for t, _, _ in toks[i:j])
    for c in live:
        for full in linker.full_names.get(c.key, ()):
            if len(full) > n and full[:n] == key and full[n] != toks[j][0] and full[n].startswith(toks[j][0]):
                c.reason += f", '{text[toks[j][1]:toks[j][2]]}' abbreviating its own name's '{full[n]}'"
                return j
    return 0
