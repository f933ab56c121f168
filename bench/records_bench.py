"""The texts of /对局 and /对局 N for games with computer seats, in records written with
every seat and in older records (computer seats only as ``computer_seats``, whose results
the list reads by re-running each game's replay).

    python bench/records_bench.py [--runs 20]

Plays ten games of each kind (one person, the rest computer players) with the engine,
records them both ways and prints the median time of the /对局 list of the ten and of one
/对局 N replay text, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import nonebot  # noqa: E402

nonebot.init(log_level="WARNING")

from history_support import play_out  # noqa: E402

from nonebot_plugin_paizhuo.games import GAMES  # noqa: E402
from nonebot_plugin_paizhuo.games.base import SeatView  # noqa: E402
from nonebot_plugin_paizhuo.history_texts import games_list_text, replay_text  # noqa: E402
from nonebot_plugin_paizhuo.replay import capture  # noqa: E402
from paizhuo_db.history import GameEntry, record_seats  # noqa: E402
from paizhuo_db.records import seats_summary  # noqa: E402

SIZES = {"抓特务": 4, "挖坑": 3, "手把一": 4}


def entries(game: str, old: bool) -> list[GameEntry]:
    adapter = GAMES[game]
    size = SIZES[game]
    seats = [SeatView("101", "甲")] + [SeatView(f"ai:{n}", f"电脑{n}") for n in range(1, size)]
    now = datetime.now(UTC)
    out = []
    for n in range(10):
        engine = adapter.new_game(size, adapter.schema.clean({}), n, None)
        play_out(adapter, engine, seats, random.Random(n))
        record = adapter.record(engine, seats, uid=f"{game}{n}", group_id="1", started_at=now,
                                ended_at=now)
        summary = {**record.summary, "replay": capture(engine)}
        if old:
            summary.update(names=[s.name for s in seats], computer_seats=list(range(2, size + 1)))
        else:
            summary["seats"] = seats_summary([s.user_id for s in seats], [s.name for s in seats],
                                             record.players)
        players = [(p.user_id, p.seat, p.role, p.place, p.result, p.points)
                   for p in record.players if not p.user_id.startswith("ai:")]
        out.append(GameEntry(n + 1, f"{game}{n}", game, now, now, False, {}, summary, players,
                             record_seats(summary, players)))
    return out


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"{'game':6} {'record':14} {'/对局 (10 games)':>17} {'/对局 N':>9}")
    for game in SIZES:
        for old in (False, True):
            es = entries(game, old)
            listing = median_ms(lambda es=es: games_list_text(es, {}), args.runs)
            one = median_ms(lambda es=es: replay_text(es[0], {}), args.runs)
            kind = "computer_seats" if old else "every seat"
            print(f"{game:6} {kind:14} {listing:14.2f} ms {one:6.2f} ms")


if __name__ == "__main__":
    main()
