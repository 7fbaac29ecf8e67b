"""finrag.tools.answering = `tools/answering/`: answer strategies that need no LLM.

reader.py: the statement reader (line items and registry metrics from the statement tables of the context,
    each input cited), built from tables.py (tables recovered from a page), the line items and metrics of
    `finrag.tools.vocabulary`, questions.py (what a question asks) and render.py (answers).
route_notes.py: what an answer says of its route (caveats, the fallback's lead and passages, no retrieval).
evidence.py: yes/no and "what drove" questions answered from evidence sentences, marked extractive.
extractive.py: the offline generator's last resort (sentences and table rows of the context, each cited).
fast_path.py: how the generate node uses the reader, offline and on the LLM fast path.
xbrl_facts.py: exact line-item values from an inline-XBRL filing's tagged facts (tried first for such a filing).
member_facts.py: a segment, product or region value from the filing's one-member facts, or "not found" (never
    the consolidated total as the member's); cover_facts.py: cover-page facts from the dei facts.
fact_math.py: changes, margins and ratios computed from the tagged facts, the arithmetic shown.
number_check.py: an LLM answer's figures checked against the reader's inputs and results.
sources.py: page sources for the reader (the index, or PDF files). whole_document.py: SFR's context.
citations.py: citations in an answer, checked against the contexts the generator was given (issue 34 case 5).
cover_text.py: cover facts from a filing's text when it tags none (PDFs, EDGAR HTML without inline XBRL).
fallback_answer.py: the body of an answer when routing chose no filing (issue 48; the lead is
    `route_notes.lead_of_fallback`).
formula_answer.py: the question's own arithmetic answered.
judgement_answer.py: judgement questions (capital-intensive, an improving margin, healthy liquidity) answered from
    computed catalog metrics against the judgement catalog's conventions, led by the verdict.
furniture.py: page furniture.
member_answer.py: a segment, product or region value answered from the filing's one-member facts (`member_facts`),
    or its change, share of the total or margin (`member_math`); a not-found answer that lists the tagged members,
    never the consolidated total as the member's value.
member_math.py: arithmetic on one member of a breakdown.
member_ranking.py: ranking questions from an inline-XBRL filing's one-member facts.
member_tables.py: one segment's, region's or product line's value from the routed filing's statement tables (PDFs,
    EDGAR HTML without inline XBRL).
page_heads.py: what a page's heading says, for the statement reader.
page_labels.py: pages as a person finds them.
prose.py: prose answers that answer, by the form the question asks (a count, a date, a name; and through
    yesno_answer.py, drivers_answer.py and list_answer.py: Yes or No with the sentence that decides it, the causes of
    a change led by them, the items of a list led by them); prose_units.py: what they share (a unit quoted, the
    asked company's and the topic's words, the closest passage).
ranking_tables.py: breakdowns for ranking questions from the routed filing's statement tables (PDFs, EDGAR HTML,
    text).
rankings.py: ranking answers.
row_facts.py: an operand read from the filing's own rows.
table_file.py: a filing page's tables kept on disk beside the index, shared by every process that reads the index.
table_types.py: the types of a table read from a page.
fact_sources/: one module per evidence source (inline XBRL, statement tables, cover), each a
    `finrag.state.facts.FactSource` yielding typed `Fact`s.
unstated.py: an answer led by "not stated" when no retrieved passage mentions a thing the question names.
"""
