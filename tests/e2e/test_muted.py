"""End to end: one group's trouble stays in that group.

The real bot over a real reverse WebSocket serves three groups at once: in group H every
send hangs (never answered, like a call in flight when the connection stalls), in group M
every send fails with retcode 1200 (the bot is muted there) while a bystander keeps
sending junk, and in group X a 3-player table plays a whole game while a bystander sends
junk too. The game in X must be played to its end while H's call is still hanging; M's
sends back off instead of being retried for every message; one bystander's junk gets a
few replies and one notice, and is then ignored.
"""

from __future__ import annotations

from pathlib import Path

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, continue_table, play_table

TOKEN = "e2e-muted"
GROUP_X, GROUP_M, GROUP_H = 61001, 61002, 61003
BYSTANDER_X, BYSTANDER_M, MEMBER_H = 3901, 3902, 3903
PAIZHUO_DEAL_SEED = 36
"""The deal is seeded: the same hands, moves and refusals every run (this one deals 乙 two
fours, which 抓特务 cannot play as bombs)."""


async def test_muted_and_hanging_groups_do_not_hold_up_another_table(tmp_path: Path) -> None:
    # Hung calls must stay hung for the whole test (a late timeout would only help old code).
    env = {"PAIZHUO_ONEBOT_CALL_TIMEOUT": "300", "PAIZHUO_SEND_RETRIES": "3", "PAIZHUO_REFUSAL_LIMIT": "5",
           "PAIZHUO_DEAL_SEED": str(PAIZHUO_DEAL_SEED)}
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, env=env,
                          database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}") as bot:
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(2101 + i, name) for i, name in enumerate(["甲", "乙", "丙"])]
        for p in players:
            sim.add_member(GROUP_X, p.user_id, p.name)
            sim.add_friend(p.user_id, p.name)
        sim.add_member(GROUP_X, BYSTANDER_X, "路人甲")
        sim.add_member(GROUP_M, BYSTANDER_M, "路人乙")
        sim.add_member(GROUP_H, MEMBER_H, "路人丙")
        sim.hang_group.add(GROUP_H)
        sim.fail_group.add(GROUP_M)
        await sim.connect(bot.url, TOKEN)
        try:
            await sim.group_message(GROUP_H, MEMBER_H, "/牌桌")
            await sim.group_message(GROUP_M, BYSTANDER_M, "/结束")
            for _ in range(3):
                await sim.group_message(GROUP_M, BYSTANDER_M, "/牌桌")
            paused = await play_table(sim, GROUP_X, players, "抓特务 三人", timeout=20, stop_after=8)
            assert paused is None
            prompt = max(i for i, s in enumerate(sim.sent)
                         if s.kind == "group" and s.target == GROUP_X and "轮到" in s.text)

            # Junk from one bystander at a table in play: a few replies, one notice (in
            # the group: a bystander may not be the bot's friend), then silence.
            since = sim.mark()
            for _ in range(12):
                await sim.group_message(GROUP_X, BYSTANDER_X, "出 3")
            await sim.wait_idle(quiet=1.0, timeout=20)
            replies = [s for s in sim.sent[since:] if s.target == GROUP_X and BYSTANDER_X in s.at]
            # At most the five refusals the limit allows (a refusal still waiting to be
            # sent is replaced by the same newer one, so a slow account sends fewer), then
            # the notice, once, last.
            texts = [s.text for s in replies]
            assert 1 <= len(replies) - 1 <= 5, texts
            assert sum("出错太多次了" in t for t in texts) == 1 and "出错太多次了" in texts[-1]

            end = await continue_table(sim, GROUP_X, players, since=prompt, timeout=20)
            assert end is not None and "本局结束" in end.text
            # H's call was made before the game and is still unanswered: the whole game
            # in X went out past it.
            assert [h[1] for h in sim.hung] == [GROUP_H]
            assert sim.hung[0][2] < end.time

            # M: four messages, each failing. The first one tried is tried PAIZHUO_SEND_RETRIES
            # times; after that the group counts as down: each later message gets one try
            # at most (a failed try gives up what waits there), not three.
            tries_m = [s for s in sim.sent if s.target == GROUP_M]
            assert tries_m and not any(s.ok for s in tries_m)
            assert len(tries_m) <= 3 + 3, [str(s) for s in tries_m]
            assert "given up" in bot.log_text()
        finally:
            await sim.close()
