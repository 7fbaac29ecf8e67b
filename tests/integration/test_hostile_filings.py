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
import time
from pathlib import Path

import pytest
from support.bad_files import HOSTILE_FILES, ixbrl_filing, make_bad_files, make_hostile_files
from support.servers import CLI_PYTHON

from finrag.state.settings import IndexSettings
from finrag.tools.documents.file_checks import ParseError
from finrag.tools.documents.parsing import parse_file
from finrag.tools.documents.xbrl import fact_value


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


def test_a_fact_the_collector_cannot_read_never_cuts_the_text(tmp_path, monkeypatch):
    """Issue 34 case 2: whatever a fact makes the inline-XBRL collector raise, the filing's text is read to its
    end (its facts are dropped); before, the reader kept only the pages before the fact, silently."""
    from finrag.tools.documents import xbrl

    def broken(self, tag, a, parts):
        raise OverflowError("a fact no float can hold")

    monkeypatch.setattr(xbrl.XbrlCollector, "_finish", broken)
    doc = parse_file(_write(tmp_path, ixbrl_filing(pages=20)))
    assert len(doc.pages) == 20 and "Page 19" in doc.pages[19] and doc.xbrl is None


# ------------------------------------------------------------------------------------------- case 3
def test_a_huge_scale_is_refused_at_once(tmp_path):
    """Issue 34 case 3: `scale="10000000"` is skipped without computing 10**10000000 (before: seconds per fact,
    hours for bigger values)."""
    t = time.perf_counter()
    assert fact_value("1,234", scale="10000000") is None
    doc = parse_file(_write(tmp_path, ixbrl_filing(pages=20, hostile_page=3, scale="10000000")))
    assert time.perf_counter() - t < 1.0
    assert len(doc.pages) == 20 and len((doc.xbrl or {}).get("facts") or []) == 19


_SLOW_MARKUP = {  # what took seconds to minutes before (quadratic), and what it is now
    "unclosed_facts": ("filing.htm", "<html><body>" + "<ix:nonFraction name='us-gaap:Revenues' contextRef='c'>1 "
                       * 5000 + "</body></html>", None),
    "stray_end_tags": ("filing.htm", "<div>revenue" * 20000 + "</span>" * 20000, None),
    "unclosed_end_tags": ("filing.htm", "<p>revenue</p>" + "</" * 200_000, "unclosed markup"),
    "unclosed_sgml_documents": ("full-submission.txt", "<SEC-DOCUMENT>" + "<DOCUMENT>x" * 20000, None),
}


@pytest.mark.parametrize("case", sorted(_SLOW_MARKUP))
def test_hostile_markup_is_read_in_linear_time(tmp_path, case):
    """Issue 34 case 3: markup that made the reader quadratic (thousands of unclosed inline-XBRL facts, stray
    end tags, a tail of unclosed `</`, unclosed SGML `<DOCUMENT>`s) is read in well under a second, or refused
    with its reason (before: 10 to 30 s for these few hundred KB, hours for a few MB)."""
    name, markup, refused = _SLOW_MARKUP[case]
    path = _write(tmp_path, markup, name)
    t = time.perf_counter()
    try:
        parse_file(path)
        why = None
    except ParseError as exc:
        why = str(exc)
    assert time.perf_counter() - t < 2.0
    assert (why is None) if refused is None else (why is not None and refused in why), why


def test_a_file_over_the_extracted_size_budget_fails_with_a_reason(tmp_path, monkeypatch):
    """Issue 34 case 3: a file whose extracted text exceeds the budget (FINRAG_MAX_FILE_CHARS) is one failure
    with its reason, for HTML, text and PDF alike (before: no bound)."""
    from support.bad_files import text_pdf_bytes

    monkeypatch.setenv("FINRAG_MAX_FILE_CHARS", "5000")
    budget = IndexSettings().max_file_chars  # how `finrag index` reads it
    (tmp_path / "big.pdf").write_bytes(text_pdf_bytes(pages=5))
    files = [_write(tmp_path, ixbrl_filing(pages=200)), _write(tmp_path, "revenue grew. " * 1000, "big.txt"),
             tmp_path / "big.pdf"]
    for path in files:
        with pytest.raises(ParseError, match=r"too much text: more than 5,000 characters extracted"):
            parse_file(path, max_chars=budget)
    assert all(parse_file(p).n_chars > 5000 for p in files)  # the default budget is generous


def test_a_file_over_the_parse_time_budget_fails_with_a_reason(tmp_path, monkeypatch):
    """Issue 34 case 3: a parse that runs past the time budget (FINRAG_MAX_PARSE_SECONDS) stops and is one
    failure with its reason (before: no bound)."""
    path = _write(tmp_path, ixbrl_filing(pages=2000))
    monkeypatch.setenv("FINRAG_MAX_PARSE_SECONDS", "0.001")
    with pytest.raises(ParseError, match=r"parse took too long: over 0.001 s"):
        parse_file(path, max_seconds=IndexSettings().max_parse_seconds)


# ------------------------------------------------------------------------------------------- case 8
@pytest.mark.parametrize("key", sorted(k for k in HOSTILE_FILES if not k.endswith("_pdf") or k.startswith(("nul", "bin"))))
def test_a_file_without_real_text_is_no_text(hostile, key):
    """Issue 34 case 8: NUL bytes, whitespace and random binary bytes, named .htm/.txt/.pdf, have no text
    (before: NUL and binary .htm/.txt files were indexed as text)."""
    with pytest.raises(ParseError) as exc:
        parse_file(hostile[key])
    why = str(exc.value)
    assert why.startswith("no extractable text") or why.startswith("not a PDF"), why
    if key.startswith("nul"):
        assert "NUL bytes" in why, why
    elif key.startswith("binary"):
        assert "binary" in why, why


def test_finrag_index_reports_files_without_text_and_exits_1(hostile, tmp_path):
    """Issue 34 case 8: `finrag index` on NUL, blank and binary files next to a good filing indexes the good
    one only, prints one `failed` line per other file and exits 1 (before: exit 0, NUL chunks indexed). The
    three NUL files have the same content: the copies of a file that failed fail too (before: dropped)."""
    folder = tmp_path / "in"
    folder.mkdir()
    names = []
    for key in ("nul_htm", "nul_txt", "nul_pdf", "blank_txt", "binary_htm", "binary_txt", "binary_pdf"):
        (folder / hostile[key].name).symlink_to(hostile[key])
        names.append(hostile[key].name)
    good = make_bad_files(tmp_path / "bad")["good_htm"]
    (folder / "good.htm").write_bytes(good.read_bytes())
    r = finrag("index", str(folder), "--index", str(tmp_path / "idx"), "-q", "--no-embed", "--workers", "1")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr[-2000:])
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("failed")]
    assert sorted(Path(ln.split(": ")[0].split()[-1]).name for ln in failed) == sorted(names), r.stderr
    assert "indexed 1 file(s)" in r.stdout and f"failed {len(names)}" in r.stdout, r.stdout
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------------------------------- case 9
@pytest.mark.parametrize("key", ["truncated_pdf", "tail_cut_pdf"])
def test_a_truncated_pdf_is_damaged(hostile, key, capfd):
    """Issue 34 case 9: a PDF cut short is reported as damaged, not indexed in part, and MuPDF's own messages
    stay off stderr (before: its readable pages were indexed, with `MuPDF error:` lines)."""
    with pytest.raises(ParseError, match=r"damaged PDF"):
        parse_file(hostile[key])
    out, err = capfd.readouterr()
    assert not [ln for ln in (out + err).splitlines() if ln.startswith("MuPDF")], err


def test_finrag_index_reports_a_truncated_pdf_in_one_line(hostile, tmp_path):
    """Issue 34 case 9: `finrag index` on a truncated PDF exits 1 with one `failed ... damaged PDF` line and no
    MuPDF output (before: exit 0, 'failed 0', raw `MuPDF error:` lines)."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "truncated.pdf").write_bytes(hostile["truncated_pdf"].read_bytes())
    r = finrag("index", str(folder), "--index", str(tmp_path / "idx"), "-q", "--no-embed", "--workers", "1")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr[-2000:])
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("failed") and "damaged PDF" in lines[0], r.stderr
    assert not [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith("MuPDF")], r.stderr
    assert "indexed 0 file(s)" in r.stdout and "failed 1" in r.stdout, r.stdout


def test_real_filings_pass_every_check(shared_data):
    """Issue 34 cases 8 and 9: the checks refuse no real filing (a PDF whose MuPDF warnings are benign, the
    biggest EDGAR HTML filing) under the default budgets."""
    edgar = shared_data.parent / "edgar"
    for path in [shared_data / "pdfs" / "AMCOR_2019_10K.pdf", shared_data / "pdfs" / "3M_2020_10K.pdf",
                 edgar / "ko-10-k-2025-02-20.html"]:
        if path.exists():
            assert parse_file(path).n_chars > 100_000, path
