"""困难 before the first lead (:mod:`paizhuo_engine.ai.setup_search`): 挖坑 叫分 / 扣底
(W-2, W-3, W-6) and the 抓特务 spy's 明 / 明牌 / 暗 (Z-9), searched on sampled deals.

Each test names the rule it rests on; G-6 (what a seat knows) for the properties."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.ai.decisions import SCORE_RANKS
from paizhuo_engine.ai.setup_search import (
    SCORE_CARDS_BURIED,
    bury_options,
    finish,
    known_sides,
    normal_setup,
    options_of,
    sample_setup_world,
    search_setup,
    setup_phase,
)
from paizhuo_engine.cards import DECK_52, rank_of
from paizhuo_engine.wakeng.game import WGame, bury_multiplier
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules


def wakeng_with(hand: list[int], seed: int = 0, rules: WRules | None = None) -> WGame:
    """A 挖坑 deal where seat 0 holds ``hand`` and bids first; the rest dealt from
    ``seed``."""
    game = WGame.deal(rules or WRules(), 1)
    rest = sorted(set(DECK_52) - set(hand))
    random.Random(seed).shuffle(rest)
    game.hands = [sorted(hand), sorted(rest[:16]), sorted(rest[16:32])]
    game.bottom = sorted(rest[32:])
    game.first = game.bidder = game.turn = game.dealer = 0
    return game


def setup_games(seed: int) -> list[tuple[object, int]]:
    """Games waiting for a decision before play, with the seat that owes it: the first
    bidder and the digger of a 挖坑 deal (标准 and 陕西), each waiting spy of a 抓特务 deal
    (3 and 4 players)."""
    out: list[tuple[object, int]] = []
    for rules in (WRules(), WRules(ruleset="陕西")):
        game = WGame.deal(rules, seed)
        out.append((WGame.from_json(game.to_json()), game.bidder))
        while game.phase == "bid":
            game.bid_timeout()
        out.append((game, game.digger))
    for players in (3, 4):
        game = ZGame.deal(players, ZRules(), seed)
        for spy in game.awaiting_declare():
            out.append((ZGame.from_json(game.to_json()), spy))
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**6))
def test_options_are_the_seats_own_and_normal_comes_first(seed: int) -> None:
    """W-2 bids among those open, W-3 four cards of the digger's hand, Z-9 answers the
    settings allow; 普通's own choice is the first option."""
    for game, seat in setup_games(seed):
        phase = setup_phase(game, seat)
        options = options_of(game, seat)
        assert options[0] == normal_setup(game, seat)
        assert len(options) == len(set(options))
        if phase == "bid":
            assert set(options) <= set(game.bid_options(seat))
        elif phase == "bury":
            for option in options:
                assert len(option) == 4 and set(option) <= set(game.hands[seat])
        else:
            assert set(options) == set(game.declare_choices()) - {"明牌"}


def test_bury_options_add_score_cards_only_where_they_double_the_stakes() -> None:
    """W-6: each 5 / 10 / K buried doubles the stakes, so the options bury none of them
    or up to SCORE_CARDS_BURIED (the cheapest first); 陕西 has no multiplier (W-7): only
    the cheapest four."""
    hand = cards("2222AAAKKKQQQJ5 10")
    options = bury_options(hand, WRules())
    scoring = [sum(rank_of(c) in SCORE_RANKS for c in o) for o in options]
    assert scoring == list(range(SCORE_CARDS_BURIED + 1))
    assert cards("5")[0] in options[1]  # the lone 5 before a 10 or a K of a set
    assert len(bury_options(hand, WRules(ruleset="陕西"))) == 1


def test_a_digger_sure_to_win_buries_what_doubles_the_stakes() -> None:
    """W-6: a bomb, AAA, KKK, QQQ and a loose 5 and 10 — the digger all but wins, so
    burying score cards multiplies what it wins; 普通 never buries one while it can
    avoid it."""
    game = wakeng_with(cards("2222AAAKKKQQQJ5 10"))
    game.place_bid(0, 3)
    assert setup_phase(game, 0) == "bury"
    normal = normal_setup(game, 0)
    assert bury_multiplier(list(normal), game.rules) == 1
    chosen = search_setup(game.to_json(), 0, seed=5, samples=24)
    assert set(chosen) <= set(game.hands[0])
    assert bury_multiplier(list(chosen), game.rules) >= 2


def test_a_weak_digger_keeps_score_cards_out_of_the_bottom() -> None:
    """W-6: with a poor hand, doubling the stakes doubles the loss: no score card
    buried."""
    game = wakeng_with(cards("3 3 4 5 6 7 8 9 10 J Q K 4 6 7 8"), seed=3)
    while game.phase == "bid":
        game.place_bid(game.bidder, game.bid_options(game.bidder)[-1] if game.bidder == 0
                       else 0)
    assert game.digger == 0
    chosen = search_setup(game.to_json(), 0, seed=2, samples=24)
    assert bury_multiplier(list(chosen), game.rules) == 1


def test_a_spy_with_a_winning_hand_declares() -> None:
    """Z-9 / Z-10: 明 doubles the spy's stake; with both jokers, four 2s and three As the
    spy wins nearly always, so staying hidden (暗) gives half."""
    for seed in range(60):
        game = ZGame.deal(3, ZRules(), seed)
        if game.phase == "declare":
            break
    spy = game.awaiting_declare()[0]
    strong = set(cards("大王 小王 2222AAA") + [c for c in game.spy_cards])
    others = [s for s in range(3) if s != spy]
    pool = [c for h in game.hands for c in h if c not in strong]
    random.Random(seed).shuffle(pool)
    keep = 18 - len(strong)
    game.hands[spy] = sorted(list(strong) + pool[:keep])
    game.hands[others[0]] = sorted(pool[keep:keep + 18])
    game.hands[others[1]] = sorted(pool[keep + 18:])
    assert search_setup(game.to_json(), spy, seed=1, samples=24) == "明"


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 2**32 - 1))
def test_g6_setup_search_reads_only_what_the_seat_knows(seed: int, search_seed: int) -> None:
    """G-6: the other hands, the 挖坑 bottom and another spy's still-private answer
    (Z-9) reshuffled or changed in any way — the decision is the same."""
    rng = random.Random(seed)
    for game, seat in setup_games(seed):
        before = search_setup(game.to_json(), seat, search_seed, samples=3)
        others = [s for s in range(game.players) if s != seat]
        pool = [c for s in others for c in game.hands[s]]
        bottom = list(getattr(game, "bottom", []))
        pool += bottom
        rng.shuffle(pool)
        for s in others:
            n = len(game.hands[s])
            game.hands[s], pool = sorted(pool[:n]), pool[n:]
        if bottom:
            game.bottom = sorted(pool)
        if isinstance(game, ZGame):
            game.settle_sides()
            for s in game.awaiting_declare():
                if s != seat:
                    game.declared[s] = "明"
        assert search_setup(game.to_json(), seat, search_seed, samples=3) == before


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**6))
def test_sampled_worlds_keep_the_seats_hand_and_every_card(seed: int) -> None:
    """A sampled deal (G-6) keeps the seat's hand and the card counts, deals every unseen
    card once, and plays out to a result (W-5, Z-7)."""
    for game, seat in setup_games(seed):
        world = sample_setup_world(game, seat, random.Random(seed))
        assert world.hands[seat] == game.hands[seat]
        assert [len(h) for h in world.hands] == [len(h) for h in game.hands]
        dealt = [c for h in world.hands for c in h] + list(getattr(world, "bottom", []))
        assert sorted(dealt) == sorted(game.deck())
        assert world.over is False
        points = finish(world, seat)
        assert world.over and points == world.result["points"][seat]


def test_no_time_gives_normal_and_the_same_seed_the_same_choice() -> None:
    """The caller's clock bounds the search: stopped at once, 普通's choice; otherwise
    deterministic in the seed."""
    for game, seat in setup_games(7):
        state = game.to_json()
        assert search_setup(state, seat, 1, samples=8, stop=lambda: True) == \
            normal_setup(game, seat)
        assert search_setup(state, seat, 4, samples=4) == search_setup(state, seat, 4, samples=4)


def test_play_outs_keep_a_hidden_spy_hidden() -> None:
    """Z-2 / Z-9 / G-6: in a play-out each seat plays by the sides it knows — civilians of
    a hidden (暗) 3-player spy do not know each other; once the spy declares (明), they
    play together."""
    for seed in range(60):
        game = ZGame.deal(3, ZRules(), seed)
        if game.phase == "declare":
            break
    spy = game.awaiting_declare()[0]
    civilians = [s for s in range(3) if s != spy]
    hidden = ZGame.from_json(game.to_json())
    hidden.declare(spy, "暗")
    views = known_sides(hidden)
    assert views[civilians[0]][civilians[1]] != views[civilians[0]][civilians[0]]
    assert len(set(views[spy])) == 3  # the spy plays alone (Z-2)
    shown = ZGame.from_json(game.to_json())
    shown.declare(spy, "明")
    views = known_sides(shown)
    for c in civilians:
        assert views[c][civilians[0]] == views[c][civilians[1]] != views[c][spy]
