"""finrag.tools.routing = `tools/routing/`: which filing a question is about.

The registry knows every indexed filing's identity (company, tickers, fiscal period, form) from its
path and cover page plus an alias book (`data/aliases.yaml`); its linker reads questions.

* `text`       small text helpers (squash, accents, edit distance, legal-form suffixes; months and dates are
               `finrag.tools.vocabulary.dates`)
* `mentions`   a company a question may name (`Candidate`, `Company`, the acceptance thresholds)
* `words`      evidence about words: English word frequency (wordfreq), finance abbreviations
* `aliases`    the alias book: built-in `data/aliases.yaml` plus user YAML/CSV files
* `filenames`  filing identity and unique doc ids from a path (sec-edgar-downloader, FinanceBench, paper,
               company-folder, generic)
* `cover`      cover-page parsing and reading a file's first pages
* `documents`  company names and variants; `build_document_info` (sidecar, dei, cover, path -> DocumentInfo)
* `dei`        identity from an EDGAR filing's inline-XBRL dei facts (form, fiscal year/quarter, period end...)
* `names`      short names derived from legal names (head words, initialisms, abbreviated words)
* `linker`     candidate companies in a question, each with a confidence and the reason
  (the years, periods, dates, forms, forward-looking years and cues of a question: `finrag.tools.question`)
* `resolver`   choosing one company's filing for a question (priors and cues)
* `registry`   `Registry` (linker + resolver over the documents of an index) and `Resolution`
fallback.py: the fallback that says so (issue 48).
ranking.py: ranking the linker's readings (issue 35).
router_check.py: an LLM router's choice checked against the question (issue 34 case 4, issue 38).
continuation.py: names that continue an indexed company's name into another registrant's (issue 48).
registrants.py: the SEC's list of registrants with tickers (`data/sec_registrants.jsonl.gz`), as routing reads it.
subject.py: a company name in lower case that is a common word, read as the company only as a question's subject.
name_score.py: how sure a name span names its company (a part of the linker, `linker.py`).
find_tickers.py: the question's ticker-shaped words read as registrants (a part of the linker, `linker.py`).
ticker_score.py: how sure a word in capitals is a ticker (a part of the linker, `linker.py`).
unknown.py: company-like mentions the index does not hold (a part of the linker, `linker.py`).
peers.py: a comparison's bare common word read with the compared peer's name words (issue 48).
size.py: a prior from how large a registrant is (its row in the SEC's list), to break ties one word makes (issue 48).
shapes.py: where a word sits (calendar words, hyphenated compounds, units, name particles, nicknames, a metric asked of a
named company): evidence that it is no company by itself (issue 48).
name_words.py: a distinctive word inside a large registrant's name ("Roadhouse" of Texas Roadhouse; issue 48).
typos.py: typos of a company's one-word name ("Nvidea", "nvida").
zipf_table.py: wordfreq's English frequencies for plain words, without importing wordfreq.
"""
