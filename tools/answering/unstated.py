"""A question the retrieved passages cannot answer, said first (issue 50).

Where neither the reader nor a form's answerer answers, the offline answer quotes the passages that cover the
question best. When the question asks about a thing it names ("the Optimus robot", "Geek Squad agents", "Azure's
revenue") and no retrieved passage mentions that name at all, no sentence of them can answer it: the answer then
says so in its first sentence, naming what is missing, and shows the passages as the closest ones, not as an answer.

The test is the absence of a named topic word, not a weak match: a name is the one word a paraphrase cannot replace,
so a passage that never writes it does not speak of it. It is absent when no context writes it and, where the
filings' pages can be read (`pages_of`), the contexts' filings write it on at most `RARE_PAGES` pages: a name the
filing gives a thing is rare in it (Tesla's 10-K names "Optimus" on one page, not one of those retrieved), while a
word it writes on many pages ("highest", "contribution", capitalised by a title-cased question) is its common
vocabulary, and the passages shown may still bear on it. The answer says how many pages of the filing write it. A named word is a word of the
question's topic (`prose_units.topic_words`: not the asked company's, not a year or a frame word) that the question
writes capitalised or with digits (`prose_units.named_words`), and is not a word of the routed companies' names; a
context mentions it when a word of its text starts with it ("robot" in "robots"), case aside.
"""
from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

from finrag.tools.answering.furniture import without_furniture
from finrag.tools.answering.prose_units import named_words, topic_words

__all__ = ["unmentioned", "unstated_answer"]


PagesOf = Callable[[str], Sequence[str]]
RARE_PAGES = 2  # a named word the filing writes on more pages than this is its common vocabulary


def _mentions(word: str, text: str) -> bool:
    return re.search(rf"(?i)(?<![\w-]){re.escape(word)}", text) is not None


def unmentioned(question: str, contexts: list[dict], company: frozenset[str] = frozenset(),
                pages_of: Optional[PagesOf] = None) -> dict[str, int]:
    """The named topic words of `question` (see the module docstring) that no context's text mentions, each with the
    number of pages of the contexts' filings that write it (0 without `pages_of`: a filing's page texts by its id),
    those written on more than `RARE_PAGES` pages left out; {} when every one is mentioned, or there are no contexts."""
    if not contexts:
        return {}
    named = [w for w in named_words(question, topic_words(question, contexts, also_drop=company))
             if len(w) >= 3 and w not in company]
    if not named:
        return {}
    text = " ".join(without_furniture(str(c.get("text") or "")) for c in contexts)
    missing = {w: 0 for w in named if not _mentions(w, text)}
    if missing and pages_of is not None:
        for doc in dict.fromkeys(str(c.get("doc_id")) for c in contexts if c.get("doc_id")):
            try:
                pages = list(pages_of(doc))
            except Exception:  # pages not readable: the contexts alone decide
                continue
            for w in missing:
                missing[w] += sum(_mentions(w, page) for page in pages)
    return {w: n for w, n in missing.items() if n <= RARE_PAGES}


def unstated_answer(question: str, passages: str, contexts: list[dict], company: frozenset[str] = frozenset(),
                    pages_of: Optional[PagesOf] = None) -> str:
    """`passages` (an extractive answer's quoted passages) led by the sentence that the retrieved passages do not
    state what the question asks, when a named topic word is in none of them (`unmentioned`); `passages` unchanged
    otherwise."""
    missing = unmentioned(question, contexts, company, pages_of)
    if not missing:
        return passages
    docs = ", ".join(dict.fromkeys(str(c.get("doc_id")) for c in contexts if c.get("doc_id")))
    said = "; ".join(f"'{w}'" + (f" (the filing writes it on {n} page{'s' if n > 1 else ''}, none retrieved)" if n
                                  else " (not in the filing)" if pages_of is not None else "")
                     for w, n in missing.items())
    shown = re.sub(r"^(?:From the filings|Extractive answer, [^:]+): ", "", passages)
    return (f"Not stated in the retrieved passages: none of them mentions {said} ({docs}), so they do not answer this "
            f"question. The closest passages (not an answer): {shown}")
