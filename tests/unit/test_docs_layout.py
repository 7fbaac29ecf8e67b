"""docs/layout.md and docs/architecture.md checked against the tree, so they cannot drift (issue 32).

* docs/layout.md names every module: each `*.py` under the package folders and `bench/` is named in the row of
  its folder (a name with a `/` is relative to that folder, a package's `__init__.py` is named by its folder's
  row or by `name/` in its parent's row), and every module or folder it names exists;
* each row's import prefix maps to the row's folder by pyproject's `[tool.setuptools.package-dir]`;
* every repository path docs/architecture.md names exists, every bare `name.py` it names is a file of the
  repository, and every `finrag.x.y` name it uses is a module, or an attribute defined at the top of one.
"""
from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from support.layout import folder_of, package_dir

REPO = Path(__file__).resolve().parents[2]
LAYOUT = REPO / "docs" / "layout.md"
ARCHITECTURE = REPO / "docs" / "architecture.md"
MODULE_FOLDERS = ("app", "graphs", "nodes", "state", "tools", "eval", "bench")
TICKED = re.compile(r"`([^`\n]+)`")
PY_NAME = re.compile(r"^[A-Za-z_][\w./]*\.py$")
FOLDER_NAME = re.compile(r"^[A-Za-z_.][\w./-]*/$")
DOTTED = re.compile(r"^finrag(?:\.[A-Za-z_]\w*)+")


def modules_on_disk() -> set[str]:
    out = set()
    for top in MODULE_FOLDERS:
        for path in (REPO / top).rglob("*.py"):
            if "__pycache__" not in path.parts:
                out.add(path.relative_to(REPO).as_posix())
    return out


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row_folder(row: list[str]) -> tuple[str | None, int]:
    """The folder a table row is about (the first cell that is one `name/`), and that cell's index."""
    for i, cell in enumerate(row):
        m = re.fullmatch(r"`([^`]+/)`", cell)
        if m:
            return m.group(1).rstrip("/"), i
    return None, -1


def resolve(name: str, folder: str | None) -> str:
    """A name of the doc as a repository path: relative to the row's folder, else to the repository root."""
    name = name.rstrip("/")
    if folder is not None and (REPO / folder / name).exists():
        return f"{folder}/{name}"
    if folder is not None and name.split("/")[0] not in {p.name for p in REPO.iterdir()}:
        return f"{folder}/{name}"  # a name of that folder that does not exist: reported under the folder
    return name


def layout_names() -> tuple[set[str], set[str], list[tuple[str, str]]]:
    """(modules named, folders named, (import prefix, folder) of each row of the package table)."""
    modules, folders, prefixes = set(), set(), []
    for line in LAYOUT.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            row = cells(line)
            if set("".join(row)) <= set("-: "):
                continue
            folder, at = row_folder(row)
            if folder is None:
                continue  # a header row
            folders.add(folder)
            m = re.fullmatch(r"`(finrag(?:\.\w+)*)(?:\.\*)?`", row[0])
            if m and at == 1:
                prefixes.append((m.group(1), folder))
            text = " | ".join(row[at + 1:])
        else:
            folder, text = None, line
        for name in TICKED.findall(text):
            if PY_NAME.match(name) and (folder is not None or "/" in name):
                modules.add(resolve(name, folder))
            elif FOLDER_NAME.match(name) and (folder is not None or "/" in name.rstrip("/")):
                folders.add(resolve(name, folder))
    return modules, folders, prefixes


def test_layout_names_every_module():
    modules, folders, _ = layout_names()
    named = modules | {f"{f}/__init__.py" for f in folders}
    missing = sorted(modules_on_disk() - named)
    assert not missing, ("docs/layout.md does not name these modules (add each to its folder's row):\n"
                         + "\n".join(missing))


def test_layout_names_only_what_exists():
    modules, folders, _ = layout_names()
    gone = sorted(m for m in modules if not (REPO / m).is_file())
    gone += sorted(f"{f}/" for f in folders if not (REPO / f).is_dir())
    assert not gone, "docs/layout.md names modules or folders that do not exist:\n" + "\n".join(gone)
    assert len(modules) > 150, f"only {len(modules)} modules parsed from docs/layout.md: has its format changed?"


def test_layout_prefixes_match_package_dir():
    mapping = package_dir()
    _, _, prefixes = layout_names()
    assert len(prefixes) > 15
    wrong = [f"`{p}` is in the row of `{f}/`, but it is `{folder_of(p, mapping)}/`"
             for p, f in prefixes if folder_of(p, mapping) != f]
    assert not wrong, "docs/layout.md:\n" + "\n".join(wrong)


def module_file(dotted: str) -> Path | None:
    base = REPO / folder_of(dotted, package_dir())
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def top_level_names(path: Path) -> frozenset[str]:
    """Names a module defines or imports at its top level (inside `if` and `try` blocks too); with a module
    `__getattr__`, also every string constant (its lazily loaded names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()

    def walk(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.If, ast.Try)):
                walk(node.body)
                walk(node.orelse)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body)
                walk(getattr(node, "finalbody", []))
    walk(tree.body)
    if "__getattr__" in names:
        names.update(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return frozenset(names)


def dotted_problem(name: str) -> str | None:
    """Why `finrag.x.y...` names nothing: the longest prefix that is a module, then a top-level name of it."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:n]))
        if path is None:
            continue
        if n == len(parts):
            return None
        if (REPO / folder_of(".".join(parts[:n + 1]), package_dir())).exists():
            return None  # a data folder of a package (`finrag.web_static`)
        attr = parts[n]
        if attr in top_level_names(path):
            return None
        return f"`{name}`: {path.relative_to(REPO)} defines no `{attr}`"
    return f"`{name}`: no such module"


EXAMPLE_PATHS = {"typings/finrag/x", "app/x"}
"""Placeholders of architecture.md's paragraph on mypy's paths (`typings/finrag/x` is `app/x`), not files."""


def architecture_names(*, commands: bool = True) -> list[str]:
    """The words of architecture.md's code spans (without `commands`: only the spans that are one word)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    out = []
    for span in TICKED.findall(text):
        words = span.split()
        if commands or len(words) == 1:
            out.extend(words)
    return out


def test_architecture_paths_exist():
    problems = []
    roots = {p.name for p in REPO.iterdir()}
    for_files = {p.name for top in (*MODULE_FOLDERS, "tests") for p in (REPO / top).rglob("*.py")}
    checked = 0
    for word in architecture_names(commands=False):
        word = word.strip("(),;:").split("::")[0]
        if word in EXAMPLE_PATHS or "..." in word:
            continue
        if "/" in word and word.split("/")[0] in roots and not any(c in word for c in "<>*{}#"):
            checked += 1
            if not (REPO / word.rstrip("/")).exists():
                problems.append(f"`{word}`: no such file or folder")
        elif PY_NAME.match(word) and "/" not in word:
            checked += 1
            if word not in for_files:
                problems.append(f"`{word}`: no module of that name in the repository")
    assert checked > 30
    assert not problems, "docs/architecture.md names paths that do not exist:\n" + "\n".join(problems)


def test_architecture_dotted_names_exist():
    problems, checked = [], 0
    for word in architecture_names():
        m = DOTTED.match(word)
        if not m:
            continue
        checked += 1
        problem = dotted_problem(m.group(0))
        if problem:
            problems.append(problem)
    assert checked > 40
    assert not problems, "docs/architecture.md names what does not exist:\n" + "\n".join(sorted(set(problems)))
