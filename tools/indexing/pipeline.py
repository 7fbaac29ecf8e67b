"""The indexer's producer side: files parsed, chunked and (for a fork-safe embedder) embedded in a process pool,
so the store's single writer (the main process) never waits for the embedder and the parser never waits for
the writer (issue 37).

`prepared_stream(paths, ...)` yields, in input order, one `Prepared` per file (its `ParsedDocument`, chunks,
segment spans, the chunks' BM25 postings (`lexical.precompute`: the writer only inserts their rows) and, when the
pool embeds, its segment vectors) or `(path, reason)` for a file that failed. At
most `workers * 4` files are in flight (bounded memory). The pool embeds only with an embedder that is pure
CPU and safe to fork (`embeds_in_workers`: the static model2vec table, single-threaded tokenizer); MiniLM
(its own thread pool, maybe a GPU) and remote embedders keep the text-first order of `index_paths`, where the
embed pass runs after every document's text is stored.

`StageClock` adds up each stage's wall and CPU time (`time.thread_time` in the thread that ran it, the pool
workers' own CPU for parse/chunk/postings/embed), which `bench/index_bench.py` reports with the critical path.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator

import numpy as np

from finrag.tools.documents.file_checks import ParseError
from finrag.tools.documents.parsing import MAX_FILE_CHARS, MAX_PARSE_SECONDS, ParsedDocument, parse_file
from finrag.tools.indexing.chunking import Chunk, chunk_pages, chunk_segment_span, join_pages, segments
from finrag.tools.indexing.lexical import Precomputed, precompute
from finrag.tools.indexing.static_embedder import StaticEmbedder

Limits = tuple[int, float]
"""A file's parse budget: (characters of text, seconds)."""


class StageClock:
    """Wall and CPU seconds per stage, and how many times each ran (`add`, or `with clock.stage(name)`)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def add(self, name: str, wall: float, cpu: float, calls: int = 1) -> None:
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        self.calls[name] = self.calls.get(name, 0) + calls

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        w, c = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - w, time.thread_time() - c)

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {k: {"wall_s": round(self.wall[k], 3), "cpu_s": round(self.cpu[k], 3), "calls": self.calls[k]}
                for k in self.wall}


@dataclass
class Prepared:
    """One parsed file ready for the writer: its document, chunks, the segments each chunk covers
    (first, count), its segment vectors when the pool embedded it, and the worker's time per stage."""

    doc: ParsedDocument
    chunks: list[Chunk]
    chunk_segs: list[tuple[int, int]]
    vectors: np.ndarray | None = None
    times: dict[str, tuple[float, float]] = field(default_factory=dict)  # stage -> (wall, cpu)
    postings: Precomputed | None = None  # the chunks' BM25 postings: the writer only inserts their rows


class _Raised:
    """An exception from chunking or embedding in a worker, raised again in the writer (as before the pool
    did this work: an invalid chunking or a missing embedder model stops the run with its own message)."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def chunk_document(pages: list[str], chunk_size: int, chunk_overlap: int) -> tuple[list[Chunk], list[tuple[int, int]]]:
    """A document's chunks and the segments (first, count) each covers: two consecutive segments per chunk
    with the default 50% overlap, else one vector per chunk."""
    step = chunk_size - chunk_overlap
    chunks = chunk_pages(pages, chunk_size, chunk_overlap)
    if chunk_size % step == 0:
        n_segs = len(segments(join_pages(pages)[0], step))
        spans = [chunk_segment_span(c, chunk_size, chunk_overlap, n_segs) for c in chunks]
        return chunks, [(s.start, len(s)) for s in spans if s is not None]
    return chunks, [(i, 1) for i in range(len(chunks))]


def segment_texts_of(pages: list[str], chunks: list[Chunk], chunk_size: int, chunk_overlap: int) -> list[str]:
    """What the embedder reads for a document (the same texts as `Store.segment_texts` reads back from SQLite):
    its segments, or its chunks' texts for a chunking whose size is not a multiple of its step."""
    step = chunk_size - chunk_overlap
    if chunk_size % step:
        return [c.text for c in chunks]
    return segments(join_pages(pages)[0], step) if pages else []


def embeds_in_workers(embedder: Any) -> bool:
    """Whether the parse pool may embed with `embedder`: the static model2vec table (pure CPU, its tokenizer
    single-threaded in `finrag`'s processes, nothing to lose by a fork)."""

    return isinstance(embedder, StaticEmbedder)


_WORKER_EMBEDDER: Any = None  # set in the parent before the pool forks; the workers inherit it


def _timed(times: dict[str, tuple[float, float]], name: str, fn: Callable[[], Any]) -> Any:
    w, c = time.perf_counter(), time.thread_time()
    out = fn()
    times[name] = (time.perf_counter() - w, time.thread_time() - c)
    return out


def prepare_file(path: str, limits: Limits, chunk_size: int, chunk_overlap: int, embedder: Any = None
                 ) -> Prepared | tuple[str, str] | _Raised:
    """Parse one file within `limits`, chunk it, and with `embedder` embed its segments."""
    times: dict[str, tuple[float, float]] = {}
    try:
        doc = _timed(times, "parse", lambda: parse_file(path, *limits))
    except ParseError as exc:
        return (path, str(exc))
    except Exception as exc:  # never let one file kill the run
        return (path, f"unexpected parser error: {type(exc).__name__}: {str(exc)[:120]}")
    try:
        chunks, chunk_segs = _timed(times, "chunk", lambda: chunk_document(doc.pages, chunk_size, chunk_overlap))
        postings = _timed(times, "postings", lambda: precompute([c.text for c in chunks],
                                                                [(c.char_start, c.char_end) for c in chunks]))
        vectors = None
        if embedder is not None:
            texts = segment_texts_of(doc.pages, chunks, chunk_size, chunk_overlap)
            vectors = _timed(times, "embed", lambda: embedder.embed_documents(texts))
    except Exception as exc:
        return _Raised(exc)
    return Prepared(doc, chunks, chunk_segs, vectors, times, postings)


def _pool_job(path: str, limits: Limits, chunk_size: int, chunk_overlap: int, embed: bool
              ) -> Prepared | tuple[str, str] | _Raised:
    return prepare_file(path, limits, chunk_size, chunk_overlap, _WORKER_EMBEDDER if embed else None)


def _worker_init(parent_pid: int) -> None:
    """Pool initializer: a parse worker exits with the process that started it, however that one dies.

    Forked workers hold both ends of the pool's pipes, so they never see EOF when the parent is killed
    (kill -9, OOM) and would stay alive, reparented. Linux's PR_SET_PDEATHSIG sends them SIGKILL when the
    parent exits; a watchdog thread that polls the parent PID covers other systems and the moment before
    the signal was armed."""
    import signal
    import threading

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the watchdog alone
        pass
    if os.getppid() != parent_pid:
        os._exit(1)

    def watchdog() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watchdog, name="parent-watchdog", daemon=True).start()


def prepared_stream(paths: list[str], workers: int, *, chunk_size: int, chunk_overlap: int,
                    embedder: Any = None, on_parsed: Callable[[], None] = lambda: None,
                    limits: Limits = (MAX_FILE_CHARS, MAX_PARSE_SECONDS)
                    ) -> Generator[Prepared | tuple[str, str], None, None]:
    """Prepare files (`prepare_file`) in a process pool of `workers` (in this process for one worker or one
    file); yield results in input order, call `on_parsed` as each finishes. With `embedder`, the segments are
    embedded where the file was parsed. An exception of chunking or embedding is raised here."""
    for item in _stream(paths, workers, chunk_size, chunk_overlap, embedder, on_parsed, limits):
        if isinstance(item, _Raised):
            raise item.exc
        yield item


def _stream(paths: list[str], workers: int, chunk_size: int, chunk_overlap: int, embedder: Any,
            on_parsed: Callable[[], None], limits: Limits) -> Iterator[Prepared | tuple[str, str] | _Raised]:
    global _WORKER_EMBEDDER
    import multiprocessing as mp

    forking = "fork" in mp.get_all_start_methods()
    if workers <= 1 or len(paths) <= 1 or (embedder is not None and not forking):
        for p in paths:
            result = prepare_file(p, limits, chunk_size, chunk_overlap, embedder)
            on_parsed()
            yield result
        return
    # fork: workers run PyMuPDF (and the static embedder they inherit), and fork works from scripts without a
    # __main__ guard
    ctx = mp.get_context("fork") if forking else mp.get_context("spawn")
    from collections import deque

    if embedder is not None:  # load the model once here (no text tokenized): the forked workers share its pages
        getattr(embedder, "model", None)
    _WORKER_EMBEDDER = embedder
    ahead = workers * 4  # prepare at most this many files ahead of the writer (bounded memory)
    pending = iter(paths)
    window: deque = deque()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                                 initargs=(os.getpid(),)) as pool:

            def submit_next() -> None:
                path = next(pending, None)
                if path is not None:
                    fut = pool.submit(_pool_job, path, limits, chunk_size, chunk_overlap, embedder is not None)
                    fut.add_done_callback(lambda _f: on_parsed())
                    window.append(fut)

            for _ in range(ahead):
                submit_next()
            try:
                while window:
                    result = window.popleft().result()
                    submit_next()
                    yield result
            finally:
                for fut in window:
                    fut.cancel()
    finally:
        _WORKER_EMBEDDER = None
