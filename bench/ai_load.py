"""困难 under load: ``python bench/ai_load.py [--tables 20] [--seconds 60]``.

Runs ``--tables`` tables of computer players at 电脑难度 困难 in one event loop, the way the
bot does: each decision asks :class:`nonebot_plugin_paizhuo.ai_turn.SearchPool` (worker
processes, ``--workers``, at most ``--searches`` at once) with the ``--budget`` in ms and
falls back to 普通 in the loop when the pool is full or the budget runs out; tables wait
``--delay`` seconds before each run of ``--run`` computer moves (the bot's
PAIZHUO_COMPUTER_DELAY; consecutive computer seats move in one run after one pause, one
post). The run's first search starts when that pause begins and each next one when the
search before it answered (on a copy of the game), and the moves take their answers when
the pause ends, as the bot does (``ai_turn.ahead``); ``--after-pause`` starts each search
only when its move is due (the bot before). Prints the decision time (move due to action,
p50 / p99 / max), the post time (the pause and the run's moves), how decisions were made
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import CONFIGS, apply, deal_to_play  # noqa: E402
from paizhuo_ai_worker import Search, SearchPool  # noqa: E402
from paizhuo_engine.ai.levels import NORMAL  # noqa: E402

MIX = ["抓特务 3 人", "抓特务 4 人", "挖坑 标准", "手把一 3 人", "手把一 4 人"]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def search_args(game: Any, deal: int, budget: int) -> tuple:
    return game.to_json(), game.turn, deal * 100 + len(game.log), budget


async def start_ahead(pool: SearchPool, game: Any, deal: int, ns: argparse.Namespace,
                      started: dict[int, Search | None]) -> None:
    """The bot's ``ai_turn.ahead``: the run's first search when the pause begins; when a
    search answers, the next decision of the run (on a copy of the game) searches too."""
    game = type(game).from_json(game.to_json())
    for _ in range(ns.run):
        if game.over:
            return
        search = pool.start(*search_args(game, deal, ns.budget))
        started[len(game.log)] = search
        if search is None:
            return
        try:
            action = await asyncio.shield(asyncio.wrap_future(search.future))
        except Exception:  # noqa: BLE001 - the decision searches when its time comes
            return
        apply(game, game.turn, action)


async def table(i: int, pool: SearchPool, ns: argparse.Namespace, stop_at: float,
                waits: list[float], steps: list[float], cpu: list[float],
                how: dict[str, int], moves: list[float]) -> None:
    deal = i
    while time.perf_counter() < stop_at:
        kind, players, rules = CONFIGS[MIX[i % len(MIX)]]
        game = deal_to_play(kind, players, rules, 1000 * i + deal)
        deal += 1
        while not game.over and time.perf_counter() < stop_at:
            paused = time.perf_counter()
            started: dict[int, Search | None] = {}
            chain = None if ns.after_pause else asyncio.create_task(
                start_ahead(pool, game, deal, ns, started))
            await asyncio.sleep(ns.delay)
            for _ in range(ns.run):  # the run: its moves, then one post
                if game.over:
                    break
                seat = game.turn
                t = time.perf_counter()
                search = started.pop(len(game.log), None)
                if search is not None:
                    action = await pool.result(search)
                else:  # after the pause, or the pool was full when it began: search now
                    if chain is not None:
                        chain.cancel()
                    action = await pool.search(*search_args(game, deal, ns.budget))
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
            moves.append(time.perf_counter() - paused)
            if chain is not None:
                chain.cancel()
            for search in started.values():
                if search is not None:
                    search.cancel()


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
          f"{ns.searches} searches, delay {ns.delay} s, {ns.run} computer move(s) per pause, "
          f"{ns.seconds} s; search starts {when}")
    print(f"decisions: {len(waits)}; 困难 {how['困难']}, fell back to 普通 {how['普通']} "
          f"(pool full {pool.refused}, timed out {pool.timed_out}, failed {pool.failed}, "
          f"stuck workers restarted {pool.hung})")
    print(f"decision time: p50 {pct(waits, .5) * ms:.0f} ms, p99 {pct(waits, .99) * ms:.0f} ms, "
          f"max {max(waits, default=0) * ms:.0f} ms")
    print(f"post time (previous post to the run's post: the pause and {ns.run} move(s)): "
          f"p50 {pct(moves, .5) * ms:.0f} ms, "
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
    parser.add_argument("--run", type=int, default=1,
                        help="computer moves after each pause (consecutive computer seats)")
    parser.add_argument("--after-pause", action="store_true",
                        help="start each search when the pause has ended (the bot before)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
