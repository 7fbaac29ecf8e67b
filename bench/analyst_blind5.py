"""Fifth blind set of hand-written analyst questions over the 15 real EDGAR filings: the final, untouched measurement.

Written blind on 2026-12-06 by a helper that read no answering code (nothing under tools, nodes, graphs, app,
state, tests, docs or runs) and none of the other blind or hand-written sets, as the final measurement: nobody
changes the system after seeing its outcome. The questions are phrased as sell-side and buy-side equity analysts,
credit analysts and financial journalists ask them (mostly plain questions, some terse or embedded in a request),
naming the company by legal name, common name or ticker and the period as a fiscal year, a quarter or a period-end
date. Gold is computed from each filing's inline XBRL at run time by `analyst_fresh.gold_of` (specs described
there), never typed in; the judge is `analyst_judge.judge`, as for the other sets.

    python bench/analyst_blind5.py --out runs/analyst_blind5.json
    python bench/analyst_blind5.py --reader-only --out runs/analyst_blind5_reader_only.json   # inline XBRL stripped
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_fresh  # noqa: E402

PRODUCT, SEGMENT, REGION = analyst_fresh.PRODUCT, analyst_fresh.SEGMENT, analyst_fresh.REGION
GROSS, OPINC, NET, RND = ("GrossProfit",), ("OperatingIncomeLoss",), ("NetIncomeLoss",), \
    ("ResearchAndDevelopmentExpense",)

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    # segment: one member's revenue, or its share of total revenue
    ("segment", "aapl-10-k-2024-11-01", "What were Apple's iPad net sales for fiscal year 2024?", ("member", "iPad")),
    ("segment", "aapl-10-k-2024-11-01", "What percentage of AAPL's total net sales in FY2024 came from iPhone?",
     ("share", "iPhone")),
    ("segment", "aapl-10-q-2025-08-01", "How much Services revenue did Apple Inc. report for the June 2025 quarter?",
     ("member", "Services")),
    ("segment", "Apple.10-Q", "Apple Greater China net sales, three months ended June 29, 2024",
     ("member", "Greater China")),
    ("segment", "amzn-10-k-2025-02-07", "What portion of Amazon's 2024 net sales came from AWS?", ("share", "AWS")),
    ("segment", "amzn-10-k-2025-02-07", "I'm updating my digital ad-market model. How much did Amazon.com, Inc. "
                                        "generate in advertising services revenue in fiscal 2024?",
     ("member", "Advertising services")),
    ("segment", "ba-10-k-2025-02-03", "What percentage of The Boeing Company's 2024 total revenues came from sales "
                                      "of services?", ("share", "Sales of services")),
    ("segment", "ba-10-k-2025-02-03", "How much revenue did Boeing generate from customers in the Middle East in "
                                      "2024?", ("member", "Middle East")),
    ("segment", "ba-10-q-2025-07-29", "What were Boeing's sales of products in the second quarter of 2025?",
     ("member", "Sales of products")),
    ("segment", "hubs-10-q-2025-08-06", "What percent of HubSpot's revenue in the quarter ended June 30, 2025 was "
                                        "subscription revenue?", ("share", "Subscription")),
    ("segment", "hubs-10-q-2025-08-06", "HUBS revenue from Europe, Q2 2025?", ("member", "Europe")),
    ("segment", "ibm-10-q-2025-07-24", "What share of IBM's second-quarter 2025 revenue came from Europe/Middle "
                                       "East/Africa?", ("share", "EMEA")),
    ("segment", "ko-10-k-2025-02-20", "What were net operating revenues for The Coca-Cola Company's Latin America "
                                      "segment in 2024?", ("member", "Latin America")),
    ("segment", "ko-10-q-2025-07-24", "Concentrate operations as a percentage of Coca-Cola's net operating revenues "
                                      "for the second quarter of 2025?", ("share", "Concentrate operations")),
    ("segment", "meta-10-k-2025-01-30", "How much revenue did Meta Platforms, Inc. generate from users in "
                                        "Asia-Pacific in 2024?", ("member", "Asia-Pacific")),
    ("segment", "tsla-10-k-2025-01-30", "How much did Tesla make from selling automotive regulatory credits in "
                                        "FY2024?", ("member", "Automotive regulatory credits")),
    ("segment", "tsla-10-q-2025-07-24", "What were Tesla's revenues from China for the three months ended June 30, "
                                        "2025?", ("member", "China")),
    ("segment", "tsla-10-q-2025-07-24", "For a client note, please give the energy generation and storage segment's "
                                        "share of Tesla, Inc.'s total revenues in Q2 2025.",
     ("share", "Energy generation and storage")),
    ("segment", "Oracle.10-Q", "What were Oracle's cloud services revenues in the first quarter of fiscal 2025?",
     ("member", "Cloud services")),
    ("segment", "Oracle.10-Q", "ORCL: Americas share of total revenues, quarter ended August 31, 2024",
     ("share", "Americas")),
    # change: percent or dollar change against a year before (10-Q: the quarter against the year-ago quarter)
    ("change", "aapl-10-k-2024-11-01", "By what percentage did Apple's operating income grow in fiscal 2024 versus "
                                       "fiscal 2023?", ("change", "operating_income")),
    ("change", "aapl-10-q-2025-08-01", "How fast did AAPL's total net sales grow year over year in the June 2025 "
                                       "quarter?", ("change", "revenue")),
    ("change", "Apple.10-Q", "What was the year-over-year percentage change in Apple Inc.'s net income for the third "
                             "quarter of fiscal 2024?", ("change", "net_income")),
    ("change", "Oracle.10-Q", "By how much did Oracle's operating income increase in dollars in the quarter ended "
                              "August 31, 2024 compared with the same quarter a year earlier?",
     ("delta", "operating_income")),
    ("change", "amzn-10-k-2025-02-07", "For our credit screen I need Amazon's growth in net cash provided by "
                                       "operating activities for 2024 over 2023, in percent.", ("change", "cfo")),
    ("change", "amzn-10-k-2025-02-07", "How much did Amazon.com's net income rise from 2023 to 2024, in dollars?",
     ("delta", "net_income")),
    ("change", "ba-10-k-2025-02-03", "By what percentage did Boeing's total revenues decline in 2024 from 2023?",
     ("change", "revenue")),
    ("change", "ba-10-q-2025-07-29", "Working on a credit update: by how much did Boeing's net loss narrow in Q2 2025 "
                                     "compared with Q2 2024, in dollars?", ("delta", "net_income")),
    ("change", "ba-10-q-2025-07-29", "BA year-over-year revenue growth, quarter ended June 30, 2025",
     ("change", "revenue")),
    ("change", "hubs-10-q-2025-08-06", "How much did HubSpot's total revenue grow, in percent, in the second quarter "
                                       "of 2025 over the second quarter of 2024?", ("change", "revenue")),
    ("change", "hubs-10-q-2025-08-06", "HubSpot, Inc. R&D expense: dollar increase in Q2 2025 versus Q2 2024?",
     ("delta", "rnd")),
    ("change", "ibm-10-q-2025-07-24", "What was the percentage change in IBM's net income in the second quarter of "
                                      "2025 versus the prior-year quarter?", ("change", "net_income")),
    ("change", "ko-10-k-2025-02-20", "By how much did Coca-Cola's operating income fall in 2024 from 2023, in "
                                     "dollars?", ("delta", "operating_income")),
    ("change", "ko-10-q-2025-07-24", "What was the year-over-year growth in KO's operating income for the quarter "
                                     "ended June 27, 2025?", ("change", "operating_income")),
    ("change", "meta-10-k-2025-01-30", "How much did Meta's diluted earnings per share increase from 2023 to 2024?",
     ("delta", "eps_diluted")),
    ("change", "tsla-10-k-2025-01-30", "In percentage terms, how much did Tesla's net income attributable to common "
                                       "stockholders fall in 2024 versus 2023?", ("change", "net_income")),
    ("change", "tsla-10-q-2025-07-24", "TSLA income from operations, % change Q2 2025 vs Q2 2024",
     ("change", "operating_income")),
    # margin: a line item over total revenue, in percent
    ("margin", "aapl-10-k-2024-11-01", "What was Apple's gross margin percentage for fiscal 2024?", ("margin", GROSS)),
    ("margin", "aapl-10-q-2025-08-01", "R&D as a percentage of net sales at Apple for the quarter ended June 28, "
                                       "2025?", ("margin", RND)),
    ("margin", "Apple.10-Q", "What was AAPL's operating margin in fiscal Q3 2024?", ("margin", OPINC)),
    ("margin", "Oracle.10-Q", "What was Oracle's operating margin for the first quarter of fiscal year 2025?",
     ("margin", OPINC)),
    ("margin", "amzn-10-k-2025-02-07", "What operating margin did Amazon.com, Inc. earn in 2024?", ("margin", OPINC)),
    ("margin", "ba-10-k-2025-02-03", "Boeing operating margin FY2024", ("margin", OPINC)),
    ("margin", "ba-10-q-2025-07-29", "What was The Boeing Company's net margin in the second quarter of 2025?",
     ("margin", NET)),
    ("margin", "hubs-10-q-2025-08-06", "What was HubSpot's gross margin in Q2 2025?", ("margin", GROSS)),
    ("margin", "hubs-10-q-2025-08-06", "Sales and marketing expense as a share of HubSpot's revenue for the three "
                                       "months ended June 30, 2025?", ("margin", ("SellingAndMarketingExpense",))),
    ("margin", "ibm-10-q-2025-07-24", "What was International Business Machines Corporation's gross profit margin "
                                      "for the June 2025 quarter?", ("margin", GROSS)),
    ("margin", "ko-10-k-2025-02-20", "What was Coca-Cola's operating margin for the year ended December 31, 2024?",
     ("margin", OPINC)),
    ("margin", "ko-10-q-2025-07-24", "What net profit margin did The Coca-Cola Company post in the second quarter "
                                     "of 2025?", ("margin", NET)),
    ("margin", "meta-10-k-2025-01-30", "How much of its 2024 revenue did Meta spend on research and development, as "
                                       "a percentage?", ("margin", RND)),
    ("margin", "tsla-10-k-2025-01-30", "Tesla gross margin, full-year 2024", ("margin", GROSS)),
    ("margin", "tsla-10-q-2025-07-24", "Can you pull TSLA's operating margin for Q2 2025 for my earnings recap?",
     ("margin", OPINC)),
    # cover: auditor, shares outstanding, public float, CIK, fiscal year end
    ("cover", "aapl-10-k-2024-11-01", "Which accounting firm served as Apple's independent registered public "
                                      "accounting firm for fiscal 2024?", ("auditor",)),
    ("cover", "ba-10-k-2025-02-03", "Who audited The Boeing Company's financial statements for 2024?", ("auditor",)),
    ("cover", "ko-10-k-2025-02-20", "Coca-Cola auditor, FY2024 10-K", ("auditor",)),
    ("cover", "amzn-10-k-2025-02-07", "What was the aggregate market value of Amazon.com, Inc.'s voting stock held "
                                      "by non-affiliates, as reported in its 2024 annual report?", ("float",)),
    ("cover", "ibm-10-k-2025-02-25", "What public float did IBM report on the cover of its FY2024 10-K?", ("float",)),
    ("cover", "tsla-10-k-2025-01-30", "Tesla non-affiliate market value per its 2024 Form 10-K cover", ("float",)),
    ("cover", "meta-10-k-2025-01-30", "How many shares of Class A common stock did Meta Platforms have outstanding "
                                      "according to the cover of its 2024 Form 10-K?", ("shares", "CommonClassA")),
    ("cover", "hubs-10-q-2025-08-06", "HUBS common shares outstanding per the cover of its Q2 2025 10-Q", ("shares",)),
    ("cover", "ibm-10-k-2025-02-25", "IBM shares outstanding per the cover of its 2024 annual report on Form 10-K",
     ("shares",)),
    ("cover", "Oracle.10-Q", "When does Oracle's fiscal year end, according to its 10-Q for the quarter ended "
                             "August 31, 2024?", ("fye",)),
    ("cover", "aapl-10-q-2025-08-01", "On what date does Apple's fiscal 2025 end, per its 10-Q for the June 2025 "
                                      "quarter?", ("fye",)),
    ("cover", "ba-10-q-2025-07-29", "What is Boeing's SEC Central Index Key, as shown in its second-quarter 2025 "
                                    "10-Q?", ("cik",)),
    # ranking: the member of an axis with the highest or lowest revenue
    ("ranking", "aapl-10-q-2025-08-01", "Which Apple product category had the lowest net sales in the June 2025 "
                                        "quarter?", ("rank", PRODUCT, "lowest")),
    ("ranking", "Apple.10-Q", "In Apple's fiscal Q3 2024, which product category generated the least net sales?",
     ("rank", PRODUCT, "lowest")),
    ("ranking", "aapl-10-k-2024-11-01", "Which of Apple Inc.'s reportable geographic segments had the smallest net "
                                        "sales in fiscal 2024?", ("rank", SEGMENT, "lowest")),
    ("ranking", "amzn-10-k-2025-02-07", "Of the individual countries Amazon breaks out in its 2024 net sales "
                                        "disclosure, which was the smallest?", ("rank", REGION, "lowest")),
    ("ranking", "ba-10-k-2025-02-03", "Which geographic region contributed the least to Boeing's revenues in 2024?",
     ("rank", REGION, "lowest")),
    ("ranking", "hubs-10-q-2025-08-06", "HubSpot's smallest region by revenue in Q2 2025?", ("rank", REGION, "lowest")),
    ("ranking", "ibm-10-q-2025-07-24", "Which geography produced the most revenue for IBM in the three months ended "
                                       "June 30, 2025?", ("rank", REGION, "highest")),
    ("ranking", "Oracle.10-Q", "Oracle's lowest-revenue geographic region in Q1 fiscal 2025?",
     ("rank", REGION, "lowest")),
    ("ranking", "ko-10-k-2025-02-20", "Which Coca-Cola operating segment had the highest net operating revenues in "
                                      "2024?", ("rank", SEGMENT, "highest")),
    ("ranking", "ko-10-q-2025-07-24", "Which of KO's operating segments reported the lowest net operating revenues "
                                      "for the quarter ended June 27, 2025?", ("rank", SEGMENT, "lowest")),
    ("ranking", "tsla-10-q-2025-07-24", "By geography, where did Tesla generate the least revenue in Q2 2025?",
     ("rank", REGION, "lowest")),
]


if __name__ == "__main__":
    sys.exit(analyst_fresh.main(asked=QUESTIONS, prefix="blind5", title="fifth blind set", doc=__doc__))
