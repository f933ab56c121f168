"""The per-move save on a SQLite file (热路径): one dedicated ``sqlite3`` connection used
by one thread, with group commit.

Every accepted move waits for its table's save before anything is sent (``run_locked``).
Done one statement at a time through ``aiosqlite`` each save took two or three trips to
the connection's thread and back, one at a time for the whole process; with a couple of
hundred busy tables the saves queued behind each other for half a second and more
(``bench/load.py``). Here the saves that arrive while a batch is being written wait
together and go in the next batch: one trip to the thread and one transaction for all of
them, each save's own outcome reported to its caller, and nobody told "saved" before the
``COMMIT`` has returned (WAL, ``synchronous=NORMAL``: a killed process loses nothing that
was reported saved).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Params = tuple[str, str, str, str, str | None]
"""``(group_id, game, state JSON, updated_at text, account)`` of one upsert."""


class HotSaver:
    """Group-committing writer of the ``live_tables`` upsert on one SQLite file.

    ``connect_args`` / ``connect_kwargs`` are ``sqlite3.connect``'s (from the SQLAlchemy
    dialect), ``pragmas`` run once on the new connection, ``upsert`` takes one
    :data:`Params` and changes 0 rows when the row belongs to another account, ``owner``
    reads a row's account. A batch does not take the store's asyncio write lock: it waits
    for another writer's transaction in SQLite's busy handler, on its own thread, so
    the saves never queue behind the event loop's other writes.
    """

    def __init__(self, connect_args: Sequence[Any], connect_kwargs: dict[str, Any],
                 pragmas: Sequence[str], upsert: str, owner: str) -> None:
        self._args = list(connect_args)
        self._kwargs = dict(connect_kwargs)
        self._pragmas = list(pragmas)
        self._upsert = upsert
        self._owner = owner
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paizhuo-save")
        self._conn: sqlite3.Connection | None = None
        self._pending: list[tuple[Params, asyncio.Future[str | None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._closed = False
        self.batches = 0
        """Transactions written so far (for the benchmark)."""

    # ---- on the saver's thread -------------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(*self._args, **{**self._kwargs, "isolation_level": None})
            try:
                for pragma in self._pragmas:
                    conn.execute(pragma)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _write(self, batch: list[Params]) -> list[str | None] | BaseException:
        """One transaction for the batch: ``None`` for a saved row, the owning account
        for a row of another account (not written); the error when the transaction
        failed (nothing written)."""
        try:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            return err
        try:
            results: list[str | None] = []
            for params in batch:
                if conn.execute(self._upsert, params).rowcount == 0:
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

    # ---- on the event loop -----------------------------------------------------------------
    async def save(self, params: Params) -> str | None:
        """Write one upsert with the next batch; returns ``None`` once committed, or the
        account that owns the row when it belongs to another account (nothing written).

        Raises:
            sqlite3.Error: the batch's transaction failed (nothing of it was written).
        """
        if self._closed:
            raise sqlite3.ProgrammingError("the saver is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        self._pending.append((params, future))
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
        """Run one statement on the saver's connection (a PRAGMA; tests use it to make
        the connection read-only)."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._run, sql)

    async def close(self) -> None:
        """Write what is pending, then close the connection and stop the thread; later
        saves raise ``sqlite3.ProgrammingError``."""
        self._closed = True
        if self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await self._flusher

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        with contextlib.suppress(RuntimeError):
            await asyncio.get_running_loop().run_in_executor(self._executor, shut)
        self._executor.shutdown(wait=False)
