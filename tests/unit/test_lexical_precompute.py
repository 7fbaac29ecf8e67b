"""Issue 37: the BM25 postings computed in the parse pool (`lexical.precompute`) are the rows the writer would
have computed, and FTS5 learns words 500 to a row with the terms it gives them one by one."""
from __future__ import annotations

import sqlite3

from finrag.tools.indexing import lexical

TEXTS = ["Revenue grew 6.7% to $559.2 billion; net_income rose.", "Straße naïve ÉCOLE 中文字符 running ponies",
         "caresses x1b2 ABC-123 the the the", ""]


def _one_by_one(words: list[str]) -> list[tuple[str, ...]]:
    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61');"
                       "CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);")
    conn.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", list(enumerate(words)))
    found: dict[int, list] = {}
    for term, doc, off in conn.execute("SELECT term, doc, offset FROM v"):
        found.setdefault(doc, []).append((off, term))
    return [tuple(t for _, t in sorted(found.get(i, []))) for i in range(len(words))]


def test_terms_learned_in_rows_equal_fts5_word_by_word():
    words = list(dict.fromkeys(w for t in TEXTS * 3 for w in lexical.fts_words(t)))
    words += [f"w{i}x" for i in range(1200)] + ["ﬁnance", "İstanbul", "ǅ", "a" * 80]
    terms = lexical.Terms()
    assert [tuple(terms.names[i] for i in ids) for ids in terms.ids(words)] == _one_by_one(words)


def _rows(pre: lexical.Precomputed | None, ids: list[int]) -> tuple[list, list, list, list]:
    conn = sqlite3.connect(":memory:")
    lexical.ensure_schema(conn)
    texts = TEXTS[:3]
    lexical.add_document(conn, "D", ids, texts, None, pre=pre)
    return tuple(conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()  # type: ignore[return-value]
                 for t in ("lex_docs", "lex_post", "lex_df", "lex_stats"))


def test_precomputed_postings_are_the_rows_computed_by_the_writer():
    pre = lexical.precompute(TEXTS[:3])
    assert _rows(pre, [7, 8, 9]) == _rows(None, [7, 8, 9])
    assert _rows(pre, [7, 9, 12]) == _rows(None, [7, 9, 12])  # ids with gaps: computed again, not the offsets
    assert _rows(lexical.precompute(TEXTS[:2]), [7, 8, 9]) == _rows(None, [7, 8, 9])  # other chunks: ignored
