"""Engine benchmark: ``python bench/engine_bench.py``.

Prints how fast the 抓特务 engine classifies plays, plays whole random games, and saves /
restores a game as JSON (the work done after every accepted move), plus the size of a
saved state. Figures go in docs/benchmarks.md (引擎、存档、出牌生成、战绩查询).
"""

from __future__ import annotations

import json
import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paizhuo_engine.cards import rank_of  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules, classify  # noqa: E402


def random_game(seed: int, players: int) -> tuple[ZGame, int]:
    rnd = random.Random(seed)
    g = ZGame.deal(players, ZRules(), seed)
    g.declare_timeout()
    moves = 0
    while not g.over:
        seat = g.turn
        groups: dict[int, list[int]] = {}
        for c in g.hands[seat]:
            groups.setdefault(rank_of(c), []).append(c)
        group = groups[rnd.choice(list(groups))]
        try:
            g.play(seat, group[: rnd.randint(1, len(group))])
        except MoveError:
            if g.lead is None:
                g.play(seat, [g.hands[seat][0]])
            else:
                g.pass_turn(seat)
        moves += 1
    return g, moves


def main() -> None:
    rules = ZRules()
    rnd = random.Random(1)
    plays = [rnd.sample(range(54), rnd.randint(1, 12)) for _ in range(20000)]
    t = time.perf_counter()
    for p in plays:
        classify(p, rules)
    dt = time.perf_counter() - t
    print(f"classify: {len(plays) / dt:,.0f} plays/s ({dt / len(plays) * 1e6:.1f} µs each)")

    for players in (3, 4):
        t = time.perf_counter()
        total_moves = 0
        n = 300
        for seed in range(n):
            total_moves += random_game(seed, players)[1]
        dt = time.perf_counter() - t
        print(f"{players}-player random games: {n / dt:,.0f} games/s, "
              f"{total_moves / dt:,.0f} moves/s ({total_moves / n:.0f} moves per game)")

    g, _ = random_game(7, 4)
    mid = ZGame.deal(4, rules, 7)
    mid.declare_timeout()
    for _ in range(20):
        if mid.lead is None:
            mid.play(mid.turn, [mid.hands[mid.turn][0]])
        else:
            mid.pass_turn(mid.turn)
    n = 5000
    t = time.perf_counter()
    for _ in range(n):
        ZGame.from_json(json.loads(json.dumps(mid.to_json())))
    dt = time.perf_counter() - t
    print(f"save+restore (JSON) mid-game: {dt / n * 1e6:.0f} µs; "
          f"saved state {len(json.dumps(mid.to_json()))} bytes mid-game, "
          f"{len(json.dumps(g.to_json()))} bytes at the end")

    tracemalloc.start()
    games = [ZGame.deal(4, rules, s) for s in range(1000)]
    current, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: {current / len(games) / 1024:.1f} KiB per live 4-player game")


if __name__ == "__main__":
    main()
