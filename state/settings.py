"""Settings read from the environment, grouped by when they apply; the only readers of the environment.

Every settings class is a `pydantic_settings.BaseSettings` built on `FinragSettings`, which keeps
finrag's rules in one place:

* a value given to the constructor wins, else the environment variable (`<env_prefix><FIELD>`, upper
  case, or the field's names in `env_aliases`, the first one set wins), else the default; None and ""
  count as not given, for given values and for environment values alike;
* strings are coerced to the field's type (int, float, bool: 1/true/yes/on, 0/false/no/off), and a value
  that does not convert is a one-line ValueError naming the field (a given value) or the variable (an
  environment value): `FINRAG_FTS_K: expected an integer, got 'many'`;
* an enum-like field (a `Literal`) takes its values in any case, surrounded by spaces or not; any other
  value is a one-line ValueError naming the field or variable, the bad value and the allowed values:
  `fallback_scope must be 'ask', 'corpus' or 'top_document', not 'top-document'`;
* unknown field names are a one-line ValueError (`unknown configuration field(s): ...`); pydantic's own
  (multi-line) validation errors become one line too, since entry points print `str(exc)`.

The groups:

* `finrag.state.configuration.Configuration`: what a query's run applies (LangGraph's run context);
* `IndexSettings`: what only `finrag index` applies (the V-B contextualizer's model and prompt);
* `EvalSettings`: what only evaluation applies (the judges' models);
* `ServeSettings`: `finrag serve`'s limits and API key (`FINRAG_SERVE_*`, `FINRAG_API_KEY`);
* `ThreadSettings`: the bounds of the conversation thread stores (`FINRAG_THREADS_MAX_*`);
* `MilvusSettings`: the Milvus backend (`FINRAG_MILVUS_*`);
* `ProcessSettings`: process-level settings of code that runs outside a query's configuration (the
  index home, the user cache, embedder defaults and threads, the query encoder, API keys and base URLs of
  services, including OpenAI's and Jina's own variables without the FINRAG_ prefix). Its fields are kept as
  strings (they never fail to build); the code that uses one checks it, with the message it always had.
"""
from __future__ import annotations

import inspect
import os
import re
from typing import Any, ClassVar, Literal, Mapping, Optional, Union, get_args, get_origin

from pydantic import Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from finrag.state import prompts

ENV_PREFIX = "FINRAG_"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def given(value: Any) -> bool:
    """Is a value given? None and "" count as not given."""
    return not (value is None or (isinstance(value, str) and value == ""))


def _choices(annotation: Any) -> tuple[str, ...]:
    """The values of the Literal in a field's annotation (also inside a Union), else ()."""
    if get_origin(annotation) is Literal:
        return tuple(str(a) for a in get_args(annotation))
    if get_origin(annotation) is Union or type(annotation).__name__ == "UnionType":
        return tuple(c for arm in get_args(annotation) for c in _choices(arm))
    return ()


def _scalar(annotation: Any) -> str:
    """'int', 'float', 'bool' or 'str' for those types (and Optional[...] of them), else ''."""
    if annotation in (int, float, bool, str):
        return annotation.__name__
    if get_origin(annotation) is Union or type(annotation).__name__ == "UnionType":
        arms = [a for a in get_args(annotation) if a is not type(None)]
        if len(arms) == 1:
            return _scalar(arms[0])
    return ""


def _listing(values: tuple[str, ...]) -> str:
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _one_line(exc: ValidationError) -> str:
    """pydantic's ValidationError in one line: `field: message, got value` for each error."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(x) for x in err.get("loc", ())) or exc.title
        parts.append(f"{loc}: {err.get('msg', 'invalid value')}, got {err.get('input')!r}")
    return "; ".join(parts) or str(exc).splitlines()[0]


class FinragSettings(BaseSettings):
    """finrag's settings rules (module docstring) on top of pydantic-settings."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, case_sensitive=True, extra="forbid",
                                      arbitrary_types_allowed=True, validate_default=False)

    label: ClassVar[str] = "setting"
    """What the unknown-field message calls a field (`unknown <label> field(s): ...`)."""
    env_aliases: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Environment variables of a field, when not (only) `<env_prefix><FIELD>`; the first one set wins."""
    not_settings: ClassVar[frozenset[str]] = frozenset()
    """Fields that are not settings: never read from the environment, never coerced."""
    value_aliases: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    """Other spellings of an enum-like field's values (`fast_path`: true -> on)."""
    open_choices: ClassVar[Mapping[str, tuple[str, str]]] = {}
    """Enum-like fields that also take values matching a pattern: field -> (how to name them, regex)."""

    def __init__(self, **values: Any) -> None:
        known = type(self).model_fields
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown {self.label} field(s): {', '.join(unknown)}; the fields are "
                             f"{', '.join(sorted(known))}")
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ValueError(_one_line(exc)) from None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """The signature is the constructor's, `(**values)` (pydantic would list every field)."""
        super().__pydantic_init_subclass__(**kwargs)
        cls.__signature__ = inspect.Signature(  # type: ignore[misc]
            [inspect.Parameter("values", inspect.Parameter.VAR_KEYWORD, annotation=Any)])

    @classmethod
    def env_names(cls, name: str) -> tuple[str, ...]:
        """The environment variables a field is read from, in order (none for a field that is not a setting)."""
        if name in cls.not_settings:
            return ()
        return cls.env_aliases.get(name) or (f"{cls.model_config.get('env_prefix', '')}{name.upper()}",)

    @classmethod
    def env_defaults(cls, values: dict[str, Any], environ: Mapping[str, str | None]) -> None:
        """Defaults that depend on other variables (Configuration: `llm` when OPENAI_API_KEY is set)."""

    @classmethod
    def coerce(cls, name: str, value: Any, source: str) -> Any:
        """One value of field `name` from `source` (the field's name, or the environment variable's)."""
        if name in cls.not_settings:
            return value
        info: FieldInfo = cls.model_fields[name]
        choices = _choices(info.annotation)
        if choices:
            return cls._choice(name, value, source, choices)
        kind = _scalar(info.annotation)
        if kind == "str" and isinstance(value, os.PathLike):
            return os.fspath(value)
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

    @classmethod
    def _choice(cls, name: str, value: Any, source: str, choices: tuple[str, ...]) -> str:
        key = str(value).lower() if isinstance(value, bool) else value.strip().lower() if isinstance(value, str) \
            else None
        if key is not None:
            key = cls.value_aliases.get(name, {}).get(key, key)
            if key in choices:
                return key
        named, pattern = cls.open_choices.get(name, ("", ""))
        if key is not None and pattern and re.fullmatch(pattern, key):
            return key
        raise ValueError(f"{source} must be {_listing(choices + ((named,) if named else ()))}, not {value!r}")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Given values, then the environment (finrag's rules); no dotenv, no secrets directory."""
        given_values = dict(getattr(init_settings, "init_kwargs", {}) or {})
        return _Given(settings_cls, given_values), _Environment(settings_cls)


class _Given(PydanticBaseSettingsSource):
    """The values given to the constructor: None and "" dropped, strings coerced (errors name the field)."""

    def __init__(self, settings_cls: type[BaseSettings], values: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self.values = values

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        cls: Any = self.settings_cls
        return {name: cls.coerce(name, value, name) for name, value in self.values.items()
                if name in cls.model_fields and (given(value) or name in cls.not_settings)}


class _Environment(EnvSettingsSource):
    """The environment: each setting's variables (`env_names`), empty ones ignored, strings coerced (errors
    name the variable); then `env_defaults`."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls, case_sensitive=True, env_ignore_empty=True)

    def __call__(self) -> dict[str, Any]:
        cls: Any = self.settings_cls
        out: dict[str, Any] = {}
        for name in cls.model_fields:
            for env in cls.env_names(name):
                raw = self.env_vars.get(env)
                if given(raw):
                    out[name] = cls.coerce(name, raw, env)
                    break
        cls.env_defaults(out, self.env_vars)
        return out


# ------------------------------------------------------------------------------------ the groups
class IndexSettings(FinragSettings):
    """What only `finrag index` applies: the V-B (`llmctx`) contextualizer (`FINRAG_CONTEXTUALIZER_*`) and the
    per-file parse budget (`FINRAG_MAX_FILE_CHARS`, `FINRAG_MAX_PARSE_SECONDS`)."""

    label: ClassVar[str] = "index setting"

    contextualizer_model: Any = Field(default="", description=(
        "Model that writes the situating context of each chunk when the V-B index variant (llmctx) is built. "
        "Empty: `llm`."))
    contextualizer_prompt: str = Field(default=prompts.CONTEXT_PROMPT, description=(
        "Prompt of the V-B contextualizer at index time; `{document}` and `{chunk}` are filled in."))
    max_file_chars: int = Field(default=50_000_000, gt=0, description=(
        "Per-file budget of extracted text in characters (`FINRAG_MAX_FILE_CHARS`): a file that yields more is "
        "reported as failed with the reason; the largest real 10-K here extracts 1.4 million."))
    max_parse_seconds: float = Field(default=300.0, gt=0, description=(
        "Per-file budget of parse time in seconds (`FINRAG_MAX_PARSE_SECONDS`), checked between pages and "
        "blocks: a file that takes longer is reported as failed with the reason; real filings parse in ~2 s."))

    def model_for(self, role: str, llm: Any) -> Any:
        """The model of an index-time role (`contextualizer`): its own field if set, else `llm`."""
        return getattr(self, f"{role}_model", "") or llm


class EvalSettings(FinragSettings):
    """What only evaluation applies: the judges' models (`FINRAG_JUDGE_MODEL`, `FINRAG_JUDGE2_MODEL`)."""

    label: ClassVar[str] = "eval setting"

    judge_model: Any = Field(default="", description="Model of the evaluation judge. Empty: `llm`.")
    judge2_model: Any = Field(default="", description="Model of the second evaluation judge. Empty: `llm`.")

    def model_for(self, role: str, llm: Any) -> Any:
        """The model of an evaluation role (`judge`, `judge2`): its own field if set, else `llm`."""
        return getattr(self, f"{role}_model", "") or llm


class ServeSettings(FinragSettings):
    """`finrag serve`'s limits (`FINRAG_SERVE_*`; None: the server's defaults) and API key."""

    model_config = SettingsConfigDict(env_prefix="FINRAG_SERVE_")
    label: ClassVar[str] = "serve setting"
    env_aliases: ClassVar[Mapping[str, tuple[str, ...]]] = {"api_key": ("FINRAG_API_KEY",)}

    max_body: Optional[int] = Field(default=None, description="Largest request body, in bytes (64,000).")
    timeout: Optional[float] = Field(default=None, description="Seconds per request (120; a whole /batch "
                                                                   "counts as one request).")
    max_batch: Optional[int] = Field(default=None, description="Inputs per /batch request (32).")
    header_timeout: Optional[float] = Field(default=None, description="Seconds a connection may take to send "
                                                                      "its request line and headers (10; then it "
                                                                      "is closed, 408 when part was sent).")
    workers: Optional[int] = Field(default=None, description="Worker processes answering requests, 1-64 (one "
                                                                 "per core, at most 4).")
    api_key: str = Field(default="", description="The X-API-Key header every request must carry "
                                                     "(FINRAG_API_KEY). Empty: no key required.")


class ThreadSettings(FinragSettings):
    """The bounds of every conversation thread store (`finrag.threads`: the Python API, `finrag chat`, the
    server's per-key stores; `FINRAG_THREADS_MAX_*`). 0 turns a bound off. The oldest go first: a thread's
    earliest turns, the least recently used threads, threads not used for longer than the age."""

    model_config = SettingsConfigDict(env_prefix="FINRAG_THREADS_")
    label: ClassVar[str] = "thread setting"

    max_turns: int = Field(default=50, ge=0, description="Turns kept per thread; a longer conversation goes on, "
                                                          "its earliest turns dropped (0: no limit).")
    max_threads: int = Field(default=1000, ge=0, description="Threads kept per store (per index and API key); a "
                                                              "new one drops the least recently used (0: no "
                                                              "limit).")
    max_age_days: float = Field(default=30.0, ge=0, description="Days a thread is kept after its last use "
                                                                 "(0: no limit).")
    create_per_minute: int = Field(default=60, ge=0, description="Threads one API key may create a minute "
                                                                  "through the server's POST /threads (429 past "
                                                                  "it; 0: no limit).")


class MilvusSettings(FinragSettings):
    """The Milvus backend (`FINRAG_MILVUS_*`, docs/milvus.md). `tls`, `bm25` and `avgdl_drift` are checked
    where they are used."""

    model_config = SettingsConfigDict(env_prefix="FINRAG_MILVUS_")
    label: ClassVar[str] = "Milvus setting"

    prefix: str = Field(default="finrag", description="Collection name prefix: several indexes in one "
                                                          "database.")
    tls: str = Field(default="", description="Connect with https/TLS (any value but empty and 0).")
    ca: str = Field(default="", description="CA certificate (PEM) that verifies a private CA.")
    token: str = Field(default="", description="`user:password` or an API key (Zilliz Cloud).")
    timeout: float = Field(default=10.0, description="Seconds to wait for the server.")
    consistency: str = Field(default="Strong", description="Consistency level of new collections.")
    index: str = Field(default="FLAT", description="Dense index type of new collections (FLAT, HNSW, "
                                                       "IVF_FLAT, IVF_SQ8, DISKANN, AUTOINDEX).")
    nlist: int = Field(default=1024, description="`nlist` of IVF indexes.")
    partitions: int = Field(default=64, description="`num_partitions` of the partitioned collections.")
    bm25: str = Field(default="finrag", description="BM25 of new collections: finrag or function.")
    avgdl_drift: str = Field(default="", description="Relative avgdl drift above which a full `finrag copy` "
                                                         "rewrites an unchanged document's BM25 weights "
                                                         "(0.01).")


class ProcessSettings(FinragSettings):
    """Process-level settings of code outside a query's configuration (strings; their users check them)."""

    label: ClassVar[str] = "process setting"
    env_aliases: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "embed_device": ("FINRAG_EMBED_DEVICE", "FINRAG_DEVICE"),  # FINRAG_DEVICE: the older name
        "xdg_cache_home": ("XDG_CACHE_HOME",), "openai_api_key": ("OPENAI_API_KEY",),
        "openai_base_url": ("OPENAI_BASE_URL",), "jina_api_key": ("JINA_API_KEY",)}

    home: str = Field(default="", description="The index when none is given: a directory or a milvus: "
                                                  "location (FINRAG_HOME). Empty: ./.finrag.")
    xdg_cache_home: str = Field(default="", description="The user cache's parent (XDG_CACHE_HOME). Empty: "
                                                            "~/.cache.")
    embedder: str = Field(default="", description="Embedder of code without a run's configuration "
                                                      "(FINRAG_EMBEDDER).")
    embed_device: str = Field(default="", description="Device of MiniLM's document embedding "
                                                          "(FINRAG_EMBED_DEVICE, or FINRAG_DEVICE).")
    embeddings_base_url: str = Field(default="", description="Base URL of an OpenAI-compatible embeddings "
                                                                 "server.")
    embed_threads: str = Field(default="", description="Threads of document embedding on the CPU. Empty: "
                                                           "every core this process may use.")
    query_encoder: str = Field(default="", description="Query encoder of MiniLM: auto, onnx or numpy.")
    pdf_layout: str = Field(default="", description="1 or true: let PyMuPDF load its layout model.")
    sec_base_url: str = Field(default="", description="Base URL of the SEC's EDGAR (tests, a mirror).")
    sec_user_agent: str = Field(default="", description="User-Agent of requests to the SEC.")
    jina_url: str = Field(default="", description="URL of Jina's rerank API (tests).")
    jina_api_key: str = Field(default="", description="Jina's API key (JINA_API_KEY).")
    openai_api_key: str = Field(default="", description="OpenAI's API key (OPENAI_API_KEY).")
    openai_base_url: str = Field(default="", description="OpenAI's base URL (OPENAI_BASE_URL).")


SETTINGS_CLASSES: tuple[type[FinragSettings], ...] = (IndexSettings, EvalSettings, ServeSettings, ThreadSettings,
                                                      MilvusSettings, ProcessSettings)
"""The settings classes besides `Configuration` (README's configuration section documents them)."""


def process_settings(given: ProcessSettings | None = None) -> ProcessSettings:
    """`given` (the process settings a caller handed in), else this process's, read from the environment now.

    The one place code under `tools/` gets a default for its process settings: `tools/` never constructs a
    settings class itself (tests/unit/test_configuration.py checks it); its functions take the settings, or
    the values, from their caller (`app/`, the CLI, a node with the run's Configuration) and fall back to this."""
    return given if given is not None else ProcessSettings()


def milvus_settings(given: MilvusSettings | None = None) -> MilvusSettings:
    """`given` (the Milvus settings a caller handed in), else this process's, read from the environment now (the
    default of `finrag.tools.indexing.milvus.schema.parse_location`; see `process_settings`)."""
    return given if given is not None else MilvusSettings()
