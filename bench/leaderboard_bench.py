"""Leaderboard and history queries on generated records (a real SQLite file).

    python bench/leaderboard_bench.py [--games 100000] [--groups 1] [--players 60]

Writes ``--games`` finished games (3–4 seats each, random results over a year) spread
over ``--groups`` groups with ``--players`` regulars each, then times each query of
``paizhuo_db.history`` (median of 7 runs) and prints the query plan of the leaderboard.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import insert, text  # noqa: E402

from paizhuo_db.history import (  # noqa: E402
    game_by_number,
    leaderboard,
    most_played_game,
    period_start,
    player_history,
    recent_games,
)
from paizhuo_db.models import GameRecord, PlayerRecord  # noqa: E402
from paizhuo_db.store import Store  # noqa: E402

GAMES = ("抓特务", "挖坑", "手把一")
TABLE_SIZES = {"抓特务": (3, 4), "挖坑": (3,), "手把一": (3, 4)}
"""Players per recorded game of each kind (挖坑 is always three)."""
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


async def fill(store: Store, games: int, groups: int, players: int, seed: int) -> None:
    """Insert the generated records in batches (numbers assigned as the bot would)."""
    rng = random.Random(seed)
    seq = dict.fromkeys(range(groups), 0)
    batch_games, batch_players = [], []

    async def flush() -> None:
        async with store.engine.begin() as conn:
            await conn.execute(insert(GameRecord), batch_games)
            await conn.execute(insert(PlayerRecord), batch_players)
        batch_games.clear()
        batch_players.clear()

    for game_id in range(1, games + 1):
        group = rng.randrange(groups)
        seq[group] += 1
        kind = rng.choices(GAMES, weights=(5, 3, 2))[0]
        ended = NOW - timedelta(minutes=rng.randrange(365 * 24 * 60))
        sizes = TABLE_SIZES[kind]
        seats = rng.sample(range(players), sizes[0] if len(sizes) == 1 else rng.choice(sizes))
        batch_games.append({"id": game_id, "uid": f"bench-{game_id}", "game": kind,
                            "group_id": f"g{group}", "started_at": ended - timedelta(minutes=8),
                            "ended_at": ended, "settings": {}, "summary": {},
                            "group_seq": seq[group]})
        winner = rng.randrange(len(seats))
        for i, user in enumerate(seats):
            win = i == winner
            batch_players.append({"game_id": game_id, "group_id": f"g{group}", "game": kind,
                                  "user_id": str(100000 + user), "seat": i + 1, "role": "平民",
                                  "place": i + 1, "result": "win" if win else "loss",
                                  "points": 2 * (len(seats) - 1) if win else -2,
                                  "ended_at": ended})
        if len(batch_games) >= 5000:
            await flush()
    if batch_games:
        await flush()


async def timed(label: str, make, runs: int = 7) -> None:
    """Median wall time of ``runs`` awaits of ``make()``."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        await make()
        times.append(time.perf_counter() - t)
    print(f"{label:<44} {statistics.median(times) * 1000:8.2f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--groups", type=int, default=1)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
        await store.migrate()
        t = time.perf_counter()
        await fill(store, args.games, args.groups, args.players, args.seed)
        async with store.engine.begin() as conn:
            await conn.execute(text("ANALYZE"))
            seats = (await conn.execute(text("SELECT COUNT(*) FROM player_records"))).scalar()
        print(f"{args.games} games, {seats} seats in {args.groups} group(s), "
              f"written in {time.perf_counter() - t:.1f} s")
        caller = "100007"
        for period in ("all", "month", "week"):
            since = period_start(period, NOW)
            await timed(f"/排行 抓特务 {period} (top 10 + caller)",
                        lambda s=since: leaderboard(store, "g0", "抓特务", since=s, min_games=5,
                                                    caller=caller))
        await timed("default game (most played)", lambda: most_played_game(store, "g0"))
        await timed("/战绩 history (10 recent, streak, best/worst)",
                    lambda: player_history(store, "g0", caller))
        await timed("/对局 list (10 recent)", lambda: recent_games(store, "g0"))
        await timed("/对局 N", lambda: game_by_number(store, "g0", 1234))
        async with store.engine.connect() as conn:
            board = await leaderboard(store, "g0", "抓特务", since=None, min_games=5, caller=caller)
            print(f"board: {board.ranked} ranked, leader {board.top[0].user_id} "
                  f"{board.top[0].points:+d}")
            plan = await conn.execute(text(
                "EXPLAIN QUERY PLAN SELECT user_id, count(*), sum(points) FROM player_records "
                "WHERE group_id = 'g0' AND game = '抓特务' AND ended_at >= '2026-11-23' "
                "GROUP BY user_id"))
            for row in plan:
                print("plan:", row[-1])
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
