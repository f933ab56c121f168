"""Which process serves a bot account on a shared database (PostgreSQL), and the token
that fences out a process that no longer does.

A process serves an account's tables only while it holds the account: the account's
advisory lock (``pg_try_advisory_lock`` of :func:`account_lock_key`) on a connection of
its own (autocommit, outside the pool). A lock kept by a connection can be lost while the
process does nothing: the server ends the session (``pg_terminate_backend``, a restart, a
failover, ``idle_session_timeout``), or a pooler hands the session to someone else. The
process then went on serving the account unawares, while a second process took it and
served it too (both answered every command, each dealt its own hands). So:

* **Fencing.** Each acquisition raises the account's epoch (``account_holds.epoch``): the
  holder's *token*. Every write of the account's tables carries the token it was made
  under and is refused (:class:`AccountLost`, nothing written) once the epoch is no longer
  it, so a process that lost the account, noticed or not, cannot change what the next
  holder plays. The write checks the epoch under a share lock on its row, in its own
  transaction: a new holder's raise waits for the writes under way and every write after
  it sees the new epoch.
* **Noticing.** The lock's connection is watched: the driver's termination callback
  (asyncpg calls it as soon as the server ends the session) and, every
  :data:`CHECK_EVERY` seconds, a query that the lock is still this session's (which also
  keeps the session from counting as idle). A lost hold is dropped and reported once
  (``on_lost(account, reason)``); the caller stops serving the account and takes it again
  — with a new token — before it serves it again.

Nothing here knows of chat platforms: an account is a string (a bot's id on its platform).
SQLite needs none of it (one process per database file).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, pool, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .models import UTCDateTime, utcnow

log = logging.getLogger(__name__)

CHECK_EVERY = 5.0
"""Seconds between two checks that a held account's lock is still this session's."""
CHECK_TIMEOUT = 5.0
"""Seconds a check may take before the hold counts as lost (a connection that hangs)."""

_RAISE_EPOCH = text(
    "INSERT INTO account_holds (account, epoch, taken_at) VALUES (:account, 1, :now) "
    "ON CONFLICT (account) DO UPDATE SET epoch = account_holds.epoch + 1, "
    "taken_at = excluded.taken_at RETURNING epoch"
).bindparams(bindparam("now", type_=UTCDateTime()))
_LOCK_HELD = text(
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
    "AND granted AND classid = :high AND objid = :low AND objsubid = 1")
_EPOCH = text("SELECT epoch FROM account_holds WHERE account = :account FOR SHARE")

FENCE = ("WITH fence AS (SELECT 1 FROM account_holds WHERE account = :account "
         "AND epoch = :token FOR SHARE) ")
"""The head of a fenced statement (PostgreSQL): its ``SELECT … FROM fence`` yields one row
only while ``:token`` is the account's epoch (and holds a share lock on it)."""


def account_lock_key(account: str) -> int:
    """The PostgreSQL advisory lock key (signed 64-bit) of a bot account: the first 8
    bytes of a SHA-256 of ``paizhuo-account:<account>``."""
    digest = hashlib.sha256(f"paizhuo-account:{account}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class AccountLost(RuntimeError):
    """This process does not hold the bot account ``account`` (any more): another process
    took it (its epoch is newer than this write's token), or the lock was lost; nothing
    was written. ``reason`` says which, for the log."""

    def __init__(self, account: str, reason: str) -> None:
        super().__init__(f"bot account {account} is not held by this process: {reason}")
        self.account = account
        self.reason = reason


async def check_fence(conn: Any, account: str, token: int) -> None:
    """Within a write's transaction (``conn``: an ``AsyncConnection`` or ``AsyncSession``
    on PostgreSQL): take a share lock on the account's epoch and raise
    :class:`AccountLost` unless it is still ``token``."""
    epoch = await conn.scalar(_EPOCH, {"account": account})
    if epoch != token:
        raise AccountLost(account, f"another process holds it now (epoch {epoch}, "
                                   f"this write's token {token})")


@dataclass(eq=False)
class _Hold:
    account: str
    conn: AsyncConnection
    token: int
    busy: asyncio.Lock
    watcher: asyncio.Task[None] | None = None
    done: bool = False
    """Released or lost: the connection's termination no longer says anything."""


class AccountHolds:
    """The accounts this process holds on the PostgreSQL database at ``url``, each on its
    own connection (see the module docstring). ``on_lost(account, reason)`` is called
    once when a held account's lock is found lost (in the event loop; the hold is
    already dropped: :meth:`token` is ``None``)."""

    def __init__(self, url: str, on_lost: Callable[[str, str], None] | None = None,
                 check_every: float = CHECK_EVERY) -> None:
        self.url = url
        self.on_lost = on_lost
        self.check_every = check_every
        self._engine: AsyncEngine | None = None
        self._holds: dict[str, _Hold] = {}
        self._taking = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()

    def _connections(self) -> AsyncEngine:
        if self._engine is None:
            self._engine = create_async_engine(self.url, poolclass=pool.NullPool,
                                               isolation_level="AUTOCOMMIT")
        return self._engine

    def token(self, account: str) -> int | None:
        """The token (epoch) of this process's hold of ``account``; ``None`` when it does
        not hold it."""
        hold = self._holds.get(account)
        return hold.token if hold is not None else None

    def held(self) -> set[str]:
        """The accounts held now."""
        return set(self._holds)

    async def take(self, account: str) -> bool:
        """Take ``account``: its advisory lock on a new connection, then a new epoch (the
        token of this hold). ``True`` (at once when it is held already), or ``False``
        while another process holds it.

        Raises:
            sqlalchemy.exc.SQLAlchemyError / OSError: the server cannot be reached
                (nothing is held).
        """
        async with self._taking:
            if account in self._holds:
                return True
            conn = await self._connections().connect()
            try:
                got = await conn.scalar(text("SELECT pg_try_advisory_lock(:key)"),
                                        {"key": account_lock_key(account)})
                if not got:
                    await conn.close()
                    return False
                token = int(await conn.scalar(_RAISE_EPOCH, {"account": account,
                                                             "now": utcnow()}))
                hold = _Hold(account, conn, token, asyncio.Lock())
                driver = (await conn.get_raw_connection()).driver_connection
            except BaseException:
                with contextlib.suppress(Exception):
                    await conn.close()
                raise
            listen = getattr(driver, "add_termination_listener", None)
            if listen is not None:  # asyncpg: told at once when the server ends the session
                listen(lambda _conn: self._lose(hold, "the lock's database session ended"))
            hold.watcher = asyncio.get_running_loop().create_task(self._check(hold))
            self._holds[account] = hold
            log.info("bot account %s held (token %s)", account, token)
            return True

    async def _check(self, hold: _Hold) -> None:
        """Every :attr:`check_every` seconds: the lock is still this session's, or the
        hold is lost."""
        unsigned = account_lock_key(hold.account) & 0xFFFF_FFFF_FFFF_FFFF
        params = {"high": unsigned >> 32, "low": unsigned & 0xFFFF_FFFF}
        while not hold.done:
            await asyncio.sleep(self.check_every)
            try:
                async with hold.busy:
                    if hold.done:
                        return
                    count = await asyncio.wait_for(hold.conn.scalar(_LOCK_HELD, params),
                                                   CHECK_TIMEOUT)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - the connection failed: the lock with it
                self._lose(hold, f"the lock's connection failed ({err!r})")
                return
            if not count:
                self._lose(hold, "the lock is no longer this session's")
                return

    def _lose(self, hold: _Hold, reason: str) -> None:
        """The hold is lost: drop it, close its connection (in the background) and report
        it once."""
        if hold.done:
            return
        hold.done = True
        if self._holds.get(hold.account) is hold:
            del self._holds[hold.account]
        if hold.watcher is not None and hold.watcher is not asyncio.current_task():
            hold.watcher.cancel()
        closing = asyncio.get_running_loop().create_task(self._close(hold))
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)
        log.info("bot account %s: hold lost (%s)", hold.account, reason)
        if self.on_lost is not None:
            try:
                self.on_lost(hold.account, reason)
            except Exception:  # noqa: BLE001 - the report must not break the watcher
                log.exception("on_lost failed for bot account %s", hold.account)

    @staticmethod
    async def _close(hold: _Hold, unlock: bool = False) -> None:
        async with hold.busy:
            if unlock:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(hold.conn.execute(
                        text("SELECT pg_advisory_unlock(:key)"),
                        {"key": account_lock_key(hold.account)}), CHECK_TIMEOUT)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(hold.conn.close(), CHECK_TIMEOUT)

    def lose(self, account: str, reason: str) -> None:
        """Drop the hold of ``account`` as lost (a write found the epoch moved on: the
        lock, if this session still has it, is not to be trusted) and report it; nothing
        when it is not held."""
        hold = self._holds.get(account)
        if hold is not None:
            self._lose(hold, reason)

    async def release(self, account: str) -> None:
        """Let ``account`` go (unlock, close its connection); nothing when not held. A
        failure (the server gone) is ignored: the lock ended with the session."""
        hold = self._holds.pop(account, None)
        if hold is None:
            return
        hold.done = True
        if hold.watcher is not None:
            hold.watcher.cancel()
        await self._close(hold, unlock=True)

    async def close(self) -> None:
        """Release every account and close the connections."""
        for account in list(self._holds):
            await self.release(account)
        for task in list(self._closing):
            with contextlib.suppress(BaseException):
                await task
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None
