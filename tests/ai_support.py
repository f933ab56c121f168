"""Test helpers for the computer player's G-6 properties (RULES.md G-6: a decision may
depend only on what the seat may know)."""

from __future__ import annotations

import random

from paizhuo_engine.ai.rollout import apply
from paizhuo_engine.ai.strategy import PlanStrategy

PLANNER = PlanStrategy()


def played_on(game, moves: int) -> bool:
    """Play ``moves`` moves with the 普通 planner at every seat (fewer when the game ends);
    whether the game is still going."""
    for _ in range(moves):
        if game.over:
            return False
        apply(game, game.turn, PLANNER.choose(game, game.turn))
    return not game.over


def reshuffle_hidden(game, seat: int, rng: random.Random) -> None:
    """Deal the other seats' unplayed cards anew among them (same counts): what ``seat``
    cannot see changes — other hands, and with them a hidden spy (the game's own
    ``settle_sides``, Z-2)."""
    others = [s for s in range(game.players) if s != seat]
    pool = [c for s in others for c in game.hands[s]]
    rng.shuffle(pool)
    for s in others:
        n = len(game.hands[s])
        game.hands[s], pool = sorted(pool[:n]), pool[n:]
    game.settle_sides()
