"""记牌器 (``paizhuo_engine.ai.view.unseen_cards``, G-6): what a seat is told it has not seen is the
deck less its own hand, the cards played and the cards it legitimately saw (the digger's
buried cards, W-3; its own tribute exchanges, Z-8; a 明牌 spy's open hand, Z-9) — never a
card of another hand or of the bottom as known, and dealing the hidden cards anew never
changes it."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo_engine.ai.simple import Action
from paizhuo_engine.ai.strategy import PlanStrategy
from paizhuo_engine.ai.view import deck_of, played_cards, seen_elsewhere, unseen_cards
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

STRATEGY = PlanStrategy()
KINDS = ["z3", "z4", "z3 tribute", "z4 tribute", "w", "w 陕西", "s", "s2", "s52"]


def apply(game, seat: int, action: Action) -> None:
    if action.kind == "pass":
        game.pass_turn(seat)
    else:
        game.play_reading(seat, list(action.cards), action.reading)


def previous(players: int, seed: int) -> dict:
    """A previous game at the table whose result moves tribute (Z-8), spies declared."""
    roles = ["spy", "civilian", "civilian"] + (["spy"] if players == 4 else [])
    outcome = "spy" if seed % 2 else "civilian"
    out = [0, 1] if outcome == "spy" else [1, 2]
    stakes = [2 if seed % 3 == 0 and r == "spy" else 1 for r in roles]
    return {"roles": roles, "out": out, "outcome": outcome, "stakes": stakes}


def dealt(kind: str, seed: int):
    """A game of ``kind`` in its play phase (tribute returned, declared, buried)."""
    if kind.startswith("z"):
        players = 4 if kind.startswith("z4") else 3
        game = ZGame.deal(players, ZRules(), seed,
                          previous=previous(players, seed) if "tribute" in kind else None)
        while game.phase == "tribute":
            game.tribute_timeout()
        for s in game.awaiting_declare():
            game.declare(s, random.Random(seed + s).choice(game.declare_choices()))
        game.declare_timeout()
    elif kind.startswith("w"):
        game = WGame.deal(WRules(ruleset="陕西" if "陕西" in kind else "标准"), seed)
        while game.phase == "bid":
            game.bid_timeout()
        game.bury_timeout()
    elif kind == "s2":
        game = SGame.deal(2, SRules(), seed)
    elif kind == "s52":
        game = SGame.deal(3, SRules(jokers=False), seed)
    else:
        game = SGame.deal(3 + seed % 4, SRules(), seed)
    return game


def hidden_from(game, seat: int) -> list[list[int]]:
    """The piles ``seat`` cannot see into: the other hands (less what it saw of them), the
    buried cards unless it is the digger, the cards set aside."""
    piles = [game.hands[s] for s in range(game.players) if s != seat]
    if isinstance(game, WGame) and seat != game.digger:
        piles.append(game.buried)
    if isinstance(game, SGame):
        piles.append(game.aside)
    return piles


def reshuffle(game, seat: int, rng: random.Random) -> None:
    """Deal every card hidden from ``seat`` anew among the piles it cannot see (same
    sizes); the cards it saw stay where they are."""
    saw = seen_elsewhere(game, seat)
    piles = hidden_from(game, seat)
    pool = [c for pile in piles for c in pile if c not in saw]
    rng.shuffle(pool)
    for pile in piles:
        fresh = [c if c in saw else pool.pop() for c in pile]
        pile[:] = sorted(fresh)
    if isinstance(game, ZGame):
        for s in range(game.players):
            played = {c for p, cs in game.log if p == s for c in cs}
            held = set(game.hands[s]) | played
            game.roles[s] = SPY if set(game.spy_cards) & held else "civilian"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KINDS), st.integers(0, 10**6), st.integers(0, 60))
def test_unseen_is_the_deck_less_what_the_seat_saw_and_ignores_hidden_cards(
        kind: str, seed: int, moves: int) -> None:
    game = dealt(kind, seed)
    for _ in range(moves):
        if game.over:
            break
        apply(game, game.turn, STRATEGY.choose(game, game.turn))
    rng = random.Random(seed)
    for seat in range(game.players):
        unseen = unseen_cards(game, seat)
        saw = seen_elsewhere(game, seat)
        own, played = set(game.hands[seat]), played_cards(game)
        assert unseen == sorted(set(deck_of(game)) - own - played - saw)
        assert len(set(unseen)) == len(unseen)
        # What it saw is only what G-6 lets it see.
        allowed: set[int] = set()
        if isinstance(game, WGame) and seat == game.digger:
            allowed |= set(game.buried)
        if isinstance(game, ZGame):
            for e in game.exchanges:
                if seat in (e["giver"], e["receiver"]):
                    allowed |= set(e["given"]) | set(e["returned"] or ())
            for s in game.open_seats():
                allowed |= set(game.hands[s])
        assert saw <= allowed
        # Every card hidden from the seat counts as unseen: none is shown as known.
        for pile in hidden_from(game, seat):
            assert set(pile) - saw <= set(unseen)
        if isinstance(game, WGame) and seat != game.digger:
            assert set(game.buried) <= set(unseen)
        before = unseen_cards(game, seat)
        copy = type(game).from_json(game.to_json())
        reshuffle(copy, seat, rng)
        assert unseen_cards(copy, seat) == before


def test_w3_the_digger_knows_the_buried_cards_and_the_farmers_do_not() -> None:
    game = dealt("w", 3)
    digger = game.digger
    farmer = (digger + 1) % 3
    assert not set(game.buried) & set(unseen_cards(game, digger))
    assert set(game.buried) <= set(unseen_cards(game, farmer))
    # The bottom went into the digger's hand: unseen to a farmer, not to the digger.
    assert set(game.bottom) <= set(unseen_cards(game, farmer))
    assert not set(game.bottom) & set(unseen_cards(game, digger))


def test_z8_tribute_cards_are_known_to_the_two_seats_of_the_exchange_only() -> None:
    game = dealt("z3 tribute", 4)
    assert game.exchanges
    e = game.exchanges[0]
    giver, receiver = e["giver"], e["receiver"]
    third = next(s for s in range(3) if s not in (giver, receiver))
    given_cards, returned = set(e["given"]), set(e["returned"])
    for seat in (giver, receiver):
        assert not (given_cards | returned) & set(unseen_cards(game, seat))
    # The third seat was told neither the tribute nor the return.
    assert given_cards | returned <= set(unseen_cards(game, third))


def test_z9_an_open_hand_is_known_to_everyone() -> None:
    for seed in range(40):
        game = ZGame.deal(3, ZRules(), seed)
        spy = game.awaiting_declare()[0]
        if "明牌" in game.declare_choices():
            game.declare(spy, "明牌")
            break
    other = (spy + 1) % 3
    assert not set(game.hands[spy]) & set(unseen_cards(game, other))
    assert len(unseen_cards(game, other)) == 54 - 2 * 18
