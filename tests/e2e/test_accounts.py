"""Several bot accounts on one bot: two simulated QQ accounts (10001, 10002) connected
over two real reverse WebSockets. A table belongs to the account in whose group it was
opened: its group and private messages, friend checks and timers go through that account
only, also after a restart; while that account is away its table waits and no other
account takes it over. In a group where both accounts are, QQ delivers every message to
both, and each command is answered once (the table's account; with no table, the lower
QQ number)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, play_table

TOKEN = "accounts-token"
SHARED, ONLY_SECOND = 40001, 40002
LOW, HIGH = 10001, 10002


class BothAccounts:
    """The shared group as QQ delivers it: every message posted in it reaches both
    accounts (the other one first, so the lower account is never simply the faster);
    everything else is the main account's simulator."""

    def __init__(self, main: OneBotSim, other: OneBotSim) -> None:
        self.main, self.other = main, other

    def __getattr__(self, name: str) -> Any:
        return getattr(self.main, name)

    async def group_message(self, group_id: int, user_id: int, message: Any) -> int:
        if self.other.connected and group_id in self.other.groups:
            await self.other.group_message(group_id, user_id, message)
        return await self.main.group_message(group_id, user_id, message)


def live_rows(db: Path) -> dict[str, tuple[str | None, dict]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select group_id, account, state from live_tables").fetchall()
    conn.close()
    return {g: (a, json.loads(s)) for g, a, s in rows}


def said_in(sim: OneBotSim, group_id: int, since: int = 0) -> list[str]:
    return [s.text for s in sim.sent[since:] if s.kind == "group" and s.target == group_id]


async def test_two_accounts_each_table_served_by_its_own(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                     database_url=f"sqlite+aiosqlite:///{db}")
    low, high = OneBotSim(self_id=LOW), OneBotSim(self_id=HIGH)
    shared = [SimPlayer(2001 + i, n) for i, n in enumerate("甲乙丙")]
    second = [SimPlayer(2101 + i, n) for i, n in enumerate("子丑寅")]
    for p in shared:
        for sim in (low, high):
            sim.add_member(SHARED, p.user_id, p.name)
        low.add_friend(p.user_id, p.name)  # friends of the low account only
    for p in second:
        high.add_member(ONLY_SECOND, p.user_id, p.name, role="owner" if p is second[0] else "member")
        high.add_friend(p.user_id, p.name)
    stranger = 2999
    for sim in (low, high):
        sim.add_member(SHARED, stranger, "路人")
    high.add_friend(stranger, "路人")  # a friend of the high account, not of the low one
    both = BothAccounts(low, high)
    await bot.start()
    try:
        await high.connect(bot.url, TOKEN)
        await low.connect(bot.url, TOKEN)

        # No table yet: the lower account answers, the other stays silent.
        mark_low, mark_high = low.mark(), high.mark()
        await both.group_message(SHARED, shared[0].user_id, "/帮助")
        await low.wait_for_text("牌桌 bot", kind="group", target=SHARED, since=mark_low)
        # The friend check goes through the account that will own the table.
        await both.group_message(SHARED, stranger, "/开局 抓特务 三人")
        await low.wait_for_text("好友", kind="group", target=SHARED, since=mark_low)
        await high.wait_idle(quiet=0.3)
        assert said_in(high, SHARED, mark_high) == []

        # A table in the group only the high account is in: it owns it. A 3-second turn.
        mark_second = high.mark()
        await high.group_message(ONLY_SECOND, second[0].user_id, "/设置 挖坑 出牌限时 3")
        await high.wait_for_text("已设为", kind="group", target=ONLY_SECOND, since=mark_second)
        await high.group_message(ONLY_SECOND, second[0].user_id, "/开局 挖坑")
        await high.wait_for_text("开了一桌", kind="group", target=ONLY_SECOND, since=mark_second)
        for p in second[1:]:
            mark_second = high.mark()
            await high.group_message(ONLY_SECOND, p.user_id, "/加入")
            await high.wait_for_text("入座", kind="group", target=ONLY_SECOND, since=mark_second)
        await high.wait_for_text("轮到", kind="group", target=ONLY_SECOND, since=mark_second)
        await high.wait_idle(quiet=0.2)
        before = live_rows(db)[str(ONLY_SECOND)]
        assert before[0] == str(HIGH) and before[1]["account"] == str(HIGH)

        # The high account goes away: its turn deadline passes; nobody moves for the
        # player and the low account never speaks for that table.
        await high.close()
        deadline = datetime.fromisoformat(before[1]["deadline"])
        await asyncio.sleep(max(0.0, (deadline - datetime.now(deadline.tzinfo)).total_seconds()) + 1.0)
        assert live_rows(db)[str(ONLY_SECOND)][1]["engine"] == before[1]["engine"]
        assert said_in(low, ONLY_SECOND) == []
        back = high.mark()
        await high.connect(bot.url, TOKEN)
        await high.wait_for_text("超时", kind="group", target=ONLY_SECOND, since=back, timeout=20)
        await high.wait_idle(quiet=0.2)
        assert live_rows(db)[str(ONLY_SECOND)][1]["engine"] != before[1]["engine"]

        # A whole game in the shared group, every message delivered to both accounts.
        end = await play_table(both, SHARED, shared, "抓特务 三人", timeout=30)
        assert end is not None and "本局结束" in end.text
        await asyncio.sleep(0.3)
        await low.wait_idle(quiet=0.3)
        assert said_in(high, SHARED, mark_high) == []
        assert not [s for s in high.sent if s.kind == "private" and s.target in {p.user_id for p in shared}]
        assert said_in(low, ONLY_SECOND) == []
        assert {s.target for s in low.sent if s.kind == "private"} == {p.user_id for p in shared}
        answered = [t for t in said_in(low, SHARED, mark_low) if "牌桌 bot" in t]
        assert len(answered) == 1  # /帮助 answered once
        rows = live_rows(db)
        assert rows[str(SHARED)][0] == str(LOW) and rows[str(SHARED)][1]["account"] == str(LOW)

        # Restart; the high account connects first: the shared group's table is not its
        # own, so it stays silent there until the low account is back.
        await bot.stop()
        await low.wait_closed()
        await high.wait_closed()
        await low.close()
        await high.close()
        await bot.start()
        await high.connect(bot.url, TOKEN)
        mark_high = high.mark()
        await high.group_message(SHARED, shared[0].user_id, "/牌桌")
        await high.group_message(SHARED, shared[1].user_id, "/继续")
        await high.wait_idle(quiet=0.5)
        assert said_in(high, SHARED, mark_high) == []
        assert live_rows(db)[str(SHARED)][1]["ready"] == []
        mark_low = low.mark()
        await low.connect(bot.url, TOKEN)
        await both.group_message(SHARED, shared[0].user_id, "/牌桌")
        await low.wait_for_text("等 /继续", kind="group", target=SHARED, since=mark_low)
        await asyncio.sleep(0.3)
        await high.wait_idle(quiet=0.3)
        assert said_in(high, SHARED, mark_high) == []
        assert len([t for t in said_in(low, SHARED, mark_low) if "等 /继续" in t]) == 1
    finally:
        await low.close()
        await high.close()
        await bot.stop()
    log = bot.log_text()
    assert f"账号 {LOW} 已连上" in log and f"账号 {HIGH} 已连上" in log
