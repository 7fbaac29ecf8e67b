"""Milvus locations, connections and the collections of a finrag index (schema version `SCHEMA_VERSION`).

A finrag index in Milvus is a set of collections sharing a name prefix (`finrag` unless
`$FINRAG_MILVUS_PREFIX` says otherwise):

* `<p>_chunks`: one row per chunk: `chunk_id` (primary key), `doc_id` (the **partition key**: a
  filter `doc_id in [...]` on the routed filings searches only their partitions), page and character
  span, `seg_first`/`seg_count`, `text`, `sparse` (BM25, see below) and `dense` (the unit chunk vector).
  BM25 is chosen when the collections are created (`$FINRAG_MILVUS_BM25`, recorded as meta `bm25`):
  `finrag` (the default) stores finrag's own BM25 weights as a sparse vector searched with metric IP,
  so Milvus returns the embedded backend's BM25 scores (`lex.py`); `function` lets Milvus' built-in
  BM25 function fill `sparse` from `text` (analysed: standard tokenizer, lower case, English stemmer).
* `<p>_lex_terms` (`bm25=finrag`): `variant:term` -> df, the IDF side of finrag's BM25.
* `<p>_chunks_meta`, `<p>_chunks_llmctx`: the V-A / V-B variants, same layout, `text` = prefix + chunk
  text, `dense` = the variant's vector, plus `prefix` and `prefix_vec` (so a copy back needs no model).
* `<p>_segments`: the segment embeddings (the embedded index's source of truth), so a copy back to
  the embedded backend re-derives the same vectors without re-embedding.
* `<p>_xbrl_facts`: an inline-XBRL filing's tagged facts (the embedded store's `xbrl_facts` JSON, in parts
  of at most `PAGE_PART` characters, with the content hash they belong to), so the fact answerer works on a
  copy; optional (`OPTIONAL`): an index copied before it existed opens and answers from the table reader.
* `<p>_pages`, `<p>_documents`, `<p>_meta`: page texts (in parts of at most `PAGE_PART` characters),
  one row per filing (its `DocumentInfo` as JSON: the routing registry is built from these; `lex_json`:
  the avgdl its BM25 weights were computed with) and
  key/value metadata (embedder, chunking, generation, schema version). Milvus requires a vector field
  in every collection: these carry a 2-dimensional placeholder.

Locations: `milvus:PATH.db` is Milvus Lite (an embedded file, same client API), `milvus://HOST:PORT[/DB]`
a Milvus server or cluster; `$FINRAG_MILVUS_TOKEN` (`user:password` or an API key), `$FINRAG_MILVUS_TLS=1`
(https) and `$FINRAG_MILVUS_CA` (a CA certificate file) configure the connection.

The settings (`finrag.state.settings.MilvusSettings`) are read once, where the location is parsed
(`parse_location(text, settings)`: the caller's, else the environment's), and carried on the `Location`: the
connection, the new collections and the copy read them from there, never from the environment again.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from finrag.state.configuration import user_cache_dir
from finrag.state.settings import MilvusSettings, milvus_settings
from finrag.tools.indexing.store_schema import IndexError_, IndexMissing

SCHEMA_VERSION = 2  # 2: finrag's BM25 as sparse vectors (`bm25` meta), `<p>_lex_terms`, documents.lex_json
PAGE_PART = 16_000  # characters: at most 64,000 UTF-8 bytes, under Milvus' 65,535-byte VARCHAR limit
TEXT_MAX = 65_535
DUMMY_DIM = 2
VARIANT_NAMES = ("meta", "llmctx")
FACTS = "xbrl_facts"
OPTIONAL = (FACTS,)  # collections an index may lack (written by an older finrag): created when next written
_HOSTPORT = re.compile(r"^[A-Za-z0-9.\-\[\]:]+:\d+$")
ANALYZER = {"tokenizer": "standard", "filter": ["lowercase", {"type": "stemmer", "language": "english"}]}
BM25_MODES = ("finrag", "function")


def bm25_mode(settings: MilvusSettings) -> str:
    """The BM25 of collections created now: `$FINRAG_MILVUS_BM25` (finrag | function), default finrag."""
    mode = (settings.bm25 or "finrag").strip().lower()
    if mode not in BM25_MODES:
        raise IndexError_(f"FINRAG_MILVUS_BM25={mode!r}: expected one of {', '.join(BM25_MODES)}")
    return mode


class MilvusUnavailable(IndexError_):
    """The Milvus server cannot be reached, or Milvus Lite cannot open its file."""


class SchemaMismatch(IndexError_):
    """The collections were written by another schema version of finrag."""


def is_milvus(location) -> bool:
    return isinstance(location, str) and location.startswith("milvus:")


@dataclass(frozen=True)
class Location:
    """A parsed `milvus:` location."""

    text: str
    uri: str
    db_name: str
    lite: bool
    prefix: str
    settings: MilvusSettings = field(default_factory=milvus_settings, compare=False, repr=False)

    @property
    def cache_dir(self) -> Path:
        """A local directory for derived data (the routing registry's pickle)."""
        if self.lite:
            return Path(self.uri + ".finrag")
        digest = hashlib.sha1(f"{self.uri}|{self.db_name}|{self.prefix}".encode()).hexdigest()[:16]
        return user_cache_dir() / "milvus" / digest

    def name(self, what: str) -> str:
        return f"{self.prefix}_{what}"

    def __str__(self) -> str:
        return self.text


def parse_location(text: str, settings: MilvusSettings | None = None) -> Location:
    """The parsed `milvus:` location, carrying `settings` (None: the environment's, read here once)."""
    settings = milvus_settings(settings)
    prefix = settings.prefix or "finrag"
    if not prefix.replace("_", "").isalnum():
        raise IndexError_(f"FINRAG_MILVUS_PREFIX={prefix!r}: use letters, digits and underscores")
    rest = text[len("milvus:"):]
    head = rest.lstrip("/").split("/", 1)[0]
    if rest.startswith("//") or (rest.startswith("/") and not rest.endswith(".db") and _HOSTPORT.match(head)):
        # (`milvus:/HOST:PORT` too: a location that went through pathlib lost one slash)
        hostport, _, db = rest.lstrip("/").partition("/")
        if ":" not in hostport or not hostport.rsplit(":", 1)[1].isdigit():
            raise IndexError_(f"{text}: expected milvus://HOST:PORT[/DB]")
        scheme = "https" if settings.tls not in ("", "0") else "http"
        return Location(text, f"{scheme}://{hostport}", db.strip("/") or "default", False, prefix, settings)
    if not rest.endswith(".db"):
        raise IndexError_(f"{text}: a Milvus Lite location is milvus:PATH.db (the file name must end in .db)")
    path = Path(rest).expanduser().resolve()
    return Location(text, str(path), "default", True, prefix, settings)


def quiet() -> None:
    """pymilvus logs warnings (e.g. the query iterator's timestamp fallback on Milvus Lite) users need not see."""
    import logging

    for name in ("pymilvus", "milvus_lite"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # failures become one-line finrag errors


def connect(loc: Location, create: bool = False, timeout: float | None = None):
    """A MilvusClient for the location, or one clear error (MilvusUnavailable)."""
    try:
        from pymilvus import MilvusClient
    except ImportError as exc:  # the optional extra is not installed
        raise IndexError_(f"{loc}: the Milvus backend needs pymilvus and milvus-lite "
                          f"(pip install 'finrag[milvus]'): {exc}") from None
    quiet()
    settings = loc.settings
    timeout = timeout or settings.timeout
    kwargs: dict = {"uri": loc.uri, "timeout": timeout}
    if loc.lite:
        path = Path(loc.uri)
        if not path.exists() and not create:
            raise IndexMissing(f"no finrag index at {loc} (build one with `finrag copy SRC {loc}` "
                               f"or `finrag index PATH --index {loc}`)")
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        token = settings.token
        if token:
            kwargs["token"] = token
        if loc.db_name != "default":
            kwargs["db_name"] = loc.db_name
        ca = settings.ca
        if ca:
            kwargs["server_pem_path"] = ca
    try:
        if "db_name" in kwargs:  # a database of a server: created by the first write, else it must exist
            _database(MilvusClient, {k: v for k, v in kwargs.items() if k != "db_name"}, loc, create)
        return MilvusClient(**kwargs)
    except IndexMissing:
        raise
    except Exception as exc:
        what = "Milvus Lite cannot open" if loc.lite else "Milvus server unreachable at"
        raise MilvusUnavailable(f"{what} {loc} ({type(exc).__name__}: {short_error(exc)})") from None


def _database(client_class, kwargs: dict, loc: Location, create: bool) -> None:
    """Make sure the server has `loc`'s database: a writer (`create`) creates it, a reader is told there is no
    index there (`milvus://HOST:PORT/DB`: the docs' form, issue 51)."""
    client = client_class(**kwargs)
    try:
        if loc.db_name in client.list_databases():
            return
        if not create:
            raise IndexMissing(f"no finrag index at {loc}: the server has no database {loc.db_name!r} (build one "
                               f"with `finrag copy SRC {loc}` or `finrag index PATH --index {loc}`)")
        client.create_database(loc.db_name)
    finally:
        try:
            client.close()
        except Exception:
            pass


def short_error(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


def consistency(settings: MilvusSettings) -> str:
    return settings.consistency or "Strong"


def _dense_index(client, field: str, settings: MilvusSettings) -> dict:
    kind = (settings.index or "FLAT").upper()
    params: dict = {}
    if kind == "HNSW":
        params = {"M": 16, "efConstruction": 200}
    elif kind.startswith("IVF"):
        params = {"nlist": settings.nlist}
    return {"field_name": field, "index_type": kind, "metric_type": "IP", "params": params}


def _placeholder(schema, DataType) -> None:
    schema.add_field("v", DataType.FLOAT_VECTOR, dim=DUMMY_DIM)


def create_collections(client, loc: Location, dim: int, bm25: str = "finrag") -> None:
    """Create the collections that do not exist yet (idempotent); `bm25`: finrag or function."""
    from pymilvus import DataType, Function, FunctionType

    parts = loc.settings.partitions

    def make(name: str, schema, indexes: list[dict], partitioned: bool) -> None:
        if client.has_collection(name):
            return
        ip = client.prepare_index_params()
        for ix in indexes:
            ip.add_index(**ix)
        kw = {"num_partitions": parts} if partitioned else {}
        client.create_collection(name, schema=schema, index_params=ip, consistency_level=consistency(loc.settings), **kw)

    flat2 = {"field_name": "v", "index_type": "FLAT", "metric_type": "L2"}
    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("key", DataType.VARCHAR, max_length=512, is_primary=True)
    s.add_field("value", DataType.VARCHAR, max_length=TEXT_MAX)
    _placeholder(s, DataType)
    make(loc.name("meta"), s, [flat2], False)

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("doc_id", DataType.VARCHAR, max_length=512, is_primary=True)
    s.add_field("path", DataType.VARCHAR, max_length=4096)
    s.add_field("content_hash", DataType.VARCHAR, max_length=128)
    s.add_field("n_pages", DataType.INT64)
    s.add_field("n_chars", DataType.INT64)
    s.add_field("info_json", DataType.VARCHAR, max_length=TEXT_MAX)
    s.add_field("lex_json", DataType.VARCHAR, max_length=1024)
    _placeholder(s, DataType)
    make(loc.name("documents"), s, [flat2], False)

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("id", DataType.VARCHAR, max_length=600, is_primary=True)
    s.add_field("doc_id", DataType.VARCHAR, max_length=512, is_partition_key=True)
    s.add_field("page_no", DataType.INT64)
    s.add_field("part", DataType.INT64)
    s.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX)
    _placeholder(s, DataType)
    make(loc.name("pages"), s, [flat2], True)

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("id", DataType.VARCHAR, max_length=600, is_primary=True)
    s.add_field("doc_id", DataType.VARCHAR, max_length=512, is_partition_key=True)
    s.add_field("ord", DataType.INT64)
    s.add_field("vec", DataType.FLOAT_VECTOR, dim=dim)
    make(loc.name("segments"), s, [{"field_name": "vec", "index_type": "FLAT", "metric_type": "IP"}], True)

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("id", DataType.VARCHAR, max_length=1100, is_primary=True)
    s.add_field("df", DataType.INT64)
    _placeholder(s, DataType)
    make(loc.name("lex_terms"), s, [flat2], False)

    s = client.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("id", DataType.VARCHAR, max_length=600, is_primary=True)
    s.add_field("doc_id", DataType.VARCHAR, max_length=512)
    s.add_field("content_hash", DataType.VARCHAR, max_length=128)
    s.add_field("part", DataType.INT64)
    s.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX)
    _placeholder(s, DataType)
    make(loc.name(FACTS), s, [flat2], False)
    function = bm25 == "function"
    for variant in ("base", *VARIANT_NAMES):
        s = client.create_schema(auto_id=False, enable_dynamic_field=False)
        s.add_field("chunk_id", DataType.INT64, is_primary=True)
        s.add_field("doc_id", DataType.VARCHAR, max_length=512, is_partition_key=True)
        for f in ("ord", "page_start", "page_end", "char_start", "char_end", "seg_first", "seg_count"):
            s.add_field(f, DataType.INT64)
        if function:
            s.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX, enable_analyzer=True, analyzer_params=ANALYZER)
        else:
            s.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX)
        s.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        s.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
        indexes = [{"field_name": "sparse", "index_type": "SPARSE_INVERTED_INDEX",
                    "metric_type": "BM25" if function else "IP"}, _dense_index(client, "dense", loc.settings)]
        if variant != "base":
            s.add_field("prefix", DataType.VARCHAR, max_length=TEXT_MAX)
            s.add_field("prefix_vec", DataType.FLOAT_VECTOR, dim=dim)
            indexes.append({"field_name": "prefix_vec", "index_type": "FLAT", "metric_type": "IP"})
        if function:
            s.add_function(Function(name=f"bm25_{variant}", function_type=FunctionType.BM25,
                                    input_field_names=["text"], output_field_names=["sparse"]))
        make(chunk_collection(loc, variant), s, indexes, True)


def chunk_collection(loc: Location, variant: str) -> str:
    return loc.name("chunks" if variant == "base" else f"chunks_{variant}")


def all_collections(loc: Location) -> list[str]:
    return [loc.name(n) for n in ("meta", "documents", "pages", "segments", "lex_terms")] + \
        [chunk_collection(loc, v) for v in ("base", *VARIANT_NAMES)]

