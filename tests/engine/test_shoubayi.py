"""RULES.md S-1 … S-6: 手把一 deal, ranking, hand types, order of play, must-block, 包赔,
end and penalties."""

from __future__ import annotations

import json

import pytest
from support import cards

from paizhuo_engine.cards import BIG_JOKER, DECK_52, DECK_54, HEART, SMALL_JOKER, card
from paizhuo_engine.errors import MoveError
from paizhuo_engine.readings import Reading
from paizhuo_engine.shoubayi.game import SGame, penalty
from paizhuo_engine.shoubayi.rules import SRules, beats, classify


def kinds(text: str) -> list[tuple[str, int, int]]:
    return [(r.kind, r.size, r.key) for r in classify(cards(text))]


def one(text: str) -> Reading:
    rs = [r for r in classify(cards(text)) if not r.bomb] or classify(cards(text))
    assert len(rs) == 1, (text, rs)
    return rs[0]


# ---- S-1 deal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_s1_whole_deck_dealt_extra_cards_to_first_seats(players: int) -> None:
    g = SGame.deal(players, SRules(), 3)
    sizes = [len(g.hands[(g.dealer + i) % players]) for i in range(players)]
    assert sorted(c for h in g.hands for c in h) == list(DECK_54)
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
    assert sum(sizes) == 54


def test_s1_two_players_set_aside_and_52_cards() -> None:
    for seed in range(10):
        g = SGame.deal(2, SRules(), seed)
        assert 10 <= len(g.aside) <= 20
        assert sorted(g.aside + g.hands[0] + g.hands[1]) == list(DECK_54)
    g = SGame.deal(2, SRules(aside_min=0, aside_max=0, jokers=False), 1)
    assert g.aside == [] and sorted(g.hands[0] + g.hands[1]) == list(DECK_52)
    assert [len(h) for h in g.hands] == [26, 26]


def test_s4_heart_five_leads_else_lowest_heart_above() -> None:
    for seed in range(10):
        g = SGame.deal(4, SRules(), seed)
        assert card(2, HEART) in g.hands[g.turn]
    for seed in range(30):
        g = SGame.deal(2, SRules(), seed)
        if card(2, HEART) in g.aside:
            low = min(c for h in g.hands for c in h if c < 52 and c % 4 == HEART and c > card(2, HEART))
            assert low in g.hands[g.turn]
            break
    else:
        pytest.fail("no deal with ♥5 set aside")
    assert SGame.deal(4, SRules(first_lead="庄家"), 2).turn == SGame.deal(4, SRules(), 2).dealer
    later = SGame.deal(3, SRules(), 5, previous={"winner": 2})
    assert later.dealer == later.turn == 2


# ---- S-2 / S-3 hand types ----------------------------------------------------------------------
@pytest.mark.parametrize(("text", "kind"), [
    ("3", "single"), ("大王", "single"), ("22", "pair"), ("小王大王", "pair"),
    ("AA2233", "pair_chain"), ("334455", "pair_chain"), ("QQKKAA", "pair_chain"),
    ("A2345", "straight"), ("10JQKA", "straight"), ("3334", "triple_one"), ("333大王", "triple_one"),
    ("33334444", "triple_one"), ("KKKAAA 3 5", "triple_one"), ("4444 56", "four_two"),
    ("8888", "bomb"),
])
def test_s3_types(text: str, kind: str) -> None:
    assert kind in [k for k, _, _ in kinds(text)]


@pytest.mark.parametrize(("text", "why"), [
    ("KA234", "S-2: 2 only low, never KA2"), ("QKA2 3", "never after K"), ("333", "S-3.2: no bare triple"),
    ("33344", "三带一 carries exactly one card"), ("3344", "pair chain needs 3 pairs"),
    ("3456", "straight needs 5"), ("10JQK小王", "jokers never chain"), ("4444 5", "四带二 needs two"),
    ("33334444", "bombs never combine: two fours read only as a 三带一 chain"),
])
def test_s3_refused(text: str, why: str) -> None:
    readings = classify(cards(text))
    assert not any(r.bomb for r in readings), why
    assert [r for r in readings if r.kind != "triple_one" or text != "33334444"] == [], why


def test_s2_a2345_lowest_and_10jqka_highest_straight() -> None:
    a2345, s23456, top = one("A2345"), one("23456"), one("10JQKA")
    assert beats(s23456, a2345) and beats(top, one("9 10JQK")) and not beats(a2345, s23456)


def test_s2_aa2233_is_the_lowest_pair_chain() -> None:
    assert beats(one("223344"), one("AA2233")) and beats(one("334455"), one("223344"))


def test_s2_joker_pair_is_the_highest_pair() -> None:
    assert beats(one("小王大王"), one("22")) and beats(one("22"), one("AA"))
    assert beats(one("大王"), one("小王")) and beats(one("小王"), one("2"))


def test_s3_chains_compare_by_lowest_card() -> None:
    assert beats(one("45678"), one("34567"))
    assert not beats(one("456789"), one("34567"))  # same number of cards


def test_s3_airplane_key_is_its_triples_never_kickers() -> None:
    low = one("333444 22")
    high = one("444555 33")
    assert low.key == 3 and high.key == 4 and beats(high, low)
    assert not beats(one("333444 大王小王"), one("444555 33"))


def test_s3_bombs() -> None:
    bomb8 = next(r for r in classify(cards("8888")) if r.bomb)
    assert beats(bomb8, one("QQ")) and beats(bomb8, one("小王大王")) and beats(bomb8, one("A2345"))
    assert not beats(one("22"), bomb8) and not beats(one("小王大王"), bomb8)
    assert beats(next(r for r in classify(cards("9999")) if r.bomb), bomb8)


def test_g5_333444555666_leads_highest_key_and_mixed_types_refused() -> None:
    g = SGame.from_hands([cards("333444555666 7"), cards("8 9")])
    move = g.play_text(0, "333444555666")
    assert move.reading.kind == "triple_one" and move.reading.key == 4
    g = SGame.from_hands([cards("333344445556 7"), cards("8 9")])
    with pytest.raises(MoveError) as err:
        g.play_text(0, "333344445556")
    assert "三带一" in str(err.value) and "四带二" in str(err.value)
    assert g.play_text(0, "333344445556 三带一").reading.kind == "triple_one"


def test_s3_bomb_may_not_lead_four_led_is_triple_one() -> None:
    g = SGame.from_hands([cards("8888 3"), cards("9999 4")])
    move = g.play_text(0, "8888")
    assert move.reading.kind == "triple_one" and not move.reading.bomb
    move = g.play_text(1, "9999")  # following: the bomb reading first (G-5)
    assert move.reading.bomb


def test_s3_lone_joker_refused() -> None:
    """S-3: a play that would leave exactly one joker in hand is refused."""
    g = SGame.from_hands([cards("3 小王"), cards("5 6")])
    before = g.to_json()
    with pytest.raises(MoveError) as err:
        g.play_text(0, "3")
    assert err.value.code == "lone_joker" and g.to_json() == before
    assert g.play_text(0, "小王").reading.kind == "single"  # keeping the 3 is fine
    g = SGame.from_hands([cards("3 小王 大王"), cards("5 6")])
    assert g.play_text(0, "3").reading.kind == "single"  # two jokers left: allowed


# ---- S-4 把一, must-block, 包赔 ------------------------------------------------------------------
def test_s4_ba_yi_announced() -> None:
    g = SGame.from_hands([cards("3 4"), cards("5 6 7"), cards("8 9 10")])
    assert g.play_text(0, "3").report == 1


def test_s4_must_block_refuses_pass_only_when_a_beating_play_exists() -> None:
    # Seat 0 plays down to one card; seat 1 passes; seat 2 (last before 0) can beat → must.
    g = SGame.from_hands([cards("5 9"), cards("3 4 6"), cards("8 10 J")])
    g.play_text(0, "5")
    g.pass_turn(1)
    with pytest.raises(MoveError) as err:
        g.pass_turn(2)
    assert err.value.code == "must_block"
    g.play_text(2, "8")
    # Not the last before the 把一 player: seat 1 may pass freely.
    g2 = SGame.from_hands([cards("5 9"), cards("3 4 6"), cards("8 10 J")])
    g2.play_text(0, "5")
    g2.pass_turn(1)
    g2.hands[2] = cards("3 4")  # nothing beats 5 → pass allowed
    g2.pass_turn(2)
    assert g2.turn == 0
    g3 = SGame.from_hands([cards("5 9"), cards("3 4 6"), cards("8 10 J")], rules=SRules(must_block=False))
    g3.play_text(0, "5")
    g3.pass_turn(1)
    g3.pass_turn(2)  # setting off
    assert g3.turn == 0


def test_s4_baopei_triggers() -> None:
    """Seat 0 leads a low single while seat 1 holds one card; seat 1 goes out on it."""
    g = SGame.from_hands([cards("3 K Q"), cards("9"), cards("5 6 7 8")])
    g.play_text(0, "3")
    g.play_text(1, "9")
    assert g.over and g.result["winner"] == 1 and g.result["baopei"] == 0
    # Seat 0 pays its own 2 and seat 2's 4 cards × 2 (never played).
    assert g.result["payments"] == [2 + 4 * 2, 0, 0]
    assert g.result["points"] == [-10, 10, 0]


def test_s4_baopei_not_triggered() -> None:
    # Highest single played: no 包赔.
    g = SGame.from_hands([cards("3 K"), cards("9"), cards("5 6 7 8")])
    g.play_text(0, "K")
    g.pass_turn(1)
    assert g.watch is None
    # Next player holds more than one card: no 包赔.
    g = SGame.from_hands([cards("3 K Q"), cards("9 10"), cards("5 6 7 8")])
    g.play_text(0, "3")
    assert g.watch is None
    # Setting off.
    g = SGame.from_hands([cards("3 K Q"), cards("9"), cards("5 6 7 8")], rules=SRules(baopei=False))
    g.play_text(0, "3")
    g.play_text(1, "9")
    assert g.result["baopei"] is None and g.result["payments"][0] == 2 * 1


# ---- S-5 / S-6 end and penalty -------------------------------------------------------------------
@pytest.mark.parametrize(("hand", "played", "expected"), [
    (cards("3"), True, 0), (cards("3 4"), True, 2), (cards("3 4"), False, 4),
    (cards("3 小王"), True, 4), (cards("3 小王 大王"), True, 12), (cards("3 小王 大王"), False, 24),
    ([BIG_JOKER], False, 0), ([SMALL_JOKER, BIG_JOKER], True, 8),
])
def test_s6_penalty(hand: list[int], played: bool, expected: int) -> None:
    n, mult = penalty(hand, played)
    assert n * mult == expected


def test_s5_first_out_wins_and_everyone_pays() -> None:
    g = SGame.from_hands([cards("3"), cards("4 5"), cards("6 7 小王")])
    g.played = [True, True, True]
    g.play_text(0, "3")
    assert g.over and g.result["winner"] == 0
    assert g.result["payments"] == [0, 2, 6] and g.result["points"] == [8, -2, -6]


def test_s5_to_the_end_only_the_dala_pays() -> None:
    g = SGame.from_hands([cards("3"), cards("4"), cards("6 7 8")], rules=SRules(to_the_end=True))
    g.played = [True, True, True]
    g.play_text(0, "3")
    assert not g.over
    g.play_text(1, "4")
    assert g.over and g.result["places"] == [0, 1, 2] and g.result["dala"] == 2
    assert g.result["payments"] == [0, 0, 3] and g.result["points"] == [3, 0, -3]


def test_state_round_trips() -> None:
    g = SGame.deal(2, SRules(), 9)
    assert SGame.from_json(json.loads(json.dumps(g.to_json()))) == g


def test_s4_winner_who_left_neither_deals_nor_leads() -> None:
    """S-4 between games with changed players: the previous winner deals and leads from
    their seat now; a winner who left gives way to the first-game rule."""
    rules = SRules()
    moved = SGame.deal(3, rules, 11, previous={"winner": 2, "seat_map": [2, 0, 1]})
    assert moved.dealer == 1 and moved.turn == 1
    gone = SGame.deal(3, rules, 11, previous={"winner": 2, "seat_map": [0, 1, None]})
    first = SGame.deal(3, rules, 11)
    assert (gone.dealer, gone.turn, gone.hands) == (first.dealer, first.turn, first.hands)


def test_s3_timed_out_lead_never_keeps_a_lone_joker() -> None:
    """S-3: the timeout rule leads the lowest single the game allows — with 4 and 小王
    left, leading the 4 would keep a lone joker, so the joker goes first."""
    from paizhuo_engine.ai.simple import LowestStrategy

    game = SGame.from_hands([[card(1, HEART), SMALL_JOKER], cards("9 10 J")], SRules(), leader=0)
    action = LowestStrategy().choose(game, 0)
    game.play(0, list(action.cards))  # accepted: no MoveError
    assert action.cards == (SMALL_JOKER,)


def test_s3_timed_out_lead_with_only_the_jokers_plays_them_as_a_pair() -> None:
    """S-3: with 小王 大王 left no single may lead; the timeout rule leads the pair."""
    from paizhuo_engine.ai.simple import LowestStrategy

    game = SGame.from_hands([[SMALL_JOKER, BIG_JOKER], cards("9 10 J")], SRules(), leader=0)
    action = LowestStrategy().choose(game, 0)
    game.play_reading(0, list(action.cards), action.reading)
    assert game.out == [0]


def test_s4_timed_out_follow_respects_must_block() -> None:
    """S-4 把一必拦: the timeout rule (pass when following) must not pass when the game
    forbids it — it plays the cheapest follow that beats the table."""
    from paizhuo_engine.ai.simple import FollowingStrategy, LowestStrategy

    for strategy in (LowestStrategy(), FollowingStrategy()):
        game = SGame.from_hands([cards("10 J K"), cards("3 9")], SRules(), leader=1)
        game.play(1, cards("9"))  # 1 card left: 把一
        action = strategy.choose(game, 0)
        assert action.kind == "play" and action.cards == tuple(cards("10"))
        game.play_reading(0, list(action.cards), action.reading)
