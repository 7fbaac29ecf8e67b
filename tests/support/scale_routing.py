"""The routing-principle tests' scaffolding: a registry over the scale corpus with the companies a test module needs,
its companies known by ticker, and a question's routed companies (tests/unit/test_routing_*.py)."""
from __future__ import annotations

from typing import Callable

from finrag.eval.routing_scale_corpus import scale_companies, scale_documents
from finrag.tools.routing.registry import Registry


def scale_registry(needed: list[str]) -> Registry:
    """The scale corpus's registrants, with the companies of `needed` (tickers) among them."""
    return Registry(scale_documents(scale_companies(0, required=needed)))


def ticker_key(reg: Registry, needed: list[str]) -> Callable[[str], str]:
    """A ticker of `needed` (or one of its files') -> the registry's company."""
    doc = {t: c.doc_ids()[0] for c in scale_companies(0, required=needed) for t in (c.ticker, *c.files)}
    return lambda ticker: reg.company_of(doc[ticker])


def routed(reg: Registry, q: str) -> set[str]:
    """The companies a question is routed to (fiscal 2024 when it names no year)."""
    res = reg.resolve(reg.link(q), q, default_year=2024)
    return {reg.company_of(d) for d in res.doc_ids}


def expect(reg: Registry, key: Callable[[str], str], q: str, gold: list[str]) -> None:
    """The question is routed to exactly the companies of the `gold` tickers."""
    assert routed(reg, q) == {key(t) for t in gold}, (q, reg.link(q).candidates)


def registry_fixtures(needed: list[str]):
    """The module-scoped `reg` (a scale registry holding `needed`) and `key` (their tickers' routing keys) fixtures of
    a routing principles module: `reg, key = registry_fixtures(NEEDED)` at its top."""
    import pytest

    @pytest.fixture(scope="module")
    def reg() -> Registry:
        return scale_registry(needed)

    @pytest.fixture(scope="module")
    def key(reg):
        return ticker_key(reg, needed)

    return reg, key
