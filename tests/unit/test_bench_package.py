"""bench/ is a package run as `python -m bench.<name>` (issue 52): no `sys.path` patches, no import cycle among its
modules, no module importing another's underscore names, every runnable script named in `bench/__init__.py`'s
docstring, and the hand-written analyst sets read from bench/data/ as JSONL."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(BENCH.glob("*.py")) if p.stem != "__init__"}


def _bench_imports(tree: ast.Module) -> tuple[set[str], list[str]]:
    """The bench modules a module imports, and the underscore names it takes from them."""
    deps: set[str] = set()
    aliases: dict[str, str] = {}
    private: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "bench":
            for a in node.names:
                deps.add(a.name)
                aliases[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench."):
            deps.add(node.module[len("bench."):])  # type: ignore[index]
            private += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("bench."):
                    deps.add(a.name[len("bench."):])
                    aliases[a.asname or a.name] = a.name[len("bench."):]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                and node.attr.startswith("_"):
            private.append(f"{aliases[node.value.id]}.{node.attr}")
    return deps, private


def test_no_sys_path_patches():
    assert [p.name for p in BENCH.rglob("*.py") if "sys.path" in p.read_text(encoding="utf-8")] == []


def test_no_import_cycle_and_no_private_names_across_modules():
    modules = _modules()
    graph, private = {}, {}
    for name, tree in modules.items():
        graph[name], private[name] = _bench_imports(tree)
        assert graph[name] <= set(modules), (name, graph[name] - set(modules))
    assert {n: p for n, p in private.items() if p} == {}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(d == goal or (d not in seen and reaches(d, goal, seen | {d})) for d in graph[start])

    assert [n for n in graph if reaches(n, n, {n})] == []


def test_every_script_is_listed_in_the_package_docstring():
    doc = ast.get_docstring(ast.parse((BENCH / "__init__.py").read_text(encoding="utf-8"))) or ""
    listed = set(re.findall(r"^- (\w+)(?:, (\w+))?:", doc, re.M))
    names = {n for pair in listed for n in pair if n}
    assert names == set(_modules())


def test_a_script_runs_as_a_module_from_the_repository_root():
    r = subprocess.run([sys.executable, "-m", "bench.analyst_fresh", "--help"], cwd=str(REPO), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "--set" in r.stdout, r.stderr[-2000:]


def test_the_hand_written_analyst_sets_are_read_from_jsonl():
    from bench.analyst_fresh import DATA, SETS, gold_of, load_set

    kinds = set(re.findall(r'kind (?:==|in) \(?"(\w+)"(?:, "(\w+)")?', Path(gold_of.__code__.co_filename).read_text()))
    known = {k for pair in kinds for k in pair if k}
    total = 0
    for name in SETS:
        rows = load_set(name)
        assert rows and (DATA / f"{name}.jsonl").is_file()
        for cls, filing, question, spec in rows:
            assert cls and filing and question.strip() and isinstance(spec, tuple) and spec[0] in known, (name, spec)
        total += len(rows) if name.startswith("analyst_blind") else 0
    assert total == 367  # the five blind sets' questions, as docs/analyst_questions.md reports them


def _question_literals(tree: ast.Module) -> list[int]:
    """Lines of list/tuple/set/dict literals holding three or more questions (strings ending in '?')."""
    def asks(nodes) -> int:
        return sum(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.rstrip().endswith("?")
                   for e in nodes)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and asks(node.elts) >= 3:
            found.append(node.lineno)
        elif isinstance(node, ast.Dict) and asks([*node.keys, *node.values]) >= 3:
            found.append(node.lineno)
    return found


def test_no_question_set_is_a_python_literal():
    """Question sets live as JSONL under bench/data/ (issue 52), not as lists in a script."""
    assert {name: lines for name, tree in _modules().items() if (lines := _question_literals(tree))} == {}
    assert _question_literals(ast.parse('QS = ["A?", "B?", "C?"]')) == [1]  # the check finds a list of questions


def test_the_page_conversation_is_read_from_jsonl():
    from bench.web_page import CONVERSATION, CONVERSATION_FILE

    assert CONVERSATION_FILE.parent == BENCH / "data" and len(CONVERSATION) == 5
    assert CONVERSATION[0].startswith("What was Acme Widgets'") and all(q.strip() for q in CONVERSATION)
