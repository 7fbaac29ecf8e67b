"""`tools/question/`: reading a question once, `read_question(text)` -> `finrag.state.question.QuestionFacts`.

periods.py: fiscal years, quarters, dates, year-to-date words, as-of dates, spans of years.
cues.py: forms, earnings-release and corporate-event cues, 8-K items, years asked about as expected.
form.py: the form of a prose question's answer (a count, a date, a name, yes/no, drivers, a list).
asks.py: what is asked of the values: aggregate, yes/no and direction, drivers, scale, rounding.
section_intent.py: the question's scope (a line item, a section, the whole filing) and the sections it points to.
read.py: `read_question`, the one builder (bounded memo).
formula.py: the formula a question asks for (`finrag.state.formula.Formula`).
expr_checks.py: what a read expression says of itself (an earlier period, an always-zero divisor, its unit).
contradiction.py: a question that contradicts itself (a form asked and forbidden, a measure defined twice).
restated.py: a definition attributed to someone, a parenthesis restating the arithmetic before it, normalized.
formula_text.py: arithmetic written in words, read into an expression.
format_tail.py: a definition's trailing clauses that only say how to write the answer.
head_arithmetic.py: arithmetic the head of a question writes ("What is Tesla's EBITDA less capex for 2024?",
    "(Marketing and sales + General and administrative) / Revenue"), read into an expression over known operands.
listed.py: a bulleted list of parts that the question then sums, written as the definition it is.
measure.py: the measure a question asks for.
operand.py: one operand of a formula written in words, resolved.
unnamed_measure.py: a measure asked to decimals whose name nothing finrag reads names (said unknown).
unknown_metric.py: a metric-like name the question neither defines nor finrag knows (said unknown), and the names a head asks for.
spelling.py: a typo inside an operand, corrected against the words of the catalog's line items.
role_operators.py: arithmetic written by where the operands stand ("A to B", "A after B", a numerator and a
    denominator named by role), not by an operator word.
ranking.py: ranking questions.
judgement.py: the judgement a question asks ("Is 3M capital-intensive?"), a key of the judgement catalog.
shorthand.py: analysts' shorthand written out before a question is read.
"""
from finrag.tools.question.read import read_question

__all__ = ["read_question"]
