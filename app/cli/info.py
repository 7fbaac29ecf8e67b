"""`finrag info` (app/cli/info.py): what is in an index (sizes, embedder, variants; `--documents` lists the filings)."""
from __future__ import annotations

import argparse
import json

from finrag.cli.common import EXIT_OK, _index_arg, _index_dir
from finrag.tools.documents.doc_ids import printable
from finrag.tools.indexing.backend import open_store


def add_arguments(s: argparse.ArgumentParser) -> None:
    _index_arg(s)
    s.add_argument("--documents", action="store_true", help="list the documents and their registry entries")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)


def run(args) -> int:
    store = open_store(_index_dir(args))
    stats = store.stats()
    docs = store.documents()
    store.close()
    if args.json:
        stats["documents_list"] = [d.model_dump() for d in docs] if args.documents else None
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    print(f"index      {stats['index_dir']}")
    print(f"documents  {stats['documents']}   pages {stats['pages']:,}   chunks {stats['chunks']:,}")
    print(f"embedder   {stats['embedder']} (dim {stats['embedding_dim']})")
    print(f"chunking   {stats['chunk_size']} chars, {stats['chunk_overlap']} overlap")
    print("variants   " + ", ".join(f"{k}: {v:,} chunks" for k, v in stats["variants"].items()))
    size = stats.get("size_bytes")
    print(f"size       {size / 1e6:,.1f} MB on disk" if size is not None
          else "size       not reported (a Milvus server's storage is its own)")
    if args.documents:
        for d in docs:
            origin = " ".join(f"{k}={v}" for k, v in d.sources.items())
            print(printable(f"  {d.doc_id:45s} {d.company[:30]:30s} {','.join(d.tickers[:3]):12s} {d.period:8s} "
                            f"{d.form}" + (f"  [{origin}]" if origin else "")))
            for conflict in d.identity_conflicts:  # the other value, and which one routing uses
                print(printable(f"    conflict: {conflict}"))
    return EXIT_OK
