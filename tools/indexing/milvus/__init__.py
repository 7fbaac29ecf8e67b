"""tools/indexing/milvus/: the Milvus backend (Milvus Lite or a Milvus server / cluster): schema.py (locations, connections,
collections), store.py (`MilvusStore`, the nodes' Store interface over Milvus), lex.py (finrag's BM25 as sparse vectors),
writer.py (`finrag copy` and writing documents). See docs/milvus.md."""
