"""The computer player's levels (电脑难度, RULES.md G-6): 简单 / 普通 / 困难.

* 简单 — the game's simple rule (pass when following, lead the lowest card; 手把一 blocks
  when 把一必拦 says so): the bot's oldest auto-play.
* 普通 — the planner (:mod:`paizhuo_engine.ai.strategy`) with sure ways out first.
* 困难 — :func:`paizhuo_engine.ai.search.search_decide`: 普通's choice checked against a few others
  by playing each out on sampled deals of the unseen cards.

:func:`choose_action` is the in-process entry point (the chat layer runs 困难 in worker
processes and falls back to 普通 itself).
"""

from __future__ import annotations

from typing import Any

from .search import search_decide
from .simple import Action, LowestStrategy
from .strategy import PlanStrategy

LEVELS: tuple[str, ...] = ("简单", "普通", "困难")
"""Level names, weakest first."""

DEFAULT_LEVEL = "普通"

NORMAL = PlanStrategy()


def simple_strategy(game: Any) -> Any:
    """简单's strategy for ``game``: a game that may refuse a pass (手把一, S-4 把一必拦)
    keeps its own."""
    if game.pass_may_be_refused:
        from .shoubayi import BlockingStrategy

        return BlockingStrategy()
    return LowestStrategy()


def choose_action(game: Any, seat: int, level: str = DEFAULT_LEVEL, seed: int = 0,
                  samples: int = 16) -> Action:
    """The action of a computer at ``level`` for ``seat`` (whose turn it is) in a game in
    its play phase. ``seed`` and ``samples`` are 困难's (see :func:`search_decide`)."""
    if level == "简单":
        return simple_strategy(game).choose(game, seat)
    if level == "困难":
        return search_decide(game.to_json(), seat, seed, samples)
    return NORMAL.choose(game, seat)
