"""all-MiniLM-L6-v2 forward pass in NumPy: query vectors without importing torch.

A one-shot `finrag ask` embeds one short question; importing torch and sentence-transformers
for that costs seconds, the forward pass itself milliseconds. This module reads the same
weights (`model.safetensors`, memory-mapped: only the rows of the word-embedding table a
question uses are paged in) and tokenizer (`tokenizer.json`, through the `tokenizers`
package) as sentence-transformers and computes the same vector: BERT encoder, mean pooling
over the tokens, L2 normalisation, at most 256 word pieces. The test suite checks it against
sentence-transformers (cosine > 0.9999). Document batches still go through torch, which is
faster for large batches.
"""
from __future__ import annotations

import json
import math
import threading
from contextlib import nullcontext
from pathlib import Path

import numpy as np

MAX_TOKENS = 256
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def load_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file as read-only memory-mapped arrays (nothing is copied)."""
    path = Path(path)
    with path.open("rb") as fh:
        header_len = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(header_len))
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + header_len
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = _DTYPES[spec["dtype"]]
        out[name] = raw[base + start: base + end].view(dtype).reshape(spec["shape"])
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf with absolute error < 1.5e-7 (Abramowitz & Stegun 7.1.26), below float32 resolution here."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))))  # Python floats keep float32 arrays float32


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class NumpyMiniLM:
    """Embeds texts one at a time with the BERT weights of a sentence-transformers MiniLM folder."""

    def __init__(self, model_dir: str | Path):
        from tokenizers import Tokenizer

        model_dir = Path(model_dir)
        cfg = json.loads((model_dir / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.w = load_safetensors(model_dir / "model.safetensors")
        self.dim = int(self.w["embeddings.word_embeddings.weight"].shape[1])
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self._lock = threading.Lock()  # a tokenizers.Tokenizer is not meant to be reconfigured concurrently
        self._fused: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        try:  # one BLAS thread: matrices this small only lose from threading, badly so on a busy machine
            from threadpoolctl import ThreadpoolController

            self._pool = ThreadpoolController()
        except Exception:  # threadpoolctl comes with sentence-transformers' scikit-learn; without it, no limit
            self._pool = None

    def _qkv(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Layer i's query, key and value projections as one (dim, 3*dim) matrix and bias."""
        fused = self._fused.get(i)
        if fused is None:
            p = f"encoder.layer.{i}.attention.self."
            w = np.concatenate([self.w[p + n + ".weight"] for n in ("query", "key", "value")]).T.copy()
            b = np.concatenate([self.w[p + n + ".bias"] for n in ("query", "key", "value")])
            fused = self._fused[i] = (w, b)
        return fused

    def token_ids(self, text: str) -> list[int]:
        with self._lock:
            return self.tokenizer.encode(text).ids

    def embed(self, text: str) -> np.ndarray:
        """The unit-length sentence vector of `text` (float32, shape (dim,))."""
        with self._pool.limit(limits=1, user_api="blas") if self._pool is not None else nullcontext():
            return self._embed(text)

    def _embed(self, text: str) -> np.ndarray:
        ids = np.asarray(self.token_ids(text), dtype=np.int64)
        x = self.hidden_states(ids[None, :])[0]
        pooled = x.mean(axis=0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def hidden_states(self, ids: np.ndarray) -> np.ndarray:
        """The encoder's last hidden states of a batch of equal-length word-piece id sequences (int64, shape
        (batch, n)): float32, shape (batch, n, dim). No padding, so no attention mask (callers batch equal lengths)."""
        w = self.w
        bsz, n = ids.shape
        d, h = self.dim, self.heads
        hd = d // h
        x = (w["embeddings.word_embeddings.weight"][ids].astype(np.float32)
             + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][0])
        # dense layers on a 2-D (batch * n, dim) array: one BLAS call each (a 3-D operand makes NumPy call
        # BLAS once per sequence, ~8x slower for short sequences)
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps).reshape(-1, d)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            wqkv, bqkv = self._qkv(i)
            qkv = x @ wqkv + bqkv
            q, k, v = (qkv[:, j * d:(j + 1) * d].reshape(bsz, n, h, hd).transpose(0, 2, 1, 3) for j in range(3))
            scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(hd))
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(bsz * n, d)
            att = ctx @ w[p + "attention.output.dense.weight"].T + w[p + "attention.output.dense.bias"]
            x = _layer_norm(att + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = _gelu(x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
            out = inter @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
            x = _layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        assert x.dtype == np.float32, x.dtype  # a float64 detour would make every matmul several times slower
        return x.reshape(bsz, n, d)
