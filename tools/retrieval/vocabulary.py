"""The one home for finrag's query vocabulary: stop words, stemming, keyword coverage."""
from __future__ import annotations

import functools
import re
from typing import Optional, Sequence

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

# a sentence ends at ". X"; not a legal form before the short name it defines ("sales to Walmart Inc. (Walmart) and"),
# nor a dotted initialism that an article makes part of a noun phrase ("net sales from the U.S. Government"): after
# "the U.S." a sentence ends only where a function word opens the next one ("... in the U.S. We also ..."). An
# initialism without its article ends a sentence as any word does ("(I.R.S. Employer Identification No.) 200 Vesey
# Street ...": the cover's lines stay units of their own)
_OPENERS = "|".join(sorted((w.capitalize() for w in STOPWORDS if w.isalpha()), key=len, reverse=True))
SENTENCE_END = re.compile(r"(?<=[.;!?])(?<!\b[Tt]he [A-Z]\.[A-Z]\.)\s+(?=[A-Z\"$])|"
                          rf"(?<=\b[Tt]he [A-Z]\.[A-Z]\.)\s+(?=(?:{_OPENERS})\b|\")|"
                          r"(?<=[.;!?])(?<!\bInc\.)(?<!\bCorp\.)(?<!\bLtd\.)(?<!\bCo\.)\s+(?=\()")



@functools.lru_cache(maxsize=262_144)  # pure and called for every word of every candidate chunk: remembered
def stem(tok: str) -> str:
    """Crude suffix folding so that inflections meet: expenditure(s) -> expenditur, operat(ing|ed) -> operat."""
    for suf in ("ies", "es", "s", "ing", "ed"):
        if tok.endswith(suf) and len(tok) - len(suf) >= 3:
            tok = tok[: -len(suf)]
            break
    return tok[:-1] if len(tok) > 4 and tok.endswith("e") else tok


class KeywordCoverage:
    """`keyword_coverage` for one keyword list over many texts: the keywords' stems and weights are
    computed once, and a text is only tokenised around the places where a keyword's stem occurs.

    Exact: `stem` only removes a suffix, so a word whose stem is s contains s; a keyword whose stem
    is not a substring of the text cannot match, and where it is one, the word around each occurrence
    (`WORD`'s token there) is stemmed and compared.
    """

    def __init__(self, keywords: Sequence[str]):
        self.items = []  # (stem, weight)
        for kw in dict.fromkeys(k.lower() for k in keywords):
            self.items.append((stem(kw.replace(",", "")), 2.0 if any(ch.isdigit() for ch in kw) else 1.0))
        self.total = sum(w for _, w in self.items)

        # `of_stems`: a stem of token characters only is found between spaces in `word_stems`; another one
        # ('3m’', whose word '3m’s' `_occurs_as_word` finds around the occurrence) is looked for in the text
        self.checks = [(s, f" {s} " if s and all(ch in _TOKEN_CHARS for ch in s) else None, w)
                       for s, w in self.items]
        # the bits each such stem sets in a `stem_filter` (None for the others, which are looked for in the text)
        self.probes = [_filter_bits(s) if padded is not None else None for s, padded, _w in self.checks]

    def __call__(self, text: str) -> float:
        if not self.total:
            return 0.0
        low = _lowered(text)
        got = sum(w for s, w in self.items if _found(s, low))
        return got / self.total

    def of_stems(self, stems: str, text: str, bits: Optional[bytes] = None) -> float:
        """`self(text)` from `stems = word_stems(text)` (which a caller may remember per text): a substring
        test per keyword instead of a scan of the text, equal to `self(text)` (the weights are 1 and 2, so
        their sum is exact in any order). With `bits = stem_filter(stems)` a keyword whose stem's two bits
        are not both set is absent without the substring test (a Bloom filter has no false negatives)."""
        if not self.total:
            return 0.0
        low = None
        got = 0.0
        for (s, padded, w), probe in zip(self.checks, self.probes):
            if padded is not None:
                if bits is not None and probe is not None and not (bits[probe[0]] & probe[1]
                                                                   and bits[probe[2]] & probe[3]):
                    continue
                hit = padded in stems
            else:
                if low is None:
                    low = _lowered(text)
                hit = _found(s, low)
            if hit:
                got += w
        return got / self.total


def word_stems(text: str) -> str:
    """The stems of `text`'s words (`WORD` tokens of the lower-cased text without commas), each once, as one
    string ' s1 s2 ... ' for `KeywordCoverage.of_stems`. A maximal run of token characters holds exactly one
    `WORD` token (the run without leading non-start and trailing non-end characters), the token
    `_occurs_as_word` compares, so a stem is in this string exactly when `_occurs_as_word` finds it."""
    # the maximal runs of token characters (every other character, and any non-ASCII one, separates them), each
    # trimmed as `WORD` would take it: no leading non-start character, no trailing non-end one; each word stemmed
    # once. Equal to `{stem(t) for t in WORD.findall(_lowered(text))}` (tests/unit/test_read_cache.py), at about
    # two thirds of the regular expression's cost
    runs = set(_lowered(text).encode("ascii", "replace").translate(_RUN_BYTES).decode("ascii").split())
    words = {r.lstrip("&.%-").rstrip("&.-") for r in runs}
    words.discard("")
    return " " + " ".join(sorted(set(map(stem, words)))) + " "


STEM_FILTER_BYTES = 512  # 4096 bits: two of them per stem, about 2% false positives for a chunk's ~300 stems


def _filter_bits(s: str) -> tuple[int, int, int, int]:
    """(byte, mask, byte, mask) of the two bits `s` sets in a `stem_filter` (Python's string hash: the filter
    and its probes are made in the same process)."""
    h = hash(s)
    a, b = h & 4095, (h >> 12) & 4095
    return a >> 3, 1 << (a & 7), b >> 3, 1 << (b & 7)


def stem_filter(stems: str) -> bytes:
    """A Bloom filter of the stems of a `word_stems` string, for `KeywordCoverage.of_stems(..., bits=)`: most
    keywords are in few chunks, and two bit tests say so without scanning the chunk's ~3,000 characters of
    stems. Only valid in the process that made it (string hashes are salted per process). The bits are the
    ones `_filter_bits` probes: bit k of byte b is position 8b + k (NumPy's little bit order)."""
    import numpy as np

    h = np.fromiter(map(hash, stems.split()), dtype=np.int64)
    on = np.zeros(STEM_FILTER_BYTES * 8, dtype=np.uint8)
    on[h & 4095] = 1
    on[(h >> 12) & 4095] = 1
    return np.packbits(on, bitorder="little").tobytes()


def _lowered(text: str) -> str:
    """The text keyword coverage reads: lower-cased, commas removed (1,234 is 1234)."""
    return text.lower().replace(",", "")


def _found(s: str, low: str) -> bool:
    """Is stem `s` the stem of a word of `low` (`_lowered`)? A quick substring test, then the word around it."""
    return s in low and _occurs_as_word(s, low)


_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789&.%-")
_START = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_END = _START | {"%"}
_RUN_BYTES = bytes(c if chr(c) in _TOKEN_CHARS else 32 for c in range(256))  # bytes.translate: runs apart


def _occurs_as_word(s: str, low: str) -> bool:
    """Is some `WORD` token of `low` (lower-cased, commas removed) a word whose stem is `s`?"""
    if not s:
        return False
    i = low.find(s)
    n = len(low)
    while i >= 0:
        a, b = i, i + len(s)
        while a > 0 and low[a - 1] in _TOKEN_CHARS:
            a -= 1
        while b < n and low[b] in _TOKEN_CHARS:
            b += 1
        run = low[a:b]  # the maximal run of token characters around the occurrence; WORD takes it trimmed
        j, k = 0, len(run)
        while j < k and run[j] not in _START:
            j += 1
        while k > j and run[k - 1] not in _END:
            k -= 1
        if j < k and stem(run[j:k]) == s:
            return True
        i = low.find(s, max(b, i + 1))
    return False


def keyword_coverage(keywords: Sequence[str], text: str) -> float:
    """The weighted share of `keywords` (numbers count double) that occur in `text` as words, up to `stem`."""
    return KeywordCoverage(keywords)(text)


def prefix_stem(w: str) -> str:
    """A coarser stem than `stem`, used for the offline judge's content words: one plural suffix
    stripped (-ies -> -y, -es, -s; not -ss; only words longer than 4 letters), then the first 6 letters."""
    for suf in ("ies", "es", "s"):
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w[:6]
