"""The computer player (RULES.md G-6): it decides only from what its seat may know, its
decisions are legal, and it keeps the rules that bind a player's choice (S-4 把一必拦 and
包赔, partners in 挖坑)."""

from __future__ import annotations

import random

from ai_support import played_on, reshuffle_hidden
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.ai.decisions import SCORE_RANKS, choose_bid, choose_bury
from paizhuo_engine.ai.rollout import apply
from paizhuo_engine.ai.search import search_decide
from paizhuo_engine.ai.strategy import PlanStrategy, decide, suggestions
from paizhuo_engine.ai.view import view_of
from paizhuo_engine.cards import BIG_JOKER, SMALL_JOKER
from paizhuo_engine.moves import legal_plays
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

STRATEGY = PlanStrategy()


def dealt(kind: str, seed: int):
    """A game of ``kind`` in its play phase."""
    if kind == "z3":
        game = ZGame.deal(3, ZRules(), seed)
        game.declare_timeout()
    elif kind == "z4":
        game = ZGame.deal(4, ZRules(), seed)
        game.declare_timeout()
    elif kind == "w":
        game = WGame.deal(WRules(), seed)
        while game.phase == "bid":
            game.bid_timeout()
        game.bury_timeout()
    else:
        game = SGame.deal(3 + seed % 3, SRules(), seed)
    return game


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "s"]), st.integers(0, 10**6), st.integers(0, 40))
def test_g6_decision_never_depends_on_hidden_information(kind: str, seed: int, moves: int) -> None:
    """G-6: the same public moves and own hand give the same decision, whatever the other
    hands (and so a hidden spy) are; every decision is legal."""
    game = dealt(kind, seed)
    rng = random.Random(seed)
    if not played_on(game, moves):
        return
    seat = game.turn
    before = decide(view_of(game, seat), tuple(game.protected()))
    view_before = view_of(game, seat)
    reshuffle_hidden(game, seat, rng)
    assert view_of(game, seat) == view_before
    assert decide(view_of(game, seat), tuple(game.protected())) == before
    apply(game, seat, before)  # legal: no MoveError


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "s"]), st.integers(0, 10**6), st.integers(0, 25),
       st.integers(0, 2**32 - 1))
def test_g6_hard_decision_never_depends_on_hidden_information(kind: str, seed: int, moves: int,
                                                              search_seed: int) -> None:
    """G-6 for 困难: with its seed fixed, the search's decision is the same whatever the
    other hands (and so a hidden spy) are — it samples only what the seat may know."""
    game = dealt(kind, seed)
    rng = random.Random(seed)
    if not played_on(game, moves):
        return
    seat = game.turn
    before = search_decide(game.to_json(), seat, search_seed, samples=2)
    reshuffle_hidden(game, seat, rng)
    assert search_decide(game.to_json(), seat, search_seed, samples=2) == before
    apply(game, seat, before)  # legal: no MoveError


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "s"]), st.integers(0, 10**6))
def test_computer_players_finish_every_game(kind: str, seed: int) -> None:
    game = dealt(kind, seed)
    for _ in range(2000):
        if game.over:
            break
        apply(game, game.turn, STRATEGY.choose(game, game.turn))
    assert game.over and game.result is not None


def test_s4_must_block_is_never_passed() -> None:
    """S-4 把一必拦: the 把一 player's last opponent before them must beat if they can."""
    game = SGame.from_hands([cards("10 J K"), cards("3 9")], SRules(), leader=1)
    game.play(1, cards("9"))
    action = STRATEGY.choose(game, 0)
    assert action.kind == "play"
    apply(game, 0, action)


def test_s4_baopei_single_is_the_highest() -> None:
    """S-4 包赔: with the next player on one card, a single follow is one's highest."""
    game = SGame.from_hands([cards("4 5"), cards("3 6 8 J Q"), cards("9")], SRules(), leader=0)
    game.play(0, cards("4"))
    assert view_of(game, 1).single_watch
    action = STRATEGY.choose(game, 1)
    assert action.kind == "pass" or [c // 4 for c in action.cards] == [cards("Q")[0] // 4]


def test_w_farmer_lets_the_other_farmer_win_the_trick() -> None:
    """A farmer does not beat the other farmer (挖坑 sides are public, W-2)."""
    game = WGame.deal(WRules(), 5)
    while game.phase == "bid":
        game.bid_timeout()
    game.bury_timeout()
    farmers = [s for s in range(3) if s != game.digger]
    game.hands[farmers[0]] = sorted(cards("3 5 9 J"))
    game.hands[farmers[1]] = sorted(cards("4 6 10 K A 2"))
    game.turn, game.lead = farmers[0], None
    game.play(farmers[0], cards("3"))
    # Let the turn come round to the other farmer with farmer 0's 3 on the table.
    if game.turn == game.digger:
        game.pass_turn(game.digger)
    assert game.turn == farmers[1]
    assert STRATEGY.choose(game, farmers[1]).kind == "pass"


def test_hints_are_legal_distinct_and_start_with_the_suggestion() -> None:
    game = dealt("s", 3)
    best, others = suggestions(game, game.turn)
    legal = {tuple(sorted(p[0] for p in legal_plays(game.hands[game.turn], game.rules)))}
    assert best.kind == "play" and 1 <= len(others) <= 4
    assert len({(a.cards, a.reading) for a in [best, *others]}) == len(others) + 1
    assert legal  # the generator gave leads
    for action in [best, *others]:
        g = dealt("s", 3)
        apply(g, g.turn, action)


def test_w3_computer_bury_keeps_5_10_k_out_of_the_bottom_when_it_can() -> None:
    hand = cards("3 3 4 5 6 7 8 9 10 J Q K A A 2 2")
    buried = choose_bury(hand, WRules().rank_order())
    assert len(buried) == 4 and not any(c // 4 in SCORE_RANKS for c in buried)


def test_w2_bids_follow_hand_strength() -> None:
    weak = cards("3 4 5 6 7 8 9 10 J Q K 3 4 5 6 7")
    strong = cards("2 2 2 2 A A A K K 3 4 5 6 7 8 9")
    assert choose_bid(weak, [0, 1, 2, 3], False) == 0
    assert choose_bid(strong, [0, 1, 2, 3], False) == 3
    assert choose_bid(weak, [1, 2, 3], False) == 1  # must bid: the lowest


def test_jokers_left_alone_are_never_kept_by_a_lead() -> None:
    """S-3: the computer's lead never leaves a lone joker."""
    game = SGame.from_hands([[SMALL_JOKER, BIG_JOKER, *cards("4")], cards("9 10 J")], SRules(),
                            leader=0)
    action = STRATEGY.choose(game, 0)
    apply(game, 0, action)
    assert len(game.hands[0]) != 1 or game.hands[0][0] < 52
