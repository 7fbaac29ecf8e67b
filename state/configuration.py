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

`Configuration` is a pydantic-settings class (`finrag.state.settings.FinragSettings`, where the rules are
written): each field takes the value given for the run, else `FINRAG_<FIELD>` (upper case) from the
environment, else its default; None and "" count as not given. Strings are coerced to the field's type
(int, float, bool), so environment variables, CLI `--configurable key=value` pairs and Studio's form all
work; an enum-like field (a `Literal`) takes one of its values, and anything else is a one-line
ValueError naming the field (or variable), the value and the allowed values. The index directory, when
not given, is resolved here too (`$FINRAG_HOME`, else `./.finrag`). `FINRAG_DEVICE` is an older name of
`FINRAG_EMBED_DEVICE`.

Only what a query applies is here; settings of other times live in `finrag.state.settings`:
`IndexSettings` (the V-B contextualizer's model and prompt, `finrag index`), `EvalSettings` (the judges'
models), `ServeSettings`, `MilvusSettings` and `ProcessSettings`. Together they are the only readers of
the environment. `index_reader` is not a setting: the caller may hand in an open index reader.

Defaults are the paper's, except the vector distance cut, which is ours (the paper's threshold belongs to
its OpenAI embeddings).

Models are named `provider/model`: `offline` (deterministic, no LLM), `openai/gpt-4.1`, or
`openai/<model>` with `llm_base_url` for any OpenAI-compatible server (vLLM, Ollama, llama.cpp).
A role's model may also be a LangChain chat model instance (tests pass fakes); it is kept as it is.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Literal, Mapping, Optional

from pydantic import Field, PrivateAttr, SkipValidation, model_validator
from pydantic.json_schema import SkipJsonSchema

from finrag.state import prompts
from finrag.state.index_reader import IndexReader
from finrag.state.settings import ENV_PREFIX, EvalSettings, FinragSettings, IndexSettings, ProcessSettings, given

MAX_QUESTION_CHARS = 4000
"""The longest question (in characters, after collapsing whitespace) any entry point accepts."""

DEFAULT_INDEX_DIR = ".finrag"
"""The index directory when neither `--index` / `index_dir` nor `$FINRAG_HOME` names one."""

INDEX_DIR_RULE = f"$FINRAG_HOME, else ./{DEFAULT_INDEX_DIR}"
"""How the default index directory is found, for help texts."""

OPENAI_DEFAULT_MODEL = "openai/gpt-4.1"
"""The default `llm` when OPENAI_API_KEY is set and FINRAG_LLM is not."""

# The paper's retrieval, fusion and cutoff defaults, and the routing default year: each is the default of
# its `Configuration` field below and of the function that applies it (`Store.search_fts`,
# `Store.search_vectors`, `nodes.rrf.reciprocal_rank_fusion`, `tools.retrieval.cutoff.adaptive_cutoff`,
# `Registry.resolve`), so each number is written once.
FTS_K = 20
VECTOR_K = 30
RRF_K = 60
RERANK_CUMULATIVE = 0.55
RERANK_CLIFF = 0.15
MAX_CHUNKS = 10
DEFAULT_YEAR = 2023

LLM_MAX_TOKENS: Mapping[str, int] = {"router": 1024, "rewriter": 512, "verifier": 256, "generator": 1024,
                                     "contextualizer": 200, "judge": 512}
"""The default completion-token limit of each LLM role (`Configuration.llm_max_tokens`)."""


def parse_max_tokens(value: Any, source: str) -> dict[str, int]:
    """`llm_max_tokens` from a dict, a JSON object, 'role=N,role=N' or one number for every role: the defaults
    with the given roles replaced; an unknown role or a limit that is not a whole number > 0 is a one-line
    ValueError naming `source` (the field or the environment variable)."""
    import json

    raw = value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError:
                raise ValueError(f"{source}: not a JSON object: {raw!r}") from None
        elif "=" in text or ":" in text:
            value = {}
            for part in text.replace(";", ",").split(","):
                if part.strip():
                    role, _, n = part.replace(":", "=").partition("=")
                    value[role.strip()] = n.strip()
        else:
            value = {role: text for role in LLM_MAX_TOKENS}
    elif isinstance(value, int) and not isinstance(value, bool):
        value = {role: value for role in LLM_MAX_TOKENS}
    if not isinstance(value, Mapping):
        raise ValueError(f"{source}: expected role=limit pairs (e.g. router=512,generator=1024), got {raw!r}")
    out = dict(LLM_MAX_TOKENS)
    for role, n in value.items():
        if role not in LLM_MAX_TOKENS:
            raise ValueError(f"{source}: unknown role {role!r}; the roles are {', '.join(LLM_MAX_TOKENS)}")
        try:
            limit = int(str(n).strip()) if not isinstance(n, bool) else 0
        except ValueError:
            limit = 0
        if limit <= 0:
            raise ValueError(f"{source}: the {role}'s limit must be a whole number of tokens > 0, not {n!r}")
        out[role] = limit
    return out


__all__ = ["DEFAULT_INDEX_DIR", "DEFAULT_YEAR", "ENV_PREFIX", "FTS_K", "INDEX_DIR_RULE", "MAX_CHUNKS",
           "LLM_MAX_TOKENS", "MAX_QUESTION_CHARS", "OPENAI_DEFAULT_MODEL", "RERANK_CLIFF", "RERANK_CUMULATIVE", "RRF_K", "VECTOR_K",
           "Configuration", "default_configuration", "resolve_index_dir", "user_cache_dir"]


def resolve_index_dir(index_dir: str | os.PathLike | None = None) -> Path:
    """The index directory: `index_dir` when given (`--index`, the configuration's `index_dir`),
    else `$FINRAG_HOME`, else `./.finrag`. The one place this rule is written."""
    if index_dir:
        return Path(index_dir).expanduser()
    return Path(ProcessSettings().home or DEFAULT_INDEX_DIR)


def user_cache_dir() -> Path:
    """finrag's folder for data derived from installed packages (`$XDG_CACHE_HOME/finrag`, else
    `~/.cache/finrag`): word frequencies, the ONNX query graph, Milvus registries. The one place this rule
    is written."""
    return Path(ProcessSettings().xdg_cache_home or Path.home() / ".cache") / "finrag"


def _setting(default: Any, description: str) -> Any:
    return Field(default=default, description=description)


class Configuration(FinragSettings):
    """How one run answers: index, models per role, prompts, retrieval and cutoff parameters."""

    label: ClassVar[str] = "configuration"
    env_aliases: ClassVar[Mapping[str, tuple[str, ...]]] = {"embed_device": ("FINRAG_EMBED_DEVICE", "FINRAG_DEVICE")}
    not_settings: ClassVar[frozenset[str]] = frozenset({"index_reader"})
    value_aliases: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "fast_path": {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}}
    open_choices: ClassVar[Mapping[str, tuple[str, str]]] = {"embed_device": ("cuda:N", r"cuda:\d+")}

    # ---------------------------------------------------------------- the index
    index_dir: str = _setting("", "Index directory. Empty: $FINRAG_HOME, else ./.finrag (resolved when the "
                                  "configuration is built).")
    threads_dir: str = _setting("", "Folder of the conversation thread stores (`finrag.threads`, runs with a "
                                    "thread_id). Empty: `threads.sqlite` inside the index directory.")
    embedder: str = _setting("auto", "Embedder; must be the one that built the index: 'auto' (the one the index "
                                     "records; a new index: 'static'), 'static' (the bundled MiniLM distilled into "
                                     "one vector per word piece, offline), 'minilm' (bundled, offline; documents "
                                     "need the finrag[minilm] extra) or "
                                     "'openai[:model[:dims]]'.")
    embed_device: Literal["auto", "cpu", "cuda"] | str = _setting("auto", "Device of MiniLM's document embedding (`finrag index`, HDRR's "
                                         "on-demand embedding): 'auto' (a CUDA GPU when torch sees one, else "
                                         "the CPU), 'cpu' or 'cuda' (or 'cuda:N'). Queries are embedded in NumPy on the CPU.")
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
    temperature: float = _setting(0.0, "Sampling temperature of every LLM call.")
    on_llm_error: Literal["fail", "offline"] = _setting("fail", "When a call to the requested LLM fails (unreachable server, HTTP "
                                         "error, a reply that does not parse): 'fail' stops the run with one "
                                         "line naming the role, model and cause; 'offline' answers that role "
                                         "with its offline strategy and marks the answer (`offline_fallback`).")
    llm_timeout_s: float = _setting(60.0, "Seconds one attempt of an LLM call (chat or OpenAI embeddings) may "
                                          "wait for the server (connect, send, each read); a call that runs "
                                          "out fails as 'timed out after N s'. `finrag serve` lowers it to its "
                                          "request timeout.")
    llm_max_tokens: dict[str, int] = _setting(dict(LLM_MAX_TOKENS), (
        "Completion-token limit of each LLM role's replies (sent as max_tokens): a role not given keeps its default "
        "(router 1024, rewriter 512, verifier 256, generator 1024, contextualizer 200, judge 512; judge2 is the "
        "judge's). A dict, or in FINRAG_LLM_MAX_TOKENS / --configurable: 'router=1024,generator=2048', JSON, or one "
        "number for every role. A reply that reaches its limit (finish_reason=length) fails the call: 'the router "
        "LLM stopped at its limit of 1024 tokens', exit 3, or the offline strategy with on_llm_error=offline."))
    structured_output: Literal["auto", "json_schema", "tools", "json_object", "prompt"] = _setting("auto", (
        "How structured calls (router, rewriter, verifier, judge) ask for JSON: 'json_schema' (strict "
        "response_format; OpenAI, vLLM), 'tools' (a function call; llama-cpp-python, llama.cpp), 'json_object' "
        "(response_format json_object with the schema; llama-cpp-python, Ollama), 'prompt' (the schema in the "
        "prompt, the reply checked, one repair call) or 'auto' (the first the server does not reject, in that "
        "order, remembered per base URL and model; a rejection is not retried). The method used is in each "
        "call's record (`structured`)."))
    llm_system_role: Literal["auto", "system", "user"] = _setting("auto", (
        "Where each LLM call's instructions go: 'system' (a system message; OpenAI, vLLM, llama-server), 'user' "
        "(folded into the first user turn, for servers whose chat format drops system messages, e.g. "
        "llama-cpp-python's gemma) or 'auto' (a system message until the server's prompt-token count shows it was "
        "dropped, then folded for that server, the call sent again). Folded calls say so in their record "
        "(`system_folded`)."))
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

    # ----------------------------------------------------------------- retrieval
    fts_k: int = _setting(FTS_K, "BM25 candidates per query.")
    vector_k: int = _setting(VECTOR_K, "Vector candidates per query.")
    vector_max_distance: float = _setting(1.25, "Largest L2 distance between unit vectors a vector candidate "
                                                "may have (1.25 = cosine 0.22).")
    embed_on_demand: bool = _setting(True, "HDRR: embed a routed filing whose vectors are not stored yet (the "
                                           "index stores text first; about 15 s for a 10-K on two CPU cores), "
                                           "kept for the next question; false: BM25 only for it, and the "
                                           "answer's `retrieval` says so.")
    rrf_k: int = _setting(RRF_K, "Reciprocal rank fusion constant: score = sum of 1 / (k + rank).")
    reranker: str = _setting("offline", "Reranker: 'offline', 'cross-encoder:<local path or model>', or 'jina' "
                                        "(needs JINA_API_KEY).")
    rerank_cumulative: float = _setting(RERANK_CUMULATIVE, "Adaptive cutoff: keep chunks until their share of the total "
                                              "rerank score reaches this.")
    rerank_cliff: float = _setting(RERANK_CLIFF, "Adaptive cutoff: drop chunks scoring more than this below the top "
                                         "chunk (1.0 turns it off).")
    routed_rerank_cliff: float = _setting(0.25, "Adaptive cutoff inside routed filings (HDRR with a route): the "
                                                "cliff there; every candidate is from a routed filing, so a wider "
                                                "cut lets in no other company's chunks (0.15: the paper's).")
    max_chunks: int = _setting(MAX_CHUNKS, "Adaptive cutoff: at most this many chunks reach the generator.")
    routed_context: Literal["budget", "paper"] = _setting("budget", "How HDRR chooses the context inside a routed filing: 'budget' "
                                             "(every chunk of the filing scored; a line-item question keeps the "
                                             "adaptive cutoff, an open one fills `context_budget_tokens`, with "
                                             "section preference and neighbour expansion) or 'paper' (the "
                                             "adaptive cutoff for every question).")
    routed_candidates: int = _setting(400, "Inside routed filings ('budget'): BM25 and vector candidates per "
                                           "query (a filing has a few hundred chunks: exhaustive).")
    context_budget_tokens: int = _setting(15000, "Inside routed filings ('budget'): the most context tokens an "
                                                 "open question (drivers, lists, several years) may use; the "
                                                 "paper's HDRR budget is 5k-15k.")
    llm_context_window: int = _setting(0, "The generator model's context length in tokens: the prompt (system, "
                                          "context, question and the completion limit) is fitted inside it, "
                                          "passages that do not fit left out. 0 (the default): read from the "
                                          "server where it says it (llama.cpp /props, vLLM /v1/models, Ollama "
                                          "/api/show), else unknown and nothing is cut.")
    context_floor: float = _setting(0.5, "Inside routed filings ('budget'): an open question's chunks stop where "
                                         "the score falls below this share of the top chunk's.")
    section_rule: Literal["prefer", "require", "off"] = _setting("prefer", "Inside routed filings ('budget'): 'prefer' (a bonus for chunks in "
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
    default_year: int = _setting(DEFAULT_YEAR, "Fiscal year to route to when the question names none.")
    routing_scope: Literal["confidence", "filing"] = _setting("confidence", "How many filings a route reads: 'confidence' (one filing when "
                                                "routing is sure; the company's tied filings, e.g. two 8-Ks that "
                                                "both fit, when it is not) or 'filing' (always one per company).")
    router_rewrite: bool = _setting(True, "With an LLM router: one structured call extracts the routing identity, "
                                          "judges the registry's candidates and rewrites the query (HDRR makes 2 "
                                          "LLM calls instead of 3); false: separate router and rewriter calls.")
    fallback_scope: Literal["ask", "corpus", "top_document"] = _setting("ask", "HDRR when routing finds no filing: 'ask' (a question that names no "
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
    fast_path: Literal["auto", "on", "off"] = _setting("auto", "With an LLM generator: skip the generator call when the reader is "
                                      "confident, answering from the statements ('auto' = on for HDRR, off "
                                      "for the other systems; 'on' (or true, yes, 1); 'off' (or false, no, 0)). Otherwise the LLM gets the "
                                      "reader's tables as extra context.")

    # --------------------------------------------------------------------- input
    max_question_chars: int = _setting(MAX_QUESTION_CHARS, "Longest question accepted, in characters.")

    # ------------------------------------------------------- not a setting
    # typed for the type checker, not checked at run time (a caller may hand any object with the members its
    # nodes read, e.g. a test's stand-in), as before
    index_reader: SkipJsonSchema[SkipValidation[Optional[IndexReader]]] = Field(
        default=None, exclude=True, description=(
        "An open index reader (finrag IndexReader) handed in by the caller (tests, a server); not a setting: never "
        "read from the environment; None: the index of `index_dir`, opened once per process."))

    _role_models: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, **values: Any) -> None:
        """The run's configuration (the rules: `finrag.state.settings.FinragSettings`); restated here so that type
        checkers take `**values` rather than pydantic's per-field signature."""
        super().__init__(**values)

    @classmethod
    def coerce(cls, name: str, value: Any, source: str) -> Any:
        """finrag's coercion (`FinragSettings.coerce`); `llm_max_tokens` also from 'role=N,...' (`parse_max_tokens`)."""
        if name == "llm_max_tokens":
            return parse_max_tokens(value, source)
        return super().coerce(name, value, source)

    @classmethod
    def env_defaults(cls, values: dict[str, Any], environ: Mapping[str, str | None]) -> None:
        """`llm` is openai/gpt-4.1 when OPENAI_API_KEY is set and FINRAG_LLM is not."""
        if "llm" not in values and environ.get("OPENAI_API_KEY"):
            values["llm"] = OPENAI_DEFAULT_MODEL

    @model_validator(mode="after")
    def _resolve_index_dir(self) -> "Configuration":
        if not self.index_dir:
            self.index_dir = str(resolve_index_dir())
        return self

    @classmethod
    def from_runnable_config(cls, config: Optional[Mapping[str, Any]] = None) -> "Configuration":
        """A Configuration from a RunnableConfig's `configurable` (keys that are not fields are ignored).

        For code that holds a RunnableConfig (eval's judges); the graphs do not read `configurable`."""
        configurable = dict((config or {}).get("configurable") or {})
        return cls(**{k: v for k, v in configurable.items() if k in cls.model_fields})

    def model_for(self, role: str) -> Any:
        """The model of a role (`router`, `rewriter`, ...): its own field if set, else `llm`. The roles of other
        times (`contextualizer`: `IndexSettings`, `judge` and `judge2`: `EvalSettings`) take their model from
        the environment (`FINRAG_<ROLE>_MODEL`), else `llm`; `with_models` sets any role's for a copy."""
        if self._role_models.get(role):
            return self._role_models[role]
        if role == "contextualizer":
            return IndexSettings().model_for(role, self.llm)
        if role in ("judge", "judge2"):
            return EvalSettings().model_for(role, self.llm)
        value = getattr(self, f"{role}_model", "") or ""
        return value or self.llm

    def with_models(self, **models: Any) -> "Configuration":
        """A copy whose `model_for(role)` is `models[role]` for the roles given (index- and eval-time code that
        holds the model of its role: `IndexSettings`, `EvalSettings`, a `--judge` spec)."""
        copy = self.model_copy()
        copy._role_models = {**self._role_models, **{k: v for k, v in models.items() if given(v)}}
        return copy


def default_configuration(given: Optional[Configuration] = None) -> Configuration:
    """`given` (a run's `Configuration`), else one of the defaults and FINRAG_*, built
    now: the default of code under `tools/` that a caller may call without a run's configuration (the OpenAI
    embeddings client's `llm_limits`)."""
    if given is not None:
        return given
    return Configuration()
