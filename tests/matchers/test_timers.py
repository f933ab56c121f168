"""nonebug tests of turn timers, reminders, 托管 (auto-play), idle tables and deadlines
that survive a restart (issue: never hang, never lose)."""

from __future__ import annotations

from datetime import timedelta

from chat_support import (
    GROUP,
    SPADE_A,
    A,
    B,
    C,
    expect_friends,
    expect_group,
    expect_private,
    fire,
    gmsg,
    make_bot,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.tables import REGISTRY, now_utc

HANDS = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


async def test_turn_is_armed_with_a_reminder(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    table.rearm()
    assert 59 < (table.deadline - now_utc()).total_seconds() <= 60
    assert (table.deadline - table.remind_at).total_seconds() == 15
    table.settings = {"turn_seconds": 0}
    table.rearm()
    assert table.deadline is None and table.remind_at is None  # 出牌限时 0: no timer


async def test_reminder_then_timeout_moves_then_auto_play(app: App, monkeypatch) -> None:
    """超时代打 简单: a timed-out leader leads the lowest single, a timed-out follower
    passes; two timeouts in a row put the player in 托管."""
    table = await seat_table(HANDS, leader=0)
    table.settings = {"timeout_play": "简单"}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "还剩 9 秒", at=A)
        await fire(table, remind=True)
        # Leader timed out: the lowest single is led for them.
        expect_group(ctx, "玩家101 出 ", "［超时］", at=B)
        expect_private(ctx, A, "手牌（4 张）")
        await fire(table)
        # Follower timed out: pass.
        expect_group(ctx, "玩家102 过［超时］", at=C)
        await fire(table)
    assert table.engine.log[0] == [0, [cards("3")[0]]]
    assert table.timeouts == {str(A): 1, str(B): 1}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "过"))
        expect_group(ctx, "玩家103 过", "拿下这一轮", at=A)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        # A times out a second time in a row: 托管.
        expect_group(ctx, "玩家101 出 ", "［超时］", "连续两次超时，进入托管", at=B)
        expect_private(ctx, A, "手牌（3 张）")
        await fire(table)
    assert table.auto == [str(A)]
    assert (table.deadline - now_utc()).total_seconds() > 30  # B's own turn timer
    table.engine.turn = 0  # force A's turn: 托管 moves after a short delay
    table.engine.lead = None
    table.rearm()
    assert (table.deadline - now_utc()).total_seconds() <= 1.5
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "玩家101 出 ", "［托管］")
        expect_private(ctx, A, "你的手牌")
        await fire(table)
    assert table.engine.log[-1][0] == 0 and len(table.engine.hands[0]) < 3


async def test_timeout_plays_like_a_computer_player_by_default(app: App, monkeypatch) -> None:
    """超时代打 电脑 (default): a timed-out follower is played for with the computer
    players' strategy (G-6), which beats a single it can beat cheaply."""
    table = await seat_table(HANDS, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌")
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "玩家102 出 ♠5（单张）［超时］", at=C)
        expect_private(ctx, B, "手牌（3 张）")
        await fire(table)
    assert table.engine.log[-1][0] == 1 and len(table.engine.hands[1]) == 3
    assert table.timeouts == {str(B): 1}


async def test_any_game_command_ends_auto_play_and_toggle(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/托管"))
        expect_group(ctx, "玩家102 进入托管")
        ctx.receive_event(bot, gmsg(C, "/托管"))
        expect_group(ctx, "玩家103 进入托管")
        ctx.receive_event(bot, gmsg(C, "/托管"))
        expect_group(ctx, "玩家103 取消托管")
        ctx.receive_event(bot, gmsg(A, "出 3"))  # B in 托管 is next: the post waits for B's move
    assert table.auto == [str(B)] and table.pending
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 5"))  # B decides after all: one post for both moves
        expect_group(ctx, "玩家101 出 ♠3", "玩家102 出", "玩家102 取消托管", at=C)
        expect_private(ctx, A, "手牌")
        expect_private(ctx, B, "手牌")
        ctx.receive_event(bot, gmsg(9, "/托管"))
        expect_group(ctx, "不在本群进行中的牌局", at=9)
    assert table.auto == []


async def test_idle_waiting_and_finished_tables_close(app: App, monkeypatch) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 四人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
    table = REGISTRY.get(str(GROUP))
    assert 599 < (table.deadline - now_utc()).total_seconds() <= 600  # 空桌关闭 10 min
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "等人入座超过 10 分钟，已自动关闭")
        await fire(table)
    assert REGISTRY.get(str(GROUP)) is None and await REGISTRY.store.load_live() == {}
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "本局结束")
    assert table.status == "finished" and table.deadline is not None
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "等待 /继续超过 10 分钟，已自动关闭")
        await fire(table)
    assert REGISTRY.get(str(GROUP)) is None


async def test_deadlines_survive_a_restart(app: App, monkeypatch) -> None:
    """A saved expired deadline acts at once after a restart; a running one continues."""
    table = await seat_table(HANDS, leader=0)
    table.deadline = now_utc() - timedelta(seconds=5)
    await REGISTRY.save(table)
    REGISTRY.reset()  # "restart": only the database is left
    [restored] = await REGISTRY.restore()
    assert restored.deadline == table.deadline
    # Only the deadline is under test here: the repost when a bot connects after a restart
    # has its own test (test_commands.py).
    REGISTRY.resumed.clear()
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家101 出 ", "［超时］", at=B)
        expect_private(ctx, A, "手牌")
        await deadlines.resume_timers()
        await REGISTRY.get(str(GROUP)).timer
    saved = await REGISTRY.store.load_live()
    assert len(saved[str(GROUP)][1]["engine"]["log"]) == 1
    running = REGISTRY.get(str(GROUP)).deadline
    REGISTRY.reset()
    [again] = await REGISTRY.restore()
    assert again.deadline == running and running > now_utc()
