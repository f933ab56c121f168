"""RULES.md Z-1, Z-2, Z-5, Z-6, Z-7, Z-10 and G-3: the 抓特务 state machine."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.cards import DECK_54, card, rank_of
from paizhuo_engine.errors import MoveError
from paizhuo_engine.zhuatewu.game import CIVILIAN, SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SPADE_A, CLUB_A, HEART_A, SPADE_K = card(11, 0), card(11, 2), card(11, 1), card(10, 0)


def test_z1_three_players_eighteen_each() -> None:
    g = ZGame.deal(3, ZRules(), seed=1)
    assert [len(h) for h in g.hands] == [18, 18, 18]
    assert sorted(c for h in g.hands for c in h) == list(DECK_54)


def test_z1_four_players_first_two_in_dealing_order_hold_14() -> None:
    for seed in range(8):
        g = ZGame.deal(4, ZRules(), seed=seed)
        sizes = [len(g.hands[(g.dealer + i) % 4]) for i in range(4)]
        assert sizes == [14, 14, 13, 13]
        assert sorted(c for h in g.hands for c in h) == list(DECK_54)


def test_z1_deterministic_from_seed_and_dealer_given() -> None:
    assert ZGame.deal(4, ZRules(), 7).to_json() == ZGame.deal(4, ZRules(), 7).to_json()
    assert ZGame.deal(3, ZRules(), 7, dealer=2).dealer == 2
    assert ZGame.deal(3, ZRules(), 1).hands != ZGame.deal(3, ZRules(), 2).hands


def test_z2_three_players_spade_ace_is_the_spy() -> None:
    for seed in range(5):
        g = ZGame.deal(3, ZRules(), seed)
        (spy,) = g.spies()
        assert SPADE_A in g.hands[spy]
        assert g.roles.count(CIVILIAN) == 2


@pytest.mark.parametrize(("setting", "pair"), [("双黑", (SPADE_A, CLUB_A)),
                                               ("双桃", (SPADE_A, HEART_A)),
                                               ("黑KA", (SPADE_A, SPADE_K))])
def test_z2_four_player_spy_cards(setting: str, pair: tuple[int, int]) -> None:
    rules = ZRules(spy_cards=setting)
    g = ZGame.from_hands([[pair[0]], [pair[1]], cards("3"), cards("4")], rules)
    assert g.roles == [SPY, SPY, CIVILIAN, CIVILIAN] and not g.lone_spy()
    g = ZGame.from_hands([list(pair), cards("5"), cards("3"), cards("4")], rules)
    assert g.roles == [SPY, CIVILIAN, CIVILIAN, CIVILIAN] and g.lone_spy()


def started(g: ZGame) -> ZGame:
    """Past declaring (everyone stays hidden), ready to play."""
    g.declare_timeout()
    assert g.phase == "play"
    return g


def test_z5_heart_three_leads_first_game() -> None:
    for seed in range(5):
        g = started(ZGame.deal(4, ZRules(), seed))
        assert card(0, 1) in g.hands[g.turn]


def test_z5_heart_four_leads_under_three_high_and_dealer_setting() -> None:
    g = started(ZGame.deal(3, ZRules(three_high=True), 3))
    assert card(1, 1) in g.hands[g.turn]
    g = started(ZGame.deal(3, ZRules(first_lead="庄家"), 3))
    assert g.turn == g.dealer
    assert started(ZGame.deal(3, ZRules(), 3, dealer=1, leader=2)).turn == 2


def test_z5_leader_may_not_pass() -> None:
    g = ZGame.from_hands([cards("34"), [SPADE_A, card(2, 0)], cards("66")])
    with pytest.raises(MoveError) as err:
        g.pass_turn(0)
    assert err.value.code == "must_lead"
    assert g.turn == 0 and g.log == []


def test_g3_not_your_turn_changes_nothing() -> None:
    g = ZGame.from_hands([cards("34"), [SPADE_A, card(2, 0)], cards("66")])
    before = g.to_json()
    for action in (lambda: g.pass_turn(1), lambda: g.play(2, cards("6")), lambda: g.play_text(1, "5")):
        with pytest.raises(MoveError) as err:
            action()
        assert err.value.code == "not_turn"
    assert g.to_json() == before


def test_g3_refusals_change_nothing() -> None:
    g = ZGame.from_hands([cards("3 4 77"), [SPADE_A, card(2, 0), card(5, 0)], cards("66 K")])
    g.play_text(0, "77")
    before = g.to_json()
    # G-4: a play that could not beat the pair whatever the hand is refused for that
    # (publicly), before the hand is read; "KK" beats it, so the hand decides.
    cases = [("KK", "not_held"), ("K", "not_beat"), ("1", "notation"), ("5", "not_beat"),
             ("♠A5", "no_type")]
    for text, code in cases:
        with pytest.raises(MoveError) as err:
            g.play_text(1, text)
        assert err.value.code == code, text
        assert g.to_json() == before
    with pytest.raises(MoveError) as err:
        g.play(1, [card(2, 0), card(2, 0)])
    assert err.value.code == "not_held"


def test_g3_trick_won_when_all_others_pass_and_passer_may_play_again() -> None:
    g = ZGame.from_hands([cards("3 5 9"), [SPADE_A, *cards("4 8")], cards("6 7 K")])
    g.play_text(0, "3")
    g.pass_turn(1)
    g.play_text(2, "6")
    m = g.play_text(0, "9")
    assert m.next_seat == 1
    g.play_text(1, "A")  # the one who passed earlier plays again in the same trick
    g.pass_turn(2)
    m = g.pass_turn(0)
    assert m.trick_won == 1 and g.turn == 1 and g.lead is None


def test_g3_jiefeng_lead_goes_to_next_active_after_finisher() -> None:
    """G-3 接风: the finisher's last play unbeaten → their 下家 leads."""
    g = ZGame.from_hands([cards("5 5") , cards("3 4 Q"), [SPADE_A, *cards("6 7 9")], cards("8 10 J")],
                         rules=ZRules(), leader=0)
    g.play_text(0, "55")
    assert g.out == [0]
    g.pass_turn(1)
    g.pass_turn(2)
    m = g.pass_turn(3)
    assert m.trick_won == 0 and m.jiefeng and g.turn == 1


def test_z6_report_when_hand_drops_to_n() -> None:
    g = ZGame.from_hands([cards("3 4 Q"), [SPADE_A, *cards("6 7")], cards("8 9 10")])
    m = g.play_text(0, "3")
    assert m.report is None
    g.pass_turn(1)
    g.pass_turn(2)
    m = g.play_text(0, "4")
    assert m.report == 1
    g2 = ZGame.from_hands([cards("3 4 Q"), [SPADE_A, *cards("6 7")], cards("8 9 10")],
                          rules=ZRules(report_at=2))
    assert g2.play_text(0, "3").report == 2
    g3 = ZGame.from_hands([cards("3 4"), [SPADE_A, *cards("6 7")], cards("8 9 10")],
                          rules=ZRules(report_at=0))
    assert g3.play_text(0, "3").report is None


def play_out(g: ZGame, order: list[int]) -> None:
    """Each seat in ``order`` goes out by leading its whole hand (the turn is forced to
    it: these tests check Z-7/Z-10, not the trick flow)."""
    for seat in order:
        g.turn, g.lead, g.passes = seat, None, 0
        g.play(seat, list(g.hands[seat]))
        if g.over:
            break


def game3(order: list[int]) -> ZGame:
    # seat 0 is the spy; singles only so order is easy to force
    g = ZGame.from_hands([[SPADE_A], cards("3"), cards("4")])
    play_out(g, order)
    return g


@pytest.mark.parametrize(
    ("order", "outcome", "points"),
    [([0], SPY, [2, -1, -1]), ([1, 2], CIVILIAN, [-2, 1, 1]), ([1, 0], "draw", [0, 0, 0])],
)
def test_z7_z10_three_players(order: list[int], outcome: str, points: list[int]) -> None:
    """Z-7 3 players: spy first wins; civilians first two win; civilian, spy, civilian
    draws. Z-10: spy +2 / civilians −1 each, and the reverse."""
    g = game3(order)
    assert g.over and g.result["outcome"] == outcome
    assert g.result["points"] == points and sum(points) == 0


def game4(hands_roles: str, order: list[int], lone: str = "a") -> ZGame:
    spies = [i for i, ch in enumerate(hands_roles) if ch == "S"]
    filler = iter(cards("3 4 5 6 7 8"))
    hands = [[next(filler)] for _ in range(4)]
    if len(spies) == 2:
        hands[spies[0]] = [SPADE_A]
        hands[spies[1]] = [CLUB_A]
    else:
        hands[spies[0]] = [SPADE_A, CLUB_A]
    g = ZGame.from_hands(hands, rules=ZRules(lone_spy=lone))
    play_out(g, order)
    return g


@pytest.mark.parametrize(
    ("order", "outcome"),
    [([0, 1], SPY), ([0, 2, 1], SPY), ([2, 3], CIVILIAN), ([2, 0, 3], CIVILIAN),
     ([0, 2, 3], "draw"), ([2, 0, 1], "draw")],
)
def test_z7_four_players_two_spies(order: list[int], outcome: str) -> None:
    """Z-7 2v2: 特特/特民特 spies win, 民民/民特民 civilians, 特民民特 and 民特特民 draw."""
    g = game4("SSCC", order)
    assert g.over and g.result["outcome"] == outcome
    assert len(g.out) == len(order)
    expected = {SPY: [1, 1, -1, -1], CIVILIAN: [-1, -1, 1, 1], "draw": [0, 0, 0, 0]}[outcome]
    assert g.result["points"] == expected


def test_z7_lone_spy_rule_a() -> None:
    """Z-7 独头规则 a: the spy wins only by going out first."""
    g = game4("SCCC", [0])
    assert g.result["outcome"] == SPY and g.result["points"] == [3, -1, -1, -1]
    g = game4("SCCC", [1, 0])
    assert g.result["outcome"] == CIVILIAN and g.result["points"] == [-3, 1, 1, 1]


@pytest.mark.parametrize(("order", "outcome"), [([0], SPY), ([1, 2, 3], CIVILIAN),
                                                ([1, 0], "draw"), ([1, 2, 0], "draw")])
def test_z7_lone_spy_rule_b(order: list[int], outcome: str) -> None:
    """Z-7 独头规则 b: spy first wins, spy last loses, otherwise a draw."""
    g = game4("SCCC", order, lone="b")
    assert g.over and g.result["outcome"] == outcome


def test_z10_stake_multiplier_for_declared_spy() -> None:
    g = ZGame.from_hands([[SPADE_A], cards("3"), cards("4")])
    g.stakes[0] = 2
    play_out(g, [0])
    assert g.result["points"] == [4, -2, -2]


def test_moves_after_the_end_are_refused() -> None:
    g = game3([0])
    with pytest.raises(MoveError) as err:
        g.pass_turn(1)
    assert err.value.code == "over"


def random_game(seed: int, players: int, rules: ZRules) -> ZGame:
    """Plays a whole game with random (legal-or-refused) moves."""
    rnd = random.Random(seed)
    g = started(ZGame.deal(players, rules, seed))
    steps = 0
    while not g.over:
        steps += 1
        assert steps < 5000
        seat = g.turn
        hand = g.hands[seat]
        by_rank: dict[int, list[int]] = {}
        for c in hand:
            by_rank.setdefault(rank_of(c), []).append(c)
        group = by_rank[rnd.choice(list(by_rank))]
        attempt = group[: rnd.randint(1, len(group))]
        before = json.dumps(g.to_json(), sort_keys=True)
        try:
            g.play(seat, attempt)
            continue
        except MoveError:
            assert json.dumps(g.to_json(), sort_keys=True) == before
        if g.lead is None:
            g.play(seat, [hand[0]])
        else:
            g.pass_turn(seat)
    return g


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([3, 4]),
       st.builds(ZRules, spy_cards=st.sampled_from(["双黑", "双桃", "黑KA"]),
                 three_high=st.booleans(), lone_spy=st.sampled_from("ab"),
                 first_lead=st.sampled_from(["红桃3", "庄家"])))
def test_property_random_game_ends_validly(seed: int, players: int, rules: ZRules) -> None:
    """A full random game always ends with a valid result and every card accounted for,
    and its state survives JSON round trips at the end."""
    g = random_game(seed, players, rules)
    played = [c for entry in g.log for c in entry[1]]
    assert sorted(played + [c for h in g.hands for c in h]) == list(DECK_54)
    assert g.result["outcome"] in (SPY, CIVILIAN, "draw")
    assert sum(g.result["points"]) == 0
    assert len(set(g.out)) == len(g.out) >= 1
    restored = ZGame.from_json(json.loads(json.dumps(g.to_json())))
    assert restored == g


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 60))
def test_property_json_round_trip_mid_game(seed: int, moves: int) -> None:
    """The whole state serialises to JSON and back without loss, and the restored game
    plays on identically."""
    g = started(ZGame.deal(4, ZRules(), seed))
    for _ in range(moves):
        if g.over:
            break
        if g.lead is None:
            g.play(g.turn, [g.hands[g.turn][0]])
        else:
            g.pass_turn(g.turn)
    copy = ZGame.from_json(json.loads(json.dumps(g.to_json())))
    assert copy == g
    if not g.over:
        if g.lead is None:
            a, b = g.play(g.turn, [g.hands[g.turn][-1]]), copy.play(copy.turn, [copy.hands[copy.turn][-1]])
        else:
            a, b = g.pass_turn(g.turn), copy.pass_turn(copy.turn)
        assert a == b and g == copy


def test_auto_play_strategy_passes_following_and_leads_lowest() -> None:
    """托管 default: pass when following; lead the lowest single (G-3, Z-3)."""
    from paizhuo_engine.ai.simple import LowestStrategy

    g = ZGame.from_hands([cards("5 9 K"), [SPADE_A, *cards("4 8")], cards("3 6")], leader=0)
    strategy = LowestStrategy()
    assert strategy.choose(g, 0).cards == (card(2, 0),)
    g.play_text(0, "5")
    assert strategy.choose(g, 1).kind == "pass"
    g3 = ZGame.from_hands([cards("4 5"), [SPADE_A, card(11, 1)], cards("3 6")],
                          rules=ZRules(three_high=True), leader=2)
    assert rank_of(strategy.choose(g3, 2).cards[0]) == 3  # under 带3 the 3 is high: lead 6
    g3.turn = 1
    assert strategy.choose(g3, 1).cards == (card(11, 1),)  # ♥A before the spy card ♠A


def test_auto_play_in_tuoguan_follows_sets_with_the_lowest_beating_rank() -> None:
    """托管: follow a single / pair with the lowest set of one rank that beats it, a spy
    card last; pass on anything else."""
    from paizhuo_engine.ai.simple import FollowingStrategy

    strategy = FollowingStrategy()
    g = ZGame.from_hands([cards("5 9 K"), [SPADE_A, card(11, 1), *cards("4 8 88")], cards("3 6")])
    g.play_text(0, "5")
    assert [rank_of(c) for c in strategy.choose(g, 1).cards] == [5]  # 8: the lowest that beats 5
    g.play_text(1, "8")
    g.pass_turn(2)
    g.play_text(0, "9")
    assert strategy.choose(g, 1).cards == (card(11, 1),)  # ♥A before the spy card ♠A
    g2 = ZGame.from_hands([cards("34567 9"), [SPADE_A, *cards("45678")], cards("3 6")])
    g2.play_text(0, "34567")
    assert strategy.choose(g2, 1).kind == "pass"  # no chains in 托管
