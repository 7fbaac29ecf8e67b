"""Routing's word frequencies: the cached table answers plain words exactly as wordfreq does."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from finrag.tools.routing import zipf_table
from finrag.tools.routing.words import zipf

wordfreq = pytest.importorskip("wordfreq")


@pytest.fixture()
def fresh_table(tmp_path, monkeypatch):
    """A table built into an empty cache directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(zipf_table, "_TABLE", [])
    t = zipf_table.table()
    assert t is not None and t.path.parent == tmp_path / "finrag"
    return t


def test_table_equals_wordfreq_on_sampled_and_unknown_words(fresh_table):
    words = list(wordfreq.iter_wordlist("en"))
    rng = random.Random(3)
    sample = [w for w in rng.sample(words, 3000) if zipf_table.PLAIN.fullmatch(w)]
    sample += ["revenue", "target", "the", "on", "zorblax", "qqqqzz", "activision", "nvidia", "ulta", "3m", "q3",
               "a1b2", "x9"]
    for w in sample:
        assert fresh_table(w) == wordfreq.zipf_frequency(w, "en"), w


def test_zipf_answers_other_tokens_through_wordfreq(fresh_table):
    for token in ("AT&T", "o'reilly", "10k", "fy2019", "café", "Revenue"):
        assert zipf(token) == wordfreq.zipf_frequency(token.strip().lower(), "en"), token


def test_a_one_shot_lookup_does_not_import_wordfreq(fresh_table, tmp_path):
    code = ("import sys; from finrag.tools.routing.words import zipf; "
            "print(zipf('revenue'), zipf('zorblax'), 'wordfreq' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}).stdout.split()
    assert out == [str(wordfreq.zipf_frequency("revenue", "en")), "0.0", "False"]


def test_an_unwritable_cache_falls_back_to_wordfreq(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(zipf_table, "_TABLE", [])
    assert zipf_table.table() is None
    zipf.cache_clear()
    assert zipf("revenue") == wordfreq.zipf_frequency("revenue", "en")
    zipf.cache_clear()
