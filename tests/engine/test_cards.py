"""RULES.md G-1: cards and notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paizhuo_engine.cards import (
    BIG_JOKER,
    SMALL_JOKER,
    CardsNotHeld,
    CardSpec,
    NotationError,
    card,
    card_name,
    format_cards,
    parse_cards,
    rank_of,
    resolve,
)


def ranks(text: str) -> list[int]:
    return [s.rank for s in parse_cards(text)]


@pytest.mark.parametrize(
    "text",
    ["778899", "7 7 8 8 9 9", "７７８８９９", "77 88 99", " 7\t78 89 9 "],
)
def test_g1_same_input_forms(text: str) -> None:
    """G-1: whitespace optional, full-width accepted."""
    assert ranks(text) == [4, 4, 5, 5, 6, 6]


@pytest.mark.parametrize("text", ["99 1010 JJ", "9910 10JJ", "99TTjj", "9900JJ", "９９１０１０ＪＪ"])
def test_g1_ten_is_one_rank(text: str) -> None:
    """G-1: `10` is one rank; T and 0 mean 10; lower-case letters."""
    assert ranks(text) == [6, 6, 7, 7, 8, 8]


def test_g1_every_rank_name() -> None:
    assert ranks("3 4 5 6 7 8 9 10 J Q K A 2") == list(range(13))
    assert ranks("jqka") == [8, 9, 10, 11]


@pytest.mark.parametrize("text", ["小王大王", "小大", "大小王"])
def test_g1_jokers(text: str) -> None:
    """G-1: 小王/大王 and the short forms 小/大."""
    assert sorted(ranks(text)) == [13, 14]


@pytest.mark.parametrize(
    ("text", "spec"),
    [("♠A", CardSpec(11, 0)), ("黑桃A", CardSpec(11, 0)), ("sA", CardSpec(11, 0)),
     ("♥10", CardSpec(7, 1)), ("红桃10", CardSpec(7, 1)), ("h10", CardSpec(7, 1)),
     ("红心3", CardSpec(0, 1)), ("梅花K", CardSpec(10, 2)), ("cK", CardSpec(10, 2)),
     ("♦2", CardSpec(12, 3)), ("方块2", CardSpec(12, 3)), ("D2", CardSpec(12, 3)),
     ("♥️5", CardSpec(2, 1))],
)
def test_g1_suit_forms(text: str, spec: CardSpec) -> None:
    """G-1: suits as symbols, Chinese names or ASCII letters."""
    assert parse_cards(text) == [spec]


@pytest.mark.parametrize(
    ("text", "bad"),
    [("1", "1"), ("7 1 8", "1"), ("x", "x"), ("77z", "z"), ("♠", "♠"), ("黑桃", "黑桃"),
     ("♠小王", "王"), ("", "没有")],
)
def test_g1_refusal_names_the_bad_part(text: str, bad: str) -> None:
    """G-1: anything else is refused with a reason naming the bad part; `1` is not a rank."""
    with pytest.raises(NotationError) as err:
        parse_cards(text)
    assert bad in str(err.value)


def test_g1_format_groups_by_rank_and_parses_back() -> None:
    hand = [card(11, 0), card(0, 3), card(0, 0), SMALL_JOKER, card(7, 1), BIG_JOKER]
    text = format_cards(hand)
    assert text == "♠3♦3 ♥10 ♠A 小王 大王"
    got = [card(s.rank, s.suit) if s.suit is not None else s.rank + 39 for s in parse_cards(text)]
    assert sorted(got) == sorted(hand)


@given(st.lists(st.integers(0, 53), unique=True, max_size=54))
def test_g1_format_parse_round_trip(hand: list[int]) -> None:
    """Property: parse ∘ format is the identity on any set of cards."""
    specs = parse_cards(format_cards(hand)) if hand else []
    got = sorted(card(s.rank, s.suit) if s.suit is not None else s.rank + 39 for s in specs)
    assert got == sorted(hand)
    assert all(card_name(c) for c in hand)


def test_g1_rank_only_never_picks_a_protected_card_first() -> None:
    """G-1: the bot picks the least revealing suit — never the spy card while another
    card of that rank is available."""
    spade_a, club_a, heart_a = card(11, 0), card(11, 2), card(11, 1)
    assert resolve(parse_cards("A"), [spade_a, heart_a], protected=[spade_a]) == [heart_a]
    assert resolve(parse_cards("A"), [spade_a], protected=[spade_a]) == [spade_a]
    got = resolve(parse_cards("AA"), [spade_a, club_a, heart_a], protected=[spade_a, club_a])
    assert spade_a not in got and heart_a in got
    # Named explicitly: taken as named.
    assert resolve(parse_cards("♠A"), [spade_a, heart_a], protected=[spade_a]) == [spade_a]


def test_g1_named_suit_taken_before_rank_only() -> None:
    h = [card(4, 0), card(4, 1)]
    assert sorted(resolve(parse_cards("7♠7"), h)) == sorted(h)


def test_g1_cards_not_held() -> None:
    with pytest.raises(CardsNotHeld):
        resolve(parse_cards("77"), [card(4, 0)])
    with pytest.raises(CardsNotHeld):
        resolve(parse_cards("♠7"), [card(4, 1)])


def test_rank_of_jokers() -> None:
    assert rank_of(SMALL_JOKER) == 13 and rank_of(BIG_JOKER) == 14
