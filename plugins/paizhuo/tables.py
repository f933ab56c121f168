"""Tables (牌桌): who sits where in which group, the live game, locks and persistence.

One table per group; a user sits at one table at a time across all groups. A table is
``waiting`` for players, ``playing`` a game, or ``finished`` (the last game is over and
the seats wait for ``/继续``). Every change is saved (``db.Store``) before anything is
sent, so a restart resumes exactly where the last accepted command left the table;
private-answer deadlines are saved too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from nonebot import logger

from db.records import FinishedGame
from db.store import Store
from plugins.paizhuo.games import GAMES, GameAdapter
from plugins.paizhuo.games.base import SeatView

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
AUTO_DELAY = 1.5
"""Seconds before the bot moves for a player in 托管 (so the group can follow)."""


def now_utc() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@dataclass(slots=True)
class Table:
    """A group's table.

    ``seats`` in join order (seat order, G-2); ``engine`` is the engine game of the
    current or last game (``None`` before the first deal); ``settings`` the rule settings
    the current game was dealt with; ``uid`` names that game for its record; ``ready``
    the users who sent ``/继续``; ``previous`` what the next game needs from the last one;
    ``deadline`` when the current wait ends (an idle table closes, private answers take
    their defaults, the player to act is moved for) and ``remind_at`` when that player is
    reminded; ``timeouts`` counts each user's timeouts in a row, ``auto`` lists the users
    in 托管; ``games`` how many games this table has dealt; ``account`` the bot account
    (机器人账号, its QQ number ``self_id``) in whose group the table was opened: its
    messages, friend checks and timers go through that account (``None``: saved before
    accounts were recorded, adopted by the first account that serves it).
    """

    group_id: str
    game: str
    size: int
    opener: str
    seats: list[SeatView]
    created_at: datetime
    settings: dict = field(default_factory=dict)
    started_at: datetime | None = None
    uid: str | None = None
    engine: Any = None
    status: str = WAITING
    ready: list[str] = field(default_factory=list)
    previous: dict | None = None
    deadline: datetime | None = None
    remind_at: datetime | None = None
    timeouts: dict[str, int] = field(default_factory=dict)
    auto: list[str] = field(default_factory=list)
    games: int = 0
    account: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, compare=False, repr=False)
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock, compare=False, repr=False)

    @property
    def adapter(self) -> GameAdapter:
        """This table's game adapter."""
        return GAMES[self.game]

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.status == PLAYING

    def seat_of(self, user_id: str) -> int | None:
        """The 0-based seat of ``user_id``, ``None`` if not seated."""
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def setting(self, field_name: str) -> object:
        """A setting of this table (its game's schema default when unset)."""
        return self.adapter.schema.clean(self.settings)[field_name]

    def rearm(self) -> None:
        """Set ``deadline`` / ``remind_at`` for what the table now waits for: an idle
        table closes, private answers take their defaults, the player to act is moved
        for (soon, when in 托管), with a reminder before the turn time runs out."""
        now = now_utc()
        self.remind_at = None
        self.deadline = None
        if self.status in (WAITING, FINISHED):
            self.deadline = now + timedelta(minutes=int(self.setting("idle_minutes")))
            return
        prompt = self.adapter.prompt_seconds(self.engine)
        if prompt:
            self.deadline = now + timedelta(seconds=prompt)
            return
        seat = self.adapter.acting_seat(self.engine)
        if seat is None:
            return
        if self.seats[seat].user_id in self.auto:
            self.deadline = now + timedelta(seconds=AUTO_DELAY)
            return
        turn = int(self.setting("turn_seconds"))
        if turn:
            self.deadline = now + timedelta(seconds=turn)
            if turn >= 20:
                self.remind_at = self.deadline - timedelta(seconds=min(15, turn // 3))

    def to_json(self) -> dict:
        """Everything needed to resume this table, as JSON-able data."""
        return {
            "group_id": self.group_id, "game": self.game, "size": self.size,
            "opener": self.opener, "seats": [[s.user_id, s.name] for s in self.seats],
            "settings": self.settings, "created_at": self.created_at.isoformat(),
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "uid": self.uid, "status": self.status, "ready": list(self.ready),
            "previous": self.previous, "games": self.games,
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "remind_at": self.remind_at.isoformat() if self.remind_at else None,
            "timeouts": dict(self.timeouts), "auto": list(self.auto),
            "engine": self.adapter.dump(self.engine) if self.engine is not None else None,
            "account": self.account,
        }

    @classmethod
    def from_json(cls, data: dict) -> Table:
        """Inverse of :meth:`to_json`. Raises ``KeyError`` for an unknown game."""
        adapter = GAMES[data["game"]]
        return cls(
            group_id=data["group_id"], game=data["game"], size=int(data["size"]),
            opener=data["opener"], seats=[SeatView(u, n) for u, n in data["seats"]],
            settings=dict(data["settings"]), created_at=datetime.fromisoformat(data["created_at"]),
            started_at=_time(data["started_at"]), uid=data["uid"],
            engine=adapter.load(data["engine"]) if data["engine"] is not None else None,
            status=data["status"], ready=list(data["ready"]), previous=data["previous"],
            deadline=_time(data["deadline"]), games=int(data["games"]),
            remind_at=_time(data.get("remind_at")), timeouts=dict(data.get("timeouts") or {}),
            auto=list(data.get("auto") or []), account=data.get("account"),
        )


class Registry:
    """All open tables, indexed by group and by seated user, with the store behind them."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.by_user: dict[str, str] = {}
        self.guard = asyncio.Lock()
        self.store: Store | None = None
        self.resumed: set[str] = set()

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

    def require_store(self) -> Store:
        """The store. Raises ``RuntimeError`` before start-up."""
        if self.store is None:
            raise RuntimeError("store not started")
        return self.store

    async def save(self, table: Table) -> None:
        """Persist the table (after every accepted change)."""
        await self.require_store().save_live(table.group_id, table.game, table.to_json(),
                                             account=table.account)

    async def close(self, table: Table) -> None:
        """Remove the table without a record (``/结束``, everyone left)."""
        self.remove(table)
        await self.require_store().delete_live(table.group_id, account=table.account)

    async def record_finished(self, table: Table) -> None:
        """The game is over: mark the table finished (waiting for ``/继续``) and, in one
        transaction, write the game's record and the table's new state. Writing the same
        game twice is a no-op (its uid is unique)."""
        record = end_record(table)
        table.status = FINISHED
        table.ready = []
        table.auto = []
        table.timeouts = {}
        table.previous = table.adapter.next_game_info(table.engine)
        table.rearm()
        await self.require_store().finish_game(record, live=(table.game, table.to_json()),
                                               account=table.account)

    async def restore(self, account: str | None = None) -> list[Table]:
        """Load the saved tables: every one, or with ``account`` only that bot account's
        (when it connects; a process never loads another account's tables). A group whose
        table is already in memory is skipped. A game saved as over but not yet marked
        finished is recorded now (once). Returns the tables resumed."""
        resumed = []
        for group_id, (_game, data) in (await self.require_store().load_live(account)).items():
            if group_id in self.tables:
                continue
            try:
                table = Table.from_json(data)
            except Exception as err:  # noqa: BLE001 - keep going with the other tables
                logger.error(f"cannot restore table of group {group_id}: {err!r}")
                continue
            if account is not None:
                table.account = account
            if table.status == PLAYING and table.adapter.is_over(table.engine):
                await self.record_finished(table)
            self.add(table)
            resumed.append(table)
            self.resumed.add(group_id)
        return resumed

    def reset(self) -> None:
        """Forget every table in memory (tests)."""
        self.tables.clear()
        self.by_user.clear()
        self.resumed.clear()


def end_record(table: Table) -> FinishedGame:
    """The finished-game record of a table whose game is over."""
    return table.adapter.record(
        table.engine, table.seats, uid=table.uid or "", group_id=table.group_id,
        started_at=table.started_at or table.created_at, ended_at=now_utc(),
    )


REGISTRY = Registry()
"""The process-wide registry of tables."""
