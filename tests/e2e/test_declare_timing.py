"""RULES.md G-4: the 明/暗 phase (Z-9) tells the group nothing by its length.

Through the real bot: many tables of 抓特务 for one person and three computer players, the
person answering after a reading time drawn the same way whatever their role. The time
the group sees between the deal's post and the post that starts the play has the same
distribution whether the person holds a spy card or not. (Before every player answered,
a person who was a civilian was asked nothing: the phase ended when the computer spies
answered, a second; a person who was a spy held it until they chose.)"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
from pathlib import Path

from tools.onebot_sim import BotProcess, OneBotSim, Sent

TOKEN = "timing"
TABLES = 24
PERSON = 7100
GROUP = 71000
COMPUTER_DELAY = 0.2
READING = (0.6, 1.0)
"""Seconds a person takes to answer the question, drawn uniformly, whatever the role."""


def mann_whitney_p(xs: list[float], ys: list[float]) -> float:
    """Two-sided p-value of the Mann–Whitney U test (normal approximation, no ties)."""
    ranked = sorted([(v, 0) for v in xs] + [(v, 1) for v in ys])
    rank_sum = sum(i + 1 for i, (_, side) in enumerate(ranked) if side == 0)
    n, m = len(xs), len(ys)
    u = rank_sum - n * (n + 1) / 2
    mean, sd = n * m / 2, math.sqrt(n * m * (n + m + 1) / 12)
    z = abs(u - mean) / sd
    return math.erfc(z / math.sqrt(2))


async def test_the_declare_phase_lasts_as_long_with_a_person_spy_as_without(tmp_path: Path) -> None:
    sim = OneBotSim(self_id=10001)
    rng = random.Random(32)
    reading = {PERSON + i: rng.uniform(*READING) for i in range(TABLES)}
    roles: dict[int, str] = {}
    pending: set[asyncio.Task] = set()

    def person_answers(sent: Sent) -> None:
        """A person reads their private question and answers it: a spy stays hidden (暗),
        a civilian says it has seen its hand (暗) — after the same reading time."""
        if sent.kind != "private" or sent.target not in reading or not sent.ok:
            return
        if "你是特务" in sent.text or "你是平民" in sent.text:
            roles[sent.target] = "spy" if "你是特务" in sent.text else "civilian"
        if "请选择，私聊回复" in sent.text or "回复 暗" in sent.text:
            async def answer(user: int = sent.target) -> None:
                await asyncio.sleep(reading[user])
                await sim.private_message(user, "暗")
            task = asyncio.get_running_loop().create_task(answer())
            pending.add(task)
            task.add_done_callback(pending.discard)

    sim.listeners.append(person_answers)
    for i in range(TABLES):
        sim.add_member(GROUP + i, PERSON + i, f"人{i}")
        sim.add_friend(PERSON + i, f"人{i}")
    bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                     database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db",
                     env={"PAIZHUO_DEAL_SEED": "3", "PAIZHUO_COMPUTER_DELAY": str(COMPUTER_DELAY),
                          "PAIZHUO_SEND_RATE": "0"})
    async with bot:
        await sim.connect(bot.url, TOKEN)
        try:
            async def one_table(i: int) -> float:
                group, person = GROUP + i, PERSON + i
                since = sim.mark()
                await sim.group_message(group, person, "/开局 抓特务 四人")
                await sim.wait_for_text("开了一桌", kind="group", target=group, since=since, timeout=30)
                await sim.group_message(group, person, "/加机器人 3")
                dealt = await sim.wait_for_text("开局！", kind="group", target=group, since=since,
                                                timeout=30)
                started = await sim.wait_for_text("先出", kind="group", target=group, since=since,
                                                  timeout=60)
                return started.time - dealt.time

            lengths = []
            for batch in range(0, TABLES, 6):  # a few tables at a time, as groups play
                lengths += await asyncio.gather(*(one_table(i) for i in range(batch, batch + 6)))
        finally:
            await sim.close()
    spy = [t for i, t in enumerate(lengths) if roles[PERSON + i] == "spy"]
    civilian = [t for i, t in enumerate(lengths) if roles[PERSON + i] == "civilian"]
    assert len(spy) >= 6 and len(civilian) >= 6, (len(spy), len(civilian))
    # The same distribution with a person spy and without one ...
    assert abs(statistics.median(spy) - statistics.median(civilian)) < 0.2, (spy, civilian)
    assert mann_whitney_p(spy, civilian) > 0.05, (spy, civilian)
    # ... for every phase waited for the person's answer, a spy's or a civilian's.
    assert min(lengths) >= READING[0] - 0.05, lengths
