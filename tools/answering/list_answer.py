"""List questions answered offline (issue 50): the sentence that enumerates the asked items, led by the list.

A filing enumerates in one shape: the asked noun ("segments", "products", "brands"; `QuestionFacts.form_nouns`),
often with how many there are ("four reportable segments"), then the items, after a colon, a dash or "are",
"include", "consist of", "comprising", "as follows", or, after a noun that says how many, a comma
("two reportable segments, Flexibles and Rigid Packaging"), separated by commas, semicolons or bullets (a last "and" kept
with its item: "Safety and Industrial" is one, unless the filing says one item more: "three segments, A, B and
C"; a clause after as many items as it says ends them: "five segments: A, B, C, D and E, and operates 119
plants"). A sentence enumerates when at least three items follow its noun (two
when it says how many, and never more than it says), each a name (a few words, no figure: a table's row is no list).
Of those, the one that says how many (a number word right before the noun), then the one that covers the question
best, then the one that spells its items out, then the context's earliest, leads. A context's text is read whole
(page furniture removed), not cut into the answer units at semicolons, so a list written with semicolons stays one.
The answer opens with the items as the filing writes them, then quotes the sentence, cited. '' when no context
enumerates the noun (the other answers then show the passages that bear on it).
"""
from __future__ import annotations

import re
from typing import Iterator, Sequence

from finrag.state.index_reader import IndexReader
from finrag.tools.answering.extractive import context_label
from finrag.tools.answering.furniture import without_furniture
from finrag.tools.answering.prose_units import quote
from finrag.tools.retrieval.form_evidence import as_context, unread_chunks
from finrag.tools.retrieval.vocabulary import KeywordCoverage

__all__ = ["list_answer", "list_evidence", "listed_items"]

_INTRO = re.compile(r"(?i)(?::|[—–]|\b(?:are|were|include|includes|included|including|consist(?:s|ed)? of|comprise[sd]?|"
                    r"comprising|as follows|namely|such as|is comprised of|are comprised of)\b:?)\s*")
# a colon after a short clause that describes the counted noun ("four business segments organized based on the
# nature of products and services offered: A, B, ...")
_LATE_COLON = re.compile(r"[^.:;]{0,100}:\s*")
_APPOSITION = re.compile(r"\s*,\s*(?=[A-Z])")
_DESCRIBED = re.compile(r",?\s+(?:which|that|including)\b|[—–:;]|(?<=[a-z)\]])\.(?=\s|$)")
_SEPARATOR = re.compile(r"\s*(?:;|,|•)\s*(?:and\s+|or\s+)?")
_STRONG = re.compile(r"\s*(?:;|•)\s*(?:and\s+|or\s+)?")
_STRIP = " .:;•\"'\u201c\u201d"
_HOW_MANY = re.compile(r"(?i)\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\s+(?:[a-z-]+\s+){0,2}$")
_BODY_END = re.compile(r"(?<=[a-z)\]])\.(?=\s|$)|\(\d\)|\bwhich\b|\bthat\b|[—–:]")
_COUNT = {w: n for n, w in enumerate("two three four five six seven eight nine ten eleven twelve".split(), start=2)}
# an item is a name: a few words, no figure ("U.S. Consumer Services (USCS)", "e-commerce retailers")
_NAME = re.compile(r"(?i)(?:the\s+)?[a-z][\w.,&'’/-]*(?:\s+(?!\d)[\w.,&'’/()-]+){0,6}")


def listed_items(text: str, nouns: tuple[str, ...]) -> Iterator[tuple[str, list[str], bool]]:
    """Each enumeration of `text` after one of `nouns`: (its sentence, its items, whether it says how many). Items
    run to the sentence's end (a period, not a semicolon: "four operating segments as follows: North America Retail;
    International; Pet, and North America Foodservice."), a colon or dash that opens an item's description, or a
    relative clause. Semicolons or bullets separate items whose names hold commas ("Defense, Space & Security (BDS);"),
    else commas do; a short comma list with more pieces than it says it has is kept as written. Fewer than three items
    (two when it says how many), more than it says, or items that are no names are no enumeration."""
    for noun in nouns:
        for m in re.finditer(rf"(?i)\b{re.escape(noun)}\b", text):
            rest = text[m.end():]
            said = _HOW_MANY.search(text[max(0, m.start() - 40): m.start()])
            # items in apposition to a noun that says how many ("two reportable segments, Flexibles and Rigid Packaging")
            intro = (_INTRO.search(rest[:60]) or (_APPOSITION.match(rest) if said else None)
                     or (_LATE_COLON.match(rest) if said else None))
            if intro is None:
                continue
            most = _COUNT.get(said.group(1).lower(), int(said.group(1)) if said.group(1).isdigit() else 99) if said else 99
            bulleted = _bullet_heads(rest[intro.end():], most) if said else None
            if bulleted is not None:  # "two segments: • the A segment, which ...; and • the B segment, which ..."
                heads, length = bulleted
                stop = text.rfind(". ", 0, m.start())
                yield text[stop + 2 if stop >= 0 else 0: m.end() + intro.end() + length].strip(), heads, True
                continue
            body = _BODY_END.split(rest[intro.end():])[0]
            strong = bool(_STRONG.search(body))  # semicolons or bullets: commas are inside the items
            pieces = (_STRONG if strong else _SEPARATOR).split(body)
            if len(pieces) == 1 and said:  # "two reportable segments: Flexibles and Rigid Packaging"
                pieces = re.split(r"\s+and\s+", body, maxsplit=1)
            items = [re.sub(r"^(?:and|or)\s+", "", i.strip(_STRIP)) for i in pieces]
            items = [i for i in items if i]
            if said and items and not all(_NAME.fullmatch(i) for i in items):
                items = _as_many_as_said(items, most)  # "five segments: A, B, C, D and E, and manufactures at 119 plants"
            if not items or not all(_NAME.fullmatch(i) for i in items):  # a table's numbers, or clauses
                continue
            if len(items) == most - 1 and " and " in items[-1]:  # "three segments, A, B and C": the last "and" parts two
                items[-1:] = items[-1].rsplit(" and ", 1)
            if len(items) > most:
                if strong or len(body) > 200:
                    continue  # more items than it says it has: its items are described, not listed
                items = [" ".join(body.split()).strip(" .")]  # commas inside an item ("Defense, Space & Security")
            if len(items) >= 3 or (len(items) >= 2 and said) or (len(items) == 1 and said and "," in items[0]):
                stop = text.rfind(". ", 0, m.start())
                begin = stop + 2 if stop >= 0 else 0
                end = m.end() + intro.end() + len(body)
                yield text[begin: end + 1].strip(), items[:12], bool(said)


def _as_many_as_said(items: list[str], most: int) -> list[str]:
    """The first `most` items of an enumeration that says how many, when a clause follows them in the same sentence
    ("five reportable segments: A, B, C, D and E, and manufactures products at 119 plants"): its first `most` pieces,
    or its first `most - 1` with the last parted at its "and" ("D and E"), when those are names; else `items`."""
    head = items[:most]
    if len(head) == most and all(_NAME.fullmatch(i) for i in head):
        return head
    head = items[: most - 1]
    if len(head) == most - 1 and " and " in head[-1]:
        head = [*head[:-1], *head[-1].rsplit(" and ", 1)]
        if all(_NAME.fullmatch(i) for i in head):
            return head
    return items


def _bullet_heads(tail: str, most: int) -> tuple[list[str], int] | None:
    """The items of an enumeration written as bullets that each name an item then describe it ("• the Computing
    segment, which primarily includes ...; and • the Services segment, which ..."): each bullet's name, up to its
    description (", which", ", that", a colon or dash, a sentence's end, a semicolon), and the length of `tail` they
    run over; None unless `tail` opens with a bullet and holds as many named bullets as the filing says."""
    if not tail.lstrip().startswith("•") or most > 12:
        return None
    pieces = tail.split("•")[1: most + 1]
    heads = [_DESCRIBED.split(p)[0].strip(_STRIP) for p in pieces]
    if len(heads) != most or not all(h and _NAME.fullmatch(h) for h in heads):
        return None
    return heads, tail.find(pieces[-1]) + len(heads[-1]) + 1


def list_answer(question: str, nouns: tuple[str, ...], keywords: list[str], contexts: list[dict]) -> str:
    """'<items> (the filing: "<sentence>") [doc, p. N]'; '' when no context enumerates the asked noun."""
    if not contexts or not nouns:
        return ""
    coverage = KeywordCoverage(keywords or question.split())
    candidates = []
    for rank, ctx in enumerate(contexts):
        text = " ".join(without_furniture(str(ctx.get("text") or "")).split())
        for sentence, items, counted in listed_items(text, nouns):
            candidates.append((counted, coverage(sentence), rank, sentence, items, ctx))
    if not candidates:
        return ""
    # one that says how many, then covers the question best, then spells its items out ("Missiles and Fire Control
    # (MFC)" says more than "MFC", whatever the contexts' order), then the earliest context
    candidates.sort(key=lambda t: (not t[0], -round(t[1], 1), -len(" ".join(t[4])), t[2]))
    _counted, _s, _r, sentence, items, ctx = candidates[0]
    return f"{'; '.join(items)} (the filing: \"{quote(sentence)}\") {context_label(ctx)}"


def list_evidence(store: IndexReader, doc_ids: Sequence[str], nouns: Sequence[str], contexts: Sequence[dict],
                  limit: int = 1) -> list[dict]:
    """The routed filings' chunks that enumerate the asked noun saying how many ("operates in five reportable
    segments: A, B, ..."), not in `contexts` already, as contexts (the filing's earliest first, at most `limit`): the
    ranking of chunks by the question's words often leaves the business overview out, whose one sentence lists
    them. [] without nouns, routed filings, or such a chunk; a context already enumerating them adds none."""
    nouns = tuple(nouns)
    if not nouns or not doc_ids:
        return []
    if any(counted for c in contexts for _s, _i, counted in listed_items(" ".join(str(c.get("text") or "").split()), nouns)):
        return []
    out: list[dict] = []
    for doc in doc_ids:
        for _place, chunk in unread_chunks(store, doc, contexts):
            text = " ".join(without_furniture(chunk.text).split())
            if any(counted for _s, _i, counted in listed_items(text, nouns)):
                out.append(as_context(chunk))
                break
        if len(out) >= limit:
            break
    return out[:limit]
