"""Merging company keys: the indexed merge (O(n)) decides exactly as the plain scan over every key did.

The registry must be buildable for tens of thousands of filings (issue 14's 100x corpus); the scan it
replaces compared every new key with every canonical key. The reference below is that scan, kept here
as the specification; random corpora with typos, spacing variants and shared tickers must merge alike.
"""
from __future__ import annotations

import random

from finrag.state.schema import DocumentInfo
from finrag.tools.routing.registry import Registry
from finrag.tools.routing.text import edit_distance, squash


def reference_merge(reg: Registry) -> dict[str, str]:
    """The scan the registry used before it kept indexes (registry.py at 082594b), over the same inputs."""
    ranked, ticker_owner, key_tickers = reg._merge_inputs()
    canon: dict[str, str] = {}
    for k in ranked:
        sq = squash(k)
        target = next((c for c in canon.values() if squash(c) == sq), None)
        if target is None and len(sq) >= 6:
            target = next((c for c in dict.fromkeys(canon.values())
                           if len(squash(c)) >= 6 and edit_distance(sq, squash(c), 1) <= 1), None)
        if target is None and k in ticker_owner and ticker_owner[k] != k and ticker_owner[k] in canon:
            target = canon[ticker_owner[k]]
        if target is None:
            mine = key_tickers.get(k, set())
            target = next((canon[o] for o in canon if mine & key_tickers.get(o, set())), None)
        canon[k] = target or k
    return {d.doc_id: canon[reg._file_key(d)] for d in reg._docs.values()}


def random_corpus(rng: random.Random, n: int) -> list[DocumentInfo]:
    stems = ["ACMEWIDGETS", "ACMEWIDGET", "ACMEWIDGETZ", "BOLTINDUSTRIES", "BOLT_INDUSTRIES", "COLTINDUSTRIES",
             "DELTAFOODS", "DELTAFOOD", "EPSILONBANK", "ZETA", "ZETAA", "ETAHOLDINGS", "THETA_CORP", "THETACORP"]
    tickers = ["ACM", "BLT", "CLT", "DLT", "EPS", "ZT", "ETA", "TH", ""]
    docs = []
    for i in range(n):
        key = rng.choice(stems)
        if rng.random() < 0.3:  # a one-letter typo somewhere
            j = rng.randrange(len(key))
            key = key[:j] + rng.choice("ABXYZ") + key[j + 1:]
        t = rng.choice(tickers)
        docs.append(DocumentInfo(doc_id=f"{key}_{2000 + i}", company_key=key, company=key.replace("_", " ").title(),
                                 tickers=[t] if t else [], fiscal_year=2000 + i % 20))
    return docs


def test_indexed_merge_equals_the_scan_on_random_corpora():
    rng = random.Random(7)
    for trial in range(40):
        reg = Registry(random_corpus(rng, rng.randint(5, 80)))
        assert reg._doc_key == reference_merge(reg), f"trial {trial}"


def test_a_typo_of_a_bigger_company_merges_into_it():
    docs = [DocumentInfo(doc_id=f"JOHNSONJOHNSON_{y}", company_key="JOHNSONJOHNSON") for y in (2019, 2020)]
    docs.append(DocumentInfo(doc_id="JOHNSONJOHNSEN_2021", company_key="JOHNSONJOHNSEN"))
    docs.append(DocumentInfo(doc_id="JOHNSON_JOHNSON_2022", company_key="JOHNSON_JOHNSON"))
    reg = Registry(docs)
    assert set(reg._doc_key.values()) == {"JOHNSONJOHNSON"}
