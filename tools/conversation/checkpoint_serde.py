"""The thread store's serializer: LangGraph's, loading only finrag's and LangGraph's own types (issue 49 case 3).

LangGraph's `JsonPlusSerializer` rebuilds a checkpoint's objects by importing the module and calling the name a
blob carries; by default it calls any name with only a warning, so a blob rewritten to name `os.system` ran when a
process listed the threads. `ThreadSerializer` is that serializer with an allow-list (LangGraph's own safe types,
which include LangChain's messages, plus finrag's state models: `ALLOWED`), and a check of every blob before it is
loaded: a blob that names anything else, or a serialization finrag never writes (pickle), is refused with
`TamperedCheckpoint` (one line), nothing of it called. The allow-list also ends LangGraph's warning
"Deserializing unregistered type finrag.state.question.QuestionFacts" that every follow-up printed.
"""
from __future__ import annotations

import inspect
import sqlite3
from typing import Any

import ormsgpack
from langgraph.checkpoint.serde import _msgpack as lg_msgpack
from langgraph.checkpoint.serde.jsonplus import (
    EXT_CONSTRUCTOR_KW_ARGS,
    EXT_CONSTRUCTOR_POS_ARGS,
    EXT_CONSTRUCTOR_SINGLE_ARG,
    EXT_DELTA_SNAPSHOT,
    EXT_METHOD_SINGLE_ARG,
    EXT_NUMPY_ARRAY,
    EXT_PYDANTIC_V1,
    EXT_PYDANTIC_V2,
    JsonPlusSerializer,
)
from pydantic import BaseModel

from finrag.state import contract, question, schema

__all__ = ["ALLOWED", "TamperedCheckpoint", "ThreadSerializer", "check_blob"]


class TamperedCheckpoint(sqlite3.DatabaseError):
    """A checkpoint blob names a type or a serialization finrag never writes (refused, nothing of it run). A
    `sqlite3.DatabaseError`: the store's readers report it where they report a store they cannot read
    (`finrag.threads.damaged`, which names it as what it is)."""


def _models(*modules: Any) -> set[tuple[str, str]]:
    """(module, name) of the pydantic models defined in `modules`."""
    return {(m.__name__, name) for m in modules for name, obj in vars(m).items()
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == m.__name__}


ALLOWED: frozenset[tuple[str, ...]] = frozenset(_models(question, contract, schema) | set(lg_msgpack.SAFE_MSGPACK_TYPES))
"""The types a finrag checkpoint may hold: finrag's state models and LangGraph's own safe list."""

_TYPED = {EXT_CONSTRUCTOR_SINGLE_ARG, EXT_CONSTRUCTOR_POS_ARGS, EXT_CONSTRUCTOR_KW_ARGS, EXT_PYDANTIC_V1,
          EXT_PYDANTIC_V2}
_PLAIN = ("null", "bytes", "bytearray", "json", "msgpack")


def _problem(code: int, inner: Any) -> str | None:
    """Why an ext object (its `code`, its decoded payload) is not one finrag stores, None when it is."""
    if code in _TYPED or code == EXT_METHOD_SINGLE_ARG:
        try:
            key = (str(inner[0]), str(inner[1]))
        except (TypeError, IndexError, KeyError):
            return "a checkpoint object without a type"
        allowed = (key in ALLOWED if code != EXT_METHOD_SINGLE_ARG
                   else (key[0], key[1], str(inner[3]) if len(inner) > 3 else "") in lg_msgpack.SAFE_MSGPACK_METHODS)
        return None if allowed else f"a checkpoint names {key[0]}.{key[1]}, which finrag never stores"
    if code not in (EXT_DELTA_SNAPSHOT, EXT_NUMPY_ARRAY):
        return f"a checkpoint holds an unknown msgpack extension ({code})"
    return None


def check_blob(blob: bytes) -> None:
    """TamperedCheckpoint when a msgpack blob holds (at any depth) an object of a type outside `ALLOWED`; nothing
    is constructed (an ext hook that only looks)."""
    found: list[str] = []

    def look(code: int, data: bytes) -> None:
        inner = ormsgpack.unpackb(data, ext_hook=look, option=ormsgpack.OPT_NON_STR_KEYS)
        problem = _problem(code, inner)
        if problem:
            found.append(problem)
            raise TamperedCheckpoint(problem)  # ormsgpack reports it as "ext_hook failed": `found` keeps it
        return None

    try:
        ormsgpack.unpackb(blob, ext_hook=look, option=ormsgpack.OPT_NON_STR_KEYS)
    except Exception as exc:  # noqa: BLE001 - a refusal, or not msgpack at all
        raise TamperedCheckpoint(found[0] if found else
                                 f"a checkpoint that does not decode ({type(exc).__name__})") from None


class ThreadSerializer(JsonPlusSerializer):
    """LangGraph's serializer loading only `ALLOWED` types, every blob checked before it is loaded."""

    def __init__(self) -> None:
        super().__init__(allowed_msgpack_modules=tuple(ALLOWED))

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        if kind not in _PLAIN:
            raise TamperedCheckpoint(f"a checkpoint serialized as {str(kind)[:20]!r}, which finrag never writes")
        if kind == "msgpack":
            check_blob(blob)
        return super().loads_typed(data)
