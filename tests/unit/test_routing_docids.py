"""Issue 9: document ids unique in every layout; identical content under several names is one document."""
from __future__ import annotations

from pathlib import Path

from finrag.tools.documents.doc_ids import doc_id_for
from finrag.tools.documents.parsing import assign_doc_ids
from finrag.tools.routing.filenames import parse_path


def test_ids_per_layout():
    assert doc_id_for("/corpus/2022/MMM.pdf") == "MMM_2022" != doc_id_for("/corpus/2023/MMM.pdf")
    assert doc_id_for("/corpus/2023/BRK.B.pdf") == "BRK.B_2023"
    assert doc_id_for("pdfs/3M_2018_10K.pdf") == "3M_2018_10K"  # FinanceBench ids stay the same
    assert doc_id_for("pdfs/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf") == "FOOTLOCKER_2022_8K_dated_2022-08-19"
    assert doc_id_for("filings/AAPL/2023.pdf") == "AAPL_2023"  # a folder per company
    assert doc_id_for("filings/Apple/10-K_FY2023.pdf") == "Apple_10-K_FY2023"
    assert doc_id_for("x/aapl-20230930.htm") == "aapl-20230930"  # generic names keep their stem
    info = parse_path("filings/MSFT/2022Q2_10Q.pdf")
    assert (info["company_key"], info["period"], info["form"]) == ("MICROSOFT", "2022Q2", "10Q")


def test_assign_ids_dedupes_identical_content_and_qualifies_clashes(tmp_path: Path):
    a = tmp_path / "east" / "summary.pdf"
    b = tmp_path / "west" / "summary.pdf"
    copy = tmp_path / "copies" / "ACME_2023_10K.pdf"
    orig = tmp_path / "ACME_2023_10K.pdf"
    for p, body in [(a, b"east"), (b, b"west"), (orig, b"acme"), (copy, b"acme")]:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(body)
    plan = assign_doc_ids(sorted([a, b, orig, copy]), known={})
    ids = {Path(k).relative_to(tmp_path).as_posix(): v for k, v in plan.ids.items()}
    assert len(set(plan.ids.values())) == len(plan.ids) == 3
    assert ids["east/summary.pdf"] == "summary" and ids["west/summary.pdf"] == "west_summary"
    assert plan.duplicates == {str(orig): "ACME_2023_10K"} or plan.duplicates == {str(copy): "ACME_2023_10K"}
    # a later run: the copy is recognised by content against the index
    known = {"ACME_2023_10K": (plan.hashes[str(copy)], str(orig))}
    again = assign_doc_ids([copy], known)
    assert again.duplicates == {str(copy): "ACME_2023_10K"} and not again.ids
