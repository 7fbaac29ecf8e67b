"""finrag.tools.answering = `tools/answering/`: answer strategies that need no LLM.

extractive.py: the offline generator (sentences and table rows of the context, each cited).
"""
