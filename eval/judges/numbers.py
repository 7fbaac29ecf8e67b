"""Figures in text: `parse_numbers` finds numbers with their units, scales and rounding ("$1,577 million",
"(1,561)", "65.4%", "USD 8.7bn", "5,466,312 (in thousands)"), `question_unit` reads the unit a question
asks for, and `numbers_match` decides whether an answer's figure states a gold figure (units, scales,
fractions vs percents and rounding normalised). Used by the offline judge.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from finrag.eval.judges.base import to_text
from finrag.tools.numbers import SCALE_WORDS as _SCALES
from finrag.tools.vocabulary.dates import MONTH_WORDS

__all__ = ["NumberMention", "parse_numbers", "question_unit", "numbers_match"]


_NUM_RE = re.compile(
    r"""
    (?<![A-Za-z0-9_.,])                       # not glued to a word / another number
    (?P<cur0>US\$|\$)?
    (?P<open>\(\s*)?                          # "(1,561)" accounting negative
    (?P<sign1>[-\u2212\u2013])?               # -$1,561
    (?P<cur>(?:US\$|USD|\$|\u20ac|\u00a3)\s?)?
    (?P<sign2>[-\u2212])?                     # $-1,561
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?![\d])
    (?P<close>\s*\))?
    (?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b|percentage\s+points?\b))?
    (?P<scale>\s?(?:trillions?|tn|billions?|bn|b|millions?|mn|mm|mil|m|thousands?|k)\b)?
    (?P<after_scale_pct>\s?%)?
    """,
    re.X | re.I,
)
_IN_SCALE_RE = re.compile(r"^\s*\)?\s*\(?\s*in\s+(?:(?:us|usd|u\.s\.)\s*\$?\s*|\$\s*)?(thousands|millions|billions)\b",
                          re.I)
_UNIT_TAIL_RE = re.compile(r"^\s*(?:-\s*[KQ]\b|st\b|nd\b|rd\b|th\b)", re.I)


@dataclass(frozen=True)
class NumberMention:
    """A number found in text. `value` is as written (sign applied, commas removed);
    `scale` is the explicit multiplier (1e3/1e6/1e9/1e12) or None; `decimals` the decimals as
    written, `sig_decimals` without trailing zeros; `percent`/`currency` flag the unit;
    `start`/`end` locate it in the text."""

    value: float
    raw: str
    start: int
    end: int
    scale: Optional[float] = None
    percent: bool = False
    currency: bool = False
    decimals: int = 0
    sig_decimals: int = 0  # decimals without trailing zeros ("$1577.00" -> 0)

    @property
    def absolute(self) -> float:
        """Value times its explicit scale (or as written when no scale is given)."""
        return self.value * (self.scale or 1.0)


def _decimals(num: str, strip_zeros: bool = False) -> int:
    if "." not in num:
        return 0
    frac = num.split(".", 1)[1]
    return len(frac.rstrip("0") if strip_zeros else frac)


def parse_numbers(text: Any, *, keep_years: bool = False) -> list[NumberMention]:
    """Extract numbers with units and scales (see `_parse_numbers`); cached per text."""
    if text is None:
        return []
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = to_text(text)
    return list(_parse_numbers(str(text), keep_years))


@lru_cache(maxsize=8192)
def _parse_numbers(text: str, keep_years: bool = False) -> tuple[NumberMention, ...]:
    """Extract numbers with units and scales: "$1,577 million", "$1.577 billion", "(1,561)",
    "-$1561M", "65.4%", "USD 8.7bn", "5,466,312 (in thousands)".

    Skipped: years (1900-2099 written without currency, decimals or scale) unless
    `keep_years`, fiscal labels glued to letters (FY2022, Q2, 10-K), day numbers after a month
    name, ordinals, and list markers ("1. ")."""
    out: list[NumberMention] = []
    for m in _NUM_RE.finditer(text):
        num = m.group("num")
        try:
            value = float(num.replace(",", ""))
        except ValueError:
            continue
        start, end = m.start(), m.end()
        tail = text[end:end + 40]
        pre = text[max(0, start - 12):start]
        if _UNIT_TAIL_RE.match(text[m.end("num"):m.end("num") + 4]):
            continue
        cur = bool(m.group("cur") or m.group("cur0"))
        pct = bool(m.group("pct") or m.group("after_scale_pct"))
        scale_word = (m.group("scale") or "").strip().lower()
        scale = _SCALES.get(scale_word)
        # single-letter scales only when glued to the number or upper case ("8.7B", "$1561M")
        if scale_word in ("m", "b", "k") and (m.group("scale")[0].isspace() or pct):
            if not m.group("scale").strip().isupper():
                scale = None
                end = m.end("scale") - len(m.group("scale"))
        if pct:
            scale = None
        if (scale and not cur and len(scale_word) == 1 and "." not in num and value < 10
                and not m.group("scale")[0].isspace()):
            continue  # a name such as "3M", not three million
        if scale is None and not pct:
            ins = _IN_SCALE_RE.match(text[m.end("num"):m.end("num") + 40])
            if ins:
                scale = _SCALES[ins.group(1).lower()]
        is_plain_int = not cur and not pct and scale is None and "." not in num and "," not in num
        if is_plain_int and not keep_years and 1900 <= value <= 2099 and len(num) == 4:
            continue
        if is_plain_int and re.search(rf"(?i)\b(?:{MONTH_WORDS})\.?\s*$", pre):
            continue  # day of month: "May 26, 2023"
        line_start = text.rfind("\n", 0, start) + 1
        if is_plain_int and value <= 30 and not text[line_start:start].strip() and re.match(r"^[.)]\s", tail):
            continue  # list marker "1. " / "2) "
        negative = bool(m.group("sign1") or m.group("sign2"))
        if m.group("open") and m.group("close") and not pct:
            negative = True
        elif m.group("open") and not m.group("close"):
            start = m.start("open") + len(m.group("open"))
        if m.group("sign1") and start > 0 and text[start - 1].isdigit():
            negative = False
        if negative:
            value = -value
        out.append(NumberMention(value=value, raw=text[start:end].strip(), start=start, end=end,
                                 scale=scale, percent=pct, currency=cur, decimals=_decimals(num),
                                 sig_decimals=_decimals(num, strip_zeros=True)))
    return tuple(out)


def question_unit(question: str) -> tuple[Optional[float], bool]:
    """(scale, percent) the question asks for: 'in USD millions' -> (1e6, False);
    'in units of percents' / 'as a %' -> (None, True)."""
    q = question.lower()
    scale = None
    m = re.search(r"\b(thousands|millions|billions)\b", q) or re.search(
        r"(?:\busd|\bus\$|\$|\bin)\s*(thousand|million|billion)\b", q)
    if m:
        scale = _SCALES[m.group(1)]
    percent = bool(re.search(r"percent|%|\bpct\b|percentage", q))
    return scale, percent


def _rounding_tol(decimals: int, unit: float) -> float:
    """Half a unit in the last decimal place, in absolute terms."""
    return 0.5 * 10 ** (-decimals) * unit


def numbers_match(a: NumberMention, g: NumberMention, *, rel_tol: float = 0.01,
                  question_scale: Optional[float] = None, question_percent: bool = False,
                  answer_round_cap: float = 0.05) -> bool:
    """Whether answer mention `a` states gold mention `g`.

    Compares magnitudes (signs are often carried by words: "decreased by 3.7%") with a relative
    tolerance, or within the rounding of either side (gold 8.7 accepts 8.738; answer "1.6 billion"
    accepts gold 1,577 million, capped at `answer_round_cap` relative). Scales: explicit on both
    sides are compared as absolute amounts; when one side has no scale (tables "in thousands",
    "in USD millions" questions) any factor of 1000 is allowed. Percent vs bare fraction
    (65.4% vs 0.654) is accepted."""
    gs = g.scale or (question_scale if not g.percent else None)
    gv_abs = abs(g.value)
    av = abs(a.value)
    if a.percent and g.percent:
        pairs = [(av, gv_abs, 1.0, 1.0)]
    elif a.percent or g.percent or (question_percent and not (a.scale or g.scale)):
        if (a.percent and (a.scale or (a.currency and not g.percent))) or (g.percent and (g.scale or g.currency)):
            return False
        # one side percent: the other may be a fraction (0.654) or the same number without the sign
        pairs = [(av, gv_abs, 1.0, 1.0), (av * 100, gv_abs, 100.0, 1.0), (av, gv_abs * 100, 1.0, 100.0)]
    else:
        if a.scale and gs:
            pairs = [(av * a.scale, gv_abs * gs, a.scale, gs)]
        else:
            asc = a.scale or 1.0
            gsc = gs or 1.0
            pairs = [(av * asc * k, gv_abs * gsc, asc * k, gsc) for k in (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9)]
    for x, y, xunit, yunit in pairs:
        if y == 0:
            if x == 0:
                return True
            continue
        diff = abs(x - y)
        tol = max(rel_tol * y, _rounding_tol(g.sig_decimals, yunit) * 1.0000001,
                  min(_rounding_tol(a.decimals, xunit) * 1.0000001, answer_round_cap * y))
        if diff <= tol:
            return True
    return False

