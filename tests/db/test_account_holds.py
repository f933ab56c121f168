"""Holding a bot account on a shared PostgreSQL database, against real servers: a lost
lock is noticed at once and reported once; every write of the account's tables carries
the holder's token and one under a token another process has moved past is refused
(fencing); a server restarted under a running store costs no write (its pooled
connections are checked before use); the events each account handled are kept, bounded,
per account."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pg_support import fresh_pg_url, own_server
from sqlalchemy import pool, text
from sqlalchemy.ext.asyncio import create_async_engine

import paizhuo_db.store as store_module
from paizhuo_db import AccountLost, FinishedGame, FinishedPlayer, Store
from paizhuo_db.holds import account_lock_key

_accounts = itertools.count(1)


@pytest.fixture
def account() -> str:
    """An account of this test's own: an advisory lock is the whole server's, and other
    tests run side by side on the same server (in this process and in others)."""
    return f"7{os.getpid():07d}{next(_accounts):03d}"


class Reports:
    """What a store's ``on_account_lost`` was told, as ``(account, reason)``."""

    def __init__(self, store: Store) -> None:
        self.seen: list[tuple[str, str]] = []
        store.on_account_lost = lambda account, reason: self.seen.append((account, reason))

    async def wait(self, count: int = 1, seconds: float = 5.0) -> None:
        for _ in range(int(seconds / 0.01)):
            if len(self.seen) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{count} report(s) expected, got {self.seen}")


@pytest.fixture
async def pg() -> AsyncIterator[str]:
    yield await fresh_pg_url()


@pytest.fixture
async def stores(pg: str) -> AsyncIterator[tuple[Store, Store]]:
    """Two processes' stores on one PostgreSQL database (migrated)."""
    one, two = Store(pg), Store(pg)
    await one.migrate()
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


async def sql(url: str, statement: str, **params: object) -> object:
    """One statement on a connection of its own (an operator's psql); its first value."""
    engine = create_async_engine(url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            result = await conn.execute(text(statement), params)
            return result.scalar() if result.returns_rows else None
    finally:
        await engine.dispose()


async def end_lock_session(url: str, account: str) -> None:
    """``pg_terminate_backend`` of the session holding the account's lock (waits until it
    is gone)."""
    unsigned = account_lock_key(account) & 0xFFFF_FFFF_FFFF_FFFF
    pid = await sql(url, "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
                         "AND classid = :high AND objid = :low AND objsubid = 1",
                    high=unsigned >> 32, low=unsigned & 0xFFFF_FFFF)
    assert pid is not None, "nobody holds the lock"
    assert await sql(url, "SELECT pg_terminate_backend(:pid, 5000)", pid=pid)


def game(uid: str, group_id: str) -> FinishedGame:
    start = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
    return FinishedGame(uid=uid, game="抓特务", group_id=group_id, started_at=start,
                        ended_at=start + timedelta(minutes=20), settings={}, summary={},
                        players=[FinishedPlayer("u1", 0, "平民", 1, "win", 1),
                                 FinishedPlayer("u2", 1, "特务", 2, "loss", -1)])


async def test_each_hold_raises_the_token(stores: tuple[Store, Store], account: str) -> None:
    one, two = stores
    assert one.account_token(account) is None
    assert await one.hold_account(account)
    first = one.account_token(account)
    assert first is not None and await one.hold_account(account)  # held: the same token
    assert one.account_token(account) == first
    assert await two.hold_account(account) is False and two.account_token(account) is None
    await one.release_account(account)
    assert one.account_token(account) is None
    assert await two.hold_account(account)
    assert two.account_token(account) == first + 1


async def test_a_lock_session_ended_is_noticed_at_once_and_reported_once(
        stores: tuple[Store, Store], pg: str, account: str) -> None:
    """``pg_terminate_backend`` on the lock's session: the store knows within the same
    moment (no query of its own needed), drops the hold, and says so once; the account
    can be taken again, by it or another process, with a newer token."""
    one, two = stores
    reports = Reports(one)
    assert await one.hold_account(account)
    token = one.account_token(account)
    await end_lock_session(pg, account)
    await reports.wait()
    assert reports.seen[0][0] == account and one.holds() == set()
    assert one.account_token(account) is None
    assert await two.hold_account(account)
    assert two.account_token(account) == token + 1
    await asyncio.sleep(0.2)
    assert len(reports.seen) == 1


async def test_a_write_under_a_stale_token_is_refused(
        stores: tuple[Store, Store], pg: str, account: str) -> None:
    """Process one lost the account (its lock's session ended) and process two took it.
    Every write one makes with the token it had — a move, a finished game, a closed
    table, a handled event — is refused and writes nothing; two's go through."""
    one, two = stores
    assert await one.hold_account(account)
    old = one.account_token(account)
    await one.save_live("g1", "抓特务", {"moves": 1}, account=account, token=old)
    await end_lock_session(pg, account)
    assert await two.hold_account(account)
    new = two.account_token(account)
    with pytest.raises(AccountLost):
        await one.save_live("g1", "抓特务", {"moves": 2}, account=account, token=old)
    with pytest.raises(AccountLost):
        await one.save_live("g2", "挖坑", {"moves": 1}, account=account, token=old)
    with pytest.raises(AccountLost):
        await one.finish_game(game("u-1", "g1"), account=account, token=old)
    with pytest.raises(AccountLost):
        await one.delete_live("g1", account=account, token=old)
    with pytest.raises(AccountLost):
        await one.note_event(account, "77", "mark", token=old)
    assert await two.load_live() == {"g1": ("抓特务", {"moves": 1})}
    assert await two.pending_announcements() == [] and await two.seen_events(account) == {}
    await two.save_live("g1", "抓特务", {"moves": 2}, account=account, token=new)
    await two.note_event(account, "77", "mark", token=new)
    assert await two.finish_game(game("u-1", "g1"), account=account, token=new)
    assert await one.load_live() == {}


async def test_a_refused_write_is_how_a_hold_that_seems_intact_is_found_lost(
        stores: tuple[Store, Store], pg: str, account: str) -> None:
    """Another process took the account while this one's lock session still looks
    alive (a pooler handed the session on, a network split): nothing tells the lock's
    watcher, but the first write under the old token is refused, and that drops the
    hold and reports it, once."""
    one, _two = stores
    reports = Reports(one)
    assert await one.hold_account(account)
    token = one.account_token(account)
    # What another holder's acquisition does to the epoch.
    await sql(pg, "UPDATE account_holds SET epoch = epoch + 1 WHERE account = :a", a=account)
    with pytest.raises(AccountLost):
        await one.save_live("g1", "抓特务", {"moves": 1}, account=account, token=token)
    await reports.wait()
    assert one.holds() == set() and reports.seen[0][0] == account
    with pytest.raises(AccountLost):  # a later write of the same old token
        await one.save_live("g1", "抓特务", {"moves": 1}, account=account, token=token)
    await asyncio.sleep(0.1)
    assert len(reports.seen) == 1
    assert await one.load_live() == {}


async def test_a_watch_finds_a_lock_gone_without_its_session_ending(
        stores: tuple[Store, Store], pg: str, monkeypatch: pytest.MonkeyPatch,
        account: str) -> None:
    """The lock released on its session behind the store's back (the session stays
    up): the periodic check sees it is no longer this session's and reports it."""
    import paizhuo_db.holds as holds

    monkeypatch.setattr(holds, "CHECK_EVERY", 0.2)
    one, _two = stores
    reports = Reports(one)
    assert await one.hold_account(account)
    hold = one._accounts._holds[account]  # type: ignore[union-attr]
    async with hold.busy:
        await hold.conn.execute(text("SELECT pg_advisory_unlock(:key)"),
                                {"key": account_lock_key(account)})
    await reports.wait(seconds=10)
    assert "no longer" in reports.seen[0][1] and one.holds() == set()


async def test_a_restarted_server_costs_no_write_and_the_hold_is_taken_again(account: str) -> None:
    """The pool holds connections the server ended when it restarted: the first write
    after the restart (and every one after it) goes through, none fails. The account's
    lock went with the restart: reported once, and taken again with a newer token."""
    async with own_server() as server:
        store = Store(server.url)
        reports = Reports(store)
        try:
            await store.migrate()
            assert await store.hold_account(account)
            token = store.account_token(account)
            assert token is not None
            # Several connections in the pool, each used once.
            await asyncio.gather(*(store.save_live(f"g{i}", "抓特务", {"n": i}, account=account,
                                                   token=token) for i in range(4)))
            await server.restart()
            await reports.wait()
            assert store.holds() == set()
            assert await store.hold_account(account)
            token = store.account_token(account)
            for i in range(4):
                await store.save_live(f"g{i}", "抓特务", {"n": i + 10}, account=account,
                                      token=token)
            live = await store.load_live(account=account)
            assert {g: state["n"] for g, (_game, state) in live.items()} == {
                f"g{i}": i + 10 for i in range(4)}
            assert len(reports.seen) == 1
        finally:
            await store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_handled_events_are_kept_per_account_newest_first_and_bounded(
        backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, account: str) -> None:
    monkeypatch.setattr(store_module, "SEEN_KEPT", 40)
    monkeypatch.setattr(store_module, "SEEN_PRUNE_EVERY", 10)
    url = (f"sqlite+aiosqlite:///{tmp_path / 'p.db'}" if backend == "sqlite"
           else await fresh_pg_url())
    store = Store(url)
    try:
        await store.migrate()
        for i in range(100):
            await store.note_event(account, str(i), f"m{i}")
        await store.note_event("10002", "5", "other")
        await store.note_event(account, "99", "again")  # an id used again: the newest mark
        seen = await store.seen_events(account)
        assert 40 <= len(seen) <= 50
        assert list(seen)[-1] == "99" and seen["99"] == "again" and "0" not in seen
        assert list(await store.seen_events(account, limit=3)) == ["97", "98", "99"]
        assert await store.seen_events("10002") == {"5": "other"}
    finally:
        await store.close()
