"""End to end: the send path when OneBot calls hang or fail.

* Pictures and merged-forward messages whose calls hang (an upload that never ends): each
  becomes its text within one call timeout, as a send of its own, and the game goes on;
  the account remembers it, so the next ones are text at once, and tries again now and
  then.
* Sends failing in several groups at once (the account throttled, 风控): the account
  slows down as a whole, logs one WARNING and tells the superuser once, privately;
  ``/牌桌 状态`` shows it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, play_table

TOKEN = "e2e-sending"
GROUP, QUIET = 62001, 62002
FAILING = (62011, 62012, 62013, 62014)
OWNER = 3999
MEMBER = 3998
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
"""Any font makes the bot draw pictures (the Chinese comes out as boxes: enough here)."""


@pytest.mark.parametrize("pictures", [False, True], ids=["forward", "pictures"])
async def test_hung_media_become_text_and_the_game_goes_on(tmp_path: Path, pictures: bool) -> None:
    env = {"PAIZHUO_ONEBOT_CALL_TIMEOUT": "2", "PAIZHUO_SEND_RETRIES": "3", "PAIZHUO_IMAGES": "false"}
    if pictures:
        if not FONT.is_file():
            pytest.skip("no font file to draw pictures with")
        env.update({"PAIZHUO_IMAGES": "true", "PAIZHUO_FONT": str(FONT)})
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, env=env,
                          database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}") as bot:
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(2201 + i, name) for i, name in enumerate(["甲", "乙", "丙"])]
        for p in players:
            sim.add_member(GROUP, p.user_id, p.name)
            sim.add_friend(p.user_id, p.name)
        sim.hang_media = True
        await sim.connect(bot.url, TOKEN)
        try:
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/帮助")
            help_text = await sim.wait_for_text("【牌桌 bot】", kind="group", target=GROUP,
                                                since=since, timeout=30)
            assert not help_text.forward
            end = await play_table(sim, GROUP, players, "抓特务 三人", timeout=30)
            assert end is not None and "本局结束" in end.text
            assert "/对局 1" in end.text  # the details: where the end message points
            await sim.wait_idle(quiet=0.2)
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/对局 1")
            details = await sim.wait_for_text("【第 1 局】", kind="group", target=GROUP,
                                              since=since, timeout=30)
            assert not details.forward and "发牌：" in details.text
            kinds = 1
            if pictures:  # the settlement after the end, and /战绩, are pictures too
                since = sim.mark()
                await sim.group_message(GROUP, players[0].user_id, "/战绩")
                await sim.wait_for_text("的战绩", kind="group", target=GROUP, since=since,
                                        timeout=30)
                kinds += 1
            # One call of each kind (forward, picture) hung, and was not retried while it
            # held the group; after it, that kind went as text without a call.
            assert [h[:2] for h in sim.hung] == [("group", GROUP)] * kinds
            since = sim.mark()
            for p in players:
                await sim.group_message(GROUP, p.user_id, "/继续")
            await sim.wait_for_text("开局", kind="group", target=GROUP, since=since, timeout=30)
            assert "send aborted" not in bot.log_text()
        finally:
            await sim.close()


async def test_a_hung_media_call_is_remembered_and_probed_now_and_then(tmp_path: Path) -> None:
    """The OneBot side never answers a merged-forward message: the first /帮助 waits one
    call timeout and comes as text; the next ones come as text at once, without a call
    (the account remembers); after the probe interval one forward is tried again (it
    hangs: text again, and the next try waits twice as long); once forwards work again,
    the next try goes through as a forward."""
    env = {"PAIZHUO_ONEBOT_CALL_TIMEOUT": "1", "PAIZHUO_MEDIA_PROBE_AFTER": "2",
           "PAIZHUO_IMAGES": "false"}
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, env=env,
                          database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}") as bot:
        sim = OneBotSim(self_id=10001)
        sim.add_member(GROUP, MEMBER, "甲")
        sim.add_member(GROUP, OWNER, "群主", role="owner")
        sim.hang_media = True
        await sim.connect(bot.url, TOKEN)

        async def help_text() -> tuple[float, bool]:
            since, started = sim.mark(), time.monotonic()
            await sim.group_message(GROUP, MEMBER, "/帮助")
            got = await sim.wait_for_text("【牌桌 bot】", kind="group", target=GROUP,
                                          since=since, timeout=10)
            return time.monotonic() - started, got.forward

        try:
            took, forward = await help_text()
            assert took >= 1.0 and not forward and len(sim.hung) == 1
            for command in ("/帮助", "/规则 抓特务"):
                since, started = sim.mark(), time.monotonic()
                await sim.group_message(GROUP, MEMBER, command)
                await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP,
                                   since=since, timeout=10)
                assert time.monotonic() - started < 0.8, command  # no call: text at once
            assert len(sim.hung) == 1
            since = sim.mark()
            await sim.group_message(GROUP, OWNER, "/牌桌 状态")
            status = await sim.wait_for_text("状态", kind="group", target=GROUP, since=since)
            assert "合并转发：发送失败或挂住，暂时改发文字" in status.text
            await asyncio.sleep(2.2)  # the probe is due: it hangs again
            took, forward = await help_text()
            assert took >= 1.0 and not forward and len(sim.hung) == 2
            took, forward = await help_text()
            assert took < 0.8 and not forward and len(sim.hung) == 2
            sim.hang_media = False
            await asyncio.sleep(4.2)  # the next probe waits twice as long; it goes through
            took, forward = await help_text()
            assert forward and len(sim.hung) == 2
            took, forward = await help_text()
            assert forward  # remembered as working again
            log = bot.log_text()
            # One line when it went down, one at the failed try, one when it came back.
            assert log.count("sent as text without trying") == 2
            assert log.count("forward messages go through again") == 1
        finally:
            await sim.close()


async def test_sends_failing_in_several_groups_slow_the_account_down(tmp_path: Path) -> None:
    env = {"PAIZHUO_SEND_RETRIES": "1", "PAIZHUO_SEND_RATE": "50", "PAIZHUO_SEND_BURST": "5"}
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, env=env, superusers=[OWNER],
                          database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}") as bot:
        sim = OneBotSim(self_id=10001)
        sim.add_friend(OWNER, "主人")
        sim.add_member(QUIET, OWNER, "主人")
        sim.add_member(QUIET, MEMBER, "群友")
        for group in FAILING:
            sim.add_member(group, MEMBER, "群友")
            sim.fail_group.add(group)
        await sim.connect(bot.url, TOKEN)
        try:
            since = sim.mark()
            for group in FAILING:
                await sim.group_message(group, MEMBER, "/牌桌")
            notice = await sim.wait_for_text("发送受限", kind="private", target=OWNER,
                                             since=since, timeout=30)
            assert "降速" in notice.text
            # More failures in the same episode: no second notice, no second WARNING.
            for group in FAILING:
                await sim.group_message(group, MEMBER, "/牌桌")
            await sim.wait_idle(quiet=1.0, timeout=30)
            notices = [s for s in sim.sent if s.kind == "private" and "发送受限" in s.text]
            assert len(notices) == 1
            assert bot.log_text().count("account throttled") == 1
            # A group member may not look; the superuser may, and sees the slow-down.
            since = sim.mark()
            await sim.group_message(QUIET, MEMBER, "/牌桌 状态")
            await sim.wait_for_text("只有群主、管理员", kind="group", target=QUIET,
                                    since=since, timeout=30)
            await sim.group_message(QUIET, OWNER, "/牌桌 状态")
            status = await sim.wait_for_text("账号 10001 状态", kind="group", target=QUIET,
                                             since=since, timeout=30)
            assert "发送受限" in status.text and "每秒 50 条" in status.text
            assert "最近 5 分钟失败" in status.text
        finally:
            await sim.close()
