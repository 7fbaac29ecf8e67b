"""Issue 35: routing at EDGAR scale. On a registry holding the development corpus and the SEC registrants a token
of the question could also name (Cloudflare NET, Compass COMP, Coca-Cola Consolidated COKE, Lulu's Fashion Lounge,
CB Financial Services, KO Gold, Target Group, Mobilicom MOB, Walker & Dunlop WD ...), the classes of misroutes of
the issue: the right company plus a registrant an abbreviation or word names, another registrant instead, no
route, an extra company, share classes counted as two companies. Plus: the alternatives are recorded with their
evidence and an LLM router still chooses only among the candidates."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from finrag.eval.routing_corpus import cover_page
from finrag.eval.routing_scale_corpus import scale_companies, scale_documents
from finrag.tools.routing.documents import build_document_info
from finrag.tools.routing.registry import Registry

CONFUSABLE = ["NET", "COMP", "ASR", "DEC", "FOR", "EXP", "COKE", "CCEP", "KOF", "KOGDF", "LVLU", "LULU", "CBFV",
              "HSTC", "HST", "MGTI", "MOB", "AUC", "PGIM", "CBDY", "TH", "VAC", "HGV", "WD", "CASH", "APP", "PTCT",
              "NWSA", "FOXF", "DOC", "SHOP", "HQ", "MDCE", "FIVE", "SAFE", "UHT", "UVV", "ARM", "PARK", "NALG",
              "SVAQ", "VGES", "CHTR", "HBM", "XYZ", "OPEN", "ZG", "UAA", "ADSK", "LBRDA", "MOS", "UBER", "COO"]


@pytest.fixture(scope="module")
def companies():
    return scale_companies(0, required=CONFUSABLE)  # the development corpus and the confusable registrants only


@pytest.fixture(scope="module")
def reg(companies) -> Registry:
    return Registry(scale_documents(companies))


@pytest.fixture(scope="module")
def key(reg, companies):
    doc = {t: c.doc_ids()[0] for c in companies for t in (c.ticker, *c.files)}
    return lambda ticker: reg.company_of(doc[ticker])


def routed(reg: Registry, q: str) -> set[str]:
    res = reg.resolve(reg.link(q), q, default_year=2024)
    return {reg.company_of(d) for d in res.doc_ids}


def test_the_registry_holds_the_confusable_registrants(reg, key):
    for t in CONFUSABLE:
        assert key(t), t
    assert len({key(t) for t in ("NWSA", "NWS")}) == 1 and len({key(t) for t in ("GOOGL", "GOOG")}) == 1
    assert len({key(t) for t in ("FOXA", "FOX")}) == 1 and len({key(t) for t in ("BRK.B", "BRK.A")}) == 1


@pytest.mark.parametrize("question, gold", [
    ("Net inc. % chg vs diluted EPS, Honeywell FY22-23", "HON"),   # 'Net' is not Cloudflare (NET)
    ("Chubb (CB) Net inc. 2023", "CB"),                             # nor 'CB' CB Financial Services
    ("KO's concentrate pricing 2023", "KO"),                        # nor 'KO' KO Gold
    ("workers comp reserves Chubb 2022", "CB"),                     # 'comp' is not Compass (COMP)
    ("Costco CF from ops FY24", "COST"),                            # CF: cash flow, not CF Industries
    ("Home Depot ASR in fiscal 2023", "HD"),                        # ASR: a buyback, not Southeast Airport Group
    ("AutoZone buybacks Dec 2023", "AZO"),                          # Dec: a month, not Diversified Energy
    ("Thermo Fisher NET debt / EBITDA 2023", "TMO"),                # 'NET debt' is a line item
    ("Healthpeak MOB NOI 2024", "DOC"),                             # MOB: medical office buildings
    ("Welltower (WELL) SHOP NOI 2024", "WELL"),                     # SHOP: a segment, not Shopify
    ("Exp. ratio Progressive 2023", "PGR"),                         # 'Exp.' is not Eagle Materials (EXP)
    ("News Corp (NWSA) Dow Jones revenue FY2024", "NWSA"),          # 'Dow' of "Dow Jones" is not Dow Inc.
    ("Liberty Broadband (LBRDK) Charter stake value 2024", "LBRDA"),  # an object, weaker than the subject
    ("Universal Health Realty (UHT) FFO 2024", "UHT"),              # the name before '(UHT)' is UHT's
    ("Block's Cash App gross profit 2024", "XYZ"),                  # 'Cash App' is neither Pathward nor AppLovin
])
def test_the_right_company_without_a_registrant_a_word_names(reg, key, question, gold):
    assert routed(reg, question) == {key(gold)}, question


@pytest.mark.parametrize("question, gold", [
    ("LULU's inventory growth FY2024", "LULU"),                 # the ticker LULU, not Lulu's Fashion Lounge
    ("Lulu's Fashion Lounge (LVLU) active customers 2024", "LVLU"),
    ("Waste Mgt collection volumes 2022", "WM"),                # not MGT Capital Investments
    ("Target digital sales 2023", "TGT"),                       # Target's own name, not Target Group's
    ("Coca-Cola pricing vs volume 2023", "KO"),                 # The Coca-Cola Company
    ("Coca-Cola Consolidated physical case volume 2024", "COKE"),
    ("Coca-Cola FEMSA Mexico volumes 2024", "KOF"),
    ("ticker HST: SG&A 2024", "HST"),                           # not HST Global
    ("WD HDD revenue FY2024", "WDC"),                           # the alias 'WD' (written so)
    ("Walker & Dunlop (WD) loan originations 2024", "WD"),      # the ticker in ticker context
    ("$WD servicing portfolio 2024", "WD"),
])
def test_the_registrant_whose_name_is_meant(reg, key, question, gold):
    assert routed(reg, question) == {key(gold)}, question


@pytest.mark.parametrize("question, gold", [
    ("PSEG (PEG) rate base growth 2024", "PEG"),    # a nickname (alias table) and a finance abbreviation
    ("COO revenue growth FY2023", "COO"),           # a finance abbreviation as the only subject
    ("T postpaid phone net adds 2024", "T"),        # a lone letter opening the question
    ("AUTDSK ARR FY2024", "ADSK"),                  # an analyst's abbreviation (alias table)
    ("Healthpeak (PEAK) lab occupancy 2023", "DOC"),  # the former ticker PEAK, now DOC
    ("GM EV capex 2024", "GM"),
    ("BNY Mellon AUC 2023", "BK"),
    ("Xcel rate base 2024", "XEL"),
])
def test_routes_that_were_missing(reg, key, question, gold):
    assert routed(reg, question) == {key(gold)}, question


@pytest.mark.parametrize("question, gold", [
    ("MA ruling on Uber drivers 2024", ["UBER"]),               # MA: Massachusetts, not Mastercard
    ("CF sustainability at Coca-Cola 2023", ["KO"]),
    ("State Street HQ MA tax credits 2023", ["STT"]),
    ("FOX and FOXA dividends FY2024", ["FOXA"]),                # share classes of one registrant: one company
    ("NWS vs NWSA voting rights 2024", ["NWSA"]),
    ("GOOG vs GOOGL buybacks 2023", ["GOOGL"]),
    ("BRK.A vs BRK.B book value per share 2023", ["BRK.B"]),
    ("KO vs COKE gross margin 2024", ["KO", "COKE"]),           # a comparison names both
    ("Coca-Cola compared with Coca-Cola Consolidated gross margin 2024", ["KO", "COKE"]),
    ("GM vs F EV losses 2023", ["GM", "F"]),
    ("CF Industries vs Mosaic margins 2023", ["CF", "MOS"]),
    ("Nvidia, AMD and Intel data center revenue 2023", ["NVDA", "AMD", "INTC"]),
    ("Apple Microsoft revenue 2023", ["AAPL", "MSFT"]),        # names side by side: a list without glue
    ("Micron HBM revenue FY2024", ["MU"]),                     # a product beside a name, not a company (HBM)
    ("Nvidia AMD Intel capex 2023", ["NVDA", "AMD", "INTC"]),
])
def test_one_company_unless_a_comparison_names_more(reg, key, question, gold):
    assert routed(reg, question) == {key(g) for g in gold}, question


@pytest.mark.parametrize("question", [
    "what is an ASR and how is it accounted for", "median NET margin of SaaS companies 2023",
    "ON a GAAP basis, what is EBITDA?", "mgmt comp disclosure rules 2023", "AI capex by hyperscalers 2024",
    "Vanguard Group AUM 2024", "Silicon Valley Bank deposits 2022",
])
def test_no_registrant_for_words_or_companies_the_index_does_not_hold(reg, question):
    assert routed(reg, question) == set(), question


def test_the_alternatives_are_recorded_with_their_evidence(reg, key):
    ex = reg.link("Healthpeak MOB NOI 2024")
    mob = [c for c in ex.candidates if c["key"] == key("MOB")]
    assert mob and mob[0]["alternative_to"] == "Healthpeak Properties" and mob[0]["confidence"] < 0.5
    assert "was " in mob[0]["reason"] and "ticker MOB" in mob[0]["reason"]
    ex = reg.link("Target digital sales 2023")
    assert [c["alternative_to"] for c in ex.candidates if c["key"] == key("CBDY")] == ["Target"]
    assert ex.companies == ["Target"]
    assert "alternative to Healthpeak Properties" in reg.describe_candidates(reg.link("Healthpeak MOB NOI 2024"))


def test_an_llm_router_chooses_among_the_candidates_alternatives_included(reg, key):
    q = "Healthpeak MOB NOI 2024"
    linked = reg.link(q)
    chose = reg.merge_llm(linked, SimpleNamespace(companies=["Mobilicom"], tickers=[], rejected=["Healthpeak"]))
    assert routed_of(reg, chose, q) == {key("MOB")}
    refused = reg.merge_llm(linked, SimpleNamespace(companies=["Walker & Dunlop"], tickers=[], rejected=[]))
    assert any("Walker & Dunlop" in r for r in refused.llm_overridden)
    assert routed_of(reg, refused, q) == {key("DOC")}


def test_a_candidate_the_router_both_chooses_and_rejects_stays(reg, key):
    """A reply that contradicts itself (a real small model's: the question's only ticker under `companies` and under
    `rejected`) takes nothing away: the candidate is routed, not dropped as rejected."""
    q = "What was Healthpeak's NOI in 2024?"
    linked = reg.link(q)
    both = reg.merge_llm(linked, SimpleNamespace(companies=["Healthpeak"], tickers=[], rejected=["healthpeak"]))
    assert routed_of(reg, both, q) == {key("DOC")}
    assert not any("Healthpeak" in r for r in both.llm_overridden)
    only_rejected = reg.merge_llm(linked, SimpleNamespace(companies=[], tickers=[], rejected=["Healthpeak"]))
    assert routed_of(reg, only_rejected, q) != {key("DOC")}


def routed_of(reg: Registry, ex, q: str) -> set[str]:
    return {reg.company_of(d) for d in reg.resolve(ex, q, default_year=2024).doc_ids}


def test_a_ticker_file_key_is_no_name_and_an_alias_of_another_company_is_not_borrowed():
    net = build_document_info("/c/2024/NET.pdf", "")
    assert net.company == "NET" and "Net" not in net.aliases  # 'Net inc.' does not name it
    covers = {"COKE": "Coca-Cola Consolidated, Inc.", "KO": "The Coca-Cola Company"}
    from finrag.eval.routing_corpus import BenchCompany

    docs = {t: build_document_info(f"/c/2024/{t}.pdf", cover_page(BenchCompany(t, n, (12, 31)), 2024))
            for t, n in covers.items()}
    assert docs["COKE"].company == "Coca-Cola Consolidated" and "Coke" not in docs["COKE"].aliases
    assert docs["KO"].company == "Coca-Cola"


def test_the_sec_list_groups_share_classes_and_the_committed_queries_are_the_generators():
    from finrag.eval.routing_scale_corpus import all_scale_companies
    from finrag.eval.routing_scale_questions import QUESTIONS_FILE, load_scale_questions, scale_questions
    from finrag.tools.routing.registrants import load_registrants

    regs = load_registrants()
    assert len(regs) == 7992 and sum(len(r.tickers) for r in regs) == 10365
    by_ticker = {t: r for r in regs for t in r.tickers}
    assert by_ticker["GOOG"] is by_ticker["GOOGL"] and by_ticker["FOX"] is by_ticker["FOXA"]
    assert by_ticker["NWS"] is by_ticker["NWSA"] and by_ticker["BRK-A"] is by_ticker["BRK-B"]
    committed = load_scale_questions(QUESTIONS_FILE)
    assert committed == scale_questions(all_scale_companies()) and len(committed) >= 700
    cats = {q["category"].split("/")[-1] for q in committed}
    assert {"abbreviation", "word_ticker", "prefix", "share_class", "alias", "multi", "not_indexed", "no_company",
            "market"} <= cats
