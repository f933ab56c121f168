"""Async persistence API of the 牌桌 bot (live tables, finished games, stats)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, case, delete, func, or_, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.engine import make_engine
from db.models import GameRecord, GroupSetting, LiveTable, PlayerRecord, utcnow
from db.records import RESULTS, FinishedGame, GameStats

MIGRATIONS_DIR: Path = Path(__file__).resolve().parent / "migrations"
"""Absolute path of the alembic script directory."""

_SAVE_ATTEMPTS = 3
_MIGRATE_LOCK = 72_617_001
"""PostgreSQL advisory lock key held while migrating."""


class LiveTableTaken(RuntimeError):
    """The group's live table belongs to another bot account; nothing was written.

    ``group_id`` is the group, ``account`` the account that owns its row.
    """

    def __init__(self, group_id: str, account: str) -> None:
        super().__init__(f"live table of group {group_id} belongs to account {account}")
        self.group_id = group_id
        self.account = account


def _owned(row: LiveTable, account: str | None) -> bool:
    """Whether ``account`` may write ``row``: no account given (unscoped caller), the
    row's own account, or a row without an account (saved before accounts existed)."""
    return account is None or row.account is None or row.account == account


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
    session: AsyncSession, group_id: str, live: tuple[str, dict[str, Any]] | None,
    account: str | None = None,
) -> None:
    """Delete the group's live row, or replace it with ``live`` = ``(game, state)``.
    With ``account``, a row of another account raises :class:`LiveTableTaken`."""
    row = await session.get(LiveTable, group_id, with_for_update=True)
    if row is not None and not _owned(row, account):
        raise LiveTableTaken(group_id, row.account or "")
    if live is None:
        await _delete_live(session, group_id)
        return
    if row is None:
        session.add(LiveTable(group_id=group_id, game=live[0], state=live[1], updated_at=utcnow(),
                              account=account))
    else:
        row.game, row.state, row.updated_at = live[0], live[1], utcnow()
        if account is not None:
            row.account = account


async def _delete_live(session: AsyncSession, group_id: str, account: str | None = None) -> None:
    query = delete(LiveTable).where(LiveTable.group_id == group_id)
    if account is not None:
        query = query.where(or_(LiveTable.account == account, LiveTable.account.is_(None)))
    await session.execute(query)


def _game_row(record: FinishedGame) -> GameRecord:
    return GameRecord(
        uid=record.uid,
        game=record.game,
        group_id=record.group_id,
        started_at=record.started_at,
        ended_at=record.ended_at,
        settings=record.settings,
        summary=record.summary,
        players=[
            PlayerRecord(
                group_id=record.group_id,
                game=record.game,
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

    Raises (constructor): :class:`sqlalchemy.exc.ArgumentError` for an unparsable URL,
    :class:`ModuleNotFoundError` when the URL's driver is not installed.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine = make_engine(url)
        self._sessions = async_sessionmaker(self._engine, expire_on_commit=False)

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

    async def close(self) -> None:
        """Dispose of the connection pool. The store must not be used afterwards."""
        await self._engine.dispose()

    async def save_live(
        self, group_id: str, game: str, state: dict[str, Any], account: str | None = None
    ) -> None:
        """Insert or replace the live state of ``group_id``'s current game.

        ``state`` must be JSON-serialisable; it round-trips as JSON (tuples come back as
        lists, non-string keys as strings). ``account`` (a bot's QQ number) scopes the
        write: the row is saved as that account's, and a row that belongs to another
        account is left alone. Without ``account`` the row's account is kept.

        Raises:
            TypeError: ``state`` is not JSON-serialisable (nothing is written).
            LiveTableTaken: the group's row belongs to another account (same).
        """
        _check_json(state, "live state")
        for attempt in range(_SAVE_ATTEMPTS):
            try:
                async with self._sessions.begin() as session:
                    row = await session.get(LiveTable, group_id, with_for_update=True)
                    if row is None:
                        session.add(
                            LiveTable(
                                group_id=group_id, game=game, state=state, updated_at=utcnow(),
                                account=account,
                            )
                        )
                    else:
                        if not _owned(row, account):
                            raise LiveTableTaken(group_id, row.account or "")
                        row.game = game
                        row.state = state
                        row.updated_at = utcnow()
                        if account is not None:
                            row.account = account
                return
            except IntegrityError:
                # A concurrent save inserted the same group first; retry as an update.
                if attempt == _SAVE_ATTEMPTS - 1:
                    raise

    async def delete_live(self, group_id: str, account: str | None = None) -> None:
        """Delete the live state of ``group_id``; no error when there is none. With
        ``account``, a row of another account is kept."""
        async with self._sessions.begin() as session:
            await _delete_live(session, group_id, account)

    async def load_live(self, account: str | None = None) -> dict[str, tuple[str, dict[str, Any]]]:
        """Return the live tables as ``{group_id: (game, state)}``: every one, or with
        ``account`` only that account's."""
        query = select(LiveTable.group_id, LiveTable.game, LiveTable.state)
        if account is not None:
            query = query.where(LiveTable.account == account)
        async with self._sessions() as session:
            rows = await session.execute(query)
            return {group_id: (game, state) for group_id, game, state in rows}

    async def live_owners(self, group_ids: Iterable[str]) -> dict[str, str | None]:
        """``{group_id: account}`` for those of ``group_ids`` that have a live table
        (``None``: a row without an account); groups without a table are left out."""
        ids = list(dict.fromkeys(group_ids))
        if not ids:
            return {}
        async with self._sessions() as session:
            rows = await session.execute(
                select(LiveTable.group_id, LiveTable.account).where(LiveTable.group_id.in_(ids))
            )
            return {group_id: account for group_id, account in rows}

    async def unowned_live(self) -> list[str]:
        """Group ids of the live tables without an account, sorted."""
        async with self._sessions() as session:
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
        async with self._sessions.begin() as session:
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
        self, record: FinishedGame, live: tuple[str, dict[str, Any]] | None = None,
        account: str | None = None,
    ) -> bool:
        """Archive a finished game and drop its group's live table, atomically.

        In one transaction: insert the game and player rows, and delete the
        ``live_tables`` row of ``record.group_id`` — or, when ``live`` is given as
        ``(game, state)``, replace it with that state (a table that stays open for the
        next game). If a game with ``record.uid`` is
        already archived nothing new is written, the live row is still deleted, and
        False is returned. ``account`` scopes the live row as in :meth:`save_live`.

        Returns:
            True when the game was written, False when ``record.uid`` already existed.

        Raises:
            ValueError: naive ``started_at``/``ended_at`` or a player result outside
                ``"win"/"draw"/"loss"`` (nothing is written or deleted).
            TypeError: ``settings``/``summary`` not JSON-serialisable (same).
            sqlalchemy.exc.IntegrityError: another constraint failed (transaction
                rolled back, live row kept).
            LiveTableTaken: the group's row belongs to another account (same).
        """
        _validate_finished(record)
        if live is not None:
            _check_json(live[1], "live state")
        try:
            async with self._sessions.begin() as session:
                if await _uid_exists(session, record.uid):
                    await _settle_live(session, record.group_id, live, account)
                    return False
                session.add(_game_row(record))
                await session.flush()
                await _settle_live(session, record.group_id, live, account)
            return True
        except IntegrityError:
            # Lost a race against a concurrent finish_game of the same uid?
            async with self._sessions.begin() as session:
                if not await _uid_exists(session, record.uid):
                    raise
                await _settle_live(session, record.group_id, live, account)
            return False

    async def get_settings(self, group_id: str, game: str) -> dict[str, Any]:
        """The stored rule settings of ``game`` in ``group_id`` (``{}`` when none)."""
        async with self._sessions() as session:
            row = await session.get(GroupSetting, (group_id, game))
            return dict(row.values) if row is not None else {}

    async def set_settings(self, group_id: str, game: str, values: dict[str, Any]) -> None:
        """Store ``values`` as the rule settings of ``game`` in ``group_id``; an empty
        dict removes them (the group plays the defaults).

        Raises:
            TypeError: ``values`` is not JSON-serialisable (nothing is written).
        """
        _check_json(values, "settings")
        async with self._sessions.begin() as session:
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

    async def player_stats(self, group_id: str, user_id: str) -> list[GameStats]:
        """Per game type, the results of ``user_id`` in ``group_id``.

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
            .where(PlayerRecord.group_id == group_id, PlayerRecord.user_id == user_id)
            .group_by(PlayerRecord.game)
        )
        async with self._sessions() as session:
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
