"""Second blind set of hand-written analyst questions over the 15 real SEC inline-XBRL filings (issue 33).

Written blind on 2026-12-06 by a helper that read no answering code (nothing under tools, nodes, graphs, app,
state, tests or docs, nor the question templates of `bench/analyst_questions.py`) and not the first blind set
(`bench/analyst_blind.py`): phrasings in the way sell-side analysts, portfolio managers, credit analysts and
journalists type into a research tool, over segment revenue and mix, year-over-year changes (percent and dollars),
margins and expense ratios, cover-page facts and rankings of members. Gold is computed from each filing's inline
XBRL at run time by `analyst_fresh.gold_of` (the specs its docstring lists), never typed in.

    python bench/analyst_blind2.py --out runs/analyst_blind2.json
    python bench/analyst_blind2.py --reader-only --out runs/analyst_blind2_noix.json   # inline XBRL stripped
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analyst_fresh  # noqa: E402

PRODUCT, SEGMENT, REGION = analyst_fresh.PRODUCT, analyst_fresh.SEGMENT, analyst_fresh.REGION
AAPL_K, AAPL_Q24, AAPL_Q25 = "aapl-10-k-2024-11-01", "Apple.10-Q", "aapl-10-q-2025-08-01"
AMZN_K, META_K, ORCL_Q, HUBS_Q = "amzn-10-k-2025-02-07", "meta-10-k-2025-01-30", "Oracle.10-Q", "hubs-10-q-2025-08-06"
TSLA_K, TSLA_Q = "tsla-10-k-2025-01-30", "tsla-10-q-2025-07-24"
KO_K, KO_Q = "ko-10-k-2025-02-20", "ko-10-q-2025-07-24"
BA_K, BA_Q = "ba-10-k-2025-02-03", "ba-10-q-2025-07-29"
IBM_K, IBM_Q = "ibm-10-k-2025-02-25", "ibm-10-q-2025-07-24"

QUESTIONS: list[tuple[str, str, str, tuple]] = [
    # segment: one member's revenue
    ("segment", AAPL_K, "Give me Apple's services revenue for fiscal 2024.", ("member", "Services")),
    ("segment", AAPL_Q25, "AAPL wearables, home & accessories sales in the June 2025 quarter",
     ("member", "Wearables, Home and Accessories")),
    ("segment", AAPL_Q24, "How much iPad revenue did Apple book in fiscal Q3 2024 (quarter ended June 29, 2024)?",
     ("member", "iPad")),
    ("segment", AMZN_K, "Pull AWS segment net sales for Amazon, full-year 2024.", ("member", "Amazon Web Services")),
    ("segment", AMZN_K, "What did Amazon take in from advertising services last year (FY2024)?",
     ("member", "Advertising")),
    ("segment", META_K, "Meta Platforms 2024 revenue from Europe?", ("member", "Europe")),
    ("segment", TSLA_K, "How big were Tesla's regulatory credit sales in 2024?",
     ("member", "Automotive regulatory credits")),
    ("segment", TSLA_K, "TSLA automotive segment revenues FY24", ("member", "Automotive")),
    ("segment", TSLA_Q, "Tesla's China revenue in Q2 2025 - what was it?", ("member", "China")),
    ("segment", KO_K, "Show me net operating revenues of Coca-Cola's Latin America operating segment for 2024.",
     ("member", "Latin America")),
    ("segment", KO_Q, "KO EMEA segment revenue, second quarter 2025", ("member", "Europe Middle East Africa")),
    ("segment", ORCL_Q, "What did Oracle make from cloud services in the first quarter of fiscal 2025?",
     ("member", "Cloud services")),
    ("segment", BA_Q, "Boeing sales of services for the three months ended June 30, 2025",
     ("member", "Sales of services")),
    ("segment", HUBS_Q, "How much revenue did HubSpot generate in Europe in 2Q25?", ("member", "Europe")),
    # segment: one member's share of total revenue
    ("segment", AAPL_K, "What percentage of Apple's FY24 net sales came from iPhone?", ("share", "iPhone")),
    ("segment", AMZN_K, "Third-party seller services as a % of Amazon's total net sales in 2024",
     ("share", "Third-party seller services")),
    ("segment", ORCL_Q, "EMEA's contribution to Oracle's total revenues in Q1 FY25, in percent?", ("share", "EMEA")),
    ("segment", IBM_Q, "What share of IBM's revenue in the quarter ended June 30, 2025 came from the Americas?",
     ("share", "Americas")),
    ("segment", BA_K, "Services mix at Boeing in 2024: sales of services as a percentage of total revenues?",
     ("share", "Sales of services")),
    ("segment", AAPL_Q25, "Greater China as a share of Apple's net sales in fiscal Q3 2025", ("share", "Greater China")),
    # change: percent and dollars against a year before
    ("change", AAPL_K, "By how many dollars did Apple's total net sales increase in fiscal 2024 versus fiscal 2023?",
     ("delta", "revenue")),
    ("change", AMZN_K, "AMZN operating income growth 2024 vs 2023, %", ("change", "operating_income")),
    ("change", META_K, "How much did Meta's capital expenditures grow in 2024, percentage-wise?", ("change", "capex")),
    ("change", META_K, "Dollar increase in Meta's R&D expense from 2023 to 2024?", ("delta", "rnd")),
    ("change", TSLA_K, "Tesla net income y/y change for 2024 in percent", ("change", "net_income")),
    ("change", TSLA_K, "How much did Tesla's diluted EPS fall in 2024 compared with 2023?", ("delta", "eps_diluted")),
    ("change", KO_K, "Coca-Cola cash from operations, 2024 vs 2023: percent change?", ("change", "cfo")),
    ("change", KO_Q, "KO Q2 2025 operating income growth YoY", ("change", "operating_income")),
    ("change", ORCL_Q, "Oracle capex growth in fiscal Q1 2025 versus the prior-year quarter", ("change", "capex")),
    ("change", ORCL_Q, "How much did ORCL's total revenues rise in dollars in the quarter ended August 31, 2024 vs the "
                       "same quarter a year earlier?", ("delta", "revenue")),
    ("change", IBM_Q, "IBM revenue growth for the second quarter of 2025 compared to Q2 2024?", ("change", "revenue")),
    ("change", HUBS_Q, "HubSpot top-line growth y/y in Q2 2025", ("change", "revenue")),
    ("change", BA_Q, "By what percent did Boeing's revenues increase in Q2 2025 from a year earlier?",
     ("change", "revenue")),
    ("change", AAPL_Q25, "Apple diluted EPS growth, fiscal Q3 2025 vs fiscal Q3 2024", ("change", "eps_diluted")),
    ("change", AAPL_Q24, "Change in Apple's net income, in dollars, for the June 2024 quarter versus the June 2023 "
                         "quarter", ("delta", "net_income")),
    ("change", BA_K, "How much lower were Boeing's total revenues in 2024 than in 2023, in dollars?",
     ("delta", "revenue")),
    # margin / ratio: a line item over revenue
    ("margin", AAPL_K, "Apple gross margin FY2024", ("margin", ("GrossProfit",))),
    ("margin", AAPL_Q25, "R&D as a percent of sales for Apple in the quarter ended June 28, 2025?",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", AAPL_Q24, "What was AAPL's operating margin in Q3 of fiscal 2024?", ("margin", ("OperatingIncomeLoss",))),
    ("margin", ORCL_Q, "Calculate Oracle's operating margin for Q1 FY2025.", ("margin", ("OperatingIncomeLoss",))),
    ("margin", ORCL_Q, "Oracle R&D intensity (R&D / revenue) in the August 2024 quarter",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", KO_K, "What were Coca-Cola's SG&A expenses as a percentage of net operating revenues in 2024?",
     ("margin", ("SellingGeneralAndAdministrativeExpense",))),
    ("margin", KO_Q, "Coke's net margin for the second quarter of 2025?", ("margin", ("NetIncomeLoss",))),
    ("margin", TSLA_K, "Tesla's total gross margin in 2024", ("margin", ("GrossProfit",))),
    ("margin", TSLA_Q, "TSLA Q2'25 operating margin", ("margin", ("OperatingIncomeLoss",))),
    ("margin", HUBS_Q, "What gross margin did HubSpot post for the three months ended June 30, 2025?",
     ("margin", ("GrossProfit",))),
    ("margin", IBM_Q, "IBM net income as a percentage of revenue, Q2 2025", ("margin", ("NetIncomeLoss",))),
    ("margin", BA_K, "What was Boeing's operating margin for full-year 2024?", ("margin", ("OperatingIncomeLoss",))),
    ("margin", META_K, "Meta: research and development spend relative to revenue for fiscal 2024",
     ("margin", ("ResearchAndDevelopmentExpense",))),
    ("margin", AMZN_K, "Give me Amazon's 2024 operating margin.", ("margin", ("OperatingIncomeLoss",))),
    # cover: auditor, shares outstanding, public float, CIK, fiscal year end
    ("cover", AMZN_K, "Who audits Amazon? (FY2024 10-K)", ("auditor",)),
    ("cover", BA_K, "Boeing's registered public accounting firm for the 2024 annual report", ("auditor",)),
    ("cover", KO_K, "Which Big Four firm signed off on Coca-Cola's 2024 financial statements?", ("auditor",)),
    ("cover", AAPL_K, "What was the aggregate market value of Apple's stock held by non-affiliates, as reported in its "
                      "fiscal 2024 10-K?", ("float",)),
    ("cover", IBM_K, "IBM public float, per the 2024 10-K", ("float",)),
    ("cover", TSLA_K, "How many shares of Tesla common stock were outstanding per the cover of its 2024 annual report?",
     ("shares",)),
    ("cover", META_K, "Meta Class A shares outstanding, FY2024 10-K cover", ("shares", "ClassA")),
    ("cover", HUBS_Q, "HUBS share count outstanding as of its Q2 2025 10-Q", ("shares",)),
    ("cover", BA_Q, "Pull the number of Boeing common shares outstanding from the Q2 2025 10-Q.", ("shares",)),
    ("cover", ORCL_Q, "What is Oracle's CIK? (Q1 fiscal 2025 10-Q)", ("cik",)),
    ("cover", ORCL_Q, "When does Oracle's fiscal year end, per its 10-Q for the quarter ended August 31, 2024?",
     ("fye",)),
    ("cover", AAPL_Q25, "Apple's fiscal 2025 year-end date (from the June 2025 quarter 10-Q)?", ("fye",)),
    # ranking: the member with the highest or lowest revenue on an axis
    ("ranking", AAPL_Q24, "In Apple's fiscal Q3 2024, which product category had the lowest net sales?",
     ("rank", PRODUCT, "lowest")),
    ("ranking", AAPL_Q25, "Smallest of Apple's reportable geographic segments by net sales in the June 2025 quarter?",
     ("rank", SEGMENT, "lowest")),
    ("ranking", AMZN_K, "Which Amazon reportable segment was smallest by net sales in FY2024?",
     ("rank", SEGMENT, "lowest")),
    ("ranking", AMZN_K, "Among the countries Amazon discloses net sales for in 2024, which had the least?",
     ("rank", REGION, "lowest")),
    ("ranking", TSLA_K, "Tesla 2024: which geography contributed the least revenue?", ("rank", REGION, "lowest")),
    ("ranking", TSLA_Q, "Tesla Q2 2025 - biggest revenue source by product/service line?",
     ("rank", PRODUCT, "highest")),
    ("ranking", BA_K, "Which region brought Boeing the least revenue in 2024?", ("rank", REGION, "lowest")),
    ("ranking", KO_Q, "Coca-Cola's smallest operating segment by revenue in Q2 2025?", ("rank", SEGMENT, "lowest")),
    ("ranking", HUBS_Q, "HubSpot's weakest region by revenue in Q2 2025", ("rank", REGION, "lowest")),
    ("ranking", ORCL_Q, "Which geographic region generated the most revenue for Oracle in Q1 fiscal 2025?",
     ("rank", REGION, "highest")),
    ("ranking", IBM_Q, "Smallest revenue type at IBM in 2Q25?", ("rank", PRODUCT, "lowest")),
]


if __name__ == "__main__":
    sys.exit(analyst_fresh.main(asked=QUESTIONS, prefix="blind2", title="second blind set", doc=__doc__))
