"""The NumPy distillation (tools/indexing/static_distill.py) is model2vec's recipe: each step against model2vec's own
(torch) code where `finrag[minilm]` is installed, and a small distilled table that model2vec loads and encodes with."""
from __future__ import annotations

import json

import numpy as np
import pytest

from finrag.tools.indexing import static_distill
from finrag.tools.indexing.minilm_numpy import NumpyMiniLM
from finrag.tools.indexing.minilm_weights import bundled_minilm_dir


@pytest.fixture(scope="module")
def minilm():
    source = bundled_minilm_dir()
    tok = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    return source, tok, NumpyMiniLM(source)


def test_token_vectors_are_model2vecs_forward_pass(minilm):
    """`[CLS] piece [SEP]`'s mean output state, by NumPy, equals model2vec's create_embeddings through torch."""
    inference = pytest.importorskip("model2vec.distill.inference", reason="model2vec's distill needs torch")
    transformers = pytest.importorskip("transformers")
    source, tok, model = minilm
    ids_of = tok["model"]["vocab"]
    vocab = static_distill.kept_vocabulary(tok)
    picked = [ids_of[t] for t in vocab[::97]]  # ~300 pieces from every part of the vocabulary
    cls, sep = ids_of["[CLS]"], ids_of["[SEP]"]
    ours = static_distill.token_vectors(model, picked, cls, sep)
    theirs = inference.create_embeddings(transformers.AutoModel.from_pretrained(str(source)),
                                         [[cls, i, sep] for i in picked], "cpu", ids_of["[PAD]"])
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, atol=2e-5)


def test_pca_and_weights_are_model2vecs():
    inference = pytest.importorskip("model2vec.distill.inference", reason="model2vec's distill needs torch")
    x = np.random.default_rng(7).normal(size=(500, 48)) @ np.diag(np.linspace(3, 0.1, 48))
    np.testing.assert_allclose(static_distill.pca(x, 16), inference._pca_fit_transform(x, 16)[0], atol=1e-9)
    np.testing.assert_allclose(static_distill.zipf_weights(1000),
                               inference.compute_weights(1000, static_distill.SIF_COEFFICIENT), rtol=1e-12)


def test_kept_vocabulary_is_model2vecs_pruning(minilm):
    """No `[unusedN]` slot, no `[CLS]`/`[SEP]`/`[MASK]`; `[PAD]` and `[UNK]` kept; vocabulary order."""
    _, tok, _ = minilm
    vocab = static_distill.kept_vocabulary(tok)
    assert "[PAD]" in vocab and "[UNK]" in vocab
    assert not {"[CLS]", "[SEP]", "[MASK]", "[unused0]"} & set(vocab)
    ids = [tok["model"]["vocab"][t] for t in vocab]
    assert ids == sorted(ids) and len(vocab) == static_distill.vocabulary_size(bundled_minilm_dir())


def test_a_distilled_table_loads_in_model2vec_and_encodes(minilm, tmp_path, monkeypatch):
    """The whole `distill` on the first 600 pieces (the full table takes about a minute): the folder model2vec reads,
    float16 rows, its tokenizer renumbered to the kept pieces, finite vectors."""
    from model2vec import StaticModel

    source, tok, _ = minilm
    full = static_distill.kept_vocabulary(tok)
    keep = full[:600] + [t for t in ("revenue", "cash", "debt", "apple", "river") if t in full]
    monkeypatch.setattr(static_distill, "kept_vocabulary", lambda _tok: keep)
    seen: list[int] = []
    static_distill.distill(source, tmp_path / "m", 32, progress=seen.append)
    assert sum(seen) == len(keep)
    model = StaticModel.from_pretrained(str(tmp_path / "m"), normalize=True)
    assert model.embedding.shape == (len(keep), 32) and model.embedding.dtype == np.float16
    vecs = model.encode(["revenue", "cash", "river"])
    assert vecs.shape == (3, 32) and np.isfinite(vecs).all()
    assert model.tokenizer.encode("revenue", add_special_tokens=False).ids == [keep.index("revenue")]
