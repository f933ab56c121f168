"""Tables (牌桌): who sits where in which group, the live game, locks and persistence.

One table per group; a user sits at one table at a time across all groups. Every change
is saved (``db.Store.save_live``) before anything is sent, so a restart resumes exactly
where the last accepted command left the table.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from nonebot import logger

from db.records import FinishedGame
from db.store import Store
from plugins.paizhuo.games import GAMES, GameAdapter
from plugins.paizhuo.games.base import SeatView


def now_utc() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(slots=True)
class Table:
    """A group's table.

    ``seats`` in join order (seat order, G-2); ``engine`` is the live engine game while
    playing and ``None`` while waiting for players; ``settings`` are the rule settings the
    table was opened with; ``uid`` names the current game for its record.
    """

    group_id: str
    game: str
    size: int
    opener: str
    seats: list[SeatView]
    settings: dict
    created_at: datetime
    started_at: datetime | None = None
    uid: str | None = None
    engine: Any = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, compare=False, repr=False)
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock, compare=False, repr=False)

    @property
    def adapter(self) -> GameAdapter:
        """This table's game adapter."""
        return GAMES[self.game]

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.engine is not None

    def seat_of(self, user_id: str) -> int | None:
        """The 0-based seat of ``user_id``, ``None`` if not seated."""
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def to_json(self) -> dict:
        """Everything needed to resume this table, as JSON-able data."""
        return {
            "group_id": self.group_id, "game": self.game, "size": self.size,
            "opener": self.opener, "seats": [[s.user_id, s.name] for s in self.seats],
            "settings": self.settings, "created_at": self.created_at.isoformat(),
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "uid": self.uid,
            "engine": self.adapter.dump(self.engine) if self.engine is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict) -> Table:
        """Inverse of :meth:`to_json`. Raises ``KeyError`` for an unknown game."""
        adapter = GAMES[data["game"]]
        return cls(
            group_id=data["group_id"], game=data["game"], size=int(data["size"]),
            opener=data["opener"], seats=[SeatView(u, n) for u, n in data["seats"]],
            settings=dict(data["settings"]),
            created_at=datetime.fromisoformat(data["created_at"]),
            started_at=datetime.fromisoformat(data["started_at"]) if data["started_at"] else None,
            uid=data["uid"],
            engine=adapter.load(data["engine"]) if data["engine"] is not None else None,
        )


class Registry:
    """All open tables, indexed by group and by seated user, with the store behind them."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.by_user: dict[str, str] = {}
        self.guard = asyncio.Lock()
        self.store: Store | None = None

    def get(self, group_id: str) -> Table | None:
        """The table of a group."""
        return self.tables.get(group_id)

    def table_of_user(self, user_id: str) -> Table | None:
        """The table ``user_id`` sits at, in any group."""
        gid = self.by_user.get(user_id)
        return self.tables.get(gid) if gid is not None else None

    def add(self, table: Table) -> None:
        """Register a table and index its seated users."""
        self.tables[table.group_id] = table
        for s in table.seats:
            self.by_user[s.user_id] = table.group_id

    def unseat(self, table: Table, user_id: str) -> None:
        """Remove ``user_id`` from the user index if it points at ``table``."""
        if self.by_user.get(user_id) == table.group_id:
            del self.by_user[user_id]

    def remove(self, table: Table) -> None:
        """Forget a table and its seats (in memory)."""
        if self.tables.get(table.group_id) is table:
            del self.tables[table.group_id]
        for s in table.seats:
            self.unseat(table, s.user_id)

    def _store(self) -> Store:
        if self.store is None:
            raise RuntimeError("store not started")
        return self.store

    async def save(self, table: Table) -> None:
        """Persist the table (after every accepted change)."""
        await self._store().save_live(table.group_id, table.game, table.to_json())

    async def close(self, table: Table) -> None:
        """Remove the table without a record (``/结束``, everyone left)."""
        self.remove(table)
        await self._store().delete_live(table.group_id)

    async def finish(self, table: Table, record: FinishedGame) -> None:
        """Write the finished game and drop the live table in one transaction, then forget
        the table. Writing the same game twice is a no-op (its uid is unique)."""
        await self._store().finish_game(record)
        self.remove(table)

    async def restore(self) -> int:
        """Load every saved table (at start-up). A saved game that had already ended is
        recorded (once) and dropped. Returns the number of tables resumed."""
        resumed = 0
        for group_id, (_game, data) in (await self._store().load_live()).items():
            try:
                table = Table.from_json(data)
            except Exception as err:  # noqa: BLE001 - keep going with the other tables
                logger.error(f"cannot restore table of group {group_id}: {err!r}")
                continue
            if table.engine is not None and table.adapter.is_over(table.engine):
                await self._store().finish_game(end_record(table))
                continue
            self.add(table)
            resumed += 1
        return resumed

    def reset(self) -> None:
        """Forget every table in memory (tests)."""
        self.tables.clear()
        self.by_user.clear()


def end_record(table: Table) -> FinishedGame:
    """The finished-game record of a table whose game is over."""
    return table.adapter.record(
        table.engine, table.seats, uid=table.uid or "", group_id=table.group_id,
        started_at=table.started_at or table.created_at, ended_at=now_utc(),
        settings=table.settings,
    )


REGISTRY = Registry()
"""The process-wide registry of tables."""
