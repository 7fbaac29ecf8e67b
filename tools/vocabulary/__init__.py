"""finrag.tools.vocabulary = `tools/vocabulary/`: the words of finance that every layer above reads.

line_items.py: line-item names and synonyms, and the filing rows they read as.
catalog.py: the metric catalog (`data/metric_catalog.toml`) parsed into formulas; metrics.py: the metrics built
    from it (`metric_of`, `computer`); arithmetic.py: the one evaluator of a formula (`evaluate`, `Undefined`).
judgements.py: the judgement catalog (`data/judgement_catalog.toml`): which catalog metrics decide a judgement
    question, against which threshold, in which words.
statements.py: the financial statements' titles and what a question asks of them.
dates.py: month names and abbreviations, ISO dates, two-digit years, dates as filings write them.
answer_shapes.py: what a sentence answering a count, date or name question holds.
synonyms.py: the words a filing writes for what a question asks with other words ("workforce" / "employees").
"""
