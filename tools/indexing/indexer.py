"""The indexing pipeline: files -> pages -> chunks -> SQLite (FTS5, BM25 postings) + segment embeddings ->
vector files (memory-mapped NumPy rows, an optional FAISS approximate index).

* Files are found recursively; each is hashed and skipped when its hash is
  already in the index (re-running does no parsing or embedding work).
* Changed or new files are parsed in a process pool (PyMuPDF is single
  threaded; parsing overlaps with storing text in the main process).
* Text first, vectors after: each document's text is committed in one SQLite
  transaction (pages, chunks, FTS via triggers, BM25 postings, registry entry),
  so every filing is routable and BM25-searchable as soon as the parse pass ends;
  then the embed pass stores each document's segment vectors (one transaction per
  document; `embed=False` / `finrag index --no-embed` leaves that to a later
  `finrag index --embed`, and HDRR embeds a routed filing on demand meanwhile).
  A crash or Ctrl-C loses at most the document in flight. The vector files are
  derived from the stored vectors (tools/indexing/vectors.py).
* Bad files are reported one line each with the reason; the others are indexed. Hidden files (a name
  that starts with a dot) found in a folder are skipped, and reported as skipped.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from finrag.state.prompts import CONTEXT_PROMPT
from finrag.tools.documents.doc_ids import doc_id_for
from finrag.tools.documents.parsing import MAX_FILE_CHARS, MAX_PARSE_SECONDS, SUPPORTED_SUFFIXES, assign_doc_ids
from finrag.tools.indexing import variants as V
from finrag.tools.indexing.chunking import CHUNK_OVERLAP, CHUNK_SIZE
from finrag.tools.indexing.embedders import require_document_encoder
from finrag.tools.indexing.facts_store import load_facts, save_facts
from finrag.tools.indexing.open_index import registry_for as get_registry
from finrag.tools.indexing.pipeline import Prepared, StageClock, embeds_in_workers, prepared_stream
from finrag.tools.indexing.sections_store import backfill_sections, save_sections
from finrag.tools.indexing.store import Store
from finrag.tools.llm.calls import invoke_tracked
from finrag.tools.llm.replies import model_name
from finrag.tools.routing.documents import build_document_info


@dataclass
class IndexReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): hidden files in a folder
    removed: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (path, id of the identical document)
    pages: int = 0
    chunks: int = 0
    segments: int = 0
    parse_seconds: float = 0.0
    embed_seconds: float = 0.0  # inside the encoder (the raw encoder's time on exactly these segments)
    embed_pass_seconds: float = 0.0  # wall time of the embed pass (encoder + storing the vectors)
    answerable_seconds: float = 0.0  # from the start until every new filing was routable and BM25-searchable
    embedded: list[str] = field(default_factory=list)
    total_seconds: float = 0.0
    interrupted: bool = False
    stages: dict[str, dict[str, float]] = field(default_factory=dict)
    """Wall and CPU seconds per stage (`pipeline.StageClock`): parse/chunk/postings/embed in the pool's workers (summed
    over them), wait (the writer idle for the parser), write_text, sections_facts, write_vectors, then the
    serial tail: lexical_flush, registry, embed_pass, vector_files."""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _walk(folder: Path, report: IndexReport) -> list[Path]:
    """Supported files under `folder` (links followed, each real folder once); a folder that cannot be
    listed is one failure in the report, not a silent gap, and a hidden file of a supported type (`.X.pdf`,
    macOS's `._X.pdf`) is skipped with a line in the report."""
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()

    def unlistable(exc: OSError) -> None:
        report.failed.append((str(exc.filename or folder), f"cannot list folder: {exc.strerror or exc}"))

    for root, dirs, files in os.walk(folder, onerror=unlistable, followlinks=True):
        try:
            st = os.stat(root)
        except OSError as exc:
            unlistable(exc)
            dirs[:] = []
            continue
        if (st.st_dev, st.st_ino) in seen:  # a link back up the tree
            dirs[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        for name in files + dirs:  # a folder named like a filing is reported by the parser, not skipped
            if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if name.startswith("."):
                report.skipped.append((str(Path(root) / name), "hidden file (the name starts with a dot)"))
            elif name == "full-submission.txt" and any(f.startswith("primary-document.") for f in files):
                # sec-edgar-downloader saved the filing twice: its primary document is indexed once
                report.skipped.append((str(Path(root) / name), "same filing as primary-document in its folder"))
            else:
                found.append(Path(root) / name)
    return sorted(found)


def discover(paths: Sequence[str | Path], report: IndexReport) -> list[Path]:
    """Supported files under the given paths (sorted); problems go to the report."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found.extend(_walk(p, report))
        elif p.exists() or p.is_symlink():
            found.append(p)
        else:
            report.failed.append((str(p), "file not found"))
    return found


def _progress(total: int, desc: str, unit: str, enabled: bool, position: int = 0):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, dynamic_ncols=True, leave=True,
                position=position)


def index_paths(paths: Sequence[str | Path], store: Store, *, chunk_size: int = CHUNK_SIZE,
                chunk_overlap: int = CHUNK_OVERLAP,
                workers: int | None = None, progress: bool = True, alias_file: str | None = None,
                log: Callable[[str], None] = print, embed: bool = True, max_file_chars: int = MAX_FILE_CHARS,
                max_parse_seconds: float = MAX_PARSE_SECONDS) -> IndexReport:
    """Index files and folders into `store` (which must have an embedder): the text of every new or changed
    file, then (with `embed`) the vectors of every document that has none. Each file is parsed within its
    budget (`max_file_chars` of text, `max_parse_seconds`; `IndexSettings`), else reported as failed. With the
    static embedder the parse pool embeds too, so each document's text and vectors are stored as it arrives
    (`pipeline.py`); other embedders run their pass after every document's text is stored."""

    if store.embedder is None:
        raise ValueError("index_paths needs a Store opened with an embedder")
    if embed:
        require_document_encoder(store.embedder)  # before any file is read: not after the parse
    store.check_chunking(chunk_size, chunk_overlap)
    report = IndexReport()
    clock = StageClock()
    t0 = time.perf_counter()
    with clock.stage("migrate"):
        store.ensure_lexical(log=log)  # indexes built before the BM25 postings existed: migrated in place
        backfill_sections(store)  # indexes built before section labels existed: labelled from their pages
    with clock.stage("plan"):
        todo, ids_by_path = _plan_files(paths, store, report)
    workers = workers or max(1, min(os.cpu_count() or 1, 4))
    try:
        with clock.stage("pipeline"):
            _parse_and_store(store, todo, ids_by_path, report, clock, chunk_size=chunk_size,
                             chunk_overlap=chunk_overlap, workers=workers, progress=progress,
                             limits=(max_file_chars, max_parse_seconds), embed=embed)
        _fail_copies_of_failed(report, ids_by_path)
        if alias_file:
            store.set_meta("alias_file", str(Path(alias_file).resolve()))
        if report.duplicates and not report.interrupted:
            record_duplicates(store, report.duplicates)
        changed: list[str] = []
        if not report.interrupted:
            changed = _make_answerable(store, report, t0, clock, embed=embed, log=log)
            if embed:
                with clock.stage("embed_pass"):
                    embed_pending(store, progress=progress, report=report, log=log)
        if not report.interrupted and (report.indexed or report.embedded or changed or not store.faiss_is_current()):
            with clock.stage("vector_files"):
                _update_vector_files(store, progress=progress, log=log)
    finally:
        report.total_seconds = time.perf_counter() - t0
        report.stages = clock.as_dict()
    return report


def _plan_files(paths: Sequence[str | Path], store: Store, report: IndexReport) -> tuple[list[str], dict[str, str]]:
    """(the files to parse, doc id by resolved path): unchanged files and duplicates (identical content under
    another name) go to the report instead. An unchanged filing whose facts an older finrag stored (another
    `xbrl.FACTS_SCHEMA`) is parsed again."""
    files = discover(paths, report)
    known = store.document_hashes()
    stale = store.stale_facts_docs()
    todo: list[str] = []
    plan = assign_doc_ids(files, known)  # unique ids; identical content under several names = one document
    ids_by_path = {str(Path(f).resolve()): doc_id for f, doc_id in plan.ids.items()}
    for f in files:
        doc_id, digest = plan.ids.get(str(f)), plan.hashes.get(str(f))
        if doc_id is None:
            report.duplicates.append((str(f), plan.duplicates[str(f)]))
        elif digest and doc_id in known and known[doc_id][0] == digest and doc_id not in stale:
            report.unchanged.append(doc_id)
        else:
            todo.append(str(f))
    return todo, ids_by_path


def _fail_copies_of_failed(report: IndexReport, ids_by_path: dict[str, str]) -> None:
    """A file with the same content as one that failed fails too, with the same reason (it was never parsed:
    before, it was dropped without a line, as the alias of a document that does not exist)."""
    failed_ids = {ids_by_path.get(str(Path(path).resolve())): (path, why) for path, why in report.failed}
    kept: list[tuple[str, str]] = []
    for path, owner in report.duplicates:
        if owner in failed_ids:
            first, why = failed_ids[owner]
            report.failed.append((path, f"{why} (same content as {first})"))
        else:
            kept.append((path, owner))
    report.duplicates = kept


def _parse_and_store(store: Store, todo: list[str], ids_by_path: dict[str, str], report: IndexReport,
                     clock: StageClock, *, chunk_size: int, chunk_overlap: int, workers: int, progress: bool,
                     limits: tuple[int, float] = (MAX_FILE_CHARS, MAX_PARSE_SECONDS), embed: bool = True) -> None:
    """Prepare `todo` in the process pool (parse, chunk, and with the static embedder embed) and store each
    document as it arrives (`_store_prepared`); a file that fails is one line of the report, and Ctrl-C stops
    the pass with what was stored kept."""
    embedder = store.embedder if embed and embeds_in_workers(store.embedder) else None
    parse_bar = _progress(len(todo), "parse", "file", progress and bool(todo), position=0)
    bar = _progress(len(todo), "store", "file", progress and bool(todo), position=1)
    stream = prepared_stream(todo, workers, chunk_size=chunk_size, chunk_overlap=chunk_overlap, embedder=embedder,
                             on_parsed=lambda: parse_bar.update(1), limits=limits)
    try:
        while True:
            t_wait, c_wait = time.perf_counter(), time.thread_time()
            item = next(stream, None)
            waited = time.perf_counter() - t_wait
            clock.add("wait", waited, time.thread_time() - c_wait)
            report.parse_seconds += waited
            if item is None:
                break
            if isinstance(item, tuple):
                report.failed.append(item)
                bar.update(1)
                continue
            _store_prepared(store, item, ids_by_path, report, clock)
            bar.set_postfix_str(f"{item.doc.doc_id}: {len(item.doc.pages)}p {len(item.chunks)}c", refresh=False)
            bar.update(1)
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        stream.close()
        bar.close()
        parse_bar.close()


def _store_prepared(store: Store, item: Prepared, ids_by_path: dict[str, str], report: IndexReport,
                    clock: StageClock) -> None:
    """Store one prepared document: its text in one transaction (registry entry, pages, chunks with their
    segment spans), its XBRL facts and section labels, then the segment vectors the pool embedded (one
    transaction: `Store.add_segments`, as the embed pass stores them)."""

    for name, (wall, cpu) in item.times.items():
        clock.add(name, wall, cpu)
    doc = item.doc
    doc.doc_id = ids_by_path.get(doc.path, doc.doc_id)
    with clock.stage("write_text"):
        dei = (doc.xbrl or {}).get("dei")
        info = build_document_info(doc.path, "\n".join(doc.pages[:3]), dei=dei).model_copy(
            update={"doc_id": doc.doc_id})
        store.replace_document(info, doc.content_hash, doc.pages, item.chunks, None, item.chunk_segs,
                               postings=item.postings)
    with clock.stage("sections_facts"):
        save_facts(store, doc.doc_id, doc.content_hash, doc.xbrl)
        save_sections(store, doc.doc_id, doc.content_hash, doc.pages)  # items and notes per chunk
    report.indexed.append(doc.doc_id)
    report.pages += len(doc.pages)
    report.chunks += len(item.chunks)
    if item.vectors is not None:
        t = time.perf_counter()
        with clock.stage("write_vectors"):
            if store.add_segments(doc.doc_id, item.vectors):
                report.embedded.append(doc.doc_id)
                report.segments += len(item.vectors)
        embed_wall = item.times.get("embed", (0.0, 0.0))[0]
        report.embed_seconds += embed_wall  # inside the encoder, in the worker
        report.embed_pass_seconds += embed_wall + time.perf_counter() - t


def _make_answerable(store: Store, report: IndexReport, t0: float, clock: StageClock, *, embed: bool,
                     log: Callable[[str], None]) -> list[str]:
    """After the text pass: the BM25 runs of the new filings, the registry entries (stale `meta`/offline
    `llmctx` prefixes of changed documents dropped) and the stored registry; returns the changed doc ids."""
    t_runs = time.perf_counter()
    with clock.stage("lexical_flush"):
        n_runs = store.flush_lexical()
    if n_runs:
        _note(log, f"BM25 runs: postings of {n_runs} filing(s) written for corpus-wide search "
                   f"({time.perf_counter() - t_runs:.1f}s)")
    with clock.stage("registry"):
        changed = refresh_registry(store)
        if changed:  # prefixes derived from registry entries are stale for these documents
            store.delete_prefixes("meta", changed)
            if (store.get_meta("variant_llmctx_source") or "offline") == "offline":
                store.delete_prefixes("llmctx", changed)
        try:  # build and store the registry now, so the first question does not pay for it

            get_registry(store)
        except Exception as exc:  # routing data problems surface on the first question with their own message
            log(f"warning: registry not stored: {exc}")
    report.answerable_seconds = time.perf_counter() - t0
    if report.indexed:
        pending = embed and bool(store.vector_coverage(report.indexed)[0])
        _note(log, f"answerable after {report.answerable_seconds:.1f}s: {len(report.indexed)} new filing(s) "
                   f"routable and BM25-searchable" + ("; embedding their vectors next" if pending else
                                                      ", with their vectors" if embed else ""))
    return changed


def _update_vector_files(store: Store, *, progress: bool, log: Callable[[str], None]) -> None:
    """The base vector file (and approximate index) brought up to date, and the offline variants that exist
    kept in step with it (an LLM-built variant is only reported)."""
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


def _note(log: Callable[[str], None] | None, msg: str) -> None:
    """A progress line, flushed at once (a log file or a pipe sees it while the run goes on)."""
    if log is None:
        return
    log(msg)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def embed_pending(store: Store, *, progress: bool = True, report: IndexReport | None = None,
                  doc_ids: Sequence[str] | None = None, log: Callable[[str], None] | None = None,
                  log_every: float = 60.0) -> IndexReport:
    """The embed pass: store the segment vectors of every document that has none (or of `doc_ids`).

    One encoder call and one transaction per document, nothing else runs meanwhile, so the pass runs at
    the encoder's speed: `embed_seconds` is the time inside the encoder, `embed_pass_seconds` the wall time.
    Resumable: Ctrl-C keeps every document stored so far. With `log`, a line every `log_every` seconds
    gives the pass's rate so far and the encoder's alone.
    """
    report = report if report is not None else IndexReport()
    pending, _ = store.vector_coverage(doc_ids)
    if not pending:
        return report
    expected = store.segment_counts(pending)
    bar = _progress(sum(expected.values()), "embed", "seg", progress, position=2)  # seg/s and the time left
    t0 = last = time.perf_counter()
    segs0, enc0 = report.segments, report.embed_seconds
    try:
        for n, doc_id in enumerate(pending):
            if log is not None and time.perf_counter() - last >= log_every:
                last = time.perf_counter()
                segs, wall, enc = report.segments - segs0, last - t0, report.embed_seconds - enc0
                _note(log, f"embed pass: {n}/{len(pending)} filings, {segs} segments in {wall:.0f}s: "
                           f"{segs / wall:.2f} segments/s (encoder alone {segs / max(enc, 1e-9):.2f}/s)")
            texts = store.segment_texts(doc_id)
            t = time.perf_counter()
            vectors = store.embedder.embed_documents(texts)
            report.embed_seconds += time.perf_counter() - t
            if store.add_segments(doc_id, vectors):
                report.embedded.append(doc_id)
                report.segments += len(texts)
            bar.set_postfix_str(f"{n + 1}/{len(pending)} filings, {doc_id}", refresh=False)
            if bar.total is not None and bar.n + len(texts) > bar.total:  # an estimate short of the real count
                bar.total = bar.n + len(texts) + sum(expected.get(d, 0) for d in pending[n + 1:])
            bar.update(len(texts))
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        bar.close()
        report.embed_pass_seconds += time.perf_counter() - t0
    return report


def refresh_registry(store: Store) -> list[str]:
    """Re-derive every document's registry entry from its path and stored cover pages.

    Cheap (no parsing, no embedding), so improvements to the registry reach an
    existing index on the next `finrag index` run. Returns how many changed.
    """

    changed = []
    for old in store.documents():
        cover = "\n".join(store.pages_of(old.doc_id)[:3])
        new = build_document_info(old.path, cover, dei=(load_facts(store, old.doc_id) or {}).get("dei")).model_copy(
            update={"doc_id": old.doc_id, "alias_ids": old.alias_ids, "alias_paths": old.alias_paths})
        if new != old:
            store.update_document_info(new)
            changed.append(old.doc_id)
    return changed


def record_duplicates(store: Store, duplicates: list[tuple[str, str]]) -> None:
    """Record files with the same content as an indexed document as that document's aliases."""
    infos = {d.doc_id: d for d in store.documents()}
    for path, owner in duplicates:
        info = infos.get(owner)
        if info is None:
            continue
        resolved = str(Path(path).resolve())
        if resolved == str(Path(info.path).resolve()) or resolved in info.alias_paths:
            continue
        info = info.model_copy(update={"alias_paths": [*info.alias_paths, resolved],
                                       "alias_ids": [*info.alias_ids, doc_id_for(path)]})
        infos[owner] = info
        store.update_document_info(info)


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
    """Fill the missing prefixes of a variant (resumable), then bring its vector file (and approximate index,
    when one is configured) up to date (`Store.build_faiss`).

    `contextualizer` is a chat model for `llmctx` (None = the offline context), prompted with
    `context_prompt` (the configuration's `contextualizer_prompt`; `{document}` and `{chunk}` are filled in).
    Returns what was done, including LLM calls and tokens spent at index time.
    """

    infos = {d.doc_id: d for d in store.documents()}
    missing = store.missing_prefix_chunks(variant)
    done: dict[str, Any] = {"variant": variant, "added": 0, "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
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
