"""The one home for finrag's query vocabulary: stop words, stemming, keyword coverage."""
from __future__ import annotations

import functools
import re
from typing import Sequence

WORD = re.compile(r"[a-z0-9][a-z0-9&.%-]*[a-z0-9%]|[a-z0-9]")

STOPWORDS = frozenset(
    """a about above according after again against all also am an and any are as at based basing be because been
    before being below between both but by can could did do does doing down during each few for from further had has
    have having he her here how i if in into is it its itself just let me more most my no nor not now of off on once
    only or other our out over own please primarily question respond response same she should so some such than that
    the their them then there these they this those through to too under until up us using very was we were what
    when where which while who whom why will with would you your yours details shown clearly outlined information
    provided plainly judgments judgment base answer following best abilities perspective relying drawing conclusions
    stated only reasonable approximation exact possible number metric company's fy usd millions billions
    thousands defined define definition give solution round rounded decimal decimals place places units unit
    percents percent percentage calculate calculation compute amount data assume assuming analyst banker
    investment resource resources help want need approximately roughly""".split())



@functools.lru_cache(maxsize=262_144)  # pure and called for every word of every candidate chunk: remembered
def stem(tok: str) -> str:
    """Crude suffix folding so that inflections meet: expenditure(s) -> expenditur, operat(ing|ed) -> operat."""
    for suf in ("ies", "es", "s", "ing", "ed"):
        if tok.endswith(suf) and len(tok) - len(suf) >= 3:
            tok = tok[: -len(suf)]
            break
    return tok[:-1] if len(tok) > 4 and tok.endswith("e") else tok


def keyword_coverage(keywords: Sequence[str], text: str) -> float:
    words = {stem(w) for w in set(WORD.findall(text.lower().replace(",", "")))}
    total = got = 0.0
    for kw in dict.fromkeys(k.lower() for k in keywords):
        w = 2.0 if any(ch.isdigit() for ch in kw) else 1.0
        total += w
        if stem(kw.replace(",", "")) in words:
            got += w
    return got / total if total else 0.0


def prefix_stem(w: str) -> str:
    """A coarser stem than `stem`, used for the offline judge's content words: one plural suffix
    stripped (-ies -> -y, -es, -s; not -ss; only words longer than 4 letters), then the first 6 letters."""
    for suf in ("ies", "es", "s"):
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w[:6]
