"""Issue 32's counts of the seams, for a tree: how often the code parses periods, reaches into the store,
leaves a store untyped, reads settings inside tools/, casts or re-checks typed settings, keeps unbounded
caches, leaves functions unchecked, reads graph state by key and writes the environment.

    .venv/bin/python bench/seams_counts.py                      # the working tree
    .venv/bin/python bench/seams_counts.py --root /work/before  # another checkout (read only)
    .venv/bin/python bench/seams_counts.py --json out.json      # also write the counts and where each one is
    .venv/bin/python bench/seams_counts.py --details            # print where each one is

Everything is read with `ast` from the source files (nothing is imported, so a checkout of another commit can
be measured from this one). "The package" is the folders `app graphs nodes state tools eval` (what
`mypy -p finrag` checks); tests and bench/ are not counted. A file that does not parse is skipped and named.

The measures (each one's `what` in the output says the same):

* period_parsers: modules of the package with a regular expression (the pattern given to `re.compile`,
  `re.search`, `re.match`, `re.fullmatch`, `re.findall`, `re.finditer`, `re.sub`, `re.subn` or `re.split`:
  its string, the constant parts of an f-string, or a `+` of those) that names a fiscal period: `FY` (not
  inside a word),
  `fiscal`, `quarter`, `Q1`-`Q4` (`q[1-4]`, `[1-4]q`, `Q[1234]`), `YTD`, `year-to-date`, `months ended`
  (case-insensitive). Also: modules with a year-number pattern (`(19|20)\\d`, `20\\d{2}`, `[12]\\d{3}`,
  `\\d{4}`), and fiscal-period patterns whose text is written in two or more modules (copies).
* store_private: `X._name` where `X` is `store`, `*_store`, `self.store` or `self._store` (`_name` single
  underscore, not a dunder): outside `tools/indexing/`, and outside the store classes' own modules
  (`tools/indexing/store*.py`, `tools/indexing/milvus/store.py`).
* private_reach_ins: every `X._name` whose `X` is a name or a dotted name (`self.store`) other than `self`, `cls`
  and the stdlib's `os`/`sys`, plus
  `from finrag.x import _name` across modules: private members used from outside their class or module.
* untyped_store_params: parameters named `store` or `*_store` without an annotation (and, for the
  record, how many are annotated, and how many of those name `IndexReader`).
* settings_in_tools: calls of a name ending in `Settings` (`IndexSettings()`, `settings.MilvusSettings(...)`)
  in modules under `tools/`.
* config_casts: `int(...)`, `float(...)`, `str(...)` or `bool(...)` whose argument is (or is an `or` that starts
  with) `R.field` or `getattr(R, "field", ...)`, where `R` is a name or `self.` attribute containing `cfg` or `conf` and `field` is a field of
  `Configuration` or of a `*Settings` class (state/configuration.py, state/settings.py); of those, the casts
  of Literal fields.
* literal_revalidations: a membership test (`in` / `not in`) of a Literal setting's value, meaning `R.field`
  or `getattr(R, "field", ...)` for a Literal field of those classes, a name spelled as that field, or a
  local name assigned from an expression that reads one in the same function, against a set or dict (a
  literal, a `set()`/`frozenset()`/`dict()` call, or an UPPER_CASE constant), and every `not in` test of such
  a value; also any membership test against an UPPER_CASE constant named after a Literal field
  (`FAST_PATH_VALUES`, `ON_LLM_ERROR`).
  Also reported: how many Literal fields are re-checked and which.
* module_caches: module-level names bound to an empty `{}`, `dict()`, `set()`, `OrderedDict()`,
  `defaultdict(...)`, `WeakValueDictionary()` or `WeakKeyDictionary()` that a function of the module
  writes (`NAME[k] = v`, `.setdefault`, `.update`, `.add`, `.__setitem__`); "no bound" when the module never
  compares `len(NAME)` and never calls `NAME.popitem()`. Also counted: module-level instances of the bounded
  helpers (`LruCache`, `TextMemo`, `ServerMemory`), `functools.lru_cache` with a size and without one
  (`maxsize=None`, `functools.cache`).
* untyped_functions: functions and methods with no annotation at all (no parameter annotated, no return
  annotation): the ones mypy does not check without `check_untyped_defs`.
* state_get: calls `state.get(...)`.
* environ_writes: writes of `os.environ` outside `state/`: `os.environ[k] = v`, `del os.environ[k]`,
  `os.environ.update/setdefault/pop/popitem/clear/__setitem__(...)`, `os.putenv`, `os.unsetenv`.
* backend_sniffing: `hasattr(X, "_...")` (asking an object for a private member) and comparisons of an
  attribute `.backend` with a string.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterator

PACKAGE = ("app", "graphs", "nodes", "state", "tools", "eval")
RE_FUNCS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
FISCAL = re.compile(r"(?:(?<![a-z])|(?<=\\b))fy(?![a-z])|fiscal|quarter|q\(?\[1-4\]|q\(?\[1234\]|\[1-4\]q|\[1234\]q"
                    r"|q[1-4]|ytd|year.{0,4}to.{0,4}date|months.{0,6}ended", re.I)
YEAR = re.compile(r"\(\?:19\|20\)\\d|\(19\|20\)\\d|20\\d\{2\}|20\\d\\d|\[12\]\\d\{3\}|\\d\{4\}")
CACHE_CALLS = {"dict", "set", "OrderedDict", "defaultdict", "WeakValueDictionary", "WeakKeyDictionary"}
BOUNDED_HELPERS = {"LruCache", "TextMemo", "ServerMemory"}
WRITE_METHODS = {"setdefault", "update", "add", "__setitem__"}
ENV_WRITE_METHODS = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__"}


def where(path: str, node: ast.AST) -> str:
    return f"{path}:{getattr(node, 'lineno', 0)}"


def files(root: Path, folders=PACKAGE) -> Iterator[tuple[str, Path]]:
    for top in folders:
        for path in sorted((root / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path.relative_to(root).as_posix(), path


def dotted(node: ast.AST) -> str:
    """`a.b.c` of a Name/Attribute chain ('' for anything else)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return ""


def call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def pattern_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = pattern_text(node.left), pattern_text(node.right)
        if left is not None or right is not None:
            return (left or "") + (right or "")
    return None


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# ---------------------------------------------------------------- the settings classes' fields

def settings_fields(root: Path) -> tuple[set[str], set[str]]:
    """(every field, the Literal fields) of `Configuration` and the `*Settings` classes of state/."""
    aliases: set[str] = set()
    trees = []
    for _, path in files(root, ("state",)):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        trees.append(tree)
        for node in tree.body:
            target: ast.AST | None = None
            value: ast.AST | None = None
            if isinstance(node, ast.Assign):
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            if isinstance(target, ast.Name) and value is not None and "Literal" in ast.unparse(value):
                aliases.add(target.id)
    fields, literal = set(), set()
    for tree in trees:
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if not (cls.name == "Configuration" or cls.name.endswith("Settings")):
                continue
            for node in cls.body:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and not is_private(node.target.id):
                    fields.add(node.target.id)
                    ann = ast.unparse(node.annotation)
                    if "Literal" in ann or any(re.search(rf"\b{re.escape(a)}\b", ann) for a in aliases):
                        literal.add(node.target.id)
    return fields, literal


# ---------------------------------------------------------------- the measures, one module at a time

class Counts:
    def __init__(self, root: Path):
        self.root = root
        self.fields, self.literal = settings_fields(root)
        self.items: dict[str, list[str]] = defaultdict(list)
        self.skipped: list[str] = []
        self.fiscal_patterns: dict[str, set[str]] = defaultdict(set)

    def add(self, key: str, path: str, node: ast.AST, note: str = "") -> None:
        self.items[key].append(where(path, node) + (f" {note}" if note else ""))

    def run(self) -> dict[str, Any]:
        for rel, path in files(self.root):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError) as e:
                self.skipped.append(f"{rel}: {type(e).__name__}")
                continue
            self.module(rel, tree)
        return self.report()

    def cfg_like(self, node: ast.AST) -> bool:
        name = dotted(node)
        last = name.split(".")[-1].lower() if name else ""
        return bool(last) and ("cfg" in last or "conf" in last) and name.count(".") <= 1

    def setting_read(self, node: ast.AST) -> str | None:
        """The field `R.field` reads, for a configuration-like `R` and a settings field."""
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            node = node.values[0]
        if isinstance(node, ast.Attribute) and node.attr in self.fields and self.cfg_like(node.value):
            return node.attr
        return self.getattr_read(node, self.fields)

    def getattr_read(self, node: ast.AST, fields: set[str]) -> str | None:
        """`getattr(R, "field", ...)` of a configuration-like `R`: the field."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and self.cfg_like(node.args[0]) and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in fields:
            return str(node.args[1].value)
        return None

    def module(self, rel: str, tree: ast.Module) -> None:
        in_tools = rel.startswith("tools/")
        in_indexing = rel.startswith("tools/indexing/")
        store_module = (rel.startswith("tools/indexing/store") or rel == "tools/indexing/milvus/store.py")
        # ---- regexes
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RE_FUNCS \
                    and dotted(node.func.value) == "re" and node.args:
                text = pattern_text(node.args[0])
                if text is None:
                    continue
                m = FISCAL.search(text)
                if m:
                    self.add("period_regexes", rel, node, f"[{m.group(0)}] {text[:60]!r}")
                    self.fiscal_patterns[text].add(rel)
                elif YEAR.search(text):
                    self.add("year_regexes", rel, node, repr(text[:60]))
        # ---- private members, stores, settings, casts, state.get, environ, sniffing
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                recv = dotted(node.value)
                if recv in ("store", "self.store", "self._store") or recv.endswith("_store") and recv.count(".") == 0:
                    if not in_indexing:
                        self.add("store_private_outside_indexing", rel, node, f"{recv}.{node.attr}")
                    if not store_module:
                        self.add("store_private_outside_store_modules", rel, node, f"{recv}.{node.attr}")
                if recv and recv not in ("self", "cls", "os", "sys"):
                    self.add("private_reach_ins", rel, node, f"{recv}.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("finrag"):
                for a in node.names:
                    if is_private(a.name):
                        self.add("private_reach_ins", rel, node, f"from {node.module} import {a.name}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(rel, node)
            elif isinstance(node, ast.Call):
                name = call_name(node)
                if in_tools and name.endswith("Settings") and name[:1].isupper():
                    self.add("settings_in_tools", rel, node, f"{name}()")
                if isinstance(node.func, ast.Name) and name in ("int", "float", "str", "bool") and len(node.args) == 1:
                    field = self.setting_read(node.args[0])
                    if field:
                        self.add("config_casts", rel, node, f"{name}(.{field})")
                        if field in self.literal:
                            self.add("literal_casts", rel, node, f"{name}(.{field})")
                if name == "get" and isinstance(node.func, ast.Attribute) and dotted(node.func.value) == "state":
                    self.add("state_get", rel, node)
                if name == "hasattr" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) \
                        and isinstance(node.args[1].value, str) and is_private(node.args[1].value):
                    self.add("backend_sniffing", rel, node, f"hasattr(..., {node.args[1].value!r})")
                if not rel.startswith("state/"):
                    f = dotted(node.func)
                    if f in ("os.putenv", "os.unsetenv") or (
                            f.startswith("os.environ.") and f.split(".")[-1] in ENV_WRITE_METHODS):
                        self.add("environ_writes", rel, node, f)
            elif isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and s.attr == "backend" for s in sides) and any(
                        isinstance(s, ast.Constant) and isinstance(s.value, str) for s in sides):
                    self.add("backend_sniffing", rel, node, ".backend == ...")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)) and not rel.startswith("state/"):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and dotted(t.value) == "os.environ":
                        self.add("environ_writes", rel, node, "os.environ[...]")
        self.caches(rel, tree)

    def function(self, rel: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        a = fn.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs] + [p for p in (a.vararg, a.kwarg) if p]
        if fn.returns is None and all(p.annotation is None for p in params):
            self.add("untyped_functions", rel, fn, fn.name)
        for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            if p.arg == "store" or p.arg.endswith("_store"):
                if p.annotation is None:
                    self.add("untyped_store_params", rel, p, f"{fn.name}({p.arg})")
                else:
                    ann = ast.unparse(p.annotation)
                    self.add("typed_store_params", rel, p, f"{fn.name}({p.arg}: {ann})")
                    if "IndexReader" in ann:
                        self.add("store_params_typed_index_reader", rel, p, f"{fn.name}({p.arg})")
        self.revalidations(rel, fn)

    def literal_value(self, node: ast.AST, locals_: dict[str, str]) -> str | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # str(cfg.x).strip().lower()
            return self.literal_value(node.func.value, locals_)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and node.args:
            return self.literal_value(node.args[0], locals_)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            return self.literal_value(node.values[0], locals_)
        if isinstance(node, ast.Attribute) and node.attr in self.literal:
            return node.attr
        if isinstance(node, ast.Name):
            return node.id if node.id in self.literal else locals_.get(node.id)
        return self.getattr_read(node, self.literal)

    def revalidations(self, rel: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        locals_: dict[str, str] = {}
        body = [n for n in ast.walk(fn) if n is not fn]
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                reads = [n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)
                         and n.attr in self.literal and self.cfg_like(n.value)]
                reads += [f for f in (self.getattr_read(n, self.literal) for n in ast.walk(node.value)) if f]
                if reads:
                    locals_[node.targets[0].id] = reads[0]
        for node in body:
            if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))):
                continue
            container = node.comparators[0]
            field = self.literal_value(node.left, locals_)
            constant = dotted(container).split(".")[-1]
            if not field and constant.isupper():  # `key not in FAST_PATH_VALUES`: a constant named after the field
                field = next((f for f in sorted(self.literal) if f.upper() in constant), None)
            if not field:
                continue
            as_set = (isinstance(container, (ast.Set, ast.Dict, ast.SetComp, ast.DictComp))
                      or isinstance(container, ast.Call) and call_name(container) in ("set", "frozenset", "dict")
                      or (dotted(container).split(".")[-1].isupper() and dotted(container) != ""))
            if as_set or isinstance(node.ops[0], ast.NotIn):
                self.add("literal_revalidations", rel, node, f"{field}: {ast.unparse(node)[:70]}")

    def caches(self, rel: str, tree: ast.Module) -> None:
        def top_level(body):
            for node in body:
                if isinstance(node, (ast.If, ast.Try)):
                    yield from top_level(node.body)
                    yield from top_level(node.orelse)
                    for h in getattr(node, "handlers", []):
                        yield from top_level(h.body)
                else:
                    yield node
        candidates: dict[str, ast.AST] = {}
        for node in top_level(tree.body):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                v = node.value
                empty = (isinstance(v, ast.Dict) and not v.keys) or (isinstance(v, ast.Call) and call_name(v) in CACHE_CALLS
                                                                     and (call_name(v) == "defaultdict" or not v.args))
                if isinstance(v, ast.Call) and call_name(v) in BOUNDED_HELPERS:
                    for n in names:
                        self.add("bounded_helper_caches", rel, node, f"{n} = {call_name(v)}(...)")
                elif empty:
                    for n in names:
                        candidates[n] = node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    name = dotted(d.func if isinstance(d, ast.Call) else d).split(".")[-1]
                    if name == "cache" or name == "lru_cache" and isinstance(d, ast.Call) and any(
                            k.arg == "maxsize" and isinstance(k.value, ast.Constant) and k.value.value is None
                            for k in d.keywords) or (name == "lru_cache" and isinstance(d, ast.Call) and d.args
                                                     and isinstance(d.args[0], ast.Constant) and d.args[0].value is None):
                        self.add("lru_cache_unbounded", rel, node, node.name)
                    elif name == "lru_cache":
                        self.add("lru_cache_bounded", rel, node, node.name)
        if not candidates:
            return
        written, bounded = set(), set()
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Assign, ast.AugAssign)):
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                            written.add(t.value.id)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                    if node.func.attr in WRITE_METHODS:
                        written.add(node.func.value.id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Call) and call_name(sub) == "len" and sub.args and isinstance(sub.args[0], ast.Name):
                        bounded.add(sub.args[0].id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "popitem" \
                    and isinstance(node.func.value, ast.Name):
                bounded.add(node.func.value.id)
        for name, node in candidates.items():
            if name in written:
                self.add("module_caches", rel, node, name)
                if name not in bounded:
                    self.add("module_caches_unbounded", rel, node, name)

    def report(self) -> dict[str, Any]:
        def count(key):
            return len(self.items.get(key, []))

        def modules(key):
            return sorted({x.split(":")[0] for x in self.items.get(key, [])})

        def per_file(key):
            return dict(Counter(x.split(":")[0] for x in self.items.get(key, [])).most_common())

        copies = {t: sorted(m) for t, m in self.fiscal_patterns.items() if len(m) > 1}
        revalidated = sorted({x.split(" ", 1)[1].split(":")[0] for x in self.items.get("literal_revalidations", [])})
        rows = {
            "period_parsers": (len(modules("period_regexes")), "modules with a regex naming a fiscal period (FY, fiscal, quarter, Q1-Q4, YTD, months ended)", modules("period_regexes")),
            "period_parsers_outside_tools_question": (len([m for m in modules("period_regexes") if not m.startswith("tools/question/")]), "of those, outside tools/question/ (the question's one reader)", None),
            "period_regexes": (count("period_regexes"), "those regexes", None),
            "period_regex_copies": (len(copies), "fiscal-period patterns written in 2+ modules", copies),
            "year_regex_modules": (len(modules("year_regexes")), "modules with a year-number regex and no fiscal-period regex there", modules("year_regexes")),
            "store_private_outside_indexing": (count("store_private_outside_indexing"), "store._x outside tools/indexing/", None),
            "store_private_outside_store_modules": (count("store_private_outside_store_modules"), "store._x outside the store classes' modules", per_file("store_private_outside_store_modules")),
            "private_reach_ins": (count("private_reach_ins"), "X._name on another object or module, from finrag.x import _name", per_file("private_reach_ins")),
            "untyped_store_params": (count("untyped_store_params"), "`store` / `*_store` parameters without annotation", per_file("untyped_store_params")),
            "typed_store_params": (count("typed_store_params"), "`store` / `*_store` parameters with one", None),
            "store_params_typed_index_reader": (count("store_params_typed_index_reader"), "of those, annotated with IndexReader", None),
            "settings_in_tools": (count("settings_in_tools"), "*Settings(...) constructions in tools/", per_file("settings_in_tools")),
            "config_casts": (count("config_casts"), "int/float/str/bool(cfg.field) of Configuration / *Settings fields", per_file("config_casts")),
            "literal_casts": (count("literal_casts"), "of those, casts of Literal fields", None),
            "literal_fields": (len(self.literal), "Literal fields of Configuration / *Settings", sorted(self.literal)),
            "literal_revalidations": (count("literal_revalidations"), "membership tests of a Literal setting's value against a set/dict, or `not in`", None),
            "literal_fields_revalidated": (len(revalidated), "Literal fields with such a test", revalidated),
            "module_caches": (count("module_caches"), "module-level mutable caches written by the module's functions", None),
            "module_cache_files": (len(modules("module_caches")), "files holding them", None),
            "module_caches_unbounded": (count("module_caches_unbounded"), "of those, without a bound (no len() test, no popitem)", None),
            "bounded_helper_caches": (count("bounded_helper_caches"), "module-level LruCache / TextMemo / ServerMemory", None),
            "lru_cache_bounded": (count("lru_cache_bounded"), "functools.lru_cache with a size", None),
            "lru_cache_unbounded": (count("lru_cache_unbounded"), "functools.cache / lru_cache(maxsize=None)", None),
            "untyped_functions": (count("untyped_functions"), "functions without any annotation (mypy skips their bodies by default)", per_file("untyped_functions")),
            "state_get": (count("state_get"), "state.get(...) calls", per_file("state_get")),
            "environ_writes": (count("environ_writes"), "os.environ writes outside state/", per_file("environ_writes")),
            "backend_sniffing": (count("backend_sniffing"), "hasattr(x, '_...') and .backend == '...'", None),
        }
        return {
            "root": str(self.root),
            "commit": commit_of(self.root),
            "counts": {k: v[0] for k, v in rows.items()},
            "what": {k: v[1] for k, v in rows.items()},
            "summary": {k: v[2] for k, v in rows.items() if v[2] is not None},
            "where": {k: v for k, v in sorted(self.items.items())},
            "skipped": self.skipped,
        }


def commit_of(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", *PACKAGE],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="the checkout to measure (default: this one)")
    p.add_argument("--json", metavar="FILE", help="also write the counts (and where each one is) to FILE")
    p.add_argument("--details", action="store_true", help="print where each counted thing is")
    args = p.parse_args(argv)
    root = Path(args.root).resolve()
    if not all((root / top).is_dir() for top in PACKAGE):
        print(f"seams_counts: error: {root} is not a finrag checkout (no {'/, '.join(PACKAGE)}/)", file=sys.stderr)
        return 2
    result = Counts(root).run()
    print(f"{root} ({result['commit'] or 'not a git checkout'})")
    width = max(len(k) for k in result["counts"])
    for key, n in result["counts"].items():
        print(f"  {key:<{width}}  {n:>4}  {result['what'][key]}")
    if args.details:
        for key, info in result["summary"].items():
            print(f"\n{key}: {json.dumps(info)}")
        for key, items in result["where"].items():
            print(f"\n{key}:")
            for item in items:
                print(f"  {item}")
    for s in result["skipped"]:
        print(f"  skipped (does not parse): {s}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
