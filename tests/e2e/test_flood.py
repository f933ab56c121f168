"""A member who floods the bot (60 commands in 3 s) through the real bot at the shipped
pacing (one message a second, three at once): the account sends no more than its rate
allows while the flood lasts and nothing after it — a waiting reply is replaced by the
same newer one — and the member is told once, privately (they sit at a table, so the bot
is their friend), that they go too fast. On every side: the limit finds the sender of a
Milky or Satori message too."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from sides_support import SIDES, make_sim, running

GROUP = 73001
MEMBER = 7301
FLOOD = 60
SECONDS = 3.0
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = re.search(r"^PAIZHUO_COMMAND_LIMIT=(\S+)$", (ROOT / ".env.example").read_text("utf-8"),
                    re.M).group(1)
"""The command limit as shipped (the simulator turns the limits off unless asked)."""


@pytest.mark.parametrize("side", SIDES)
async def test_a_flood_costs_the_send_rate_and_is_told_once(tmp_path: Path, side: str) -> None:
    sim = make_sim(side)
    sim.add_member(GROUP, MEMBER, "甲")
    sim.add_friend(MEMBER, "甲")
    async with running(sim, tmp_path, env={"PAIZHUO_COMPUTER_DELAY": "0.1",
                                           "PAIZHUO_SEND_RATE": "1", "PAIZHUO_SEND_BURST": "3",
                                           "PAIZHUO_COMMAND_LIMIT": SHIPPED}):
        await sim.group_message(GROUP, MEMBER, "/开局 抓特务 三人")
        await sim.wait_for_text("开了一桌", kind="group")
        await sim.group_message(GROUP, MEMBER, "/加机器人 2")
        await sim.wait_for_text("开局！", kind="group")
        await sim.wait_idle(quiet=3.0, timeout=30)  # the deal's messages are out
        since = sim.mark()
        start = time.time()  # the clock of Sent.time
        for _ in range(FLOOD):
            await sim.group_message(GROUP, MEMBER, "/牌桌")
            await asyncio.sleep(SECONDS / FLOOD)
        ended = time.time()
        await sim.wait_idle(quiet=4.0, timeout=60)
    sent = sim.sent_since(since)
    notices = [s for s in sent if "你发得太快了" in s.text]
    assert [(s.kind, s.target) for s in notices] == [("private", MEMBER)], [str(s) for s in sent]
    tables = [s for s in sent if s.kind == "group" and "【抓特务】" in s.text]
    assert tables  # the member was answered before the limit
    # No more than the account's rate (three at once, then one a second) ...
    times = sorted(s.time for s in sent)
    for i in range(len(times)):
        for j in range(i, len(times)):
            assert j - i + 1 <= 3 + (times[j] - times[i]) * 1.0 + 0.5, times
    # ... and no backlog after the flood: the replies still waiting collapsed into one.
    assert len(sent) <= 3 + (ended - start) + 2, [str(s) for s in sent]
    assert max(times) - ended < 2.5, (max(times) - ended, [str(s) for s in sent])
