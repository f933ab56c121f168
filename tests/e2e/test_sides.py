"""One table, any QQ side: the real bot (``bot.py``) through the real adapter of each
protocol side — OneBot v11 (reverse WebSocket), Milky and Satori (the bot dials their
fakes: HTTP API + WebSocket events) — plays whole games of every kind with simulated
players who read only what the bot says, and keeps the same records."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

import pytest
from sides_support import make_sim, running

from tools.players import RANKS, SimPlayer, continue_table, play_table, ranks_of

GROUP = 30501
NAMES = ["甲", "乙", "丙", "丁"]
GAMES = [("抓特务 三人", 3), ("挖坑", 3), ("手把一 3人", 3)]


def seat(sim, size: int) -> list[SimPlayer]:
    players = [SimPlayer(2101 + i, NAMES[i]) for i in range(size)]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return players


@pytest.mark.parametrize("side", ["milky", "satori"])
async def test_a_whole_game_of_each_kind_and_the_records(tmp_path: Path, side: str) -> None:
    """抓特务, 挖坑 and 手把一 played to the end on the side, one after another at one
    table; hands only privately, every prompt @-mentions its player; /战绩 counts them.
    (On OneBot: tests/e2e/test_games.py, test_wakeng.py, test_shoubayi.py.)"""
    sim = make_sim(side)
    players = seat(sim, 3)
    async with running(sim, tmp_path):
        for game, size in GAMES:
            end = await play_table(sim, GROUP, players[:size], game, timeout=60)
            assert end is not None and "本局结束" in end.text, game
            mark = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/退出")
            for p in players[1:size]:
                await sim.group_message(GROUP, p.user_id, "/退出")
            await sim.wait_for_text("牌桌已关闭", kind="group", target=GROUP, since=mark, timeout=30)
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/战绩")
        stats = await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP and s.ok
                                   and "局" in s.text, since=mark, timeout=30)
        assert re.search(r"3\s*局", stats.text), stats.text
    hands = [s for s in sim.sent if s.kind == "private" and "你的手牌" in s.text]
    assert hands and all(s.ok for s in hands)
    assert not any("你的手牌" in s.text for s in sim.sent if s.kind == "group")
    prompts = [s for s in sim.sent if s.kind == "group" and "轮到 @" in s.text]
    assert prompts and all(len(s.at) == 1 for s in prompts)
    # A move's post keeps its lines on every side (Satori: each line break a <br/>).
    assert any(re.search(r" 出 .+\n(.+\n)*轮到 @", s.text) for s in prompts)


@pytest.mark.parametrize("side", ["milky", "satori"])
async def test_hidden_information_stays_private(tmp_path: Path, side: str) -> None:
    """RULES.md G-4 on every side, 抓特务 四人: before the end no group post names a role or
    shows a hand as dealt; each hand reaches only its owner; a move refused for what the
    player holds says why privately, the group hears only that it did not count. (OneBot:
    tests/matchers/test_hidden.py, and the hands and bottom in
    tests/e2e/test_one_post_per_decision.py.)"""
    sim = make_sim(side)
    players = seat(sim, 4)
    players[0].declare = "明"
    async with running(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": "7"}):
        end = await play_table(sim, GROUP, players, "抓特务 四人", timeout=60, stop_after=0)
        assert end is None
        prompt = [s for s in sim.sent if s.kind == "group" and "轮到 @" in s.text][-1]
        actor = next(p for p in players if p.user_id in prompt.at)
        assert "首出" in prompt.text  # a lead: any single is a play of its own
        missing = next(r for r in range(13) if r not in actor.hand)
        mark = sim.mark()
        await sim.group_message(GROUP, actor.user_id, "出 " + RANKS[missing])
        told = await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP, since=mark)
        why = await sim.wait_for(lambda s: s.kind == "private" and s.target == actor.user_id,
                                 since=mark)
        assert "原因已私聊" in told.text and told.at == [actor.user_id]
        assert RANKS[missing] in why.text or "没有" in why.text
        end = await continue_table(sim, GROUP, players, since=sim.sent.index(prompt), timeout=60)
        assert end is not None and "本局结束" in end.text
    before_end = sim.sent[:sim.sent.index(end)]
    for sent in before_end:
        if sent.kind == "group":
            assert "特务：" not in sent.text and "平民" not in sent.text, sent.text
    dealt = {}
    for sent in sim.sent:
        if sent.kind == "private" and sent.target not in dealt and "你的手牌" in sent.text:
            dealt[sent.target] = [ln for ln in sent.text.splitlines() if len(ranks_of(ln)) >= 6]
    assert len(dealt) == 4 and all(dealt.values())
    for sent in before_end:
        if sent.kind == "group":
            assert not any(line in sent.text for lines in dealt.values() for line in lines)
        elif "你的手牌" in sent.text:
            own = dealt[sent.target]
            assert all(line not in sent.text for uid, lines in dealt.items()
                       if uid != sent.target for line in lines if line not in own)


async def test_a_temporary_session_on_milky_is_answered_privately(tmp_path: Path) -> None:
    """Milky: a message from someone who is not a friend arrives as a temporary session;
    the answer goes to that person privately (refused by the side: not a friend), never
    into a group numbered like the person (as the adapter's own ``bot.send`` would)."""
    sim = make_sim("milky")
    stranger = 2301
    sim.add_member(GROUP, stranger, "路人")
    async with running(sim, tmp_path):
        calls = len(sim.calls)
        await sim.private_message(stranger, "/帮助 挖坑")
        call = await sim.wait_for_call("send_private_message", since=calls, timeout=20)
        assert call.params["user_id"] == stranger and call.status == "failed"
        await asyncio.sleep(0.5)
    assert not any(c.action == "send_group_message" and c.params.get("group_id") == stranger
                   for c in sim.calls)


@pytest.mark.parametrize("second", ["milky", "satori"])
async def test_one_account_over_two_sides_at_once_is_refused(tmp_path: Path, second: str) -> None:
    """One QQ account connected over OneBot and then, at the same time, over Milky or
    Satori: the second connection is refused like a second process on the account (one
    log line of ours, its messages unanswered), and the first goes on serving; once the
    first goes, the second serves the account. (Milky's bot has the same id as OneBot's,
    the QQ number, which NoneBot would refuse to register twice: the gated adapter keeps
    it unregistered meanwhile; Satori's is ``llonebot:<QQ>``, and the plugin refuses the
    account.)"""
    from sides_support import TOKEN, bot_for

    from tools.onebot_sim import OneBotSim

    onebot, milky = OneBotSim(self_id=10001), make_sim(second)
    for sim in (onebot, milky):
        sim.add_member(GROUP, 2201, "甲")
        sim.add_friend(2201, "甲")
    bot = bot_for(milky, tmp_path)
    async with bot:
        await onebot.connect(bot.url, TOKEN)
        try:
            mark = onebot.mark()
            await onebot.group_message(GROUP, 2201, "/牌桌")
            await onebot.wait_for_text("本群还没有牌桌", since=mark, timeout=20)
            await milky.connect()
            await milky.group_message(GROUP, 2201, "/牌桌")
            refused = f"拒绝 Bot 10001 经 {second} 的连接"
            for _ in range(200):
                if refused in bot.log_text():
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(1.0)
            log = bot.log_text()
            assert log.count(refused) == 1, log[-2000:]
            assert "Duplicate bot connection" not in log
            assert not [s for s in milky.sent if s.kind == "group"]
            mark = onebot.mark()
            await onebot.group_message(GROUP, 2201, "/牌桌")
            await onebot.wait_for_text("本群还没有牌桌", since=mark, timeout=20)
            await onebot.close()  # the first side goes: the second serves the account
            mark = milky.mark()
            for _ in range(100):
                await milky.group_message(GROUP, 2201, "/牌桌")
                with contextlib.suppress(TimeoutError):
                    await milky.wait_for_text("本群还没有牌桌", since=mark, timeout=0.5)
                    break
            else:
                raise AssertionError(f"{second} did not take the account over")
            assert bot.log_text().count(refused) == 1
            assert "Traceback" not in bot.log_text()
        finally:
            await onebot.close()
            await milky.stop()


@pytest.mark.parametrize("to", ["milky", "satori"])
async def test_a_group_moving_from_napcat_to_llbot_keeps_its_records(tmp_path: Path,
                                                                     to: str) -> None:
    """A group plays on OneBot (NapCat), the operator moves the account to LLBot's Milky or
    Satori with the same database: the same person's /战绩 and the group's /排行 show the
    game played before, and the next game adds to them."""
    db = f"sqlite+aiosqlite:///{tmp_path / 'moved.db'}"
    before = make_sim("onebot")
    players = seat(before, 3)
    async with running(before, tmp_path / "napcat", database_url=db):
        end = await play_table(before, GROUP, players, "挖坑", timeout=60)
        assert end is not None
    after = make_sim(to)
    for p in players:
        after.add_member(GROUP, p.user_id, p.name)
        after.add_friend(p.user_id, p.name)
    for p in players:  # the same people, read again from the new side
        p.hand = []
    async with running(after, tmp_path / "llbot", database_url=db):
        mark = after.mark()
        await after.group_message(GROUP, players[0].user_id, "/继续")
        for p in players[1:]:
            await after.group_message(GROUP, p.user_id, "/继续")
        end = await continue_table(after, GROUP, players, since=mark, timeout=60)
        assert end is not None and "本群第 2 局" in end.text
        mark = after.mark()
        await after.group_message(GROUP, players[0].user_id, "/战绩")
        stats = await after.wait_for(lambda s: s.kind == "group" and s.ok and "战绩" in s.text,
                                     since=mark, timeout=30)
        assert re.search(r"挖坑：2 局", stats.text), stats.text
        mark = after.mark()
        await after.group_message(GROUP, players[1].user_id, "/排行 挖坑")
        board = await after.wait_for(lambda s: s.kind == "group" and s.ok and "排行" in s.text,
                                     since=mark, timeout=30)
        assert "你：2 局" in board.text, board.text  # both games, before and after the move


@pytest.mark.parametrize("side", ["milky", "satori"])  # OneBot: tests/e2e/test_pictures.py
async def test_pictures_and_long_texts_on_every_side(tmp_path: Path, side: str) -> None:
    """With pictures on: a record (/战绩) goes out as a picture, the help as a merged
    forward, each the side's own way (OneBot and Milky ``image`` segments, Satori ``<img>``
    with its MIME type; OneBot nodes, one Milky ``forward`` segment, Satori ``<message
    forward>``); when the side fails them, their text comes instead."""
    from sides_support import is_picture

    sim = make_sim(side)
    players = seat(sim, 3)
    async with running(sim, tmp_path, env={"PAIZHUO_IMAGES": "true"}):
        end = await play_table(sim, GROUP, players, "挖坑", timeout=60)
        assert end is not None
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/战绩")
        card = await sim.wait_for(lambda s: s.kind == "group" and s.ok and is_picture(s),
                                  since=mark, timeout=30)
        assert card.target == GROUP
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/帮助")
        help_ = await sim.wait_for(lambda s: s.kind == "group" and s.forward, since=mark, timeout=30)
        assert help_.ok and "出牌：出 778899" in help_.text
        sim.fail_media_to.add(("group", GROUP))
        mark = sim.mark()
        await sim.group_message(GROUP, players[1].user_id, "/帮助")
        text = await sim.wait_for(lambda s: s.kind == "group" and s.ok and not s.forward
                                  and "出牌：出 778899" in s.text, since=mark, timeout=30)
        assert not is_picture(text)
