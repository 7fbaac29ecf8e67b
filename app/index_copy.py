"""`finrag copy SRC DST` and `finrag index ... --index milvus:...` (the Milvus backend, issue 10).

`finrag copy` copies an index between the embedded backend (a directory) and Milvus (`milvus:PATH.db`
for Milvus Lite, `milvus://HOST:PORT[/DB]` for a server or cluster) without re-embedding, with a
progress bar; an interrupted copy resumes when run again (tools/indexing/milvus/writer.py).

`finrag index PATHS --index milvus:...` parses, chunks and embeds into a local embedded *staging*
index (`PATH.db.finrag/staging` for Milvus Lite, `~/.cache/finrag/milvus/<id>/staging` for a server),
then copies what changed into Milvus: incremental by content hash (unchanged filings are neither parsed
again nor rewritten), `--remove` removes from both, `--variant` builds V-A / V-B and copies them.
"""
from __future__ import annotations

import argparse
import sys

from finrag.tools.indexing.locking import writer_lock
from finrag.tools.indexing.milvus.schema import parse_location
from finrag.tools.indexing.milvus.writer import copy_index
from finrag.tools.indexing.store import Store
from finrag.tools.indexing.store_schema import DB_NAME, IndexError_


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("src", help="source index: a directory, milvus:PATH.db or milvus://HOST:PORT[/DB]")
    s.add_argument("dst", help="destination index (the other backend)")
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=cmd_copy)


def cmd_copy(args: argparse.Namespace) -> int:
    rep = copy_index(args.src, args.dst, progress=not args.quiet and sys.stderr.isatty())
    for doc, why in rep.skipped:
        print(f"skipped {doc}: {why}", file=sys.stderr)
    print(rep.line())
    if rep.interrupted:
        print("interrupted: every document copied so far is in the destination; run again to resume", file=sys.stderr)
        return 130
    return 0


def index_into_milvus(args: argparse.Namespace, index_locked) -> int:
    """`finrag index` against a milvus: location: index into the staging directory, then copy into Milvus."""
    if args.check:
        raise IndexError_("--check verifies embedded indexes; for Milvus, `finrag info --index "
                          f"{args.index}` reads it back")
    location = args.index
    staging = parse_location(location).cache_dir / "staging"
    with writer_lock(staging):
        before = _doc_ids(staging)
        code = index_locked(staging, args)
        after = _doc_ids(staging)
    if code != 0:
        return code
    removed = (before - after) | set(args.remove or [])  # --remove: what staging removed, and ids named
    rep = copy_index(str(staging), location, progress=not getattr(args, "quiet", False) and sys.stderr.isatty(),
                     remove_extra=False, remove_ids=tuple(removed))
    for doc in rep.removed:
        print(f"removed {doc} from {location}")
    for doc, why in rep.skipped:
        print(f"skipped {doc}: {why}", file=sys.stderr)
    print(f"milvus {location}: {rep.line()}")
    return 130 if rep.interrupted else 0


def _doc_ids(index_dir) -> set[str]:
    if not (index_dir / DB_NAME).exists():
        return set()
    store = Store(index_dir)
    try:
        return set(store.document_hashes())
    finally:
        store.close()
