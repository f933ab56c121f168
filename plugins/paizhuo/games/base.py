"""The interface every game offers the chat layer.

A :class:`GameAdapter` turns a table's seats and settings into an engine game, applies
players' moves to it, and renders what the group and each player see (RULES.md G-4).
The table, locking, persistence and sending are the same for every game and live in
``tables.py`` and the matchers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from nonebot.adapters.onebot.v11 import Message

from db.records import FinishedGame


class UsageError(ValueError):
    """A command's arguments are wrong; ``str(err)`` is the Chinese reply."""


@dataclass(slots=True)
class SeatView:
    """A seated player as the renderers need them: ``user_id`` (string) and display ``name``."""

    user_id: str
    name: str


class GameAdapter(ABC):
    """One game's chat-layer adapter. ``name`` is the Chinese game name used in commands
    (e.g. ``抓特务``); ``engine`` objects are whatever the game's engine uses."""

    name: str = ""

    @abstractmethod
    def parse_size(self, arg: str) -> int:
        """Seat count from the ``/开局`` argument (e.g. ``四人``). Raises :class:`UsageError`."""

    @abstractmethod
    def new_game(self, size: int, settings: dict, seed: int) -> Any:
        """Deal a new game for ``size`` seats (seat order = join order, G-2)."""

    @abstractmethod
    def dump(self, game: Any) -> dict:
        """The engine state as JSON-able data."""

    @abstractmethod
    def load(self, data: dict) -> Any:
        """Inverse of :meth:`dump`."""

    @abstractmethod
    def turn(self, game: Any) -> int | None:
        """The seat to act, ``None`` when over."""

    @abstractmethod
    def is_over(self, game: Any) -> bool:
        """Whether the game has a result."""

    @abstractmethod
    def play(self, game: Any, seat: int, text: str) -> Any:
        """Apply ``出 <text>``; returns a move record. Raises ``engine.errors.MoveError``."""

    @abstractmethod
    def pass_turn(self, game: Any, seat: int) -> Any:
        """Apply ``过``; returns a move record. Raises ``engine.errors.MoveError``."""

    @abstractmethod
    def render_start(self, game: Any, seats: list[SeatView]) -> Message:
        """Group message when the game starts."""

    @abstractmethod
    def render_move(self, game: Any, seats: list[SeatView], move: Any) -> Message:
        """Group message after an accepted move (G-4)."""

    @abstractmethod
    def render_table(self, game: Any, seats: list[SeatView]) -> Message:
        """The public table for ``/牌桌``."""

    @abstractmethod
    def render_hand(self, game: Any, seats: list[SeatView], seat: int) -> str:
        """Private message: the seat's hand and role (G-1 notation)."""

    @abstractmethod
    def render_end(self, game: Any, seats: list[SeatView]) -> Message:
        """Group message when the game is over: order, sides, result, points."""

    @abstractmethod
    def record(self, game: Any, seats: list[SeatView], uid: str, group_id: str,
               started_at: Any, ended_at: Any, settings: dict) -> FinishedGame:
        """The finished-game record for the db."""

    def hand_changed(self, move: Any) -> bool:
        """Whether ``move`` changed its maker's hand (so they get the new one)."""
        return bool(getattr(move, "cards", None))
