"""The per-move save on PostgreSQL, side by side in one run:
``python bench/pg_save.py [--url postgresql+asyncpg://…] [--saves 1000]``.

* ``now``: :meth:`paizhuo_db.Store.save_live_text` as the bot calls it: the pooled
  connection checked before use (``pool_pre_ping``: one round trip), the write fenced by
  the account's token (the epoch read under a share lock in the same statement);
* ``without the token``: the same store, the write not fenced;
* ``before``: a store whose pool does not check connections, the write not fenced (what
  the bot did before: a server restart failed the first use of each pooled connection).

Prints the median and p90 milliseconds of one save each way (one table saved again and
again, on a fresh schema; ``--url`` defaults to ``PAIZHUO_TEST_PG_URL``). Figures in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paizhuo_db.store as store_module  # noqa: E402
from paizhuo_db.store import Store  # noqa: E402

ACCOUNT = "pg-save-bench"


async def saves(store: Store, token: int | None, count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        await store.save_live_text("bench", "抓特务", f'{{"n": {i}}}', account=ACCOUNT,
                                   token=token)
        times.append(time.perf_counter() - started)
    return times


def unchecked_engine(url: str, busy_timeout: float = 30.0, **kwargs: object):
    kwargs["pool_pre_ping"] = False
    return make_engine(url, busy_timeout, **kwargs)


make_engine = store_module.make_engine


async def run(url: str, count: int) -> dict[str, list[float]]:
    store = Store(url)
    await store.migrate()
    assert await store.hold_account(ACCOUNT)
    token = store.account_token(ACCOUNT)
    store_module.make_engine = unchecked_engine
    try:
        before = Store(url)
    finally:
        store_module.make_engine = make_engine
    results: dict[str, list[float]] = {"now": [], "without the token": [], "before": []}
    try:
        for _ in range(2):  # interleaved, so that a busy moment falls on every way alike
            results["now"] += await saves(store, token, count // 2)
            results["without the token"] += await saves(store, None, count // 2)
            results["before"] += await saves(before, None, count // 2)
    finally:
        await store.close()
        await before.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default=os.environ.get("PAIZHUO_TEST_PG_URL", ""))
    parser.add_argument("--saves", type=int, default=1000)
    ns = parser.parse_args()
    if not ns.url:
        parser.error("no PostgreSQL URL: --url, or PAIZHUO_TEST_PG_URL")
    results = asyncio.run(run(ns.url, ns.saves))
    print(f"{ns.saves} saves each way, one table")
    print("| 存法 | 中位数 | p90 |")
    print("| --- | --- | --- |")
    for name, times in results.items():
        times.sort()
        print(f"| {name} | {statistics.median(times) * 1e3:.3f} ms | "
              f"{times[int(0.9 * (len(times) - 1))] * 1e3:.3f} ms |")


if __name__ == "__main__":
    main()
