"""The static embedder's table, distilled from the bundled all-MiniLM-L6-v2 with NumPy alone (no torch).

model2vec's `distill` (the recipe, version 0.10+): every word piece of MiniLM's vocabulary but the `[unusedN]`
slots and the special tokens other than `[PAD]` and `[UNK]`, in vocabulary order, goes through the encoder as
`[CLS] piece [SEP]`; its vector is the mean of the three output states; the table is reduced to `DIMS` by PCA
(eigendecomposition of the covariance, each component's sign set so that its largest score is positive), each row
is weighted by Zipf/SIF (`sif / (sif + p(rank))`), and the table is stored as float16. model2vec runs the encoder
through torch and transformers; here `minilm_numpy.NumpyMiniLM.hidden_states` runs it (every sequence has three
pieces, so batches need no padding or mask): about a minute on two cores, and no torch in the default install. `tests/integration/test_static_distill.py` checks the table against
model2vec's own distillation where torch is installed (`finrag[minilm]`).

The folder written is what `model2vec.StaticModel.from_pretrained` reads: `model.safetensors` (`embeddings`),
`tokenizer.json` (MiniLM's WordPiece tokenizer with the kept vocabulary renumbered, no post-processor: no
`[CLS]`/`[SEP]` added when encoding) and `config.json`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import numpy as np

from finrag.tools.indexing.minilm_numpy import NumpyMiniLM

SIF_COEFFICIENT = 1e-4  # model2vec's default
_UNUSED = re.compile(r"\[unused\d+\]")
_KEPT_SPECIAL = ("[PAD]", "[UNK]")
_BATCH = 2048


def kept_vocabulary(tokenizer: dict) -> list[str]:
    """The word pieces the table has a row for, in MiniLM's vocabulary order (model2vec's pruning)."""
    special = {t["content"] for t in tokenizer.get("added_tokens", [])}
    return [tok for tok, _ in sorted(tokenizer["model"]["vocab"].items(), key=lambda kv: kv[1])
            if not _UNUSED.fullmatch(tok) and (tok not in special or tok in _KEPT_SPECIAL)]


def static_tokenizer(tokenizer: dict, vocabulary: list[str]) -> dict:
    """MiniLM's tokenizer.json for the static table: the kept pieces renumbered 0..n-1, no `[CLS]`/`[SEP]`
    template, no fixed padding, truncation at 512 pieces."""
    out = json.loads(json.dumps(tokenizer))
    out["model"]["vocab"] = {tok: i for i, tok in enumerate(vocabulary)}
    out["added_tokens"] = [{**t, "id": vocabulary.index(t["content"])} for t in tokenizer.get("added_tokens", [])
                           if t["content"] in _KEPT_SPECIAL]
    out["post_processor"] = None
    out["truncation"] = {"direction": "Right", "max_length": 512, "strategy": "LongestFirst", "stride": 0}
    if out.get("padding"):
        out["padding"]["strategy"] = {"Fixed": 0}
    return out


def zipf_weights(n: int, sif: float = SIF_COEFFICIENT) -> np.ndarray:
    """SIF weights from a Zipf estimate of each row's frequency (row i has rank i + 1; the vocabulary is ordered
    roughly by frequency)."""
    inv_rank = 1 / np.arange(2, n + 2)
    return sif / (sif + inv_rank / inv_rank.sum())


def pca(x: np.ndarray, dims: int) -> np.ndarray:
    """The first `dims` principal-component scores of `x` (float64), each component signed so that its largest
    absolute score is positive (model2vec's convention, so the table is the same wherever it is made)."""
    xc = x - x.mean(axis=0)
    _, vecs = np.linalg.eigh((xc.T @ xc) / (len(x) - 1))
    scores = xc @ vecs[:, ::-1][:, :dims]
    top = np.argmax(np.abs(scores), axis=0)
    return scores * np.sign(scores[top, np.arange(scores.shape[1])])


def token_vectors(model: NumpyMiniLM, ids: list[int], cls: int, sep: int,
                  progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The mean output state of `[CLS] id [SEP]` for each id (float32, shape (len(ids), dim))."""
    out = np.empty((len(ids), model.dim), dtype=np.float32)
    for start in range(0, len(ids), _BATCH):
        chunk = np.asarray(ids[start:start + _BATCH], dtype=np.int64)
        seqs = np.stack([np.full_like(chunk, cls), chunk, np.full_like(chunk, sep)], axis=1)
        out[start:start + len(chunk)] = model.hidden_states(seqs).mean(axis=1)
        if progress:
            progress(len(chunk))
    return np.nan_to_num(out)


def vocabulary_size(source: str | Path) -> int:
    """How many rows the table of the MiniLM folder `source` has."""
    return len(kept_vocabulary(json.loads((Path(source) / "tokenizer.json").read_text(encoding="utf-8"))))


def distill(source: str | Path, target: Path, dims: int, progress: Callable[[int], None] | None = None) -> None:
    """Write the static model of the MiniLM folder `source` into the folder `target`."""
    from safetensors.numpy import save_file

    source = Path(source)
    tok = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = kept_vocabulary(tok)
    ids_of = tok["model"]["vocab"]
    model = NumpyMiniLM(source)
    vectors = token_vectors(model, [ids_of[t] for t in vocab], ids_of["[CLS]"], ids_of["[SEP]"], progress)
    table = pca(vectors.astype(np.float64), dims) * zipf_weights(len(vectors))[:, None]
    target.mkdir(parents=True, exist_ok=True)
    save_file({"embeddings": table.astype(np.float16)}, str(target / "model.safetensors"))
    (target / "tokenizer.json").write_text(json.dumps(static_tokenizer(tok, vocab)), encoding="utf-8")
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "tokenizer_name": str(source),
              "apply_pca": dims, "sif_coefficient": SIF_COEFFICIENT, "hidden_dim": dims, "seq_length": 1000000,
              "normalize": True, "pooling": "mean", "embedding_dtype": "float16"}
    (target / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
