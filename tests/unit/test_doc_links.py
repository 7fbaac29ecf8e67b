"""Every relative link in README.md, docs/*.md and docs/results/*.md points at a file that exists, and every
`#anchor` at a heading; every `docs/...` path the documents name exists; docs/README.md indexes every document; and
docs/ holds only documents at its top level (results live under docs/results/, screenshots under docs/screenshots/).

Anchors follow GitHub's rule: the heading's text lower-cased, punctuation other than `-` and `_` dropped, spaces
turned into `-`, a repeated heading suffixed `-1`, `-2`, ... Links and headings inside code blocks and code spans
are not links. External links (`http:`, `https:`, `mailto:`) are not checked.
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
# docs/results/*.md are written by hand; the eval runs' report.md files below them are records, kept as written
FILES = [REPO / "README.md", *sorted(DOCS.glob("*.md")), *sorted((DOCS / "results").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    out, fence = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fence = not fence
            continue
        if not fence:
            out.append((n, line))
    return out


def slug(heading: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())  # a link in a heading: its text
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def links(path: Path) -> list[tuple[int, str]]:
    out = []
    for n, line in prose_lines(path.read_text(encoding="utf-8")):
        line = re.sub(r"`[^`]*`", "", line)
        out.extend((n, m.group(1)) for m in LINK.finditer(line))
    return out


def test_the_docs_exist():
    assert (REPO / "README.md").is_file()
    assert len(FILES) > 5, FILES


def test_slug_follows_github():
    assert slug("Quick start (two commands)") == "quick-start-two-commands"
    assert slug("Filings from EDGAR (`finrag fetch`)") == "filings-from-edgar-finrag-fetch"
    assert slug("Routing in the open world (`bench/routing_bench.py`, issue 9)") == \
        "routing-in-the-open-world-benchrouting_benchpy-issue-9"
    assert slug("2. LangGraph Studio (`langgraph dev`)") == "2-langgraph-studio-langgraph-dev"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path: Path):
    broken = []
    for n, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(REPO)}:{n}: ({target})"
        if not dest.exists():
            broken.append(f"{where} no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{where} no heading with the anchor #{anchor} in {dest.relative_to(REPO)}")
    assert not broken, "broken links:\n" + "\n".join(broken)


# a path in prose or a code span: docs/... up to a character that cannot be in one (a glob's `*` or `{` ends it)
DOC_PATH = re.compile(r"(?<![\w/.-])(docs/[\w./-]*[\w/])")
WRITTEN = re.compile(r"(--out|--json-out|--json|--write-baseline|>)\s*$")  # a path a command writes, not one it reads


def named_paths(path: Path) -> list[tuple[int, str]]:
    """(line, `docs/...` path) named in a document, except paths a command is told to write."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for m in DOC_PATH.finditer(line):
            if WRITTEN.search(line[:m.start()]):
                continue
            rest = line[m.end():m.end() + 1]
            out.append((n, m.group(1) + ("*" if rest in ("*", "{") else "")))
    return out


def test_named_paths_skip_what_a_command_writes():
    assert DOC_PATH.findall("see `docs/results/a.json` and ../docs/x") == ["docs/results/a.json"]
    assert WRITTEN.search("python -m bench.x --out ")
    assert not WRITTEN.search("python -m bench.x --baseline ")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_docs_path_named_exists(path: Path):
    missing = []
    for n, named in named_paths(path):
        found = any(REPO.glob(named)) if named.endswith("*") else (REPO / named.rstrip("/")).exists()
        if not found:
            missing.append(f"{path.relative_to(REPO)}:{n}: {named}")
    assert not missing, "paths that do not exist (moved? say where they are now):\n" + "\n".join(missing)


def test_the_index_lists_every_document():
    index = DOCS / "README.md"
    linked = {(index.parent / target.partition("#")[0]).resolve() for _, target in links(index)}
    unlisted = [p.name for p in sorted(DOCS.glob("*.md")) if p != index and p.resolve() not in linked]
    assert not unlisted, f"docs/README.md does not list: {unlisted} (one line each, in its group)"


def test_docs_top_level_holds_only_documents():
    loose = sorted(p.name for p in DOCS.iterdir()
                   if not (p.is_file() and p.suffix == ".md") and p.name not in ("results", "screenshots"))
    assert not loose, f"result files belong under docs/results/: {loose}"
