"""all-MiniLM-L6-v2 query vectors through ONNX Runtime: the NumPy model's graph, run in one call.

A warm process (`finrag serve`, evaluation, benchmarks) embeds a question while BM25 runs in a
parallel branch of the graph. The NumPy forward pass (`minilm_numpy.py`) makes ~200 small NumPy
calls and holds Python's GIL between them, so on two cores each search waits for the other. ONNX
Runtime runs the whole forward pass in one call without the GIL, with fused kernels, and is faster
alone too (`bench/latency_floor.py` measures both).

The ONNX graph is written here with `onnx.helper` from the same memory-mapped weights as the NumPy
model (no torch, no exporter): word-piece ids in, the unit-length mean-pooled vector out, the same
operations as `NumpyMiniLM._embed` (ONNX Runtime fuses them into its own LayerNorm, GELU and
attention kernels). It is built once per weights file into the user's cache (`$XDG_CACHE_HOME/finrag/`,
~90 MB, keyed by the weights' size and mtime and `GRAPH_VERSION`), written atomically; the tests
check its vectors against sentence-transformers'. One-shot `finrag ask` keeps the NumPy model:
importing ONNX Runtime and opening the session cost more than the one question saves.
"""
from __future__ import annotations

import math
import os
import threading
from pathlib import Path

import numpy as np

from finrag.state.configuration import user_cache_dir

GRAPH_VERSION = 1  # in the cache file's name: a change of the graph never reads an older file
_BUILD_LOCK = threading.Lock()


def cache_file(weights: Path) -> Path:
    st = weights.stat()
    return user_cache_dir() / f"minilm-query-v{GRAPH_VERSION}-{st.st_size}-{int(st.st_mtime)}.onnx"


def build_graph(w: dict[str, np.ndarray], *, heads: int, layers: int, eps: float):
    """The BERT encoder + mean pooling + L2 normalisation of `w` (sentence-transformers' MiniLM names) as an
    ONNX model: input `ids` (int64, shape [n]), output `vector` (float32, shape [dim])."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def weight(name: str, transpose: bool = False) -> str:
        a = np.asarray(w[name], dtype=np.float32)
        return const(name, np.ascontiguousarray(a.T) if transpose else a)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return op("LayerNormalization", [x, weight(prefix + ".weight"), weight(prefix + ".bias")], out,
                  axis=-1, epsilon=eps)

    def dense(x: str, prefix: str, out: str) -> str:  # x @ W.T + b, with W stored (out, in) as in torch
        return op("Add", [op("MatMul", [x, weight(prefix + ".weight", transpose=True)], out + "_mm"),
                          weight(prefix + ".bias")], out)

    dim = int(w["embeddings.word_embeddings.weight"].shape[1])
    hd = dim // heads
    n = op("Shape", ["ids"], "n")
    x = op("Gather", [weight("embeddings.word_embeddings.weight"), "ids"], "tok")
    pos = op("Slice", [weight("embeddings.position_embeddings.weight"), const("zero1", np.array([0])), n,
                       const("axis0", np.array([0]))], "pos")
    x = op("Add", [op("Add", [x, pos], "tok_pos"),
                   const("type0", np.asarray(w["embeddings.token_type_embeddings.weight"][0], dtype=np.float32))],
           "emb")
    x = layer_norm(x, "embeddings.LayerNorm", "h0")
    heads_shape = const("heads_shape", np.array([0, heads, hd]))  # 0: keep n
    flat_shape = const("flat_shape", np.array([0, dim]))
    scale = const("scale", np.array(1.0 / math.sqrt(hd), dtype=np.float32))
    half, one = const("half", np.array(0.5, dtype=np.float32)), const("one", np.array(1.0, dtype=np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.array(1.0 / math.sqrt(2.0), dtype=np.float32))
    for i in range(layers):
        p, s = f"encoder.layer.{i}.", f"l{i}_"
        q, k, v = (op("Reshape", [dense(x, p + f"attention.self.{name}", s + name), heads_shape], s + name + "_h")
                   for name in ("query", "key", "value"))
        q = op("Transpose", [q], s + "qt", perm=[1, 0, 2])  # (heads, n, hd)
        k = op("Transpose", [k], s + "kt", perm=[1, 2, 0])  # (heads, hd, n)
        v = op("Transpose", [v], s + "vt", perm=[1, 0, 2])
        scores = op("Mul", [op("MatMul", [q, k], s + "qk"), scale], s + "scores")
        probs = op("Softmax", [scores], s + "probs", axis=-1)
        ctx = op("Transpose", [op("MatMul", [probs, v], s + "ctx_h")], s + "ctx_t", perm=[1, 0, 2])
        ctx = op("Reshape", [ctx, flat_shape], s + "ctx")
        att = dense(ctx, p + "attention.output.dense", s + "att")
        x = layer_norm(op("Add", [att, x], s + "res1"), p + "attention.output.LayerNorm", s + "h1")
        inter = dense(x, p + "intermediate.dense", s + "inter")
        erf = op("Erf", [op("Mul", [inter, inv_sqrt2], s + "scaled")], s + "erf")
        gelu = op("Mul", [op("Mul", [inter, half], s + "halfx"), op("Add", [erf, one], s + "erf1")], s + "gelu")
        out = dense(gelu, p + "output.dense", s + "out")
        x = layer_norm(op("Add", [out, x], s + "res2"), p + "output.LayerNorm", s + "h2")
    pooled = op("ReduceMean", [x], "pooled", axes=[0], keepdims=0)
    norm = op("Max", [op("ReduceL2", [pooled], "l2", axes=[0], keepdims=1),
                      const("tiny", np.array([1e-12], dtype=np.float32))], "norm")
    op("Div", [pooled, norm], "vector")
    graph = helper.make_graph(nodes, "minilm_query",
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
                              [helper.make_tensor_value_info("vector", TensorProto.FLOAT, [dim])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="finrag")


def ensure_model_file(numpy_model, weights: Path) -> Path:
    """The cached ONNX file of `numpy_model`'s weights, built (atomically) when it is missing."""
    target = cache_file(weights)
    with _BUILD_LOCK:
        if target.is_file():
            return target
        model = build_graph(numpy_model.w, heads=numpy_model.heads, layers=numpy_model.layers, eps=numpy_model.eps)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_bytes(model.SerializeToString())
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target


class OnnxMiniLM:
    """Embeds texts one at a time with ONNX Runtime; the tokenizer and weights are `numpy_model`'s."""

    def __init__(self, numpy_model, weights: str | Path, threads: int = 1):
        import onnxruntime as ort

        self.numpy_model = numpy_model
        self.dim = numpy_model.dim
        path = ensure_model_file(numpy_model, Path(weights))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))  # the other core runs the parallel BM25 branch
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def token_ids(self, text: str) -> list[int]:
        return self.numpy_model.token_ids(text)

    def embed(self, text: str) -> np.ndarray:
        """The unit-length sentence vector of `text` (float32, shape (dim,))."""
        ids = np.asarray(self.token_ids(text), dtype=np.int64)
        return self.session.run(None, {"ids": ids})[0].astype(np.float32, copy=False)
