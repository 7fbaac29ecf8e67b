"""A lower-case company name as the bare subject of a question's auxiliary ("did oracle ...", "how ... is nike?")."""
from __future__ import annotations

import pytest

from finrag.eval.routing_scale_corpus import scale_companies, scale_documents
from finrag.tools.routing.registry import Registry
from finrag.tools.routing.subject import auxiliary_subject

NEEDED = ["ORCL", "NKE", "WMT", "NFLX", "INTC", "V"]


@pytest.fixture(scope="module")
def reg() -> Registry:
    return Registry(scale_documents(scale_companies(0, required=NEEDED)))


def routed(reg: Registry, q: str) -> set[str]:
    res = reg.resolve(reg.link(q), q, default_year=2024)
    return {reg.company_of(d) for d in res.doc_ids}


def _subject(text: str, word: str) -> str:
    start = text.index(word)
    return auxiliary_subject(text, start, start + len(word))


def test_the_bare_subject_of_an_auxiliary():
    assert _subject("has oracle ever cut its payout", "oracle")
    assert _subject("how much did walmart spend on stores", "walmart")
    assert _subject("how asset heavy is netflix?", "netflix")
    assert not _subject("has the oracle spoken", "oracle")          # an article: a common noun
    assert not _subject("oracle revenue grew", "oracle")            # no auxiliary before it
    assert not _subject("is it true that oracle grew", "oracle")    # the auxiliary's subject is "it"


@pytest.mark.parametrize("question", [
    "has oracle ever cut its dividend?",
    "did nike close any factories in 2023",
    "how asset heavy is walmart?",
    "when did netflix stop mailing discs",
])
def test_a_lower_case_subject_routes_to_the_company(reg, question):
    assert len(routed(reg, question)) == 1, reg.link(question).candidates


def test_a_common_word_after_an_article_names_no_company(reg):
    assert not routed(reg, "did the oracle of omaha sell shares in 2023")
