"""finrag.tools.conversation = the folder `tools/conversation/`: follow-up questions on a thread made standalone.

`slots` reads which slots a question sets itself (company, period, measure, form) with routing's own reading
(the registry's linker, `finrag.tools.question`) and the reader's line items; `phrasing` edits question
text (a company or period put in place of another, pronouns replaced); `resolve` is the offline resolution (the
new question inherits what it does not set from the previous turn); `condense` is the optional LLM call
(role `condenser`), checked against the linker; `turns` builds a finished turn's record and the per-turn reset.
checkpoint_serde.py: the thread store's serializer.
checkpoints.py: a thread's checkpoints around one turn.
store_file.py: the thread store's file.
thread_ids.py: thread ids.
"""
