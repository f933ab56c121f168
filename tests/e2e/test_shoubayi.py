"""End to end: whole 手把一 games for 2, 4 and 6 players over the real WebSocket
(RULES.md S), including /开始 for a table opened without a size."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, continue_table

GROUP = 50001
TOKEN = "sb"
ADMIN = 9
NAMES = "甲乙丙丁戊己"


@pytest.mark.parametrize(("size", "open_ended"), [(2, False), (4, True), (6, False)])
async def test_whole_shoubayi_game(tmp_path: Path, size: int, open_ended: bool) -> None:
    db = tmp_path / "bot.db"
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, superusers=[ADMIN],
                          env={"PAIZHUO_DEAL_SEED": str(size)}, database_url=f"sqlite+aiosqlite:///{db}") as bot:
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(5001 + i, NAMES[i]) for i in range(size)]
        for p in players:
            sim.add_member(GROUP, p.user_id, p.name)
            sim.add_friend(p.user_id, p.name)
        await sim.connect(bot.url, TOKEN)
        try:
            # A stuck simulated player is moved for by the bot after 10 s at worst.
            await sim.group_message(GROUP, ADMIN, "/设置 手把一 出牌限时 10")
            await sim.wait_for_text("已设为", kind="group")
            since = sim.mark()
            from tools.players import attach

            attach(sim, players)
            await sim.group_message(GROUP, players[0].user_id,
                                    "/开局 手把一" if open_ended else f"/开局 手把一 {size}人")
            await sim.wait_for_text("开了一桌", kind="group", since=since)
            for p in players[1:]:
                mark = sim.mark()
                await sim.group_message(GROUP, p.user_id, "/加入")
                await sim.wait_for_text("入座", kind="group", since=mark)
            if open_ended:
                mark = sim.mark()
                await sim.group_message(GROUP, players[1].user_id, "/开始")
                await sim.wait_for_text("只有开局人", kind="group", since=mark)
                await sim.group_message(GROUP, players[0].user_id, "/开始")
            end = await continue_table(sim, GROUP, players, since=since, timeout=40)
            assert end is not None and "本局结束" in end.text
            start = next(s for s in sim.sent[since:] if s.kind == "group" and "开局！" in s.text)
            assert f"{size} 人" in start.text
            if size == 2:
                assert re.search(r"先抽出 \d+ 张不看", start.text)
            hands = [s for s in sim.sent[since:] if s.kind == "private" and "你的手牌" in s.text]
            first = {}
            for s in hands:
                first.setdefault(s.target, s)
            assert len(first) == size
            score = next(line for line in end.text.splitlines() if line.startswith("积分："))
            points = [int(x) for x in re.findall(r" ([+-]?\d+)(?:，|$)", score)]
            assert len(points) == size and sum(points) == 0
            assert re.search(r"\S+ 先出完，胜！", end.text)
        finally:
            await sim.close()
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select game, count(*) from player_records group by game").fetchall()
        assert rows == [("手把一", size)]
