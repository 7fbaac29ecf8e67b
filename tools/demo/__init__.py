"""finrag.tools.demo = `tools/demo/`: the generated demo corpus behind `finrag demo` and the tests.

Fictional companies whose filings share headings and boilerplate but differ in numbers, so
cross-document chunk confusion is real; companies and figures live in `data/`.
"""
