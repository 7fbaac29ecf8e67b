"""finrag.tools.documents = `tools/documents/`: a filing read from its file, before any index.

parsing.py: PDF, HTML, SGML and text files -> pages (`parse_file`, `read_pages`), document ids made unique
    (`assign_doc_ids`); html.py: inline-XBRL HTML -> pages and tagged facts; xbrl.py: the facts collector
    (`dei_facts`); file_checks.py: size, type and time budgets a file must pass; file_identity.py: a filing's
    SHA-256 at indexing and whether the file changed since; doc_ids.py: a document's id from its path.
"""
