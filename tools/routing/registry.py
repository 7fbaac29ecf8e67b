"""The document registry: the filings of an index, their companies, and the question linker/resolver.

`Registry(docs, alias_file)` takes the `DocumentInfo` of every indexed filing (see
`finrag.tools.routing.documents.build_document_info`), merges the spellings of one company,
attaches the alias book (`aliases.py`, plus an optional user alias file) and indexes the names,
the short names derived from legal names (`names.py`) and the tickers. Then, offline:

* **What a question asks about** – `Registry.link` runs the linker (`linker.py`): every candidate
  company with a confidence and the reason (names, derived short names, tickers scored by context,
  company-like names the index does not hold), plus fiscal years, quarters, ranges, forms and dates
  (`questions.py`), as an `ExtractedMetadata`.
* **Which document(s) to read** – `Registry.resolve` picks the filing(s) of each company the question
  names (`resolver.best_document`, time reasoning included). Only ids of registered documents can come
  out; a path in a question is just text. Routing confidence drives the scope (`scope="confidence"`):
  a confident route reads one filing; a tie between filings of the company (three 8-Ks of one year)
  reads those filings (`company_scope`); a company found only on weak evidence is not routed
  (`fallback_low_confidence`, the caller searches the corpus).

Statuses (also in `finrag.state.contract.ROUTING_STATUSES`):
``exact_path``, ``filename_fallback``, ``default_year``, ``multi_doc``, ``forward_looking``,
``comparative_period``, ``company_scope``, ``period_not_in_index`` (a route inside the company's own
filings); ``fallback_no_tickers``, ``fallback_low_confidence`` (no route: the caller searches the whole
corpus); ``company_not_indexed`` (the question names a company the index does not hold: no route and no
retrieval, the answer says which company is missing and which close names exist); ``which_company`` (the
question names no company and `fallback_scope=ask`: no retrieval, the answer asks which company; see
`Registry.ask_company`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Optional

from pydantic import BaseModel, Field

from finrag.state.configuration import DEFAULT_YEAR, MAX_QUESTION_CHARS
from finrag.state.contract import NO_RETRIEVAL_STATUSES, ROUTING_STATUSES
from finrag.state.question import QuestionFacts
from finrag.state.schema import DocumentInfo, ExtractedMetadata
from finrag.tools.documents.parsing import parse_file
from finrag.tools.question import read_question
from finrag.tools.routing.aliases import builtin_aliases, load_alias_file
from finrag.tools.routing.cover import read_cover_text
from finrag.tools.routing.documents import build_document_info, clean_company_name, name_variants, readable_key
from finrag.tools.routing.linker import Linker, alias_tokens
from finrag.tools.routing.mentions import ACCEPT, Candidate, Company
from finrag.tools.routing.resolver import Pick, best_document, same_identity_groups, ytd_quarter
from finrag.tools.routing.router_check import check_router_choice, chosen_companies
from finrag.tools.routing.text import TICKER_SHAPE, PathLike, edit_distance, name_core, squash
from finrag.tools.sequences import uniq

__all__ = ["NO_RETRIEVAL_STATUSES", "STATUSES", "Registry", "Resolution"]

STATUSES = tuple(status for status in ROUTING_STATUSES if status != "not_routed")
"""The statuses routing produces: `finrag.state.contract.ROUTING_STATUSES` (their one home, with their meanings)
but `not_routed`, which only `to_contract` reports."""


class Resolution(BaseModel):
    """Which documents to read: ids from the registry only, with a status, a reason and how sure routing is."""

    doc_ids: list[str] = Field(default_factory=list)
    status: str = "fallback_no_tickers"
    reason: str = ""
    confidence: float = Field(default=0.0, description="0-1: how sure routing is of the company and period (0 when nothing is routed)")
    candidates: list[dict] = Field(default_factory=list, description="Per routed company: company, doc_id, status, "
                                                                      "confidence, reason, alternates")
    missing: list[str] = Field(default_factory=list, description="Companies the question names that the index does not hold")
    close_names: list[str] = Field(default_factory=list, description="Indexed companies whose names are closest to the missing ones")



class _CanonKeys:
    """The canonical company keys chosen so far, indexed so that merging n keys costs O(n), not O(n^2).

    Each lookup returns what a scan of the keys in the order they were chosen would return first: the
    first canonical key with the same squashed spelling; the first one (squashed length >= 6) within one
    edit (found through its one-deletion variants, then checked with `edit_distance`); the first key
    (canonical or merged) whose tickers overlap, as its canonical key.
    """

    def __init__(self):
        self.order: dict[str, int] = {}  # canonical key -> rank of first appearance
        self.by_squash: dict[str, str] = {}
        self.by_variant: dict[str, list[str]] = {}
        self.by_ticker: dict[str, tuple[int, str]] = {}  # ticker -> (rank of the first key holding it, its canon)
        self.added = 0  # keys added so far: a key's rank

    @staticmethod
    def _variants(sq: str) -> set[str]:
        return {sq, *(sq[:i] + sq[i + 1:] for i in range(len(sq)))}

    def same_squash(self, sq: str) -> str | None:
        return self.by_squash.get(sq)

    def one_edit_away(self, sq: str) -> str | None:
        found = {c for v in self._variants(sq) for c in self.by_variant.get(v, ())}
        ok = [c for c in found if edit_distance(sq, squash(c), 1) <= 1]
        return min(ok, key=self.order.__getitem__) if ok else None

    def sharing_ticker(self, tickers: set[str]) -> str | None:
        hits = [self.by_ticker[t] for t in tickers if t in self.by_ticker]
        return min(hits)[1] if hits else None

    def add(self, canon: str, tickers: set[str]) -> None:
        """Record the next key in the merge order: its canonical key and its tickers."""
        rank = self.added
        self.added += 1
        for t in tickers:
            self.by_ticker.setdefault(t, (rank, canon))
        if canon in self.order:
            return
        self.order[canon] = rank
        sq = squash(canon)
        self.by_squash.setdefault(sq, canon)
        if len(sq) >= 6:
            for v in self._variants(sq):
                self.by_variant.setdefault(v, []).append(canon)


CLOSE_NAME_RATIO = 75.0
"""How much of an asked name an indexed one must share to be suggested (`Registry.close_names`): 'Mircosoft'
and 'Microsoft' share 89, 'Ulta Beauty' and 'Etsy' far less."""


class Registry:
    """The documents of an index, their companies, and the question linker/resolver."""

    def __init__(self, docs: Iterable[DocumentInfo], alias_file: Optional[PathLike] = None):
        self._docs: dict[str, DocumentInfo] = {}
        for d in docs or []:
            if isinstance(d, DocumentInfo) and d.doc_id and d.doc_id not in self._docs:
                self._docs[d.doc_id] = d
        self._book = builtin_aliases()
        if alias_file:
            self._book = self._book.merged(load_alias_file(alias_file))
        self._ticker_class = self._ticker_classes(self._book.history)
        self._doc_key: dict[str, str] = self._merge_company_keys()
        self._companies: dict[str, Company] = {}
        self._build_companies()
        self._attach_alias_entries()
        self._build_indexes()

    # ----- construction ---------------------------------------------------
    @staticmethod
    def _ticker_classes(history: list[tuple[str, str]]) -> dict[str, set[str]]:
        parent: dict[str, str] = {}

        def find(t: str) -> str:
            while parent.setdefault(t, t) != t:
                t = parent[t]
            return t

        for old, new in history:
            if old and new:
                parent[find(old)] = find(new)
        groups: dict[str, set[str]] = {}
        for t in list(parent):
            groups.setdefault(find(t), set()).add(t)
        return {t: groups[find(t)] for t in parent}

    def _equivalent_tickers(self, tickers: Iterable[str]) -> list[str]:
        out = []
        for t in tickers:
            t = str(t).upper().strip()
            if t:
                out.append(t)
                out.extend(sorted(self._ticker_class.get(t, ())))
        return uniq(out)

    @staticmethod
    def _file_key(d: DocumentInfo) -> str:
        """The company key a filing brings (its path's key, else its squashed name, else its id)."""
        return d.company_key or squash(d.company) or d.doc_id.upper()

    def _merge_inputs(self) -> tuple[list[str], dict[str, str], dict[str, set[str]]]:
        """What merging company keys reads: the keys by filing count (most first), the key that first holds
        each ticker, and each key's tickers (ticker history included)."""
        count: dict[str, int] = {}
        for d in self._docs.values():
            k = self._file_key(d)
            count[k] = count.get(k, 0) + 1
        ranked = sorted(count, key=lambda k: (-count[k], k))
        ticker_owner: dict[str, str] = {}
        key_tickers: dict[str, set[str]] = {}
        for d in sorted(self._docs.values(), key=lambda d: (-count.get(d.company_key, 0), d.doc_id)):
            for t in self._equivalent_tickers(d.tickers):
                ticker_owner.setdefault(t, d.company_key)
                key_tickers.setdefault(d.company_key, set()).add(t)
        return ranked, ticker_owner, key_tickers

    def _merge_company_keys(self) -> dict[str, str]:
        """doc_id -> company key, merging spellings of one company ('JOHNSON_JOHNSON' ~ 'JOHNSONJOHNSON',
        a one-letter typo of a key with more filings, a ticker used as key)."""
        ranked, ticker_owner, key_tickers = self._merge_inputs()
        canon: dict[str, str] = {}
        keys = _CanonKeys()
        for k in ranked:
            sq = squash(k)
            target = keys.same_squash(sq)
            if target is None and len(sq) >= 6:
                target = keys.one_edit_away(sq)
            if target is None and k in ticker_owner and ticker_owner[k] != k and ticker_owner[k] in canon:
                target = canon[ticker_owner[k]]
            if target is None:  # the same ticker (or ticker history: FB -> META) is the same company
                target = keys.sharing_ticker(key_tickers.get(k, set()))
            canon[k] = target or k
            keys.add(canon[k], key_tickers.get(k, set()))
        return {d.doc_id: canon[self._file_key(d)] for d in self._docs.values()}

    def _build_companies(self) -> None:
        for doc_id, d in sorted(self._docs.items(), key=lambda kv: (kv[1].fiscal_year or 0, kv[0])):
            key = self._doc_key[doc_id]
            comp = self._companies.setdefault(key, Company(key=key))
            comp.doc_ids.append(doc_id)
            comp.name = d.company or comp.name or readable_key(key)  # latest filing's name wins
            comp.tickers = uniq([*comp.tickers, *d.tickers])
            comp.names = uniq([*comp.names, key, d.company, clean_company_name(d.registrant), *d.aliases])

    def _attach_alias_entries(self) -> None:
        """Give registry companies the alias knowledge that matches them (by file key, name or
        ticker, ticker history included); the other entries become companies without documents."""
        by_name: dict[str, str] = {}
        by_ticker: dict[str, str] = {}

        def register(ckey: str) -> None:
            comp = self._companies[ckey]
            for n in [comp.key, *comp.names]:
                if squash(n):
                    by_name.setdefault(squash(n), ckey)
            for t in self._equivalent_tickers(comp.tickers):
                by_ticker.setdefault(t, ckey)

        for known in list(self._companies):
            register(known)
        for entry in self._book.entries:
            own = set(self._equivalent_tickers(entry.tickers))
            # a match by name (not by the entry's own key) whose tickers contradict the entry's is another company:
            # Coca-Cola's alias 'Coke' squashes like the file key of Coca-Cola Consolidated (COKE)
            trusted = squash(entry.key) if entry.key else ""
            named = [by_name[k] for k in sorted(entry.squashed_keys()) if k in by_name and (
                k == trusted or not (own and self._companies[by_name[k]].tickers and not own & set(
                    self._equivalent_tickers(self._companies[by_name[k]].tickers))))]
            ckey = next(iter(named), None) \
                or next((by_ticker[t] for t in self._equivalent_tickers(entry.tickers) if t in by_ticker), None)
            if ckey is None:
                key = (entry.key or squash(entry.name)).upper()
                if not key:
                    continue
                ckey = f"~{key}"
                self._companies[ckey] = Company(key=key, name=entry.name or readable_key(key), in_registry=False)
            comp = self._companies[ckey]
            if entry.name and (comp.in_registry or not comp.name):
                comp.name = entry.name
            comp.tickers = uniq([*comp.tickers, *entry.tickers])
            comp.names = uniq([*comp.names, *(v for n in entry.names() for v in name_variants(n))])
            register(ckey)
        for comp in self._companies.values():
            comp.tickers = self._equivalent_tickers(comp.tickers)

    def _build_indexes(self) -> None:
        self._ticker_index: dict[str, set[str]] = {}
        for ckey, comp in self._companies.items():
            for t in comp.tickers:
                self._ticker_index.setdefault(t.upper(), set()).add(ckey)
        self._linker = Linker(self._companies, self._ticker_index)
        self._alias_index = self._linker.alias_index
        self._docs_by_company = {k: [self._docs[i] for i in c.doc_ids] for k, c in self._companies.items()}
        self._alias_ids = {a: d.doc_id for d in self._docs.values() for a in d.alias_ids if a not in self._docs}

    @classmethod
    def from_paths(cls, paths: Iterable[PathLike], alias_file: Optional[PathLike] = None) -> "Registry":
        """Build from files on disk (reads the first 3 pages of each, and an HTML filing's inline-XBRL dei facts)."""
        return cls([_info_from_file(p) for p in paths], alias_file=alias_file)

    # ----- simple accessors -----------------------------------------------
    def get(self, doc_id: str) -> Optional[DocumentInfo]:
        """The document with this id (or with this id among its aliases: identical copies), else None."""
        if not isinstance(doc_id, str):
            return None
        return self._docs.get(doc_id) or self._docs.get(self._alias_ids.get(doc_id, ""))

    def doc_ids(self) -> list[str]:
        return sorted(self._docs)

    def companies(self) -> dict[str, str]:
        """company_key -> display name, for companies that have documents."""
        return {k: c.name for k, c in sorted(self._companies.items()) if c.in_registry}

    def company_of(self, doc_id: str) -> str:
        """The (merged) company key of a document, '' if unknown."""
        return self._doc_key.get(doc_id, "")

    def name_of(self, doc_id: str) -> str:
        """The display name of a document's company, '' if unknown."""
        comp = self._companies.get(self.company_of(doc_id))
        return comp.name if comp else ""

    def tickers_of(self, key: str) -> list[str]:
        """A company's tickers (current first), [] for an unknown key."""
        comp = self._companies.get(key)
        return list(comp.tickers) if comp else []

    def holds(self, key: str) -> bool:
        """Whether the index holds a filing of the company `key`."""
        return bool(self._docs_by_company.get(key))

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    # ----- linking ----------------------------------------------------------
    def candidates(self, question: str) -> list[Candidate]:
        """Every company the linker considered for a question, accepted or not, with confidence and reason."""
        text = question[:MAX_QUESTION_CHARS] if isinstance(question, str) else ""
        return self._linker.candidates(text) if text.strip() else []

    def link(self, question: str, facts: Optional[QuestionFacts] = None) -> ExtractedMetadata:
        """Entity linking with evidence: companies (and the candidates behind them), tickers, company-like
        names the index does not hold, and the years, periods, forms and dates of the question's `facts`
        (`read_question(question)` when not given)."""
        text = question[:MAX_QUESTION_CHARS] if isinstance(question, str) else ""
        if not text.strip():
            return ExtractedMetadata()
        cands = self._linker.candidates(text)
        keys, tickers, missing = [], [], []
        for c in cands:
            if not c.accepted:
                continue
            if c.key:
                keys.append(c.key)
                if c.ticker:
                    tickers.append(c.ticker)
                if not self._docs_by_company.get(c.key):
                    missing.append(self._companies[c.key].name or c.key)
            else:
                missing.append(c.name)
        keys = uniq(keys)
        tickers = uniq([*tickers, *(self._companies[k].tickers[0] for k in keys if self._companies[k].tickers)])
        facts = facts if facts is not None else read_question(text)
        return ExtractedMetadata(companies=[self._companies[k].name for k in keys], tickers=tickers,
                                 years=list(facts.years), periods=list(facts.periods), forms=list(facts.forms),
                                 dates=uniq([*facts.dates, *facts.month_quarters]),
                                 not_indexed=uniq(missing), candidates=[c.as_dict() for c in cands])

    # ----- resolving ----------------------------------------------------------
    def _keys_of(self, extracted: ExtractedMetadata) -> list[str]:
        keys: list[str] = []
        linked: dict[str, list[str]] = {}  # the linker's own keys for the names it found (a name may be several's)
        for c in extracted.candidates or []:
            if c.get("key") in self._companies:
                linked.setdefault(str(c.get("name")), []).append(str(c["key"]))
        for name in extracted.companies or []:
            if str(name) in linked:
                keys.extend(uniq(linked[str(name)]))
                continue
            toks = alias_tokens(str(name))
            entries = self._alias_index.get(toks) or {}
            names = [k for k, kind in entries.items() if kind == "name"] or list(entries)
            if names:
                keys.extend(sorted(names))
            else:
                keys.extend(c.key for c in self._linker.candidates(str(name)) if c.accepted and c.key)
        for tick in extracted.tickers or []:
            for t in self._equivalent_tickers([str(tick).upper().lstrip("$")]):
                keys.extend(sorted(self._ticker_index.get(t, ())))
        return uniq(keys)

    def confidence_of(self, extracted: ExtractedMetadata, key: str) -> float:
        """The linker's confidence that the question names company `key` (1.0 when given without candidates)."""
        confs = [float(c.get("confidence") or 0) for c in extracted.candidates or [] if c.get("key") == key]
        return max(confs) if confs else 1.0

    def _close_pools(self) -> tuple[dict[str, str], dict[str, str]]:
        """The indexed companies by name core and by first ticker, as `close_names` matches them (built once: at
        EDGAR scale a question about a company the index does not hold spent ~100 ms rebuilding them)."""
        pools = self.__dict__.get("_close_pools_cache")
        if pools is None:
            by_name: dict[str, str] = {}
            by_ticker: dict[str, str] = {}
            for k, c in self._companies.items():
                if not (c.in_registry and self._docs_by_company.get(k)):
                    continue
                label = c.name + (f" ({c.tickers[0]})" if c.tickers else "")
                by_name.setdefault(name_core(c.name), label)
                for t in c.tickers[:1]:
                    by_ticker.setdefault(t.upper(), label)
            pools = self.__dict__["_close_pools_cache"] = (by_name, by_ticker)
        return pools

    def close_names(self, names: Iterable[str], limit: int = 3) -> list[str]:
        """Indexed companies whose name resembles an asked name as a whole, or whose ticker resembles an asked
        ticker: most of the letters in order (rapidfuzz `ratio` >= `CLOSE_NAME_RATIO` after legal suffixes such
        as "Inc." or "Corporation" are set aside). Not a word in common ("Zorblax Corporation" is not "Fox
        Corporation") and not a fragment ("Apple" is not Boeing's ticker "BA"): [] when nothing resembles."""
        by_name, by_ticker = self._close_pools()
        try:
            from rapidfuzz import fuzz, process
        except ImportError:  # pragma: no cover
            return []
        scored: dict[str, float] = {}
        for name in names:
            text = str(name).strip().lstrip("$")
            ticker = bool(TICKER_SHAPE.fullmatch(text))
            query, pool = (text.upper(), by_ticker) if ticker else (name_core(text), by_name)
            if not query:
                continue
            for choice, score, _ in process.extract(query, list(pool), scorer=fuzz.ratio, limit=limit * 2,
                                                    score_cutoff=CLOSE_NAME_RATIO):
                label = pool[choice]
                scored[label] = max(scored.get(label, 0.0), score)
        return [label for label, _ in sorted(scored.items(), key=lambda kv: -kv[1])[:limit]]

    def resolve(self, extracted: Optional[ExtractedMetadata], question: str = "",
                default_year: int = DEFAULT_YEAR, scope: str = "confidence",
                facts: Optional[QuestionFacts] = None) -> Resolution:
        """Pick the document(s) a question is about (rules in `finrag.tools.routing.resolver`, statuses in the
        module docstring). `scope="filing"` always reads one filing per company; `same_identity` then says
        which other filings share a routed one's identity. The question's cues, expected years and 8-K items
        come from its `facts` (`read_question(question)` when not given)."""
        ex = extracted if isinstance(extracted, ExtractedMetadata) else ExtractedMetadata()
        keys = self._keys_of(ex)
        in_reg = [k for k in keys if self._companies[k].in_registry and self._docs_by_company.get(k)]
        missing = uniq([*(self._companies[k].name for k in keys if k not in in_reg), *(ex.not_indexed or [])])
        chosen = [d for d in ex.documents or [] if d in self._docs or d in self._alias_ids]
        if chosen:
            return self._resolve_chosen(chosen, ex, missing)
        if not in_reg:
            if missing:
                close = self.close_names(missing)
                reason = (f"{', '.join(missing)}: not in the index (no filing of it)"
                          + (f"; closest indexed names: {', '.join(close)}" if close else ""))
                return Resolution(status="company_not_indexed", reason=reason, missing=missing, close_names=close)
            weak = [c for c in ex.candidates or [] if c.get("key") and 0.2 <= c.get("confidence", 0) < ACCEPT
                    and c.get("in_index")]
            if weak:
                best = max(weak, key=lambda c: c.get("confidence", 0))
                return Resolution(status="fallback_low_confidence", reason=(
                    f"only weak evidence for a company: '{best.get('text')}' -> {best.get('name')} "
                    f"({best.get('confidence')}: {best.get('reason')})"), candidates=[best])
            return Resolution(status="fallback_no_tickers", reason="no known company or ticker in the question")
        facts = facts if facts is not None else read_question(question)
        cues, fwd, items = set(facts.cues), tuple(facts.forward_years), frozenset(facts.event_items)
        picks: list[tuple[str, Pick]] = []
        for k in in_reg:
            pick = best_document(self._docs_by_company[k], self._companies[k].name, ex, cues, default_year,
                                 forward=fwd, items=items, cover_date=facts.cover == "shares_outstanding",
                                 ytd_quarter=ytd_quarter(facts),
                                 whole_years=bool(facts.series_years) and not facts.years_written,
                                 form=facts.form)
            pick.confidence = round(pick.confidence * min(1.0, self.confidence_of(ex, k)), 3)
            picks.append((k, pick))
        return self._combine(picks, missing, scope)

    def same_identity(self, doc_ids: Iterable[str]) -> list[dict]:
        """The groups of indexed filings sharing the identity of one of `doc_ids` (`resolver.same_identity_groups`:
        the same merged company, fiscal period, form and filing date): identity, doc_ids and read."""
        read = [d for i in doc_ids if (d := self.get(i)) is not None]
        return same_identity_groups(read, lambda d: self._docs_by_company.get(self.company_of(d.doc_id), []))

    def ask_company(self, res: Resolution, examples: int = 5, offered: Iterable[dict] = ()) -> Resolution:
        """A route that found no company, turned into a question back (`which_company`): no retrieval, so no
        answer mixes companies' filings; the reason keeps why there was no route and names a few companies,
        after the candidates routing set aside (`offered`, `fallback.record_fallback`'s), if any."""
        names = list(self.companies().values())
        shown = ", ".join(names[:examples]) + (" ..." if len(names) > examples else "")
        offer = [f"{c['name']} ({c['ticker']})" if c.get("ticker") else str(c["name"]) for c in offered]
        absent = [str(c["name"]) for c in offered if not c.get("in_index")]
        lead = (f"Did you mean {' or '.join(offer)}? The evidence for it was weak"
                + (f" and the index holds no filing of {', '.join(absent)}" if absent else "") + "; ") if offer else ""
        reason = (f"{lead}{res.reason or 'no company in the question'}; which company do you mean? The index holds "
                  f"filings of {len(names)} companies ({shown}); ask again naming one")
        return Resolution(status="which_company", reason=reason, candidates=res.candidates)

    def _resolve_chosen(self, chosen: list[str], ex: ExtractedMetadata, missing: list[str]) -> Resolution:
        ids = uniq(self._chosen_doc(d).doc_id for d in chosen)
        status = "multi_doc" if len({self.company_of(d) for d in ids}) > 1 else \
            ("exact_path" if len(ids) == 1 else "company_scope")
        reason = f"chosen by the router among the registry's filings: {', '.join(ids)}" + \
            (f"; not in the index: {', '.join(missing)}" if missing else "")
        return Resolution(doc_ids=ids, status=status, reason=reason, confidence=0.9, missing=missing,
                          candidates=[{"company": self._chosen_doc(d).company, "doc_id": d, "status": status,
                                       "confidence": 0.9, "reason": "router LLM", "alternates": []} for d in ids])

    def _chosen_doc(self, doc_id: str) -> DocumentInfo:
        """A document the router chose: `resolve` keeps only ids (or aliases) the registry holds."""
        doc = self.get(doc_id)
        assert doc is not None
        return doc

    def _combine(self, picks: list[tuple[str, Pick]], missing: list[str], scope: str) -> Resolution:
        rows: list[dict[str, Any]] = []
        doc_ids: list[str] = []
        for k, p in picks:
            widen = scope == "confidence" and p.alternates and p.confidence < 0.8
            ids = [p.doc_id, *p.alternates[:2]] if widen else [p.doc_id]
            ids += [] if scope == "filing" else [i for i in p.wider if i not in ids]
            rows.append({"company": self._companies[k].name, "doc_id": p.doc_id, "status": p.status,
                         "confidence": p.confidence, "reason": p.reason, "alternates": list(p.alternates),
                         "scope": [i for i in ids if i]})
            doc_ids.extend(i for i in ids if i)
        doc_ids = uniq(doc_ids)
        note = f"; not in the index: {', '.join(missing)}" if missing else ""
        confidence = min(r["confidence"] for r in rows)
        if len(rows) == 1:
            r = rows[0]
            status = "company_scope" if len(r["scope"]) > 1 else r["status"]
            tied = [i for i in r["scope"][1:] if i in r["alternates"]]  # the wider reading says its own
            reason = r["reason"] + (f"; tied filings also read: {', '.join(tied)}" if tied else "")
            return Resolution(doc_ids=doc_ids, status=status, reason=reason + note, confidence=confidence,
                              candidates=rows, missing=missing)
        reason = "; ".join(f"{r['company']}: {r['doc_id'] or '-'} ({r['status']}: {r['reason']})" for r in rows)
        if not doc_ids:
            return Resolution(status="fallback_low_confidence", reason=reason + note, candidates=rows, missing=missing)
        return Resolution(doc_ids=doc_ids, status="multi_doc", reason=reason + note, confidence=confidence,
                          candidates=rows, missing=missing)

    # ----- for an LLM router ------------------------------------------------
    def describe_candidates(self, extracted: ExtractedMetadata, max_docs: int = 12) -> str:
        """The linker's candidates and their filings, as text for an LLM router to adjudicate."""
        lines = []
        for c in extracted.candidates or []:
            state = "accepted" if float(c.get("confidence") or 0) >= ACCEPT else (
                f"an alternative to {c['alternative_to']}" if c.get("alternative_to") else "rejected")
            where = "in the index" if c.get("in_index") and self._docs_by_company.get(c.get("key", "")) \
                else "NOT in the index"
            lines.append(f"- '{c.get('text')}' -> {c.get('name')} ({where}); confidence {c.get('confidence')}, "
                         f"{state}: {c.get('reason')}")
            docs = sorted(self._docs_by_company.get(c.get("key", ""), []),
                          key=lambda d: (d.fiscal_year or 0, d.quarter or 0, d.filed_date or ""), reverse=True)
            for d in docs[:max_docs] if state == "accepted" or c.get("alternative_to") else []:
                lines.append(f"    {d.doc_id}: {d.form or '?'} {d.period or '?'}"
                             + (f" filed {d.filed_date}" if d.filed_date else "")
                             + (f" items {', '.join(d.items)}" if d.items else ""))
        return "Candidates from the document registry:\n" + ("\n".join(lines) if lines else "(none)")

    def merge_llm(self, linked: ExtractedMetadata, llm) -> ExtractedMetadata:
        """The linker's extraction adjudicated by an LLM router: `rejected` candidates are dropped, then the
        router's choice counts only among the question's candidates (`router_check.check_router_choice`; what
        it refused is listed in `llm_overridden`)."""
        if llm is None:
            return linked
        out = linked.model_copy(deep=True)
        chosen = {str(n).casefold().strip() for n in chosen_companies(llm)}
        # a candidate the same reply both chooses and rejects is not rejected: a reply that contradicts itself
        # cannot take away the offline reading (Gemma 3 270M listed the question's only ticker in both)
        rejected = {str(r).casefold().strip() for r in getattr(llm, "rejected", []) or []} - chosen
        drop: set = set()
        if rejected:
            drop = {c.get("key") for c in out.candidates if str(c.get("text", "")).casefold() in rejected
                    or str(c.get("name", "")).casefold() in rejected}
            dropped = {self._companies[k].name for k in drop if k in self._companies}
            out.companies = [n for n in out.companies if n not in dropped and n.casefold() not in rejected]
            out.tickers = [t for t in out.tickers if t.casefold() not in rejected
                           and not (set(self._ticker_index.get(t, ())) & drop)]
            out.not_indexed = [n for n in out.not_indexed if n.casefold() not in rejected]
            for c in out.candidates:
                if c.get("key") in drop or str(c.get("text", "")).casefold() in rejected:
                    c["confidence"], c["reason"] = 0.0, f"rejected by the router LLM; was: {c.get('reason')}"
        return check_router_choice(self, linked, out, llm, drop, rejected)


def _info_from_file(path: PathLike) -> DocumentInfo:
    """A file's DocumentInfo as the indexer derives it: cover pages, plus dei facts for EDGAR HTML/SGML."""
    if str(path).lower().endswith((".htm", ".html", ".txt")):
        try:

            doc = parse_file(Path(path))
            return build_document_info(path, "\n".join(doc.pages[:3]), dei=(doc.xbrl or {}).get("dei"))
        except Exception:  # unreadable: what the cover reader can still say
            pass
    return build_document_info(path, read_cover_text(path))
