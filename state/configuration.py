"""The run configuration: one `Configuration` per run, carried as LangGraph's runtime context.

The graphs declare `context_schema=Configuration`; every node reads the run's object from
`runtime.context` and never looks at the environment. The object is built once per run, at the edge
that starts the run:

* `finrag.run_query(..., configurable={...})`, the CLI and the LangServe server build it with
  `Configuration(**values)` and invoke the graph with `context=`;
* LangGraph Studio / `langgraph dev` send the assistant's (and the run's) context as a dict, which
  LangGraph turns into `Configuration(**context)`;
* in Python, `graph.invoke({"question": ...}, context={"index_dir": ".finrag"})` does the same
  (`context={}` for the defaults; a `Configuration` instance is used as it is).

Building one is the only place the environment is read: each field takes the value given for the run,
else `FINRAG_<FIELD>` (upper case) from the environment, else its default; None and "" count as not
given. Strings are coerced to the field's type (int, float, bool), so environment variables, CLI
`--configurable key=value` pairs and Studio's form all work. The index directory, when not given, is
resolved here too (`$FINRAG_HOME`, else `./.finrag`). Defaults are the paper's, except the vector
distance cut, which is ours (the paper's threshold belongs to its OpenAI embeddings).

Models are named `provider/model`: `offline` (deterministic, no LLM), `openai/gpt-4.1`, or
`openai/<model>` with `llm_base_url` for any OpenAI-compatible server (vLLM, Ollama, llama.cpp).
A role's model may also be a LangChain chat model instance (tests pass fakes); it is kept as it is.
"""
from __future__ import annotations

import os
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, Optional

from finrag.state import prompts

MAX_QUESTION_CHARS = 4000
"""The longest question (in characters, after collapsing whitespace) any entry point accepts."""

DEFAULT_INDEX_DIR = ".finrag"
"""The index directory when neither `--index` / `index_dir` nor `$FINRAG_HOME` names one."""

INDEX_DIR_RULE = f"$FINRAG_HOME, else ./{DEFAULT_INDEX_DIR}"
"""How the default index directory is found, for help texts."""

OPENAI_DEFAULT_MODEL = "openai/gpt-4.1"
"""The default `llm` when OPENAI_API_KEY is set and FINRAG_LLM is not."""

ENV_PREFIX = "FINRAG_"


def resolve_index_dir(index_dir: str | os.PathLike | None = None) -> Path:
    """The index directory: `index_dir` when given (`--index`, the configuration's `index_dir`),
    else `$FINRAG_HOME`, else `./.finrag`. The one place this rule is written."""
    if index_dir:
        return Path(index_dir).expanduser()
    return Path(os.environ.get("FINRAG_HOME") or DEFAULT_INDEX_DIR)


def user_cache_dir() -> Path:
    """finrag's folder for data derived from installed packages (`$XDG_CACHE_HOME/finrag`, else
    `~/.cache/finrag`): word frequencies, the ONNX query graph, Milvus registries. The one place this rule
    is written."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "finrag"


def _setting(default: Any, description: str) -> Any:
    return field(default=default, metadata={"description": description})


@dataclass(kw_only=True, init=False)
class Configuration:
    """How one run answers: index, models per role, prompts, retrieval and cutoff parameters."""

    # ---------------------------------------------------------------- the index
    index_dir: str = _setting("", "Index directory. Empty: $FINRAG_HOME, else ./.finrag (resolved when the "
                                  "configuration is built).")
    embedder: str = _setting("auto", "Embedder; must be the one that built the index: 'auto' (the one the index "
                                     "records; a new index: 'static' above 25 files, else 'minilm'), 'minilm' "
                                     "(bundled, offline), 'static' (MiniLM distilled by model2vec, offline) or "
                                     "'openai[:model[:dims]]'.")
    embed_device: str = _setting("auto", "Device of MiniLM's document embedding (`finrag index`, HDRR's "
                                         "on-demand embedding): 'auto' (a CUDA GPU when torch sees one, else "
                                         "the CPU), 'cpu' or 'cuda'. Queries are embedded in NumPy on the CPU.")
    alias_file: str = _setting("", "YAML or CSV of extra company aliases and ticker history for routing. Empty: "
                                   "the one recorded in the index, if any.")

    # --------------------------------------------------------- models per role
    llm: str = _setting("offline", "Model for every LLM role, 'provider/model': 'offline' (deterministic "
                                   "strategies, no LLM) or 'openai/<model>'. Default: openai/gpt-4.1 when "
                                   "OPENAI_API_KEY is set, else offline.")
    llm_base_url: str = _setting("", "Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp), e.g. "
                                     "http://host:8000/v1. Empty: OpenAI (or $OPENAI_BASE_URL).")
    router_model: Any = _setting("", "Model that extracts company, period and form from the question (SFR, HDRR, "
                                     "Agentic). Empty: `llm`.")
    rewriter_model: Any = _setting("", "Model that rewrites the question into a search query and keywords. "
                                       "Empty: `llm`.")
    verifier_model: Any = _setting("", "Model that checks the top chunks belong to the target company (Agentic). "
                                       "Empty: `llm`.")
    generator_model: Any = _setting("", "Model that writes the answer from the context. Empty: `llm`.")
    contextualizer_model: Any = _setting("", "Model that writes the situating context of each chunk when the "
                                             "V-B index variant (llmctx) is built. Empty: `llm`.")
    judge_model: Any = _setting("", "Model of the evaluation judge. Empty: `llm`.")
    judge2_model: Any = _setting("", "Model of the second evaluation judge. Empty: `llm`.")
    temperature: float = _setting(0.0, "Sampling temperature of every LLM call.")
    on_llm_error: str = _setting("fail", "When a call to the requested LLM fails (unreachable server, HTTP "
                                         "error, a reply that does not parse): 'fail' stops the run with one "
                                         "line naming the role, model and cause; 'offline' answers that role "
                                         "with its offline strategy and marks the answer (`offline_fallback`).")
    llm_timeout_s: float = _setting(60.0, "Seconds one attempt of an LLM call (chat or OpenAI embeddings) may "
                                          "wait for the server (connect, send, each read); a call that runs "
                                          "out fails as 'timed out after N s'. `finrag serve` lowers it to its "
                                          "request timeout.")
    llm_max_retries: int = _setting(2, "Retries of a failed LLM call (timeout, connection error, HTTP 429/5xx) "
                                       "after the first attempt, with a short backoff: a hung server holds a "
                                       "call about llm_timeout_s x (llm_max_retries + 1). `finrag serve` lowers "
                                       "it so that the retries fit inside its request timeout.")

    # ------------------------------------------------------------------ prompts
    router_prompt: str = _setting(prompts.ROUTER_SYSTEM, "System prompt of the router (structured output: "
                                                         "companies, tickers, years, periods, forms, dates).")
    router_rewrite_prompt: str = _setting(prompts.ROUTER_REWRITE_SYSTEM, "System prompt of the merged router + "
                                                                         "rewriter call (structured output: the "
                                                                         "router's fields plus query, keywords); "
                                                                         "used when `router_rewrite` is on.")
    rewrite_prompt: str = _setting(prompts.REWRITE_SYSTEM, "System prompt of the query rewriter (structured "
                                                           "output: query, keywords).")
    verify_prompt: str = _setting(prompts.VERIFY_SYSTEM, "System prompt of the Agentic verifier (structured "
                                                         "output: belongs, reason).")
    generate_prompt: str = _setting(prompts.GENERATE_SYSTEM, "System prompt of the generator.")
    generate_user_prompt: str = _setting(prompts.GENERATE_USER, "User message of the generator; `{context}` and "
                                                                "`{question}` are filled in.")
    contextualizer_prompt: str = _setting(prompts.CONTEXT_PROMPT, "Prompt of the V-B contextualizer at index "
                                                                  "time; `{document}` and `{chunk}` are filled in.")

    # ----------------------------------------------------------------- retrieval
    fts_k: int = _setting(20, "BM25 (SQLite FTS5) candidates per query.")
    vector_k: int = _setting(30, "Vector (FAISS) candidates per query.")
    vector_max_distance: float = _setting(1.25, "Largest L2 distance between unit vectors a vector candidate "
                                                "may have (1.25 = cosine 0.22).")
    embed_on_demand: bool = _setting(True, "HDRR: embed a routed filing whose vectors are not stored yet (the "
                                           "index stores text first; about 15 s for a 10-K on two CPU cores), "
                                           "kept for the next question; false: BM25 only for it, and the "
                                           "answer's `retrieval` says so.")
    rrf_k: int = _setting(60, "Reciprocal rank fusion constant: score = sum of 1 / (k + rank).")
    reranker: str = _setting("offline", "Reranker: 'offline', 'cross-encoder:<local path or model>', or 'jina' "
                                        "(needs JINA_API_KEY).")
    rerank_cumulative: float = _setting(0.55, "Adaptive cutoff: keep chunks until their share of the total "
                                              "rerank score reaches this.")
    rerank_cliff: float = _setting(0.15, "Adaptive cutoff: drop chunks scoring more than this below the top "
                                         "chunk (1.0 turns it off).")
    routed_rerank_cliff: float = _setting(0.25, "Adaptive cutoff inside routed filings (HDRR with a route): the "
                                                "cliff there; every candidate is from a routed filing, so a wider "
                                                "cut lets in no other company's chunks (0.15: the paper's).")
    max_chunks: int = _setting(10, "Adaptive cutoff: at most this many chunks reach the generator.")
    routed_context: str = _setting("budget", "How HDRR chooses the context inside a routed filing: 'budget' "
                                             "(every chunk of the filing scored; a line-item question keeps the "
                                             "adaptive cutoff, an open one fills `context_budget_tokens`, with "
                                             "section preference and neighbour expansion) or 'paper' (the "
                                             "adaptive cutoff for every question).")
    routed_candidates: int = _setting(400, "Inside routed filings ('budget'): BM25 and vector candidates per "
                                           "query (a filing has a few hundred chunks: exhaustive).")
    context_budget_tokens: int = _setting(15000, "Inside routed filings ('budget'): the most context tokens an "
                                                 "open question (drivers, lists, several years) may use; the "
                                                 "paper's HDRR budget is 5k-15k.")
    context_floor: float = _setting(0.5, "Inside routed filings ('budget'): an open question's chunks stop where "
                                         "the score falls below this share of the top chunk's.")
    section_rule: str = _setting("prefer", "Inside routed filings ('budget'): 'prefer' (a bonus for chunks in "
                                           "the sections the question points to), 'require' (only those "
                                           "chunks, when the filing has any) or 'off'.")
    section_weight: float = _setting(0.1, "Inside routed filings ('budget'): rerank bonus of a chunk in a section "
                                          "the question points to (MD&A for drivers, Legal Proceedings for "
                                          "litigation...; 0 turns the preference off).")
    fused_keep: int = _setting(2, "Inside routed filings ('budget'): the best candidates of the fused BM25 and "
                                  "vector lists that always reach the context, whatever the reranker says.")
    expand_top: int = _setting(3, "Inside routed filings ('budget'): the top chunks of an open question whose "
                                  "neighbours and section heading are added (0: no expansion).")

    # ------------------------------------------------------------------- routing
    default_year: int = _setting(2023, "Fiscal year to route to when the question names none.")
    routing_scope: str = _setting("confidence", "How many filings a route reads: 'confidence' (one filing when "
                                                "routing is sure; the company's tied filings, e.g. two 8-Ks that "
                                                "both fit, when it is not) or 'filing' (always one per company).")
    router_rewrite: bool = _setting(True, "With an LLM router: one structured call extracts the routing identity, "
                                          "judges the registry's candidates and rewrites the query (HDRR makes 2 "
                                          "LLM calls instead of 3); false: separate router and rewriter calls.")
    fallback_scope: str = _setting("ask", "HDRR when routing finds no filing: 'ask' (a question that names no "
                                          "company gets no retrieval and an answer asking which company, status "
                                          "`which_company`, SFR too; a company mention routing could not resolve "
                                          "falls back to the corpus), 'corpus' (the paper's full-corpus fallback "
                                          "for both) or 'top_document' (only the chunks of the best-scoring "
                                          "filing).")

    # ------------------------------------------------------------------- Agentic
    max_retries: int = _setting(2, "Agentic: retries with the entity-anchored prefix after a failed "
                                   "verification.")
    retry_prefix: str = _setting("In {ticker}'s 10-K annual report: ", "Agentic: prefix put before the "
                                                                      "question on a retry; `{ticker}` is the "
                                                                      "target company.")

    # ----------------------------------------------------------------------- SFR
    sfr_max_context_tokens: int = _setting(120_000, "SFR: token budget of the whole-filing context, split "
                                                    "equally between the routed filings.")
    sfr_pdf_input: bool = _setting(False, "SFR: send the routed filing's PDF itself as an OpenAI file input "
                                          "(LLM generator only).")

    # -------------------------------------------------------------------- reader
    reader: bool = _setting(True, "Run the statement reader before generating: line items and metrics (margins, "
                                  "turnover and days ratios, liquidity ratios, growth) computed from the statement "
                                  "tables of the context, each input cited. Offline it answers when it can.")
    reader_statement_pages: bool = _setting(True, "Reader: when an input is not on the context's pages, also read "
                                                  "the routed filing's primary statement pages (found by their "
                                                  "titles); pages it cites are added to the contexts.")
    fast_path: str = _setting("auto", "With an LLM generator: skip the generator call when the reader is "
                                      "confident, answering from the statements ('auto' = on for HDRR, off "
                                      "for the other systems; 'on'; 'off'). Otherwise the LLM gets the "
                                      "reader's tables as extra context.")

    # --------------------------------------------------------------------- input
    max_question_chars: int = _setting(MAX_QUESTION_CHARS, "Longest question accepted, in characters.")

    def __init__(self, **values: Any) -> None:
        """The run's configuration: each field is `values[name]`, else `FINRAG_<NAME>` from the
        environment, else its default (None and "" count as not given); strings are coerced to the
        field's type. The only place the environment is read."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown configuration field(s): {', '.join(unknown)}; the fields are "
                             f"{', '.join(sorted(known))}")
        for f in fields(self):
            setattr(self, f.name, _resolve(f, values.get(f.name)))
        if not self.index_dir:
            self.index_dir = str(resolve_index_dir())

    @classmethod
    def from_runnable_config(cls, config: Optional[Mapping[str, Any]] = None) -> "Configuration":
        """A Configuration from a RunnableConfig's `configurable` (keys that are not fields are ignored).

        For code that holds a RunnableConfig (eval's judges); the graphs do not read `configurable`."""
        configurable = dict((config or {}).get("configurable") or {})
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in configurable.items() if k in known})

    def model_for(self, role: str) -> Any:
        """The model of a role (`router`, `rewriter`, ...): its own field if set, else `llm`."""
        value = getattr(self, f"{role}_model", "") or ""
        return value or self.llm


def _given(value: Any) -> bool:
    return not (value is None or (isinstance(value, str) and value == ""))


def _resolve(f: Field, given: Any) -> Any:
    """One field's value for a run: the given value, else the environment, else the default."""
    if _given(given):
        return _coerce(f, given, f.name)
    env_name = f"{ENV_PREFIX}{f.name.upper()}"
    raw = os.environ.get(env_name)
    if _given(raw):
        return _coerce(f, raw, env_name)
    if f.name == "llm" and os.environ.get("OPENAI_API_KEY"):
        return OPENAI_DEFAULT_MODEL
    return f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _coerce(f: Field, value: Any, source: str) -> Any:
    """Strings for int/float/bool fields become that type (env vars, CLI pairs, forms); the rest pass."""
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
    if not isinstance(value, str) or kind not in ("int", "float", "bool"):
        return value
    text = value.strip()
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        raise ValueError(f"{source}: expected {'an integer' if kind == 'int' else 'a number'}, "
                         f"got {value!r}") from None
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError(f"{source}: expected true or false, got {value!r}")
