"""The repository layout, checked so it cannot rot.

* typings/finrag/ (the tree mypy and pyright resolve `finrag.*` imports through) mirrors
  pyproject's `[tool.setuptools.package-dir]`: one relative symlink per module and subpackage of app/
  (the `finrag` package itself) and one per mapped folder, nothing else.
* every package in `[tool.setuptools] packages` has an `__init__.py` whose docstring names its folder,
  and every folder with an `__init__.py` is in that list (a wheel leaves out the ones that are not).
* no module in the package folders is over MAX_LINES lines.
* the signatures listed in docs/architecture.md match the code.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import tomllib
from pathlib import Path

import pytest
from support.layout import folder_of, package_dir

REPO = Path(__file__).resolve().parents[2]
TYPINGS = REPO / "typings" / "finrag"
PACKAGE_FOLDERS = ("app", "graphs", "nodes", "state", "tools", "eval")
MAX_LINES = 600


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def relative_link(path: Path) -> str:
    assert path.is_symlink(), f"{path.relative_to(REPO)} should be a symlink"
    target = os.readlink(path)
    assert not os.path.isabs(target), f"{path.relative_to(REPO)} -> {target}: use a relative link"
    return target


def test_typings_mirror_package_dir():
    mapping = package_dir()
    assert mapping.get("finrag") == "app"
    assert TYPINGS.is_dir() and not TYPINGS.is_symlink()
    expected: dict[str, Path] = {p.name: p for p in sorted((REPO / "app").glob("*.py"))}
    expected.update({d.name: d for d in (REPO / "app").iterdir()  # subpackages with modules (cli/), not data
                     if (d / "__init__.py").is_file() and any(m.name != "__init__.py" for m in d.glob("*.py"))})
    for package, folder in mapping.items():
        if package == "finrag":
            continue
        head, _, name = package.partition(".")
        assert head == "finrag" and "." not in name, f"package-dir entry {package!r}: typings/ mirrors finrag.<name> only"
        expected[name] = REPO / folder
    found = {p.name for p in TYPINGS.iterdir() if p.name != "__pycache__"}
    assert found == set(expected), (f"typings/finrag/ is out of date: missing {sorted(set(expected) - found)}, "
                                    f"extra {sorted(found - set(expected))}")
    for name, real in expected.items():
        link = TYPINGS / name
        target = relative_link(link)
        assert (TYPINGS / target).resolve() == real.resolve(), f"typings/finrag/{name} -> {target}, expected {real}"


def test_analysers_use_typings(pyproject):
    tool = pyproject["tool"]
    assert tool["mypy"]["mypy_path"] == "typings"
    assert "typings" in tool["pyright"]["extraPaths"]


def test_packages_have_docstrings_naming_their_folder(pyproject):
    mapping = package_dir()
    problems = []
    for package in pyproject["tool"]["setuptools"]["packages"]:
        folder = folder_of(package, mapping)
        init = REPO / folder / "__init__.py"
        if package.endswith(".data") and not any((REPO / folder).glob("*.py")):
            continue  # a data-only namespace package, listed for its package data
        if not init.is_file():
            problems.append(f"{package}: no {folder}/__init__.py")
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if f"{folder}/" not in doc:
            problems.append(f"{package}: the docstring of {folder}/__init__.py does not name `{folder}/`")
    assert not problems, "\n".join(problems)


def test_every_package_folder_is_listed(pyproject):
    mapping = package_dir()
    listed = {folder_of(p, mapping) for p in pyproject["tool"]["setuptools"]["packages"]}
    on_disk = set()
    for top in PACKAGE_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(REPO / top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            if "__init__.py" in filenames:
                on_disk.add(Path(dirpath).relative_to(REPO).as_posix())
    assert on_disk <= listed, f"packages missing from [tool.setuptools] packages: {sorted(on_disk - listed)}"


def test_no_module_is_too_long():
    long = []
    for top in PACKAGE_FOLDERS:
        for path in sorted((REPO / top).rglob("*.py")):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_LINES:
                long.append(f"{path.relative_to(REPO)}: {n} lines")
    assert not long, f"modules over {MAX_LINES} lines (split them):\n" + "\n".join(long)


SIG_HEADING = re.compile(r"^#{2,4} `(finrag(?:\.\w+)*)`")
SIG_LINE = re.compile(r"^- `([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\((.*)\)(?:\s*->\s*[^`]+)?`\s*$")


def documented_signatures() -> list[tuple[str, str, str]]:
    """(module, name, parameter list) of every `- `name(...)`` line under a `finrag.x` heading."""
    out, module = [], None
    for line in (REPO / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            m = SIG_HEADING.match(line)
            module = m.group(1) if m else None
            continue
        m = SIG_LINE.match(line)
        if m:
            assert module, f"docs/architecture.md: {line!r} is not under a `finrag.x` heading"
            out.append((module, m.group(1), m.group(2)))
    return out


def shape_of_doc(params: str) -> list[tuple[str, str, bool]]:
    args = ast.parse(f"def _f({params}): pass").body[0].args  # type: ignore[attr-defined]
    positional = [(a.arg, "POSITIONAL_ONLY") for a in args.posonlyargs] + [(a.arg, "POSITIONAL_OR_KEYWORD") for a in args.args]
    n_default = len(args.defaults)
    out = [(name, kind, i >= len(positional) - n_default) for i, (name, kind) in enumerate(positional)]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL", False))
    out += [(a.arg, "KEYWORD_ONLY", d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD", False))
    return out


def shape_of_code(obj) -> list[tuple[str, str, bool]]:
    params = list(inspect.signature(obj).parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty) for p in params]


def test_architecture_doc_signatures():
    sigs = documented_signatures()
    assert len(sigs) > 40
    wrong = []
    for module, name, params in sigs:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            wrong.append(f"{module}.{name}: does not exist")
        elif shape_of_doc(params) != shape_of_code(obj):
            wrong.append(f"{module}.{name}{inspect.signature(obj)}: documented as ({params})")
    assert not wrong, "docs/architecture.md is out of date:\n" + "\n".join(wrong)


def importlinter_contracts(pyproject: dict) -> list[dict]:
    return pyproject["tool"]["importlinter"]["contracts"]


def test_import_layers_cover_the_package(pyproject):
    """The package's order is one exhaustive `layers` contract over `finrag` (no deny lists to keep by hand): every
    mapped folder is a layer of it, in the order of docs/architecture.md, and the nodes and graphs are layered
    exhaustively too (a new node or graph fails lint-imports until it is placed)."""
    contracts = importlinter_contracts(pyproject)
    by_container = {tuple(c.get("containers", [])): c for c in contracts if c["type"] == "layers"}
    top = by_container.get(("finrag",))
    assert top is not None and top.get("exhaustive") is True, "no exhaustive layers contract over finrag"
    layers = [[m.strip() for m in re.split(r"[|:]", layer)] for layer in top["layers"]]
    position = {m: i for i, layer in enumerate(layers) for m in layer}
    mapped = [p.removeprefix("finrag.") for p in package_dir() if p != "finrag"]
    assert set(mapped) <= set(position), f"folders that are no layer: {sorted(set(mapped) - set(position))}"
    order = ["graphs", "nodes", "tools", "state"]
    assert [position[m] for m in order] == sorted(position[m] for m in order), \
        f"layers out of order: {[(m, position[m]) for m in order]}"
    assert all(position[m] < position["graphs"] for m in position if m not in order), \
        "every module of app/ and eval/ sits above graphs"
    for container in (("finrag.nodes",), ("finrag.graphs",)):
        assert by_container.get(container, {}).get("exhaustive") is True, f"no exhaustive layers contract over {container[0]}"
    for c in contracts:
        assert c["type"] != "forbidden" or len(c["forbidden_modules"]) <= 2, \
            f"{c['name']!r}: a long deny list; express the order as layers"


def test_import_contracts_are_kept():
    """lint-imports over the tree (PYTHONPATH=typings), the same run as CI's: every contract kept."""
    import shutil
    import subprocess
    import sys
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed")
    env = {**os.environ, "PYTHONPATH": str(REPO / "typings")}
    run = subprocess.run([exe, "--no-cache", "--config", str(REPO / "pyproject.toml")], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def test_function_local_imports_are_few_and_each_says_why():
    """A `finrag` import inside a function hides a cycle from Python and import-linter's order from the reader:
    there are at most three (issue 52: 243 before), each with a `# lazy:` reason on or above its line."""
    from bench.imports_count import scan

    local, _ = scan()
    assert len(local) <= 3, [f"{f}:{line} {t}" for f, line, t, _ in local]
    assert all(why.startswith("lazy:") for *_, why in local), [f"{f}:{line}" for f, line, _t, why in local
                                                               if not why.startswith("lazy:")]


def test_each_tools_package_docstring_names_its_modules():
    """A newcomer opens `tools/<package>/__init__.py` first: its docstring names every module of the package."""
    root = Path(__file__).resolve().parents[2] / "tools"
    missing = []
    for init in sorted(root.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        missing += [f"{init.parent.name}/{f.name}" for f in sorted(init.parent.glob("*.py"))
                    if f.stem != "__init__" and not re.search(rf"\b{f.stem}\b", doc)]
    assert not missing, missing

