"""`finrag.tools.edgar` (`tools/edgar/`): filings from SEC EDGAR for `finrag fetch` (tickers -> CIKs -> filings -> files with identity sidecars).

One concern per module:

* `limiter`   at most N requests per second (10, SEC's fair-access limit), with an injectable clock
* `client`    HTTP with the declared User-Agent, the limiter, retries with backoff on 429/5xx; one-line errors
* `tickers`   ticker -> CIK from SEC's `company_tickers.json`
* `listing`   a company's filings from its submissions JSON, filtered by form and year
* `identity`  a filing's exact identity (submissions metadata + the inline-XBRL dei cover facts): the sidecar
* `download`  the primary document (or an 8-K's press-release exhibit), written atomically
* `fetch`     the whole run: resumable, with a summary; `cli` is the `finrag fetch` command
"""
