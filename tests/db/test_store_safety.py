"""The store under contention and failure, against real SQLite files: connection
settings (WAL, synchronous, busy timeout), reads that never wait for a writer, a real
``database is locked``, the end-announcement columns of revision 0003, and a failed write
that leaves nothing behind."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from paizhuo_db import FinishedGame, FinishedPlayer, Store, alembic_config
from paizhuo_db.hot import HotSaver

SEGMENTS = [{"type": "text", "data": {"text": "本局结束：特务胜\n"}},
            {"type": "at", "data": {"qq": "101"}}]


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def game(uid: str, group_id: str = "g1", minutes: int = 0) -> FinishedGame:
    start = datetime(2026, 11, 30, 12, 0, tzinfo=UTC) + timedelta(minutes=minutes)
    return FinishedGame(uid=uid, game="抓特务", group_id=group_id, started_at=start,
                        ended_at=start + timedelta(minutes=20), settings={}, summary={},
                        players=[FinishedPlayer("u1", 0, "特务", 1, "win", 2),
                                 FinishedPlayer("u2", 1, "平民", 2, "loss", -1),
                                 FinishedPlayer("u3", 2, "平民", 3, "loss", -1)])


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = Store(sqlite_url(tmp_path / "bot.db"), busy_timeout=0.2)
    await s.migrate()
    try:
        yield s
    finally:
        await s.close()


def db_file(store: Store) -> str:
    return store.url.split("///", 1)[1]


async def test_connection_settings(store: Store) -> None:
    async with store.engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await conn.execute(text("PRAGMA synchronous"))).scalar() == 1  # NORMAL
        assert (await conn.execute(text("PRAGMA busy_timeout"))).scalar() == 200
    default = Store(store.url)
    try:
        async with default.engine.connect() as conn:
            assert (await conn.execute(text("PRAGMA busy_timeout"))).scalar() >= 30_000
    finally:
        await default.close()


async def test_reads_do_not_wait_for_a_writer_and_a_held_lock_fails_the_write(store: Store) -> None:
    """Another connection holds the write lock: every read still answers at once; a write
    fails with ``database is locked`` after the busy timeout and leaves nothing behind."""
    await store.save_live("g1", "抓特务", {"v": 1})
    await store.set_settings("g1", "抓特务", {"chain_ends": "b"})
    other = sqlite3.connect(db_file(store), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        assert await store.load_live() == {"g1": ("抓特务", {"v": 1})}
        assert await store.get_settings("g1", "抓特务") == {"chain_ends": "b"}
        assert await store.player_stats("g1", "u1") == []
        assert await store.pending_announcements() == []
        with pytest.raises((OperationalError, sqlite3.OperationalError), match="database is locked"):
            await store.save_live("g1", "抓特务", {"v": 2})
        with pytest.raises(OperationalError, match="database is locked"):
            await store.finish_game(game("x"), live=("抓特务", {"v": 3}), announcement=SEGMENTS)
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert await store.load_live() == {"g1": ("抓特务", {"v": 1})}
    assert await store.pending_announcements() == []


async def test_many_concurrent_writers_in_one_process_never_see_a_lock(store: Store) -> None:
    """200 tables saving at once through one store (busy timeout 0.2 s): writes take
    turns in the process, none fails."""
    async def table(i: int) -> None:
        for move in range(5):
            await store.save_live(f"g{i}", "抓特务", {"move": move, "pad": "x" * 2000})
    await asyncio.gather(*(table(i) for i in range(200)))
    saved = await store.load_live()
    assert len(saved) == 200 and {s["move"] for _g, s in saved.values()} == {4}


async def hold_lock(store: Store, seconds: float) -> None:
    """Another connection holds the write lock for ``seconds`` (within the busy timeout)."""
    other = sqlite3.connect(db_file(store), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        await asyncio.sleep(seconds)
        other.execute("ROLLBACK")
    finally:
        other.close()


async def test_a_save_on_a_free_database_is_committed_at_once(store: Store) -> None:
    """src/paizhuo_db/hot.py: with nobody else writing, a save is written on the event loop, without a
    trip to the thread, and is committed when it returns (another connection reads it)."""
    hot = await store.hot_connection()
    await store.save_live("g1", "抓特务", {"v": 1})
    at_once, batches = hot.at_once, hot.batches
    await store.save_live("g1", "抓特务", {"v": 2})
    assert (hot.at_once, hot.batches) == (at_once + 1, batches)
    other = sqlite3.connect(db_file(store))
    try:
        state = other.execute("SELECT state FROM live_tables WHERE group_id='g1'").fetchone()[0]
        assert json.loads(state) == {"v": 2}
    finally:
        other.close()


async def test_saves_on_the_event_loop_leave_the_checkpoints_to_the_thread(store: Store) -> None:
    """The event loop's connection never checkpoints (that waits for the disk); the thread
    does, every ``CHECKPOINT_EVERY`` saves, so the WAL does not grow without end."""
    hot = await store.hot_connection()
    await store.save_live("g0", "抓特务", {"v": 0})
    assert hot._now.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    assert hot._now.execute("PRAGMA busy_timeout").fetchone()[0] == 0
    wal = Path(db_file(store) + "-wal")
    pad = "x" * 1500
    for i in range(3000):
        await store.save_live(f"g{i % 50}", "抓特务", {"v": i, "pad": pad})
        if i % 100 == 0:
            await asyncio.sleep(0.01)  # the thread's checkpoint gets its turn
    await asyncio.sleep(0.1)
    assert hot.at_once + hot.batches >= 3000
    page = hot._now.execute("PRAGMA page_size").fetchone()[0]
    # Each save adds about two pages to the WAL: without the thread's checkpoints 3000
    # saves leave some 6000 pages; with them it restarts after every complete one.
    assert wal.stat().st_size < 2500 * page


async def test_saves_arriving_together_commit_together_each_with_its_own_outcome(
        store: Store) -> None:
    """Group commit (src/paizhuo_db/hot.py): while another writer holds the lock, saves go to the
    thread and those that arrive while a batch is written go in one transaction; a row of
    another account is refused on its own while the rest of its batch is saved; a batch
    whose transaction fails reports the failure to every save in it and writes none of
    them."""
    from paizhuo_db import LiveTableTaken

    await store.save_live("taken", "抓特务", {"v": 0}, account="20002")
    hot = await store.hot_connection()
    before, at_once = hot.batches, hot.at_once
    holder = asyncio.ensure_future(hold_lock(store, 0.05))
    await asyncio.sleep(0.01)
    results = await asyncio.gather(
        *(store.save_live(f"g{i}", "抓特务", {"v": i}, account="10001") for i in range(50)),
        store.save_live("taken", "抓特务", {"v": 99}, account="10001"),
        return_exceptions=True)
    await holder
    assert results[:50] == [None] * 50
    assert isinstance(results[50], LiveTableTaken)
    assert hot.at_once == at_once  # the first found the lock taken: all went to the thread
    assert 1 <= hot.batches - before < 5  # 51 saves, a handful of transactions
    saved = await store.load_live()
    assert saved["taken"] == ("抓特务", {"v": 0}) and saved["g49"] == ("抓特务", {"v": 49})

    other = sqlite3.connect(db_file(store), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock past the busy timeout
        failed = await asyncio.gather(
            *(store.save_live(f"g{i}", "抓特务", {"v": -1}) for i in range(5)),
            return_exceptions=True)
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert all(isinstance(f, sqlite3.OperationalError) for f in failed)
    assert {(await store.load_live())[f"g{i}"][1]["v"] for i in range(5)} == {0, 1, 2, 3, 4}


async def test_end_announcement_pending_until_marked(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"status": "playing"})
    assert await store.finish_game(game("a", minutes=1), live=("抓特务", {"status": "finished"}),
                                   announcement=SEGMENTS)
    assert await store.finish_game(game("b", "g2"), announcement=SEGMENTS)
    assert await store.finish_game(game("c", "g3"))  # no announcement: nothing pending
    pending = await store.pending_announcements()
    assert [(p.uid, p.group_id, p.message) for p in pending] == [("b", "g2", SEGMENTS),
                                                                  ("a", "g1", SEGMENTS)]
    assert [p.uid for p in await store.pending_announcements("g1")] == ["a"]
    await store.mark_announced("a")
    assert [p.uid for p in await store.pending_announcements()] == ["b"]
    # The same game again writes nothing new and does not reopen its announcement.
    assert not await store.finish_game(game("a", minutes=1), announcement=SEGMENTS)
    assert [p.uid for p in await store.pending_announcements()] == ["b"]


async def test_failed_finish_writes_neither_record_nor_announcement(store: Store) -> None:
    """A write that fails inside the transaction (here: the live-row update) rolls back
    the record and its announcement too."""
    await store.save_live("g1", "抓特务", {"status": "playing"})
    engine = store.engine.sync_engine

    def fail(_conn, _cursor, statement: str, *_args) -> None:
        if statement.startswith("INSERT INTO live_tables"):
            raise sqlite3.OperationalError("database or disk is full")

    event.listen(engine, "before_cursor_execute", fail)
    try:
        with pytest.raises(OperationalError, match="disk is full"):
            await store.finish_game(game("a"), live=("抓特务", {"status": "finished"}),
                                    announcement=SEGMENTS)
    finally:
        event.remove(engine, "before_cursor_execute", fail)
    assert await store.pending_announcements() == []
    assert await store.player_stats("g1", "u1") == []
    assert await store.load_live() == {"g1": ("抓特务", {"status": "playing"})}


async def test_upgrade_from_0002_keeps_old_records_without_announcement(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "old.db")
    await asyncio.to_thread(command.upgrade, alembic_config(url), "0002")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("INSERT INTO game_records (uid, game, group_id, started_at, ended_at, settings,"
                     " summary) VALUES ('old', '抓特务', 'g1', '2026-01-01 00:00:00',"
                     " '2026-01-01 00:20:00', '{}', '{}')")
    conn.close()
    store = Store(url)
    try:
        await store.migrate()
        assert await store.pending_announcements() == []
        assert await store.finish_game(game("new"), announcement=SEGMENTS)
        assert [p.uid for p in await store.pending_announcements()] == ["new"]
    finally:
        await store.close()
    await asyncio.to_thread(command.downgrade, alembic_config(url), "0002")
    with sqlite3.connect(tmp_path / "old.db") as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(game_records)")}
    conn.close()
    assert "announcement" not in columns and "announced_at" not in columns


async def test_settings_kept_in_memory_follow_every_write(store: Store) -> None:
    """An exclusive store (SQLite) reads a group's settings once; its own writes keep what
    it returns current, and a failed write leaves the stored value in force."""
    assert await store.get_settings("g1", "抓特务") == {}
    await store.set_settings("g1", "抓特务", {"chain_ends": "b"})
    assert await store.get_settings("g1", "抓特务") == {"chain_ends": "b"}
    other = sqlite3.connect(db_file(store), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(OperationalError, match="database is locked"):
            await store.set_settings("g1", "抓特务", {"chain_ends": "c"})
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert await store.get_settings("g1", "抓特务") == {"chain_ends": "b"}
    await store.set_settings("g1", "抓特务", {})
    assert await store.get_settings("g1", "抓特务") == {}


async def test_a_failed_batch_fails_only_its_own_saves(store: Store, monkeypatch) -> None:
    """The outcome of each batch goes to that batch's callers only: a caller whose batch
    committed is told so even when a later batch fails; saves waiting behind a failed
    batch are still written; a closed saver refuses further saves."""
    hot = await store.hot_connection()
    write = hot._write
    calls = 0

    def flaky(batch, conn=None):
        nonlocal calls
        if conn is None:  # a batch on the thread
            calls += 1
            if calls == 2:
                raise RuntimeError("the save thread is gone")
        return write(batch, conn)

    monkeypatch.setattr(hot, "_write", flaky)
    holder = asyncio.ensure_future(hold_lock(store, 0.05))  # the saves go to the thread
    await asyncio.sleep(0.01)
    first = asyncio.ensure_future(store.save_live("g1", "抓特务", {"v": 1}))
    await asyncio.sleep(0)  # g1's batch is on its way to the thread
    second = asyncio.ensure_future(store.save_live("g2", "抓特务", {"v": 2}))
    assert await first is None
    await holder
    with pytest.raises(RuntimeError, match="thread is gone"):
        await second
    assert await store.save_live("g3", "抓特务", {"v": 3}) is None
    assert set(await store.load_live()) == {"g1", "g3"}
    await hot.close()
    with pytest.raises(sqlite3.ProgrammingError):
        await hot.save(("g4", "抓特务", "{}", "2026-11-30 00:00:00.000000", None))
    store._hot = None  # the store opens a new saver for the fixture's close


async def test_a_full_database_fails_the_save_at_once_and_keeps_the_last_one(store: Store) -> None:
    """SQLite's own ``database or disk is full`` (the file may not grow: ``max_page_count``
    at its size) on the event loop's connection: the save raises at once, without a
    detour to the thread, nothing of it is written, and saves work again once there is
    room."""
    await store.save_live("g1", "抓特务", {"v": 1})
    hot = await store.hot_connection()
    pages = hot._now.execute("PRAGMA page_count").fetchone()[0]
    await hot.execute(f"PRAGMA max_page_count={pages}")
    batches = hot.batches
    with pytest.raises(sqlite3.OperationalError, match="full"):
        await store.save_live("g2", "抓特务", {"v": 2, "pad": "x" * 200_000})
    assert hot.batches == batches
    assert await store.load_live() == {"g1": ("抓特务", {"v": 1})}
    await hot.execute("PRAGMA max_page_count=1073741823")
    await store.save_live("g2", "抓特务", {"v": 2, "pad": "x" * 200_000})
    assert set(await store.load_live()) == {"g1", "g2"}


async def test_a_long_reader_does_not_stall_the_saves_at_a_checkpoint(tmp_path: Path) -> None:
    """A reader that keeps its snapshot open (a backup, someone's ``sqlite3`` shell)
    while the thread's checkpoint comes due: the checkpoint gives up after a short wait
    instead of holding every save back for the whole busy timeout (5 s here)."""
    store = Store(sqlite_url(tmp_path / "bot.db"), busy_timeout=5.0)
    await store.migrate()
    try:
        await store.save_live("g0", "抓特务", {"v": 0})
        reader = sqlite3.connect(db_file(store), isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM live_tables").fetchone()  # holds its snapshot
            loop = asyncio.get_running_loop()
            slowest = 0.0
            for i in range(3 * HotSaver.CHECKPOINT_EVERY // 2):
                started = loop.time()
                await store.save_live(f"g{i % 20}", "抓特务", {"v": i})
                slowest = max(slowest, loop.time() - started)
                if i % 50 == 0:
                    await asyncio.sleep(0.01)
            reader.execute("COMMIT")
        finally:
            reader.close()
        assert slowest < 1.0
        last = 3 * HotSaver.CHECKPOINT_EVERY // 2 - 1
        assert (await store.load_live())[f"g{last % 20}"][1]["v"] == last
    finally:
        await store.close()


def test_a_new_database_is_switched_to_wal_once_another_writer_lets_go(tmp_path: Path) -> None:
    """Two processes starting on a new database at once: while one migrates it (its
    ``BEGIN IMMEDIATE`` holds the write lock), the other's ``PRAGMA journal_mode=WAL``
    fails at once with ``database is locked`` — SQLite does not wait there, whatever the
    busy timeout — and that process failed to start (seen in CI). The connection's PRAGMAs
    are retried until the busy timeout: it switches once the writer commits, and gives up
    with the same error when the writer never does."""
    import threading
    import time

    from paizhuo_db.connection import run_pragma

    path = tmp_path / "new.db"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (a)")
    holder.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            other.execute("PRAGMA journal_mode=WAL")  # what every connection did before
        assert time.monotonic() - started < 2  # refused at once, not after the 5 s timeout
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            run_pragma(other.execute, "PRAGMA journal_mode=WAL", busy_timeout=0.2)
        release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
        release.start()
        run_pragma(other.execute, "PRAGMA journal_mode=WAL", busy_timeout=5)
        release.join()
        assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        other.close()
        holder.close()
