"""`finrag index --check`: verify an index without changing it.

The database is opened read-only (`mode=ro`), so a check never writes, also while a writer runs. It verifies:

* SQLite's own `PRAGMA quick_check` (a truncated or overwritten file fails here, or already on open); an
  empty (0-byte) database file, which SQLite would take for a new database, is damage too;
* documents, pages, chunks, FTS5 rows and segment vectors agree: every document has its `n_pages` pages and
  at least one chunk, the FTS5 index has one row per chunk (and per prefixed chunk of each variant), every
  chunk's segment span exists, every vector has the recorded dimension and is finite and of unit length (bytes
  that SQLite's structure check cannot judge: a zeroed overflow page inside the file);
* each variant is either complete or resumable (a partial variant is reported, not an error: the next
  `finrag index --variant NAME` finishes it);
* each vector file (`vectors_<variant>.f32`, tools/indexing/vectors.py) has a vector in the row of every
  chunk of the documents it records (`vec_rows`), for the embedder and dimension of the index. A missing
  file, or documents whose vectors are stored but not yet written to it, are not damage: they are written
  from SQLite on the next search (that is how a crash between a commit and a write is repaired); they are
  reported as notes, as are documents without vectors yet (`finrag index --embed` adds them).

`check_index(dir)` returns a `CheckReport`; `ok` is False when anything is inconsistent.
"""
from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from finrag.tools.indexing import chunk_text
from finrag.tools.indexing.chunking import join_pages
from finrag.tools.indexing.store_schema import DB_NAME, VARIANTS


@dataclass
class CheckReport:
    index_dir: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    faiss: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict:
        return {"index_dir": self.index_dir, "ok": self.ok, "problems": self.problems, "notes": self.notes,
                "counts": self.counts, "faiss": self.faiss}

    def lines(self) -> list[str]:
        c = self.counts
        out = [f"index      {self.index_dir}"]
        if c:
            out.append(f"contents   {c.get('documents', 0)} documents, {c.get('pages', 0)} pages, "
                       f"{c.get('chunks', 0)} chunks, {c.get('fts_rows', 0)} FTS rows, {c.get('segments', 0)} "
                       f"segment vectors (generation {c.get('generation')})")
            variants = ", ".join(f"{v} {c.get(f'prefixes_{v}', 0)}/{c.get('chunks', 0)}" for v in VARIANTS[1:])
            out.append(f"variants   {variants}")
        for variant, state in self.faiss.items():
            out.append(f"faiss      {variant}: {state}")
        out += [f"note       {n}" for n in self.notes]
        out += [f"PROBLEM    {p}" for p in self.problems]
        out.append("check      OK" if self.ok else f"check      FAILED: {len(self.problems)} problem(s)")
        return out


def _connect_ro(db: Path) -> sqlite3.Connection:
    """A read-only connection. In a folder this process cannot write (no `-shm` can be made) a WAL database
    only opens as `immutable`, which is safe when there is no write-ahead log to read: then no writer is
    active either (it would need that folder)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        conn.execute("PRAGMA query_only=1")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = db.with_name(db.name + "-wal")
        if os.access(db.parent, os.W_OK) or (wal.exists() and wal.stat().st_size):
            raise
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    conn.execute("PRAGMA query_only=1")
    return conn


def check_index(index_dir: str | Path) -> CheckReport:
    index_dir = Path(index_dir)
    rep = CheckReport(str(index_dir))
    db = index_dir / DB_NAME
    if not db.is_file():
        rep.problems.append(f"no index database at {db}")
        return rep
    wal = db.with_name(db.name + "-wal")
    if db.stat().st_size == 0 and not (wal.exists() and wal.stat().st_size):
        rep.problems.append(f"index database {db} is an empty file (0 bytes): damaged or not a finrag index; "
                            "rebuild it from the filings into a new directory")
        return rep
    try:
        conn = _connect_ro(db)
        try:
            _check_db(conn, index_dir, rep)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        rep.problems.append(f"index database {db} cannot be read: {exc}")
    return rep


def _scalar(conn, sql: str, *params):
    return conn.execute(sql, params).fetchone()[0]


def _check_db(conn: sqlite3.Connection, index_dir: Path, rep: CheckReport) -> None:
    result = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
    if result != ["ok"]:
        rep.problems.append(f"SQLite quick_check of {index_dir / DB_NAME}: {'; '.join(result[:5])}")
        return
    conn.execute("BEGIN")  # one snapshot for every count below (WAL: a running writer does not disturb it)
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    dim = int(meta.get("embedding_dim") or 0)
    c = rep.counts
    c["generation"] = int(meta.get("generation", 0))
    c["documents"] = _scalar(conn, "SELECT COUNT(*) FROM documents")
    c["pages"] = _scalar(conn, "SELECT COUNT(*) FROM pages")
    c["chunks"] = _scalar(conn, "SELECT COUNT(*) FROM chunks")
    c["segments"] = _scalar(conn, "SELECT COUNT(*) FROM segments")
    c["fts_rows"] = _scalar(conn, "SELECT COUNT(*) FROM chunks_fts_docsize")

    bad_pages = conn.execute("SELECT d.doc_id, d.n_pages, COUNT(p.page_no) FROM documents d LEFT JOIN pages p "
                             "ON p.doc_id = d.doc_id GROUP BY d.doc_id HAVING COUNT(p.page_no) != d.n_pages").fetchall()
    for doc, want, have in bad_pages[:5]:
        rep.problems.append(f"document {doc}: {have} pages stored, {want} recorded")
    no_chunks = [r[0] for r in conn.execute("SELECT doc_id FROM documents WHERE doc_id NOT IN "
                                            "(SELECT DISTINCT doc_id FROM chunks)").fetchall()]
    if no_chunks:
        rep.problems.append(f"{len(no_chunks)} document(s) without chunks: {', '.join(no_chunks[:5])}")
    for table in ("chunks", "pages", "segments"):
        orphans = _scalar(conn, f"SELECT COUNT(*) FROM {table} WHERE doc_id NOT IN (SELECT doc_id FROM documents)")
        if orphans:
            rep.problems.append(f"{orphans} {table} row(s) of documents that are not in the index")
    if c["fts_rows"] != c["chunks"]:
        rep.problems.append(f"the full-text index has {c['fts_rows']} rows for {c['chunks']} chunks")
    if not chunk_text.stores_text(conn):
        _check_spans(conn, rep)
    embedded = "EXISTS (SELECT 1 FROM segments s WHERE s.doc_id = c.doc_id)"  # text-only documents: vectors to come
    spans = _scalar(conn, f"SELECT COUNT(*) FROM chunks c WHERE {embedded} AND (c.seg_count < 1 OR c.seg_first < 0 "
                          "OR c.seg_first + c.seg_count > (SELECT COUNT(*) FROM segments s WHERE s.doc_id = c.doc_id))")
    if spans:
        rep.problems.append(f"{spans} chunk(s) point at segment vectors that are not stored")
    pending = _scalar(conn, "SELECT COUNT(*) FROM documents d WHERE NOT EXISTS "
                            "(SELECT 1 FROM segments s WHERE s.doc_id = d.doc_id)")
    c["documents_without_vectors"] = pending
    if pending:
        rep.notes.append(f"{pending} document(s) have no vectors yet (BM25 only; HDRR embeds a routed one on "
                         "demand): `finrag index --embed` adds them")
    if dim:
        wrong = _scalar(conn, "SELECT COUNT(*) FROM segments WHERE length(vec) != ?", 4 * dim)
        if wrong:
            rep.problems.append(f"{wrong} segment vector(s) are not {dim}-dimensional float32")
        _check_vector_contents(conn, dim, rep)
    elif c["documents"]:
        rep.problems.append("no embedding dimension recorded for an index with documents")

    complete = {"base": True}
    for v in VARIANTS[1:]:
        have = _scalar(conn, "SELECT COUNT(*) FROM chunk_prefix WHERE variant=?", v)
        c[f"prefixes_{v}"] = have
        orphans = _scalar(conn, "SELECT COUNT(*) FROM chunk_prefix WHERE variant=? AND chunk_id NOT IN "
                                "(SELECT chunk_id FROM chunks)", v)
        if orphans:
            rep.problems.append(f"variant {v}: {orphans} prefix(es) of chunks that are not in the index")
        fts = _scalar(conn, f"SELECT COUNT(*) FROM chunks_fts_{v}_docsize")
        if fts != have:
            rep.problems.append(f"variant {v}: the full-text index has {fts} rows for {have} prefixed chunks")
        complete[v] = have == c["chunks"] and have > 0
        if 0 < have < c["chunks"]:
            rep.notes.append(f"variant {v} covers {have} of {c['chunks']} chunks; `finrag index --variant {v}` "
                             "finishes it")
    try:
        recorded = conn.execute("SELECT variant, doc_id, lo, hi, file FROM vec_rows").fetchall()
    except sqlite3.OperationalError:  # an index written before vector files existed
        recorded = []
    with_vectors = {r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM segments")}
    chunk_ids: dict[str, list[int]] = {}
    for doc, cid in conn.execute("SELECT doc_id, chunk_id FROM chunks ORDER BY chunk_id"):
        chunk_ids.setdefault(doc, []).append(cid)
    conn.execute("COMMIT")
    for old in sorted(index_dir.glob("faiss_*.index")):
        rep.notes.append(f"{old.name} is from an earlier version (vectors now live in vectors_*.f32); it can be deleted")
    for variant in VARIANTS:
        rows = [r[1:] for r in recorded if r[0] == variant]
        rep.faiss[variant] = _check_vectors(index_dir, variant, meta, rows, with_vectors, chunk_ids,
                                            complete[variant], rep)


def _check_spans(conn: sqlite3.Connection, rep: CheckReport) -> None:
    """Each chunk's span (`chunk_text.py`) lies inside its document's page text and starts in its first page."""
    bad: list[str] = []
    docs = [r[0] for r in conn.execute("SELECT doc_id FROM documents ORDER BY doc_id")]
    for doc in docs:
        # Python's lengths: SQLite's length() stops at a NUL, which some pages hold
        text, starts = join_pages([r[0] or "" for r in conn.execute(
            "SELECT text FROM pages WHERE doc_id=? ORDER BY page_no", (doc,))])
        for r in conn.execute("SELECT chunk_id, page_start, page_end, page_off, char_start, char_end FROM chunks "
                              "WHERE doc_id=?", (doc,)):
            cid, p0, p1, off, a, b = r
            if not (0 <= p0 <= p1 < len(starts) and 0 <= a < b <= len(text) and starts[p0] + off == a):
                bad.append(f"{doc}#{cid}")
    if bad:
        rep.problems.append(f"{len(bad)} chunk(s) whose span is not inside its pages' text: {', '.join(bad[:5])}")


def _check_vector_contents(conn: sqlite3.Connection, dim: int, rep: CheckReport, batch: int = 8192) -> None:
    """Every stored vector is finite and of unit length (every embedder normalises): a damaged page inside the
    database that SQLite's structure check cannot see (vector bytes sit on overflow pages) shows up here."""
    for table, where in (("segments", ""), ("chunk_prefix", " WHERE vec IS NOT NULL")):
        bad = 0
        cur = conn.execute(f"SELECT vec FROM {table}{where}")
        while rows := cur.fetchmany(batch):
            blobs = [r[0] for r in rows if r[0] is not None and len(r[0]) == 4 * dim]
            if not blobs:
                continue
            mat = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
            with np.errstate(all="ignore"):
                norms = np.linalg.norm(mat, axis=1)
            bad += int((~np.isfinite(norms) | (np.abs(norms - 1.0) > 1e-3)).sum())
        if bad:
            rep.problems.append(f"{bad} {'segment' if table == 'segments' else 'prefix'} vector(s) in "
                                f"{rep.index_dir}/{DB_NAME} are damaged (not finite or not of unit length)")


def _check_vectors(index_dir: Path, variant: str, meta: dict, recorded: list, with_vectors: set,
                   chunk_ids: dict, complete: bool, rep: CheckReport) -> str:
    path, side = index_dir / f"vectors_{variant}.f32", index_dir / f"vectors_{variant}.json"
    if not path.exists() or not side.exists():
        if variant == "base" and with_vectors:
            rep.notes.append("no vector file for base: it is written from SQLite on the next search")
            return "missing (written on the next search)"
        return "none" if not complete else "missing (written on the next search)"
    try:
        info = json.loads(side.read_text())
    except (OSError, ValueError) as exc:
        rep.notes.append(f"vector side file {side.name} unreadable ({exc}): the file is rewritten on the next search")
        return "stale (unreadable side file)"
    dim = int(meta.get("embedding_dim") or 0)
    if info.get("embedder") != meta.get("embedder") or info.get("dim") != dim:
        rep.notes.append(f"vector file {variant} is of embedder {info.get('embedder')} / dim {info.get('dim')}: "
                         "rewritten from SQLite on the next search")
        return "stale (other embedder)"
    size = path.stat().st_size
    if size % (4 * dim):
        rep.problems.append(f"vector file {path} is {size} bytes, not a whole number of {dim}-dimensional rows")
        return "damaged"
    mat = np.memmap(path, dtype=np.float32, mode="r", shape=(size // (4 * dim), dim)) if size else np.zeros((0, dim))
    current = [r for r in recorded if r[3] == info.get("file")]
    missing = bad = 0
    for doc, lo, hi, _ in current:
        ids = np.asarray(chunk_ids.get(doc, []), dtype=np.int64)
        if doc not in with_vectors or not ids.size or ids.min() < lo or ids.max() > hi:
            bad += 1
            continue
        inside = ids[ids < len(mat)]
        missing += int(ids.size - inside.size) + int((~np.asarray(mat[inside]).any(axis=1)).sum())
    if bad:
        rep.problems.append(f"vector file {variant}: {bad} recorded document(s) do not match the database's chunks")
    if missing:
        rep.problems.append(f"vector file {variant} holds no vector for {missing} chunk(s) of the documents it records")
    unwritten = len(with_vectors - {r[0] for r in current}) if complete else 0
    if unwritten:
        rep.notes.append(f"vector file {variant}: {unwritten} document(s) with stored vectors not written yet "
                         "(written on the next search)")
    n = sum(len(chunk_ids.get(r[0], [])) for r in current)
    return f"{n} vectors of {len(current)} documents" + (", current" if not unwritten and not missing else "")
