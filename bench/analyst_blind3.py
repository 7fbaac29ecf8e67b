"""Third blind set of hand-written analyst questions over the 15 real EDGAR filings, gold from their inline XBRL.

Written blind on 2026-12-06 by a helper that read no answering code (nothing under tools, nodes, graphs, app, state,
tests, docs or runs) and neither of the other blind sets (`bench/analyst_blind.py`, `bench/analyst_blind2.py`), nor
`bench/analyst_ranking.py`, `bench/analyst_dated.py` or the question templates of `bench/analyst_questions.py`. The
phrasings imitate three people at a research terminal: a portfolio manager in a hurry (tickers, fragments,
abbreviations), a credit analyst writing formal full sentences, and a retail investor or journalist in plain words.
Classes: segment (a member's revenue or its share of total revenue), change (percent or dollar, a 10-Q's quarter
against the year-ago quarter), margin (operating, net, gross, R&D or SG&A over revenue), cover (auditor, shares
outstanding, public float, CIK, fiscal year end) and ranking (the highest or lowest member of a product, segment or
geographic axis). Gold is computed at run time by `analyst_fresh.gold_of` from each filing's facts, never typed in;
the judge is `analyst_judge.judge`, as for `bench/analyst_fresh.py`.

    python bench/analyst_blind3.py --out runs/analyst_blind3.json
    python bench/analyst_blind3.py --reader-only --out runs/analyst_blind3_noix.json   # inline XBRL stripped
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_fresh  # noqa: E402

PRODUCT, SEGMENT, REGION = analyst_fresh.PRODUCT, analyst_fresh.SEGMENT, analyst_fresh.REGION

AAPL_K, AAPL_Q24, AAPL_Q25 = "aapl-10-k-2024-11-01", "Apple.10-Q", "aapl-10-q-2025-08-01"
AMZN_K, ORCL_Q, HUBS_Q = "amzn-10-k-2025-02-07", "Oracle.10-Q", "hubs-10-q-2025-08-06"
BA_K, BA_Q, IBM_K, IBM_Q = "ba-10-k-2025-02-03", "ba-10-q-2025-07-29", "ibm-10-k-2025-02-25", "ibm-10-q-2025-07-24"
KO_K, KO_Q, META_K = "ko-10-k-2025-02-20", "ko-10-q-2025-07-24", "meta-10-k-2025-01-30"
TSLA_K, TSLA_Q = "tsla-10-k-2025-01-30", "tsla-10-q-2025-07-24"

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    # segment: one member's revenue
    ("segment", AAPL_Q25, "AAPL FQ3'25 services rev", ("member", "Services")),
    ("segment", AAPL_Q24, "Please state the net sales attributable to Apple Inc.'s Greater China reportable segment "
                          "for the fiscal quarter ended June 29, 2024.", ("member", "Greater China")),
    ("segment", AMZN_K, "How much money did Amazon make from selling ads in 2024?", ("member", "Advertising services")),
    ("segment", AMZN_K, "AMZN FY24 International segment net sales", ("member", "International")),
    ("segment", TSLA_K, "Please provide Tesla, Inc.'s revenue from energy generation and storage for the fiscal year "
                        "ended December 31, 2024.", ("member", "Energy generation and storage")),
    ("segment", TSLA_Q, "How much did Tesla get from selling regulatory credits in the second quarter of 2025?",
     ("member", "Automotive regulatory credits")),
    ("segment", ORCL_Q, "ORCL 1Q FY25 cloud services revenue", ("member", "Cloud services")),
    ("segment", HUBS_Q, "Please report HubSpot, Inc.'s subscription revenue for the three months ended June 30, 2025.",
     ("member", "Subscription")),
    ("segment", IBM_Q, "How much revenue did IBM bring in from the Americas in Q2 2025?", ("member", "Americas")),
    ("segment", BA_K, "BA 2024 revs from Middle East customers", ("member", "Middle East")),
    ("segment", KO_Q, "Please state The Coca-Cola Company's net operating revenues from concentrate operations for the "
                      "second quarter of 2025.", ("member", "Concentrate operations")),
    # segment: one member's share of total revenue
    ("segment", AAPL_K, "What fraction of Apple's fiscal 2024 sales came from the iPhone, in percent?",
     ("share", "iPhone")),
    ("segment", AMZN_K, "AWS % of total AMZN net sales, FY2024", ("share", "AWS")),
    ("segment", TSLA_Q, "Please calculate the proportion of Tesla's total revenues for the quarter ended June 30, 2025 "
                        "that was derived from China.", ("share", "China")),
    ("segment", META_K, "What percent of Meta's 2024 revenue came from the Asia-Pacific region?",
     ("share", "Asia-Pacific")),
    ("segment", HUBS_Q, "HUBS Q2'25 Europe as % of rev", ("share", "Europe")),
    ("segment", KO_K, "Please indicate the percentage of Coca-Cola's consolidated net operating revenues for fiscal "
                      "year 2024 that was generated in the United States.", ("share", "United States")),
    ("segment", BA_K, "How much of Boeing's 2024 revenue came from services rather than products, as a percentage?",
     ("share", "Sales of services")),
    # change: percent
    ("change", META_K, "META FY24 rev growth y/y %", ("change", "revenue")),
    ("change", AMZN_K, "Please provide the percentage change in Amazon.com, Inc.'s net income for the fiscal year "
                       "ended December 31, 2024 relative to the prior fiscal year.", ("change", "net_income")),
    ("change", KO_Q, "KO 2Q25 op income chg vs 2Q24, %", ("change", "operating_income")),
    ("change", HUBS_Q, "By what percent did HubSpot's revenue grow in the second quarter of 2025 compared with the same "
                       "quarter a year before?", ("change", "revenue")),
    ("change", ORCL_Q, "Please state the percentage change in Oracle Corporation's capital expenditures for the first "
                       "quarter of fiscal 2025 relative to the first quarter of fiscal 2024.", ("change", "capex")),
    ("change", BA_K, "How much did Boeing's revenue shrink in 2024 compared with 2023, in percent?", ("change", "revenue")),
    ("change", IBM_Q, "IBM 2Q25 net income growth yoy", ("change", "net_income")),
    ("change", AAPL_K, "Please provide the percentage change in Apple Inc.'s operating income for fiscal year 2024 "
                       "compared with fiscal year 2023.", ("change", "operating_income")),
    ("change", KO_K, "How much did Coca-Cola's cash from operations fall in 2024 versus 2023, in percentage terms?",
     ("change", "cfo")),
    ("change", BA_Q, "BA 2Q25 revenue up how much % yoy", ("change", "revenue")),
    # change: dollars
    ("change", TSLA_K, "How many dollars less did Tesla earn in net income in 2024 than in 2023?",
     ("delta", "net_income")),
    ("change", AAPL_Q25, "What was the dollar increase in Apple's net sales for the three months ended June 28, 2025 "
                         "compared with the three months ended June 29, 2024?", ("delta", "revenue")),
    ("change", ORCL_Q, "ORCL Q1 FY25 diluted EPS, $ change vs Q1 FY24", ("delta", "eps_diluted")),
    ("change", BA_Q, "Please provide the change, in U.S. dollars, in The Boeing Company's net loss for the three months "
                     "ended June 30, 2025 compared with the three months ended June 30, 2024.", ("delta", "net_income")),
    ("change", META_K, "How much more did Meta spend on research and development in 2024 than in 2023?",
     ("delta", "rnd")),
    ("change", AMZN_K, "AMZN '24 capex increase in $", ("delta", "capex")),
    # margin / ratio
    ("margin", AAPL_K, "AAPL FY24 gross mgn", ("margin", ("GrossProfit",))),
    ("margin", TSLA_K, "Please compute Tesla, Inc.'s operating margin for the fiscal year ended December 31, 2024.",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", HUBS_Q, "What share of its revenue did HubSpot spend on research and development in Q2 2025?",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", ORCL_Q, "ORCL 1QFY25 net mgn", ("margin", ("NetIncomeLoss",))),
    ("margin", IBM_Q, "Please provide International Business Machines Corporation's gross profit margin for the quarter "
                      "ended June 30, 2025.", ("margin", ("GrossProfit",))),
    ("margin", KO_K, "What percentage of Coca-Cola's 2024 revenue went to selling, general and administrative costs?",
     ("margin", ("SellingGeneralAndAdministrativeExpense",))),
    ("margin", KO_Q, "KO Q2 2025 GM %", ("margin", ("GrossProfit",))),
    ("margin", META_K, "Please state Meta Platforms, Inc.'s research and development expense as a percentage of total "
                       "revenue for fiscal year 2024.", ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", BA_K, "How big was Boeing's operating loss in 2024 as a percent of its revenue?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", AAPL_Q24, "Please compute Apple Inc.'s operating margin for the third quarter of fiscal 2024, the quarter "
                         "ended June 29, 2024.", ("margin", ("OperatingIncomeLoss",))),
    ("margin", AMZN_K, "Out of every dollar of sales in 2024, what percent did Amazon keep as operating profit?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", IBM_Q, "IBM Q2'25 SG&A as % of revenue", ("margin", ("SellingGeneralAndAdministrativeExpense",))),
    ("margin", BA_Q, "Please provide The Boeing Company's net margin for the three months ended June 30, 2025.",
     ("margin", ("NetIncomeLoss",))),
    ("margin", AAPL_Q25, "What percent of its sales did Apple put into R&D in its fiscal third quarter of 2025?",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    # cover
    ("cover", KO_K, "KO FY24 auditor?", ("auditor",)),
    ("cover", BA_K, "Please identify the independent registered public accounting firm that audited The Boeing "
                    "Company's consolidated financial statements for fiscal year 2024.", ("auditor",)),
    ("cover", AMZN_K, "Which accounting firm checked Amazon's books for 2024?", ("auditor",)),
    ("cover", HUBS_Q, "HUBS shs outstanding per 2Q25 10-Q cover", ("shares",)),
    ("cover", ORCL_Q, "Please state the number of shares of common stock outstanding as reported on the cover page of "
                      "Oracle Corporation's Form 10-Q for the quarter ended August 31, 2024.", ("shares",)),
    ("cover", META_K, "How many Class A shares did Meta have outstanding, according to its annual report for 2024?",
     ("shares", "CommonClassA")),
    ("cover", TSLA_K, "TSLA public float per FY24 10-K", ("float",)),
    ("cover", IBM_K, "Please provide the aggregate market value of IBM's voting stock held by non-affiliates as disclosed "
                     "in its annual report for fiscal year 2024.", ("float",)),
    ("cover", BA_Q, "What's Boeing's CIK number, as shown on its 10-Q for the second quarter of 2025?", ("cik",)),
    ("cover", ORCL_Q, "ORCL FYE date (1Q FY25 10-Q)", ("fye",)),
    ("cover", AAPL_Q25, "Please state the fiscal year-end date reported by Apple Inc. in its Form 10-Q for the third "
                        "quarter of fiscal 2025.", ("fye",)),
    ("cover", AAPL_Q24, "How many Apple shares were outstanding according to its quarterly report for the June 2024 "
                        "quarter (fiscal Q3 2024)?", ("shares",)),
    # ranking
    ("ranking", AAPL_Q24, "AAPL FQ3'24 (June qtr) smallest product category by rev", ("rank", PRODUCT, "lowest")),
    ("ranking", AAPL_Q25, "Please identify which of Apple Inc.'s reportable segments generated the lowest net sales "
                          "for the fiscal quarter ended June 28, 2025.", ("rank", SEGMENT, "lowest")),
    ("ranking", AMZN_K, "Of the countries Amazon names in its 2024 sales breakdown, which one had the smallest sales?",
     ("rank", REGION, "lowest")),
    ("ranking", BA_K, "BA FY24 smallest region by revenue", ("rank", REGION, "lowest")),
    ("ranking", HUBS_Q, "Please identify the geographic region that contributed the most revenue to HubSpot, Inc. for "
                        "the three months ended June 30, 2025.", ("rank", REGION, "highest")),
    ("ranking", IBM_Q, "Which part of the world brought IBM the least revenue in Q2 2025?", ("rank", REGION, "lowest")),
    ("ranking", KO_Q, "Please identify the operating segment of The Coca-Cola Company with the lowest net operating "
                      "revenues for the three months ended June 27, 2025.", ("rank", SEGMENT, "lowest")),
    ("ranking", TSLA_Q, "Which of Tesla's revenue lines was the smallest in the second quarter of 2025?",
     ("rank", PRODUCT, "lowest")),
    ("ranking", META_K, "META FY24 largest geography by revenue", ("rank", REGION, "highest")),
    ("ranking", TSLA_K, "In which country did Tesla make the most revenue in 2024?", ("rank", REGION, "highest")),
]

if __name__ == "__main__":
    sys.exit(analyst_fresh.main(asked=QUESTIONS, prefix="blind3", title="third blind set", doc=__doc__))
