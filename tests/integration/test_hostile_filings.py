"""Issue 34, cases 2, 3, 8 and 9: hostile filing content never cuts, hangs or balloons indexing.

* 2: an inline-XBRL fact with `scale="400"` overflowed a float; the OverflowError cut the filing at that fact
  (every later page and fact lost, "failed 0", exit 0).
* 3: `scale="10000000"` computed `10 ** 10000000` in full (seconds for one fact); no per-file bound on parse
  time or extracted size.
* 8: files of NUL bytes or random binary bytes were indexed as text (exit 0).
* 9: a truncated PDF was half indexed (exit 0) with MuPDF's own `MuPDF error: ...` lines on stderr.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.bad_files import ixbrl_filing, make_hostile_files

from finrag.tools.indexing.parsing import parse_file
from finrag.tools.indexing.xbrl import fact_value

CLI_PYTHON = os.environ.get("FINRAG_TEST_PYTHON") or sys.executable


def finrag(*args: str, timeout: int = 120, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([CLI_PYTHON, "-m", "finrag.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, **kwargs)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, Path]:
    return make_hostile_files(tmp_path_factory.mktemp("hostile"))


def _write(tmp_path: Path, markup: str, name: str = "filing.htm") -> Path:
    path = tmp_path / name
    path.write_text(markup, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------- case 2
def test_an_overflowing_scale_skips_the_fact_and_keeps_the_filing(tmp_path):
    """Issue 34 case 2: `scale="400"` on page 3 of 20 skips that one fact; all 20 pages and the other 19 facts
    are kept (before: OverflowError cut the filing after page 3, silently)."""
    doc = parse_file(_write(tmp_path, ixbrl_filing(pages=20, hostile_page=3, scale="400")))
    assert len(doc.pages) == 20 and "Page 19" in doc.pages[19]
    facts = (doc.xbrl or {}).get("facts") or []
    assert len(facts) == 19 and {f["page"] for f in facts} == set(range(20)) - {3}
    assert fact_value("1,234", scale="400") is None and fact_value("1,234", scale="-400") is None
    assert fact_value("1,234", scale="30") == 1234e30 and fact_value("1,234", scale="-3") == 1.234


def test_number_text_decimals_and_scale_are_bounded(tmp_path):
    """Issue 34 case 2: digit strings are capped (a 60-digit number is no fact), scale must be a small
    integer, and a `decimals` that is not a small integer or INF is dropped rather than stored."""
    assert fact_value("1" * 60) is None and fact_value("1" * 20) == float("1" * 20)
    assert fact_value("12", scale="6.5") is None and fact_value("12", scale="1e3") is None
    assert fact_value("12", scale="") == 12.0 and fact_value("12", scale=None) == 12.0
    doc = parse_file(_write(tmp_path, ixbrl_filing(pages=4, hostile_page=1, decimals="9" * 40)))
    facts = (doc.xbrl or {}).get("facts") or []
    assert len(facts) == 4 and [f["decimals"] for f in facts] == ["-6", "", "-6", "-6"]


# ------------------------------------------------------------------------------------------- case 3
def test_a_huge_scale_is_refused_at_once(tmp_path):
    """Issue 34 case 3: `scale="10000000"` is skipped without computing 10**10000000 (before: seconds per fact,
    hours for bigger values)."""
    t = time.perf_counter()
    assert fact_value("1,234", scale="10000000") is None
    doc = parse_file(_write(tmp_path, ixbrl_filing(pages=20, hostile_page=3, scale="10000000")))
    assert time.perf_counter() - t < 1.0
    assert len(doc.pages) == 20 and len((doc.xbrl or {}).get("facts") or []) == 19
