"""CPU per event benchmark: ``python bench/event_cpu.py [--events 200] [--gap 0.03]
[--computer-games 0]``.

Starts the real bot (``bench/echo_bot.py``: ``bot.py`` with NoneBot's echo command) on a
fresh SQLite file, connects the OneBot simulator and sends, one at a time with ``--gap``
seconds between them, each kind of group message in a group with no table: NoneBot's
``@bot /echo x``, ``/手牌`` (our command, answered), ``/牌桌`` (answered "no table") and
plain chat (answered by nobody). Prints, per kind, the bot process's CPU time per event
and the reply's median latency. What NoneBot's matcher machinery costs per message is
the difference between these and an idle bot.

``--computer-games N`` then plays N games of 挖坑 of two computer seats (电脑, no pause:
``PAIZHUO_COMPUTER_DELAY=0``) and one person in 托管 (played for like a computer), one after
another, and prints the bot's CPU time per move (bids, the bury and every play or
pass, as announced in the group) — the timers, the strategy, the save and the sends of
a move together.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import cpu_seconds  # noqa: E402
from tools.onebot_sim import BotProcess, OneBotSim  # noqa: E402

SELF_ID = 10001
AT = {"type": "at", "data": {"qq": str(SELF_ID)}}
KINDS = [("echo", [AT, {"type": "text", "data": {"text": " /echo x"}}], True),
         ("/手牌", "/手牌", True), ("/牌桌（没有牌桌）", "/牌桌", True),
         ("/帮助 挖坑", "/帮助 挖坑", True),
         ("闲聊（无人回答）", "今天谁来打牌", False)]


GROUP = 4242
OPENER = 777
ADMIN = 9
MOVE_LINE = re.compile(r"^(?:电脑\d+|甲) (?:出 |过|叫|不叫)", re.M)
"""A move as the group is told it (a play, a pass, a bid)."""


async def computer_games(sim: OneBotSim, pid: int | None, games: int) -> None:
    """Play ``games`` games of 挖坑: one person in 托管 (the bot plays for them as for a
    computer) and two computer seats; print CPU per move."""
    sim.add_member(GROUP, ADMIN, "管理", role="admin")
    sim.add_member(GROUP, OPENER, "甲")
    sim.add_friend(OPENER, "甲")
    moves, cpu = 0, 0.0
    for _ in range(games):
        await sim.group_message(GROUP, OPENER, "/开局 挖坑")
        await sim.wait_for_text("开了一桌", kind="group", since=sim.mark() - 1)
        await sim.wait_idle(quiet=0.3)
        since = sim.mark()
        before = cpu_seconds(pid)
        await sim.group_message(GROUP, OPENER, "/加机器人 2")
        await sim.wait_for_text("开局", kind="group", since=since)
        await sim.group_message(GROUP, OPENER, "/托管")
        await sim.wait_for_text("本局结束", kind="group", since=since, timeout=120)
        await sim.wait_idle(quiet=0.3)
        cpu += cpu_seconds(pid) - before
        moves += sum(len(MOVE_LINE.findall(s.text)) + ("扣底完成" in s.text)
                     for s in sim.sent[since:] if s.kind == "group")
        mark = sim.mark()
        await sim.group_message(GROUP, ADMIN, "/结束")
        await sim.wait_for_text("牌桌已关闭", kind="group", since=mark)
    print(f"电脑对局：{games} 局 挖坑，{moves} 步，每步 CPU {cpu / max(moves, 1) * 1e3:.2f} ms",
          flush=True)


async def run(events: int, gap: float, games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bot = BotProcess(Path(tmp) / "bot.log", access_token="cpu",
                         database_url=f"sqlite+aiosqlite:///{tmp}/cpu.db",
                         env={"PAIZHUO_SEND_INTERVAL": "0", "LOG_LEVEL": "WARNING",
                              "PAIZHUO_COMPUTER_DELAY": "0", "PAIZHUO_DEAL_SEED": "11"},
                         script="bench/echo_bot.py")
        async with bot:
            sim = OneBotSim(self_id=SELF_ID)
            replies: asyncio.Queue[float] = asyncio.Queue()
            sim.listeners.append(lambda _s: replies.put_nowait(time.perf_counter()))
            await sim.connect(bot.url, "cpu")
            await asyncio.sleep(1.0)
            before = cpu_seconds(bot.pid)
            await asyncio.sleep(2.0)
            print(f"idle: {(cpu_seconds(bot.pid) - before) / 2 * 1e3:.1f} ms CPU per second")
            print("| 消息 | 每条 CPU | 回复 p50 |")
            print("| --- | --- | --- |")
            for label, message, answered in KINDS:
                before = cpu_seconds(bot.pid)
                latency: list[float] = []
                for _ in range(events):
                    sent = time.perf_counter()
                    await sim.group_message(GROUP, OPENER, message)
                    if answered:
                        latency.append(await asyncio.wait_for(replies.get(), 10) - sent)
                    await asyncio.sleep(gap)
                await asyncio.sleep(0.5)  # the last event's work ends
                cpu = (cpu_seconds(bot.pid) - before) / events
                p50 = f"{statistics.median(latency) * 1e3:.1f} ms" if latency else "—"
                print(f"| {label} | {cpu * 1e3:.1f} ms | {p50} |", flush=True)
            if games:
                await computer_games(sim, bot.pid, games)
            await sim.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--gap", type=float, default=0.03)
    parser.add_argument("--computer-games", type=int, default=0,
                        help="then play this many 挖坑 games of three computer seats")
    ns = parser.parse_args()
    asyncio.run(run(ns.events, ns.gap, ns.computer_games))


if __name__ == "__main__":
    main()
