"""CPU of 困难's play search per decision, side by side with another checkout:
``python bench/search_cpu.py [--games 6] [--samples 16] [--compare /path/to/other/checkout]``.

Plays ``--games`` self-play deals of each game with 普通 (seeds 5000 on), and at every
decision of every seat runs :func:`paizhuo_engine.ai.search.search_decide` with
``--samples`` deals per candidate — no clock, so each search does the same work on every
run — timing the process CPU. Prints, per game, the decisions searched (more than one
candidate, no sure way out), the CPU per searched decision and a digest of every
decision taken.

``--compare DIR`` runs the same positions with the engine of the checkout at ``DIR`` (its
``src/``) in a child process, alternating rounds so both see the same machine load, and
prints the ratio (this checkout's CPU / the other's) and whether the decisions are the
same: an optimisation that must not change play shows equal digests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def positions(name: str, games: int) -> list[tuple[dict, int, int]]:
    """Every decision of ``games`` self-play deals of ``name`` (普通 in every seat):
    ``(state, seat, seed)``."""
    from tournament import CONFIGS, apply, deal_to_play

    from paizhuo_engine.ai.strategy import PlanStrategy

    kind, players, rules = CONFIGS[name]
    normal = PlanStrategy()
    out = []
    for seed in range(games):
        game = deal_to_play(kind, players, rules, 5000 + seed)
        while not game.over:
            seat = game.turn
            out.append((game.to_json(), seat, 7919 * seed + len(out)))
            apply(game, seat, normal.choose(game, seat))
    return out


def measure(batch: list[tuple[dict, int, int]], samples: int) -> tuple[float, int, str]:
    """(CPU seconds, decisions searched, digest of the actions) for ``batch``."""
    from paizhuo_engine.ai.search import search_decide

    digest = hashlib.sha256()
    searched = 0
    t = time.process_time()
    for state, seat, seed in batch:
        info: dict = {}
        action = search_decide(state, seat, seed, samples, info=info)
        searched += bool(info)
        digest.update(repr((action.kind, action.cards)).encode())
    return time.process_time() - t, searched, digest.hexdigest()[:12]


def child() -> None:
    """Measure the pickled batch on stdin; print JSON on stdout (``--child``)."""
    batch, samples = pickle.load(sys.stdin.buffer)
    cpu, searched, digest = measure(batch, samples)
    print(json.dumps([cpu, searched, digest]))


def main() -> None:
    from tournament import CONFIGS

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds with --compare")
    parser.add_argument("--only", nargs="*", default=list(CONFIGS), help="subset of the games")
    parser.add_argument("--compare", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.child:
        child()
        return
    sys.path.insert(0, str(ROOT))

    def run(src: Path | None, batch: list, samples: int) -> tuple[float, int, str]:
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = str(src / "src")
        proc = subprocess.run([sys.executable, __file__, "--child"],
                              input=pickle.dumps((batch, samples)), capture_output=True,
                              env=env, check=True)
        cpu, searched, digest = json.loads(proc.stdout)
        return cpu, searched, digest

    print(f"{ns.games} self-play deals per game, {ns.samples} samples per candidate")
    if ns.compare:
        print("| 游戏 | 搜索的决定 | 这里 CPU/决定 | 对照 CPU/决定 | 比 | 决定相同 |")
        print("| --- | --- | --- | --- | --- | --- |")
    else:
        print("| 游戏 | 搜索的决定 | CPU/决定 | 决定摘要 |")
        print("| --- | --- | --- | --- |")
    for name in ns.only:
        batch = positions(name, ns.games)
        if not ns.compare:
            cpu, searched, digest = run(ROOT, batch, ns.samples)
            print(f"| {name} | {searched} | {cpu / max(1, searched) * 1e3:.1f} ms | {digest} |",
                  flush=True)
            continue
        here = other = 0.0
        for _ in range(ns.rounds):
            cpu_a, searched, digest_a = run(ROOT, batch, ns.samples)
            cpu_b, _searched, digest_b = run(ns.compare.resolve(), batch, ns.samples)
            here += cpu_a
            other += cpu_b
        per = max(1, searched) * ns.rounds
        print(f"| {name} | {searched} | {here / per * 1e3:.1f} ms | {other / per * 1e3:.1f} ms | "
              f"{here / other:.2f} | {'是' if digest_a == digest_b else '否'} |", flush=True)


if __name__ == "__main__":
    main()
