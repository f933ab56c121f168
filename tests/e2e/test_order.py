"""End to end over the real WebSocket: a message delivered twice (same ``message_id``, as
a OneBot implementation does after a reconnect) applies once — on every side also when
it comes again after the bot was killed and restarted — and one player's commands sent
back to back apply in the order they were sent, even when the first one is slow (its
friend check waits on the side) — while other players are not held up."""

from __future__ import annotations

from pathlib import Path

import pytest
from sides_support import SIDES, bot_for, make_sim, running
from sides_support import TOKEN as SIDE_TOKEN

from tools.kill_soak import read_live
from tools.onebot_sim import BotProcess, OneBotSim

GROUP = 61001
TOKEN = "order"
OPENER, SECOND, THIRD = 6101, 6102, 6103


def world() -> OneBotSim:
    sim = OneBotSim(self_id=10001)
    for uid, name in ((OPENER, "甲"), (SECOND, "乙"), (THIRD, "丙")):
        sim.add_member(GROUP, uid, name)
        sim.add_friend(uid, name)
    return sim


def bot_process(tmp_path: Path) -> BotProcess:
    return BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                      env={"PAIZHUO_DEAL_SEED": "3", "PAIZHUO_COMPUTER_DELAY": "0.5"},
                      database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")


def seats(tmp_path: Path) -> list[str]:
    live = read_live(tmp_path / "bot.db", GROUP)
    assert live is not None
    return [uid for uid, _name in live["seats"]]


async def open_table(sim) -> None:
    await sim.group_message(GROUP, OPENER, "/开局 抓特务 四人")
    await sim.wait_for_text("开了一桌", kind="group")


async def test_a_message_delivered_twice_applies_once(tmp_path: Path) -> None:
    sim = world()
    async with bot_process(tmp_path) as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            await open_table(sim)
            since = sim.mark()
            mid = await sim.group_message(GROUP, OPENER, "/加机器人 1")
            await sim.wait_for_text("电脑1 入座", kind="group", since=since)
            await sim.resend(mid)
            await sim.resend(mid)
            # A later message of the same player is answered, so the repeats were read.
            await sim.group_message(GROUP, OPENER, "/牌桌")
            await sim.wait_for_text("等人入座", kind="group", since=since)
            await sim.wait_idle(quiet=0.5)
            texts = [s.text for s in sim.sent[since:] if s.kind == "group"]
            assert not any("电脑2" in t for t in texts), texts
            assert seats(tmp_path) == [str(OPENER), "ai:1"]
            # The same for a toggle during the game: /托管 repeated is still on.
            await sim.group_message(GROUP, OPENER, "/加机器人 2")
            await sim.wait_for_text("开局", kind="group", since=since)
            since = sim.mark()
            mid = await sim.group_message(GROUP, OPENER, "/托管")
            await sim.wait_for_text("进入托管", kind="group", since=since)
            await sim.resend(mid)
            await sim.group_message(GROUP, OPENER, "/牌桌")
            await sim.wait_for_text("人局", kind="group", since=since)
            texts = [s.text for s in sim.sent[since:] if s.kind == "group"]
            assert sum("进入托管" in t for t in texts) == 1, texts
            assert not any("取消托管" in t for t in texts), texts
        finally:
            await sim.close()


@pytest.mark.parametrize("side", SIDES)
async def test_a_message_delivered_again_after_a_restart_applies_once(tmp_path: Path,
                                                                      side: str) -> None:
    """/托管 is applied, the bot is killed (kill -9) and started again, and the side
    delivers the same message again once the connection is back (OneBot: the same
    ``message_id``; Milky: the same scene, peer and seq; Satori: the same message id):
    托管 stays on (the keys of the messages handled are kept in the database, per account,
    not only in memory)."""
    sim = make_sim(side)
    for uid, name in ((OPENER, "甲"), (SECOND, "乙"), (THIRD, "丙")):
        sim.add_member(GROUP, uid, name)
        sim.add_friend(uid, name)
    bot = bot_for(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": "3", "PAIZHUO_COMPUTER_DELAY": "0.5"})
    await bot.start()
    try:
        await sim.connect(bot.url, SIDE_TOKEN)
        await open_table(sim)
        since = sim.mark()
        await sim.group_message(GROUP, OPENER, "/加机器人 3")
        await sim.wait_for_text("开局", kind="group", since=since)
        since = sim.mark()
        mid = await sim.group_message(GROUP, OPENER, "/托管")
        await sim.wait_for_text("进入托管", kind="group", since=since)
        await sim.wait_idle(quiet=0.3)
        bot.kill()
        await sim.wait_closed()
        await sim.close()
        await bot.start()
        await sim.connect(bot.url, SIDE_TOKEN)
        since = sim.mark()
        await sim.resend(mid)
        await sim.group_message(GROUP, OPENER, "/牌桌")
        await sim.wait_for_text("人局", kind="group", since=since)
        await sim.wait_idle(quiet=0.5)
        texts = [s.text for s in sim.sent[since:] if s.kind == "group"]
        assert not any("托管" in t and "取消" in t for t in texts), texts
        assert str(OPENER) in (read_live(tmp_path / "bot.db", GROUP) or {})["auto"]
        assert "event=duplicate" in bot.log_text()
    finally:
        if hasattr(sim, "stop"):
            await sim.stop()
        else:
            await sim.close()
        await bot.stop()


@pytest.mark.parametrize("side", SIDES)
async def test_one_players_commands_apply_in_the_order_sent(tmp_path: Path, side: str) -> None:
    """On every side (Milky and Satori through the gated adapters): /加入 then /退出 of one
    player apply in that order though the first is slow (the friend check waits on the
    side; Satori asks none: there the order holds without the wait)."""
    sim = make_sim(side)
    for uid, name in ((OPENER, "甲"), (SECOND, "乙"), (THIRD, "丙")):
        sim.add_member(GROUP, uid, name)
        sim.add_friend(uid, name)
    async with running(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": "3",
                                           "PAIZHUO_COMPUTER_DELAY": "0.5"}):
        await open_table(sim)
        sim.action_delays["get_friend_list"] = 1.0  # /加入 checks the friend list first
        since = sim.mark()
        await sim.group_message(GROUP, SECOND, "/加入")
        await sim.group_message(GROUP, SECOND, "/退出")
        # Another player is not held up by the slow first command.
        await sim.group_message(GROUP, THIRD, "/牌桌")
        await sim.wait_for_text("乙 退出", kind="group", since=since, timeout=15)
        await sim.wait_idle(quiet=0.5)
        texts = [s.text for s in sim.sent[since:] if s.kind == "group"]
        joined = next(i for i, t in enumerate(texts) if "乙 入座" in t)
        left = next(i for i, t in enumerate(texts) if "乙 退出" in t)
        shown = next(i for i, t in enumerate(texts) if "等人入座" in t)
        assert joined < left, texts
        if side != "satori":  # the slow friend check did not hold the other player up
            assert shown < joined, texts
        assert not any("你不在本群的牌桌上" in t for t in texts), texts
        assert seats(tmp_path) == [str(OPENER)]


async def test_a_players_group_and_private_messages_keep_their_order(tmp_path: Path) -> None:
    """``/加入`` fills the table in the group (the game starts), then ``/手牌`` privately:
    the private answer comes after the seat, so it is the hand."""
    sim = world()
    async with bot_process(tmp_path) as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            await open_table(sim)
            await sim.group_message(GROUP, OPENER, "/加机器人 2")
            await sim.wait_for_text("电脑2 入座", kind="group")
            sim.action_delays["get_friend_list"] = 1.0
            since = sim.mark()
            await sim.group_message(GROUP, SECOND, "/加入")
            await sim.private_message(SECOND, "/手牌")
            await sim.wait_for_text("乙 入座", kind="group", since=since, timeout=15)
            await sim.wait_idle(quiet=0.5)
            answers = [s.text for s in sim.sent[since:] if s.kind == "private" and s.target == SECOND]
            assert len(answers) == 2 and all("你的手牌" in t for t in answers), answers
        finally:
            await sim.close()
