"""The document registry and the deterministic question linker (tools/routing/).

Two kinds of tests:

* unit tests on synthetic file names, cover pages and questions (always run);
* checks against the real FinanceBench subset in ../shared (skipped when absent):
  every one of the 168 filings parses to the right company / period / form, and
  link + resolve picks the gold filing for >= 95% of the 86 dev questions.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.question.cues import detect_forms, question_cues
from finrag.tools.question.periods import extract_periods
from finrag.tools.routing.aliases import builtin_aliases, load_alias_file
from finrag.tools.routing.cover import parse_cover_page, read_cover_text
from finrag.tools.routing.documents import build_document_info, clean_company_name, name_variants
from finrag.tools.routing.filenames import parse_path
from finrag.tools.routing.registry import STATUSES, Registry, Resolution
from finrag.tools.routing.text import squash

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "financebench"
FORM_OF_DOC_TYPE = {"10k": "10K", "10q": "10Q", "8k": "8K", "earnings": "EARNINGS", "10k_annualreport": "ANNUALREPORT"}


# --------------------------------------------------------------------------- #
# synthetic corpus
# --------------------------------------------------------------------------- #

def cover(name: str, tickers=(), *, form: str = "10-K", fye: str = "December 31, 2022", report_date: str = "") -> str:
    """A cover page in the SEC layout (with a Trading Symbol(s) table when tickers are given)."""
    if tickers:
        table = ("Title of each class\nTrading Symbol(s)\nName of each exchange on which registered\n"
                 + "".join(f"Common Stock, $0.01 par value\n{t}\nNew York Stock Exchange\n" for t in tickers))
    else:
        table = "Title of each class\nName of each exchange on which registered\nCommon Stock\nNew York Stock Exchange\n"
    period = (f"Date of Report (Date of earliest event reported): {report_date}\n" if report_date
              else f"For the {'quarterly period' if form == '10-Q' else 'fiscal year'} ended {fye}\n")
    return ("UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\n"
            f"FORM {form}\n{period}Commission File Number 1-1234\n{name}\n"
            "(Exact name of registrant as specified in its charter)\nDelaware\n"
            "Securities registered pursuant to Section 12(b) of the Act:\n" + table
            + "Securities registered pursuant to Section 12(g) of the Act: None\n"
              "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes x No o\n")


SYNTHETIC = {
    "JOHNSON_JOHNSON_2022_10K.pdf": cover("JOHNSON & JOHNSON", ["JNJ"], fye="January 1, 2023"),
    "JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf": "FOR IMMEDIATE RELEASE\nNew Brunswick, N.J. (January 24, 2023) – "
                                           "Johnson & Johnson (NYSE: JNJ) today announced results",
    "JOHNSON_JOHNSON_2023Q2_EARNINGS.pdf": "",
    "JOHNSON_JOHNSON_2023_8K_dated-2023-08-23.pdf": cover("Johnson & Johnson", ["JNJ"], form="8-K",
                                                          report_date="August 23, 2023"),
    "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30.pdf": cover("Johnson & Johnson", ["JNJ"], form="8-K",
                                                          report_date="August 30, 2023"),
    "PFIZER_2020_10K.pdf": cover("PFIZER INC.", ["PFE"]),
    "PFIZER_2021_10K.pdf": cover("PFIZER INC.", ["PFE"]),
    "Pfizer_2023Q2_10Q.pdf": cover("PFIZER INC.", ["PFE"], form="10-Q", fye="July 2, 2023"),
    "PFIZER_2023Q2_EARNINGS.pdf": "",
    "BESTBUY_2023_10K.pdf": cover("BEST BUY CO., INC.", ["BBY"], fye="January 28, 2023"),
    "BESTBUY_2023Q4_EARNINGS.pdf": "",
    "BESTBUY_2024Q2_10Q.pdf": cover("BEST BUY CO., INC.", ["BBY"], form="10-Q", fye="July 29, 2023"),
    "BESTBUY_2024Q2_EARNINGS.pdf": "",
    "AMERICANEXPRESS_2022_10K.pdf": cover("American Express Company", ["AXP"]),
    "MGMRESORTS_2022_10K.pdf": cover("MGM R ESORTS I NTERNATIONAL", ["MGM"]),
    "MGMRESORTS_2022Q4_EARNINGS.pdf": "",
    "BLOCK_2019_10K.pdf": cover("SQUARE, INC.", ["SQ"]),
    "BLOCK_2020_10K.pdf": cover("SQUARE, INC.", ["SQ"]),
    "CORNING_2019_10K.pdf": cover("CORNING INCORPORATED"),
    "CORNING_2021_10K.pdf": cover("CORNING INCORPORATED", ["GLW"]),
    "BOEING_2022_10K.pdf": cover("THE BOEING COMPANY", ["BA"]),
    "COCACOLA_2017_10K.pdf": cover("COCA COLA CO"),
    "ACTIVSIONBLIZZARD_2023Q2_10Q.pdf": cover("ACTIVISION BLIZZARD, INC.", ["ATVI"], form="10-Q"),
    "FOOTLOCKER_2022_8K_dated_2022-08-19.pdf": cover("Foot Locker, Inc.", ["FL"], form="8-K",
                                                     report_date="August 19, 2022"),
    "FOOTLOCKER_2022_10K.pdf": cover("Foot Locker, Inc.", ["FL"], fye="January 29, 2022"),
    "JPMORGAN_2021Q1_10Q.pdf": cover("JPMorgan Chase & Co.", ["JPM"], form="10-Q", fye="March 31, 2021"),
    "ONSEMI_2023_10K.pdf": cover("ON SEMICONDUCTOR CORPORATION", ["ON"]),
    "ALLSTATE_2023_10K.pdf": cover("THE ALLSTATE CORPORATION", ["ALL"]),
    "ACME_2023_10K.pdf": cover("Acme Corporation", ["ACMX"]),
    "2023/AAPL.pdf": "",
    "2022/MSFT.pdf": "",
}


@pytest.fixture(scope="module")
def synthetic_docs() -> list[DocumentInfo]:
    return [build_document_info(Path("/filings") / name, text) for name, text in SYNTHETIC.items()]


@pytest.fixture(scope="module")
def reg(synthetic_docs) -> Registry:
    return Registry(synthetic_docs)


def route(registry: Registry, question: str, default_year: int = 2023) -> Resolution:
    return registry.resolve(registry.link(question), question, default_year=default_year)


# --------------------------------------------------------------------------- #
# parse_path
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("path, expected", [
    ("ACTIVSIONBLIZZARD_2023Q2_10Q.pdf", dict(company_key="ACTIVISIONBLIZZARD", fiscal_year=2023, quarter=2,
                                             period="2023Q2", form="10Q")),
    ("pdfs/Pfizer_2023Q2_10Q.pdf", dict(company_key="PFIZER", period="2023Q2", form="10Q")),
    ("FOOTLOCKER_2022_8K_dated_2022-08-19.pdf", dict(company_key="FOOTLOCKER", period="2022", form="8K",
                                                     filed_date="2022-08-19")),
    ("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", dict(form="8K", filed_date="2022-05-20")),
    ("AMD_2022_annualreport.pdf", dict(company_key="AMD", fiscal_year=2022, form="ANNUALREPORT")),
    ("JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf", dict(company_key="JOHNSON_JOHNSON", quarter=4, form="EARNINGS")),
    ("BESTBUY_2024Q2_10Q.pdf", dict(company_key="BESTBUY", fiscal_year=2024, quarter=2)),
    ("3M_2018_10K.pdf", dict(company_key="3M", fiscal_year=2018, period="2018", form="10K")),
    ("BESTBUY_2024Q2_10Q.txt", dict(company_key="BESTBUY", form="10Q")),
    ("COSTCO_2023_8K_dated-2023-08-16.htm", dict(company_key="COSTCO", filed_date="2023-08-16")),
    ("NIKE_2023_10K.html", dict(company_key="NIKE", form="10K")),
    ("2023/AAPL.pdf", dict(layout="paper", ticker="AAPL", company_key="APPLE", fiscal_year=2023, form="10K",
                           period="2023")),
    ("/corpus/2021/ZZZZ.pdf", dict(layout="paper", ticker="ZZZZ", company_key="ZZZZ", fiscal_year=2021)),
    ("aapl-20230930.htm", dict(layout="generic", company_key="APPLE", ticker="AAPL", fiscal_year=2023)),
    ("apple 10-K 2023.html", dict(company_key="APPLE", form="10K", fiscal_year=2023)),
    ("Microsoft_FY2023Q1_earnings.pdf", dict(company_key="MICROSOFT", period="2023Q1", form="EARNINGS")),
])
def test_parse_path_layouts_and_irregular_names(path, expected):
    got = parse_path(path)
    for k, v in expected.items():
        assert got[k] == v, (path, k, got)


@pytest.mark.parametrize("path", ["", "0000320193-23-000106.txt", "../../etc/passwd", "/", ".pdf", None, 123,
                                  "x" * 5000, "\x00\x01.pdf", "2023/.pdf"])
def test_parse_path_never_raises(path):
    got = parse_path(path)
    assert set(got) >= {"company_key", "fiscal_year", "quarter", "period", "form", "filed_date", "doc_id"}
    assert got["form"] in ("", "10K", "10Q", "8K", "EARNINGS", "ANNUALREPORT")


def test_doc_id_is_the_file_stem():
    assert parse_path("/a/b/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf")["doc_id"] == "FOOTLOCKER_2022_8K_dated_2022-08-19"
    # the paper's layout: one id per year (issue 9: `2022/MMM.pdf` and `2023/MMM.pdf` used to clash)
    assert build_document_info("/a/2023/AAPL.pdf", "").doc_id == "AAPL_2023"


# --------------------------------------------------------------------------- #
# cover pages
# --------------------------------------------------------------------------- #

def test_cover_page_modern_layout():
    c = parse_cover_page(cover("PFIZER INC.", ["PFE"], fye="December 31, 2022"))
    assert c["registrant"] == "PFIZER INC." and c["tickers"] == ["PFE"]
    assert c["fiscal_year_end"] == "December 31" and c["fiscal_year"] == 2022 and c["form"] == "10K"


def test_cover_page_old_layout_without_symbols_gives_no_tickers():
    c = parse_cover_page(cover("CORNING INCORPORATED", fye="December 31, 2016"))
    assert c["registrant"] == "CORNING INCORPORATED" and c["tickers"] == []


def test_cover_page_quirks():
    c = parse_cover_page(cover("MGM R ESORTS I NTERNATIONAL", ["MGM"]))
    assert c["registrant"] == "MGM RESORTS INTERNATIONAL"
    split = "Date of Report (Date of earliest event\nreported): July 1, 2022\nAMCOR\nPLC\n(Exact\nname of registrant)"
    c = parse_cover_page(split)
    assert c["registrant"] == "AMCOR PLC" and c["report_date"] == "2022-07-01"
    # 52/53-week year ending in the first days of January belongs to the previous year
    assert parse_cover_page(cover("X CORP", fye="January 3, 2016"))["fiscal_year"] == 2015
    # rows before the header (Boeing 2019 layout) and a bare name after the commission line (3M)
    boeing = ("Commission file number 1-442\nTHE BOEING COMPANY\n(Exact name of registrant as specified in its charter)\n"
              "Securities registered pursuant to Section 12(b) of the Act:\nCommon Stock, $5.00 Par Value\nBA\n"
              "New York Stock Exchange\n(Title of each class)\n(Trading Symbol)\n(Name of each exchange)\n"
              "Securities registered pursuant to Section 12(g) of the Act: None\n")
    assert parse_cover_page(boeing)["tickers"] == ["BA"]
    mmm = "FORM 10-K\nFor the fiscal year ended December 31, 2015\nCommission file number 1-3285\n3M COMPANY\nState of"
    assert parse_cover_page(mmm)["registrant"] == "3M COMPANY"


def test_cover_page_press_release():
    c = parse_cover_page("NEWS RELEASE\nMINNEAPOLIS, March 2, 2023 -- Best Buy Co., Inc. (NYSE: BBY) today announced")
    assert c["registrant"] == "Best Buy Co., Inc." and c["tickers"] == ["BBY"] and c["form"] == "EARNINGS"


@pytest.mark.parametrize("text", ["", None, 42, b"bytes", "garbage \x00\x01\x02 text", "(" * 10000,
                                  "(Exact name of registrant as specified in its charter)",
                                  "Trading Symbol(s)\nNYSE\nNONE", "x" * 300_000, "For the fiscal year ended February 30, 2023"])
def test_cover_page_garbage_gives_empty_fields(text):
    c = parse_cover_page(text)
    assert c["registrant"] == "" and c["tickers"] == [] and c["fiscal_year"] is None


def test_company_names_and_variants():
    assert clean_company_name("THE COCA-COLA COMPANY") == "Coca-Cola"
    assert clean_company_name("JPMorgan Chase & Co.") == "JPMorgan Chase"
    assert clean_company_name("CVS HEALTH CORPORATION") == "CVS Health"
    assert clean_company_name("AMAZON.COM, INC.") == "Amazon.com"
    assert clean_company_name("Deere & Company") == "Deere"
    v = name_variants("Coca-Cola")
    assert {"Coca-Cola", "Coca Cola", "CocaCola"} <= set(v)
    assert {"Johnson & Johnson", "Johnson and Johnson", "Johnson Johnson"} <= set(name_variants("JOHNSON & JOHNSON"))
    assert "MGM Resorts" in name_variants("MGM Resorts International")


def test_build_document_info_combines_path_and_cover(synthetic_docs):
    by_id = {d.doc_id: d for d in synthetic_docs}
    jnj = by_id["JOHNSON_JOHNSON_2022_10K"]
    assert (jnj.company, jnj.company_key, jnj.tickers, jnj.fiscal_year, jnj.form) == \
        ("Johnson & Johnson", "JOHNSON_JOHNSON", ["JNJ"], 2022, "10K")
    assert {"Johnson & Johnson", "JOHNSON JOHNSON".title(), "J&J", "JnJ"} <= set(jnj.aliases)
    assert by_id["ACTIVSIONBLIZZARD_2023Q2_10Q"].company_key == "ACTIVISIONBLIZZARD"
    assert by_id["ACTIVSIONBLIZZARD_2023Q2_10Q"].company == "Activision Blizzard"
    assert by_id["MGMRESORTS_2022_10K"].company == "MGM Resorts"
    assert by_id["BLOCK_2020_10K"].registrant == "SQUARE, INC." and "Square" in by_id["BLOCK_2020_10K"].aliases
    assert by_id["COCACOLA_2017_10K"].company == "Coca-Cola" and by_id["COCACOLA_2017_10K"].tickers == ["KO"]
    assert by_id["JOHNSON_JOHNSON_2023_8K_dated-2023-08-30"].filed_date == "2023-08-30"
    assert by_id["AAPL_2023"].company == "Apple" and by_id["AAPL_2023"].form == "10K"
    unknown = build_document_info("/x/GLOBEX_2021_10K.pdf", cover("GLOBEX INTERNATIONAL HOLDINGS, INC.", ["GLBX"]))
    assert unknown.company == "Globex International Holdings" and unknown.tickers == ["GLBX"]
    assert build_document_info("", None).doc_id == ""  # never raises


# --------------------------------------------------------------------------- #
# question parsing
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("text, years, periods", [
    ("FY2019", [2019], ["FY2019"]),
    ("FY 2019", [2019], ["FY2019"]),
    ("fiscal 2022", [2022], ["FY2022"]),
    ("fiscal year 2022", [2022], ["FY2022"]),
    ("between FY20 and FY21", [2020, 2021], ["FY2020", "FY2021"]),
    ("FY'22", [2022], ["FY2022"]),
    ("as of 2022", [2022], []),
    ("Q2 of FY2024", [2024], ["2024Q2"]),
    ("As of Q2'2023, is it", [2023], ["2023Q2"]),
    ("As of FY2023Q1, why", [2023], ["2023Q1"]),
    ("by the end by 2021 Q1", [2021], ["2021Q1"]),
    ("Q4 FY2022", [2022], ["2022Q4"]),
    ("4Q22 results", [2022], ["2022Q4"]),
    ("second quarter of fiscal 2021", [2021], ["2021Q2"]),
    ("2022 fourth quarter", [2022], ["2022Q4"]),
    ("FY2019 - FY2021 3 year average", [2019, 2021], ["FY2019", "FY2021"]),
    ("for FY 2023 occurred in Q4 of FY2023", [2023], ["FY2023", "2023Q4"]),
    ("what was revenue in Q4 compared to FY2021", [2021], ["2021Q4", "FY2021"]),
    ("five year revolving credit, 3 year average, 365 days, $2021 million, 2021%", [], []),
])
def test_year_and_period_patterns(text, years, periods):
    got_years, got_periods, _ = extract_periods(text)
    assert got_years == years and got_periods == periods, (text, got_years, got_periods)


def test_dates():
    _, _, dates = extract_periods("On May 26, 2023 and August 30, 2023 onward; 2023-08-23; 30 June 2021; Aug. 1st, 2022; "
                                  "12/31/2022; February 30, 2023 is not a date")
    assert dates == ["2023-05-26", "2023-08-30", "2023-08-23", "2021-06-30", "2022-08-01", "2022-12-31"]


def test_forms_and_cues():
    assert detect_forms("per the 10-K") == ["10K"] and detect_forms("the quarterly report") == ["10Q"]
    assert detect_forms("its 8-K filing and the earnings release") == ["8K", "EARNINGS"]
    assert detect_forms("the annual report") == ["ANNUALREPORT"]
    assert detect_forms("over 10k employees") == []
    assert question_cues("FY2022 Adjusted EBITDAR by region") == {"EARNINGS"}
    assert question_cues("unadjusted EBITDA from the cash flow statement") == set()
    assert question_cues("why did it raise full year guidance") == {"EARNINGS"}
    assert question_cues("Does the new CEO have experience?") == {"8K"}
    assert question_cues("") == set() and question_cues(None) == set()


# --------------------------------------------------------------------------- #
# linking
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("question, company", [
    ("What drove gross margin for JnJ in FY2022?", "Johnson & Johnson"),
    ("J&J's FY2022 sales", "Johnson & Johnson"),
    ("JOHNSON JOHNSON FY2022", "Johnson & Johnson"),
    ("Pfizer's PPNE in FY21", "Pfizer"),
    ("Does AMEX have an improving margin?", "American Express"),
    ("AMEX's revenue", "American Express"),
    ("registered under American Express' name as of 2022", "American Express"),
    ("What is the FY2019 - FY2020 growth rate for Block (formerly known as Square)?", "Block"),
    ("What did Square report in 2019?", "Block"),
    ("Best Buy stores in Q2 of FY2024", "Best Buy"),
    ("Coca Cola ROA", "Coca-Cola"),
    ("Coca-Cola ROA", "Coca-Cola"),
    ("MGM's interest coverage", "MGM Resorts"),
    ("Activision Blizzard FY2023", "Activision Blizzard"),
    ("Did JPM do well in 2021 Q1?", "JPMorgan Chase"),
    ("a company similar to Footlocker", "Foot Locker"),
    ("Corning", "Corning"),
])
def test_link_company_names_aliases_and_possessives(reg, question, company):
    ex = reg.link(question)
    assert company in ex.companies, (question, ex)


def test_link_longest_match_and_word_boundaries(reg):
    assert reg.link("American Express and American Water Works").companies == ["American Express",
                                                                             "American Water Works"]
    assert reg.link("an American company with a general express service").companies == []
    assert reg.link("a block of shares and a square meter").companies == []
    assert reg.link("Corningware is not Corning Incorporated").companies == ["Corning"]
    assert reg.link("3M revenue") .companies == ["3M"]
    assert reg.link("revenue of $3M in 2021").companies == []
    assert reg.link("amd").companies == []


def test_tickers_are_case_sensitive_and_english_words_do_not_match(reg):
    assert reg.link("Which of ALL the segments grew? Put ON the list.").companies == []
    assert reg.link("which of all the segments grew? put on the list").companies == []
    assert reg.link("What did ONSEMI (NASDAQ: ON) report?").tickers[:1] == ["ON"]
    assert "ON Semiconductor" in reg.link("What did $ON report?").companies or reg.link("What did $ON report?").tickers
    assert reg.link("PFE and JNJ in FY2022").tickers[:2] == ["PFE", "JNJ"]
    # issue 48: a lower-case word no English text writes ('pfe', 'jnj'), a large registrant's ticker, is that ticker;
    # lower-case English words and abbreviations still are not
    assert reg.link("pfe and jnj").tickers == ["PFE", "JNJ"]
    assert reg.link("what did it cost on all the segments, ttm and yoy?").companies == []
    assert reg.link("The EPS and EBITDA and CEO and USD and FY").companies == []


def test_link_extracts_everything(reg):
    ex = reg.link("Did Pfizer's 10-Q for Q2 of FY2023 mention the May 26, 2023 agreement?")
    assert ex.companies == ["Pfizer"] and ex.tickers == ["PFE"]
    assert ex.years == [2023] and ex.periods == ["2023Q2"] and ex.forms == ["10Q"] and ex.dates == ["2023-05-26"]


# --------------------------------------------------------------------------- #
# resolving
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("question, doc_id, status", [
    ("Did Pfizer grow its PPNE between FY20 and FY21?", "PFIZER_2021_10K", "exact_path"),
    ("Corning's FY2019 - FY2021 3 year average margin", "CORNING_2021_10K", "exact_path"),
    ("Corning: change between FY2021 and FY2019", "CORNING_2021_10K", "exact_path"),
    ("As of Q2'2023, is Pfizer spinning off segments?", "Pfizer_2023Q2_10Q", "filename_fallback"),
    ("Was there any change in the number of Best Buy stores between Q2 of FY2024 and FY2023?",
     "BESTBUY_2024Q2_10Q", "filename_fallback"),
    ("What are major acquisitions that Best Buy has done in FY2023, FY2022 and FY2021?", "BESTBUY_2023_10K",
     "filename_fallback"),
    ("What was Best Buy's non-GAAP EPS in FY2023?", "BESTBUY_2023Q4_EARNINGS", "filename_fallback"),
    ("Best Buy's FY2023 10-K: inventory", "BESTBUY_2023_10K", "filename_fallback"),
    ("Which region had the Highest EBITDAR Contribution for MGM during FY2022?", "MGMRESORTS_2022Q4_EARNINGS",
     "filename_fallback"),
    ("Has MGM Resorts paid dividends to common shareholders in FY2022?", "MGMRESORTS_2022_10K", "filename_fallback"),
    ("Did JnJ's net earnings increase in Q2 of FY2023 compared to Q2 of FY2022?", "JOHNSON_JOHNSON_2023Q2_EARNINGS",
     "exact_path"),
    ("Q4 FY2022 adjusted EPS of JnJ", "JOHNSON_JOHNSON_2022Q4_EARNINGS", "exact_path"),
    ("Which segment of JnJ is a discontinued operation from August 30, 2023 onward?",
     "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30", "filename_fallback"),
    ("What did JnJ announce on August 21, 2023?", "JOHNSON_JOHNSON_2023_8K_dated-2023-08-23", "filename_fallback"),
    ("JnJ cash as of December 31, 2022", "JOHNSON_JOHNSON_2022_10K", "filename_fallback"),
    ("If JPM went bankrupt by the end of 2021 Q1", "JPMORGAN_2021Q1_10Q", "exact_path"),
    ("What did Apple report for FY2023?", "AAPL_2023", "exact_path"),
    ("What did AAPL report in 2023?", "AAPL_2023", "exact_path"),
    ("Microsoft's FY2022 revenue", "MSFT_2022", "exact_path"),
])
def test_resolve_picks_the_best_document(reg, question, doc_id, status):
    res = route(reg, question)
    assert res.doc_ids == [doc_id], (question, res)
    assert res.status == status, (question, res)


def test_empty_and_garbage_questions(reg):
    for q in ["", "   ", None, 42, "\x00\x01", "x" * 100_000]:
        ex = reg.link(q)
        res = reg.resolve(ex, q if isinstance(q, str) else "")
        assert res.doc_ids == [] and res.status == "fallback_no_tickers"
    assert reg.resolve(None).status == "fallback_no_tickers"


def test_unknown_company_is_recognised_as_not_indexed(reg):
    """Issue 9: a company-like name the index does not hold gets its own status (no corpus fallback)."""
    res = route(reg, "What was Globex Corporation's revenue in FY2023?")
    assert res.doc_ids == [] and res.status == "company_not_indexed" and "Globex Corporation" in res.reason


def test_known_company_not_in_the_registry(reg):
    res = route(reg, "What was Tesla's revenue in FY2023?")
    assert res.doc_ids == [] and res.status == "company_not_indexed" and "Tesla" in res.reason


def test_missing_year_uses_the_default_year_or_the_latest_filing(reg):
    res = route(reg, "How much does Pfizer expect to pay to spin off Upjohn?")
    assert res.doc_ids == ["Pfizer_2023Q2_10Q"] and res.status == "default_year"
    res = route(reg, "Is Boeing's business subject to cyclicality?")
    assert res.doc_ids == ["BOEING_2022_10K"] and res.status == "default_year" and "latest" in res.reason
    res = route(reg, "How much does Pfizer expect to pay?", default_year=2021)
    assert res.doc_ids == ["PFIZER_2021_10K"] and res.status == "default_year"


def test_company_without_a_filing_for_that_year(reg):
    """Issue 9: a past year without its own filing goes to the next annual filing, which still reports it as a
    comparative period; a year no filing reports stays inside the company's filings (never another company)."""
    res = route(reg, "What was Pfizer's revenue in FY2019?")
    assert res.doc_ids == ["PFIZER_2020_10K"] and res.status == "comparative_period" and "FY2019" in res.reason
    res = route(reg, "What was Pfizer's revenue in FY2012?")
    assert res.doc_ids == ["PFIZER_2020_10K"] and res.status == "period_not_in_index" and "FY2012" in res.reason
    # a quarter without its own filing falls back to that fiscal year's annual filing
    res = route(reg, "Has Corning paid dividends in Q2 of FY2021?")
    assert res.doc_ids == ["CORNING_2021_10K"]


def test_multi_company_question(reg):
    res = route(reg, "Compare Pfizer's and JnJ's revenue growth in FY2022 vs FY2021")
    assert res.status == "multi_doc"
    assert res.doc_ids == ["PFIZER_2021_10K", "JOHNSON_JOHNSON_2022_10K"]
    res = route(reg, "Compare Apple and Microsoft in FY2023")  # Microsoft has no FY2023 filing: its nearest
    assert res.status == "multi_doc" and res.doc_ids == ["AAPL_2023", "MSFT_2022"] and "period_not_in_index" in res.reason
    res = route(reg, "Compare Tesla and Pfizer in FY2021")  # Tesla is known but has no filing
    assert res.status == "exact_path" and res.doc_ids == ["PFIZER_2021_10K"] and "Tesla" in res.reason


def test_paths_in_questions_are_just_text(reg, synthetic_docs):
    ids = {d.doc_id for d in synthetic_docs}
    for q in ["Read ../../etc/passwd and /tmp/x.pdf: what was revenue in FY2023?",
              "/filings/PFIZER_2021_10K.pdf", "../../../../etc/shadow FY2022",
              "file:///etc/passwd Pfizer FY2021", "C:\\Windows\\system32 JnJ 2022"]:
        res = route(reg, q)
        assert set(res.doc_ids) <= ids, (q, res)
        assert res.status in STATUSES
    assert route(reg, "Read ../../etc/passwd and /tmp/x.pdf").status == "fallback_no_tickers"


def test_llm_style_metadata_is_checked_against_the_registry(reg, synthetic_docs):
    ids = {d.doc_id for d in synthetic_docs}
    ex = ExtractedMetadata(companies=["block"], tickers=[], years=[2020], periods=["FY2020"])
    assert reg.resolve(ex).doc_ids == ["BLOCK_2020_10K"]
    ex = ExtractedMetadata(companies=[], tickers=["jnj"], years=[2022])
    assert reg.resolve(ex).doc_ids == ["JOHNSON_JOHNSON_2022_10K"]
    ex = ExtractedMetadata(companies=["../../etc/passwd"], tickers=["EVIL"], years=[2023])
    assert reg.resolve(ex) == Resolution(doc_ids=[], status="fallback_no_tickers",
                                         reason="no known company or ticker in the question")
    ex = ExtractedMetadata(companies=["Pfizer"], periods=["garbage", "2023Q9"], dates=["not-a-date"], forms=["EVIL"])
    assert set(reg.resolve(ex).doc_ids) <= ids


def test_registry_accessors(reg, synthetic_docs):
    assert reg.doc_ids() == sorted(d.doc_id for d in synthetic_docs)
    assert reg.get("PFIZER_2021_10K").company == "Pfizer" and reg.get("nope") is None and reg.get(None) is None
    comps = reg.companies()
    assert comps["JOHNSON_JOHNSON"] == "Johnson & Johnson" and comps["ACTIVISIONBLIZZARD"] == "Activision Blizzard"
    assert "TESLA" not in comps and len(reg) == len(synthetic_docs)


def test_keys_of_one_company_are_merged():
    docs = [build_document_info("/x/MICROSOFT_2022_10K.pdf", ""), build_document_info("/x/MICROSOFT_2021_10K.pdf", ""),
            build_document_info("/x/GLOBEXX_2021_10K.pdf", ""), build_document_info("/x/GLOBEXXX_2022_10K.pdf", ""),
            build_document_info("/x/GLOBEXX_2020_10K.pdf", "")]
    r = Registry(docs)
    assert r.company_of("GLOBEXXX_2022_10K") == r.company_of("GLOBEXX_2021_10K") == "GLOBEXX"
    assert route(r, "What did Globexx report in FY2022?").doc_ids == ["GLOBEXXX_2022_10K"]


# --------------------------------------------------------------------------- #
# user alias files
# --------------------------------------------------------------------------- #

def test_user_alias_file_csv_with_ticker_history(tmp_path, synthetic_docs):
    f = tmp_path / "aliases.csv"
    f.write_text("company_key_or_ticker,alias\n"
                 "ACME,Road Runner Supplies\n"
                 "JNJ,Band-Aid maker\n"
                 "old_ticker,new_ticker\n"
                 "OLDT,ACMX\n", encoding="utf-8")
    r = Registry(synthetic_docs, alias_file=f)
    assert route(r, "What did Road Runner Supplies report for FY2023?").doc_ids == ["ACME_2023_10K"]
    assert route(r, "What did OLDT report for FY2023?").doc_ids == ["ACME_2023_10K"]
    assert route(r, "the Band-Aid maker in FY2022").doc_ids == ["JOHNSON_JOHNSON_2022_10K"]
    base = Registry(synthetic_docs)
    assert route(base, "What did Road Runner Supplies report for FY2023?").status == "fallback_no_tickers"


def test_user_alias_file_yaml(tmp_path, synthetic_docs):
    f = tmp_path / "aliases.yaml"
    f.write_text("companies:\n"
                 "  - name: Acme\n    key: ACME\n    tickers: [ACMX]\n    aliases: [Wile E. Supplies]\n"
                 "aliases:\n  PFE: [Pfizer Inc of New York]\n"
                 "ticker_history:\n  - [ACMEOLD, ACMX]\n", encoding="utf-8")
    r = Registry(synthetic_docs, alias_file=str(f))
    assert route(r, "Wile E. Supplies in FY2023").doc_ids == ["ACME_2023_10K"]
    assert route(r, "(NYSE: ACMX) in 2023").doc_ids == ["ACME_2023_10K"]
    assert r.companies()["ACME"] == "Acme"


def test_builtin_ticker_history(reg):
    assert route(reg, "How did SQ do in FY2020?").doc_ids == ["BLOCK_2020_10K"]
    assert route(reg, "How did XYZ do in FY2019?").doc_ids == ["BLOCK_2019_10K"]
    book = builtin_aliases()
    assert ("PEAK", "DOC") in book.history and ("FB", "META") in book.history and ("SQ", "XYZ") in book.history
    meta = [build_document_info("/x/2019/FB.pdf", ""), build_document_info("/x/META_2023_10K.pdf", "")]
    r = Registry(meta)
    assert route(r, "What did META report in 2019?").doc_ids == ["FB_2019"]
    assert route(r, "Facebook's 2023 revenue").doc_ids == ["META_2023_10K"]


@pytest.mark.parametrize("content, name", [("", "empty.yaml"), ("::: not yaml [", "bad.yaml"),
                                           ("a,b,c,d\n,,,\n", "odd.csv"), ("\x00\x01", "bin.csv")])
def test_bad_alias_files_do_not_break_the_registry(tmp_path, synthetic_docs, content, name):
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    assert isinstance(load_alias_file(f).entries, list)
    r = Registry(synthetic_docs, alias_file=f)
    assert route(r, "Pfizer FY2021").doc_ids == ["PFIZER_2021_10K"]
    assert Registry(synthetic_docs, alias_file=tmp_path / "missing.csv").doc_ids()


# --------------------------------------------------------------------------- #
# the real FinanceBench subset (../shared)
# --------------------------------------------------------------------------- #

@pytest.fixture(scope="module")
def financebench():
    if not (DATA / "pdfs").is_dir() or not (DATA / "documents.jsonl").is_file():
        pytest.skip(f"FinanceBench data not found at {DATA}")
    meta = [json.loads(line) for line in (DATA / "documents.jsonl").read_text(encoding="utf-8").splitlines() if line]
    pdfs = {p.stem: p for p in (DATA / "pdfs").glob("*.pdf")}
    covers = {stem: read_cover_text(p, pages=3) for stem, p in pdfs.items()}
    infos = {stem: build_document_info(pdfs[stem], covers[stem]) for stem in pdfs}
    return meta, covers, infos


def test_every_filing_resolves_to_its_company_period_and_form(financebench):
    meta, _, infos = financebench
    assert len(meta) == len(infos) == 168
    wrong = []
    for m in meta:
        info = infos[m["doc_name"]]
        period = re.search(r"_(\d{4}(?:Q[1-4])?)_", m["doc_name"]).group(1)
        checks = {
            "company_key": squash(info.company_key) == squash(m["company"]),
            "fiscal_year": info.fiscal_year == int(m["doc_period"]),
            "period": info.period == period,
            "form": info.form == FORM_OF_DOC_TYPE[m["doc_type"].lower()],
            "filed_date": (info.filed_date is not None) == ("dated" in m["doc_name"]),
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            wrong.append((m["doc_name"], bad, info.company_key, info.fiscal_year, info.period, info.form))
    ok = len(meta) - len(wrong)
    print(f"\nfilings parsed correctly: {ok}/{len(meta)}")
    for w in wrong:
        print("  WRONG", w)
    assert not wrong


def test_cover_pages_of_the_real_filings(financebench):
    meta, covers, infos = financebench
    book = builtin_aliases()
    names = {m["doc_name"]: m["company"] for m in meta}
    with_registrant = with_table = tickers_ok = display_ok = 0
    for stem, text in covers.items():
        c = parse_cover_page(text)
        with_registrant += bool(c["registrant"])
        entry = book.entry_for(infos[stem].company_key)
        if re.search(r"trading\s+symbol", text.replace("\xa0", " "), re.I):
            with_table += 1
            tickers_ok += bool(c["tickers"]) and entry is not None and c["tickers"][0] in entry.tickers
        display_ok += squash(infos[stem].company) == squash(names[stem]) or \
            squash(names[stem]) in {squash(a) for a in infos[stem].aliases}
        if infos[stem].form == "8K":
            assert c["report_date"] and c["report_date"] <= infos[stem].filed_date, stem
        if infos[stem].form == "10K":
            assert c["fiscal_year_end"], stem
    print(f"\nregistrant found: {with_registrant}/{len(covers)}; symbol tables read: {tickers_ok}/{with_table}; "
          f"display name or alias = dataset name: {display_ok}/{len(covers)}")
    assert with_registrant >= 0.9 * len(covers)
    assert tickers_ok == with_table
    assert display_ok == len(covers)


def test_dev_questions_route_to_the_gold_filing(financebench):
    _, _, infos = financebench
    reg = Registry(list(infos.values()))
    questions = [json.loads(line) for line in (DATA / "questions_dev.jsonl").read_text(encoding="utf-8").splitlines()
                 if line]
    assert len(questions) == 86
    hits, misses, scored = 0, [], []
    for q in questions:
        res = reg.resolve(reg.link(q["question"]), q["question"])
        assert set(res.doc_ids) <= set(infos) and res.status in STATUSES
        if res.doc_ids:
            scored.append((res.confidence, res.doc_ids == [q["doc_name"]]))
        if res.doc_ids == [q["doc_name"]]:
            hits += 1
        else:
            misses.append((q["financebench_id"], q["doc_name"], res.doc_ids, res.status, q["question"][:100]))
    print(f"\ndev questions routed to the gold filing: {hits}/{len(questions)} = {hits / len(questions):.1%}")
    for lo, hi in ((0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)):  # confidence vs accuracy (issue 48)
        rs = [ok for c, ok in scored if lo <= c < hi]
        print(f"  routed with confidence {lo:.1f}-{min(hi, 1.0):.1f}: {len(rs)}, right {sum(rs)}")
    for m in misses:
        print("  MISS", m)
    assert hits >= 0.95 * len(questions)  # how fast: bench/routing_bench.py


def test_a_quarter_named_by_its_month_routes_to_the_filing_that_ends_then():
    """Oracle's fiscal year ends May 31: "the August 2024 quarter" is its fiscal 2025 Q1 10-Q (before: routed as
    fiscal 2024, a filing the index lacks); Apple's 52/53-week quarter ended June 29, 2024 is "the June 2024 quarter"."""
    def doc(doc_id, company, ticker, fy, quarter, form, end):
        return DocumentInfo(doc_id=doc_id, company=company, company_key=company.upper(), tickers=[ticker],
                            fiscal_year=fy, quarter=quarter, period=f"{fy}Q{quarter}" if quarter else str(fy),
                            form=form, period_end=end)
    reg = Registry([doc("ORCL_2025Q1_10Q", "Oracle", "ORCL", 2025, 1, "10Q", "2024-08-31"),
                    doc("ORCL_2025_10K", "Oracle", "ORCL", 2025, None, "10K", "2025-05-31"),
                    doc("AAPL_2024Q3_10Q", "Apple", "AAPL", 2024, 3, "10Q", "2024-06-29"),
                    doc("AAPL_2025Q3_10Q", "Apple", "AAPL", 2025, 3, "10Q", "2025-06-28"),
                    doc("AAPL_2024_10K", "Apple", "AAPL", 2024, None, "10K", "2024-09-28")])
    assert route(reg, "Oracle R&D intensity in the August 2024 quarter").doc_ids == ["ORCL_2025Q1_10Q"]
    assert route(reg, "Apple's net income for the June 2024 quarter versus the June 2023 quarter").doc_ids == \
        ["AAPL_2024Q3_10Q"]
    assert route(reg, "Apple's revenue in the quarter ended June 2025").doc_ids == ["AAPL_2025Q3_10Q"]


@pytest.mark.parametrize("pages, quarter, fiscal_year", [
    ("Apple Inc. | Q3 2024 Form 10-Q | 1", 3, 2024),
    ("Three Months Ended June 29, 2024 | Nine Months Ended June 29, 2024", 3, 2024),
    ("Three Months Ended | Six Months Ended", 2, 2024),
])
def test_a_10q_without_dei_says_its_quarter_on_its_pages(pages, quarter, fiscal_year):
    """Apple's 10-Q for the quarter ended June 29, 2024, its inline XBRL stripped and no year in the file name: the
    footer or the statements' longest column give the quarter, the quarter and the period end the fiscal year."""
    cover = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-Q\nQUARTERLY REPORT PURSUANT TO SECTION 13 OR "
             "15(d)\nFor the quarterly period ended June 29, 2024\nApple Inc.\n(Exact name of Registrant as specified in "
             "its charter)\n" + pages)
    info = build_document_info(Path("/filings/Apple.10-Q.html"), cover)
    assert (info.form, info.quarter, info.fiscal_year, info.period) == ("10Q", quarter, fiscal_year,
                                                                        f"{fiscal_year}Q{quarter}")
    assert info.sources["quarter"] == "cover"


def test_an_oracle_quarter_belongs_to_the_fiscal_year_it_ends_in():
    cover = ("FORM 10-Q\nFor the quarterly period ended August 31, 2024\nOracle Corporation\n(Exact name of registrant "
             "as specified in its charter)\nThree Months Ended August 31, 2024 | Three Months Ended August 31, 2023")
    info = build_document_info(Path("/filings/Oracle.10-Q.html"), cover)
    assert (info.quarter, info.fiscal_year) == (1, 2025)
