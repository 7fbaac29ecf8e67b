"""finrag.tools.llm = `tools/llm/`: the only place LLM calls are made and counted.

chat.py (a chat model per role from the configuration, or None for the offline strategy),
calls.py (structured and text calls with `llm_calls` records and graceful failure), tokens.py.
deadline.py: the deadline of the request a run serves, so that its LLM calls end with it.
replies.py: a chat model's reply read as text.
system_role.py: where a call's instructions go.
"""
