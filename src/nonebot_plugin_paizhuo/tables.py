"""Tables (牌桌): who sits where in which group, the live game, locks and persistence.

One table per group; a user sits at one table at a time across all groups. A table is
``waiting`` for players, ``playing`` a game, or ``finished`` (the last game is over and
the seats wait for ``/继续``). Every change is saved (``paizhuo_db.Store``) before anything is
sent, so a restart resumes exactly where the last accepted command left the table;
private-answer deadlines are saved too. A table keeps the JSON text of its last saved
state, so a change whose save failed can be undone (:meth:`Table.revert`,
:meth:`Registry.reinstate`): memory never runs ahead of the database.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from nonebot import logger

from paizhuo_db.history import game_number
from paizhuo_db.records import FinishedGame, seats_summary
from paizhuo_db.store import AccountLost, Store, encode_state

from .ai_turn import secret_pause
from .config import plugin_config
from .games import GAMES, GameAdapter
from .games.base import SeatView, is_computer
from .port import QQ_SCOPE, Message, MessageSegment
from .port.message import from_json, to_json
from .replay import capture

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
AUTO_DELAY = 1.5
"""Least seconds before the bot moves for a player in 托管 (so the group can follow, and
the player can cancel it): this or the computer players' pause, the longer."""
RETRY_MAX = 30.0
"""Longest wait (seconds) before a timer retries after its save failed (backoff 1, 2, 4 …)."""
CONTINUE_HINT = "\n发送 /继续 开下一局（全员发送后开始），/退出 离座。"
CLOSED_HINT = "\n牌桌已关闭。"
"""After the game of a table where only computer players are left."""


class SaveFailed(Exception):
    """A change could not be saved (the database raised: disk full, read-only file,
    ``database is locked`` …). ``__cause__`` is the store's exception; the change does
    not count and the table must go back to its last saved state."""


def _current_task() -> asyncio.Task | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (tests tearing down)
        return None


def now_utc() -> datetime:
    """The current time, timezone-aware UTC (the system's wall clock: records, times
    shown). Deadlines use :func:`timer_now`."""
    return datetime.now(UTC)


class SystemClock:
    """The clocks the deadlines run on: ``wall()`` the system's wall clock (UTC),
    ``mono()`` seconds of a monotonic clock (``time.monotonic``), ``sleep(s)``."""

    def wall(self) -> datetime:
        """The wall clock, timezone-aware UTC."""
        return datetime.now(UTC)

    def mono(self) -> float:
        """Seconds on a monotonic scale (never steps)."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Return after ``seconds`` (monotonic)."""
        await asyncio.sleep(max(0.0, seconds))


DRIFT_IGNORED = timedelta(seconds=1)
"""Smaller differences between the two clocks are taken as none (ticks, not a step)."""
CLOCK: Any = SystemClock()
"""The clocks of the deadlines (tests put a fake one in with :func:`use_clock`)."""
_anchor: tuple[datetime, float] = (CLOCK.wall(), CLOCK.mono())


def use_clock(clock: Any) -> None:
    """Run the deadlines on ``clock`` (``wall()``, ``mono()``, ``sleep(s)``), anchored now."""
    global CLOCK, _anchor
    CLOCK = clock
    _anchor = (clock.wall(), clock.mono())


def timer_now() -> datetime:
    """The time deadlines are set and compared in while the process runs: the wall
    clock when the process started plus the monotonic seconds since (UTC). A wall clock
    stepped back or forward (NTP, an operator) neither freezes nor skips a timer."""
    return _anchor[0] + timedelta(seconds=CLOCK.mono() - _anchor[1])


def clock_drift() -> timedelta:
    """How far :func:`timer_now` is ahead of the wall clock (zero until the wall clock
    steps; less than :data:`DRIFT_IGNORED` counts as zero, so a saved deadline reads
    back exactly). A deadline is saved as wall-clock time (``deadline - drift``), so a
    restart (a new anchor) still finds it right."""
    drift = timer_now() - CLOCK.wall()
    return drift if abs(drift) >= DRIFT_IGNORED else timedelta(0)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _boot_id() -> str | None:
    """This machine's boot (Linux: ``/proc/sys/kernel/random/boot_id``), ``None`` where it
    cannot be told. Within one boot the monotonic clock (``time.monotonic``,
    ``CLOCK_MONOTONIC``) is the same in every process, so a restarted process can tell how
    long it was down by it, whatever the wall clock did meanwhile."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


BOOT_ID = _boot_id()


def _save_clock(drift: timedelta) -> dict:
    """The clocks when a table is saved (``"clock"`` in :meth:`Table.to_json`): ``wall``,
    the save's moment on the same scale as the saved deadlines (wall-clock time as
    :func:`_deadline_out` writes it), ``mono`` the monotonic clock at that moment (one
    reading for both) and ``boot`` the machine's boot (:data:`BOOT_ID`)."""
    mono = CLOCK.mono()
    at = _anchor[0] + timedelta(seconds=mono - _anchor[1])  # timer_now() at ``mono``
    return {"wall": _deadline_out(at, drift), "mono": mono, "boot": BOOT_ID}


def _load_shift(clock: dict | None) -> timedelta:
    """What to add to a saved (wall-clock) deadline to get it in :func:`timer_now` time,
    so that it keeps the time that was left when it was saved, less the time that really
    passed since: measured on the monotonic clock when the save was made in this boot (a
    wall clock stepped between the save and a restart changes nothing), else on the wall
    clock (another machine, a reboot; a wall clock now behind the save counts as no time
    passed). A state saved without its clocks (older versions): the wall clock, as then."""
    if not clock:
        return clock_drift()
    saved = datetime.fromisoformat(clock["wall"])
    mono = float(clock["mono"])
    if BOOT_ID is not None and clock.get("boot") == BOOT_ID and mono <= CLOCK.mono():
        # The save's moment in timer_now() time, less its saved form: the deadlines move
        # with the monotonic clock, exactly (the same reading made both).
        return _anchor[0] + timedelta(seconds=mono - _anchor[1]) - saved
    passed = max(timedelta(0), CLOCK.wall() - saved)
    return timer_now() - saved - passed


def reminder_before(turn: int) -> int | None:
    """Seconds before a ``turn``-second limit runs out that the player to act is warned:
    a third of it, at least 2 and at most 15; ``None`` for a limit of 5 seconds or less
    (too short to warn)."""
    if turn <= 5:
        return None
    return min(15, max(2, turn // 3))


def _deadline_in(value: str | None, shift: timedelta) -> datetime | None:
    """A saved (wall-clock) deadline in :func:`timer_now` time (``shift``: :func:`_load_shift`)."""
    return datetime.fromisoformat(value) + shift if value else None


def _deadline_out(value: datetime | None, drift: timedelta) -> str | None:
    """A deadline in :func:`timer_now` time, saved as wall-clock time."""
    return (value - drift).isoformat() if value else None


@dataclass(slots=True)
class Table:
    """A group's table.

    ``seats`` in join order (seat order, G-2); ``engine`` is the engine game of the
    current or last game (``None`` before the first deal); ``settings`` the rule settings
    the current game was dealt with; ``uid`` names that game for its record; ``ready``
    the users who sent ``/继续``; ``previous`` what the next game needs from the last one;
    ``deadline`` when the current wait ends (an idle table closes, private answers take
    their defaults, the player to act is moved for) and ``remind_at`` when that player is
    reminded; ``computer_at`` when the computer players the game waits for act;
    ``timeouts`` counts each user's timeouts in a row, ``auto`` lists the users in 托管;
    ``games`` how many games this table has dealt; ``account`` the bot account
    (机器人账号, its QQ number ``self_id``) in whose group the table was opened: its
    messages, friend checks and timers go through that account (``None``: saved before
    accounts were recorded, adopted by the first account that serves it); ``scope`` the
    identity scope of its group and persons (``port.room.QQ_SCOPE`` on the QQ sides; the
    records it writes carry it).

    Not saved: everything the process holds for the table lives on this object, and
    :meth:`drop` lets it all go (the registry drops a table it removes). ``lock``
    serialises its changes; ``saved`` is the JSON text of the last state written to the
    store (``None`` while never saved), ``failures`` counts failed saves in a row and
    ``retry_at`` is when a timer may retry after one (the back-off); ``timer`` is the
    task waiting for its next reminder / deadline / computer pause
    (``actions.deadlines``) and ``deferred`` says it came due while the table's account
    was away; ``ahead`` holds the 困难 searches started for its coming computer decisions
    (``ai_turn``); ``later`` the pictures to draw once the change's texts are queued
    (``pictures.Pending``); ``announcing`` the end messages of this change that wait to
    be sent, as ``(game uid, Outgoing)`` (claimed in :attr:`Registry.claims` meanwhile);
    ``token`` is the hold of the account this table was loaded or opened under
    (PostgreSQL, ``Store.account_token``): every write of it carries it, and once another
    process took the account none goes through (``None`` on SQLite).

    ``pending`` (saved) holds the messages of a run of automatic moves (computer players,
    托管, 要不起自动过) not yet posted, as JSON (``runs.dump_outs``): they go out in one
    post when the run reaches a person's decision.

    ``marks`` (saved) notes the moves of the current game the bot made for a person, by
    their index in the game's log (as a string): ``"超时"``, ``"托管"`` or
    ``"要不起，自动过"``, as the group was told them; the replay (复盘) shows them.
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
    computer_at: datetime | None = None
    timeouts: dict[str, int] = field(default_factory=dict)
    auto: list[str] = field(default_factory=list)
    games: int = 0
    account: str | None = None
    scope: str = QQ_SCOPE
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, compare=False, repr=False)
    saved: str | None = field(default=None, compare=False, repr=False)
    failures: int = field(default=0, compare=False, repr=False)
    retry_at: datetime | None = field(default=None, compare=False, repr=False)
    announcing: list = field(default_factory=list, compare=False, repr=False)
    timer: asyncio.Task | None = field(default=None, compare=False, repr=False)
    deferred: bool = field(default=False, compare=False, repr=False)
    ahead: list = field(default_factory=list, compare=False, repr=False)
    later: list = field(default_factory=list, compare=False, repr=False)
    pending: list = field(default_factory=list)
    marks: dict[str, str] = field(default_factory=dict)
    token: int | None = field(default=None, compare=False, repr=False)

    def drop(self) -> None:
        """Let go of everything the process holds for this table (it was removed): its
        timer is cancelled (unless it is the task running this), its searches started
        ahead are cancelled, its pictures to draw are forgotten. The saved state, the
        lock and the end messages being sent are kept (a change under way finishes)."""
        timer, self.timer = self.timer, None
        if timer is not None and timer is not _current_task():
            timer.cancel()
        self.deferred = False
        for entry in self.ahead:
            entry.search.cancel()
        self.ahead.clear()
        self.later.clear()

    @property
    def adapter(self) -> GameAdapter:
        """This table's game adapter."""
        return GAMES[self.game]

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.status == PLAYING

    def humans(self) -> list[str]:
        """User ids of the seated humans (not computer players)."""
        return [s.user_id for s in self.seats if not is_computer(s.user_id)]

    def mark_last_move(self, why: str) -> None:
        """Note that the game's last move was made by the bot for a person (``why``:
        ``超时``, ``托管``, ``要不起，自动过``), for the replay."""
        log = getattr(self.engine, "log", None)
        if log:
            self.marks[str(len(log) - 1)] = why

    def seat_of(self, user_id: str) -> int | None:
        """The 0-based seat of ``user_id``, ``None`` if not seated."""
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def carried_previous(self) -> dict | None:
        """``previous`` for the next deal, with ``"seat_map"`` (previous seat → seat now,
        ``None`` for a player who left) when the players changed between games, so tribute
        and who deals / leads carry over only among players who played the last game
        (Z-8, Z-5, W-2, S-4). ``None`` before the first game."""
        if self.previous is None:
            return None
        users = self.previous.get("users")
        now = [s.user_id for s in self.seats]
        if users is None or users == now:
            return self.previous
        return {**self.previous, "seat_map": [self.seat_of(u) for u in users]}

    def setting(self, field_name: str) -> object:
        """A setting of this table (its game's schema default when unset)."""
        return self.adapter.schema.clean(self.settings)[field_name]

    def rearm(self) -> None:
        """Set ``deadline`` / ``remind_at`` for what the table now waits for: an idle
        table closes, private answers take their defaults, the player to act is moved
        for (soon, when in 托管), with a reminder before the turn time runs out."""
        now = timer_now()
        self.remind_at = None
        self.deadline = None
        self.computer_at = None
        if self.status in (WAITING, FINISHED):
            self.deadline = now + timedelta(minutes=int(self.setting("idle_minutes")))
            return
        if any(is_computer(self.seats[s].user_id) for s in self.adapter.waiting_seats(self.engine)):
            delay = plugin_config().computer_delay
            if self.adapter.secret_phase(self.engine):  # G-4: the same for every deal
                delay = max(delay, secret_pause(self))
            self.computer_at = now + timedelta(seconds=delay)
        prompt = self.adapter.prompt_seconds(self.engine)
        if prompt:
            self.deadline = now + timedelta(seconds=prompt)
            return
        seat = self.adapter.acting_seat(self.engine)
        if seat is None or is_computer(self.seats[seat].user_id):
            return
        if self.seats[seat].user_id in self.auto:
            self.deadline = now + timedelta(seconds=max(AUTO_DELAY, plugin_config().computer_delay))
            return
        turn = int(self.setting("turn_seconds"))
        if turn:
            self.deadline = now + timedelta(seconds=turn)
            before = reminder_before(turn)
            if before:
                self.remind_at = self.deadline - timedelta(seconds=before)

    def to_json(self, clock: bool = False) -> dict:
        """Everything needed to resume this table, as JSON-able data (deadlines as
        wall-clock times); with ``clock`` (what is saved) also the clocks of this moment
        (``"clock"``: how a restart tells the time left, :func:`_load_shift`)."""
        drift = clock_drift()
        data = {
            "group_id": self.group_id, "game": self.game, "size": self.size,
            "opener": self.opener, "seats": [[s.user_id, s.name] for s in self.seats],
            "settings": self.settings, "created_at": self.created_at.isoformat(),
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "uid": self.uid, "status": self.status, "ready": list(self.ready),
            "previous": self.previous, "games": self.games,
            "deadline": _deadline_out(self.deadline, drift),
            "remind_at": _deadline_out(self.remind_at, drift),
            "computer_at": _deadline_out(self.computer_at, drift),
            "timeouts": dict(self.timeouts), "auto": list(self.auto),
            "engine": self.adapter.dump(self.engine) if self.engine is not None else None,
            "account": self.account,
            "scope": self.scope,
            "pending": list(self.pending),
            "marks": dict(self.marks),
        }
        if clock:
            data["clock"] = _save_clock(drift)
        return data

    def revert(self) -> None:
        """Go back to the last saved state (what a restart would load). Raises
        ``ValueError`` when the table was never saved."""
        if self.saved is None:
            raise ValueError(f"table of group {self.group_id} was never saved")
        other = Table.from_json(json.loads(self.saved))
        for name in PERSISTED:
            setattr(self, name, getattr(other, name))

    def save_failed(self) -> None:
        """Count a failed save and push ``retry_at`` back (1, 2, 4 … ``RETRY_MAX`` s)."""
        self.failures += 1
        wait = min(RETRY_MAX, 2.0 ** (self.failures - 1))
        self.retry_at = timer_now() + timedelta(seconds=wait)

    def _saved_as(self, text: str) -> None:
        self.saved, self.failures, self.retry_at = text, 0, None

    @classmethod
    def from_json(cls, data: dict) -> Table:
        """Inverse of :meth:`to_json`: each deadline keeps the time it had left when saved,
        less the time that passed since (:func:`_load_shift`). Raises ``KeyError`` for an
        unknown game."""
        adapter = GAMES[data["game"]]
        drift = _load_shift(data.get("clock"))
        return cls(
            group_id=data["group_id"], game=data["game"], size=int(data["size"]),
            opener=data["opener"], seats=[SeatView(u, n) for u, n in data["seats"]],
            settings=dict(data["settings"]), created_at=datetime.fromisoformat(data["created_at"]),
            started_at=_time(data["started_at"]), uid=data["uid"],
            engine=adapter.load(data["engine"]) if data["engine"] is not None else None,
            status=data["status"], ready=list(data["ready"]), previous=data["previous"],
            deadline=_deadline_in(data["deadline"], drift), games=int(data["games"]),
            remind_at=_deadline_in(data.get("remind_at"), drift),
            computer_at=_deadline_in(data.get("computer_at"), drift),
            timeouts=dict(data.get("timeouts") or {}),
            auto=list(data.get("auto") or []), account=data.get("account"),
            scope=data.get("scope") or QQ_SCOPE,
            pending=list(data.get("pending") or []),
            marks=dict(data.get("marks") or {}),
        )


PERSISTED = ("group_id", "game", "size", "opener", "seats", "settings", "created_at", "started_at",
             "uid", "engine", "status", "ready", "previous", "deadline", "remind_at", "computer_at",
             "timeouts", "auto", "games", "pending", "marks")
"""The fields of :class:`Table` that :meth:`Table.to_json` saves and :meth:`Table.revert`
restores (``account`` is saved too but never reverted: it is who serves the table, and a
row saved before accounts were recorded has none)."""


def message_to_json(message: Message) -> list[dict]:
    """A message as JSON-able data (``port.message.to_json``)."""
    return to_json(message)


def message_from_json(data: list[dict]) -> Message:
    """Inverse of :func:`message_to_json` (rows written before the port read back too)."""
    return from_json(data)


def end_message(table: Table) -> Message:
    """The group's end message of a table whose game is over (result and what next: the
    table closes when no human is seated)."""
    hint = CONTINUE_HINT if table.humans() else CLOSED_HINT
    return table.adapter.end(table.engine, table.seats) + MessageSegment.text(hint)


class Registry:
    """All open tables, indexed by group and by seated user, with the store behind them."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.by_user: dict[str, str] = {}
        self.guard = asyncio.Lock()
        self.store: Store | None = None
        self.resumed: set[str] = set()
        self.claims: set[str] = set()
        """Games (uid) whose end message is being sent right now — by the change that
        finished the game (claimed before its record is written) or by a late
        announcement when an account connects: whoever claimed it sends it, nobody else
        meanwhile. Kept here, not on a table: a table of computer players closes with its
        game while its end message is still on the way."""

    def get(self, group_id: str) -> Table | None:
        """The table of a group."""
        return self.tables.get(group_id)

    def table_of_user(self, user_id: str) -> Table | None:
        """The table ``user_id`` sits at, in any group."""
        gid = self.by_user.get(user_id)
        return self.tables.get(gid) if gid is not None else None

    def add(self, table: Table) -> None:
        """Register a table and index its seated users; a table without a token gets the
        current hold of its account (``Table.token``)."""
        if table.token is None and self.store is not None:
            table.token = self.store.account_token(table.account)
        self.tables[table.group_id] = table
        for s in table.seats:
            if not is_computer(s.user_id):
                self.by_user[s.user_id] = table.group_id

    def unseat(self, table: Table, user_id: str) -> None:
        """Remove ``user_id`` from the user index if it points at ``table``."""
        if self.by_user.get(user_id) == table.group_id:
            del self.by_user[user_id]

    def remove(self, table: Table) -> None:
        """Forget a table and its seats (in memory), and everything the process holds for
        it (:meth:`Table.drop`)."""
        if self.tables.get(table.group_id) is table:
            del self.tables[table.group_id]
        for s in table.seats:
            self.unseat(table, s.user_id)
        table.drop()

    def require_store(self) -> Store:
        """The store. Raises ``RuntimeError`` before start-up."""
        if self.store is None:
            raise RuntimeError("store not started")
        return self.store

    def reinstate(self, table: Table, registered: bool) -> None:
        """After :meth:`Table.revert`: index the table as it was before the failed change
        (``registered``: whether it was this group's table), its seats as saved."""
        gid = table.group_id
        for user in [u for u, g in self.by_user.items() if g == gid]:
            del self.by_user[user]
        if registered:
            self.add(table)
        else:
            if self.tables.get(gid) is table:
                del self.tables[gid]
            table.drop()

    def _token(self, table: Table) -> int | None:
        """The token the table's writes carry (``Table.token``; a table that has none yet
        takes its account's current hold). Raises :class:`~paizhuo_db.store.AccountLost`
        when the database is shared and this process does not hold the table's account:
        nothing of it may be written."""
        store = self.require_store()
        if table.token is None:
            table.token = store.account_token(table.account)
        if table.token is None and table.account is not None and not store.exclusive:
            raise AccountLost(table.account, "this process does not hold it")
        return table.token

    async def save(self, table: Table) -> None:
        """Persist the table (after every accepted change), encoding it to JSON once;
        the write is scoped by the table's account (a row of another account is left
        alone) and fenced by its token (none goes through once another process took the
        account).

        Raises:
            SaveFailed: the store raised (``__cause__`` :class:`paizhuo_db.store.LiveTableTaken`
                when the group's row belongs to another account,
                :class:`paizhuo_db.store.AccountLost` when this process does not hold the
                account any more); nothing was written.
        """
        text = encode_state(table.to_json(clock=True))
        try:
            await self.require_store().save_live_text(table.group_id, table.game, text,
                                                      account=table.account,
                                                      token=self._token(table))
        except Exception as err:
            raise SaveFailed(f"save of group {table.group_id}: {err!r}") from err
        table._saved_as(text)

    async def close(self, table: Table) -> None:
        """Remove the table without a record (``/结束``, everyone left).

        Raises:
            SaveFailed: the store raised (the table is already out of the indexes; the
                caller reinstates it).
        """
        self.remove(table)
        try:
            await self.require_store().delete_live(table.group_id, account=table.account,
                                                   token=self._token(table))
        except Exception as err:
            raise SaveFailed(f"delete of group {table.group_id}: {err!r}") from err

    async def record_finished(self, table: Table) -> tuple[FinishedGame, Message, int | None]:
        """The game is over: mark the table finished (waiting for ``/继续``) and, in one
        transaction, write the game's record, its end message (pending until
        announced) and the table's new state — or, when no human is seated, delete the
        table (a table of computer players closes after its game). Writing the same game
        twice is a no-op (its uid is unique). Returns ``(the record written (uid, summary
        with the replay), end message, the game's number in its group 第 N 局 or None)``.

        Raises:
            SaveFailed: the store raised; nothing was written (the table in memory is
                already marked finished: the caller reverts it).
        """
        record = end_record(table)
        message = end_message(table)
        table.status = FINISHED
        table.ready = [s.user_id for s in table.seats if is_computer(s.user_id)]
        table.auto = []
        table.timeouts = {}
        table.previous = {**table.adapter.next_game_info(table.engine),
                          "users": [s.user_id for s in table.seats]}
        table.rearm()
        closing = not table.humans()
        text = encode_state(table.to_json(clock=True))
        try:
            await self.require_store().finish_game(
                record, live=None if closing else (table.game, text),
                announcement=message_to_json(message), account=table.account,
                token=self._token(table))
        except Exception as err:
            raise SaveFailed(f"record of game {record.uid}: {err!r}") from err
        if closing:
            self.remove(table)
        else:
            table._saved_as(text)
        return record, message, await self.game_number(record.uid)

    async def record_void(self, table: Table) -> int | None:
        """``/结束`` during a game: close the table and, in the same transaction, keep the
        game as a void record (no players, so it never counts) with its replay. Returns
        its number (第 N 局).

        Raises:
            SaveFailed: the store raised (the table is already out of the indexes; the
                caller reinstates it).
        """
        record = void_record(table)
        self.remove(table)
        try:
            await self.require_store().finish_game(record, account=table.account,
                                                   token=self._token(table))
        except Exception as err:
            raise SaveFailed(f"void record of group {table.group_id}: {err!r}") from err
        return await self.game_number(record.uid)

    async def game_number(self, uid: str) -> int | None:
        """The recorded game's number in its group (第 N 局); ``None`` when it cannot be
        read (logged: the number is only shown, never worth failing a message for)."""
        try:
            return await game_number(self.require_store(), uid)
        except Exception as err:  # noqa: BLE001 - the number is only shown
            logger.warning(f"event=game_number_failed uid={uid} cause={err!r}")
            return None

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
            table.token = self.require_store().account_token(table.account)
            table.saved = encode_state(data)
            if table.status == PLAYING and table.adapter.is_over(table.engine):
                await self.record_finished(table)
            self.add(table)
            resumed.append(table)
            self.resumed.add(group_id)
        return resumed

    def reset(self) -> None:
        """Forget every table in memory, with all the process held for each (tests)."""
        for table in list(self.tables.values()):
            table.drop()
        self.claims.clear()
        self.tables.clear()
        self.by_user.clear()
        self.resumed.clear()


def end_record(table: Table) -> FinishedGame:
    """The finished-game record of a table whose game is over: every seat (name,
    computer or person, role, place, result, points) under ``summary["seats"]`` with the
    replay (复盘); player rows for the persons only (computer players have no /战绩)."""
    record = table.adapter.record(
        table.engine, table.seats, uid=table.uid or "", group_id=table.group_id,
        started_at=table.started_at or table.created_at, ended_at=now_utc(),
    )
    record.summary.update(seats=seats_summary([s.user_id for s in table.seats],
                                              [s.name for s in table.seats], record.players),
                          replay=capture(table.engine, table.marks))
    record.players = [p for p in record.players if not is_computer(p.user_id)]
    record.scope = table.scope
    return record


def void_record(table: Table) -> FinishedGame:
    """The record of a game stopped by ``/结束``: marked void, no players, every seat
    (without results) and the replay up to where it stopped in its summary."""
    return FinishedGame(
        uid=table.uid or f"{table.group_id}-void-{now_utc():%Y%m%d%H%M%S%f}", game=table.game,
        group_id=table.group_id, started_at=table.started_at or table.created_at,
        ended_at=now_utc(), settings=table.engine.rules.to_json(),
        summary={"void": True,
                 "seats": seats_summary([s.user_id for s in table.seats], [s.name for s in table.seats]),
                 "replay": capture(table.engine, table.marks)},
        players=[], scope=table.scope)


REGISTRY = Registry()
"""The process-wide registry of tables."""
