"""Async persistence API of the 牌桌 bot (live tables, finished games, stats)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, bindparam, case, delete, func, or_, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
)

from .connection import DEFAULT_BUSY_TIMEOUT, READ_ONLY, is_sqlite, make_engine, sqlite_pragmas
from .holds import FENCE, AccountHolds, AccountLost, account_lock_key, check_fence
from .hot import HotSaver
from .models import (
    QQ_SCOPE,
    GameRecord,
    GroupSetting,
    LiveTable,
    PlayerRecord,
    SeenEvent,
    UTCDateTime,
    utcnow,
)
from .records import RESULTS, FinishedGame, GameStats

MIGRATIONS_DIR: Path = Path(__file__).resolve().parent / "migrations"
"""Absolute path of the alembic script directory."""

_SCOPED_UPDATE = (
    "ON CONFLICT (group_id) DO UPDATE SET game = excluded.game, state = excluded.state, "
    "updated_at = excluded.updated_at, "
    "account = COALESCE(excluded.account, live_tables.account) "
    "WHERE live_tables.account IS NULL OR excluded.account IS NULL "
    "OR live_tables.account = excluded.account"
)
"""The update half of the live-row upsert: a row of another account is left alone (the
statement then changes 0 rows); a row without an account takes the writer's; a writer
without an account keeps the row's."""

_UPSERT_LIVE = (
    "INSERT INTO live_tables (group_id, game, state, updated_at, account) "
    "VALUES (:group_id, :game, {state}, :updated_at, :account) " + _SCOPED_UPDATE
)
_FENCED_UPSERT_LIVE = (
    FENCE + "INSERT INTO live_tables (group_id, game, state, updated_at, account) "
    "SELECT :group_id, :game, CAST(:state AS JSON), :updated_at, :account FROM fence "
    + _SCOPED_UPDATE
)
"""The live-row upsert of a holder on PostgreSQL: nothing is written unless ``:token``
is still the account's epoch (``holds.FENCE``)."""
_NOTE_EVENT = (
    "INSERT INTO seen_events (account, event_id, mark, seen_at) "
    "{source} ON CONFLICT (account, event_id) DO UPDATE SET mark = excluded.mark, "
    "seen_at = excluded.seen_at"
)


_HOT_UPSERT = (
    "INSERT INTO live_tables (group_id, game, state, updated_at, account) "
    "VALUES (?, ?, ?, ?, ?) " + _SCOPED_UPDATE
)
_HOT_OWNER = "SELECT account FROM live_tables WHERE group_id = ?"
_SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a DateTime in SQLite (naive UTC), so both paths write the same."""


_MIGRATE_LOCK = 72_617_001
"""PostgreSQL advisory lock key held while migrating."""

SEEN_KEPT = 4096
"""Handled event ids kept per bot account (:meth:`Store.note_event`)."""
SEEN_PRUNE_EVERY = 256
"""Ids noted per account between two prunings down to :data:`SEEN_KEPT`."""

__all__ = ["AccountLost", "LiveTableTaken", "PendingAnnouncement", "Store", "account_lock_key",
           "alembic_config", "encode_state"]


class LiveTableTaken(RuntimeError):
    """The group's live table belongs to another bot account; nothing was written.

    ``group_id`` is the group, ``account`` the account that owns its row.
    """

    def __init__(self, group_id: str, account: str) -> None:
        super().__init__(f"live table of group {group_id} belongs to account {account}")
        self.group_id = group_id
        self.account = account


@dataclass(slots=True)
class PendingAnnouncement:
    """The end message of a finished game that the group was not (confirmed) sent.

    ``message`` is the JSON form of the message: a list of ``{"type", "data"}`` segments.
    """

    uid: str
    group_id: str
    game: str
    ended_at: datetime
    message: list[dict[str, Any]]


def encode_state(state: dict[str, Any]) -> str:
    """``state`` as the JSON text stored in ``live_tables.state`` (non-ASCII kept).

    Raises:
        TypeError: ``state`` is not JSON-serialisable.
    """
    try:
        return json.dumps(state, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"live state is not JSON-serialisable: {exc}") from exc


def alembic_config(url: str) -> Config:
    """Build an alembic :class:`Config` (no ``alembic.ini``) for the database at ``url``.

    ``script_location`` is :data:`MIGRATIONS_DIR`. Usable directly with
    :mod:`alembic.command` from a thread without a running event loop, e.g.
    ``command.upgrade(alembic_config(url), "head")``.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation: a literal "%" (e.g. in a password) must be doubled.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _check_json(value: Any, what: str) -> None:
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} is not JSON-serialisable: {exc}") from exc


def _validate_finished(record: FinishedGame) -> None:
    for name in ("started_at", "ended_at"):
        value = getattr(record, name)
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"FinishedGame.{name} must be timezone-aware, got {value!r}")
    for player in record.players:
        if player.result not in RESULTS:
            raise ValueError(
                f"player {player.user_id!r}: result must be one of {sorted(RESULTS)}, "
                f"got {player.result!r}"
            )
    _check_json(record.settings, "FinishedGame.settings")
    _check_json(record.summary, "FinishedGame.summary")


async def _uid_exists(session: AsyncSession, uid: str) -> bool:
    found = await session.scalar(select(GameRecord.id).where(GameRecord.uid == uid))
    return found is not None


async def _settle_live(
    session: AsyncSession, group_id: str, live: tuple[str, str] | None,
    account: str | None = None,
) -> None:
    """Delete the group's live row, or replace it with ``live`` = ``(game, state JSON text)``.
    With ``account``, a row of another account raises :class:`LiveTableTaken` (and is
    left alone)."""
    if live is None:
        if not await _delete_live(session, group_id, account):
            owner = await _owner(session, group_id)
            if owner is not None and owner != account:
                raise LiveTableTaken(group_id, owner)
        return
    result = await session.execute(_upsert_statement(session.bind.dialect.name),
                                   _upsert_params(group_id, live[0], live[1], account))
    if result.rowcount == 0:
        raise LiveTableTaken(group_id, await _owner(session, group_id) or "")


async def _owner(session: AsyncSession, group_id: str) -> str | None:
    """The account of the group's live row (``None``: no row, or a row without one)."""
    return await session.scalar(select(LiveTable.account).where(LiveTable.group_id == group_id))


def _upsert_statement(dialect: str) -> Any:
    """One ``INSERT … ON CONFLICT DO UPDATE`` of a live row from already-encoded JSON."""
    state = "CAST(:state AS JSON)" if dialect == "postgresql" else ":state"
    return text(_UPSERT_LIVE.format(state=state)).bindparams(
        bindparam("updated_at", type_=UTCDateTime()))


_FENCED = text(_FENCED_UPSERT_LIVE).bindparams(bindparam("updated_at", type_=UTCDateTime()))


_NOTED = text(_NOTE_EVENT.format(
    source="VALUES (:account, :event_id, :mark, :seen_at)")).bindparams(
    bindparam("seen_at", type_=UTCDateTime()))
_NOTED_FENCED = text(FENCE + _NOTE_EVENT.format(
    source="SELECT :account, :event_id, :mark, :seen_at FROM fence")).bindparams(
    bindparam("seen_at", type_=UTCDateTime()))


_HOT_NOTE = _NOTE_EVENT.format(source="VALUES (?, ?, ?, ?)")
_HOT_PRUNE = ("DELETE FROM seen_events WHERE account = ? AND seen_at < (SELECT seen_at FROM "
              "seen_events WHERE account = ? ORDER BY seen_at DESC LIMIT 1 OFFSET ?)")


async def _prune_seen(session: Any, account: str) -> None:
    """Delete all but the newest :data:`SEEN_KEPT` events of ``account``."""
    cutoff = await session.scalar(
        select(SeenEvent.seen_at).where(SeenEvent.account == account)
        .order_by(SeenEvent.seen_at.desc()).offset(SEEN_KEPT - 1).limit(1))
    if cutoff is not None:
        await session.execute(delete(SeenEvent).where(SeenEvent.account == account,
                                                      SeenEvent.seen_at < cutoff))


def _upsert_params(group_id: str, game: str, state: str, account: str | None) -> dict[str, Any]:
    return {"group_id": group_id, "game": game, "state": state, "updated_at": utcnow(),
            "account": account}


async def _delete_live(session: AsyncSession, group_id: str, account: str | None = None) -> bool:
    """Delete the group's live row (with ``account``: only if it is that account's or has
    none). Returns whether a row was deleted."""
    query = delete(LiveTable).where(LiveTable.group_id == group_id)
    if account is not None:
        query = query.where(or_(LiveTable.account == account, LiveTable.account.is_(None)))
    result = await session.execute(query)
    return bool(result.rowcount)


def _game_row(record: FinishedGame, announcement: list[dict[str, Any]] | None) -> GameRecord:
    return GameRecord(
        announcement=announcement,
        uid=record.uid,
        game=record.game,
        group_id=record.group_id,
        scope=record.scope,
        started_at=record.started_at,
        ended_at=record.ended_at,
        settings=record.settings,
        summary=record.summary,
        players=[
            PlayerRecord(
                group_id=record.group_id,
                game=record.game,
                scope=record.scope,
                user_id=p.user_id,
                seat=p.seat,
                role=p.role,
                place=p.place,
                result=p.result,
                points=p.points,
            )
            for p in record.players
        ],
    )


class Store:
    """Database access for the bot; one instance per process.

    ``url`` is any SQLAlchemy *async* URL, e.g. ``"sqlite+aiosqlite:///data/paizhuo.db"``
    or ``"postgresql+asyncpg://user:pw@host/db"``. Call :meth:`migrate` once before use
    and :meth:`close` on shutdown. All methods are coroutines safe to call concurrently
    from one event loop; each runs in its own transaction.

    ``busy_timeout`` (seconds, SQLite only) is how long a write waits for another
    process's write lock before it fails with ``database is locked``; within this process
    SQLite writes take turns on an :class:`asyncio.Lock` (each is one short transaction),
    and reads never wait for the write lock. For a SQLite file on aiosqlite the per-move
    save (:meth:`save_live_text`) runs on a dedicated connection of its own as one
    autocommit statement (same PRAGMAs); everything else goes through SQLAlchemy.

    Raises (constructor): :class:`sqlalchemy.exc.ArgumentError` for an unparsable URL,
    :class:`ModuleNotFoundError` when the URL's driver is not installed.
    """

    def __init__(self, url: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.url = url
        self.busy_timeout = busy_timeout
        self._engine = make_engine(url, busy_timeout=busy_timeout)
        self._sqlite = is_sqlite(url)
        self._sessions = async_sessionmaker(self._engine, expire_on_commit=False)
        readers = self._engine.execution_options(**{READ_ONLY: True}) if self._sqlite else self._engine
        self._reads = async_sessionmaker(readers, expire_on_commit=False)
        self._write_lock = asyncio.Lock() if self._sqlite else None
        self._upsert = _upsert_statement(self._engine.dialect.name)
        self._hot: Any = None
        self._settings: dict[tuple[str, str], dict[str, Any]] | None = {} if self._sqlite else None
        self._hot_args: tuple[list[Any], dict[str, Any]] | None = None
        self._accounts: AccountHolds | None = None
        self.on_account_lost: Callable[[str, str], None] | None = None
        """Called as ``(account, reason)`` once a held account is found lost: its lock's
        session ended, or a write of its tables was refused under another process's newer
        epoch (PostgreSQL; see ``paizhuo_db.holds``). The hold is dropped already."""
        self._noted: dict[str, int] = {}
        parsed = make_url(url)
        database = parsed.database or ""
        if (parsed.get_driver_name() == "aiosqlite" and database and database != ":memory:"
                and "mode=memory" not in database and parsed.query.get("mode") != "memory"):
            args, kwargs = self._engine.dialect.create_connect_args(parsed)
            self._hot_args = (list(args), dict(kwargs))

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[AsyncSession]:
        """One write transaction (taking this process's SQLite write turn)."""
        lock = self._write_lock or contextlib.nullcontext()
        async with lock, self._sessions.begin() as session:
            yield session

    @property
    def engine(self) -> AsyncEngine:
        """The underlying :class:`AsyncEngine` (for tests and ad-hoc queries)."""
        return self._engine

    async def migrate(self) -> None:
        """Upgrade the schema to the newest alembic revision (idempotent).

        For a SQLite file the parent directory is created first. Runs on this store's
        own engine via ``run_sync``, so it is safe inside a running event loop.

        Raises:
            sqlalchemy.exc.SQLAlchemyError / alembic.util.CommandError on failure.
        """
        url = make_url(self.url)
        database = url.database
        if (
            url.get_backend_name() == "sqlite"
            and database
            and database != ":memory:"
            and not database.startswith("file:")
        ):
            Path(database).parent.mkdir(parents=True, exist_ok=True)

        config = alembic_config(self.url)

        def upgrade(connection: Connection) -> None:
            if connection.dialect.name == "postgresql":
                # Several bot processes may start at once on one database: one migrates,
                # the others wait for it (the lock ends with this transaction).
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATE_LOCK})")
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

        async with self._engine.begin() as connection:
            await connection.run_sync(upgrade)

    async def hold_account(self, account: str) -> bool:
        """Take the bot account for this process (one process serves an account's tables
        at a time). PostgreSQL: ``pg_try_advisory_lock`` of :func:`account_lock_key` on a
        connection of its own (autocommit, outside the pool), kept open until
        :meth:`release_account` or :meth:`close` (or until this process dies: the server
        ends the session and frees the lock), and a new epoch for the account: the token
        (:meth:`account_token`) its writes carry from now on. The lock's connection is
        watched: when the server ends its session (or the lock is otherwise found gone),
        the hold is dropped and :attr:`on_account_lost` is called (``paizhuo_db.holds``).
        SQLite: the file is this process's alone (``src/nonebot_plugin_paizhuo/guard.py``
        locks it), so always ``True``. Returns whether this process holds the account
        (``True`` again when it already does); ``False`` while another process holds it.

        Raises:
            sqlalchemy.exc.SQLAlchemyError / OSError: the server cannot be reached.
        """
        if self._sqlite:
            return True
        if self._accounts is None:
            self._accounts = AccountHolds(self.url, self._lost)
        return await self._accounts.take(account)

    def _lost(self, account: str, reason: str) -> None:
        if self.on_account_lost is not None:
            self.on_account_lost(account, reason)

    def account_token(self, account: str | None) -> int | None:
        """The token (epoch) of this process's hold of ``account`` (PostgreSQL), ``None``
        when it does not hold it — and always on SQLite, whose writes need none."""
        if account is None or self._accounts is None:
            return None
        return self._accounts.token(account)

    def _fenced(self, account: str | None, token: int | None) -> bool:
        """Whether a write of ``account``'s tables under ``token`` is checked against the
        account's epoch (PostgreSQL, with a token)."""
        return not self._sqlite and account is not None and token is not None

    def _refused(self, account: str, token: int, err: AccountLost) -> AccountLost:
        """A write under ``token`` was fenced out: when that is this process's current
        hold, the hold is lost (dropped and reported); a write under an older token (made
        before the account was taken again) says nothing of the current one."""
        if self._accounts is not None and self._accounts.token(account) == token:
            self._accounts.lose(account, err.reason)
        return err

    async def release_account(self, account: str) -> None:
        """Let the bot account go (see :meth:`hold_account`); nothing when not held. A
        failure (the server gone) is ignored: the lock ended with the session."""
        if self._accounts is not None:
            await self._accounts.release(account)

    def holds(self) -> set[str]:
        """The accounts this process holds (PostgreSQL; empty for SQLite)."""
        return self._accounts.held() if self._accounts is not None else set()

    async def close(self) -> None:
        """Dispose of the connection pool. The store must not be used afterwards."""
        if self._accounts is not None:
            await self._accounts.close()
            self._accounts = None
        if self._hot is not None:
            hot, self._hot = self._hot, None
            await hot.close()
        await self._engine.dispose()

    async def hot_connection(self) -> Any:
        """The :class:`~paizhuo_db.hot.HotSaver` of :meth:`save_live_text` on a SQLite file (its
        own ``sqlite3`` connection, opened on first use with the engine's PRAGMAs), or
        ``None`` when this store saves through SQLAlchemy (not a SQLite file)."""
        if self._hot is None and self._hot_args is not None:
            args, kwargs = self._hot_args
            self._hot = HotSaver(args, kwargs, sqlite_pragmas(self.busy_timeout),
                                 _HOT_UPSERT, _HOT_OWNER)
        return self._hot

    async def save_live(
        self, group_id: str, game: str, state: dict[str, Any], account: str | None = None,
        token: int | None = None,
    ) -> None:
        """Insert or replace the live state of ``group_id``'s current game.

        ``state`` must be JSON-serialisable; it round-trips as JSON (tuples come back as
        lists, non-string keys as strings). ``account`` (a bot's QQ number) scopes the
        write: the row is saved as that account's, and a row that belongs to another
        account is left alone. Without ``account`` the row's account is kept. ``token``
        (PostgreSQL, with ``account``): the hold the write is made under
        (:meth:`account_token`); refused once another process took the account.

        Raises:
            TypeError: ``state`` is not JSON-serialisable (nothing is written).
            LiveTableTaken: the group's row belongs to another account (same).
            AccountLost: ``token`` is no longer the account's epoch (same).
            sqlalchemy.exc.SQLAlchemyError: the write failed (nothing is written).
        """
        await self.save_live_text(group_id, game, encode_state(state), account, token)

    async def save_live_text(
        self, group_id: str, game: str, state: str, account: str | None = None,
        token: int | None = None,
    ) -> None:
        """:meth:`save_live` for a state already encoded as JSON text (see
        :func:`encode_state`): one ``INSERT … ON CONFLICT DO UPDATE`` statement, its own
        transaction (the per-move save), scoped by ``account`` as in :meth:`save_live`
        (the statement's ``WHERE`` leaves another account's row alone; its changed-row
        count tells) and, on PostgreSQL with a ``token``, fenced (it writes nothing unless
        the token is the account's epoch, ``paizhuo_db.holds``).

        Raises:
            LiveTableTaken: the group's row belongs to another account (nothing written).
            AccountLost: ``token`` is no longer the account's epoch (nothing written; this
                process's hold is dropped when it was that one).
            sqlite3.Error: the write failed on the dedicated SQLite connection, or
            sqlalchemy.exc.SQLAlchemyError: it failed through SQLAlchemy (nothing is
                written either way).
        """
        hot = await self.hot_connection()
        if hot is not None:  # group commit with the other tables' saves (src/paizhuo_db/hot.py)
            when = utcnow().replace(tzinfo=None).strftime(_SQLITE_TIME)
            owner = await hot.save((group_id, game, state, when, account))
            if owner is not None:
                raise LiveTableTaken(group_id, owner)
            return
        fenced = self._fenced(account, token)
        params = _upsert_params(group_id, game, state, account)
        if fenced:
            params["token"] = token
        lock = self._write_lock or contextlib.nullcontext()
        async with lock, self._engine.begin() as conn:
            result = await conn.execute(_FENCED if fenced else self._upsert, params)
            if result.rowcount == 0:
                if fenced:
                    try:
                        await check_fence(conn, account, token)  # type: ignore[arg-type]
                    except AccountLost as err:
                        raise self._refused(account, token, err) from None  # type: ignore[arg-type]
                owner = await conn.scalar(
                    select(LiveTable.account).where(LiveTable.group_id == group_id))
                raise LiveTableTaken(group_id, owner or "")

    async def delete_live(self, group_id: str, account: str | None = None,
                          token: int | None = None) -> None:
        """Delete the live state of ``group_id``; no error when there is none. With
        ``account``, a row of another account is kept; with a ``token`` (PostgreSQL),
        fenced as :meth:`save_live_text` (raises :class:`AccountLost`, nothing deleted)."""
        async with self._writing() as session:
            await self._fence(session, account, token)
            await _delete_live(session, group_id, account)

    async def _fence(self, session: AsyncSession, account: str | None,
                     token: int | None) -> None:
        """In a write transaction: :func:`~paizhuo_db.holds.check_fence` when the write is
        fenced (:meth:`_fenced`)."""
        if self._fenced(account, token):
            try:
                await check_fence(session, account, token)  # type: ignore[arg-type]
            except AccountLost as err:
                raise self._refused(account, token, err) from None  # type: ignore[arg-type]

    async def load_live(self, account: str | None = None) -> dict[str, tuple[str, dict[str, Any]]]:
        """Return the live tables as ``{group_id: (game, state)}``: every one, or with
        ``account`` only that account's."""
        query = select(LiveTable.group_id, LiveTable.game, LiveTable.state)
        if account is not None:
            query = query.where(LiveTable.account == account)
        async with self._reads() as session:
            rows = await session.execute(query)
            return {group_id: (game, state) for group_id, game, state in rows}

    async def load_live_groups(self) -> list[str]:
        """The group ids of every live table, sorted."""
        async with self._reads() as session:
            return sorted(await session.scalars(select(LiveTable.group_id)))

    async def live_owners(self, group_ids: Iterable[str]) -> dict[str, str | None]:
        """``{group_id: account}`` for those of ``group_ids`` that have a live table
        (``None``: a row without an account); groups without a table are left out."""
        ids = list(dict.fromkeys(group_ids))
        if not ids:
            return {}
        async with self._reads() as session:
            rows = await session.execute(
                select(LiveTable.group_id, LiveTable.account).where(LiveTable.group_id.in_(ids))
            )
            return {group_id: account for group_id, account in rows}

    @property
    def exclusive(self) -> bool:
        """Whether one process at a time uses this database: a SQLite file (the bot holds
        a lock file beside it, ``src/nonebot_plugin_paizhuo/guard.py``). Then every live table this
        process did not load was already in the database when the process started."""
        return self._sqlite

    async def unowned_live(self) -> list[str]:
        """Group ids of the live tables without an account, sorted."""
        async with self._reads() as session:
            rows = await session.scalars(
                select(LiveTable.group_id).where(LiveTable.account.is_(None))
            )
            return sorted(rows)

    async def claim_live(self, account: str, group_ids: Iterable[str] | None = None) -> list[str]:
        """Give ``account`` the live tables that have no account (rows saved before
        accounts were recorded): those in ``group_ids``, or all of them when ``None``.
        Atomic: of two accounts (or processes) claiming at once, each row goes to one.
        Returns the group ids claimed, sorted."""
        wanted = None if group_ids is None else set(group_ids)
        async with self._writing() as session:
            unowned = (await session.scalars(
                select(LiveTable.group_id).where(LiveTable.account.is_(None)).with_for_update()
            )).all()
            chosen = sorted(g for g in unowned if wanted is None or g in wanted)
            if chosen:
                await session.execute(
                    update(LiveTable)
                    .where(LiveTable.group_id.in_(chosen), LiveTable.account.is_(None))
                    .values(account=account)
                )
            return chosen

    async def finish_game(
        self,
        record: FinishedGame,
        live: tuple[str, dict[str, Any] | str] | None = None,
        announcement: list[dict[str, Any]] | None = None,
        account: str | None = None,
        token: int | None = None,
    ) -> bool:
        """Archive a finished game and drop its group's live table, atomically.

        In one transaction: insert the game and player rows, and delete the
        ``live_tables`` row of ``record.group_id`` — or, when ``live`` is given as
        ``(game, state)``, replace it with that state (a table that stays open for the
        next game; the state may be given already encoded, see :func:`encode_state`).
        ``announcement`` is the game's end message as JSON (a list of
        ``{"type", "data"}`` segments), kept until :meth:`mark_announced`. If a game with
        ``record.uid`` is already archived nothing new is written, the live row is still
        deleted (or replaced), and False is returned. ``account`` scopes the live row
        as in :meth:`save_live`, ``token`` fences the whole transaction as there.

        Returns:
            True when the game was written, False when ``record.uid`` already existed.

        Raises:
            ValueError: naive ``started_at``/``ended_at`` or a player result outside
                ``"win"/"draw"/"loss"`` (nothing is written or deleted).
            TypeError: ``settings``/``summary`` not JSON-serialisable (same).
            sqlalchemy.exc.IntegrityError: another constraint failed (transaction
                rolled back, live row kept).
            LiveTableTaken: the group's row belongs to another account (same).
            AccountLost: ``token`` is no longer the account's epoch (same).
        """
        _validate_finished(record)
        _check_json(announcement, "announcement")
        settled = None
        if live is not None:
            state = live[1]
            settled = (live[0], state if isinstance(state, str) else encode_state(state))
        try:
            async with self._writing() as session:
                await self._fence(session, account, token)
                if await _uid_exists(session, record.uid):
                    await _settle_live(session, record.group_id, settled, account)
                    return False
                session.add(_game_row(record, announcement))
                await session.flush()
                await _settle_live(session, record.group_id, settled, account)
            return True
        except IntegrityError:
            # Lost a race against a concurrent finish_game of the same uid?
            async with self._writing() as session:
                await self._fence(session, account, token)
                if not await _uid_exists(session, record.uid):
                    raise
                await _settle_live(session, record.group_id, settled, account)
            return False

    async def pending_announcements(self, group_id: str | None = None) -> list[PendingAnnouncement]:
        """Finished games whose end message was stored and not marked announced, oldest
        first (of one group, or of all groups when ``group_id`` is ``None``)."""
        query = (
            select(GameRecord.uid, GameRecord.group_id, GameRecord.game, GameRecord.ended_at,
                   GameRecord.announcement)
            .where(GameRecord.announcement.is_not(None), GameRecord.announced_at.is_(None))
            .order_by(GameRecord.ended_at, GameRecord.id)
        )
        if group_id is not None:
            query = query.where(GameRecord.group_id == group_id)
        async with self._reads() as session:
            rows = (await session.execute(query)).all()
        return [PendingAnnouncement(uid, gid, game, ended, list(message))
                for uid, gid, game, ended, message in rows]

    async def seen_events(self, account: str, limit: int = SEEN_KEPT) -> dict[str, str]:
        """The events ``account`` handled most recently (:meth:`note_event`), at most
        ``limit``: ``{event_id: mark}``, oldest first."""
        query = (select(SeenEvent.event_id, SeenEvent.mark)
                 .where(SeenEvent.account == account)
                 .order_by(SeenEvent.seen_at.desc()).limit(limit))
        async with self._reads() as session:
            rows = (await session.execute(query)).all()
        return {event_id: mark for event_id, mark in reversed(rows)}

    async def note_event(self, account: str, event_id: str, mark: str,
                         token: int | None = None) -> None:
        """Record that ``account`` handles the event ``event_id`` (``mark``: a digest of
        what it says, for an id used again by another event), replacing an older record
        of the id; the newest :data:`SEEN_KEPT` of each account are kept. With a
        ``token`` (PostgreSQL), fenced as :meth:`save_live_text`: an account another
        process took handles no event here.

        Raises:
            AccountLost: ``token`` is no longer the account's epoch (nothing written).
            sqlalchemy.exc.SQLAlchemyError: the write failed.
        """
        now = utcnow()
        count = self._noted.get(account, 0) + 1
        self._noted[account] = count
        prune = count % SEEN_PRUNE_EVERY == 0
        hot = await self.hot_connection()
        if hot is not None:  # a SQLite file: on the per-move save's own connection, at once
            await hot.run(_HOT_NOTE, (account, event_id, mark,
                                      now.replace(tzinfo=None).strftime(_SQLITE_TIME)))
            if prune:
                await hot.run(_HOT_PRUNE, (account, account, SEEN_KEPT - 1))
            return
        params = {"account": account, "event_id": event_id, "mark": mark, "seen_at": now}
        fenced = self._fenced(account, token)
        if fenced:
            params["token"] = token
        lock = self._write_lock or contextlib.nullcontext()
        async with lock, self._engine.begin() as conn:
            result = await conn.execute(_NOTED_FENCED if fenced else _NOTED, params)
            if fenced and result.rowcount == 0:
                try:
                    await check_fence(conn, account, token)  # type: ignore[arg-type]
                except AccountLost as err:
                    raise self._refused(account, token, err) from None  # type: ignore[arg-type]
            if prune:
                await _prune_seen(conn, account)

    async def announcement_pending(self, uid: str) -> bool:
        """Whether game ``uid`` has an end message stored and not marked announced (read
        now: a list from :meth:`pending_announcements` may be out of date)."""
        query = select(GameRecord.id).where(GameRecord.uid == uid,
                                            GameRecord.announcement.is_not(None),
                                            GameRecord.announced_at.is_(None))
        async with self._reads() as session:
            return await session.scalar(query) is not None

    async def mark_announced(self, uid: str) -> None:
        """Record that the end message of game ``uid`` was sent to its group."""
        async with self._writing() as session:
            await session.execute(
                update(GameRecord).where(GameRecord.uid == uid).values(announced_at=utcnow()))

    async def get_settings(self, group_id: str, game: str) -> dict[str, Any]:
        """The stored rule settings of ``game`` in ``group_id`` (``{}`` when none). With an
        exclusive database (:attr:`exclusive`) they are read once and then kept in memory
        (:meth:`set_settings` is the only writer)."""
        key = (group_id, game)
        if self._settings is not None and key in self._settings:
            return dict(self._settings[key])
        async with self._reads() as session:
            row = await session.get(GroupSetting, key)
            values = dict(row.values) if row is not None else {}
        if self._settings is not None:
            self._settings[key] = dict(values)
        return values

    def forget_cached(self) -> None:
        """Drop what :meth:`get_settings` keeps in memory (after the database was changed
        other than through this store, e.g. by hand)."""
        if self._settings is not None:
            self._settings.clear()

    async def set_settings(self, group_id: str, game: str, values: dict[str, Any]) -> None:
        """Store ``values`` as the rule settings of ``game`` in ``group_id``; an empty
        dict removes them (the group plays the defaults).

        Raises:
            TypeError: ``values`` is not JSON-serialisable (nothing is written).
        """
        _check_json(values, "settings")
        if self._settings is not None:
            self._settings.pop((group_id, game), None)  # read again after this write
        async with self._writing() as session:
            row = await session.get(GroupSetting, (group_id, game))
            if not values:
                if row is not None:
                    await session.delete(row)
            elif row is None:
                session.add(GroupSetting(group_id=group_id, game=game, values=values,
                                         updated_at=utcnow()))
            else:
                row.values = values
                row.updated_at = utcnow()

    async def player_stats(self, group_id: str, user_id: str,
                           scope: str = QQ_SCOPE) -> list[GameStats]:
        """Per game type, the results of the person (``scope``, ``user_id``) in
        ``group_id``.

        Returns:
            One :class:`GameStats` per game type the user finished in this group,
            sorted by game name (Unicode code point order); empty if none.
        """

        def count(result: str) -> Any:
            return func.coalesce(func.sum(case((PlayerRecord.result == result, 1), else_=0)), 0)

        query = (
            select(
                PlayerRecord.game,
                func.count(),
                count("win"),
                count("draw"),
                count("loss"),
                func.coalesce(func.sum(PlayerRecord.points), 0),
            )
            .where(PlayerRecord.group_id == group_id, PlayerRecord.user_id == user_id,
                   PlayerRecord.scope == scope)
            .group_by(PlayerRecord.game)
        )
        async with self._reads() as session:
            rows = (await session.execute(query)).all()
        stats = [
            GameStats(
                game=game,
                games=int(games),
                wins=int(wins),
                draws=int(draws),
                losses=int(losses),
                points=int(points),
            )
            for game, games, wins, draws, losses, points in rows
        ]
        stats.sort(key=lambda s: s.game)
        return stats
