"""困难's search parts: the rollout player (legal, finishes every game, leaves the searched
game alone) and the reading of passes and bids (RULES.md G-6: public facts only; a pass
on a single makes a loose higher single in that hand less likely)."""

from __future__ import annotations

import random

import pytest
from ai_support import played_on, reshuffle_hidden
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.ai.inference import PASS_FACTOR, Evidence
from paizhuo_engine.ai.rollout import apply, clone, playout, quick_action, sides
from paizhuo_engine.ai.search import game_from_json, sample_world, search_decide
from paizhuo_engine.ai.strategy import PlanStrategy
from paizhuo_engine.cards import rank_of
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

STRATEGY = PlanStrategy()


def dealt(kind: str, seed: int):
    """A game of ``kind`` in its play phase (bids and declarations by the timeouts)."""
    if kind in ("z3", "z4"):
        game = ZGame.deal(3 if kind == "z3" else 4, ZRules(), seed)
        game.declare_timeout()
    elif kind in ("w", "ws"):
        game = WGame.deal(WRules() if kind == "w" else WRules(ruleset="陕西"), seed)
        while game.phase == "bid":
            game.bid_timeout()
        game.bury_timeout()
    else:
        game = SGame.deal(2 + seed % 5, SRules(), seed)
    return game



@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "ws", "s"]), st.integers(0, 10**6))
def test_rollout_player_is_legal_and_finishes_every_game(kind: str, seed: int) -> None:
    """Every seat played by the rollout player: each action is accepted by the game
    (a refused one raises MoveError) and the game ends."""
    game = dealt(kind, seed)
    side = sides(game)
    for _ in range(2000):
        if game.over:
            break
        apply(game, game.turn, quick_action(game, game.turn, side))
    assert game.over and game.result is not None


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "s"]), st.integers(0, 10**6), st.integers(0, 30))
def test_playout_on_a_clone_leaves_the_game_alone(kind: str, seed: int, moves: int) -> None:
    """A rollout plays on a clone: the game it was cloned from keeps every field."""
    game = dealt(kind, seed)
    if not played_on(game, moves):
        return
    before = game.to_json()
    seat = game.turn
    points = playout(clone(game), seat, STRATEGY.choose(game, seat))
    assert game.to_json() == before
    assert isinstance(points, float)


def passed_on_king() -> SGame:
    """手把一, 3 players: seat 0 leads a single K, seats 1 and 2 pass; seat 0 to lead."""
    game = SGame.from_hands([cards("K 6 6 8 8"), cards("3 4 9 J Q"), cards("3 4 7 10 Q")],
                            SRules(), leader=0)
    game.play(0, cards("K"))
    game.pass_turn(1)
    game.pass_turn(2)
    return game


def test_a_pass_on_a_single_makes_a_loose_higher_single_less_likely() -> None:
    """Seats 1 and 2 passed on a single K: a guess that gives seat 1 a loose A explains
    the passes worse (by PASS_FACTOR) than one with nothing above K, or A only as a pair
    (beating with it would break the pair)."""
    game = passed_on_king()
    evidence = Evidence(game, 0)
    king = evidence.weight_of_rank[rank_of(cards("K")[0])]
    assert [(f.seat, f.width, f.key) for f in evidence.passes] == [(1, 1, king), (2, 1, king)]
    low = cards("3 4 7 10 Q")
    assert evidence.weight({1: cards("3 4 9 J A"), 2: low}, game.rules) == PASS_FACTOR
    assert evidence.weight({1: cards("3 3 4 4 Q"), 2: low}, game.rules) == 1.0
    assert evidence.weight({1: cards("3 4 9 A A"), 2: low}, game.rules) == 1.0
    both = evidence.weight({1: cards("3 4 9 J A"), 2: cards("3 4 7 10 2")}, game.rules)
    assert both == PASS_FACTOR * PASS_FACTOR


def test_sampling_follows_the_passes() -> None:
    """Over many sampled deals, the seats that passed on a single K hold a loose single
    above K (not a top card) less often when the evidence is used than when it is not."""
    game = passed_on_king()
    evidence = Evidence(game, 0)
    weight = evidence.weight_of_rank
    king = weight[rank_of(cards("K")[0])]

    def loose_high(world) -> int:
        n = 0
        for s in (1, 2):
            ranks = [rank_of(c) for c in world.hands[s]]
            if any(ranks.count(r) == 1 and weight[r] > king and r not in evidence.top
                   for r in ranks):
                n += 1
        return n

    plain = sum(loose_high(sample_world(game, 0, random.Random(i))) for i in range(150))
    weighed = sum(loose_high(sample_world(game, 0, random.Random(i), tries=24,
                                          evidence=evidence)) for i in range(150))
    assert weighed < plain * 0.5


def test_bids_are_read_from_the_public_bidding() -> None:
    """挖坑: every bid but the searching seat's own is a fact, with the options open then."""
    game = dealt("w", 7)
    seat = game.digger
    evidence = Evidence(game, seat)
    assert {f.seat for f in evidence.bids} == {s for s in range(3)
                                                if s != seat and game.bids[s] is not None}
    assert all(0 in f.options and not f.digger for f in evidence.bids)
    farmer = (game.digger + 1) % 3
    assert any(f.digger for f in Evidence(game, farmer).bids)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["z3", "z4", "w", "ws", "s"]), st.integers(0, 10**6),
       st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_g6_evidence_and_search_read_only_public_facts(kind: str, seed: int, moves: int,
                                                       search_seed: int) -> None:
    """G-6: the facts read from passes and bids, their weight of any guess, and 困难's
    decision with them are the same whatever the hidden hands are."""
    game = dealt(kind, seed)
    rng = random.Random(seed)
    if not played_on(game, moves):
        return
    seat = game.turn
    evidence = Evidence(game, seat)
    guess = {s: sorted(game.hands[s]) for s in range(game.players) if s != seat}
    before = search_decide(game.to_json(), seat, search_seed, samples=3)
    reshuffle_hidden(game, seat, rng)
    again = Evidence(game, seat)
    assert (again.passes, again.bids) == (evidence.passes, evidence.bids)
    assert again.weight(guess, game.rules) == evidence.weight(guess, game.rules)
    assert search_decide(game.to_json(), seat, search_seed, samples=3) == before


def test_sampling_around_an_open_handed_spy_keeps_the_open_hand() -> None:
    """Z-9: a spy who chose 明牌 shows the hand; sampling the unseen cards for another seat
    keeps that hand as it is (it already shows the spy card), and 困难 can search."""
    checked = searched = 0
    for seed in range(40):
        game = ZGame.deal(4, ZRules(), seed)
        if game.phase != "declare":
            continue
        waiting = game.awaiting_declare()
        game.declare(waiting[0], "明牌")
        for spy in game.awaiting_declare():
            game.declare(spy, "暗")
        open_seat = waiting[0]
        for seat in range(4):
            if seat == open_seat:
                continue
            world = sample_world(game, seat, random.Random(seed))
            assert world.hands[open_seat] == game.hands[open_seat]
            assert world.hands[seat] == game.hands[seat]
            assert sorted(c for h in world.hands for c in h) == sorted(
                c for h in game.hands for c in h)
            if game.turn == seat and game.phase == "play":
                assert search_decide(game.to_json(), seat, seed, 2) is not None
                searched += 1
        checked += 1
    assert checked >= 5 and searched >= 1


@pytest.mark.parametrize("kind", ["z3", "w", "s"])
def test_a_saved_state_names_its_game_and_older_states_still_load(kind: str) -> None:
    """A state names its game (``"game"``), and ``game_from_json`` restores the same game
    from it — also from a state saved before that field, by the fields only it has."""
    game = dealt(kind, 3)
    data = game.to_json()
    assert data["game"] == {"z3": "zhuatewu", "w": "wakeng", "s": "shoubayi"}[kind]
    assert type(game_from_json(data)) is type(game)
    assert game_from_json(data).to_json() == data
    old = {k: v for k, v in data.items() if k != "game"}
    assert game_from_json(old).to_json() == data
    with pytest.raises(KeyError):
        game_from_json({**data, "game": "斗地主"})
