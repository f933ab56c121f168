"""RULES.md Z-8 tribute (进贡/还贡) and G-6: what a tribute exchange tells its two seats
about where cards are, and 困难's sampling keeping it."""

from __future__ import annotations

import copy
import random

from ai_support import played_on
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo_engine.ai.search import deal_unseen, sample_world, search_decide
from paizhuo_engine.ai.setup_search import sample_setup_world
from paizhuo_engine.cards import RA, rank_of
from paizhuo_engine.zhuatewu.game import CIVILIAN, SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

S, C = SPY, CIVILIAN

PREVIOUS = [  # (players, roles, finishing order, outcome, stakes): every Z-8 flow
    (3, [S, C, C], [0], S, [1, 1, 1]),          # each civilian gives to the spy
    (3, [S, C, C], [0], S, [2, 1, 1]),          # … twice (明)
    (3, [C, S, C], [2, 0], C, [1, 1, 1]),       # the spy gives to each civilian
    (4, [S, S, C, C], [0, 1], S, [1, 1, 1, 1]),  # 2v2
    (4, [C, S, C, S], [2, 1, 0], C, [1, 2, 1, 1]),
    (4, [C, C, S, C], [2], S, [1, 1, 1, 1]),    # 1v3, the spy receives three
    (4, [C, C, S, C], [3, 1, 2], C, [1, 1, 2, 1]),  # 1v3, the spy gives three, twice each
]


def tribute_game(case: int, seed: int, returns: int) -> ZGame:
    """A deal after the tribute of ``PREVIOUS[case]``; the first ``returns`` pending
    returns are made with random allowed cards (a received card may be passed on)."""
    players, roles, out, outcome, stakes = PREVIOUS[case]
    previous = {"roles": roles, "out": out, "outcome": outcome, "stakes": stakes}
    game = ZGame.deal(players, ZRules(), seed, previous=previous)
    rng = random.Random(seed)
    for _ in range(returns):
        pending = game.pending_returns()
        if game.phase != "tribute" or not pending:
            break
        exchange = rng.choice(pending)
        receiver = exchange["receiver"]
        first = game.next_return(receiver)
        assert first is not None
        game.return_tribute(receiver, rng.sample(game.tribute_allowed(receiver), first["count"]))
    return game


def holder(game: ZGame, c: int) -> int | None:
    return next((s for s in range(game.players) if c in game.hands[s]), None)


def played(game: ZGame) -> set[int]:
    return {c for _s, cs in game.log for c in cs}


def check_places_hold(game: ZGame) -> int:
    """Every place a seat is told is where the card really is (when it is in another
    hand). Returns how many cards were checked."""
    checked = 0
    for seat in range(game.players):
        for c, seats in game.card_places(seat).items():
            assert seat not in seats
            if c in game.hands[seat] or c in played(game):
                continue
            assert holder(game, c) in seats, (seat, c, seats, game.exchanges)
            checked += 1
    return checked


def check_sample_keeps_places(game: ZGame, world: ZGame, seat: int) -> None:
    places = game.card_places(seat)
    for c in set(game.deck()) - set(game.hands[seat]) - played(game):
        if c in places:
            assert holder(world, c) in places[c], (seat, c, places[c])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(PREVIOUS) - 1), st.integers(0, 10**6), st.integers(0, 3),
       st.integers(0, 30))
def test_z8_places_are_where_the_cards_are_and_sampling_keeps_them(
        case: int, seed: int, returns: int, moves: int) -> None:
    """Z-8/G-6: what the exchanges tell a seat is true of the real deal — in tribute (some
    returns made), before declaring and during play — and every sampled deal of 困难
    (during play; before play the setup search's) keeps it."""
    game = tribute_game(case, seed, returns)
    assert check_places_hold(game) > 0  # every flow here tells its seats something
    if game.phase == "tribute":
        game.tribute_timeout()
    check_places_hold(game)
    for seat in range(game.players):
        rng = random.Random(seed + seat)
        check_sample_keeps_places(game, sample_setup_world(game, seat, rng), seat)
    game.declare_timeout()
    going = played_on(game, moves)
    check_places_hold(game)
    if not going:
        return
    for seat in range(game.players):
        rng = random.Random(seed * 7 + seat)
        for _ in range(3):
            check_sample_keeps_places(game, sample_world(game, seat, rng), seat)


def test_z8_a_giver_knows_the_receiver_holds_its_card_and_the_receiver_what_it_returned() -> None:
    """Z-8, 3 players, spy won: civilian 1 gave its highest allowed card to the spy (seat 0),
    who returned a card to it. Seat 1 knows the spy holds the card it gave (nobody else
    was returned to yet); the spy knows where each card it returned is; seat 2, in no
    exchange with seat 1, is told nothing of seat 1's cards."""
    game = tribute_game(0, 11, 0)
    first = game.next_return(0)
    assert first is not None and first["giver"] == 1
    given = first["given"][0]
    back = game.tribute_allowed(0)[-1]
    game.return_tribute(0, [back])
    assert game.card_places(1)[given] == frozenset({0})
    assert game.card_places(0)[back] == frozenset({1})
    assert given not in game.card_places(2) and back not in game.card_places(2)
    # once the spy has returned to seat 2 as well, seat 1's card may have gone there
    game.tribute_timeout()
    assert game.card_places(1)[given] == frozenset({0, 2})


def test_z8_a_giver_holds_no_allowed_card_above_its_tribute() -> None:
    """Z-8: the tribute is the giver's highest allowed card (no A, no spy card), so its
    receiver places every higher allowed card outside the giver's hand — but not an A,
    and not the cards it returned to the giver."""
    seen = 0
    for seed in range(30):
        game = tribute_game(0, seed, 0)
        exchange = game.exchanges[0]
        giver, receiver = exchange["giver"], exchange["receiver"]
        weight = game.rules.rank_order()
        floor = (weight[rank_of(exchange["given"][0])], exchange["given"][0])
        above = [c for c in game.deck() if rank_of(c) != RA and c not in game.spy_cards
                 and (weight[rank_of(c)], c) > floor]
        places = game.card_places(receiver)
        assert all(giver not in places[c] for c in above)
        assert all(c not in places for c in game.deck() if rank_of(c) == RA)
        if above:
            seen += 1
            back = game.next_return(receiver)
            assert back is not None
            high = max(game.tribute_allowed(receiver), key=lambda c: (weight[rank_of(c)], c))
            if (weight[rank_of(high)], high) > floor and back is exchange:
                game.return_tribute(receiver, [high])
                assert game.card_places(receiver)[high] == frozenset({giver})
    assert seen >= 10


@settings(max_examples=30, deadline=None)
@given(st.integers(0, len(PREVIOUS) - 1), st.integers(0, 10**6), st.integers(0, 3))
def test_g6_places_read_only_the_seats_own_exchanges(case: int, seed: int, returns: int) -> None:
    """G-6: the cards of an exchange the seat took no part in, and the other hands, never
    change what it is told."""
    game = tribute_game(case, seed, returns)
    rng = random.Random(seed)
    for seat in range(game.players):
        before = game.card_places(seat)
        other = copy.deepcopy(game)
        for e in other.exchanges:
            if seat not in (e["giver"], e["receiver"]):
                e["given"] = sorted(rng.sample(range(54), e["count"]))
                if e["returned"] is not None:
                    e["returned"] = sorted(rng.sample(range(54), e["count"]))
        hidden = [c for s in range(game.players) if s != seat for c in other.hands[s]]
        rng.shuffle(hidden)
        for s in range(game.players):
            if s != seat:
                n = len(other.hands[s])
                other.hands[s], hidden = sorted(hidden[:n]), hidden[n:]
        assert other.card_places(seat) == before


def test_without_places_a_deal_is_a_plain_cut() -> None:
    """Nothing known: the same cut of the shuffled pool as ever (no draw from ``rng``)."""
    pool = list(range(20))
    random.Random(3).shuffle(pool)
    rng = random.Random(5)
    state = rng.getstate()
    hands, rest = deal_unseen(pool, {2: 5, 0: 7}, {}, rng)
    assert hands == {2: sorted(pool[:5]), 0: sorted(pool[5:12])} and rest == pool[12:]
    assert rng.getstate() == state


def test_a_card_with_one_place_always_goes_there() -> None:
    pool = list(range(10))
    for seed in range(50):
        rng = random.Random(seed)
        rng.shuffle(pool)
        hands, rest = deal_unseen(pool, {1: 3, 2: 3}, {4: frozenset({2}), 7: frozenset({1, 3})}, rng)
        assert 4 in hands[2] and 7 in hands[1] and len(rest) == 4
        assert sorted(hands[1] + hands[2] + rest) == list(range(10))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, len(PREVIOUS) - 1), st.integers(0, 10**6), st.integers(0, 20),
       st.integers(0, 2**32 - 1))
def test_g6_hard_decides_the_same_after_a_tribute_whatever_is_hidden(
        case: int, seed: int, moves: int, search_seed: int) -> None:
    """G-6 with Z-8: reshuffling what the seat to play has not seen — the other hands,
    keeping each card it was told of where it is, and the cards of exchanges it took no
    part in — never changes 困难's decision."""
    game = tribute_game(case, seed, 3)
    game.tribute_timeout()
    game.declare_timeout()
    if not played_on(game, moves):
        return
    seat = game.turn
    before = search_decide(game.to_json(), seat, search_seed, samples=3)
    places = game.card_places(seat)
    rng = random.Random(seed)
    others = [s for s in range(game.players) if s != seat]
    loose = [c for s in others for c in game.hands[s] if c not in places]
    rng.shuffle(loose)
    for s in others:
        keep = [c for c in game.hands[s] if c in places]
        n = len(game.hands[s]) - len(keep)
        game.hands[s], loose = sorted(keep + loose[:n]), loose[n:]
    for e in game.exchanges:
        if seat not in (e["giver"], e["receiver"]):
            e["given"] = sorted(rng.sample(range(54), e["count"]))
            e["returned"] = sorted(rng.sample(range(54), e["count"]))
    game.settle_sides()
    assert game.card_places(seat) == places
    assert search_decide(game.to_json(), seat, search_seed, samples=3) == before
