"""The one parser of numbers typed in chat: ASCII digits only, one sign where allowed."""

from __future__ import annotations

import pytest

from paizhuo_engine.numbers import parse_int


@pytest.mark.parametrize(("text", "signed", "expected"), [
    ("3", False, 3), (" 12 ", False, 12), ("007", False, 7), ("-5", True, -5), ("+5", True, 5),
    ("-5", False, None), ("--5", True, None), ("+-5", True, None), ("-", True, None),
    ("", False, None), ("፩", False, None), ("٣", False, None), ("²", False, None),
    ("1_0", False, None), ("1 0", False, None), ("3.0", False, None), ("1234567890", False, None),
])
def test_parse_int(text: str, signed: bool, expected: int | None) -> None:
    assert parse_int(text, signed=signed) == expected


def test_every_character_isdigit_accepts_is_refused_unless_ascii() -> None:
    digits = [chr(c) for c in range(0x110000) if chr(c).isdigit()]
    assert len(digits) > 100
    assert [d for d in digits if parse_int(d) is not None] == list("0123456789")
