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
from finrag.tools.routing.registry import Registry

pytestmark = pytest.mark.usefixtures("fresh_index")


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


_ACME_10K = ("ACME WIDGETS CORP\nFORM 10-K\nFor the fiscal year ended December 31, 2023\n"
             "Total revenue was ${} million in fiscal 2023.\n")


@pytest.fixture(scope="module")
def twin_index(tmp_path_factory) -> str:
    """Two Acme FY2023 10-Ks (a/ and b/ACME_2023_10K.txt) with different revenue: one identity, two filings."""
    from finrag.tools.indexing.embedders import get_embedder
    from finrag.tools.indexing.indexer import index_paths
    from finrag.tools.indexing.store import Store

    root = tmp_path_factory.mktemp("twins")
    for sub, revenue in (("a", "1,234"), ("b", "9,999")):
        (root / "filings" / sub).mkdir(parents=True)
        (root / "filings" / sub / "ACME_2023_10K.txt").write_text(_ACME_10K.format(revenue))
    store = Store(root / "index", create=True)
    store.check_embedder(get_embedder("static"))
    assert not index_paths([root / "filings"], store, progress=False, workers=1).failed
    store.close()
    return str(root / "index")


@pytest.mark.parametrize("scope", ["confidence", "filing"])
def test_two_filings_of_one_identity_are_both_named(twin_index, scope):
    """Issue 34 case 7: two Acme FY2023 10-Ks with different numbers. Before, the answer used one (or both)
    without a word; now the answer's first line names both and says which it reads, and the contract lists
    them in `routing.extracted.same_identity` and the routing reason."""
    from finrag import run_query

    res = run_query("What was Acme Widgets' total revenue in 2023?", system="hdrr", index_dir=twin_index,
                    configurable={"routing_scope": scope})
    routing = res["routing"]
    both = ["ACME_2023_10K", "b_ACME_2023_10K"]
    assert routing["extracted"]["same_identity"] == [{"identity": "Acme 10K FY2023", "doc_ids": both,
                                                      "read": sorted(routing["routed_docs"])}], routing
    assert "2 filings of one identity (Acme 10K FY2023): ACME_2023_10K, b_ACME_2023_10K" in routing["reason"]
    first = res["answer"].split("\n\n")[0]
    assert first.startswith("Two filings in the index have the same identity (Acme 10K FY2023): "
                            "ACME_2023_10K, b_ACME_2023_10K; their figures may differ"), res["answer"]
    if scope == "filing":
        assert len(routing["routed_docs"]) == 1 and f"this answer reads only {routing['routed_docs'][0]}." in first
    else:
        assert sorted(routing["routed_docs"]) == both and "this answer reads all of them." in first


def test_one_filing_per_identity_has_no_note(demo_index, demo_qas):
    """Issue 34 case 7 (the other side): a route to a filing with no twin adds no note and an empty list."""
    from finrag import run_query

    q = next(q for q in demo_qas if q["doc_id"].startswith("ACMEWIDGETS_"))
    res = run_query(q["question"], system="hdrr", index_dir=str(demo_index))
    assert res["routing"]["extracted"]["same_identity"] == [] and "same identity" not in res["answer"]
