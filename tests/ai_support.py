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


def expected_points(game, seat: int, options: list, deals: int, seed: int = 0) -> list[list[float]]:
    """The points ``seat`` scores with each of ``options`` for the decision before play it
    owes in ``game`` (a bid, a burial, 明 / 暗), on ``deals`` deals of the cards it has not
    seen (sampled as 困难 samples them, bids weighing the deal,
    :func:`paizhuo_engine.ai.setup_search.sample_setup_world`), every option on the same
    deal, the rest of the game — the others' decisions before play, then every play —
    taken by 普通. One row per deal, one column per option: the measure of a gamble."""
    from paizhuo_engine.ai.inference import Evidence
    from paizhuo_engine.ai.setup_search import (
        normal_setup,
        sample_setup_world,
        setup_phase,
        take_setup,
    )

    rng = random.Random(seed)
    evidence = Evidence(game, seat) if setup_phase(game, seat) == "bid" else None
    if evidence is not None and evidence.empty():
        evidence = None
    rows = []
    for _ in range(deals):
        world = sample_setup_world(game, seat, random.Random(rng.getrandbits(32)), evidence)
        data = world.to_json()
        row = []
        for option in options:
            copy = type(world).from_json(data)
            take_setup(copy, seat, option)
            for _step in range(12):
                waiting = [s for s in range(copy.players) if setup_phase(copy, s)]
                if not waiting:
                    break
                for s in waiting:
                    take_setup(copy, s, normal_setup(copy, s))
            while not copy.over:
                apply(copy, copy.turn, PLANNER.choose(copy, copy.turn))
            row.append(float(copy.result["points"][seat]))
        rows.append(row)
    return rows


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean of ``xs`` and the half-width of its 95% confidence interval (normal)."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / max(1, n - 1)
    return m, 1.96 * (var / n) ** 0.5
