"""The judgement catalog: `data/judgement_catalog.toml` read into typed rules (the TOML file's header describes them).

    JUDGEMENTS["capital_intensive"].tests[0]     # Test(metric='capex_revenue', op='above', threshold=10.0, ...)

A judgement ("is X capital-intensive", "does X have an improving gross margin profile") is a verdict read from
figures of the metric catalog against a convention: the rules are data; the question's reading says which one it asks
(`finrag.tools.question.judgement`), the answerer (`finrag.tools.answering.judgement_answer`) computes and words it. A rule naming a metric the catalog lacks fails at
import with the rule's name (a broken catalog is a programming error, never a wrong answer).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from finrag.tools.vocabulary.catalog import CATALOG

__all__ = ["JUDGEMENTS", "NAMED", "Judgement", "Test"]

JUDGEMENT_FILE = Path(__file__).with_name("data") / "judgement_catalog.toml"
NAMED = "named"
"""A test's metric that stands for the metric the question names."""


Op = Literal["above", "at_least", "below"]
Mode = Literal["level", "trend"]


@dataclass(frozen=True)
class Test:
    """One comparison of a level judgement: a metric against its threshold."""

    metric: str
    """A metric of the catalog, or `NAMED`."""
    op: Op
    threshold: float
    reading: str
    """The convention, as the answer says it."""
    named: tuple[str, ...] = ()
    """Metrics the question may name instead of `metric` (the named one is then tested)."""
    negative_passes: bool = False
    """A negative value meets the judgement whatever the threshold (a shareholders' deficit)."""
    negative_reading: str = ""
    """What a negative value means, said beside it."""

    def passes(self, value: float) -> bool:
        if self.negative_passes and value < 0:
            return True
        if self.op == "above":
            return value > self.threshold
        if self.op == "at_least":
            return value >= self.threshold
        return value < self.threshold


@dataclass(frozen=True)
class Judgement:
    """One judgement of the catalog (see the TOML file's header)."""

    name: str
    yes: str
    """The verdict Yes in words ({company}, {whose}, {metric}: see the TOML file's header)."""
    no: str
    mode: Mode
    asks: tuple[re.Pattern[str], ...] = ()
    direction: str = ""
    needs_named: bool = False
    tests: tuple[Test, ...] = ()
    worse: bool = False
    """A trend read the other way: Yes when the latest year is worse ("is its margin getting worse?")."""


def _test(name: str, spec: dict) -> Test:
    ops = [op for op in ("above", "at_least", "below") if op in spec]
    if len(ops) != 1:
        raise ValueError(f"judgement catalog entry {name!r}: a test takes one of above, at_least, below")
    metric = spec["metric"]
    for m in (metric, *spec.get("named", ())):
        if m != NAMED and m not in CATALOG:
            raise ValueError(f"judgement catalog entry {name!r}: {m!r} is no metric of the metric catalog")
    return Test(metric=metric, op=cast(Op, ops[0]), threshold=float(spec[ops[0]]), reading=spec.get("reading", ""),
                named=tuple(spec.get("named", ())), negative_passes=spec.get("negative") == "passes",
                negative_reading=spec.get("negative_reading", ""))


def _load() -> dict[str, Judgement]:
    raw = tomllib.loads(JUDGEMENT_FILE.read_text(encoding="utf-8"))
    out = {}
    for name, spec in raw.items():
        mode = spec.get("mode", "level")
        tests = tuple(_test(name, t) for t in spec.get("tests", ()))
        if mode not in ("level", "trend") or (mode == "level" and not tests):
            raise ValueError(f"judgement catalog entry {name!r}: a level judgement needs tests, a mode level or trend")
        out[name] = Judgement(name=name, yes=spec["yes"], no=spec["no"], mode=cast(Mode, mode),
                              asks=tuple(re.compile(p, re.I) for p in spec.get("asks", ())),
                              direction=spec.get("direction", ""), needs_named=spec.get("needs") == NAMED, tests=tests,
                              worse=spec.get("reads", "better") == "worse")
    return out


JUDGEMENTS: dict[str, Judgement] = _load()
