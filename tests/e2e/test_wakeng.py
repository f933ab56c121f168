"""End to end: whole 挖坑 games over the real WebSocket in both rule sets, with bidding in
the group and the digger's private bury (RULES.md W)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import RANKS, SimPlayer, play_table, ranks_of

GROUP = 40001
TOKEN = "wk"
ADMIN = 9


@pytest.mark.parametrize(("ruleset", "seed"), [("标准", 11), ("陕西", 12)])
async def test_whole_wakeng_game(tmp_path: Path, ruleset: str, seed: int) -> None:
    db = tmp_path / "bot.db"
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, superusers=[ADMIN],
                          env={"PAIZHUO_DEAL_SEED": str(seed)}, database_url=f"sqlite+aiosqlite:///{db}") as bot:
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(4001 + i, name) for i, name in enumerate("甲乙丙")]
        for p in players:
            sim.add_member(GROUP, p.user_id, p.name)
            sim.add_friend(p.user_id, p.name)
        await sim.connect(bot.url, TOKEN)
        try:
            await sim.group_message(GROUP, ADMIN, f"/设置 挖坑 挖坑规则 {ruleset}")
            await sim.wait_for_text("已设为", kind="group")
            since = sim.mark()
            end = await play_table(sim, GROUP, players, "挖坑", timeout=30)
            assert end is not None and "本局结束" in end.text
            sent = sim.sent[since:]
            before_end = sent[:next(i for i, s in enumerate(sent) if s is end)]
            group_text = "\n".join(s.text for s in before_end if s.kind == "group")
            # W-3: the buried cards appear in the group only at the end.
            buried_line = next(line for line in end.text.splitlines() if "扣的底" in line)
            buried = ranks_of(buried_line.split("扣的底：", 1)[1])
            assert len(buried) == 4 and "扣的底" not in group_text and "你扣下" not in group_text
            digger_private = next(s for s in sent if s.kind == "private" and "你扣下" in s.text)
            assert sorted(ranks_of(digger_private.text.split("；")[0])) == sorted(buried)
            # The bids were made in the group; the digger's bid is in the end message.
            assert re.search(r"叫 \d 分|不叫", group_text)
            # Every card accounted for: played + left + buried = 52, no jokers.
            played: list[int] = []
            for s in sent:
                if s.kind == "group":
                    for line in s.text.splitlines():
                        m = re.match(r"^\S+ 出 (.+?)（[^）]+）(?:［.+］)?$", line)
                        if m:
                            played += ranks_of(m.group(1))
            left = [r for line in end.text.splitlines() if "剩牌：" in line
                    for r in ranks_of(line.split("剩牌：", 1)[1])]
            counts = {r: 0 for r in range(13)}
            for r in played + left + buried:
                counts[r] += 1
            assert counts == {r: 4 for r in range(13)}, RANKS
            points = [int(x) for x in re.findall(r" [胜负] ([+-]?\d+)", end.text)]
            assert len(points) == 3 and sum(points) == 0
            if ruleset == "陕西":
                assert "倍数" not in end.text
            else:
                mult = int(re.search(r"倍数 ×(\d+)", end.text).group(1))
                expected = 2 ** sum(1 for r in buried if RANKS[r] in ("5", "10", "K"))
                assert mult == expected
        finally:
            await sim.close()
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select game, count(*) from player_records group by game").fetchall()
        assert rows == [("挖坑", 3)]
