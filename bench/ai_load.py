"""困难 under load: ``python bench/ai_load.py [--tables 20] [--seconds 60]``.

Runs ``--tables`` tables of computer players at 电脑难度 困难 in one event loop, the way the
bot does: each decision asks :class:`nonebot_plugin_paizhuo.ai_turn.SearchPool` (worker
processes, ``--workers``, at most ``--searches`` at once) with the ``--budget`` in ms and
falls back to 普通 in the loop when the pool is full or the budget runs out; tables wait
``--delay`` seconds between moves (the bot's PAIZHUO_COMPUTER_DELAY). The search starts when
that pause begins and the move takes its answer when the pause ends, as the bot does
(``ai_turn.ahead``); ``--after-pause`` starts it only when the pause has ended (the bot
before). Prints the decision time (end of the pause to action, p50 / p99 / max), the
move time (previous move to this one: the pause and the decision), how decisions were made
(searched / pool full / timed out / failed), the synchronous step a decision took in the
event loop (wall and CPU time: on a shared machine the wall time includes waiting for a
core), and the event loop's stalls (a 1 ms ticker's lateness: max, and how many over 10 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import CONFIGS, apply, deal_to_play  # noqa: E402
from paizhuo_ai_worker import SearchPool  # noqa: E402
from paizhuo_engine.ai.levels import NORMAL  # noqa: E402

MIX = ["抓特务 3 人", "抓特务 4 人", "挖坑 标准", "手把一 3 人", "手把一 4 人"]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


async def table(i: int, pool: SearchPool, ns: argparse.Namespace, stop_at: float,
                waits: list[float], steps: list[float], cpu: list[float],
                how: dict[str, int], moves: list[float]) -> None:
    deal = i
    while time.perf_counter() < stop_at:
        kind, players, rules = CONFIGS[MIX[i % len(MIX)]]
        game = deal_to_play(kind, players, rules, 1000 * i + deal)
        deal += 1
        while not game.over and time.perf_counter() < stop_at:
            seat = game.turn
            paused = time.perf_counter()
            args = (game.to_json(), seat, deal * 100 + len(game.log), ns.budget)
            started = None if ns.after_pause else pool.start(*args)
            await asyncio.sleep(ns.delay)
            t = time.perf_counter()
            if started is not None:
                action = await pool.result(started)
            else:  # after the pause, or the pool was full when it began: search now
                action = await pool.search(*args)
            t_sync = time.perf_counter()
            c_sync = time.thread_time()
            if action is None:
                how["普通"] += 1
                action = NORMAL.choose(game, seat)
            else:
                how["困难"] += 1
            apply(game, seat, action)
            done = time.perf_counter()
            steps.append(done - t_sync)
            cpu.append(time.thread_time() - c_sync)
            waits.append(done - t)
            moves.append(done - paused)


async def ticker(stop_at: float, lags: list[float]) -> None:
    while time.perf_counter() < stop_at:
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        lags.append(time.perf_counter() - t - 0.001)


async def main_async(ns: argparse.Namespace) -> None:
    pool = SearchPool(ns.workers, ns.searches)
    pool.executor()
    await asyncio.sleep(2)  # let the workers start
    stop_at = time.perf_counter() + ns.seconds
    waits: list[float] = []
    steps: list[float] = []
    cpu: list[float] = []
    lags: list[float] = []
    how = {"困难": 0, "普通": 0}
    moves: list[float] = []
    await asyncio.gather(ticker(stop_at, lags),
                         *(table(i, pool, ns, stop_at, waits, steps, cpu, how, moves)
                           for i in range(ns.tables)))
    pool.shutdown()
    ms = 1e3
    when = "after the pause" if ns.after_pause else "when the pause begins"
    print(f"{ns.tables} tables, budget {ns.budget} ms, {ns.workers} worker(s), at most "
          f"{ns.searches} searches, delay {ns.delay} s, {ns.seconds} s; search starts {when}")
    print(f"decisions: {len(waits)}; 困难 {how['困难']}, fell back to 普通 {how['普通']} "
          f"(pool full {pool.refused}, timed out {pool.timed_out}, failed {pool.failed})")
    print(f"decision time: p50 {pct(waits, .5) * ms:.0f} ms, p99 {pct(waits, .99) * ms:.0f} ms, "
          f"max {max(waits, default=0) * ms:.0f} ms")
    print(f"move time (previous move to this one): p50 {pct(moves, .5) * ms:.0f} ms, "
          f"p99 {pct(moves, .99) * ms:.0f} ms, max {max(moves, default=0) * ms:.0f} ms")
    print(f"synchronous step in the loop (decision at 普通 if needed, and the move): wall p99 "
          f"{pct(steps, .99) * ms:.1f} ms, max {max(steps, default=0) * ms:.1f} ms; CPU p99 "
          f"{pct(cpu, .99) * ms:.1f} ms, max {max(cpu, default=0) * ms:.1f} ms")
    print(f"event-loop stalls: max {max(lags, default=0) * ms:.1f} ms, "
          f"over 10 ms: {sum(1 for x in lags if x > 0.010)} of {len(lags)} ticks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--searches", type=int, default=2)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--after-pause", action="store_true",
                        help="start each search when the pause has ended (the bot before)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
