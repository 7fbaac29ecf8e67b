"""The question linker: which companies a question names, each with a confidence and the reason.

`Linker(companies)` indexes every company's names (full names, aliases, the short names derived from
its legal name in `names.py`) and tickers (ticker history included). `Linker.candidates(text)` then
scores, with evidence rather than fixed lists (the index of names here; a name span scored in `name_score.py`,
ticker-shaped words found in `find_tickers.py` and scored in `ticker_score.py`):

* **names** (longest match first): how the span is written (capitalised, all lower case, all caps),
  how common the words are in English (`words.zipf`: "Target" the retailer vs "a target"), whether it
  opens the question, a possessive after it, and the kind of name (full name, distinctive head word,
  initialism, abbreviated word);
* **ticker-shaped tokens** (capitals only: lower-case words never become tickers): a `$`, parentheses,
  an exchange prefix or the word "ticker"/"symbol"/"stock" next to it, its position (terse analyst
  queries put the ticker first or last), whether it is an English word or a finance abbreviation
  (EPS, ROE, FCF, NI ...), whether the question shouts, and whether the rest of the question names
  the same company or another one;
* **company-like names the index does not hold** (`unknown.py`): a capitalised run before a legal-form word
  ("Zorblax Corporation"), a possessive ("Zorblax's"), a word that is not English at all, or an
  unknown ticker in ticker context ("$ZBLX"); and typos of known names ("Nvidea").

At EDGAR scale (issue 35) a name in capitals that is another company's ticker is read as that ticker, an
acronym head must be written in capitals, a company's own full name wins a name several share, and
`ranking.rank` keeps the best-evidenced companies, setting the rest aside as alternatives. A candidate is kept
when its confidence reaches `ACCEPT` (0.5); the rest stay in the list with their reason (alternatives with
`alternative_to`), so a caller (or an LLM router) can see what was considered and why it was dropped.
"""
from __future__ import annotations

import re

from finrag.tools.routing.continuation import continued
from finrag.tools.routing.find_tickers import find_tickers
from finrag.tools.routing.mentions import (
    ACCEPT,
    ALTERNATIVE,
    EXCHANGE_BEFORE,
    Candidate,
    Company,
)
from finrag.tools.routing.name_score import AT_BEFORE, name_confidence
from finrag.tools.routing.name_words import name_word_readings, name_words
from finrag.tools.routing.names import blank_check, derived_names
from finrag.tools.routing.peers import peer_readings, peer_tails
from finrag.tools.routing.ranking import COMPARISON, rank, set_aside_inside_longer_names
from finrag.tools.routing.registrants import name_tails
from finrag.tools.routing.shapes import (
    abbreviation_of_unknown,
    asked_of_group,
    asked_of_named,
    asked_of_unknown,
    calendar_word,
    generic_tail_of_unknown,
    products_of_unknown,
    unknown_continuation,
    veto_by_shape,
)
from finrag.tools.routing.size import far_larger, size_rank
from finrag.tools.routing.subject import (
    LINE_ITEM,
    LINE_ITEM_NEXT,
    SUBJECT_MARK,
    compared_lower_names,
    legal_form_after,
    owner_of_line_item,
    prominent,
)
from finrag.tools.routing.text import CASED_SUFFIX_WORD, name_core, strip_accents, strip_legal_suffix
from finrag.tools.routing.ticker_score import (
    COMPARE_GLUE,
    POSSESSIVE,
    ticker_context,
)
from finrag.tools.routing.typos import Typos
from finrag.tools.routing.unknown import unknown_names
from finrag.tools.routing.words import zipf
from finrag.tools.sequences import uniq

__all__ = ["ACCEPT", "ALTERNATIVE", "Candidate", "Company", "Linker"]

_TOKEN = re.compile(r"[^\W_]+|&")


def comp_tickers(comp: "Company") -> list[str]:
    return [t.replace(".", "").replace("-", "") for t in comp.tickers]


_TAG_COLON = re.compile(r"^\s*:\s*\$?[A-Za-z]")  # 'NASDAQ: PLTR': the exchange's name tags the ticker after it
_POSSESSIVE_TAIL = re.compile(r"['’]s?$")
_GENERIC_TAIL_NAME = re.compile(r"^[A-Za-z]+\s+(?:international|worldwide|global|holdings|group|systems|"
                                r"communications|stores|wholesale|companies|technologies|enterprises|industries)$",
                                re.IGNORECASE)
"""A one-word name and a generic tail (`documents.name_variants` drops the tail to make a variant)."""
_TAIL_COMMON = 5.0
"""Such a variant is no name when the word is this common in English ('United', 'General'; not the surname
'Williams' of The Williams Companies, 4.7)."""
_SIZED_ZIPF = 4.3
"""A head word shared by several registrants goes to a far larger one (`size.far_larger`: "Unity", "Intuitive",
"Toyota") only when it is rarer than this in English ('Enterprise', 'Liberty', 'General' stay shared)."""


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end): lower case, accents removed, '&' kept as a token."""
    if text.isascii():
        low = text.lower()
        return [(low[m.start():m.end()], m.start(), m.end()) for m in _TOKEN.finditer(text)]
    return [(strip_accents(m.group(0)).casefold(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def alias_tokens(alias: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in _tokens(alias))


class Linker:
    """Finds candidate companies in a question; see the module docstring for the evidence used."""

    _KIND_RANK = {"name": 0, "abbrev": 1, "short": 1, "initialism": 2, "head": 3}

    def __init__(self, companies: dict[str, Company], ticker_index: dict[str, set[str]]):
        self.companies = companies
        self.ticker_index = ticker_index
        self.alias_index: dict[tuple[str, ...], dict[str, str]] = {}
        forms: dict[tuple[str, ...], str] = {}
        for ckey, comp in companies.items():
            own_tickers = {t.replace(".", "").replace("-", "").casefold() for t in comp.tickers}
            tailed = {alias_tokens(n)[:1] for n in comp.names if _GENERIC_TAIL_NAME.search(n)}
            own = {alias_tokens(comp.name), alias_tokens(strip_legal_suffix(comp.name))}
            for n in comp.names:
                toks = alias_tokens(n)
                if len(toks) == 1 and toks[0] in own_tickers and not any(ch.islower() for ch in n):
                    continue  # a ticker used as a name ('K', 'A'): tickers are scored by context instead
                if len(toks) == 1 and toks in tailed and toks not in own and zipf(toks[0]) >= _TAIL_COMMON:
                    continue  # 'United' of United Technologies, a generic tail dropped: a common word, no name
                if toks and not (len(toks) == 1 and toks[0].isdigit()):
                    self.alias_index.setdefault(toks, {})[ckey] = "name"
                    forms.setdefault(toks, n)
        self.initialism_forms: dict[tuple[str, ...], str] = {}
        self._ticker_heads: set[tuple[str, ...]] = set()
        self._acronyms: set[tuple[str, ...]] = set()  # heads written in capitals in the name ('MGT', 'CB')
        self.full_names: dict[str, set[tuple[str, ...]]] = {  # each company's own name, as tokens, legal tail off
            k: {t for t in (alias_tokens(c.name), alias_tokens(strip_legal_suffix(c.name))) if t}
            for k, c in companies.items()}
        heads: dict[tuple[str, ...], set[str]] = {}
        derived: list[tuple[tuple[str, ...], str, str, str]] = []
        for ckey, comp in companies.items():
            for n in uniq([comp.name, *comp.names[:4]]):
                for form, kind in derived_names(n):
                    toks = alias_tokens(form)
                    if not toks:
                        continue
                    if kind in ("head", "prefix"):
                        heads.setdefault(toks, set()).add(ckey)
                    derived.append((toks, ckey, kind, form))
        tickers = set(ticker_index)
        mixed: set[tuple[tuple[str, ...], str]] = {(t, k) for t, k, _kind, form in derived if not form.isupper()}
        mixed |= {(alias_tokens(strip_legal_suffix(n)), k) for k, comp in companies.items()
                  for n in [comp.name, *comp.names] if not n.isupper()}
        caps: set[tuple[tuple[str, ...], str]] = {(t, k) for t, k, _kind, form in derived
                                                  if not t[1:] and len(t[0]) <= 3 and form.isupper() and form.isalpha()}
        self._caps_short = caps - mixed  # short names a company writes only in capitals ('OP', 'SCI'; not 'Dow')
        self._rank = {k: size_rank(c.tickers) for k, c in companies.items()}
        for toks, ckey, kind, form in derived:
            word = "".join(toks) if re.fullmatch(r"[A-Za-z]+['’][A-Za-z]+", form) else toks[0]  # O'Reilly: one word
            sized = kind in ("head", "prefix") and zipf(word) < _SIZED_ZIPF  # a distinctive word: a size prior
            if toks in self.alias_index and ckey not in self.alias_index[toks] and not (
                    sized and kind == "head" and self._far_larger(ckey, self.alias_index[toks])):
                continue  # another company's name: never a derived name of this one, unless it is far larger
            if kind in ("head", "prefix") and len(heads[toks]) > 1 and not (sized and self._far_larger(ckey, heads[toks])):
                continue  # shared by several companies, none of them far larger than the others
            if kind == "head" and (zipf(word) >= 4.6 or (len(word) < 4 and not form.isupper())):
                continue  # an ordinary English word
            if kind == "head" and toks[0] in {t.casefold() for t in comp_tickers(companies[ckey])}:
                self._ticker_heads.add(toks)
            if kind == "head" and len(toks) == 1 and form.isupper() and form.isalpha() \
                    and not companies[ckey].name.isupper():
                self._acronyms.add(toks)  # 'Acme' of Acme Widgets (ACME): a name in mixed case only
            if kind == "initialism":
                shape = form.replace("&", "")
                if shape in tickers and ckey not in ticker_index.get(shape, ()):
                    continue  # another company's ticker
                self.initialism_forms[toks] = form
            self.alias_index.setdefault(toks, {}).setdefault(ckey, kind)
        self._name_words = name_words(companies, lambda k: self._rank.get(k))
        self.max_alias_len = max((len(t) for t in self.alias_index), default=1)
        self._longest_from: dict[str, int] = {}
        for t in self.alias_index:
            self._longest_from[t[0]] = max(self._longest_from.get(t[0], 0), len(t))
        self._typos = Typos(self.alias_index, companies)
        self._peer_tails = peer_tails(companies)

    def _find_names(self, text: str) -> list[Candidate]:
        toks = _tokens(text)
        out: list[Candidate] = []
        i = 0
        while i < len(toks):
            taken = 0
            # "Casey's General Stores" is CASEYS GENERAL STORES: a name's possessive apostrophe is optional
            apostrophe = i + 1 < len(toks) and toks[i + 1][0] == "s" and text[toks[i][2]:toks[i + 1][1]] in ("'", "’")
            longest = max(self._longest_from.get(toks[i][0], 0),
                          self._longest_from.get(toks[i][0] + "s", -1) + 1 if apostrophe else 0)
            no_cue: set[str] = set()
            for n in range(min(longest, len(toks) - i), 0, -1):
                key = tuple(t for t, _, _ in toks[i:i + n])
                entries = self.alias_index.get(key)
                if not entries and apostrophe and n >= 2:
                    key = (key[0] + "s", *key[2:])
                    entries = self.alias_index.get(key)
                if not entries:
                    continue
                start, end = toks[i][1], toks[i + n - 1][2]
                surface = text[start:end]
                found = []
                other_ticker = self._caps_ticker(surface)
                calendar = n == 1 and calendar_word(text, start, end)
                context = (calendar or bool(other_ticker)) and ticker_context(text, start, end,
                                                                                    text[start - 1:start] == "$")
                for ckey, kind in sorted(entries.items(), key=lambda kv: (self._KIND_RANK.get(kv[1], 9), kv[0])):
                    conf, why = name_confidence(self, kind, key, surface, text, start, end)
                    if SUBJECT_MARK in why and not prominent(self.companies[ckey].tickers):
                        conf, why = 0.0, f"'{surface}' in lower case: {ckey} is not among the largest registrants"
                    if conf > 0 and calendar and not context:
                        conf, why = 0.0, f"'{surface}' is a calendar word (a month or a period), not a company"
                    if conf > 0 and n == 1 and (key, ckey) in self._caps_short and not surface.isupper():
                        conf, why = 0.0, f"'{surface}': the short name is written in capitals"
                    if conf > 0 and other_ticker and ckey not in self.ticker_index[other_ticker] \
                            and (not (kind == "name" and self._spelt_in_capitals(ckey, key)
                                      and not self._starts_longer_name(ckey, key)) or context):
                        conf, why = 0.0, f"'{surface}' in capitals is the ticker {other_ticker}: scored as a ticker"
                    if conf > 0 and _TAG_COLON.match(text[end:end + 6]) and EXCHANGE_BEFORE.match(surface + ":"):
                        conf, why = 0.0, f"'{surface}:' tags the ticker after it: the exchange, not a company asked about"
                    if conf >= ACCEPT and (ckey in no_cue or (
                            (kind in ("prefix", "head") or (surface.islower() and len(key) >= 2 and key not in self.full_names.get(ckey, ())))
                            and all(zipf(w) >= 3.5 for w in key if w != "&")
                            and not prominent(self.companies[ckey].tickers) and not self._name_cue(text, start, end)
                            and not self._whole_core(ckey, key, surface))):
                        conf, why = ALTERNATIVE, f"'{surface}': English words beginning a small registrant's name, " \
                                                 "no company cue (a place or a phrase: 'Gulf Coast')"
                        no_cue.add(ckey)  # nor its head alone inside the phrase
                    if conf >= ACCEPT and kind in ("prefix", "head", "initialism") and not self._name_cue(text, start, end) \
                            and (borrowed := blank_check(self.companies[ckey])):  # a SPAC's words are borrowed
                        conf, why = ALTERNATIVE, f"'{surface}' only begins a blank-check company's name ({borrowed})"
                    if conf > 0 and POSSESSIVE.match(text[end:end + 3]):
                        conf, why = min(0.99, conf + 0.05), why + ", possessive"
                    comp = self.companies[ckey]
                    # a derived initialism, or a short word in capitals the company does not spell so ('ARM' of Arm
                    # Holdings): ticker-like evidence, weak beside a named company
                    weak = kind == "initialism" or (len(words := surface.replace("&", "")) <= 5 and words.isupper()
                                                    and not self._spelt_in_capitals(ckey, key))
                    found.append(Candidate(comp.name or ckey, ckey, comp.in_registry, conf, why, kind, surface,
                                           start, end, weak=weak, wordish=weak))
                if len(entries) > 1:
                    self._share(found, key, legal_form_after(text, end))
                longer = continued(self, text, toks, i, n, found)
                out.extend(found)
                if longer:
                    out.extend(longer[1])
                    taken = longer[0] - i + 1
                    break
                if any(c.accepted for c in found):
                    taken = n
                    break
            i += taken or 1
        return out

    def _whole_core(self, ckey: str, toks: tuple[str, ...], surface: str) -> bool:
        """'Grocery Outlet' of Grocery Outlet Holding Corp.: the name's every word but its legal and holding words,
        each capitalised, is the whole distinctive name, not English words that only begin it."""
        return len(toks) >= 2 and all(w[:1].isupper() for w in surface.split()) \
            and [t for t in toks if t not in ("&", "and")] == \
            [t for t in name_core(self.companies[ckey].name).split() if t != "and"]

    @staticmethod
    def _name_cue(text: str, start: int, end: int) -> bool:
        """A possessive or a legal form after a name, 'at' before it, or a line item right after it."""
        return bool(POSSESSIVE.match(text[end:end + 3]) or legal_form_after(text, end)
                    or AT_BEFORE.search(text[:start]) or LINE_ITEM_NEXT.match(text[end:end + 40]))

    def _caps_ticker(self, surface: str) -> str:
        """The ticker a one-word surface written in capitals is ('LULU' of "LULU's"), else ''."""
        word = _POSSESSIVE_TAIL.sub("", surface)
        return word if word.isupper() and word.isalpha() and word in self.ticker_index else ""

    def _starts_longer_name(self, ckey: str, toks: tuple[str, ...]) -> bool:
        """Whether the company's own name only starts with these tokens ('SWK' of SWK Holdings): another company's
        exact ticker written in capitals ('SWK', Stanley Black & Decker's) beats it."""
        return any(len(f) > len(toks) and f[:len(toks)] == toks for f in self.full_names.get(ckey, ()))

    def _spelt_in_capitals(self, ckey: str, toks: tuple[str, ...]) -> bool:
        """Whether the company's own names write these tokens in capitals ('HP' of HP Inc, an alias 'WD'; not a
        ticker used as its file key)."""
        comp = self.companies[ckey]
        shown = strip_legal_suffix(comp.name)
        return (shown.isupper() and alias_tokens(shown) == toks) or any(
            n.isupper() and alias_tokens(n) == toks and not (n == comp.key and n in comp.tickers) for n in comp.names)

    def _far_larger(self, ckey: str, others) -> bool:
        """Whether `ckey` is far larger than every other company of `others` (`size.far_larger`)."""
        return far_larger(self._rank.get(ckey), [self._rank.get(k) for k in others if k != ckey])

    def _share(self, found: list[Candidate], toks: tuple[str, ...], legal_form: bool = False) -> None:
        """One name, several companies: a company far larger than the others wins ('Vertex' is Vertex
        Pharmaceuticals, not Vertex, Inc.; unless a legal-form word follows: "Vertex, Inc."), else the company whose
        own name it is ('Target' is Target, not Target Group, whose name only starts with it) and the others are its
        alternatives; else the evidence is split."""
        live = [c for c in found if c.confidence > 0]
        full = [c for c in live if toks in self.full_names.get(c.key, ())]
        named = [c for c in live if c.kind == "name"]
        sized = all(zipf(t) < _SIZED_ZIPF for t in toks if t != "&")
        large = [c for c in live if sized and self._far_larger(c.key, [o.key for o in live])]
        if large and not legal_form:
            for c in live:
                if c is not large[0]:
                    c.set_aside(large[0].name, f"'{c.text}' names {large[0].name}, far larger (size prior)")
            return
        best = full if len(full) == 1 else (named if len(named) == 1 else [])
        if best:
            for c in live:
                if c is not best[0]:
                    c.set_aside(best[0].name, f"'{c.text}' is {best[0].name}'s own name"
                                if full else f"'{c.text}' is a name of {best[0].name}, derived for this one")
            return
        for c in found:
            c.confidence *= 0.8
            c.reason += f" (shared by {len(found)} companies)"

    # ------------------------------------------------------------------- all
    def candidates(self, text: str) -> list[Candidate]:
        """Every candidate, accepted or not, in order of appearance."""

        names = self._find_names(text)
        set_aside_inside_longer_names(text, names, self.companies)
        veto_by_shape(text, names)
        accepted = [c for c in names if c.accepted]
        taken = [(c.start, c.end) for c in accepted]
        named = {c.key for c in accepted}
        tickers = find_tickers(self, text, taken, named)
        veto_by_shape(text, tickers)
        asked_of_named(text, tickers, names)
        asked_of_group(text, tickers)
        taken += [(c.start, c.end) for c in tickers if c.accepted]
        tickers += name_word_readings(text, self._name_words, self.companies,
                                      [(c.start, c.end) for c in [*names, *tickers] if c.confidence > 0 or c.key])
        taken += [(c.start, c.end) for c in tickers if c.accepted and c.kind == "word"]
        unknown = []
        for cand in unknown_names(text, taken):
            fixed = self._typos.fuzzy(cand) if cand.kind == "unknown" and cand.confidence < 0.9 else None
            unknown.append(fixed or cand)
        unknown += self._typos.lower_typos(text, [*taken, *((c.start, c.end) for c in unknown)])
        unknown += self._typos.opening_typo(text, [*taken, *((c.start, c.end) for c in [*names, *tickers, *unknown]
                                                            if c.confidence > 0 or c.key)])
        products_of_unknown(text, names, [*names, *tickers])
        abbreviation_of_unknown(text, tickers, [*names, *tickers], LINE_ITEM, name_tails())
        generic_tail_of_unknown(text, names, name_tails(), [*names, *tickers])
        unknown += unknown_continuation(text, names, [*names, *tickers, *unknown], name_tails(),
                                        lambda w: bool(CASED_SUFFIX_WORD.fullmatch(w)))
        compared = bool(COMPARISON.search(text))
        if not compared:
            owner_of_line_item(text, unknown, [*names, *tickers], LINE_ITEM_NEXT)
            asked_of_unknown(text, tickers, unknown)
        known_named = any(c.accepted and c.key for c in [*names, *tickers, *unknown])
        for c in unknown:
            if not c.key and known_named and c.confidence < 0.9:
                c.confidence = min(c.confidence, 0.4)
                c.reason += "; a known company is named"
        compared_lower_names(text, names, [*names, *tickers], COMPARE_GLUE)
        for c in tickers:
            if c.kind == "unknown" and compared and known_named and 0.45 <= c.confidence < ACCEPT:
                c.confidence = 0.55  # every company a comparison names is routed or said to be missing
                c.reason += ", named in a comparison"
            elif c.kind == "unknown" and not known_named and c.confidence < ACCEPT and \
                    (c.end >= len(text.strip().rstrip("?.!")) or c.start == len(text) - len(text.lstrip())):
                c.confidence = 0.55
                c.reason += ", first or last word and no known company"
        peers = peer_readings(text, [*names, *tickers], self._peer_tails, self.companies) if known_named else []
        out = sorted([*names, *tickers, *unknown, *peers], key=lambda c: (c.start, -c.confidence))
        rank(text, out)
        return out
