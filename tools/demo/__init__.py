"""finrag.tools.demo = `tools/demo/`: the generated demo corpus behind `finrag demo` and the tests.

Fictional companies whose filings share headings and boilerplate but differ in numbers, so
cross-document chunk confusion is real; companies and figures live in `data/`.
data_files.py: loading the static tables of the demo corpus from `tools/demo/data/`.
financials.py: seeded financials of the demo companies (all money in integer tenths of $ million).
formatting.py: how the demo filings write amounts, percentages, dates and fixed-width statement tables.
layout.py: page layout of the demo filings.
pages.py: the text of a demo 10-K filing, laid out page by page.
pdf.py: drawing a laid-out demo filing into a PDF with PyMuPDF.
questions.py: demo questions whose answers are stated verbatim in the demo filings.
"""
