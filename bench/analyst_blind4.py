"""Fourth blind set of hand-written analyst questions over the 15 real SEC inline-XBRL filings, gold from XBRL facts.

Written blind on 2026-12-06 by a helper that read no answering code (tools, nodes, graphs, app, state, tests, docs,
runs) and none of the other blind sets (`bench/analyst_blind*.py`, `analyst_ranking.py`, `analyst_dated.py`), nor the
question templates of `bench/analyst_questions.py`; only `bench/analyst_fresh.py` (its spec format and `gold_of`),
`bench/analyst_judge.states_gold`, `bench/edgar_real.py`'s `CONCEPTS` and `_gold`, and the filings' facts.
The classes and gold specs are `analyst_fresh`'s (segment: member revenue and member share of total; change: percent
and dollar changes against the year-ago period; margin: line item over revenue; cover: auditor, shares outstanding,
public float, CIK, fiscal year end; ranking: highest or lowest member of a product, segment or geographic axis).
Gold is computed from each filing's inline XBRL at run time (`analyst_fresh.gold_of`), never typed in.

    python bench/analyst_blind4.py --out runs/analyst_blind4.json
    python bench/analyst_blind4.py --reader-only --out runs/analyst_blind4_noix.json   # inline XBRL stripped
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_fresh  # noqa: E402

PRODUCT, SEGMENT, REGION = analyst_fresh.PRODUCT, analyst_fresh.SEGMENT, analyst_fresh.REGION
AAPL_Q3_24, ORCL_Q1_25, AAPL_K = "Apple.10-Q", "Oracle.10-Q", "aapl-10-k-2024-11-01"
AAPL_Q3_25, AMZN_K, BA_K, BA_Q = "aapl-10-q-2025-08-01", "amzn-10-k-2025-02-07", "ba-10-k-2025-02-03", \
    "ba-10-q-2025-07-29"
HUBS_Q, IBM_K, IBM_Q, KO_K = "hubs-10-q-2025-08-06", "ibm-10-k-2025-02-25", "ibm-10-q-2025-07-24", \
    "ko-10-k-2025-02-20"
KO_Q, META_K, TSLA_K, TSLA_Q = "ko-10-q-2025-07-24", "meta-10-k-2025-01-30", "tsla-10-k-2025-01-30", \
    "tsla-10-q-2025-07-24"

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    # --- segment: one member's revenue
    ("segment", AAPL_Q3_24, "In Apple's third quarter of fiscal 2024 (the three months ended June 29, 2024), what did "
                            "iPad net sales come to?", ("member", "iPad")),
    ("segment", ORCL_Q1_25, "I'm updating my ORCL model: what were Oracle's cloud services revenues in Q1 of fiscal "
                            "2025, the quarter ended August 31, 2024?", ("member", "Cloud services")),
    ("segment", AAPL_K, "For fiscal year 2024, how much revenue did Apple Inc. generate from Wearables, Home and "
                        "Accessories?", ("member", "Wearables, Home and Accessories")),
    ("segment", AAPL_Q3_25, "What were AAPL's Rest of Asia Pacific segment net sales in the fiscal third quarter of "
                            "2025?", ("member", "Rest of Asia Pacific")),
    ("segment", AMZN_K, "For my memo on Amazon's ad business, I need the advertising services sales that Amazon.com, "
                        "Inc. reported for full-year 2024.", ("member", "Advertising services")),
    ("segment", AMZN_K, "How much of Amazon's 2024 net sales came from Germany?", ("member", "Germany")),
    ("segment", BA_K, "In 2024, what revenue did Boeing book from customers in the Middle East?",
     ("member", "Middle East")),
    ("segment", BA_Q, "Boeing Q2 2025, sales of services: what was the figure for the quarter ended June 30, 2025?",
     ("member", "Sales of services")),
    ("segment", HUBS_Q, "What revenue did HubSpot, Inc. generate in Europe during the second quarter of 2025?",
     ("member", "Europe")),
    ("segment", IBM_Q, "How much financing revenue did International Business Machines Corporation report for the "
                       "three months ended June 30, 2025?", ("member", "Financing")),
    ("segment", KO_K, "What were net operating revenues of Coca-Cola's Bottling Investments segment in fiscal 2024?",
     ("member", "Bottling Investments")),
    ("segment", TSLA_Q, "During Q2 2025, how much did Tesla take in from automotive regulatory credits?",
     ("member", "Automotive regulatory credits")),
    # --- segment: one member's share of total revenue
    ("segment", AAPL_K, "What percentage of Apple's fiscal 2024 total net sales came from Greater China?",
     ("share", "Greater China")),
    ("segment", AMZN_K, "AWS as a share of Amazon's total 2024 net sales: what's the percentage?", ("share", "AWS")),
    ("segment", META_K, "For calendar 2024, what proportion of Meta Platforms' revenue was generated in Europe?",
     ("share", "Europe")),
    ("segment", TSLA_K, "I'm sizing Tesla's China exposure. What fraction of TSLA's FY2024 revenues came from China, "
                        "in percent?", ("share", "China")),
    ("segment", KO_K, "In 2024, concentrate operations accounted for what percentage of The Coca-Cola Company's net "
                      "operating revenues?", ("share", "Concentrate operations")),
    ("segment", HUBS_Q, "What share of HubSpot's Q2 2025 revenue was earned in the Americas?", ("share", "Americas")),
    ("segment", IBM_Q, "Europe/Middle East/Africa represented what percent of IBM's total revenue in the second "
                       "quarter of 2025?", ("share", "EMEA")),
    ("segment", AAPL_Q3_25, "What portion of Apple's fiscal Q3 2025 net sales did the iPhone account for?",
     ("share", "iPhone")),
    ("segment", ORCL_Q1_25, "For the first quarter of fiscal 2025, what percentage of Oracle Corporation's total "
                            "revenues came from the Americas?", ("share", "Americas")),
    # --- change: percent and dollar, against the year-ago period
    ("change", AAPL_Q3_24, "By what percentage did Apple's total net sales grow in the June 2024 quarter (fiscal Q3 "
                           "2024) versus the same quarter a year earlier?", ("change", "revenue")),
    ("change", ORCL_Q1_25, "Oracle Q1 FY2025: how much did operating income increase year over year, in percent?",
     ("change", "operating_income")),
    ("change", ORCL_Q1_25, "How much more did Oracle spend on capital expenditures in the first quarter of fiscal 2025 "
                           "than in the first quarter of fiscal 2024?", ("delta", "capex")),
    ("change", AAPL_K, "In fiscal 2024, by how much did Apple Inc.'s net income change from fiscal 2023, in "
                       "percentage terms?", ("change", "net_income")),
    ("change", AAPL_K, "How many dollars more did Apple spend on research and development in FY2024 compared with "
                       "FY2023?", ("delta", "rnd")),
    ("change", AAPL_Q3_25, "For Apple's third fiscal quarter of 2025, how much did diluted earnings per share change "
                           "from the prior-year quarter?", ("delta", "eps_diluted")),
    ("change", AMZN_K, "What was the year-on-year growth rate of Amazon.com's income from operations for 2024?",
     ("change", "operating_income")),
    ("change", AMZN_K, "I'm building a cash flow bridge for AMZN. By how much did operating cash flow increase in "
                       "2024 versus 2023?", ("delta", "cfo")),
    ("change", BA_K, "Boeing's top line fell in 2024. By what percentage did total revenues decline from 2023?",
     ("change", "revenue")),
    ("change", BA_K, "How much wider was The Boeing Company's net loss in fiscal 2024 than in fiscal 2023, in "
                     "dollars?", ("delta", "net_income")),
    ("change", BA_Q, "For the second quarter of 2025, what was the dollar change in Boeing's operating loss compared "
                     "with Q2 2024?", ("delta", "operating_income")),
    ("change", HUBS_Q, "What was HubSpot's year-over-year revenue growth in the quarter ended June 30, 2025?",
     ("change", "revenue")),
    ("change", IBM_Q, "For IBM's Q2 2025, what was the percentage change in net earnings against Q2 2024?",
     ("change", "net_income")),
    ("change", KO_K, "In fiscal 2024, how did Coca-Cola's operating income move in percent relative to 2023?",
     ("change", "operating_income")),
    ("change", KO_Q, "KO's net income for the second quarter of 2025 was how much higher than in the second quarter "
                     "of 2024?", ("delta", "net_income")),
    ("change", META_K, "What was the percentage increase in Meta's diluted EPS from 2023 to 2024?",
     ("change", "eps_diluted")),
    ("change", TSLA_K, "Tesla's bottom line for 2024: by what percentage did net income attributable to common "
                       "stockholders change compared with 2023?", ("change", "net_income")),
    ("change", TSLA_Q, "What's the dollar decline in Tesla, Inc.'s income from operations in Q2 2025 versus Q2 2024?",
     ("delta", "operating_income")),
    # --- margin / ratio: line item over revenue
    ("margin", AAPL_Q3_24, "What was Apple's gross margin percentage for the quarter ended June 29, 2024?",
     ("margin", ("GrossProfit",))),
    ("margin", ORCL_Q1_25, "Oracle Corporation's operating margin for Q1 of fiscal 2025?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", AAPL_K, "For fiscal 2024, what were Apple's selling, general and administrative expenses as a "
                       "percentage of net sales?", ("margin", ("SellingGeneralAndAdministrativeExpense",))),
    ("margin", AAPL_Q3_25, "In Apple's June quarter of fiscal 2025 (Q3), what was EBIT as a percent of revenue?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", AMZN_K, "For 2024, what operating profit margin did Amazon post?", ("margin", ("OperatingIncomeLoss",))),
    ("margin", BA_K, "What was Boeing's operating margin in fiscal year 2024, given its loss from operations?",
     ("margin", ("OperatingIncomeLoss",))),
    ("margin", BA_Q, "Net loss as a percentage of revenue for The Boeing Company in the three months ended June 30, "
                     "2025?", ("margin", ("NetIncomeLoss",))),
    ("margin", HUBS_Q, "What was HubSpot's R&D spend as a share of revenue in Q2 2025?",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", HUBS_Q, "HubSpot, Inc.'s gross margin for the three months ended June 30, 2025?",
     ("margin", ("GrossProfit",))),
    ("margin", IBM_Q, "IBM's gross profit margin for the second quarter of 2025?", ("margin", ("GrossProfit",))),
    ("margin", KO_K, "What net margin did Coca-Cola earn in 2024?", ("margin", ("NetIncomeLoss",))),
    ("margin", KO_Q, "For Coca-Cola's Q2 2025, selling, general and administrative expenses were what percent of net "
                     "operating revenues?", ("margin", ("SellingGeneralAndAdministrativeExpense",))),
    ("margin", META_K, "How much of Meta Platforms, Inc.'s 2024 revenue went to research and development, as a "
                       "percentage?", ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", TSLA_K, "What was Tesla's total gross margin for fiscal 2024?", ("margin", ("GrossProfit",))),
    ("margin", TSLA_Q, "For my note on TSLA's Q2 2025 results, I need the operating margin for the quarter.",
     ("margin", ("OperatingIncomeLoss",))),
    # --- cover page
    ("cover", BA_K, "Which accounting firm issued the audit opinion on Boeing's fiscal 2024 financial statements?",
     ("auditor",)),
    ("cover", KO_K, "Who served as The Coca-Cola Company's independent registered public accounting firm for its 2024 "
                    "annual report?", ("auditor",)),
    ("cover", AMZN_K, "For the 2024 Form 10-K, who is Amazon's auditor?", ("auditor",)),
    ("cover", AAPL_K, "On what date did Apple's fiscal year 2024 end?", ("fye",)),
    ("cover", ORCL_Q1_25, "Per Oracle's 10-Q for the first quarter of fiscal 2025, on what month and day does its "
                          "fiscal year end?", ("fye",)),
    ("cover", META_K, "How many shares of Class A common stock did Meta Platforms have outstanding as of the cover date "
                      "of its fiscal 2024 10-K?", ("shares", "CommonClassA")),
    ("cover", HUBS_Q, "As reported on the cover of HubSpot's 10-Q for the quarter ended June 30, 2025, how many common "
                      "shares were outstanding?", ("shares",)),
    ("cover", ORCL_Q1_25, "How many shares of ORCL common stock were outstanding per the cover of Oracle's "
                          "first-quarter fiscal 2025 10-Q?", ("shares",)),
    ("cover", IBM_K, "What was the aggregate market value of IBM's common stock held by non-affiliates, as disclosed in "
                     "its 2024 10-K?", ("float",)),
    ("cover", TSLA_K, "Tesla's public float as reported in its annual report for fiscal 2024?", ("float",)),
    ("cover", HUBS_Q, "What is HubSpot's SEC Central Index Key, as shown on its Q2 2025 10-Q?", ("cik",)),
    ("cover", KO_Q, "I need Coca-Cola's CIK number for an EDGAR pull. What is it on the second-quarter 2025 10-Q?",
     ("cik",)),
    # --- ranking: highest or lowest member of an axis
    ("ranking", AAPL_Q3_24, "Of Apple's reportable segments, which had the smallest net sales in the third quarter of "
                            "fiscal 2024?", ("rank", SEGMENT, "lowest")),
    ("ranking", ORCL_Q1_25, "For Oracle's fiscal Q1 2025, which geographic region contributed the least revenue?",
     ("rank", REGION, "lowest")),
    ("ranking", AAPL_K, "Among Apple Inc.'s product and service categories in fiscal 2024, which one had the lowest "
                        "net sales?", ("rank", PRODUCT, "lowest")),
    ("ranking", AAPL_Q3_25, "Which Apple geographic segment posted the largest net sales in Q3 of fiscal 2025?",
     ("rank", SEGMENT, "highest")),
    ("ranking", AMZN_K, "Which of Amazon.com's three reportable segments was the smallest by net sales in 2024?",
     ("rank", SEGMENT, "lowest")),
    ("ranking", BA_K, "In 2024, which customer region accounted for the least of Boeing's revenues?",
     ("rank", REGION, "lowest")),
    ("ranking", HUBS_Q, "Where did HubSpot generate the least revenue in Q2 2025? Which geographic region?",
     ("rank", REGION, "lowest")),
    ("ranking", IBM_Q, "Which geography was IBM's largest source of revenue in the quarter ended June 30, 2025?",
     ("rank", REGION, "highest")),
    ("ranking", KO_Q, "Which of Coca-Cola's operating segments generated the highest net operating revenues in Q2 "
                      "2025?", ("rank", SEGMENT, "highest")),
    ("ranking", TSLA_Q, "Which geographic area contributed the least to Tesla's revenues in the second quarter of "
                        "2025?", ("rank", REGION, "lowest")),
    ("ranking", TSLA_K, "Tesla, Inc. FY2024: which market delivered the biggest slice of total revenues?",
     ("rank", REGION, "highest")),
]

if __name__ == "__main__":
    sys.exit(analyst_fresh.main(asked=QUESTIONS, prefix="blind4", title="fourth blind set", doc=__doc__))
