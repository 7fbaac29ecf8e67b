"""A plain-text reply cut at its completion limit (issue 51): the answer says so at its end, and a citation the
cut left open is dropped (the bench's Gemma run ended one as `[BOREALISENERGY_2022_10K (cut at 1,024 tokens)`)."""
from finrag.tools.llm.calls import cut_answer

CUT = {"finish_reason": "length", "max_tokens": 1024}


def test_a_cut_reply_says_so_and_drops_the_citation_it_left_open():
    assert cut_answer("Revenue rose 4%. [BOREALISENERGY_2022_10K", CUT) == "Revenue rose 4%. (cut at 1,024 tokens)"
    assert cut_answer("Revenue rose 4% [ACME_2022_10K, p. 5] and", CUT) == \
        "Revenue rose 4% [ACME_2022_10K, p. 5] and (cut at 1,024 tokens)"


def test_a_reply_that_ended_by_itself_is_unchanged():
    text = "Revenue rose 4%. [BOREALISENERGY_2022_10K"
    assert cut_answer(text, {"finish_reason": "stop", "max_tokens": 1024}) == text
    assert cut_answer(text, {}) == text
