"""Moves the bot makes for a player who ran out of time or is in 托管 (auto-play).

A strategy is any object with ``choose(game, seat) -> Action``; the chat layer asks the
game's strategy and applies the action through the game's normal move functions, so a
smarter player can replace :class:`~engine.zhuatewu.strategy.LowestStrategy` without
touching anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Action:
    """``kind`` ``"play"`` with ``cards`` (card ids), or ``"pass"``."""

    kind: str
    cards: tuple[int, ...] = ()


PASS = Action("pass")


class Strategy(Protocol):
    """Chooses a legal action for ``seat`` in ``game`` (whose turn it is)."""

    def choose(self, game: Any, seat: int) -> Action:
        """The action to take; must be legal for the game."""
        ...
