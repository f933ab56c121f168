"""Load benchmark: ``python bench/load.py --tables 1 20 200 [--pacing] [--think 0] [--side S]``.

Starts the real bot (``bot.py``, a fresh SQLite file), connects the project's simulator of
the protocol side ``--side`` (``onebot``: ``tools/onebot_sim.py`` over the real reverse
WebSocket, the default; ``milky`` / ``satori``: ``tools/milky_sim.py`` /
``tools/satori_sim.py``, which the bot dials through its real adapter) and plays K concurrent
3-player 抓特务 tables with simulated players (each table plays game after game until the
run's move budget is spent; every table is opened and dealt before the measuring
starts). Measures, for every accepted play or pass, the time from the player's message
to that table's group announcement; and, interleaved in the same run on
the same connection, the *floor*: the time from NoneBot's own echo command (``@bot /echo
x`` in a group with no table; the bot runs as ``bench/echo_bot.py``, which is ``bot.py``
with NoneBot's built-in ``echo`` plugin) to its answer. Prints p50 / p99 of both and their
ratios, failed moves (no answer within the timeout) and ``database is locked`` lines in
the log.

``--pacing`` keeps the bot's default send pacing (otherwise pacing is off:
``PAIZHUO_SEND_INTERVAL=0``), ``--rate R`` paces at R messages a second instead (``PAIZHUO_SEND_RATE``);
``--think`` is a human think time in seconds before each move. ``--root DIR`` runs the bot
of another checkout of the project (its ``bot.py``, ``bench/echo_bot.py`` and ``src/``),
so two versions are measured side by side in one run (``--root`` of an older commit,
then this tree).
``--pictures`` turns the pictures on (``PAIZHUO_IMAGES=true``: the end-of-game details
are drawn at every game end, with the font installed with the bot or ``PAIZHUO_FONT``);
``--picture-table`` also turns on 图片桌面 in every group (a table picture after every
move). Pictures are counted, not read: the latencies are those of the texts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.milky_sim import MilkySim, milky_mention, milky_text  # noqa: E402
from tools.onebot_sim import BotProcess, OneBotSim, Sent  # noqa: E402
from tools.players import SimPlayer, attach  # noqa: E402
from tools.satori_sim import SatoriSim, satori_at  # noqa: E402
from tools.sim_base import ChatSim  # noqa: E402

FLOOR_GROUP = 999_999
FLOOR_USER = 888_888
TOKEN = "load"
SELF_ID = 10001
ECHO = [{"type": "at", "data": {"qq": str(SELF_ID)}}, {"type": "text", "data": {"text": " /echo 1"}}]
"""The floor command: NoneBot's echo, addressed to the bot (its rule needs ``to_me``)."""
SIDES: dict[str, tuple[type[ChatSim], list]] = {
    "onebot": (OneBotSim, ECHO),
    "milky": (MilkySim, [milky_mention(SELF_ID), milky_text(" /echo 1")]),
    "satori": (SatoriSim, [satori_at(SELF_ID), " /echo 1"]),
}
"""Each side's simulator and its floor command (an @ of the bot and ``/echo 1``)."""


class Inboxes:
    """Every group message the bot sends, per group, with its arrival time."""

    def __init__(self) -> None:
        self.queues: dict[int, asyncio.Queue[tuple[float, Sent]]] = defaultdict(asyncio.Queue)
        self.pictures = 0

    def __call__(self, sent: Sent) -> None:
        if any(seg.get("type") == "image" for seg in sent.segments):
            self.pictures += 1
            return
        if sent.kind == "group":
            self.queues[sent.target].put_nowait((time.perf_counter(), sent))

    async def next(self, group_id: int, timeout: float) -> tuple[float, Sent]:
        return await asyncio.wait_for(self.queues[group_id].get(), timeout)


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds the process ``pid`` has used (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else float("nan")


async def drive_table(sim: ChatSim, inbox: Inboxes, gid: int, players: list[SimPlayer],
                      budget: list[int], think: float, lat: list[float], fails: list[int],
                      attempts: list[int], timeout: float, seated: asyncio.Barrier,
                      picture_table: bool = False) -> None:
    """Open a table in ``gid``, seat ``players``, wait at ``seated`` until every table
    is dealt, then play games until ``budget[0]`` (moves left in the whole run) is
    spent."""
    ids = {p.user_id: p for p in players}
    if picture_table:  # players[0] is the group's admin
        await sim.group_message(gid, players[0].user_id, "/设置 抓特务 图片桌面 开")
        await inbox.next(gid, timeout)
    await sim.group_message(gid, players[0].user_id, "/开局 抓特务 三人")
    await inbox.next(gid, timeout)
    for p in players[1:]:
        await sim.group_message(gid, p.user_id, "/加入")
        _, joined = await inbox.next(gid, timeout)
        if "开局" in joined.text:
            inbox.queues[gid].put_nowait((0.0, joined))
    await seated.wait()  # measure play, not the storm of tables opening at once
    await asyncio.sleep(random.Random(gid).uniform(0, think))  # groups do not move in step
    while budget[0] > 0:
        try:
            _, msg = await inbox.next(gid, timeout)
        except TimeoutError:
            fails[0] += 1
            for p in players:  # nudge: a new game if the last one ended unseen
                await sim.group_message(gid, p.user_id, "/继续")
            continue
        if "本局结束" in msg.text:
            for p in players:
                await sim.group_message(gid, p.user_id, "/继续")
            continue
        if "轮到 @" not in msg.text:
            continue
        who = [u for u in msg.at if u in ids]
        if not who:
            continue
        player = ids[who[-1]]
        await asyncio.sleep(think or 0.01)  # let the private hand update land
        for command in player.candidates(msg.text):
            attempts[0] += 1
            t0 = time.perf_counter()
            await sim.group_message(gid, player.user_id, command)
            try:
                t1, answer = await inbox.next(gid, timeout)
            except TimeoutError:
                fails[0] += 1
                break
            refused = answer.at == [player.user_id] and "轮到 @" not in answer.text
            if refused:
                continue
            lat.append(t1 - t0)
            budget[0] -= 1
            inbox.queues[gid].put_nowait((t1, answer))  # the announcement holds the next prompt
            break


async def drive_floor(sim: ChatSim, inbox: Inboxes, lat: list[float], stop: asyncio.Event,
                      echo: list) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        await sim.group_message(FLOOR_GROUP, FLOOR_USER, echo)
        try:
            t1, _ = await inbox.next(FLOOR_GROUP, 30)
            lat.append(t1 - t0)
        except TimeoutError:
            pass
        await asyncio.sleep(0.05)


async def run(tables: int, moves: int, pacing: bool, think: float,
              script: str = "bench/echo_bot.py", extra_env: dict[str, str] | None = None,
              pictures: bool = False, picture_table: bool = False, side: str = "onebot",
              root: str | None = None) -> dict:
    """One measured run (see the module docstring); ``script`` is the bot's entry point
    (``bench/stages.py`` passes its probed bot) and ``extra_env`` adds to its environment;
    ``side`` the protocol side; ``root`` another checkout to run the bot of."""
    with tempfile.TemporaryDirectory() as tmp:
        sim = SIDES[side][0](self_id=SELF_ID)
        env = {} if pacing else {"PAIZHUO_SEND_INTERVAL": "0"}
        env.update(sim.bot_env(TOKEN))
        if root is not None:
            env["PYTHONPATH"] = str(Path(root).resolve() / "src")
        env["LOG_LEVEL"] = "WARNING"
        if pictures or picture_table:
            env["PAIZHUO_IMAGES"] = "true"
        env.update(extra_env or {})
        bot = BotProcess(Path(tmp) / "bot.log", access_token=TOKEN,
                         database_url=f"sqlite+aiosqlite:///{tmp}/load.db", env=env,
                         script=script, root=root)
        if pacing:
            # BotProcess lowers the pacing for tests; measure the bot's own default.
            bot.build_env_base = bot.build_env
            bot.build_env = lambda: {k: v for k, v in bot.build_env_base().items()  # type: ignore[method-assign]
                                     if k != "PAIZHUO_SEND_INTERVAL"}
        async with bot:
            inbox = Inboxes()
            sim.listeners.append(inbox)
            groups = []
            for t in range(tables):
                gid = 500_000 + t
                players = [SimPlayer(7_000_000 + t * 10 + i, f"玩家{i}") for i in range(3)]
                for p in players:
                    sim.add_member(gid, p.user_id, p.name,
                                   role="admin" if p is players[0] else "member")
                    sim.add_friend(p.user_id, p.name)
                groups.append((gid, players))
            attach(sim, [p for _, ps in groups for p in ps])
            await sim.connect(bot.url, TOKEN)
            lat: list[float] = []
            floor: list[float] = []
            fails = [0]
            budget = [moves]
            stop = asyncio.Event()
            attempts = [0]
            seated = asyncio.Barrier(tables + 1)
            playing = asyncio.gather(*(drive_table(sim, inbox, gid, ps, budget, think, lat, fails,
                                                   attempts, 60, seated, picture_table)
                                       for gid, ps in groups))
            await seated.wait()
            await asyncio.sleep(1.0)  # the deal's hands and prompts go out
            started = time.perf_counter()
            cpu0 = cpu_seconds(bot.pid)
            floor_task = asyncio.create_task(drive_floor(sim, inbox, floor, stop, SIDES[side][1]))
            await playing
            stop.set()
            await floor_task
            elapsed = time.perf_counter() - started
            cpu = cpu_seconds(bot.pid) - cpu0
            await (sim.stop() if hasattr(sim, "stop") else sim.close())
        log = (Path(tmp) / "bot.log").read_text(errors="replace")
    return {"tables": tables, "moves": len(lat), "elapsed": elapsed, "fails": fails[0],
            "attempts": attempts[0], "cpu_per_move": cpu / max(1, len(lat)),
            "events": len(sim.events), "cpu": cpu,
            "locked": log.count("database is locked"),
            "p50": statistics.median(lat) if lat else float("nan"), "p99": pct(lat, 0.99),
            "floor_p50": statistics.median(floor) if floor else float("nan"),
            "floor_p99": pct(floor, 0.99), "floor_n": len(floor), "pictures": inbox.pictures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 20, 200])
    parser.add_argument("--moves", type=int, default=600, help="accepted moves per run")
    parser.add_argument("--pacing", action="store_true", help="keep the default send pacing")
    parser.add_argument("--rate", type=float, default=None,
                        help="pace at this many messages a second (PAIZHUO_SEND_RATE)")
    parser.add_argument("--think", type=float, default=0.0, help="seconds before each move")
    parser.add_argument("--pictures", action="store_true", help="pictures on (PAIZHUO_IMAGES)")
    parser.add_argument("--picture-table", action="store_true",
                        help="pictures on and 图片桌面 on in every group")
    parser.add_argument("--side", choices=sorted(SIDES), default="onebot",
                        help="the protocol side (default onebot)")
    parser.add_argument("--root", default=None,
                        help="run the bot of this checkout of the project (default: this one)")
    ns = parser.parse_args()
    extra = None if ns.rate is None else {"PAIZHUO_SEND_RATE": f"{ns.rate:g}"}
    pacing = ns.pacing or ns.rate is not None
    label = f"PAIZHUO_SEND_RATE={ns.rate:g}" if ns.rate is not None else "on (default)" if ns.pacing else "off"
    shown = ("on, 图片桌面 on" if ns.picture_table else "on (details at game end)" if ns.pictures
             else "off")
    print(f"side {ns.side}{f' (bot of {ns.root})' if ns.root else ''}, pacing {label}, "
          f"think time {ns.think} s, {ns.moves} moves per run, pictures {shown}")
    print("| 桌数 | 步数 | 公告 p50 | 公告 p99 | 地板 p50 | 地板 p99 | p50 倍数 | p99 倍数 | 失败 | locked "
          "| 每步尝试 | 每步 CPU | 步/秒 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in ns.tables:
        r = asyncio.run(run(k, max(ns.moves, 3 * k), pacing, ns.think, extra_env=extra,
                            pictures=ns.pictures, picture_table=ns.picture_table,
                            side=ns.side, root=ns.root))
        print(f"| {k} | {r['moves']} | {r['p50'] * 1e3:.1f} ms | {r['p99'] * 1e3:.1f} ms | "
              f"{r['floor_p50'] * 1e3:.1f} ms | {r['floor_p99'] * 1e3:.1f} ms | "
              f"{r['p50'] / r['floor_p50']:.1f}× | {r['p99'] / r['floor_p99']:.1f}× | "
              f"{r['fails']} | {r['locked']} | {r['attempts'] / max(1, r['moves']):.2f} | "
              f"{r['cpu_per_move'] * 1e3:.1f} ms | {r['moves'] / r['elapsed']:.1f} |", flush=True)
        if ns.pictures or ns.picture_table:
            print(f"  ({k} 桌：收到图片 {r['pictures']} 张)", flush=True)


if __name__ == "__main__":
    main()
