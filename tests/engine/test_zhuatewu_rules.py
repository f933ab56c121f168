"""RULES.md Z-2, Z-3, Z-4 and G-5: 抓特务 ranking, hand types and comparison."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.readings import (
    Reading,
    ReadingError,
    choose_follow,
    choose_lead,
    split_type_hint,
)
from paizhuo_engine.zhuatewu.rules import ZRules, beats, classify

DEFAULT = ZRules()


def kinds(text: str, rules: ZRules = DEFAULT) -> list[tuple[str, int]]:
    return [(r.kind, r.size) for r in classify(cards(text), rules)]


def one(text: str, rules: ZRules = DEFAULT) -> Reading:
    rs = classify(cards(text), rules)
    assert len(rs) == 1, (text, rs)
    return rs[0]


def wins(a: str, b: str, rules: ZRules = DEFAULT) -> bool:
    return beats(one(a, rules), one(b, rules))


@pytest.mark.parametrize(
    ("text", "kind"),
    [("3", "single"), ("大王", "single"), ("77", "pair"), ("777", "triple"), ("7777", "four"),
     ("34567", "straight"), ("3456789 10JQKA", "straight"), ("778899", "pair_chain"),
     ("7788", "pair_chain"), ("999 101010 JJJ", "triple_chain"), ("3334", "triple_one"),
     ("333大王", "triple_one"), ("444456", "four_two"), ("444455", "four_two"),
     ("4444小王大王", "four_two")],
)
def test_z4_legal_types(text: str, kind: str) -> None:
    """Z-4.1–4.6: every hand type of 抓特务."""
    assert kinds(text) == [(kind, len(cards(text)))]


@pytest.mark.parametrize(
    ("text", "why"),
    [("33344", "Z-4.5 a triple may not carry a pair"),
     ("44445566", "Z-4.6 a four may not carry two pairs"),
     ("3456", "Z-4.2 straight needs 5"), ("999101010", "Z-4.4 triple chain needs 3"),
     ("34", "two singles"), ("小王大王", "Z-3 jokers never pair by default"),
     ("JQKA2", "Z-4 a: 2 never chains"), ("A2345", "Z-4 a: A only at the top"),
     ("QQKKAA22", "Z-4 a: 2 never chains"), ("KKAA22", "2 never chains"),
     ("10JQK小王", "Z-4 chains never contain jokers"), ("33334", "four with one"),
     ("3335", "ok") if False else ("33345", "triple with two singles")],
)
def test_z4_refused(text: str, why: str) -> None:
    assert classify(cards(text), DEFAULT) == [], why


def test_z4_classification_ignores_card_order() -> None:
    assert classify(cards("98 7 9 8 7"), DEFAULT) == classify(cards("778899"), DEFAULT)
    assert classify(cards("4 3 3 3"), DEFAULT) == classify(cards("3334"), DEFAULT)


def test_z3_default_ranking() -> None:
    """Z-3: 大王 > 小王 > 2 > A > K > … > 3, suits never matter."""
    order = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]
    for lo, hi in zip(order, order[1:], strict=False):
        assert wins(hi, lo) and not wins(lo, hi)
    assert wins("22", "AA") and wins("AAA", "KKK") and wins("2222", "AAAA")


def test_z3_suits_never_matter() -> None:
    assert not beats(one("♠7"), one("♦7")) and not beats(one("♦7"), one("♠7"))


def test_z3_three_high() -> None:
    """Z-3 带3: 大王 > 小王 > 3 > 2 > A > … > 4."""
    r = ZRules(three_high=True)
    assert wins("3", "2", r) and wins("33", "22", r) and wins("小王", "3", r)
    assert wins("5", "4", r) and not wins("3", "小王", r)


def test_z3_three_high_chain_order_stays_natural() -> None:
    """Z-4: under 带3 the chain order is still 3 4 5 … K A."""
    r = ZRules(three_high=True)
    assert wins("45678", "34567", r)


def test_z3_joker_pair() -> None:
    """Z-3 大小王成对: 小王+大王 is the highest pair."""
    r = ZRules(joker_pair=True)
    assert kinds("小王大王", r) == [("pair", 2)]
    assert wins("小王大王", "22", r)


def test_z4_equal_never_beats() -> None:
    assert not wins("77", "77") and not wins("34567", "34567")


def test_z4_chain_length_is_part_of_the_type() -> None:
    """Z-4: a follow must have the same number of cards."""
    assert not beats(one("456789"), one("34567"))
    assert not beats(one("99 1010 JJ"), one("7788"))


def test_z4_four_is_not_a_bomb() -> None:
    """Z-4.1: a four only beats a smaller four."""
    assert not beats(one("3333"), one("22"))
    assert wins("4444", "3333")


def test_z4_kickers_never_count() -> None:
    """Z-4: 三带一 / 四带二 compare by the triple / four only."""
    assert wins("4443", "333大王")
    assert not wins("333大王", "4443")
    assert wins("555534", "4444大王2")


def test_z4_triple_alone_only_beats_triple_alone() -> None:
    """Z-4: a triple alone is beaten only by a triple alone; 三带一 only by 三带一."""
    assert not beats(one("4443"), one("333"))
    assert not beats(one("444"), one("3335"))
    assert not beats(one("4444"), one("333356"))


def test_z4_four_two_singles_and_pair_same_type() -> None:
    """Z-4: 四带二 with two singles and with one pair are the same type."""
    assert wins("555534", "444477") and wins("555577", "444436")


def test_z4_chain_key_is_top_in_chain_order() -> None:
    """Z-4 (b): A played low counts below 3 — A2345 is the lowest straight."""
    r = ZRules(chain_ends="b")
    a2345, s23456, s34567 = one("A2345", r), one("23456", r), one("34567", r)
    assert beats(s23456, a2345) and beats(s34567, s23456)
    assert beats(one("10JQKA", r), one("9 10JQK", r))
    # The natural rank of the highest card (2, A) is not the key.
    assert not beats(a2345, one("34567", r))


@pytest.mark.parametrize(
    ("rules", "legal", "refused"),
    [
        ("a", ["10JQKA", "QQKKAA", "QQQKKKAAA"], ["A2345", "23456", "KA234", "AA22", "22 33 44"]),
        ("b", ["A2345", "23456", "10JQKA", "AA2233", "222333444"], ["KA234", "QKA23", "KKAA22"]),
        ("c", ["A2345", "23456", "10JQKA"], ["AA2233", "QQKKAA", "QQQKKKAAA", "223344", "KA234"]),
    ],
)
def test_z4_chain_ends_variants(rules: str, legal: list[str], refused: list[str]) -> None:
    """Z-4 连牌规则 a/b/c: which ends 2 and A may take."""
    r = ZRules(chain_ends=rules)
    for t in legal:
        assert classify(cards(t), r), f"{rules}: {t} should be legal"
    for t in refused:
        assert not classify(cards(t), r), f"{rules}: {t} should be refused"


def test_z4_min_pair_chain() -> None:
    """Z-4.3 连对最少 2 (default) or 3."""
    assert kinds("7788") == [("pair_chain", 4)]
    assert kinds("7788", ZRules(min_pair_chain=3)) == []
    assert kinds("778899", ZRules(min_pair_chain=3)) == [("pair_chain", 6)]


def test_g5_lead_refuses_several_types_and_lists_them() -> None:
    """G-5: readings of different types are refused with the readings listed; the type
    named after the cards picks one."""
    rs = [Reading("four_two", 12, 1), Reading("triple_one", 12, 2)]
    with pytest.raises(ReadingError) as err:
        choose_lead(rs)
    assert "三带一" in str(err.value) and "四带二" in str(err.value)
    assert choose_lead(rs, "triple_one") == rs[1]


def test_g5_lead_same_type_takes_highest_key() -> None:
    rs = [Reading("triple_one", 12, 1), Reading("triple_one", 12, 3)]
    assert choose_lead(rs).key == 3


def test_g5_follow_takes_matching_reading_and_bomb_first() -> None:
    rs = [Reading("triple_one", 4, 2), Reading("bomb", 4, 2, bomb=True)]
    table = Reading("triple_one", 4, 1)

    def b(new: Reading, old: Reading) -> bool:
        if new.bomb:
            return not old.bomb or new.key > old.key
        return new.kind == old.kind and new.size == old.size and new.key > old.key

    assert choose_follow(rs, table, b).bomb
    with pytest.raises(ReadingError):
        choose_follow([Reading("pair", 2, 0)], Reading("pair", 2, 5), b)


def test_g5_type_name_after_the_cards() -> None:
    assert split_type_hint("333344445556 三带一") == ("333344445556", "triple_one")
    assert split_type_hint("778899连对") == ("778899", "pair_chain")
    assert split_type_hint("778899") == ("778899", None)


ALL_RULES = st.builds(
    ZRules,
    three_high=st.booleans(), joker_pair=st.booleans(), chain_ends=st.sampled_from("abc"),
    min_pair_chain=st.sampled_from([2, 3]),
)
HANDS = st.lists(st.integers(0, 53), min_size=1, max_size=12, unique=True)


@given(HANDS, ALL_RULES, st.randoms())
def test_property_order_independent(hand: list[int], rules: ZRules, rnd) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert classify(hand, rules) == classify(shuffled, rules)


@given(HANDS, ALL_RULES)
def test_property_nothing_beats_itself(hand: list[int], rules: ZRules) -> None:
    for r in classify(hand, rules):
        assert not beats(r, r)
        assert r.size == len(hand)


@given(HANDS, HANDS, HANDS, ALL_RULES)
def test_property_beats_is_a_strict_order(a: list[int], b: list[int], c: list[int], rules: ZRules) -> None:
    """Within a type, "beats" is irreflexive, asymmetric and transitive."""
    for x in classify(a, rules):
        for y in classify(b, rules):
            if beats(x, y):
                assert not beats(y, x)
                for z in classify(c, rules):
                    if beats(y, z):
                        assert beats(x, z)
