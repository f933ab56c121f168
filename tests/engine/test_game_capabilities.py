"""What each game declares for the computer player (its rules and game class), instead of
the computer player asking which game it is: the deck (G-1, W-1, S-1), the 手把一 rules
that change play (S-3, S-4, S-6), sides (Z-2, W-5, S-5) and what a seat has seen (W-3,
Z-8, Z-9)."""

from __future__ import annotations

from pathlib import Path

import paizhuo_engine.ai as ai_package
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules


def test_computer_player_never_branches_on_a_game_class_name() -> None:
    """Each game's differences live in its own module: src/paizhuo_engine/ai reads capabilities."""
    folder = Path(ai_package.__file__).parent
    found = [f"{p.name}:{i}" for p in sorted(folder.glob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "__name__" in line]
    assert found == []


def test_deck_per_game_and_setting() -> None:
    z = ZGame.deal(4, ZRules(), 1)
    w = WGame.deal(WRules(), 1)
    assert len(z.deck()) == 54 and ZRules().deck_jokers == 1
    assert len(w.deck()) == 52 and WRules(ruleset="陕西").deck_jokers == 0
    assert len(SGame.deal(3, SRules(), 1).deck()) == 54
    assert len(SGame.deal(3, SRules(jokers=False), 1).deck()) == 52
    assert SRules(jokers=False).deck_jokers == 0


def test_shoubayi_rules_that_change_play() -> None:
    on, off = SRules(), SRules(must_block=False, baopei=False)
    assert on.must_block_last_card and on.last_card_liability
    assert not off.must_block_last_card and not off.last_card_liability
    assert on.lone_joker_refused and on.held_jokers_double and on.unplayed_doubles
    for rules in (ZRules(), WRules()):
        assert not (rules.must_block_last_card or rules.last_card_liability
                    or rules.lone_joker_refused or rules.held_jokers_double
                    or rules.unplayed_doubles)
    assert SGame.pass_may_be_refused and not ZGame.pass_may_be_refused
    assert WGame.public_bids and not SGame.public_bids and not ZGame.public_bids


def test_sides_and_what_a_seat_has_seen() -> None:
    s = SGame.deal(4, SRules(), 2)
    assert s.teams() == [0, 1, 2, 3]
    assert s.sides_known_to(1) == (frozenset(), frozenset({0, 2, 3}))
    z = ZGame.deal(4, ZRules(), 3)
    z.declare_timeout()
    assert z.teams() == [1 if r == SPY else 0 for r in z.roles]
    w = WGame.deal(WRules(), 4)
    while w.phase == "bid":
        w.bid_timeout()
    w.bury_timeout()
    digger = w.digger
    farmers = [s for s in range(3) if s != digger]
    assert w.teams() == [1 if s == digger else 0 for s in range(3)]
    assert w.sides_known_to(farmers[0]) == (frozenset({farmers[1]}), frozenset({digger}))
    assert sorted(w.out_of_play_seen(digger)) == sorted(w.buried)
    assert w.out_of_play_seen(farmers[0]) == []
