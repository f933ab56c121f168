"""Faults on every protocol side (OneBot v11, Milky, Satori), the real bot through the real
adapter against the side's fake: a send that fails, a send that hangs, the connection
dropping mid-game and coming back (the table goes on, no move lost or made twice, a
message delivered again handled once), a malformed frame, a merged forward that hangs
(remembered: the next ones are text at once)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sides_support import DECK, SIDES, cards_accounted, make_sim, reconnect, running

from tools.players import SimPlayer, continue_table, play_table

GROUP, HUNG, FAILING = 31001, 31002, 31003
NAMES = ["甲", "乙", "丙"]


def seat(sim, group: int, first: int, size: int = 3) -> list[SimPlayer]:
    players = [SimPlayer(first + i, NAMES[i]) for i in range(size)]
    for p in players:
        sim.add_member(group, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return players


@pytest.mark.parametrize("side", SIDES)
async def test_a_hung_group_and_failed_private_messages_hold_up_no_other_table(
        tmp_path: Path, side: str) -> None:
    """One group's sends never answered, another player's private messages refused: the
    refused player's group is told (@ that player, never the hand), and a third group
    plays a whole game meanwhile."""
    sim = make_sim(side)
    hung = seat(sim, HUNG, 3101, 1)[0]
    failing = seat(sim, FAILING, 3201, 1)[0]
    players = seat(sim, GROUP, 3301)
    sim.hang_group.add(HUNG)
    sim.fail_private.add(failing.user_id)
    async with running(sim, tmp_path, env={"PAIZHUO_ONEBOT_CALL_TIMEOUT": "2"}):
        await sim.group_message(HUNG, hung.user_id, "/开局 挖坑")
        mark = sim.mark()
        await sim.group_message(FAILING, failing.user_id, "/开局 挖坑")
        await sim.wait_for_text("开了一桌", kind="group", target=FAILING, since=mark, timeout=20)
        await sim.group_message(FAILING, failing.user_id, "/加机器人 2")
        notice = await sim.wait_for_text("私聊消息发送失败", kind="group", target=FAILING,
                                         since=mark, timeout=30)
        assert notice.at == [failing.user_id] and "手牌" in notice.text
        end = await play_table(sim, GROUP, players, "抓特务 三人", timeout=60)
        assert end is not None and "本局结束" in end.text
    assert any(kind == "group" and target == HUNG for kind, target, _ in sim.hung)
    assert not any(s.ok for s in sim.sent if s.kind == "private" and s.target == failing.user_id)


@pytest.mark.parametrize("side", SIDES)
async def test_the_connection_drops_mid_game_and_the_table_goes_on(tmp_path: Path,
                                                                   side: str) -> None:
    """The stream drops after a few moves and comes back, and a malformed frame arrives:
    the game goes on to its end with every card played once (none lost, none twice), and
    a message the side delivers again after the reconnect is handled once."""
    sim = make_sim(side)
    players = seat(sim, GROUP, 3401)
    async with running(sim, tmp_path) as bot:
        start = sim.mark()
        assert await play_table(sim, GROUP, players, "抓特务 三人", timeout=60, stop_after=5) is None
        await reconnect(sim, bot)
        mark = sim.mark()
        said = await sim.group_message(GROUP, players[0].user_id, "/托管")
        await sim.wait_for_text("进入托管", kind="group", target=GROUP, since=mark, timeout=20)
        await sim.resend(said)  # delivered again: 托管 must not be switched off
        await reconnect(sim, bot, malformed=True)
        mark2 = sim.mark()
        await sim.group_message(GROUP, players[1].user_id, "/牌桌")
        await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP and "轮到" in s.text,
                           since=mark2, timeout=20)
        assert not any("取消托管" in s.text for s in sim.sent[mark:])
        end = await continue_table(sim, GROUP, players[1:], since=mark, timeout=60)
        assert end is not None and "本局结束" in end.text
    assert cards_accounted(sim, GROUP, end.text, since=start) == DECK
    assert not any("取消托管" in s.text for s in sim.sent[mark:])


@pytest.mark.parametrize("side", ["milky", "satori"])
async def test_a_hung_forward_is_remembered_on_the_sides_the_bot_dials(tmp_path: Path,
                                                                       side: str) -> None:
    """Milky and Satori as OneBot (``test_sending.py`` probes it further there): a merged
    forward the side never answers waits one call timeout and comes as text; the next
    ones come as text at once, without a call, and ``/牌桌 状态`` says so (asked by the
    bot's owner: the Satori fake's message events carry no member roles)."""
    sim = make_sim(side)
    sim.add_member(GROUP, 3998, "甲")
    sim.add_member(GROUP, 3999, "主人")
    sim.hang_media = True
    env = {"PAIZHUO_ONEBOT_CALL_TIMEOUT": "1", "PAIZHUO_IMAGES": "false"}
    async with running(sim, tmp_path, env=env, superusers=[3999]):
        since, started = sim.mark(), time.monotonic()
        await sim.group_message(GROUP, 3998, "/帮助")
        got = await sim.wait_for_text("【牌桌 bot】", kind="group", target=GROUP, since=since,
                                      timeout=10)
        assert time.monotonic() - started >= 1.0 and not got.forward and len(sim.hung) == 1
        for command in ("/帮助", "/规则 抓特务"):
            since, started = sim.mark(), time.monotonic()
            await sim.group_message(GROUP, 3998, command)
            got = await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP,
                                     since=since, timeout=10)
            assert time.monotonic() - started < 0.8 and not got.forward, command
        assert len(sim.hung) == 1  # no call of a forward since the first
        since = sim.mark()
        await sim.group_message(GROUP, 3999, "/牌桌 状态")
        status = await sim.wait_for_text("状态", kind="group", target=GROUP, since=since)
        assert "合并转发：发送失败或挂住，暂时改发文字" in status.text
