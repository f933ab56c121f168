"""nonebug tests of computer players (电脑) at the table: /加机器人 and /踢机器人 (who may,
when, how many), no private messages and no @ for computer seats, a human taking a
computer's seat between games, and computer moves made by the table's timer."""

from __future__ import annotations

from datetime import timedelta

from chat_support import (
    GROUP,
    SPADE_A,
    STRANGER,
    A,
    B,
    expect_friends,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY, WAITING, Table, now_utc
from paizhuo_engine.zhuatewu.game import ZGame


async def open_wakeng(app: App) -> Table:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 挖坑"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌挖坑")
    return REGISTRY.get(str(GROUP))


async def test_add_computers_permissions_and_usage(app: App) -> None:
    table = await open_wakeng(app)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/加机器人"))
        expect_group(ctx, "只有开局人", at=B)
        for junk in ("很多", "፩", "٢", "-1", "+1", "1_0"):
            ctx.receive_event(bot, gmsg(A, f"/加机器人 {junk}"))
            expect_group(ctx, "用法：/加机器人 [人数]", at=A)
        ctx.receive_event(bot, gmsg(A, "/加机器人 3"))
        expect_group(ctx, "只剩 2 个空位", at=A)
        ctx.receive_event(bot, gmsg(A, "/加机器人"))
        expect_group(ctx, "电脑1 入座（电脑玩家）", "（2/3）")
        ctx.receive_event(bot, gmsg(STRANGER, "/踢机器人"))
        expect_group(ctx, "只有开局人", at=STRANGER)
        ctx.receive_event(bot, gmsg(STRANGER, "/踢机器人", role="admin"))
        expect_group(ctx, "电脑1 离座", "（1/3）")
        ctx.receive_event(bot, gmsg(A, "/踢机器人"))
        expect_group(ctx, "这桌没有电脑玩家", at=A)
    assert [s.user_id for s in table.seats] == [str(A)] and table.status == WAITING
    assert REGISTRY.table_of_user("ai:1") is None


async def test_full_table_of_one_human_starts_without_private_messages_to_computers(app: App) -> None:
    table = await open_wakeng(app)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/加机器人 两"))
        expect_group(ctx, "电脑1、电脑2 入座", "【挖坑】开局")
        expect_private(ctx, A, "你的手牌")  # and nothing to ai:1 / ai:2
    assert table.status == PLAYING
    assert [s.name for s in table.seats] == ["玩家101", "电脑1", "电脑2"]
    bidder = table.engine.bidder
    assert (table.computer_at is not None) == (bidder != 0)
    assert table.deadline is None or bidder == 0
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/加机器人"))
        expect_group(ctx, "牌局进行中不能加机器人", at=A)


async def test_computer_moves_when_its_pause_runs_out(app: App, monkeypatch) -> None:
    """Computer seats in play: their moves are made by the table's timer, each saved, and
    announced together in one post that ends with the prompt @-mentioning the human."""
    hands = [cards("3 4 5"), [SPADE_A, *cards("7 8")], cards("9 10 J")]
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A),
                  seats=[SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"),
                         SeatView("ai:2", "电脑2")],
                  settings={}, created_at=now_utc(), started_at=now_utc(), uid="ai-test",
                  engine=ZGame.from_hands(hands, leader=1), status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    assert table.computer_at is not None and table.deadline is None and table.remind_at is None
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "电脑1 出 ♠7（单张）\n电脑2 出 ", "（单张）", at=A, without=("轮到 电脑2",))
        table.computer_at = now_utc() - timedelta(seconds=1)
        deadlines.schedule(table)
        await table.timer
    assert table.engine.turn == 0 and table.computer_at is None and table.deadline is not None
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["engine"]["log"] == table.engine.to_json()["log"]


async def test_human_takes_a_computer_seat_between_games(app: App) -> None:
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A),
                  seats=[SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"),
                         SeatView("ai:2", "电脑2")],
                  settings={}, created_at=now_utc(), status=FINISHED,
                  ready=["ai:1", "ai:2"], account="10001")
    REGISTRY.add(table)
    await REGISTRY.save(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "玩家102 替下 电脑2 入座", "等 /继续：玩家101")
    assert [s.user_id for s in table.seats] == [str(A), "ai:1", str(B)]
    assert sorted(table.ready) == sorted(["ai:1", str(B)])
    assert REGISTRY.table_of_user(str(B)) is table


async def test_the_last_person_out_closes_a_table_of_computers(app: App) -> None:
    """A table nobody sits at closes, also before the first deal: the last person out of
    a table with computer players closes it, and nothing is left to fill with more."""
    await open_wakeng(app)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/加机器人"))
        expect_group(ctx, "电脑1 入座")
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "玩家101 退出", "牌桌已关闭")
        ctx.receive_event(bot, gmsg(STRANGER, "/加机器人 1", role="admin"))
        expect_group(ctx, "本群还没有牌桌", at=STRANGER)
    assert REGISTRY.get(str(GROUP)) is None and REGISTRY.table_of_user(str(A)) is None
    assert await REGISTRY.require_store().load_live() == {}


async def test_the_opener_who_leaves_hands_the_table_to_a_person(app: App) -> None:
    """The opener's rights pass to the next person seated, never to a computer player."""
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 四人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌抓特务")
        ctx.receive_event(bot, gmsg(A, "/加机器人"))
        expect_group(ctx, "电脑1 入座")
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "玩家102 入座", "（3/4）")
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "玩家101 退出", "1.电脑1 2.玩家102（2/4）", without=("关闭",))
        ctx.receive_event(bot, gmsg(B, "/踢机器人"))
        expect_group(ctx, "电脑1 离座", "1.玩家102（1/4）")
    table = REGISTRY.get(str(GROUP))
    assert table is not None and table.opener == str(B)
