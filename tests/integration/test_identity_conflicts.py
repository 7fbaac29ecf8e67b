"""Identity conflicts are visible (issue 34 cases 6 and 7).

Case 6: a file named `AAPL_2023_10K.htm` whose inline-XBRL dei facts say Microsoft Corporation (MSFT) answered
"AAPL's total revenue" with Microsoft's figures (the file-name key linked `AAPL` to it), indexing said nothing,
and `info` named the file name as the company's source. Now the filing's own facts win, the file name does not
link, `finrag index` prints one warning line per conflict and `info --documents` shows both values.

Case 7: two filings of one identity (company, fiscal year, period, form) with different numbers were answered
from one of them (or from both) without a word. Now routing lists them (`extracted.same_identity`, a note in
`routing.reason`) and the answer names both.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.ixbrl import tenq_markup

from finrag.cli import main
from finrag.tools.indexing import open_index
from finrag.tools.routing.registry import Registry


@pytest.fixture(autouse=True)
def _fresh():
    yield
    open_index.reset()


def _microsoft_named_aapl(folder: Path) -> Path:
    """An iXBRL 10-Q whose dei facts say Microsoft Corporation (MSFT), saved as `AAPL_2023_10K.htm`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "AAPL_2023_10K.htm"
    path.write_text(tenq_markup().replace("Acme Widgets, Inc.", "Microsoft Corporation").replace("ACMW", "MSFT"))
    return path


def test_file_name_of_another_company_does_not_link(tmp_path):
    """Issue 34 case 6: the file name says AAPL, the dei facts say Microsoft: the filing is Microsoft's (key,
    sources), an AAPL question finds no Apple filing instead of Microsoft's, and the conflicts are recorded."""
    reg = Registry.from_paths([_microsoft_named_aapl(tmp_path)])
    info = reg.get("AAPL_2023_10K")
    assert info is not None and info.company == "Microsoft" and info.company_key == "MICROSOFT"
    assert info.sources["company"] == "dei" and info.sources["company_key"] == "dei"
    assert "Aapl" not in info.aliases
    assert info.identity_conflicts[0] == ("the file name says AAPL, the filing's dei facts say Microsoft Corporation "
                                          "(MSFT); using the filing's")
    assert any("fiscal period 2023" in c and "2025Q3" in c for c in info.identity_conflicts)
    question = "What was AAPL's total revenue?"
    res = reg.resolve(reg.link(question), question)
    assert res.status == "company_not_indexed" and not res.doc_ids, res
    question = "What was Microsoft's total revenue?"
    assert reg.resolve(reg.link(question), question).doc_ids == ["AAPL_2023_10K"]


def test_index_warns_and_info_shows_both_values(tmp_path, capsys):
    """Issue 34 case 6: `finrag index` prints one warning line per conflict (the file name against the filing's
    facts); `info --documents` shows the filing's values, their sources and the file name's value."""
    path = _microsoft_named_aapl(tmp_path / "filings")
    index = str(tmp_path / "index")
    assert main(["index", str(path), "--index", index, "--no-embed", "-q", "--embedder", "static"]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning: AAPL_2023_10K.htm: ")]
    assert ("warning: AAPL_2023_10K.htm: the file name says AAPL, the filing's dei facts say Microsoft Corporation "
            "(MSFT); using the filing's") in warnings
    assert len(warnings) == 3, err  # company, fiscal period, form
    assert main(["info", "--index", index, "--documents"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "AAPL_2023_10K" in line and "Microsoft" in line)
    assert "company=dei" in row and "company=filename" not in row
    assert "the file name says AAPL, the filing's dei facts say Microsoft Corporation (MSFT)" in out
    assert main(["info", "--index", index, "--documents", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["documents_list"][0]
    assert doc["company"] == "Microsoft" and len(doc["identity_conflicts"]) == 3
