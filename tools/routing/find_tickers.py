"""Ticker-shaped words of a question, each read as the registrants it is the ticker of (a part of the linker).

Words in capitals (with '$', a class suffix 'BRK.B'), cashtags in any case ('$aapl'), and lower-case tickers only
in a list of tickers or alone as a prominent registrant's ticker (`subject.lower_ticker_list`,
`subject.lower_tickers`). Each is scored by `ticker_score.ticker_score`; a calendar word is never a ticker by itself
(`shapes.calendar_word`); a scale after '$' ('$bn', '5,000 $M') is the answer's unit.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from finrag.tools.routing.mentions import ACCEPT, Candidate
from finrag.tools.routing.shapes import calendar_token, calendar_word, listed_capitals
from finrag.tools.routing.subject import GENERIC_SUBJECT, LINE_ITEM, lower_ticker_list, lower_tickers, prominent
from finrag.tools.routing.ticker_score import (
    POSSESSIVE,
    abbreviated_metric,
    compared_tickers,
    opens,
    ticker_context,
    ticker_score,
)
from finrag.tools.routing.unknown import unknown_ticker
from finrag.tools.routing.words import english_penalty, is_finance_abbreviation, is_shouting, zipf

if TYPE_CHECKING:
    from finrag.tools.routing.linker import Linker

__all__ = ["DOLLAR_TICKER", "SCALE_AFTER_DOLLAR", "TICKER_TOKEN", "find_tickers"]

TICKER_TOKEN = re.compile(r"(?<![\w&.\-$])(\$)?([A-Z]{1,5}(?:[.\-][A-Z])?)(?![\w&]|[.\-][A-Za-z0-9])")
DOLLAR_TICKER = re.compile(r"\$([A-Za-z]{1,5}(?:\.[A-Za-z])?)\b")
# "$bn", "$mm", "USD bn": a scale written after the currency sign is the answer's unit, never a cashtag
SCALE_AFTER_DOLLAR = re.compile(r"(?i)(?:bn|b|mm|mn|m|k|mil|bil|thousands?|millions?|billions?)")
_SCALE_BEFORE = re.compile(r"(?i)(?:\d|\bin|\busd)\s*$")  # "5,000 $M", "in $B": upper-case scales, never Macy's or a cashtag


def find_tickers(linker: "Linker", text: str, taken: list[tuple[int, int]], named: set[str]) -> list[Candidate]:
    """Every ticker-shaped reading of the question outside the spans `taken` by accepted names (`named`: their
    companies), scored by `ticker_score`; unknown tickers in ticker context; lists of tickers read whole."""
    shouting = is_shouting(text)
    out = []
    spans_named = list(taken) + [(m.start(2), m.end(2)) for m in TICKER_TOKEN.finditer(text)
                                 if m.group(2) in linker.ticker_index and not english_penalty(m.group(2))
                                 and not is_finance_abbreviation(m.group(2)) and len(m.group(2)) >= 2]
    spans = [(m.group(1) == "$", m.group(2), m.start(2), m.end(2)) for m in TICKER_TOKEN.finditer(text)
             if not (m.group(1) and SCALE_AFTER_DOLLAR.fullmatch(m.group(2)) and _SCALE_BEFORE.search(text[:m.start()]))]
    spans += [(True, m.group(1).upper(), m.start(1), m.end(1)) for m in DOLLAR_TICKER.finditer(text)
              if not m.group(1).isupper() and not SCALE_AFTER_DOLLAR.fullmatch(m.group(1))]
    listed = lower_ticker_list(text, lambda t: t in linker.ticker_index, lambda w: zipf(w) < 3.5)
    spans += [(False, t, s, e) for t, s, e in listed if not any(a <= s < b for a, b in taken)]
    in_list = {s for _t, s, _e in listed}
    lone = [(t, s, e, why) for t, s, e, why in lower_tickers(  # 'msft azure growth': a lower-case ticker alone
        text, lambda t: t in linker.ticker_index, lambda t: prominent([t]),
        lambda w: is_finance_abbreviation(w) or calendar_token(w), lambda s: opens(text, s), spans_named)
        if s not in in_list and not any(a <= s < b for a, b in taken)]
    spans += [(False, t, s, e) for t, s, e, _why in lone]
    alone = {s: why for _t, s, _e, why in lone}
    known = [(tick, s, e) for _d, tick, s, e in spans if not any(a <= s < b for a, b in taken)
             and (linker.ticker_index.get(tick.replace("-", ".")) or linker.ticker_index.get(tick.replace("-", "")))]
    # a finance abbreviation right after another ticker is the metric asked of it ("CRM ARR", "GM ASR")
    known = [k for i, k in enumerate(known) if not (i and is_finance_abbreviation(k[0])
                                                    and not text[known[i - 1][2]:k[1]].strip())]
    sole = (not named and not taken and len(known) == 1 and not GENERIC_SUBJECT.search(text)
            and bool(LINE_ITEM.search(rest := text[:known[0][1]] + " " + text[known[0][2]:])
                     or abbreviated_metric(rest)))
    for dollar, tick, s, e in spans:
        if any(a <= s < b for a, b in taken):
            continue
        norm = tick.replace("-", ".")
        keys = linker.ticker_index.get(norm) or linker.ticker_index.get(norm.replace(".", ""))
        if calendar_word(text, s, e) and not ticker_context(text, s, e, dollar):
            continue  # 'Dec vs Nov', 'Q2', 'FY': a calendar word is never a ticker by itself
        if keys:
            conf, why = ticker_score(norm, dollar, text, s, e, shouting, named, keys, spans_named,
                                           sole_subject=sole)
            if s in in_list:
                conf, why = max(conf, 0.7), "one of a list of tickers written in lower case"
            elif s in alone:
                conf, why = 0.6, alone[s]
            core = norm.split(".")[0]
            subject = bool(POSSESSIVE.match(text[e:e + 3])) or opens(text, s) \
                or e >= len(text.strip().rstrip("?.!"))
            context = ticker_context(text, s, e, dollar)
            wordish = not context and (bool(english_penalty(core)) or is_finance_abbreviation(core)
                                       or len(core) == 1 or zipf(core) >= 3.0 or bool(LINE_ITEM.match(text, s)))
            wordish = wordish and s not in in_list and s not in alone
            weak = wordish or (not context and not subject and s not in in_list) or s in alone
            for ckey in sorted(keys, key=lambda k: (not linker.companies[k].in_registry, k)):
                comp = linker.companies[ckey]
                c = conf * (0.8 if len(keys) > 1 else 1.0)
                out.append(Candidate(comp.name or ckey, ckey, comp.in_registry, c, f"ticker {norm}: {why}",
                                     "ticker", tick, s, e, ticker=norm, weak=weak, wordish=wordish))
        else:
            unknown = unknown_ticker(norm, dollar, text, s, e, shouting)
            if unknown:
                out.append(unknown)
    compared_tickers(text, out)
    listed_capitals(text, out, is_finance_abbreviation, ACCEPT)
    return out
