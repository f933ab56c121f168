"""The per-move save on a SQLite file (热路径): two dedicated ``sqlite3`` connections,
one used on the event loop without waiting, one on a thread with group commit.

Every accepted move waits for its table's save before anything is sent (``run_locked``).
Done one statement at a time through ``aiosqlite`` each save took two or three trips to
the connection's thread and back, one at a time for the whole process; with a couple of
hundred busy tables the saves queued behind each other for half a second and more
(``bench/load.py``). Under load every trip to a thread and back also waits its turn on
the busy event loop, more than the write itself (a few hundredths of a millisecond).

So a save is first tried right away on the event loop, when no batch is being written:
one upsert on a connection whose busy timeout is 0 and which never checkpoints (with WAL
and ``synchronous=NORMAL`` a commit writes to the WAL and does not wait for the disk; the
checkpoints, which do, run on the thread). When the database is locked by another writer
(a record being written through SQLAlchemy) it does not wait: the save goes to the
thread, where it waits in SQLite's busy handler, and the saves that arrive while that
batch is written wait together and go in the next batch: one trip to the thread and one
transaction for all of them, each save's own outcome reported to its caller. Nobody is
told "saved" before the ``COMMIT`` has returned (a killed process loses nothing that was
reported saved).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

log = logging.getLogger(__name__)

Params = tuple[str, str, str, str, str | None]
"""``(group_id, game, state JSON, updated_at text, account)`` of one upsert."""
Write = tuple[str | None, tuple[Any, ...]]
"""One statement of a batch: ``(SQL, parameters)``; ``None`` for the live-row upsert (whose
changed-row count tells a row of another account)."""


class _Busy:
    """The outcome of a save tried on the event loop while another writer held the lock."""


BUSY = _Busy()
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def _busy(err: BaseException) -> bool:
    """Whether ``err`` says the database was locked by another connection (a primary
    result code of ``SQLITE_BUSY`` / ``SQLITE_LOCKED``)."""
    return getattr(err, "sqlite_errorcode", 0) & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)


class HotSaver:
    """Writer of the ``live_tables`` upsert on one SQLite file: at once on the event loop
    when the database is free, else group-committed on a thread.

    ``connect_args`` / ``connect_kwargs`` are ``sqlite3.connect``'s (from the SQLAlchemy
    dialect), ``pragmas`` run once on each new connection (the event loop's then gets a
    busy timeout of 0 and no automatic checkpoints), ``upsert`` takes one :data:`Params`
    and changes 0 rows when the row belongs to another account, ``owner`` reads a row's
    account. Neither path takes the store's asyncio write lock: a batch waits for another
    writer's transaction in SQLite's busy handler, on its own thread, so the saves never
    queue behind the event loop's other writes.
    """

    CHECKPOINT_EVERY = 500
    """Saves on the event loop between two checkpoints (run on the thread); a save adds
    about two pages to the WAL, so it stays near SQLite's usual 1000."""

    CHECKPOINT_WAIT_MS = 100
    """How long a checkpoint waits for other connections (it holds the saves back
    meanwhile); one that cannot finish in time leaves the rest to the next one."""

    def __init__(self, connect_args: Sequence[Any], connect_kwargs: dict[str, Any],
                 pragmas: Sequence[str], upsert: str, owner: str) -> None:
        self._args = list(connect_args)
        self._kwargs = dict(connect_kwargs)
        self._pragmas = list(pragmas)
        self._upsert = upsert
        self._owner = owner
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paizhuo-save")
        self._conn: sqlite3.Connection | None = None
        self._now: sqlite3.Connection | None = None
        self._since_checkpoint = 0
        self._pending: list[tuple[Write, asyncio.Future[str | None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._closed = False
        self.batches = 0
        """Batches written on the thread so far (for the benchmark and tests)."""
        self.at_once = 0
        """Saves written on the event loop so far (same)."""

    # ---- on the saver's thread -------------------------------------------------------------
    def _open(self, extra: Sequence[str] = ()) -> sqlite3.Connection:
        conn = sqlite3.connect(*self._args, **{**self._kwargs, "isolation_level": None})
        try:
            for pragma in [*self._pragmas, *extra]:
                conn.execute(pragma)
        except BaseException:
            conn.close()
            raise
        return conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _write(self, batch: list[Write], conn: sqlite3.Connection | None = None
               ) -> list[str | None] | BaseException:
        """One transaction for the batch (on ``conn``, by default the thread's): ``None``
        for a saved row (or another statement run), the owning account for a row of
        another account (not written); the error when the transaction failed (nothing
        written)."""
        try:
            conn = conn or self._connection()
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            return err
        try:
            results: list[str | None] = []
            for sql, params in batch:
                if sql is not None:
                    conn.execute(sql, params)
                    results.append(None)
                elif conn.execute(self._upsert, params).rowcount == 0:
                    row = conn.execute(self._owner, (params[0],)).fetchone()
                    results.append((row[0] if row else None) or "")
                else:
                    results.append(None)
            conn.execute("COMMIT")
            return results
        except Exception as err:  # noqa: BLE001 - never leave the transaction open
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            return err

    def _run(self, sql: str) -> None:
        self._connection().execute(sql)

    def _restart_checkpoint(self) -> None:
        """``wal_checkpoint(RESTART)`` with a busy timeout of :attr:`CHECKPOINT_WAIT_MS`
        (a reader holding an old snapshot, a backup, would otherwise hold every save back
        for the whole busy timeout); the connection's own timeout is put back after."""
        conn = self._connection()
        wait = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute(f"PRAGMA busy_timeout={min(wait, self.CHECKPOINT_WAIT_MS)}")
        try:
            conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
        finally:
            conn.execute(f"PRAGMA busy_timeout={wait}")

    # ---- on the event loop, without waiting ------------------------------------------------
    def _loop_connection(self) -> sqlite3.Connection:
        """The event loop's connection: never waits for a lock, never checkpoints."""
        if self._now is None:
            self._now = self._open(["PRAGMA busy_timeout=0", "PRAGMA wal_autocheckpoint=0"])
        return self._now

    def _write_now(self, params: Write) -> str | None | _Busy:
        """The save written at once on the event loop's connection, or :data:`BUSY` when
        another writer holds the database (nothing written: the caller goes to the
        thread). Raises the ``sqlite3.Error`` of any other failure (nothing written)."""
        try:
            outcome = self._write([params], self._loop_connection())
        except sqlite3.OperationalError as err:
            outcome = err
        if isinstance(outcome, BaseException):
            if _busy(outcome):
                return BUSY
            raise outcome
        self.at_once += 1
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.CHECKPOINT_EVERY:
            self._since_checkpoint = 0
            self._checkpoint()
        return outcome[0]

    def _checkpoint(self) -> None:
        """A ``RESTART`` checkpoint on the thread (it waits for the disk). A passive one
        would rarely catch up with saves that keep coming, and the WAL only starts over
        after a complete one; this one makes the saves arriving meanwhile find the
        database busy, so they wait on the thread and go in one batch after it, for at most
        :attr:`CHECKPOINT_WAIT_MS`. A failure is only logged (the next one retries;
        SQLAlchemy's connections checkpoint too)."""
        def done(future: asyncio.Future[None]) -> None:
            if not future.cancelled() and future.exception() is not None:
                log.warning("WAL checkpoint failed: %r", future.exception())

        with contextlib.suppress(RuntimeError):  # the executor was shut down
            asyncio.get_running_loop().run_in_executor(
                self._executor, self._restart_checkpoint).add_done_callback(done)

    # ---- on the event loop -----------------------------------------------------------------
    async def save(self, params: Params) -> str | None:
        """Write one upsert, at once when no batch is being written and the database is
        free, else with the next batch; returns ``None`` once committed, or the account
        that owns the row when it belongs to another account (nothing written).

        Raises:
            sqlite3.Error: the write or the batch's transaction failed (nothing of it was
                written).
        """
        return await self._submit((None, params))

    async def run(self, sql: str, params: tuple[Any, ...]) -> None:
        """Run one other writing statement the same way (at once when the database is
        free, else with the next batch); returns once committed.

        Raises:
            sqlite3.Error: as :meth:`save`.
        """
        await self._submit((sql, params))

    async def _submit(self, write: Write) -> str | None:
        if self._closed:
            raise sqlite3.ProgrammingError("the saver is closed")
        if not self._pending and (self._flusher is None or self._flusher.done()):
            outcome = self._write_now(write)
            if outcome is not BUSY:
                return outcome  # type: ignore[return-value]
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        self._pending.append((write, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush())
        return await future  # a cancelled caller leaves the batch to be written

    async def _flush(self) -> None:
        """Write batches until none is waiting; each batch's outcome goes to its own
        callers only."""
        loop = asyncio.get_running_loop()
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                outcome = await loop.run_in_executor(self._executor, self._write,
                                                     [p for p, _ in batch])
            except BaseException as err:  # the loop is shutting down, or the executor is
                # The thread may still commit this batch; its callers (being torn down)
                # hear that it failed, which at worst makes them redo a saved move.
                failure = err if isinstance(err, Exception) else sqlite3.OperationalError(
                    f"save interrupted: {err!r}")
                for _, future in batch + self._pending:
                    if not future.done():
                        future.set_exception(failure)
                self._pending = []
                if not isinstance(err, Exception):
                    raise
                continue
            self.batches += 1
            for i, (_, future) in enumerate(batch):
                if future.done():
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome[i])

    async def execute(self, sql: str) -> None:
        """Run one statement on both of the saver's connections (a PRAGMA; tests use it
        to make them read-only)."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._run, sql)
        self._loop_connection().execute(sql)

    async def close(self) -> None:
        """Write what is pending, then close the connection and stop the thread; later
        saves raise ``sqlite3.ProgrammingError``."""
        self._closed = True
        if self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await self._flusher

        if self._now is not None:
            self._now.close()
            self._now = None

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        with contextlib.suppress(RuntimeError):
            await asyncio.get_running_loop().run_in_executor(self._executor, shut)
        self._executor.shutdown(wait=False)
