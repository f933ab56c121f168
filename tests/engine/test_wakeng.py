"""RULES.md W-1 … W-7: 挖坑 deal, bidding, burying, hand types, play, result and score,
in the 标准 and 陕西 rule sets."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.ai.simple import LowestStrategy
from paizhuo_engine.cards import DECK_52, HEART, card, rank_of
from paizhuo_engine.errors import MoveError
from paizhuo_engine.readings import Reading
from paizhuo_engine.wakeng.game import DIGGER, FARMER, WGame
from paizhuo_engine.wakeng.rules import WRules, beats, bury_multiplier, classify, forced_three

STD, SX = WRules(), WRules(ruleset="陕西")


def kinds(text: str, rules: WRules = STD) -> list[tuple[str, int]]:
    return [(r.kind, r.size) for r in classify(cards(text), rules)]


def one(text: str, rules: WRules = STD) -> Reading:
    rs = classify(cards(text), rules)
    assert len(rs) == 1, (text, rs)
    return rs[0]


# ---- W-1 deal -----------------------------------------------------------------------------
def test_w1_sixteen_each_and_four_bottom_no_jokers() -> None:
    for seed in range(6):
        g = WGame.deal(STD, seed)
        assert [len(h) for h in g.hands] == [16, 16, 16] and len(g.bottom) == 4
        assert sorted(g.bottom + [c for h in g.hands for c in h]) == list(DECK_52)
        assert g.phase == "bid" and g.bidder == g.first


def test_w2_first_bidder_is_given_or_drawn() -> None:
    assert WGame.deal(STD, 3, first=2).bidder == 2
    assert {WGame.deal(STD, s).first for s in range(30)} == {0, 1, 2}


# ---- W-2 bidding --------------------------------------------------------------------------
def bidding(amounts: list[int], rules: WRules = STD, seed: int = 1) -> WGame:
    g = WGame.deal(rules, seed, first=0)
    for seat, a in enumerate(amounts):
        g.place_bid(seat, a)
    return g


def test_w2_highest_bidder_digs() -> None:
    g = bidding([1, 0, 2])
    assert g.phase == "bury" and g.digger == 2 and g.bid == 2 and g.turn == 2


def test_w2_bid_must_be_higher_and_once_each() -> None:
    g = WGame.deal(STD, 1, first=0)
    g.place_bid(0, 2)
    before = g.to_json()
    for seat, amount, code in [(1, 1, "bid"), (1, 2, "bid"), (0, 3, "not_turn"), (2, 3, "not_turn")]:
        with pytest.raises(MoveError) as err:
            g.place_bid(seat, amount)
        assert err.value.code == code
    assert g.to_json() == before
    assert g.bid_options(1) == [0, 3]


def test_w2_three_ends_bidding_at_once() -> None:
    g = WGame.deal(STD, 1, first=1)
    g.place_bid(1, 3)
    assert g.phase == "bury" and g.digger == 1 and g.bid == 3 and g.bids == [None, 3, None]


def test_w2_third_must_bid_when_first_two_passed() -> None:
    g = WGame.deal(STD, 1, first=0)
    g.place_bid(0, 0)
    g.place_bid(1, 0)
    assert g.bid_options(2) == [1, 2, 3]
    with pytest.raises(MoveError):
        g.place_bid(2, 0)
    assert g.bid_timeout() == 1 and g.digger == 2 and g.bid == 1


def test_w2_all_three_passing_is_impossible_in_standard() -> None:
    for seed in range(20):
        g = WGame.deal(STD, seed)
        while g.phase == "bid":
            options = g.bid_options(g.bidder)
            g.place_bid(g.bidder, options[0])
        assert g.bid >= 1 and g.digger is not None


def test_w2_bid_timeout_is_no_bid() -> None:
    g = WGame.deal(STD, 1, first=0)
    assert g.bid_timeout() == 0 and g.bids[0] == 0 and g.bidder == 1


# ---- W-7 陕西 bidding ------------------------------------------------------------------------
def test_w7_heart_four_bids_first() -> None:
    for seed in range(10):
        g = WGame.deal(SX, seed)
        holder = next((s for s, h in enumerate(g.hands) if card(1, HEART) in h), None)
        if holder is not None:
            assert g.first == g.bidder == holder
        else:  # ♥4 in the bottom: the lowest heart dealt
            low = min((c for h in g.hands for c in h if c % 4 == HEART), key=rank_of)
            assert low in g.hands[g.first]


def test_w7_all_pass_first_bidder_digs_at_one() -> None:
    for seed in range(40):
        g = WGame.deal(SX, seed)
        if any(forced_three(h) for h in g.hands):
            continue
        first = g.first
        for _ in range(3):
            g.place_bid(g.bidder, 0)
        assert g.digger == first and g.bid == 1 and g.phase == "bury"
        return
    pytest.fail("no deal without a forced bid")


def test_w7_forced_bid_of_three() -> None:
    assert forced_three(cards("333 9"))
    assert forced_three(cards("33 22"))
    assert not forced_three(cards("33 2"))
    g = WGame.from_hands([cards("333 4"), cards("5"), cards("6")], rules=SX)
    g.phase, g.bidder, g.bids, g.digger, g.first = "bid", 0, [None] * 3, None, 0
    # The options shown are the ordinary ones (showing only 叫 3 would reveal the hand);
    # whatever the player says, the bid is 3.
    assert g.bid_options(0) == [0, 1, 2, 3]
    assert g.place_bid(0, 0) == 3
    assert g.digger == 0 and g.bid == 3
    std = WGame.from_hands([cards("333 4"), cards("5"), cards("6")])
    std.phase, std.bidder, std.bids, std.first = "bid", 0, [None] * 3, 0
    assert std.bid_options(0) == [0, 1, 2, 3]  # no forced bid in 标准


# ---- W-3 burying ----------------------------------------------------------------------------
def test_w3_bury_then_take_the_bottom() -> None:
    g = bidding([3])
    hand, bottom = list(g.hands[0]), list(g.bottom)
    four = hand[:4]
    assert g.bury(0, four) == sorted(four)
    assert len(g.hands[0]) == 16 and set(bottom) <= set(g.hands[0])
    assert not set(four) & set(g.hands[0])
    assert g.phase == "play" and g.turn == 0  # W-5 the digger leads


@pytest.mark.parametrize(("pick", "code"), [
    (lambda h, o: h[:3], "count"), (lambda h, o: h[:5], "count"),
    (lambda h, o: h[:3] + o[:1], "not_held"), (lambda h, o: h[:3] + h[:1], "not_held"),
])
def test_w3_bury_validation(pick, code: str) -> None:
    g = bidding([3])
    before = json.dumps(g.to_json())
    with pytest.raises(MoveError) as err:
        g.bury(0, pick(g.hands[0], g.hands[1]))
    assert err.value.code == code and json.dumps(g.to_json()) == before
    with pytest.raises(MoveError) as err:
        g.bury(1, g.hands[1][:4])
    assert err.value.code == "not_burying"


def test_w3_bury_timeout_buries_lowest_four_without_scoring_cards() -> None:
    g = bidding([3])
    low = g.timeout_bury(0)
    assert g.bury_timeout() == sorted(low)
    plain = [rank_of(x) for x in g.hands[0] if x not in g.bottom and rank_of(x) not in (2, 7, 10)]
    assert all(rank_of(c) not in (2, 7, 10) and rank_of(c) <= sorted(plain)[3] for c in low)


def test_w7_shaanxi_heart_four_holder_leads() -> None:
    g = WGame.deal(SX, 5)
    first = g.first
    while g.phase == "bid":
        g.place_bid(g.bidder, g.bid_options(g.bidder)[0])
    g.bury_timeout()
    assert g.turn == first


# ---- W-4 hand types ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "kind"), [
    ("3", "single"), ("22", "pair"), ("777", "triple"), ("8888", "bomb"),
    ("34567", "straight"), ("10JQKA", "straight"), ("334455", "pair_chain"),
    ("QQKKAA", "pair_chain"), ("333444", "triple_chain"), ("KKKAAA", "triple_chain"),
])
def test_w4_standard_types(text: str, kind: str) -> None:
    assert kinds(text) == [(kind, len(cards(text)))]


@pytest.mark.parametrize("text", ["3456", "JQKA2", "A2345", "3344", "KKAA22", "3334", "33344",
                                  "333444555666 7", "444555 6", "3456 8"])
def test_w4_standard_refused(text: str) -> None:
    """W-4: no kickers, 2 never chains, minimum chain lengths."""
    assert classify(cards(text), STD) == []


def test_w4_ranking_two_highest() -> None:
    assert beats(one("2"), one("A")) and beats(one("A"), one("K")) and not beats(one("3"), one("4"))


def test_w4_bombs_beat_everything_and_each_other_by_rank() -> None:
    bomb3, bomb9 = one("3333"), one("9999")
    for other in ("2", "22", "222", "34567", "334455", "333444", "10JQKA"):
        assert beats(bomb3, one(other)) and not beats(one(other), bomb3)
    assert beats(bomb9, bomb3) and not beats(bomb3, bomb9)


def test_w4_same_type_and_size_higher_top() -> None:
    assert beats(one("45678"), one("34567"))
    assert not beats(one("456789"), one("34567"))
    assert beats(one("445566"), one("334455"))
    assert not beats(one("44"), one("44"))


@pytest.mark.parametrize(("text", "kind"), [
    ("3", "single"), ("33", "pair"), ("333", "triple"), ("4444", "four"),
    ("456", "straight"), ("10JQK", "straight"), ("445566", "pair_chain"), ("JJQQKK", "pair_chain"),
])
def test_w7_shaanxi_types(text: str, kind: str) -> None:
    """W-7: 3+ singles or pairs within 4 … K; a four is an ordinary 四条."""
    assert kinds(text, SX) == [(kind, len(cards(text)))]


@pytest.mark.parametrize("text", ["345", "QKA", "JQKA", "KA2", "334455", "4455", "444555", "34"])
def test_w7_shaanxi_refused(text: str) -> None:
    """W-7: chains only 4 … K, no triple chains."""
    assert classify(cards(text), SX) == []


def test_w7_shaanxi_ranking_and_no_bombs() -> None:
    assert beats(one("3", SX), one("2", SX)) and beats(one("2", SX), one("A", SX))
    assert beats(one("5", SX), one("4", SX))
    assert not beats(one("4444", SX), one("22", SX))  # 四条 is no bomb
    assert beats(one("5555", SX), one("4444", SX))


# ---- W-5 / W-6 result and score ------------------------------------------------------------------
@pytest.mark.parametrize("count", [0, 1, 2, 3, 4])
def test_w6_multiplier_from_every_count_of_5_10_k(count: int) -> None:
    scoring = cards("5 10 K 5")[:count]
    rest = cards("3 4 6 7")[: 4 - count]
    assert bury_multiplier(scoring + rest, STD) == 2 ** count
    assert bury_multiplier(scoring + rest, SX) == 1


@pytest.mark.parametrize(("out", "winner", "points"), [
    (0, DIGGER, [2 * 3 * 4, -12, -12]), (1, FARMER, [-24, 12, 12]), (2, FARMER, [-24, 12, 12])])
def test_w5_w6_first_out_decides_and_score(out: int, winner: str, points: list[int]) -> None:
    """W-5: the first out decides; W-6: bid 3, buried 5 and K → ×4: ±2×12 / ∓12."""
    hands = [cards("9"), cards("10"), cards("J")]
    g = WGame.from_hands(hands, bid=3, buried=cards("5 K 3 4"), digger=0)
    g.turn = out
    g.play(out, list(g.hands[out]))
    assert g.over and g.result["winner"] == winner and g.result["points"] == points
    assert g.result["multiplier"] == 4 and sum(points) == 0


def test_w7_shaanxi_score_is_plus_minus_bid() -> None:
    g = WGame.from_hands([cards("9"), cards("10"), cards("J")], rules=SX, bid=2,
                         buried=cards("5 K 10 10"), digger=1)
    g.play(1, list(g.hands[1]))  # digger out first (turn forced to digger by from_hands)
    assert g.result["points"] == [-2, 4, -2]


def test_w5_trick_and_jiefeng() -> None:
    g = WGame.from_hands([cards("3 4"), cards("5 6"), cards("7 8")], digger=0)
    g.play_text(0, "3")
    g.pass_turn(1)
    g.pass_turn(2)
    assert g.turn == 0 and g.lead is None  # two others passed: the last player leads


def test_no_play_before_bidding_and_burying_end() -> None:
    g = WGame.deal(STD, 2, first=0)
    with pytest.raises(MoveError) as err:
        g.play(0, g.hands[0][:1])
    assert err.value.code == "not_playing"


def random_game(seed: int, rules: WRules) -> WGame:
    rnd = random.Random(seed)
    g = WGame.deal(rules, seed)
    while g.phase == "bid":
        g.place_bid(g.bidder, rnd.choice(g.bid_options(g.bidder)))
    g.bury(g.digger, rnd.sample(g.hands[g.digger], 4))
    strategy = LowestStrategy()
    while not g.over:
        seat = g.turn
        groups: dict[int, list[int]] = {}
        for c in g.hands[seat]:
            groups.setdefault(rank_of(c), []).append(c)
        group = groups[rnd.choice(list(groups))]
        try:
            g.play(seat, group[: rnd.randint(1, len(group))])
        except MoveError:
            action = strategy.choose(g, seat)
            if action.kind == "pass":
                g.pass_turn(seat)
            else:
                g.play(seat, list(action.cards))
    return g


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([STD, SX]))
def test_property_random_game_ends_validly(seed: int, rules: WRules) -> None:
    g = random_game(seed, rules)
    played = [c for entry in g.log for c in entry[1]]
    assert sorted(played + g.buried + [c for h in g.hands for c in h]) == list(DECK_52)
    assert sum(g.result["points"]) == 0 and len(g.out) == 1
    assert WGame.from_json(json.loads(json.dumps(g.to_json()))) == g
