"""Async engine factory shared by :class:`paizhuo_db.store.Store` and the alembic ``env.py``."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

DEFAULT_BUSY_TIMEOUT = 30.0
"""Seconds a SQLite connection waits for another connection's write lock before it
fails with ``database is locked``."""

READ_ONLY = "paizhuo_read_only"
"""Execution option: a SQLite transaction that only reads starts with a plain (deferred)
``BEGIN`` instead of ``BEGIN IMMEDIATE``, so it never waits for the write lock."""


def _json_dumps(value: Any) -> str:
    """Serialise JSON keeping non-ASCII text (e.g. Chinese) readable in the file."""
    return json.dumps(value, ensure_ascii=False)


def is_sqlite(url: str | URL) -> bool:
    """Return True when ``url`` points at a SQLite database (any driver)."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str | URL, busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
                **kwargs: Any) -> AsyncEngine:
    """Create an :class:`AsyncEngine` for ``url`` (an async driver URL).

    For SQLite the engine is set up so that:

    * every new connection enables ``PRAGMA journal_mode=WAL`` (readers do not block the
      writer), ``PRAGMA synchronous=NORMAL`` (in WAL mode a committed transaction
      survives a killed process; only a power cut may lose the last commits),
      ``PRAGMA busy_timeout`` = ``busy_timeout`` seconds and ``PRAGMA foreign_keys=ON``
      (``ON DELETE CASCADE`` works);
    * the driver's legacy implicit-BEGIN handling is disabled; a write transaction starts
      with ``BEGIN IMMEDIATE`` (concurrent read-then-write transactions serialise instead
      of failing), one run with the :data:`READ_ONLY` execution option with a deferred
      ``BEGIN`` (it never takes the write lock);
    * JSON is stored without ``\\uXXXX`` escapes (on every backend).

    On a server (PostgreSQL) every pooled connection is checked before use
    (``pool_pre_ping``: one round trip): after the server restarted, failed over or ended
    idle sessions, the first use of each pooled connection failed (a player's move was
    refused, ``没有生效，请重试。``); now a dead one is replaced, unseen. (A SQLite file has
    no server to lose.)

    Extra ``kwargs`` go to :func:`create_async_engine` (e.g. ``poolclass``).

    Raises:
        sqlalchemy.exc.ArgumentError: the URL cannot be parsed.
        ModuleNotFoundError: the URL's driver is not installed.
    """
    sqlite = is_sqlite(url)
    kwargs.setdefault("json_serializer", _json_dumps)
    if not sqlite:
        kwargs.setdefault("pool_pre_ping", True)
    engine = create_async_engine(url, **kwargs)
    if sqlite:
        _install_sqlite_hooks(engine, busy_timeout)
    return engine


PRAGMA_RETRY = 0.05
"""Seconds between tries of a connection's PRAGMA that found the database locked."""


def sqlite_pragmas(busy_timeout: float) -> list[str]:
    """The PRAGMA statements every SQLite connection of the bot runs on connect (the busy
    timeout first, so that every later one waits for a lock as it may)."""
    return [f"PRAGMA busy_timeout={int(busy_timeout * 1000)}", "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"]


def run_pragma(execute: Any, pragma: str, busy_timeout: float) -> None:
    """``execute(pragma)``, tried again every :data:`PRAGMA_RETRY` seconds for up to
    ``busy_timeout`` seconds while it fails with ``database is locked``: a connection
    switching a new database to WAL while another holds its write lock (``BEGIN
    IMMEDIATE``: two bot processes starting at once, one of them migrating) is refused
    at once, whatever the busy timeout. Any other error, or the lock still held at the
    end, is raised. The wait blocks the calling thread; it happens only while another
    process writes a database that is not in WAL mode yet, i.e. at its creation."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            execute(pragma)
            return
        except sqlite3.OperationalError as err:
            if "database is locked" not in str(err) or time.monotonic() >= deadline:
                raise
        time.sleep(PRAGMA_RETRY)


def _install_sqlite_hooks(engine: AsyncEngine, busy_timeout: float) -> None:
    pragmas = sqlite_pragmas(busy_timeout)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy (not the sqlite3 module) decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in pragmas:
                run_pragma(cursor.execute, pragma, busy_timeout)
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")
