"""The decision a computer move is made with (RULES.md G-6): the group's 电脑难度 and, at
困难, what the search found for exactly this state. It is an argument of the adapters'
``computer_turn`` / ``auto_move``: ``ai_turn`` prepares it (under the table lock, the
search in a worker process) and passes it in; nothing is read from the context.

This module depends on the engine only: the game adapters import it, and ``ai_turn``
imports the adapters (one direction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paizhuo_engine.ai.levels import NORMAL, simple_strategy
from paizhuo_engine.ai.setup_search import Setup, setup_phase
from paizhuo_engine.ai.simple import Action


@dataclass(frozen=True, slots=True)
class Choice:
    """The level for one decision and, for 困难, the searched action for ``seat`` at the
    game state of ``moves`` log entries (``None``: decide at 普通) — or, before play, the
    searched ``setup`` decision (挖坑 bid / burial, 抓特务 明 / 暗) of the ``phase`` it was
    searched in; ``ahead``: the search started when the pause began."""

    level: str
    seat: int = -1
    moves: int = -1
    action: Action | None = None
    phase: str | None = None
    setup: Setup | None = None
    ahead: bool = False

    def searched(self) -> str:
        """For the log: how 困难's decision came (``ahead``, ``now``, ``none``: 普通
        decided); empty at the other levels."""
        if self.level != "困难" or self.seat < 0:
            return ""
        if (self.setup if self.phase is not None else self.action) is None:
            return "none"
        return "ahead" if self.ahead else "now"


NORMAL_CHOICE = Choice("普通")
"""A decision at 普通 (no level given: benchmarks, tests, the engine's own callers)."""


class LeveledStrategy:
    """The strategy of computer seats, 托管 and timeouts for one decision: the level of
    ``choice`` (普通 when none), 困难's searched action when it is for this very state."""

    def __init__(self, choice: Choice | None = None) -> None:
        self.choice = choice

    def choose(self, game: Any, seat: int) -> Action:
        """``Strategy.choose``; legal for a game in its play phase."""
        choice = self.choice
        if choice is None:
            return NORMAL.choose(game, seat)
        if choice.level == "简单":
            return simple_strategy(game).choose(game, seat)
        if (choice.action is not None and choice.seat == seat
                and choice.moves == len(game.log)):
            return choice.action
        return NORMAL.choose(game, seat)


def searched_setup(game: Any, seat: int, normal: Setup, choice: Choice | None) -> Setup:
    """The decision before play (挖坑 叫分 / 扣底, 抓特务 明 / 暗) a computer seat takes:
    困难's searched one when ``choice`` holds it for this seat, phase and state, else
    ``normal`` (普通's rule of thumb, :mod:`paizhuo_engine.ai.decisions`)."""
    phase = setup_phase(game, seat)
    if (choice is None or choice.setup is None or choice.seat != seat
            or choice.phase != phase or choice.moves != len(game.log)):
        return normal
    value = choice.setup
    fits = (value in game.bid_options(seat) if phase == "bid"
            else isinstance(value, tuple) and len(set(value)) == 4
            and set(value) <= set(game.hands[seat]) if phase == "bury"
            else value in game.declare_choices())
    return value if fits else normal
