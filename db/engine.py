"""Async engine factory shared by :class:`db.store.Store` and the alembic ``env.py``."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


def _json_dumps(value: Any) -> str:
    """Serialise JSON keeping non-ASCII text (e.g. Chinese) readable in the file."""
    return json.dumps(value, ensure_ascii=False)


def is_sqlite(url: str | URL) -> bool:
    """Return True when ``url`` points at a SQLite database (any driver)."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str | URL, **kwargs: Any) -> AsyncEngine:
    """Create an :class:`AsyncEngine` for ``url`` (an async driver URL).

    For SQLite the engine is set up so that:

    * every new connection enables ``PRAGMA journal_mode=WAL`` (crash-safe, readers do
      not block the writer) and ``PRAGMA foreign_keys=ON`` (``ON DELETE CASCADE`` works);
    * the driver's legacy implicit-BEGIN handling is disabled and every transaction
      starts with ``BEGIN IMMEDIATE``, so transactions (including DDL in migrations) are
      real and concurrent read-then-write transactions serialise instead of failing;
    * JSON is stored without ``\\uXXXX`` escapes (on every backend).

    Extra ``kwargs`` go to :func:`create_async_engine` (e.g. ``poolclass``).

    Raises:
        sqlalchemy.exc.ArgumentError: the URL cannot be parsed.
        ModuleNotFoundError: the URL's driver is not installed.
    """
    sqlite = is_sqlite(url)
    kwargs.setdefault("json_serializer", _json_dumps)
    engine = create_async_engine(url, **kwargs)
    if sqlite:
        _install_sqlite_hooks(engine)
    return engine


def _install_sqlite_hooks(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy (not the sqlite3 module) decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
