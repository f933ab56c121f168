"""How many sampled deals 困难 finishes within its budget on this machine:
``python bench/hard_budget.py [--budget-ms 300] [--games 3]``.

Plays ``--games`` self-play games of every game and table size with 普通 and, at every
decision where 困难 would search (more than one candidate, no sure way out), runs
:func:`paizhuo_engine.ai.search.search_decide` the way the worker does
(:func:`paizhuo_ai_worker.worker_search`: stop at 70% of the budget, wall clock) and
records the candidates compared, the samples completed and the CPU time. Prints per game
the median and 10th percentile of samples completed and the CPU per searched decision —
the figure ``bench/tournament.py --samples`` should match so that its results stand for
the default budget.

``--setup``: the same for the decisions before play (挖坑 叫分 and 扣底, the 抓特务 spy's
明 / 暗) by :func:`paizhuo_engine.ai.setup_search.search_setup` at twice the budget (as the
bot gives them), on ``--games`` deals of each game that has them — the figure for ``bench/tournament.py --setup-samples``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tournament import CONFIGS, apply, deal_to_play  # noqa: E402

from paizhuo_ai_worker import SETUP_BUDGET_FACTOR  # noqa: E402
from paizhuo_engine.ai.search import search_decide  # noqa: E402
from paizhuo_engine.ai.setup_search import (  # noqa: E402
    normal_setup,
    search_setup,
    setup_phase,
    take_setup,
)
from paizhuo_engine.ai.strategy import PlanStrategy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget-ms", type=int, default=300)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--cap", type=int, default=64, help="samples at most (the worker's)")
    parser.add_argument("--only", nargs="*", default=list(CONFIGS), help="subset of the games")
    parser.add_argument("--setup", action="store_true",
                        help="the decisions before play (bids, burials, 明/暗) instead")
    ns = parser.parse_args()
    if ns.setup:
        setup_budget(ns)
        return
    normal = PlanStrategy()
    print(f"budget {ns.budget_ms} ms (search stops at 70%); {ns.games} games each")
    print("| 游戏 | 搜索的决定 | 候选 中位 | 补全 中位 | 补全 P10 | CPU/决定 中位 | CPU/决定 最长 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in ns.only:
        kind, players, rules = CONFIGS[name]
        samples, cands, cpus = [], [], []
        for seed in range(ns.games):
            game = deal_to_play(kind, players, rules, 1000 + seed)
            while not game.over:
                seat = game.turn
                info, cpu = timed(search_decide, game, seat, seed, ns.cap, ns.budget_ms)
                if info:
                    samples.append(info["samples"])
                    cands.append(info["candidates"])
                    cpus.append(cpu)
                apply(game, seat, normal.choose(game, seat))
        print_row(name, cands, samples, cpus)


def timed(search: Any, game: Any, seat: int, seed: int, cap: int,
          budget_ms: int) -> tuple[dict, float]:
    """Run ``search`` (``search_decide`` / ``search_setup``) the way the worker does — stop
    at 70% of ``budget_ms``, wall clock — and return its ``info`` and CPU seconds."""
    deadline = time.monotonic() + budget_ms * 0.7 / 1000
    info: dict = {}
    t = time.process_time()
    search(game.to_json(), seat, seed, cap, lambda: time.monotonic() >= deadline, info=info)
    return info, time.process_time() - t


def print_row(name: str, compared: list[int], samples: list[int], cpus: list[float]) -> None:
    """One table row: decisions, median moves (options) compared, median and P10 samples
    completed, median and longest CPU per decision."""
    samples = sorted(samples)
    print(f"| {name} | {len(samples)} | {statistics.median(compared):.0f} | "
          f"{statistics.median(samples):.0f} | {samples[len(samples) // 10]} | "
          f"{statistics.median(cpus) * 1e3:.0f} ms | {max(cpus) * 1e3:.0f} ms |", flush=True)


def setup_budget(ns: argparse.Namespace) -> None:
    """``--setup``: samples completed per decision before play within the budget."""
    from paizhuo_engine.wakeng.game import WGame
    from paizhuo_engine.zhuatewu.game import ZGame

    budget = ns.budget_ms * SETUP_BUDGET_FACTOR
    print(f"budget {budget} ms ({SETUP_BUDGET_FACTOR} × {ns.budget_ms}, search stops at 70%); "
          f"{ns.games} deals each; decisions before play")
    print("| 游戏 | 决定 | 选项 中位 | 补全 中位 | 补全 P10 | CPU/决定 中位 | CPU/决定 最长 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in ns.only:
        kind, players, rules = CONFIGS[name]
        if kind == "shoubayi":
            continue
        samples, options, cpus = [], [], []
        for seed in range(ns.games):
            game = (WGame.deal(rules, 1000 + seed) if kind == "wakeng"
                    else ZGame.deal(players, rules, 1000 + seed))
            while not game.over and game.phase != "play":
                owing = [s for s in range(players) if setup_phase(game, s)]
                if not owing:
                    break
                for seat in owing:
                    info, cpu = timed(search_setup, game, seat, seed, ns.cap, budget)
                    if info:
                        samples.append(info["samples"])
                        options.append(info["options"])
                        cpus.append(cpu)
                    take_setup(game, seat, normal_setup(game, seat))
        if samples:
            print_row(name, options, samples, cpus)


if __name__ == "__main__":
    main()
