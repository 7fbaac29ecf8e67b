"""The public Python API: run a system on a question and get the JSON contract back.

    from finrag import run_query
    result = run_query("What was 3M's FY2018 capex?", system="hdrr", index=".finrag")
    result.answer, result["answer"], result.model_dump()     # an `Answer`; read like the dict it replaces
    await arun_query(question, config={"callbacks": [handler], "tags": ["mine"]})
    for piece in stream_answer(question):                    # answer text as generated, then the Answer
        ...

The contract's fields: `finrag.state.contract.Answer` (state/contract.py) and docs/contract.md. `index=`
names the index everywhere (the retriever, `finrag.index`); `index_dir=` is still accepted here.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
import time
import uuid
from typing import Any, AsyncIterator, Iterator, Mapping

from langchain_core.messages import AIMessageChunk
from langchain_core.runnables import RunnableConfig

from finrag.graphs import SYSTEMS, get_graph
from finrag.state.configuration import MAX_QUESTION_CHARS, Configuration
from finrag.state.contract import Answer, Context, Cost, Routing
from finrag.state.systems import DEFAULT_SYSTEM
from finrag.threads import check_thread_id, damaged, store_for
from finrag.tools.answering.fallback_answer import fallback_of
from finrag.tools.answering.page_labels import display_citations, display_citations_by, display_fields, printed_label
from finrag.tools.llm.calls import failed_call
from finrag.tools.llm.replies import message_text
from finrag.tools.llm.tokens import count_tokens
from finrag.tools.visible import shown


class QuestionError(ValueError):
    """The question cannot be answered as given (empty, too long, not text)."""


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A code point no text has: a command-line byte that is not UTF-8 (U+DC80-U+DCFF), or a `\\ud800` JSON escape."""


def validate_question(question: Any, max_chars: int = MAX_QUESTION_CHARS) -> str:
    """The question with whitespace collapsed; QuestionError when it is not a non-empty string of at most
    `max_chars` characters, or not text: a lone surrogate is a byte of a command-line argument that is not
    UTF-8 (Python passes byte 0xNN on as U+DCNN) or a `\\ud800` escape in JSON, and no encoder, tokenizer
    or UTF-8 output takes it."""
    if not isinstance(question, str):
        raise QuestionError("question must be a string")
    bad = LONE_SURROGATE.search(question)
    if bad:
        code = ord(bad.group())
        if 0xDC80 <= code <= 0xDCFF:
            raise QuestionError(f"question is not UTF-8 text (byte 0x{code - 0xDC00:02x} at character "
                                f"{bad.start() + 1}); give it as UTF-8")
        raise QuestionError(f"question is not valid Unicode text (a lone surrogate, U+{code:04X}, at character "
                            f"{bad.start() + 1})")
    q = " ".join(question.split())
    if not q:
        raise QuestionError("question is empty")
    if len(q) > max_chars:
        raise QuestionError(f"question is too long ({len(q):,} characters; the limit is {max_chars:,})")
    return q


def to_contract(state: dict, *, system: str, qid: str, question: str, total_ms: float) -> dict:
    """A graph's final state as the JSON contract, a plain dict (optional fields, `verification`, `error`
    and `offline_fallback`, only when the run produced them): `to_answer(...).to_dict()`."""
    return to_answer(state, system=system, qid=qid, question=question, total_ms=total_ms).to_dict()


def to_answer(state: dict, *, system: str, qid: str, question: str, total_ms: float) -> Answer:
    """A graph's final state as the contract model, `finrag.state.contract.Answer`."""
    calls = list(state.get("llm_calls") or [])
    contexts = [Context(chunk_id=c.get("chunk_id"), doc_id=c.get("doc_id"), page_start=c.get("page_start"),
                        page_end=c.get("page_end"), score=round(float(c.get("score") or 0.0), 6), text=c.get("text", ""),
                        **display_fields(c))
                for c in state.get("contexts") or []]
    timings = {k: round(float(v), 3) for k, v in (state.get("timings_ms") or {}).items()}
    timings["total"] = round(total_ms, 3)
    optional: dict[str, Any] = {}
    if state.get("verification"):
        optional["verification"] = {**state["verification"], "retries": int(state.get("retries") or 0)}
    if state.get("error"):
        optional["error"] = state["error"]
    fell_back = list(dict.fromkeys(str(c.get("role")) for c in calls if failed_call(c)))
    if fell_back:  # only possible with on_llm_error=offline: otherwise a failed call stops the run
        optional["offline_fallback"] = fell_back
    if state.get("vector_status"):
        optional["retrieval"] = dict(state["vector_status"])
        if state.get("context_plan"):
            optional["retrieval"]["context"] = state["context_plan"]
    ended = [c["finish_reason"] for c in calls if c.get("role") == "generator" and c.get("finish_reason")]
    if ended:  # how the generator's answer ended: "stop", or "length" (cut at its limit; the answer says so)
        optional["finish_reason"] = ended[-1]
    if state.get("rejected_citations"):
        optional["rejected_citations"] = list(state["rejected_citations"])
    reader = state.get("reader") or {}
    if reader:
        optional["reader"] = {k: v for k, v in reader.items() if k != "llm_calls_saved"}
    conversation = state.get("conversation")
    if conversation:  # a run on a thread (`thread_id=`): the resolved question and where the turn stands
        optional["resolved_question"] = str(conversation.get("resolved") or question)
        optional["conversation"] = {k: conversation.get(k) for k in ("thread_id", "turn", "inherited", "strategy",
                                                                     "notes")}
    return Answer(
        id=qid,
        system=system,
        question=question,
        # a registrant's name (or any text) with bidi, zero-width or control characters: shown escaped (issue 49)
        answer=shown(answering_prefix(state, question) + display_answer(state), keep="\n\r\t"),
        routing=Routing(status=state.get("routing_status") or "not_routed",
                        routed_docs=list(state.get("routed_docs") or []),
                        reason=state.get("routing_reason") or "", extracted=state.get("extracted") or {},
                        confidence=state.get("routing_confidence")),
        contexts=contexts,
        cost=Cost(llm_calls=len([c for c in calls if not failed_call(c)]),
                  prompt_tokens=sum(int(c.get("prompt_tokens") or 0) for c in calls),
                  completion_tokens=sum(int(c.get("completion_tokens") or 0) for c in calls),
                  context_tokens=int(state.get("context_tokens") or count_tokens("".join(c.text for c in contexts))),
                  calls=calls, llm_calls_saved=int(reader.get("llm_calls_saved") or 0)),
        timings_ms=timings,
        **optional,
    )


def display_answer(state: Mapping[str, Any]) -> str:
    """The graph's answer as people read it: its zero-based citations as a PDF viewer's pages, with the numbers
    the filings print (`finrag.tools.answering.page_labels`); the contexts keep `page_start` zero-based."""
    return display_citations(str(state.get("answer") or ""), state.get("contexts") or [])


def answering_prefix(state: Mapping[str, Any], typed: str) -> str:
    """'Answering: <resolved question>' and a blank line when a thread's follow-up was answered as a different
    standalone question; '' otherwise (no thread, or the question named everything itself)."""
    resolved = str((state.get("conversation") or {}).get("resolved") or "")
    return f"Answering: {resolved}\n\n" if resolved and resolved != typed else ""


def run_configuration(configurable: Mapping[str, Any] | Configuration | None = None, *,
                      index_dir: str | None = None) -> Configuration:
    """The Configuration of one run: `configurable` (values of its fields, or a Configuration used as it
    is) with `index_dir` on top when given; the FINRAG_* environment fills the rest."""
    if isinstance(configurable, Configuration):
        return configurable.model_copy(update={"index_dir": str(index_dir)}) if index_dir else configurable
    values = dict(configurable or {})
    if index_dir:
        values["index_dir"] = str(index_dir)
    return Configuration(**values)


def _prepare(question: str, system: str, index: str | None, index_dir: str | None,
             configurable: Mapping[str, Any] | Configuration | None) -> tuple[Any, Configuration, str]:
    """(graph, Configuration, validated question) of one run; ValueError / QuestionError before it starts."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; choose one of: {', '.join(SYSTEMS)}")
    if index is not None and index_dir is not None and str(index) != str(index_dir):
        raise ValueError("give the index once: index= (index_dir= is its old name)")
    cfg = run_configuration(configurable, index_dir=index if index is not None else index_dir)
    return get_graph(system), cfg, validate_question(question, cfg.max_question_chars)


def _on_thread(system: str, cfg: Configuration, thread_id: Any, config: RunnableConfig | None,
               threads: Any = None) -> tuple[Any, Any, RunnableConfig, str]:
    """(checkpointed graph, thread store, config with the thread id, thread id) of a run on a thread: the store
    of the run's index (`finrag.threads.store_for`) unless `threads` (a `ThreadStore`) is given."""
    tid = check_thread_id(thread_id)
    store = threads if threads is not None else store_for(cfg)
    run_config: RunnableConfig = store.config(tid, config)  # type: ignore[assignment]
    return store.graph(system), store, run_config, tid


@contextlib.contextmanager
def _store_errors(store: Any) -> Iterator[None]:
    """A thread store SQLite cannot read, mid-run, as `ThreadStoreDamaged` (one line; never reset)."""
    import sqlite3

    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise damaged(store.path, exc) from None


def run_query(question: str, system: str = DEFAULT_SYSTEM, *, index: str | None = None, qid: str | None = None,
              configurable: Mapping[str, Any] | Configuration | None = None, config: RunnableConfig | None = None,
              index_dir: str | None = None, thread_id: str | None = None, threads: Any = None) -> Answer:
    """Answer one question with one system; returns the JSON contract as an `Answer` (pydantic): fields as
    attributes, `.model_dump()` for the plain dict, and read-only `res["answer"]` access.

    `index` is the index (a directory or a `milvus:` location; default $FINRAG_HOME, else ./.finrag;
    `index_dir` is its old name). `configurable` sets fields of `finrag.state.configuration.Configuration`
    for this run (e.g. `{"llm": "openai/gpt-4.1", "fts_k": 30}`; a role's model may be a LangChain chat
    model); the Configuration is built once, here, and given to the graph as its run context (`context=`).
    `config` is the LangChain RunnableConfig of the graph run: `callbacks`, `tags`, `metadata`, `run_name`
    (a tracer sees every node and LLM call under the run).

    `thread_id` runs the question as a turn of that conversation (a LangGraph thread, created on first use):
    the graph is compiled with the index's thread store as its checkpointer (`finrag.threads`; `threads=` a
    `ThreadStore` of your own, e.g. `ThreadStore.in_memory()`), a follow-up ("And in FY2023?") is answered as
    the standalone question `resolved_question`, and turns of one thread run one at a time. Without it the run is
    today's: the plain graph, nothing stored.
    """
    graph, cfg, q = _prepare(question, system, index, index_dir, configurable)
    if thread_id is None and threads is None:
        t0 = time.perf_counter()
        state = graph.invoke({"question": q}, config, context=cfg)
    else:
        graph, store, config, tid = _on_thread(system, cfg, thread_id, config, threads)
        with store.turn(tid), _store_errors(store):
            t0 = time.perf_counter()
            state = graph.invoke({"question": q}, config, context=cfg, durability=store.durability)
            store.after_turn(tid, graph)
    total = (time.perf_counter() - t0) * 1000.0
    return to_answer(state, system=system, qid=qid or uuid.uuid4().hex[:12], question=q, total_ms=total)


async def arun_query(question: str, system: str = DEFAULT_SYSTEM, *, index: str | None = None, qid: str | None = None,
                     configurable: Mapping[str, Any] | Configuration | None = None,
                     config: RunnableConfig | None = None, index_dir: str | None = None,
                     thread_id: str | None = None, threads: Any = None) -> Answer:
    """`run_query` on the graph's async path (`ainvoke`): the same arguments and the same Answer (a turn on a
    thread runs `run_query` in a worker thread: the SQLite checkpointer is synchronous)."""
    if thread_id is not None or threads is not None:
        return await asyncio.to_thread(run_query, question, system, index=index, qid=qid, configurable=configurable,
                                       config=config, index_dir=index_dir, thread_id=thread_id, threads=threads)
    graph, cfg, q = _prepare(question, system, index, index_dir, configurable)
    t0 = time.perf_counter()
    state = await graph.ainvoke({"question": q}, config, context=cfg)
    total = (time.perf_counter() - t0) * 1000.0
    return to_answer(state, system=system, qid=qid or uuid.uuid4().hex[:12], question=q, total_ms=total)


STREAM_MODES = ["messages", "values"]
"""What `stream_answer` asks the graph for: the generator's message chunks and the state after each step."""


class AnswerTokens:
    """Turns the generator's message chunks into answer text pieces that add up to the final `answer`.

    `generate` strips the reply and puts the routing caveats (a company or period the index lacks) in front, so
    the pieces do the same: the caveats come with the first text, leading whitespace is dropped and trailing
    whitespace is held back until more text follows. `rest(final)` is what is still missing at the end (the
    whole answer when no generator LLM call streamed: offline, or the statement reader's fast path), or None
    when the final answer is not a continuation of the pieces (a generator call failed mid-stream and, with
    on_llm_error=offline, the offline strategy answered)."""

    def __init__(self, typed: str = "", cfg: Configuration | None = None) -> None:
        """Nothing sent yet; `typed` is the question as typed (on a thread the pieces start with
        'Answering: <resolved question>' when it differs, as the final answer does). `cfg`: the run's
        Configuration, whose index gives the printed page numbers of the citations (`page_labels`)."""
        self.typed = typed
        self.sent = ""
        self._held = ""
        self._started = False
        self._cfg = cfg
        self._pages: dict[str, Any] = {}

    def _printed(self, doc: str, page: int) -> str | None:
        """The number the filing prints on zero-based `page` (what `generate` records for its contexts)."""
        if doc not in self._pages:
            try:
                # lazy: the nodes (~2 s of imports) load with the graph, while `finrag ask` opens its index
                from finrag.nodes.common import reader_of

                self._pages[doc] = reader_of(self._cfg).pages_of(doc) if self._cfg is not None else []
            except Exception:  # no index to read: the viewer's pages only, as `generate` does then
                self._pages[doc] = []
        return printed_label(self._pages[doc], page)

    def feed(self, part: Any, state: Mapping[str, Any]) -> str:
        """The text to send for one `messages` stream part ('' when it is not the generator's, or held)."""
        message, meta = part
        if (meta or {}).get("langgraph_node") != "generate" or not isinstance(message, AIMessageChunk):
            return ""
        if fallback_of(state) is not None:  # no filing chosen: the answer comes whole, after its figures are checked
            return ""
        text = self._held + message_text(message.content)
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""

            # lazy: the answering modules load with the graph (see `reader_of` above)
            from finrag.tools.answering.route_notes import answer_caveats

            caveats = answer_caveats(state.get("extracted"), str(state.get("routing_status") or ""),
                                     str(state.get("routing_reason") or ""))
            text = (" ".join(caveats) + "\n\n" + text) if caveats else text
            text = answering_prefix(state, self.typed) + text
            self._started = True
        # a citation is sent whole, as people read it (`page_labels`): text from an unclosed "[" is held back
        opening = text.rfind("[")
        cut = opening if opening >= 0 and "]" not in text[opening:] and len(text) - opening <= 302 else len(text)
        body = text[:cut].rstrip()
        self._held = text[len(body):]
        body = display_citations_by(body, self._printed)
        self.sent += body
        return body

    def rest(self, final: str) -> str | None:
        """The end of `final` not sent yet ('' when all of it was), None when `final` does not continue it."""
        return final[len(self.sent):] if final.startswith(self.sent) else None


def _last_pieces(state: dict, tokens: AnswerTokens, *, system: str, qid: str | None, question: str,
                 t0: float) -> list[str | Answer]:
    """What a stream yields once the graph has finished: the answer text not streamed yet (if any), then the
    Answer (its `total` timing from `t0`)."""
    total = (time.perf_counter() - t0) * 1000.0
    answer = to_answer(state, system=system, qid=qid or uuid.uuid4().hex[:12], question=question, total_ms=total)
    rest = tokens.rest(answer.answer)
    return [rest, answer] if rest else [answer]


def stream_answer(question: str, system: str = DEFAULT_SYSTEM, *, index: str | None = None, qid: str | None = None,
                  configurable: Mapping[str, Any] | Configuration | None = None,
                  config: RunnableConfig | None = None, index_dir: str | None = None,
                  thread_id: str | None = None, threads: Any = None) -> Iterator[str | Answer]:
    """Answer one question, yielding the answer text as the generator LLM produces it (`str` pieces that add up
    to the answer, `AnswerTokens`), then the final contract (`Answer`, last). Without a generator LLM call
    (offline, or the statement reader's fast path) the answer comes as one piece. Arguments as in `run_query`
    (`thread_id`: a turn of that conversation)."""
    graph, cfg, q = _prepare(question, system, index, index_dir, configurable)
    if thread_id is None and threads is None:
        yield from _stream(graph, cfg, q, config, system=system, qid=qid)
        return
    graph, store, config, tid = _on_thread(system, cfg, thread_id, config, threads)
    with store.turn(tid), _store_errors(store):
        yield from _stream(graph, cfg, q, config, system=system, qid=qid, durability=store.durability)
        store.after_turn(tid, graph)


def _stream(graph: Any, cfg: Configuration, q: str, config: RunnableConfig | None, *, system: str,
            qid: str | None, durability: Any = None) -> Iterator[str | Answer]:
    """The pieces of one run of `graph` (`stream_answer`; `durability`: LangGraph's, on a thread)."""
    t0 = time.perf_counter()
    state: dict = {}
    tokens = AnswerTokens(q, cfg)
    extra = {"durability": durability} if durability else {}
    for mode, part in graph.stream({"question": q}, config, context=cfg, stream_mode=STREAM_MODES, **extra):
        if mode == "values":
            state = part
        elif text := tokens.feed(part, state):
            yield text
    for piece in _last_pieces(state, tokens, system=system, qid=qid, question=q, t0=t0):
        yield piece


async def astream_answer(question: str, system: str = DEFAULT_SYSTEM, *, index: str | None = None,
                         qid: str | None = None, configurable: Mapping[str, Any] | Configuration | None = None,
                         config: RunnableConfig | None = None, index_dir: str | None = None,
                         thread_id: str | None = None, threads: Any = None) -> AsyncIterator[str | Answer]:
    """`stream_answer` on the graph's async path (`astream`): answer text pieces, then the Answer (a turn on a
    thread streams `stream_answer` from a worker thread: the SQLite checkpointer is synchronous)."""
    if thread_id is not None or threads is not None:
        async for piece in _threaded_stream(stream_answer(question, system, index=index, qid=qid,
                                                          configurable=configurable, config=config,
                                                          index_dir=index_dir, thread_id=thread_id,
                                                          threads=threads)):
            yield piece
        return
    graph, cfg, q = _prepare(question, system, index, index_dir, configurable)
    t0 = time.perf_counter()
    state: dict = {}
    tokens = AnswerTokens(q, cfg)
    async for mode, part in graph.astream({"question": q}, config, context=cfg, stream_mode=STREAM_MODES):
        if mode == "values":
            state = part
        elif text := tokens.feed(part, state):
            yield text
    for piece in _last_pieces(state, tokens, system=system, qid=qid, question=q, t0=t0):
        yield piece


_DONE = object()


async def _threaded_stream(pieces: Iterator[str | Answer]) -> AsyncIterator[str | Answer]:
    """The items of a blocking iterator, produced in a worker thread, as an async iterator (errors re-raised)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def produce() -> None:
        try:
            for piece in pieces:
                loop.call_soon_threadsafe(queue.put_nowait, piece)
            loop.call_soon_threadsafe(queue.put_nowait, _DONE)
        except BaseException as exc:  # handed to the consumer, which raises it
            loop.call_soon_threadsafe(queue.put_nowait, exc)

    worker = loop.run_in_executor(None, produce)
    while True:
        item = await queue.get()
        if item is _DONE:
            break
        if isinstance(item, BaseException):
            await worker
            raise item
        yield item
    await worker
