"""Issue 11, item 8: building finrag prints no setuptools deprecation warnings and ships every data file.

Before the fix the build warned that `project.license` as a TOML table is deprecated and that the data
folders (`finrag.tools.demo.data`, `finrag.tools.routing.data`, `finrag.eval.data`) are importable packages
"absent from the `packages` configuration" ("Package would be ignored"). This runs setuptools' build_py on
a copy of the sources (no network: setuptools is the venv's) and reads what it prints.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "app", "graphs", "nodes", "state", "tools", "eval")
DATA = ("tools/demo/data", "tools/routing/data", "eval/data")


def test_build_has_no_setuptools_warnings_and_ships_the_data(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(REPO / name, src / name)
    out = tmp_path / "build"
    r = subprocess.run([sys.executable, "-W", "always", "-c", "from setuptools import setup; setup()", "build_py",
                        "--build-lib", str(out)], cwd=src, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    text = r.stdout + r.stderr
    for bad in ("SetuptoolsDeprecationWarning", "Package would be ignored", "is absent from the `packages`",
                "_Warning"):
        assert bad not in text, text[text.find(bad) - 300: text.find(bad) + 600]
    assert (out / "finrag" / "py.typed").is_file(), "py.typed (PEP 561) is not in the build"
    for folder in DATA:
        shipped = out / "finrag" / folder
        for f in (REPO / folder).iterdir():
            if f.is_file():
                assert (shipped / f.name).is_file(), f"{folder}/{f.name} is not in the build"
