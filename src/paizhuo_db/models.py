"""SQLAlchemy ORM models of the 牌桌 bot database.

Tables:

* ``live_tables``: one row per group with a game in progress (crash recovery).
* ``game_records``: one row per finished game, unique by ``uid``, with its end message
  (``announcement``) until the group was sent it (``announced_at``).
* ``group_settings``: a group's rule settings per game.
* ``player_records``: one row per seat of a finished game; ``group_id``, ``game`` and
  ``ended_at`` are copied from the game so per-user stats and leaderboards need no join.
* ``account_holds``: each bot account's epoch, raised by every process that takes the
  account (PostgreSQL; the token that fences out a process that lost it, ``holds.py``).
* ``seen_events``: the ids of the events each bot account handled recently (a delivery
  of one of them again, after a restart too, is not handled twice).

A game record gets its number in its group (``group_seq``, 第 N 局) and its players their
``ended_at`` when they are inserted, in the same transaction (see the ``before_insert``
listeners at the end).

The schema itself is created by the alembic migrations in ``src/paizhuo_db/migrations``; keep both
in sync (``tests/db`` checks that autogenerate finds no difference).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Connection,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    TypeDecorator,
    event,
    func,
    select,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Mapper, mapped_column, relationship

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint naming convention (stable names make SQLite batch migrations possible)."""

_NAIVE_DIALECTS = frozenset({"sqlite", "mysql", "mariadb"})


def utcnow() -> datetime:
    """Current time as a timezone-aware UTC :class:`datetime`."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A ``DateTime(timezone=True)`` that always round-trips aware UTC datetimes.

    Binding a naive datetime raises :class:`ValueError` (wrapped by SQLAlchemy in
    :class:`sqlalchemy.exc.StatementError`). Backends without time zone support
    (SQLite, MySQL) store naive UTC; values read back are always aware UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: pass a timezone-aware datetime")
        value = value.astimezone(UTC)
        if dialect.name in _NAIVE_DIALECTS:
            value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


QQ_SCOPE = "QQClient"
"""The identity scope of QQ numbers (OneBot v11, Milky, Satori on QQ): a person is
(``scope``, ``user_id``); every row written before revision 0007 is of this scope."""


class Base(DeclarativeBase):
    """Declarative base; ``Base.metadata`` is the alembic ``target_metadata``."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
    }


class LiveTable(Base):
    """State of a game in progress in one group, saved after every move.

    Columns: ``group_id`` (pk), ``game`` (e.g. ``"抓特务"``), ``state`` (JSON dict),
    ``updated_at`` (aware UTC, set on insert and update), ``account`` (the bot account,
    QQ number as text, that owns the table; ``NULL`` for rows saved before accounts were
    recorded).
    """

    __tablename__ = "live_tables"

    group_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    state: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    account: Mapped[str | None] = mapped_column(String(32), index=True, default=None)


class GroupSetting(Base):
    """A group's rule settings for one game (``values``: field → value, JSON); a group
    without a row plays the defaults."""

    __tablename__ = "group_settings"

    group_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    values: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class GameRecord(Base):
    """One finished game. ``uid`` is unique so the same game is never archived twice;
    ``group_seq`` numbers the games of a group from 1 (第 N 局, unique per group). A void
    game (closed with /结束 while in play) has ``summary["void"]`` true and no players.

    ``announcement`` is the game's end message (a JSON list of OneBot message segments
    ``{"type", "data"}``), written in the same transaction as the record; ``announced_at``
    is set once the group was sent it. A record with an announcement and no
    ``announced_at`` is announced when the bot (re)connects. Both are NULL for records
    written before revision 0003.
    """

    __tablename__ = "game_records"
    __table_args__ = (Index("ix_game_records_group_id_group_seq", "group_id", "group_seq",
                            unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uid: Mapped[str] = mapped_column(String(128), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    group_id: Mapped[str] = mapped_column(String(64), index=True)
    scope: Mapped[str] = mapped_column(String(32), default=QQ_SCOPE, server_default=QQ_SCOPE)
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime]
    settings: Mapped[dict[str, Any]]
    summary: Mapped[dict[str, Any]]
    group_seq: Mapped[int | None]
    announcement: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    announced_at: Mapped[datetime | None]

    players: Mapped[list[PlayerRecord]] = relationship(
        back_populates="game_record",
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="selectin",
        order_by="PlayerRecord.seat",
    )


class PlayerRecord(Base):
    """One seat of a finished game (``group_id`` / ``game`` / ``scope`` / ``ended_at``
    copied for fast stats; ``ix_player_records_board`` covers the leaderboard query). The
    person is (``scope``, ``user_id``)."""

    __tablename__ = "player_records"
    __table_args__ = (
        Index("ix_player_records_group_id_user_id", "group_id", "user_id"),
        Index("ix_player_records_board", "group_id", "game", "user_id", "ended_at", "result",
              "points"),
        Index("ix_player_records_group_id_user_id_ended_at", "group_id", "user_id", "ended_at"),
        Index("ix_player_records_game_id", "game_id"),
        Index("ix_player_records_scope_group_id_user_id", "scope", "group_id", "user_id"),
        CheckConstraint("result IN ('win', 'draw', 'loss')", name="result"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game_records.id", ondelete="CASCADE"))
    group_id: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(32))
    scope: Mapped[str] = mapped_column(String(32), default=QQ_SCOPE, server_default=QQ_SCOPE)
    user_id: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int]
    role: Mapped[str] = mapped_column(String(32))
    place: Mapped[int | None]
    result: Mapped[str] = mapped_column(String(8))
    points: Mapped[int]
    ended_at: Mapped[datetime | None]

    game_record: Mapped[GameRecord] = relationship(back_populates="players")


class AccountHold(Base):
    """A bot account's epoch (``account``: its id, e.g. a QQ number as text): raised by
    each acquisition of the account by a process (PostgreSQL), the token every write of
    its tables must carry (``paizhuo_db.holds``); ``taken_at`` is the last acquisition."""

    __tablename__ = "account_holds"

    account: Mapped[str] = mapped_column(String(32), primary_key=True)
    epoch: Mapped[int] = mapped_column(BigInteger)
    taken_at: Mapped[datetime]


class SeenEvent(Base):
    """An event a bot account handled (``event_id``: the platform's message id as text;
    ``mark``: a digest of its sender, time and text, since a platform that restarted may
    reuse ids); the newest few thousand per account are kept."""

    __tablename__ = "seen_events"
    __table_args__ = (Index("ix_seen_events_account_seen_at", "account", "seen_at"),)

    account: Mapped[str] = mapped_column(String(32), primary_key=True)
    event_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    mark: Mapped[str] = mapped_column(String(32))
    seen_at: Mapped[datetime]


@event.listens_for(GameRecord, "before_insert")
def _number_game(_mapper: Mapper, connection: Connection, target: GameRecord) -> None:
    """Give a new game the next number in its group (1 for the first), inside the
    inserting transaction (SQLite's ``BEGIN IMMEDIATE`` serialises writers; elsewhere the
    unique index refuses a duplicate)."""
    if target.group_seq is None:
        last = connection.scalar(select(func.max(GameRecord.group_seq))
                                 .where(GameRecord.group_id == target.group_id))
        target.group_seq = (last or 0) + 1


@event.listens_for(PlayerRecord, "before_insert")
def _copy_end_time(_mapper: Mapper, _connection: Connection, target: PlayerRecord) -> None:
    """A seat's ``ended_at`` is its game's."""
    if target.ended_at is None and target.game_record is not None:
        target.ended_at = target.game_record.ended_at
