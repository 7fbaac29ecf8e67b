"""The repository's layout as setuptools maps it: `package_dir()` (pyproject's package-dir) and `folder_of` a
package, for the tests that check the typings mirror, docs/layout.md and docs/architecture.md against it."""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@cache
def package_dir() -> dict[str, str]:
    """pyproject.toml's `[tool.setuptools] package-dir`: a dotted package -> its repository folder."""
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]


def folder_of(package: str, mapping: dict[str, str]) -> str:
    """The repository folder of a package, by setuptools' rule: the longest mapped prefix."""
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in mapping:
            return "/".join([mapping[prefix], *parts[n:]])
    raise AssertionError(f"{package} is not under any package-dir entry")
