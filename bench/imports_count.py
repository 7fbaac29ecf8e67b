"""Function-local `finrag` imports (an import inside a function, which Python resolves at call time and which can
hide an import cycle), and the imports between `tools/` subpackages.

    python -m bench.imports_count            # the count, the imports between tools/ subpackages
    python -m bench.imports_count --list     # every function-local import, file:line, with its reason comment

issue 52: 243 function-local imports before (0faba06), 3 after; `tests/unit/test_layout.py` keeps the count.
"""
from __future__ import annotations

import argparse
import ast
import collections
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"app": "finrag", "graphs": "finrag.graphs", "nodes": "finrag.nodes", "state": "finrag.state",
            "tools": "finrag.tools", "eval": "finrag.eval"}
"""Each folder of the package and the module name it is imported as (pyproject's package-dir)."""


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [*rel.parts[1:-1], rel.stem] if rel.stem != "__init__" else list(rel.parts[1:-1])
    return ".".join([PACKAGES[rel.parts[0]], *parts])


def _imported(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        return [".".join(base + ([node.module] if node.module else []))]
    return [node.module or ""]


def scan(root: Path = ROOT) -> tuple[list[tuple[str, int, str, str]], dict[str, collections.Counter]]:
    """(function-local finrag imports as (file, line, module, the line's comment), tools/ subpackage edges)."""
    local: list[tuple[str, int, str, str]] = []
    edges: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for folder in PACKAGES:
        for path in sorted((root / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            lines = source.splitlines()
            tree = ast.parse(source)
            name = module_name(path)
            package = name if path.stem == "__init__" else name.rsplit(".", 1)[0]
            inside = {id(sub) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for sub in ast.walk(fn) if isinstance(sub, (ast.Import, ast.ImportFrom))}
            for node in ast.walk(tree):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                for target in _imported(node, package):
                    if not target.startswith("finrag"):
                        continue
                    if id(node) in inside:
                        before = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                        comment = lines[node.lineno - 1].partition("#")[2].strip() or (
                            before[1:].strip() if before.startswith("#") else "")
                        local.append((str(path.relative_to(root)), node.lineno, target, comment))
                    if name.startswith("finrag.tools.") and target.startswith("finrag.tools."):
                        a, b = name.split(".")[2], target.split(".")[2]
                        if a != b:
                            edges[a][b] += 1
    return local, edges


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="list every function-local import with its reason")
    args = ap.parse_args()
    local, edges = scan()
    print(f"function-local finrag imports: {len(local)} in {len({f for f, *_ in local})} files")
    if args.list:
        for f, line, target, why in local:
            print(f"  {f}:{line} {target}  # {why or '(no reason given)'}")
    print("imports between tools/ subpackages:")
    for a in sorted(edges):
        print(f"  {a} -> " + ", ".join(f"{b} ({n})" for b, n in sorted(edges[a].items())))


if __name__ == "__main__":
    main()
