"""finrag: question answering over SEC filings."""
