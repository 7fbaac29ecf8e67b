"""The static embedder's encoding (model2vec's `StaticModel.encode`) with the tokenizer's work done once per word.

model2vec tokenizes every segment with the Hugging Face tokenizer (~0.4 ms for a 1,250-character segment, most
of the embedder's time at index time, issue 37). MiniLM's tokenizer (BERT normaliser, BERT pre-tokenizer,
WordPiece) never looks across whitespace: a text's token ids are its whitespace-separated words' token ids one
after the other. `WordPieces` asks the tokenizer once per distinct word (in batches, the tokenizer's truncation
off) and keeps the ids in flat arrays, so a segment costs a `str.split` and dictionary lookups; `encode` then
does what `StaticModel.encode` does with the ids (the same character cut, truncation to `max_length` tokens,
unknown tokens dropped, the same batches and buckets of equal length, the same float16 mean and normalisation),
so the vectors are the same to the bit (`tests/unit/test_static_embedder.py` compares them with model2vec's).

One subtlety: Python's `str.split` also splits at the control characters VT, FF, FS, GS, RS, US and NEL, which
the BERT normaliser (`clean_text`) deletes, so they are deleted first. A model whose tokenizer is not of that
kind (or with a token mapping or weights, or an added token that spans whitespace or must be a whole word) is
encoded by model2vec itself (`supported`).
"""
from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

_CLEANED = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
"""Characters `str.split` splits at that the BERT normaliser deletes (Unicode category Cc)."""
_DELETE = dict.fromkeys(map(ord, "\x0b\x0c\x1c\x1d\x1e\x1f\x85"))


def supported(model: Any) -> bool:
    """Whether `model` (a model2vec `StaticModel`) is encoded here: a BERT WordPiece tokenizer that cleans its
    text, a float embedding table without token mapping or weights."""
    if getattr(model, "token_mapping", None) is not None or getattr(model, "weights", None) is not None:
        return False
    if np.dtype(model.embedding.dtype).kind != "f":
        return False
    try:
        spec = json.loads(model.tokenizer.to_str())
    except Exception:
        return False
    norm, pre = spec.get("normalizer") or {}, spec.get("pre_tokenizer") or {}
    return (norm.get("type") == "BertNormalizer" and norm.get("clean_text") is True
            and pre.get("type") == "BertPreTokenizer" and (spec.get("model") or {}).get("type") == "WordPiece"
            and not any(t.get("single_word") or not t.get("content", "").strip()
                        or len(t["content"].split()) != 1 for t in spec.get("added_tokens") or []))


class WordPieces:
    """Token ids per whitespace-separated word, learned from the tokenizer and kept in flat arrays (at most
    `max_words` words: then forgotten and learned again). Thread-safe: `ids` runs under a lock."""

    def __init__(self, tokenizer: Any, max_words: int = 500_000):
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_str(tokenizer.to_str())
        self._tok.no_truncation()  # a "word" may be a long run of punctuation: truncation is applied per text
        self._tok.no_padding()
        self.max_words = max_words
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._index: dict[str, int] = {}
        self._flat = np.empty(1 << 16, dtype=np.int64)
        self._starts = np.zeros(1 << 12, dtype=np.int64)  # word i's ids: _flat[_starts[i]:_starts[i + 1]]
        self._n_ids = 0

    def _learn(self, words: list[str]) -> None:
        encs = self._tok.encode_batch_fast(words, add_special_tokens=False)
        ids = [e.ids for e in encs]
        lens = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        first, total = len(self._index), int(lens.sum())
        while self._n_ids + total > len(self._flat):
            self._flat = np.concatenate([self._flat, np.empty(len(self._flat), dtype=np.int64)])
        while first + len(words) + 1 > len(self._starts):
            self._starts = np.concatenate([self._starts, np.zeros(len(self._starts), dtype=np.int64)])
        self._flat[self._n_ids:self._n_ids + total] = np.fromiter(chain.from_iterable(ids), dtype=np.int64,
                                                                  count=total)
        self._starts[first + 1:first + len(words) + 1] = self._n_ids + np.cumsum(lens)
        self._n_ids += total
        self._index.update(zip(words, range(first, first + len(words))))

    def ids(self, texts: Sequence[str], max_length: int | None, unk: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The texts' token ids, one after the other, and how many each has: what the tokenizer gives for each
        text, cut to `max_length` tokens (None: all), without the `unk` id."""
        per = [(t.translate(_DELETE) if _CLEANED.search(t) else t).split() for t in texts]
        n_words = np.fromiter(map(len, per), dtype=np.int64, count=len(per))
        words = list(chain.from_iterable(per))
        with self._lock:
            if len(self._index) > self.max_words:
                self._reset()
            new = list(set(words).difference(self._index))
            for i in range(0, len(new), 50_000):
                self._learn(new[i:i + 50_000])
            w = np.fromiter(map(self._index.__getitem__, words), dtype=np.int64, count=len(words))
            begin = self._starts[w]
            lens = self._starts[w + 1] - begin
            flat = self._flat
        total = int(lens.sum())
        positions = np.arange(total, dtype=np.int64)
        word_begin = np.cumsum(lens) - lens  # where each word's ids start in the output
        toks = flat[positions - np.repeat(word_begin - begin, lens)]
        n_toks = np.bincount(np.repeat(np.arange(len(texts)), n_words), weights=lens,
                             minlength=len(texts)).astype(np.int64)
        keep = np.ones(total, dtype=bool)
        if max_length is not None:
            text_begin = np.cumsum(n_toks) - n_toks
            keep &= (positions - np.repeat(text_begin, n_toks)) < max_length
        if unk is not None:
            keep &= toks != unk
        counts = np.bincount(np.repeat(np.arange(len(texts)), n_toks)[keep], minlength=len(texts))
        return toks[keep], counts.astype(np.int64)


def encode(model: Any, pieces: WordPieces, sentences: Sequence[str], batch_size: int = 1024) -> np.ndarray:
    """`model.encode(sentences, batch_size=batch_size, use_multiprocessing=False)` for a list of texts, with the
    token ids from `pieces` (the same float16 vectors)."""
    texts = list(sentences)
    max_length = model.max_length
    if max_length is not None:  # model2vec cuts each text to max_length * median_token_length characters first
        cut = max_length * model.median_token_length
        texts = [t[:cut] for t in texts]
    emb = model.embedding
    dtype = np.dtype(np.float32) if emb.dtype == np.int8 else emb.dtype
    results = []
    for b in range(0, len(texts), batch_size):
        toks, counts = pieces.ids(texts[b:b + batch_size], max_length, model.unk_token_id)
        starts = np.cumsum(counts) - counts
        out = np.zeros((len(counts), model.dim), dtype=dtype)
        for length in dict.fromkeys(counts[counts > 0].tolist()):  # model2vec's buckets of equal length
            indices = np.flatnonzero(counts == length)
            id_matrix = toks[starts[indices][:, None] + np.arange(length, dtype=np.int64)]
            out[indices] = emb[id_matrix].mean(axis=1)
        if model.normalize:
            out32 = out.astype(np.float32)
            norm = np.linalg.norm(out32, axis=1, keepdims=True) + 1e-32
            out = (out32 / norm).astype(out.dtype)
        results.append(out)
    return np.concatenate(results, axis=0)
