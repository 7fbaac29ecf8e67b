"""`finrag.tools.numbers`: the one home of scale words and of the cell and iXBRL-fact number readers."""
from __future__ import annotations

from finrag.eval.judges import numbers as judge_numbers
from finrag.tools.answering import render, tables
from finrag.tools.documents import xbrl
from finrag.tools.numbers import SCALE_OF_POWER, SCALE_WORDS, SCALES, SINGULAR, fact_value, is_dash, parse_number


def test_the_copies_are_this_module():
    assert tables.SCALES is SCALES and render.SCALES is SCALES and tables.parse_number is parse_number
    assert xbrl.fact_value is fact_value and judge_numbers._SCALES is SCALE_WORDS


def test_scale_maps_agree():
    assert all(SCALE_WORDS[w] == m for w, m in SCALES.items())
    assert all(SCALE_WORDS[SINGULAR[w]] == m for w, m in SCALES.items())
    assert {w: 10.0 ** int(p) for p, w in SCALE_OF_POWER.items()} == SCALES


def test_table_cells():
    assert parse_number("(1,234.5)") == -1234.5 and parse_number("(1,577)") == -1577.0
    assert parse_number("$5,363") == 5363.0 and parse_number("$ 5,363") is None  # a cell is one word box
    assert parse_number("16,865.2") == 16865.2 and parse_number("12.5%") == 12.5 and parse_number("\u221242") == -42
    assert parse_number("—") is None and is_dash("—") and is_dash(" n/a ") and not is_dash("0")
    assert parse_number("$ 3.2 billion") is None and parse_number("FY2023") is None and parse_number("1,23") is None


def test_ixbrl_facts():
    assert fact_value("(1,234.5)") == 1234.5 and fact_value("(1,234.5)", sign="-") == -1234.5  # sign is an attribute
    assert fact_value("3.2", scale="9") == 3.2e9 and fact_value("391,035", scale=6) == 391_035e6
    assert fact_value("—", "ixt:fixed-zero") == 0.0 and fact_value("—") == 0.0 and fact_value("") is None
    assert fact_value("1.234,5", "ixt:num-comma-decimal", 3) == 1234500.0
    assert fact_value("12", scale="400") is None and fact_value("1" * 40) is None


def test_prose_figures_use_the_scale_words():
    [m] = judge_numbers.parse_numbers("revenue of $ 3.2 billion")
    assert m.absolute == 3.2e9 and m.currency
    [m] = judge_numbers.parse_numbers("USD 8.7bn")
    assert m.absolute == 8.7e9
