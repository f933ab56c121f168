"""Plain data records exchanged between the game code and :class:`paizhuo_db.store.Store`.

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

COMPUTER_PREFIX = "ai:"
"""User ids of computer players (``ai:1`` is 电脑1; never a QQ number)."""


def is_computer_id(user_id: str) -> bool:
    """Whether ``user_id`` is a computer player's seat."""
    return user_id.startswith(COMPUTER_PREFIX)


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
    """A finished game ready to be archived by :meth:`paizhuo_db.store.Store.finish_game`.

    Attributes:
        uid: stable unique id of this game; archiving the same uid twice is a no-op.
        game: game type name, e.g. ``"抓特务"``.
        group_id: QQ group id (as a string).
        started_at: timezone-aware start time (stored as UTC).
        ended_at: timezone-aware end time (stored as UTC).
        settings: JSON-serialisable rule settings used for this game.
        summary: JSON-serialisable free-form summary (e.g. outcome). ``summary["seats"]``
            (see :func:`seats_summary`) lists every seat, computer players included.
        players: one entry per person seated (computer players have no player rows,
            no /战绩 and no place on /排行; their seats are in ``summary["seats"]``).
    """

    uid: str
    game: str
    group_id: str
    started_at: datetime
    ended_at: datetime
    settings: dict[str, Any]
    summary: dict[str, Any]
    players: list[FinishedPlayer]
    scope: str = "QQClient"
    """The identity scope of ``group_id`` and the players' ``user_id`` (QQ numbers:
    ``QQClient``)."""


def seats_summary(user_ids: list[str], names: list[str | None],
                  players: list[FinishedPlayer] = ()) -> list[dict[str, Any]]:
    """``summary["seats"]`` of a game record: one JSON object per seat in seat order,
    ``{"user_id", "name", "computer", "role", "place", "result", "points"}``; the last
    four are ``None`` for a seat without an entry in ``players`` (a void game)."""
    by_user = {p.user_id: p for p in players}
    seats = []
    for i, user in enumerate(user_ids):
        p = by_user.get(user)
        seats.append({"user_id": user, "name": names[i] if i < len(names) else None,
                      "computer": is_computer_id(user),
                      "role": p.role if p else None, "place": p.place if p else None,
                      "result": p.result if p else None, "points": p.points if p else None})
    return seats


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
