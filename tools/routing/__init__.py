"""finrag.tools.routing = `tools/routing/`: which filing a question is about.

The registry knows every indexed filing's identity (company, tickers, fiscal period, form) from its
path and cover page plus an alias book (`data/aliases.yaml`); its linker reads questions.
"""
