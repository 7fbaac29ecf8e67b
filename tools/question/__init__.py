"""`tools/question/`: reading a question once, `read_question(text)` -> `finrag.state.question.QuestionFacts`.

periods.py: fiscal years, quarters, dates, year-to-date words, as-of dates, spans of years.
cues.py: forms, earnings-release and corporate-event cues, 8-K items, years asked about as expected.
asks.py: what is asked of the values: aggregate, yes/no and direction, drivers, scale, rounding.
read.py: `read_question`, the one builder (bounded memo).
"""
from finrag.tools.question.read import read_question

__all__ = ["read_question"]
