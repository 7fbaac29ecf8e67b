"""How a question says the same definition twice or in a roundabout way, normalized before its arithmetic is read.

* **A definition attributed to someone** ("X the way they define it: ...", "X as the company defines it: ...",
  "X by management's definition: ...") is the question's definition of X: "X, defined as: ...".
* **A parenthesis that restates the arithmetic just written** ("A as a percentage of B (A / B x 100)", "A less B,
  net of C (i.e. A - B + C)") says it again; it is dropped, so it is not read as a definition of B or C. It is a
  restatement when it opens with "i.e." / "that is" / "namely", or when it closes its sentence and its first word is
  one of an operand before the last one (it spans the whole, not the last operand: "revenue less free cash flow
  (free cash flow = CFO - capex)" defines the last operand and stays).

    restated("Acme 2024 opex share: R&D as a share of revenue (R&D / revenue). 1 dp")
    # "Acme 2024 opex share: R&D as a share of revenue. 1 dp"
"""
from __future__ import annotations

import re

__all__ = ["restated"]

_ATTRIBUTED = re.compile(r"(?i)\s*,?\s+(?:the way|as|how)\s+(?:they|the company|management|the filer|it|[A-Z][\w&.'-]*)"
                         r"\s+(?:define|defines|calculate|calculates|compute|computes)\s+it\s*:\s*|"
                         r"\s*,?\s+(?:by|per|using)\s+(?:their|its|the company's|management's|[A-Z][\w&.-]*'s?)\s+"
                         r"(?:own\s+)?definition\s*:\s*")
_PAREN = re.compile(r"\s*\((?P<ie>(?:i\.\s?e\.|ie\b|that is|namely)[,:]?\s*)?(?P<body>[^()]*)\)"
                    r"(?=\s*(?:[.?;]|$|,\s*(?:\d|round|in\b|as\b|to\b|give|answer|express|percent|%|pct\b|expressed|stated)))")
_OPERATOR = re.compile(r"(?i)\b(?:of|less|minus|plus|over|by|to|and|net of|divided by|times|from)\b|[-+/*÷=]|\s[x×]\s")
_ARITHMETIC = re.compile(r"(?i)[+/*÷=×]|\s[-x]\s|\b(?:minus|plus|less|divided|times|over)\b")
"""Arithmetic in a parenthesis; a hyphen inside a word ("non-current") is none."""


def _first_word(text: str) -> str:
    m = re.search(r"(?<![\w&])[A-Za-z][A-Za-z&]*(?![\w&])", text)  # a word, not a period ("FY2018")
    return m.group(0).lower() if m else ""


def _restates(before: str, body: str) -> bool:
    """Is the parenthesis's first operand one written before the last operand of `before`?"""
    word = _first_word(body)
    if re.search(r"(?i)(?:[-+/*÷=×]|\b(?:x|times|minus|plus|less|over|divided by|multiplied by)\b)\s*$", before):
        return False  # "A x (B / C)": a parenthesis right after an operator is the last operand
    ops = list(_OPERATOR.finditer(before))
    if not word or not ops or len(word) < 3 or not before[ops[-1].end():].strip():
        return False  # "A / (B + C)": a parenthesis right after an operator is the last operand, grouped
    earlier, last = before[:ops[-1].start()], before[ops[-1].end():]
    root = re.escape(word[:5]) if len(word) >= 7 else re.escape(word)  # "fulfillment" restates "fulfilment"
    return bool(re.search(rf"(?i)\b{root}", earlier)) and not re.search(rf"(?i)\b{root}", last)


def restated(q: str) -> str:
    """The question with attributed definitions written as definitions and restating parentheses dropped."""
    q = _ATTRIBUTED.sub(", defined as: ", q)
    out, pos = [], 0
    for m in _PAREN.finditer(q):
        body = m.group("body")
        if not _ARITHMETIC.search(body):
            continue
        sentence = re.split(r"(?<=[.?!:;])\s+", q[:m.start()])[-1]
        if m.group("ie") or _restates(sentence, body):
            out.append(q[pos:m.start()])
            pos = m.end()
    out.append(q[pos:])
    return "".join(out)
