"""CPU per event benchmark: ``python bench/event_cpu.py [--events 200] [--gap 0.03]``.

Starts the real bot (``bench/echo_bot.py``: ``bot.py`` with NoneBot's echo command) on a
fresh SQLite file, connects the OneBot simulator and sends, one at a time with ``--gap``
seconds between them, each kind of group message in a group with no table: NoneBot's
``@bot /echo x``, ``/手牌`` (our command, answered), ``/牌桌`` (answered "no table") and
plain chat (answered by nobody). Prints, per kind, the bot process's CPU time per event
and the reply's median latency. What NoneBot's matcher machinery costs per message is
the difference between these and an idle bot.
"""

from __future__ import annotations

import argparse
import asyncio
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
         ("闲聊（无人回答）", "今天谁来打牌", False)]


async def run(events: int, gap: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bot = BotProcess(Path(tmp) / "bot.log", access_token="cpu",
                         database_url=f"sqlite+aiosqlite:///{tmp}/cpu.db",
                         env={"SEND_INTERVAL": "0", "LOG_LEVEL": "WARNING"},
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
                    await sim.group_message(4242, 777, message)
                    if answered:
                        latency.append(await asyncio.wait_for(replies.get(), 10) - sent)
                    await asyncio.sleep(gap)
                await asyncio.sleep(0.5)  # the last event's work ends
                cpu = (cpu_seconds(bot.pid) - before) / events
                p50 = f"{statistics.median(latency) * 1e3:.1f} ms" if latency else "—"
                print(f"| {label} | {cpu * 1e3:.1f} ms | {p50} |", flush=True)
            await sim.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--gap", type=float, default=0.03)
    ns = parser.parse_args()
    asyncio.run(run(ns.events, ns.gap))


if __name__ == "__main__":
    main()
