"""nonebug tests of 挖坑 through the chat (RULES.md W): bidding in the group, the private
bury and its validation, timeouts, hidden bottom, the end message and records."""

from __future__ import annotations

import json
from datetime import timedelta

from chat_support import (
    GROUP,
    STRANGER,
    A,
    B,
    C,
    Has,
    expect_forward,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
    pmsg,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.cards import format_cards
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules


async def wakeng_table(game: WGame) -> Table:
    table = Table(group_id=str(GROUP), game="挖坑", size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], created_at=now_utc(),
                  started_at=now_utc(), uid="wk-test", engine=game, status=PLAYING,
                  account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


def state(table: Table) -> str:
    return json.dumps(table.to_json(), sort_keys=True)


async def test_w2_bidding_in_the_group(app: App) -> None:
    table = await wakeng_table(WGame.deal(WRules(), 7, first=0))
    game = table.engine
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "叫 2"))
        expect_group(ctx, "还没轮到你叫分", at=B)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "现在是叫分", at=A)
        for junk in ("叫 ٣", "叫 0003"):  # ASCII digits only; no digits cut off
            ctx.receive_event(bot, gmsg(A, junk))
            expect_group(ctx, "叫分请写", at=A)
        ctx.receive_event(bot, gmsg(STRANGER, "叫1"))  # a bystander's bid is ignored
        ctx.receive_event(bot, gmsg(A, "叫1"))
        expect_group(ctx, "玩家101 叫 1 分", "叫分：不叫 / 叫 2 / 叫 3", "当前最高 1 分", at=B)
        ctx.receive_event(bot, gmsg(B, "/叫 1"))
        expect_group(ctx, "可以：不叫、叫 2、叫 3", at=B)
        ctx.receive_event(bot, gmsg(B, "不叫"))
        expect_group(ctx, "玩家102 不叫", at=C)
        ctx.receive_event(bot, gmsg(C, "叫三"))
        expect_group(ctx, "玩家103 叫 3 分", "玩家103 当挖坑者，3 分", "私聊扣底")
        expect_private(ctx, C, "你是挖坑者（3 分）", "请扣 4 张牌", "你的手牌：")
    assert game.phase == "bury" and game.digger == 2 and game.bid == 3
    assert 40 < (table.deadline - now_utc()).total_seconds() <= 45  # 私聊限时 for the bury


async def test_w3_private_bury_validation_and_hidden_bottom(app: App) -> None:
    game = WGame.deal(WRules(), 8, first=1)
    game.place_bid(1, 3)  # a bid of 3 ends the bidding at once (W-2)
    table = await wakeng_table(game)
    digger = game.digger
    users = (A, B, C)
    hand = list(game.hands[digger])
    other = game.hands[(digger + 1) % 3]
    before = state(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(users[(digger + 1) % 3], "扣 3456"))
        expect_private(ctx, users[(digger + 1) % 3], "现在不需要你扣底")
        ctx.receive_event(bot, pmsg(users[digger], "扣 " + format_cards(hand[:3])))
        expect_private(ctx, users[digger], "要扣 4 张牌，你写了 3 张")
        ctx.receive_event(bot, pmsg(users[digger], "扣 " + format_cards(hand[:3] + other[:1])))
        expect_private(ctx, users[digger], "你没有")
        ctx.receive_event(bot, pmsg(users[digger], "扣 " + format_cards(hand[:1] * 2 + hand[1:3])))
        expect_private(ctx, users[digger], "写了两次")
        ctx.receive_event(bot, pmsg(users[digger], "扣 xyz"))
        expect_private(ctx, users[digger], "不是牌")
    assert state(table) == before
    bottom = format_cards(game.bottom)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(users[digger], "扣 " + format_cards(hand[:4])))
        expect_private(ctx, users[digger], "你扣下：", "拿到底牌：" + bottom, "你的手牌（16 张）")
        expect_group(ctx, "扣底完成", "首出", at=users[digger], without=(bottom, format_cards(hand[:4])))
    assert game.phase == "play" and game.buried == sorted(hand[:4])


async def test_w2_w3_timeouts(app: App, monkeypatch) -> None:
    table = await wakeng_table(WGame.deal(WRules(), 9, first=0))
    game = table.engine

    async def fire() -> None:
        table.remind_at, table.deadline = None, now_utc() - timedelta(seconds=1)
        deadlines.schedule(table)
        await REGISTRY.get(str(GROUP)).timer

    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家101 不叫［超时］", at=B)
        await fire()
        expect_group(ctx, "玩家102 不叫［超时］", at=C)
        await fire()
        # The third must bid (W-2): the timeout bids 1.
        expect_group(ctx, "玩家103 叫 1 分［超时］", "玩家103 当挖坑者，1 分")
        expect_private(ctx, C, "请扣 4 张牌")
        await fire()
        lowest = game.timeout_bury(2)
        expect_private(ctx, C, "你扣下：" + format_cards(lowest), "超时自动")
        expect_group(ctx, "扣底完成［超时自动］", at=C)
        await fire()
    assert game.bids == [0, 0, 1] and game.buried == sorted(lowest) and game.phase == "play"


async def test_w5_w6_end_message_and_record(app: App) -> None:
    game = WGame.from_hands([cards("9"), cards("10 J"), cards("Q K")], bottom=cards("3 4 6 7"),
                            bid=2, buried=cards("5 10 K 8"), digger=0)
    table = await wakeng_table(game)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 9"))
        expect_group(ctx, "本局结束：挖坑者胜", "扣的底：", "倍数 ×8", "玩家101 胜 +32",
                     "玩家102 负 -16", "玩家103 负 -16", "/继续")
    assert table.status == "finished"
    [stats] = await REGISTRY.store.player_stats(str(GROUP), str(A))
    assert (stats.game, stats.wins, stats.points) == ("挖坑", 1, 32)


async def test_wakeng_rules_and_setting(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/规则 挖坑")
        ctx.receive_event(bot, event)
        expect_forward(ctx, "【挖坑】", "挖坑规则：标准（标准/陕西）", "出牌限时：60")
        event = gmsg(A, "/设置 挖坑 挖坑规则 陕西", role="owner")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("挖坑规则 已设为 陕西"), {"message_id": 1})
    assert await REGISTRY.store.get_settings(str(GROUP), "挖坑") == {"ruleset": "陕西"}


async def test_bury_in_the_group_and_out_of_range_bids_are_answered(app: App) -> None:
    table = await wakeng_table(WGame.deal(WRules(), 7, first=0))
    before = state(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "叫 4"))
        expect_group(ctx, "可以：不叫、叫 1、叫 2、叫 3", at=A)
        ctx.receive_event(bot, gmsg(A, "扣 3456"))
        expect_group(ctx, "扣底请私聊机器人", at=A)
    assert state(table) == before
