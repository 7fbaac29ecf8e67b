"""Short names people use for a company, derived from its legal name.

Analysts rarely write "The Procter & Gamble Company" or "International Business Machines
Corporation": they write "P&G", "Procter", "IBM". `derived_names` lists such forms with their kind:

* ``head``       the distinctive first word ("Exxon Mobil" -> "Exxon", "Regeneron Pharmaceuticals" ->
                 "Regeneron"); the registry keeps a head only if no other company shares it and it is
                 not a common English word (`words.zipf`), so "American", "General", "Texas" never are;
* ``initialism`` the capitals of a multi-word name ("International Business Machines" -> "IBM",
                 "Procter & Gamble" -> "P&G", "Archer-Daniels-Midland" -> "ADM"), matched in capitals;
* ``abbrev``     a word replaced by its common abbreviation ("Abbott Laboratories" -> "Abbott Labs",
                 "Marvell Technology" -> "Marvell Tech", "... International" -> "... Intl");
* ``short``      the name without a generic tail word ("Hilton Worldwide Holdings" -> "Hilton Worldwide");
* ``prefix``     the first two words of a longer name ("Old Dominion Freight Line" -> "Old Dominion").
"""
from __future__ import annotations

import re

__all__ = ["WORD_ABBREVIATIONS", "derived_names"]

WORD_ABBREVIATIONS = {
    "technologies": ["Tech"], "technology": ["Tech"], "international": ["Intl", "Int'l"],
    "pharmaceuticals": ["Pharma"], "pharmaceutical": ["Pharma"], "laboratories": ["Labs"],
    "communications": ["Comms", "Communication"], "financial": ["Finl"], "manufacturing": ["Mfg"],
    "brothers": ["Bros"], "holdings": ["Hldgs"], "industries": ["Inds"], "semiconductor": ["Semi"],
    "semiconductors": ["Semi"], "entertainment": ["Ent"], "services": ["Svcs"], "systems": ["Sys"],
    "mountain": ["Mtn"], "saint": ["St"], "company": ["Co"], "corporation": ["Corp"], "national": ["Natl"],
    "american": ["Amer"], "resources": ["Res"], "properties": ["Props"], "therapeutics": ["Tx"],
    "biosciences": ["Bio"], "scientific": ["Sci"], "instruments": ["Instr"], "petroleum": ["Pete"],
    "insurance": ["Ins"], "motors": ["Motor"], "stores": ["Store"], "airlines": ["Air"],
    "management": ["Mgmt", "Mgt"], "companies": ["Cos"],
    "northeast": ["NE"], "northwest": ["NW"], "southeast": ["SE"], "southwest": ["SW"],  # compass points
}
"""Common abbreviations of words that occur in company names."""

_GENERIC_TAIL_WORDS = {
    "inc", "incorporated", "corp", "corporation", "company", "co", "holdings", "group", "international",
    "worldwide", "global", "technologies", "technology", "systems", "industries", "enterprises", "brands",
    "companies", "corp.", "plc", "limited", "ltd", "trust", "bancorp", "the",
}
_LINKERS = {"&", "and", "of", "the", "de", "und"}


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s\-/]+", name.replace(",", " ")) if w]


def _initialisms(words: list[str]) -> list[str]:
    core = [w for w in words if w.lower() not in _GENERIC_TAIL_WORDS - {"international"} or w == "&"]
    letters = [w for w in core if w not in _LINKERS and w.lower() not in _LINKERS]
    out = []
    if 2 <= len(letters) <= 5 and all(w[:1].isalpha() for w in letters):
        caps = "".join(w[0].upper() for w in letters)
        if len(caps) >= 3:
            out.append(caps)
        if "&" in core and len(letters) == 2:  # 'Procter & Gamble' -> 'P&G'
            out.append(f"{letters[0][0].upper()}&{letters[1][0].upper()}")
    return out


def derived_names(name: str) -> list[tuple[str, str]]:
    """(form, kind) pairs for a cleaned company name (no legal suffix): heads, initialisms, abbreviations."""
    name = re.sub(r"\s+", " ", str(name or "")).strip(" ,.")
    words = _words(name)
    if not words:
        return []
    out: list[tuple[str, str]] = []
    alpha = [w for w in words if re.search(r"[A-Za-z]", w)]
    core = [w for w in alpha if not re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?\.?", w)]  # 'J. M. Smucker' -> Smucker
    if len(alpha) >= 2 and core and (re.fullmatch(r"[A-Za-z][A-Za-z'’.]{2,}", core[0]) or
                                     re.fullmatch(r"[A-Z0-9&]{2,}", core[0])) and core[0].lower() not in _LINKERS \
            and core[0].lower().strip(".") not in _GENERIC_TAIL_WORDS:
        out.append((core[0].rstrip("."), "head"))
    if len(alpha) >= 3 and alpha[1].lower() not in _LINKERS and alpha[0].lower() not in _LINKERS \
            and alpha[1].lower() not in _GENERIC_TAIL_WORDS:  # 'Martin Marietta Materials' -> 'Martin Marietta'
        out.append((f"{alpha[0]} {alpha[1]}", "prefix"))
    if len(words) >= 4 and words[1] == "&" and words[0] in alpha and words[2] in alpha:
        out.append((" ".join(words[:3]), "prefix"))  # "Dave & Buster's Entertainment" -> "Dave & Buster's"
    for ini in _initialisms(words):
        out.append((ini, "initialism"))
    for i, w in enumerate(words):
        for abbr in WORD_ABBREVIATIONS.get(w.lower(), []):
            out.append((" ".join(words[:i] + [abbr] + words[i + 1:]), "abbrev"))
    short = list(words)
    while len(short) > 1 and short[-1].lower().strip(".") in _GENERIC_TAIL_WORDS:
        short.pop()
    if len(short) < len(words) and len(short) >= 2:
        out.append((" ".join(short), "short"))
    seen, uniq = set(), []
    for form, kind in out:
        if form.lower() != name.lower() and form.lower() not in seen:
            seen.add(form.lower())
            uniq.append((form, kind))
    return uniq


_BLANK_CHECK = re.compile(r"(?i)\bacquisitions?(?:\s+(?:corp(?:oration)?|co|company|inc|ltd|limited|holdings?))?\.?"
                          r"(?:\s*,?\s*(?:[IVX]+|\d+))?\.?\s*$")


def blank_check(company) -> str:
    """Whether a registrant is a blank-check company (a SPAC: "Starlink AI Acquisition Corp", "Social Capital
    Acquisition Corp. IV"): its name borrows words of other businesses, so only its whole name (or its ticker)
    names it, never a word it begins with. Returns the name ('' when it is none)."""
    name = str(getattr(company, "name", "") or "")
    return name if _BLANK_CHECK.search(name) else ""
