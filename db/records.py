"""Plain data records exchanged between the game code and :class:`db.store.Store`.

These are deliberately free of SQLAlchemy so callers (engine / plugins) can build and
read them without touching the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

Result = Literal["win", "draw", "loss"]
"""Outcome of one player in one finished game."""

RESULTS: frozenset[str] = frozenset({"win", "draw", "loss"})
"""All valid :data:`Result` values."""


@dataclass(slots=True)
class FinishedPlayer:
    """One seat of a finished game.

    Attributes:
        user_id: QQ user id (as a string).
        seat: seat index at the table (0-based or 1-based, caller's convention).
        role: role played, e.g. ``"特务"`` or ``"平民"``.
        place: finishing place ``1..n``, or ``None`` if the player never went out.
        result: ``"win"``, ``"draw"`` or ``"loss"``.
        points: points gained (negative when lost) in this game.
    """

    user_id: str
    seat: int
    role: str
    place: int | None
    result: Result
    points: int


@dataclass(slots=True)
class FinishedGame:
    """A finished game ready to be archived by :meth:`db.store.Store.finish_game`.

    Attributes:
        uid: stable unique id of this game; archiving the same uid twice is a no-op.
        game: game type name, e.g. ``"抓特务"``.
        group_id: QQ group id (as a string).
        started_at: timezone-aware start time (stored as UTC).
        ended_at: timezone-aware end time (stored as UTC).
        settings: JSON-serialisable rule settings used for this game.
        summary: JSON-serialisable free-form summary (e.g. outcome).
        players: one entry per seat.
    """

    uid: str
    game: str
    group_id: str
    started_at: datetime
    ended_at: datetime
    settings: dict[str, Any]
    summary: dict[str, Any]
    players: list[FinishedPlayer]


@dataclass(slots=True)
class GameStats:
    """Aggregated results of one user in one group for one game type.

    Attributes:
        game: game type name.
        games: number of finished games played.
        wins / draws / losses: counts by result (they sum to ``games``).
        points: sum of points over those games.
    """

    game: str
    games: int
    wins: int
    draws: int
    losses: int
    points: int

    @property
    def win_rate(self) -> float:
        """``wins / games`` as a float in ``[0, 1]``; ``0.0`` when ``games == 0``."""
        return self.wins / self.games if self.games else 0.0
