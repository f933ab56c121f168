"""Per-move save benchmark: ``python bench/save_bench.py [--saves N] [--tables N]``.

What one accepted move costs to save, side by side in one run, on a fresh SQLite file in
WAL mode with ``synchronous=NORMAL`` (a commit survives a killed process):

* ``orm get+update``: the SQLAlchemy ORM session of earlier versions (a SELECT, then an
  UPDATE, state encoded by the JSON column);
* ``sqlalchemy core upsert``: the table encoded to JSON once, one
  ``INSERT … ON CONFLICT DO UPDATE`` through SQLAlchemy Core on aiosqlite (pooled
  connection, ``BEGIN IMMEDIATE`` … ``COMMIT``);
* ``Store.save_live_text``: what the bot does now — the same statement written at once
  on the event loop when the database is free (busy timeout 0), else on the store's own
  thread, group-committed with the saves that arrive together (``src/paizhuo_db/hot.py``);
* ``Registry.save (all)``: the whole per-move save of the bot: the table to JSON data,
  encoded once, saved as above;
* ``aiosqlite raw``: the same statement on a bare aiosqlite connection (no lock, no
  Store);
* ``sqlite3 in-loop``: the same statement on a plain ``sqlite3`` connection called from
  the event loop (the floor; with the default busy timeout it would block the loop while
  another writer holds the lock, which the bot's loop connection never waits for).

Then the load case: ``--tables`` tables (default 200) saving concurrently through one
:class:`paizhuo_db.Store` (default busy timeout), counting ``database is locked`` errors.
The state saved is a real mid-game 抓特务 table (4 players). Figures go in
docs/benchmarks.md (引擎、存档、出牌生成、战绩查询).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402
from sqlalchemy.ext.asyncio import async_sessionmaker  # noqa: E402

from paizhuo_db.connection import sqlite_pragmas  # noqa: E402
from paizhuo_db.models import LiveTable  # noqa: E402
from paizhuo_db.store import Store, _upsert_params, _upsert_statement, encode_state  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules  # noqa: E402

UPSERT = ("INSERT INTO live_tables (group_id, game, state, updated_at) VALUES (?, ?, ?, ?) "
          "ON CONFLICT (group_id) DO UPDATE SET game = excluded.game, state = excluded.state, "
          "updated_at = excluded.updated_at")


def bench_table() -> object:
    """A 抓特务 table (plugins' :class:`Table`) in the middle of a 4-player game."""
    import nonebot

    nonebot.init()
    from nonebot_plugin_paizhuo.games.base import SeatView
    from nonebot_plugin_paizhuo.tables import PLAYING, Table, now_utc

    game = ZGame.deal(4, ZRules(), 7)
    game.declare_timeout()
    for _ in range(12):
        seat = game.turn
        try:
            game.play(seat, [game.hands[seat][0]])
        except MoveError:  # cannot beat with the lowest card: pass
            game.pass_turn(seat)
    table = Table(group_id="g", game="抓特务", size=4, opener="1",
                  seats=[SeatView(str(1000 + i), f"玩家{i}") for i in range(4)],
                  created_at=now_utc(), started_at=now_utc(), uid="bench", engine=game,
                  status=PLAYING)
    table.rearm()
    return table


def figures(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"median {statistics.median(ms):.3f} ms, p99 {p99:.3f} ms, mean {statistics.fmean(ms):.3f} ms"


async def timed(n: int, save: Callable[[int], Awaitable[None]]) -> list[float]:
    for i in range(20):  # warm-up
        await save(i)
    samples = []
    for i in range(n):
        t0 = time.perf_counter()
        await save(i)
        samples.append(time.perf_counter() - t0)
    return samples


async def run(saves: int, tables: int) -> None:
    table = bench_table()
    state = table.to_json()
    text = encode_state(state)
    print(f"state: {len(text.encode())} bytes of JSON (4-player 抓特务 mid-game)")
    t0 = time.perf_counter()
    for _ in range(1000):
        encode_state(state)
    print(f"encode once (json.dumps): {(time.perf_counter() - t0):.3f} ms per save "
          "(the bot encodes each save once; the ORM row encodes again in the JSON column)")

    with tempfile.TemporaryDirectory(prefix="save-bench-") as tmp:
        path = Path(tmp) / "bench.db"
        store = Store(f"sqlite+aiosqlite:///{path}")
        await store.migrate()
        await store.save_live_text("g", "抓特务", text)

        sessions = async_sessionmaker(store.engine, expire_on_commit=False)

        async def orm(i: int) -> None:
            async with sessions.begin() as session:
                row = await session.get(LiveTable, "g")
                row.state = {**state, "n": i}
                row.updated_at = datetime.now(UTC)

        upsert = _upsert_statement("sqlite")

        async def core(_i: int) -> None:
            async with store.engine.begin() as conn:
                await conn.execute(upsert, _upsert_params("g", "抓特务", text, None))

        async def hot(_i: int) -> None:
            await store.save_live_text("g", "抓特务", text)

        from nonebot_plugin_paizhuo.tables import REGISTRY

        REGISTRY.store = store

        async def whole(_i: int) -> None:
            await REGISTRY.save(table)

        raw = await aiosqlite.connect(path, isolation_level=None)
        for pragma in sqlite_pragmas(30.0):
            await raw.execute(pragma)

        async def aio(_i: int) -> None:
            await raw.execute(UPSERT, ("g", "抓特务", text, datetime.now(UTC).isoformat()))

        plain = sqlite3.connect(path, isolation_level=None)
        for pragma in sqlite_pragmas(30.0):
            plain.execute(pragma)

        async def sync(_i: int) -> None:
            plain.execute(UPSERT, ("g", "抓特务", text, datetime.now(UTC).isoformat()))

        print(f"\nper-move save, {saves} saves each (one table):")
        for name, fn in [("orm get+update", orm), ("sqlalchemy core upsert", core),
                         ("Store.save_live_text", hot), ("Registry.save (all)", whole),
                         ("aiosqlite raw", aio),
                         ("sqlite3 in-loop", sync)]:
            print(f"  {name:<22} {figures(await timed(saves, fn))}")
        await hot(0)
        REGISTRY.store = None
        await raw.close()
        plain.close()
        async with store.engine.connect() as conn:
            [(stored,)] = (await conn.execute(select(LiveTable.state))).all()
        assert stored == state, "the benchmark must save the real state"

        print(f"\nload: {tables} tables saving at once through one Store (busy timeout "
              f"{store.busy_timeout:g} s), 20 saves each:")
        locked = 0
        latencies: list[float] = []

        async def one_table(i: int) -> None:
            nonlocal locked
            for _ in range(20):
                t = time.perf_counter()
                try:
                    await store.save_live_text(f"t{i}", "抓特务", text)
                except (OperationalError, sqlite3.OperationalError) as err:
                    if "locked" in str(err):
                        locked += 1
                    else:
                        raise
                latencies.append(time.perf_counter() - t)
                await asyncio.sleep(0)

        t0 = time.perf_counter()
        await asyncio.gather(*(one_table(i) for i in range(tables)))
        wall = time.perf_counter() - t0
        print(f"  {len(latencies)} saves in {wall:.2f} s ({len(latencies) / wall:.0f}/s), "
              f"'database is locked': {locked}; wait+save {figures(latencies)}")
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.saves, args.tables))


if __name__ == "__main__":
    main()
