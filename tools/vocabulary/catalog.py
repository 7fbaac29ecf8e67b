"""The metric catalog: `data/metric_catalog.toml` read into typed entries, each formula parsed into an `Expr`.

    CATALOG["current_ratio"].expression      # BinOp('/', Item('total_current_assets'), Item('total_current_liabilities'))
    parse_formula("cfo - abs(capex)")        # the catalog's formula language (the TOML file's header describes it)

A formula may name another metric of the catalog (`fcf_conversion = fcf / net_income`): it is written out in place.
A formula that names something that is neither a line item nor a metric, or does not parse, fails at import with
the entry's name (a broken catalog is a programming error, never a wrong answer).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional

from finrag.state.formula import Average, BinOp, Call, Expr, Item, Number
from finrag.tools.vocabulary.line_items import LINE_ITEMS

__all__ = ["CATALOG", "CatalogEntry", "OF_REVENUE", "parse_formula"]

CATALOG_FILE = Path(__file__).with_name("data") / "metric_catalog.toml"
OF_REVENUE = (r"(?:(?:as (?:a )?)?(?:%|percent(?:age)?|share|proportion) of|relative to|over|to|/|divided by|"
              r"compared (?:to|with)) (?:its |the )?(?:total )?(?:net )?(?:operating )?(?:sales|revenues?)")
"""'as a percent of revenue' as analysts write it ("as a % of sales", "as a percentage of net operating revenues")."""


@dataclass(frozen=True)
class CatalogEntry:
    """One metric of the catalog (the TOML file's header describes each field)."""

    name: str
    display: str
    names: tuple[str, ...]
    expression: Expr
    formula: str
    shown: str
    unit: Literal["percent", "ratio", "days", "currency"]
    decimals: int = 2
    good: str = ""
    threshold: Optional[float] = None
    threshold_text: str = ""
    percent_too: bool = False
    listed: tuple[str, ...] = ()


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>[a-z_][a-z0-9_]*)|(?P<sym>[-+*/(),]))")


def parse_formula(text: str, metrics: Optional[dict[str, Expr]] = None) -> Expr:
    """An expression of the catalog's formula language; `metrics`: other metrics' expressions, written out in place.
    Raises ValueError on anything else."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot read the formula at {text[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    at = [0]

    def peek() -> tuple[str, str]:
        return tokens[at[0]] if at[0] < len(tokens) else ("end", "")

    def take(expected: Optional[str] = None) -> tuple[str, str]:
        tok = peek()
        if expected is not None and tok[1] != expected:
            raise ValueError(f"expected {expected!r} in {text!r}")
        at[0] += 1
        return tok

    def expr() -> Expr:
        left = term()
        while peek()[1] in ("+", "-"):
            op = take()[1]
            left = BinOp(op=op, left=left, right=term())  # type: ignore[arg-type]
        return left

    def term() -> Expr:
        left = factor()
        while peek()[1] in ("*", "/"):
            op = take()[1]
            left = BinOp(op=op, left=left, right=factor())  # type: ignore[arg-type]
        return left

    def factor() -> Expr:
        kind, value = take()
        if kind == "num":
            return Number(value=float(value))
        if value == "(":
            inner = expr()
            take(")")
            return inner
        if kind != "name":
            raise ValueError(f"unexpected {value!r} in {text!r}")
        if peek()[1] == "(":
            take("(")
            args = [expr()]
            while peek()[1] == ",":
                take(",")
                args.append(expr())
            take(")")
            return _call(value, args, text)
        if value in LINE_ITEMS:
            return Item(item=value)
        if metrics is not None and value in metrics:
            return metrics[value]
        raise ValueError(f"{value!r} is neither a line item nor a metric of the catalog (in {text!r})")

    out = expr()
    if peek()[0] != "end":
        raise ValueError(f"unexpected {peek()[1]!r} in {text!r}")
    return out


def _call(fn: str, args: list[Expr], text: str) -> Expr:
    if fn in ("prior", "avg"):
        if len(args) != 1 or not isinstance(args[0], Item):
            raise ValueError(f"{fn}() takes one line item (in {text!r})")
        item = args[0]
        return item.model_copy(update={"offset": item.offset - 1}) if fn == "prior" else Average(of=item)
    if fn in ("abs", "opt", "first", "expense"):
        if len(args) != {"abs": 1, "opt": 1, "first": 2, "expense": 2}[fn]:
            raise ValueError(f"{fn}() takes {1 if fn in ('abs', 'opt') else 2} arguments (in {text!r})")
        return Call(fn=fn, args=args)  # type: ignore[arg-type]
    raise ValueError(f"unknown function {fn}() in {text!r}")


def _load() -> dict[str, CatalogEntry]:
    raw = tomllib.loads(CATALOG_FILE.read_text(encoding="utf-8"))
    expressions: dict[str, Expr] = {}
    pending = dict(raw)
    while pending:  # a metric may use other metrics: parse those it names first
        errors: dict[str, str] = {}
        before = len(pending)
        for name, spec in list(pending.items()):
            try:
                expressions[name] = parse_formula(spec["formula"], expressions)
                del pending[name]
            except (KeyError, ValueError) as err:
                errors[name] = str(err)
        if len(pending) == before:  # no progress: an unknown name or a cycle
            name = next(iter(errors))
            raise ValueError(f"metric catalog entry {name!r}: {errors[name]}")
    return {name: CatalogEntry(
        name=name, display=spec["display"], names=tuple(p.replace("{of_revenue}", OF_REVENUE) for p in spec["names"]),
        expression=expressions[name], formula=spec["formula"], shown=spec.get("shown", spec["formula"]),
        unit=spec["unit"], decimals=int(spec.get("decimals", 2)), good=spec.get("good", ""),
        threshold=spec.get("threshold"), threshold_text=spec.get("threshold_text", ""),
        percent_too=bool(spec.get("percent_too", False)), listed=tuple(spec.get("listed", ())))
        for name, spec in raw.items()}


CATALOG: dict[str, CatalogEntry] = _load()
