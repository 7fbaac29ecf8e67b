"""One home per idea: the paper's defaults, the legal-suffix patterns, the month names, the error line."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

from finrag.errors import print_error, print_warning
from finrag.nodes.rrf import reciprocal_rank_fusion
from finrag.state.configuration import Configuration
from finrag.tools.indexing.store import Store
from finrag.tools.retrieval.cutoff import adaptive_cutoff
from finrag.tools.routing import text
from finrag.tools.routing.registry import Registry
from finrag.tools.routing.words import LEGAL_SUFFIXES
from finrag.tools.vocabulary import dates


def _default(fn, name: str):
    return inspect.signature(fn).parameters[name].default


def test_function_defaults_are_the_configuration_defaults():
    fields = Configuration.model_fields
    pairs = [(adaptive_cutoff, "cumulative", "rerank_cumulative"), (adaptive_cutoff, "cliff", "rerank_cliff"),
             (adaptive_cutoff, "max_chunks", "max_chunks"), (reciprocal_rank_fusion, "k", "rrf_k"),
             (Store.search_fts, "k", "fts_k"), (Store.search_vectors, "k", "vector_k"),
             (Registry.resolve, "default_year", "default_year")]
    for fn, param, field in pairs:
        assert _default(fn, param) == fields[field].default, (fn.__qualname__, param)
    assert (fields["rerank_cumulative"].default, fields["rerank_cliff"].default, fields["max_chunks"].default,
            fields["rrf_k"].default, fields["fts_k"].default, fields["vector_k"].default) == (0.55, 0.15, 10, 60, 20, 30)


def test_suffix_variants_keep_their_own_matches():
    assert LEGAL_SUFFIXES is text.LEGAL_SUFFIXES
    assert text.LEGAL_SUFFIXES.search("Bancorp") and not text.LEGAL_SUFFIXES.search("Industries")
    assert text.CASED_SUFFIX_WORD.fullmatch("Industries") and not text.CASED_SUFFIX_WORD.fullmatch("inc")
    assert text.strip_legal_suffix("Best Buy Co., Inc.") == "Best Buy Co."
    assert text.strip_legal_suffix("Apple Inc.") == "Apple"
    assert text.strip_legal_suffix("Acme Holdings") == "Acme Holdings"


def test_month_names_and_numbers():
    assert dates.MONTH_NAMES[0] == "January" and len(dates.MONTH_NAMES) == 12
    assert [dates.month_num(m[:3].lower()) for m in dates.MONTH_NAMES] == list(range(1, 13))
    assert dates.month_num("Sept.") == 9 and dates.month_num("Smarch") == 0


def test_the_months_are_spelled_out_in_one_module_only():
    """`tools/vocabulary/dates.py` is the one home of the month names: no other module of the package (nor bench/)
    writes two of them in a row, as a list or a pattern would."""
    root = Path(__file__).resolve().parents[2]
    pair = re.compile(r"(?i)january\W{1,6}february|jan\W{1,6}feb\b")
    home = root / "tools" / "vocabulary" / "dates.py"
    found = [str(p.relative_to(root)) for folder in ("app", "graphs", "nodes", "state", "tools", "eval", "bench")
             for p in sorted((root / folder).rglob("*.py")) if p != home and pair.search(p.read_text(encoding="utf-8"))]
    assert not found, f"month names spelled out outside {home.relative_to(root)}: {found}"
    assert pair.search(home.read_text(encoding="utf-8"))


def test_one_line_messages(capsys):
    print_error("no index at x")
    print_warning("slow disk", prog="finrag eval")
    assert capsys.readouterr().err == "finrag: error: no index at x\nfinrag eval: warning: slow disk\n"


def test_company_names_are_cleaned_in_one_place():
    from finrag.tools.routing import documents, text

    assert documents.clean_company_name is text.clean_company_name
    assert text.clean_company_name("JPMorgan Chase & Co.") == "JPMorgan Chase"
    assert text.clean_company_name("THE COCA-COLA COMPANY") == "Coca-Cola"


def test_form_names_have_one_home():
    from finrag.state import forms
    from finrag.tools.edgar import listing
    from finrag.tools.indexing import variants
    from finrag.tools.routing import filenames

    assert filenames.FORMS is forms.FORM_KEYS and variants.FORM_NAMES is forms.FORM_DESCRIPTIONS
    assert listing.FORMS is forms.FETCH_FORMS
    assert set(forms.SEC_FORM_KEYS.values()) <= set(forms.FORM_KEYS) == set(forms.FORM_LABELS)
