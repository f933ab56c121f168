"""SQLAlchemy ORM models of the 牌桌 bot database.

Tables:

* ``live_tables``: one row per group with a game in progress (crash recovery).
* ``game_records``: one row per finished game, unique by ``uid``.
* ``group_settings``: a group's rule settings per game.
* ``player_records``: one row per seat of a finished game; ``group_id`` and ``game`` are
  copied from the game so per-user stats need no join.

The schema itself is created by the alembic migrations in ``db/migrations``; keep both
in sync (``tests/db`` checks that autogenerate finds no difference).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

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
    """One finished game. ``uid`` is unique so the same game is never archived twice."""

    __tablename__ = "game_records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uid: Mapped[str] = mapped_column(String(128), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    group_id: Mapped[str] = mapped_column(String(64), index=True)
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime]
    settings: Mapped[dict[str, Any]]
    summary: Mapped[dict[str, Any]]

    players: Mapped[list[PlayerRecord]] = relationship(
        back_populates="game_record",
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="selectin",
        order_by="PlayerRecord.seat",
    )


class PlayerRecord(Base):
    """One seat of a finished game (``group_id`` / ``game`` copied for fast stats)."""

    __tablename__ = "player_records"
    __table_args__ = (
        Index("ix_player_records_group_id_user_id", "group_id", "user_id"),
        CheckConstraint("result IN ('win', 'draw', 'loss')", name="result"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game_records.id", ondelete="CASCADE"))
    group_id: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int]
    role: Mapped[str] = mapped_column(String(32))
    place: Mapped[int | None]
    result: Mapped[str] = mapped_column(String(8))
    points: Mapped[int]

    game_record: Mapped[GameRecord] = relationship(back_populates="players")
