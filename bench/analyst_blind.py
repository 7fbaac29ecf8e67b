"""Analyst questions written blind to the answerers: hand-written in analysts' phrasing over the real EDGAR filings.

Written on 2026-12-06 by a helper session that did not read the answering code (the finrag package, the bench's
question templates, ranking or dated-change questions) and did not run the system: it read only the filings, the
judge's gold kinds and `bench/analyst_fresh.py`'s question format, to measure the answerers on questions nobody
tuned them to. The phrasings are the ways equity analysts, credit analysts and journalists ask (tickers or company
names, "FY24", "fiscal 2024", "the quarter ended June 30, 2025", "YoY", "what share of", "percent of sales"), each
naming the company and the period so that the filing is identifiable. Gold is computed from each filing's inline
XBRL at run time (`analyst_fresh.gold_of`), never typed in; the classes are those of `bench/analyst_questions.py`.

    python bench/analyst_blind.py --out runs/analyst_blind.json
    python bench/analyst_blind.py --reader-only --out runs/analyst_blind_noix.json   # inline XBRL stripped

Each entry of `QUESTIONS` is (class, filing, question, gold spec), the specs being `analyst_fresh.gold_of`'s.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_fresh  # noqa: E402
from analyst_fresh import PRODUCT, REGION  # noqa: E402

AAPL24, AAPL_Q3_24, AAPL_Q3_25 = "aapl-10-k-2024-11-01", "Apple.10-Q", "aapl-10-q-2025-08-01"
AMZN24, META24, IBM24, IBM_Q2 = "amzn-10-k-2025-02-07", "meta-10-k-2025-01-30", "ibm-10-k-2025-02-25", \
    "ibm-10-q-2025-07-24"
BA24, BA_Q2, TSLA24, TSLA_Q2 = "ba-10-k-2025-02-03", "ba-10-q-2025-07-29", "tsla-10-k-2025-01-30", \
    "tsla-10-q-2025-07-24"
KO24, KO_Q2, HUBS_Q2, ORCL_Q1 = "ko-10-k-2025-02-20", "ko-10-q-2025-07-24", "hubs-10-q-2025-08-06", "Oracle.10-Q"

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    # segment: one member's revenue (product, segment or region), or its share of the total
    ("segment", AAPL24, "AAPL FY24 Services revenue", ("member", "Services")),
    ("segment", AAPL_Q3_25, "How much iPhone revenue did Apple book in the June quarter of fiscal 2025 (three months "
                            "ended June 28, 2025)?", ("member", "iPhone")),
    ("segment", AAPL_Q3_24, "Apple Europe segment net sales, fiscal Q3 2024 (quarter ended June 29, 2024)?",
     ("member", "Europe")),
    ("segment", AMZN24, "What did AWS generate in net sales for Amazon in calendar 2024?", ("member", "AWS")),
    ("segment", AMZN24, "AMZN advertising services revenue, full-year 2024", ("member", "Advertising services")),
    ("segment", AMZN24, "How big was Amazon's third-party seller services business by revenue in 2024?",
     ("member", "Third-party seller services")),
    ("segment", AMZN24, "What were Amazon's 2024 net sales attributed to Germany?", ("member", "Germany")),
    ("segment", TSLA24, "How much revenue did Tesla's energy generation and storage business bring in during FY2024?",
     ("member", "Energy generation and storage")),
    ("segment", TSLA24, "TSLA regulatory credit revenue for 2024", ("member", "Automotive regulatory credits")),
    ("segment", TSLA_Q2, "What were Tesla's China revenues in the second quarter of 2025?", ("member", "China")),
    ("segment", KO24, "Revenue from Coca-Cola's concentrate operations in 2024?", ("member", "Concentrate operations")),
    ("segment", KO_Q2, "Coke's Latin America segment net operating revenues for the quarter ended June 27, 2025",
     ("member", "Latin America")),
    ("segment", META24, "How much of Meta's 2024 revenue came from the Family of Apps segment, in dollars?",
     ("member", "Family of Apps")),
    ("segment", ORCL_Q1, "Oracle cloud services revenue in fiscal Q1 2025 (quarter ended August 31, 2024)?",
     ("member", "Cloud services")),
    ("segment", HUBS_Q2, "HUBS subscription revenue, Q2 2025", ("member", "Subscription")),
    ("segment", AAPL24, "What share of Apple's fiscal 2024 net sales came from Services?", ("share", "Services")),
    ("segment", TSLA24, "What percentage of Tesla's 2024 total revenues was generated in China?", ("share", "China")),
    ("segment", AMZN24, "AWS as a percent of Amazon's total net sales in 2024?", ("share", "AWS")),
    # change: this period against the year before (10-Q: the quarter against the year-ago quarter)
    ("change", AMZN24, "By what percentage did Amazon's net sales rise in 2024?", ("change", "revenue")),
    ("change", META24, "META FY24 net income growth YoY (%)", ("change", "net_income")),
    ("change", TSLA24, "How much did Tesla's net income attributable to common stockholders fall in 2024, in percent?",
     ("change", "net_income")),
    ("change", KO24, "Coca-Cola operating income change in fiscal 2024 vs fiscal 2023, percent", ("change",
                                                                                                  "operating_income")),
    ("change", BA24, "How much did Boeing's total revenues decline in 2024 compared with 2023, in percentage terms?",
     ("change", "revenue")),
    ("change", AAPL24, "What was the YoY change in Apple's diluted EPS for fiscal 2024?", ("change", "eps_diluted")),
    ("change", AMZN24, "How fast did Amazon's operating cash flow grow in 2024?", ("change", "cfo")),
    ("change", HUBS_Q2, "HubSpot's revenue growth in Q2 2025 versus Q2 2024?", ("change", "revenue")),
    ("change", ORCL_Q1, "What was Oracle's year-over-year total revenue growth in the first quarter of fiscal 2025?",
     ("change", "revenue")),
    ("change", IBM_Q2, "IBM net income growth, quarter ended June 30, 2025 vs the year-ago quarter",
     ("change", "net_income")),
    ("change", KO_Q2, "By how much did KO's diluted EPS grow YoY in Q2 2025, in percent?", ("change", "eps_diluted")),
    ("change", AAPL_Q3_25, "Apple's net sales growth rate for its fiscal Q3 2025 compared with the June quarter a "
                           "year earlier?", ("change", "revenue")),
    ("change", AAPL_Q3_24, "How much did Apple's net income grow year over year in the quarter ended June 29, 2024?",
     ("change", "net_income")),
    ("change", TSLA_Q2, "Tesla Q2 2025 income from operations, percent change YoY?", ("change", "operating_income")),
    ("change", META24, "In dollar terms, how much did Meta's revenue increase from 2023 to 2024?",
     ("delta", "revenue")),
    ("change", KO24, "How many dollars did Coca-Cola's cash from operations drop by in 2024 versus 2023?",
     ("delta", "cfo")),
    ("change", BA_Q2, "How much did Boeing's second-quarter 2025 revenue increase over Q2 2024, in dollars?",
     ("delta", "revenue")),
    # margin: a line item over revenue
    ("margin", AAPL24, "AAPL gross margin FY24?", ("margin", ("GrossProfit",))),
    ("margin", AAPL24, "What was Apple's operating margin for the fiscal year ended September 28, 2024?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", AAPL_Q3_24, "Apple total gross margin percentage in the third quarter of fiscal 2024?",
     ("margin", ("GrossProfit",))),
    ("margin", TSLA24, "What was Tesla's total gross margin in 2024?", ("margin", ("GrossProfit",))),
    ("margin", TSLA_Q2, "TSLA operating margin, quarter ended June 30, 2025", ("margin", ("OperatingIncomeLoss",))),
    ("margin", KO24, "Coca-Cola's net income as a percent of net operating revenues in fiscal 2024?",
     ("margin", ("NetIncomeLoss",))),
    ("margin", KO_Q2, "What gross margin did Coca-Cola post in Q2 2025?", ("margin", ("GrossProfit",))),
    ("margin", AMZN24, "What was Amazon's operating margin last fiscal year (2024)?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", META24, "Meta net margin for fiscal 2024", ("margin", ("NetIncomeLoss",))),
    ("margin", META24, "How much did Meta spend on R&D as a percent of revenue in 2024?",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", HUBS_Q2, "What was HubSpot's gross margin in the second quarter of 2025?", ("margin", ("GrossProfit",))),
    ("margin", IBM_Q2, "IBM gross profit margin for the three months ended June 30, 2025?", ("margin",
                                                                                            ("GrossProfit",))),
    ("margin", ORCL_Q1, "Oracle's operating margin in its fiscal 2025 first quarter?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", BA_Q2, "What was Boeing's gross margin (revenues less total costs and expenses) in Q2 2025?",
     ("margin", ("GrossProfit",))),
    # cover: auditor and other cover-page facts
    ("cover", AAPL24, "Who audits Apple? Name the accounting firm on its fiscal 2024 10-K.", ("auditor",)),
    ("cover", AMZN24, "Amazon's registered public accounting firm for 2024?", ("auditor",)),
    ("cover", BA24, "Which firm signed the audit opinion on Boeing's 2024 financial statements?", ("auditor",)),
    ("cover", KO24, "Who was Coca-Cola's independent auditor for fiscal year 2024?", ("auditor",)),
    ("cover", HUBS_Q2, "How many HubSpot common shares were outstanding per the cover of its Q2 2025 10-Q?",
     ("shares",)),
    ("cover", ORCL_Q1, "Oracle's share count outstanding as reported on the cover of its 10-Q for the quarter ended "
                       "August 31, 2024?", ("shares",)),
    ("cover", BA24, "Number of Boeing shares outstanding as of the cover date of its FY2024 annual report?",
     ("shares",)),
    ("cover", AMZN24, "What was the aggregate market value of Amazon stock held by non-affiliates, per its 2024 "
                      "10-K?", ("float",)),
    ("cover", TSLA24, "Tesla public float as disclosed in the FY2024 10-K?", ("float",)),
    ("cover", AAPL24, "What is Apple's SEC CIK number, per its fiscal 2024 10-K?", ("cik",)),
    ("cover", IBM24, "IBM's public float as of June 30, 2024, per the 10-K for fiscal 2024?", ("float",)),
    ("cover", AAPL24, "On what date did Apple's fiscal year 2024 end?", ("fye",)),
    ("cover", ORCL_Q1, "According to Oracle's 10-Q for the quarter ended August 31, 2024, on what date does its "
                       "fiscal year end?", ("fye",)),
    # ranking: the member of an axis with the highest or lowest revenue
    ("ranking", AAPL_Q3_25, "Which Apple hardware category had the weakest net sales in the quarter ended June 28, "
                            "2025?", ("rank", PRODUCT, "lowest")),
    ("ranking", AAPL24, "What was Apple's smallest product category by net sales in fiscal 2024?",
     ("rank", PRODUCT, "lowest")),
    ("ranking", AAPL_Q3_24, "Which Apple product line posted the lowest net sales in fiscal Q3 2024?",
     ("rank", PRODUCT, "lowest")),
    ("ranking", AMZN24, "Of the countries Amazon breaks out, which had the smallest net sales in 2024?",
     ("rank", REGION, "lowest")),
    ("ranking", TSLA24, "In which of its reported geographies did Tesla generate the least revenue in 2024?",
     ("rank", REGION, "lowest")),
    ("ranking", META24, "Meta's largest geographic region by revenue in 2024?", ("rank", REGION, "highest")),
    ("ranking", HUBS_Q2, "For HubSpot's second quarter of 2025, which geographic region brought in the least "
                         "revenue?", ("rank", REGION, "lowest")),
    ("ranking", ORCL_Q1, "Which Oracle region contributed the least revenue in Q1 fiscal 2025?",
     ("rank", REGION, "lowest")),
    ("ranking", IBM_Q2, "Which geography was IBM's biggest by revenue in the second quarter of 2025?",
     ("rank", REGION, "highest")),
    ("ranking", BA24, "Which region outside the U.S. accounted for the smallest share of Boeing's 2024 revenues?",
     ("rank", REGION, "lowest")),
]


if __name__ == "__main__":
    sys.exit(analyst_fresh.main(asked=QUESTIONS, prefix="blind", title="blind hand-written questions", doc=__doc__))
