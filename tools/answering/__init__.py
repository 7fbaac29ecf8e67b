"""finrag.tools.answering = `tools/answering/`: answer strategies that need no LLM.

reader.py: the statement reader (line items and registry metrics from the statement tables of the context,
    each input cited), built from tables.py (tables recovered from a page), line_items.py (names and
    synonyms), metrics.py (metric definitions), questions.py (what a question asks) and render.py (answers).
evidence.py: yes/no and "what drove" questions answered from evidence sentences, marked extractive.
extractive.py: the offline generator's last resort (sentences and table rows of the context, each cited).
fast_path.py: how the generate node uses the reader, offline and on the LLM fast path.
xbrl_facts.py: exact line-item values from an inline-XBRL filing's tagged facts (tried first for such a filing).
member_facts.py: a segment, product or region value from the filing's one-member facts, or "not found" (never
    the consolidated total as the member's); cover_facts.py: cover-page facts from the dei facts.
fact_math.py: changes, margins and ratios computed from the tagged facts, the arithmetic shown.
number_check.py: an LLM answer's figures checked against the reader's inputs and results.
sources.py: page sources for the reader (the index, or PDF files). whole_document.py: SFR's context.
"""
