"""The indexing pipeline: files -> pages -> chunks -> SQLite/FTS5 + segment embeddings -> FAISS.

* Files are found recursively; each is hashed and skipped when its hash is
  already in the index (re-running does no parsing or embedding work).
* Changed or new files are parsed in a process pool (PyMuPDF is single
  threaded; parsing overlaps with embedding in the main process).
* Each document is committed in one SQLite transaction (pages, chunks, FTS via
  triggers, segment vectors), so a crash or Ctrl-C loses at most the document in
  flight. FAISS is rebuilt from the stored vectors at the end (or on next open).
* Bad files are reported one line each with the reason; the others are indexed.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from finrag.state.prompts import CONTEXT_PROMPT
from finrag.tools.indexing.chunking import (
    CHUNK_OVERLAP,
    CHUNK_SIZE,
    chunk_pages,
    chunk_segment_span,
    join_pages,
    segments,
)
from finrag.tools.indexing.parsing import (
    SUPPORTED_SUFFIXES,
    ParsedDocument,
    ParseError,
    doc_id_for,
    file_hash,
    parse_file,
)
from finrag.tools.indexing.store import Store


@dataclass
class IndexReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    segments: int = 0
    parse_seconds: float = 0.0
    embed_seconds: float = 0.0
    total_seconds: float = 0.0
    interrupted: bool = False

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def discover(paths: Sequence[str | Path], report: IndexReport) -> list[Path]:
    """Supported files under the given paths (sorted); problems go to the report."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.suffix.lower() in SUPPORTED_SUFFIXES and not f.name.startswith("."):
                    found.append(f)
        elif p.exists() or p.is_symlink():
            found.append(p)
        else:
            report.failed.append((str(p), "file not found"))
    return found


def _parse_job(path: str) -> ParsedDocument | tuple[str, str]:
    try:
        return parse_file(path)
    except ParseError as exc:
        return (path, str(exc))
    except Exception as exc:  # never let one file kill the run
        return (path, f"unexpected parser error: {type(exc).__name__}: {str(exc)[:120]}")


def _parsed_stream(paths: list[str], workers: int, on_parsed: Callable[[], None] = lambda: None
                   ) -> Iterator[ParsedDocument | tuple[str, str]]:
    """Parse files in a process pool; yield results in input order, call `on_parsed` as each finishes."""
    if workers <= 1 or len(paths) <= 1:
        for p in paths:
            result = _parse_job(p)
            on_parsed()
            yield result
        return
    import multiprocessing as mp

    # fork: workers only run PyMuPDF, and fork works from scripts without a __main__ guard
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
    from collections import deque

    ahead = workers * 4  # parse at most this many files ahead of the embedder (bounded memory)
    pending = iter(paths)
    window: deque = deque()
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:

        def submit_next() -> None:
            path = next(pending, None)
            if path is not None:
                fut = pool.submit(_parse_job, path)
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


def _progress(total: int, desc: str, unit: str, enabled: bool, position: int = 0):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, dynamic_ncols=True, leave=True,
                position=position)


def index_paths(paths: Sequence[str | Path], store: Store, *, chunk_size: int = CHUNK_SIZE,
                chunk_overlap: int = CHUNK_OVERLAP,
                workers: int | None = None, progress: bool = True, alias_file: str | None = None,
                log: Callable[[str], None] = print) -> IndexReport:
    """Index files and folders into `store` (which must have an embedder)."""
    from finrag.tools.routing.documents import build_document_info

    if store.embedder is None:
        raise ValueError("index_paths needs a Store opened with an embedder")
    store.check_chunking(chunk_size, chunk_overlap)
    report = IndexReport()
    t0 = time.perf_counter()
    files = discover(paths, report)
    known = store.document_hashes()
    todo: list[str] = []
    seen: dict[str, str] = {}
    for f in files:
        doc_id = doc_id_for(f)
        if doc_id in seen:
            report.failed.append((str(f), f"duplicate document id {doc_id!r} (also {seen[doc_id]})"))
            continue
        seen[doc_id] = str(f)
        try:
            digest = file_hash(f) if f.is_file() else None
        except OSError:
            digest = None
        if digest is not None and doc_id in known and known[doc_id][0] == digest:
            report.unchanged.append(doc_id)
        else:
            todo.append(str(f))
    workers = workers or max(1, min(os.cpu_count() or 1, 4))
    embedder = store.embedder
    step = chunk_size - chunk_overlap
    parse_bar = _progress(len(todo), "parse", "file", progress and bool(todo), position=0)
    bar = _progress(len(todo), "embed", "file", progress and bool(todo), position=1)
    try:
        t_parse = time.perf_counter()
        for item in _parsed_stream(todo, workers, on_parsed=lambda: parse_bar.update(1)):
            report.parse_seconds += time.perf_counter() - t_parse
            if isinstance(item, tuple):
                report.failed.append(item)
                bar.update(1)
                t_parse = time.perf_counter()
                continue
            doc = item
            info = build_document_info(doc.path, "\n".join(doc.pages[:3]))
            chunks = chunk_pages(doc.pages, chunk_size, chunk_overlap)
            text, _ = join_pages(doc.pages)
            t_embed = time.perf_counter()
            if chunk_size % step == 0:
                segs = segments(text, step)
                spans = [chunk_segment_span(c, chunk_size, chunk_overlap, len(segs)) for c in chunks]
                chunk_segs = [(s.start, len(s)) for s in spans]
            else:  # chunk size not a multiple of the step: one vector per chunk
                segs = [c.text for c in chunks]
                chunk_segs = [(i, 1) for i in range(len(chunks))]
            vectors = embedder.embed_documents(segs)
            report.embed_seconds += time.perf_counter() - t_embed
            store.replace_document(info, doc.content_hash, doc.pages, chunks, vectors, chunk_segs)
            report.indexed.append(doc.doc_id)
            report.pages += len(doc.pages)
            report.chunks += len(chunks)
            report.segments += len(segs)
            bar.set_postfix_str(f"{doc.doc_id}: {len(doc.pages)}p {len(chunks)}c", refresh=False)
            bar.update(1)
            t_parse = time.perf_counter()
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        bar.close()
        parse_bar.close()
    if alias_file:
        store.set_meta("alias_file", str(Path(alias_file).resolve()))
    changed: list[str] = []
    if not report.interrupted:
        changed = refresh_registry(store)
        if changed:  # prefixes derived from registry entries are stale for these documents
            store.delete_prefixes("meta", changed)
            if (store.get_meta("variant_llmctx_source") or "offline") == "offline":
                store.delete_prefixes("llmctx", changed)
    if not report.interrupted and (report.indexed or changed or not store.faiss_is_current()):
        store.build_faiss("base")
        for variant in ("meta", "llmctx"):
            have, total = store.variant_status(variant)
            if not have or have == total and store.faiss_is_current(variant):
                continue
            source = store.get_meta(f"variant_{variant}_source") or "offline"
            if source != "offline":  # never mix offline contexts into an LLM-built variant
                log(f"variant {variant} was built with {source}: run `finrag index --variant {variant} --llm ...` "
                    f"to cover the new documents ({have}/{total} chunks have a prefix)")
                continue
            try:  # keep variants that exist in step with the base index
                build_variant(store, variant, progress=progress, log=log)
            except Exception as exc:
                log(f"warning: variant {variant} not updated: {exc}")
    report.total_seconds = time.perf_counter() - t0
    return report


def refresh_registry(store: Store) -> list[str]:
    """Re-derive every document's registry entry from its path and stored cover pages.

    Cheap (no parsing, no embedding), so improvements to the registry reach an
    existing index on the next `finrag index` run. Returns how many changed.
    """
    from finrag.tools.routing.documents import build_document_info

    changed = []
    for old in store.documents():
        cover = "\n".join(store.pages_of(old.doc_id)[:3])
        new = build_document_info(old.path, cover)
        if new != old:
            store.update_document_info(new)
            changed.append(old.doc_id)
    return changed


def remove_documents(store: Store, names: Iterable[str]) -> IndexReport:
    report = IndexReport()
    for name in names:
        doc_id = doc_id_for(name) if ("/" in name or "." in Path(name).name) else name
        if store.remove_document(doc_id):
            report.removed.append(doc_id)
        else:
            report.failed.append((name, "no such document in the index"))
    if report.removed:
        store.build_faiss("base")
        for variant in ("meta", "llmctx"):
            if store.variant_status(variant)[0]:
                store.build_faiss(variant)
    return report


def build_variant(store: Store, variant: str, *, contextualizer=None, context_prompt: str = CONTEXT_PROMPT,
                  budget_calls: int | None = None, progress: bool = True,
                  log: Callable[[str], None] = print) -> dict:
    """Fill the missing prefixes of a variant (resumable), then build its FAISS file.

    `contextualizer` is a chat model for `llmctx` (None = the offline context), prompted with
    `context_prompt` (the configuration's `contextualizer_prompt`; `{document}` and `{chunk}` are filled in).
    Returns what was done, including LLM calls and tokens spent at index time.
    """
    from finrag.tools.indexing import variants as V
    from finrag.tools.llm.calls import invoke_tracked

    infos = {d.doc_id: d for d in store.documents()}
    missing = store.missing_prefix_chunks(variant)
    done = {"variant": variant, "added": 0, "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "budget_exhausted": False}
    bar = _progress(len(missing), f"variant {variant}", "chunk", progress and bool(missing))
    headings: dict[str, V.HeadingIndex] = {}
    doc_texts: dict[str, str] = {}
    batch: list[tuple[int, str, object]] = []

    def flush():
        if not batch:
            return
        vecs = [None] * len(batch)
        if variant == "llmctx":  # embed each distinct context once
            distinct = list(dict.fromkeys(p for _, p, _ in batch))
            by_text = dict(zip(distinct, store.embedder.embed_documents(distinct)))
            vecs = [by_text[p] for _, p, _ in batch]
        store.add_prefixes(variant, [(cid, p, v) for (cid, p, _), v in zip(batch, vecs)])
        done["added"] += len(batch)
        batch.clear()

    if missing:
        from finrag.tools.llm.chat import model_name

        source = "offline" if variant == "meta" or contextualizer is None else f"llm:{model_name(contextualizer)}"
        recorded = store.get_meta(f"variant_{variant}_source")
        have, _ = store.variant_status(variant)
        if have and recorded and recorded != source:
            raise ValueError(f"variant {variant!r} was built with {recorded}, not {source}; to rebuild it, remove it "
                             f"first (`finrag index --drop-variant {variant}`)")
        store.set_meta(f"variant_{variant}_source", source)
    try:
        for row in missing:
            info = infos[row["doc_id"]]
            if variant == "meta":
                prefix = V.meta_prefix(info)
            elif contextualizer is None:
                if info.doc_id not in headings:
                    headings = {info.doc_id: V.HeadingIndex.of(store.document_text(info.doc_id))}
                prefix = V.offline_context(info, row["page_start"], headings[info.doc_id].before(row["char_start"]))
            else:
                if budget_calls is not None and done["llm_calls"] >= budget_calls:
                    done["budget_exhausted"] = True
                    break
                if info.doc_id not in doc_texts:
                    doc_texts = {info.doc_id: store.document_text(info.doc_id)[:200_000]}
                from langchain_core.messages import HumanMessage

                msg = context_prompt.format(document=doc_texts[info.doc_id], chunk=row["text"])
                reply, rec = invoke_tracked("contextualizer", contextualizer, [HumanMessage(msg)])
                prefix = " ".join(str(reply.content).split())[:800]
                done["llm_calls"] += 1
                done["prompt_tokens"] += rec["prompt_tokens"]
                done["completion_tokens"] += rec["completion_tokens"]
            batch.append((row["chunk_id"], prefix, None))
            if len(batch) >= 256:
                flush()
            bar.update(1)
        flush()
    finally:
        flush()
        bar.close()
        for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
            prev = int(store.get_meta(f"variant_{variant}_{key}", "0"))
            store.set_meta(f"variant_{variant}_{key}", prev + done[key])
    have, total = store.variant_status(variant)
    if have == total:
        store.build_faiss(variant)
    else:
        log(f"variant {variant}: {have}/{total} chunks have a prefix; run again to resume")
    return done
