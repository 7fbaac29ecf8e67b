"""The run configuration: one object read from LangGraph's RunnableConfig.

Every field can be set per run (`config={"configurable": {...}}`, LangGraph Studio's
assistant config, the CLI's flags) or by environment variable `FINRAG_<FIELD>` in
upper case. Defaults are the paper's. Models are named `provider/model`:
`offline` (deterministic, no LLM), `openai/gpt-4.1`, or `openai/<model>` with
`llm_base_url` for any OpenAI-compatible server (vLLM, Ollama, llama.cpp).
A role's model may also be a LangChain chat model instance (tests pass fakes).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Optional

from langchain_core.runnables import RunnableConfig


def _default_model() -> str:
    return os.environ.get("FINRAG_LLM") or ("openai/gpt-4.1" if os.environ.get("OPENAI_API_KEY") else "offline")


@dataclass(kw_only=True)
class Configuration:
    # where the index lives
    index_dir: str = ""  # "" means $FINRAG_HOME or ./.finrag
    embedder: str = "minilm"
    alias_file: str = ""
    # models per role ("" = the default model)
    llm: str = field(default_factory=_default_model)
    llm_base_url: str = ""
    router_model: Any = ""
    rewriter_model: Any = ""
    verifier_model: Any = ""
    generator_model: Any = ""
    contextualizer_model: Any = ""
    judge_model: Any = ""
    judge2_model: Any = ""
    temperature: float = 0.0
    # retrieval (paper defaults)
    fts_k: int = 20
    vector_k: int = 30
    vector_max_distance: float = 1.25  # L2 between unit vectors; 1.25 <=> cosine >= 0.22
    rrf_k: int = 60
    reranker: str = "offline"  # offline | cross-encoder:<path or model> | jina
    rerank_cumulative: float = 0.55
    rerank_cliff: float = 0.15
    max_chunks: int = 10
    default_year: int = 2023
    fallback_scope: str = "corpus"  # HDRR when routing fails: corpus (paper) | top_document
    max_retries: int = 2
    retry_prefix: str = "In {ticker}'s 10-K annual report: "
    # SFR
    sfr_max_context_tokens: int = 120_000
    sfr_pdf_input: bool = False
    max_question_chars: int = 4000

    @classmethod
    def from_runnable_config(cls, config: Optional[RunnableConfig] = None) -> "Configuration":
        configurable = dict((config or {}).get("configurable") or {})
        values: dict[str, Any] = {}
        for f in fields(cls):
            if not f.init:
                continue
            if f.name in configurable and configurable[f.name] not in (None, ""):
                values[f.name] = configurable[f.name]
                continue
            env = os.environ.get(f"FINRAG_{f.name.upper()}")
            if env not in (None, ""):
                values[f.name] = env
        inst = cls(**values)
        for f in fields(cls):  # coerce env strings to the field's type
            v = getattr(inst, f.name)
            if isinstance(v, str) and f.type in ("int", "float"):
                setattr(inst, f.name, int(v) if f.type == "int" else float(v))
            elif isinstance(v, str) and f.type == "bool":
                setattr(inst, f.name, v.lower() in ("1", "true", "yes"))
        return inst

    def model_for(self, role: str) -> Any:
        value = getattr(self, f"{role}_model", "") or ""
        return value or self.llm
