"""nonebug tests of replies and the account's budget: every reply to a command goes
through the send scheduler (paced on its fake clock), one sender's commands of any kind
are limited, the acting player's private messages are urgent, and ``/牌桌 状态`` shows
the account's sending state to the group's admins and the superusers only."""

from __future__ import annotations

import asyncio
import contextlib

from chat_support import (
    HANDS3,
    STRANGER,
    A,
    B,
    Has,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    seat_table,
)
from clock_support import FakeClock
from nonebug import App

from nonebot_plugin_paizhuo import messaging
from nonebot_plugin_paizhuo.actions import commit
from nonebot_plugin_paizhuo.games.base import Say
from nonebot_plugin_paizhuo.messaging import RefusalLimiter
from nonebot_plugin_paizhuo.send_queue import SendScheduler
from nonebot_plugin_paizhuo.version import __version__

COMMANDS = ["/帮助 抓特务", "/帮助 象棋", "/设置", "/战绩 乙", "/加入 我", "/退出 了", "/继续 吧",
            "/托管 我", "/手牌 给我", "/开始 吧", "/结束 吧", "/帮助 挖坑"]
"""Commands answered by a reply of their own (help, settings, stats, usage errors)."""


TICK = 0.05
"""Seconds the fake clock moves at each step of :func:`drive`."""


async def drive(clock: FakeClock) -> None:
    while True:
        await clock.advance(TICK)


async def test_replies_to_commands_go_through_the_accounts_budget(app: App, monkeypatch) -> None:
    clock = FakeClock()
    sent_at: list[float] = []
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        sched = SendScheduler(lambda out: messaging._send_one(bot.self_id, out), clock=clock,
                              rate=1.0, burst=3)
        monkeypatch.setitem(messaging._schedulers, bot.self_id, sched)
        monkeypatch.setitem(messaging._bots, bot.self_id, bot)
        real = bot.call_api

        async def call_api(api: str, **data):
            if api.startswith("send_"):
                sent_at.append(clock.now())
            return await real(api, **data)

        monkeypatch.setattr(bot, "call_api", call_api)
        for i, text in enumerate(COMMANDS):
            ctx.receive_event(bot, gmsg(300 + i, text))
            ctx.should_call_api("send_group_msg", {"group_id": gmsg(A, "").group_id,
                                                   "message": Has()}, {"message_id": i + 1})
        driver = asyncio.create_task(drive(clock))
    driver.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await driver
    assert sched.stats.calls == len(COMMANDS) == len(sent_at)
    # Token bucket: at most the burst plus one a second in any stretch of time. A call is
    # seen when it reaches the bot, which on a busy machine can be a tick of the fake
    # clock after its token was taken: one tick of slack.
    for i in range(len(sent_at)):
        for j in range(i, len(sent_at)):
            assert j - i + 1 <= 3 + (sent_at[j] - sent_at[i] + TICK) * 1.0 + 1e-6, sent_at
    assert sent_at[-1] >= len(COMMANDS) - 3 - 0.01


async def test_one_senders_commands_are_limited_in_every_group(app: App, monkeypatch) -> None:
    """/帮助 counts 3 (its answer is a merged-forward message): three fit a limit of 9; the
    fourth is told once that the sender goes too fast — in the group, as the sender sits at
    no table (the bot may not be their friend) — and the rest are ignored."""
    t = [1000.0]
    monkeypatch.setattr(messaging, "_commands", RefusalLimiter(9, 60.0, 60.0, clock=lambda: t[0]))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for i in range(3):
            ctx.receive_event(bot, gmsg(STRANGER, "/帮助 象棋", group=6000 + i))
            expect_group(ctx, "用法", group=6000 + i)
        ctx.receive_event(bot, gmsg(STRANGER, "/帮助 象棋", group=6003))
        expect_group(ctx, "你发得太快了，60 秒后再试", at=STRANGER, group=6003)
        for i in range(4, 20):  # over the limit: ignored, in any group
            ctx.receive_event(bot, gmsg(STRANGER, "/帮助 象棋", group=6000 + i))
        ctx.receive_event(bot, gmsg(B, "/帮助 象棋", group=6000))  # another sender
        expect_group(ctx, "用法", group=6000)
        for _ in range(5):  # a superuser is never limited
            ctx.receive_event(bot, gmsg(9999, "/帮助 象棋", group=6001))
            expect_group(ctx, "用法", group=6001)
    t[0] += 61
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(STRANGER, "/帮助 象棋", group=6005))  # the silence is over
        expect_group(ctx, "用法", group=6005)


async def test_moves_are_not_held_back_by_the_command_limit(app: App, monkeypatch) -> None:
    await seat_table(HANDS3, leader=0)
    monkeypatch.setattr(messaging, "_commands", RefusalLimiter(6, 60.0, 60.0, clock=lambda: 0.0))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for _ in range(2):
            ctx.receive_event(bot, gmsg(A, "/帮助 象棋"))
            expect_group(ctx, "用法")
        ctx.receive_event(bot, gmsg(A, "/帮助 象棋"))  # over: told once, privately (seated)
        expect_private(ctx, A, "你发得太快了")
        ctx.receive_event(bot, gmsg(A, "/帮助 象棋"))  # silenced
        ctx.receive_event(bot, gmsg(A, "出 3"))  # a move still counts
        expect_group(ctx, "玩家101 出", at=B)
        expect_private(ctx, A, "你的手牌")


async def test_the_private_messages_of_the_seat_to_act_are_urgent() -> None:
    table = await seat_table(HANDS3, leader=1)
    outs = commit.says_to_outs(table, [Say("轮到你了", None), Say("你的手牌：…", 1),
                                        Say("你的手牌：…", 2)])
    assert [(o.kind, o.target, o.urgent) for o in outs] == [
        ("group", str(table.group_id), False), ("private", str(B), True),
        ("private", table.seats[2].user_id, False)]
    merged = messaging.merge([outs[1], messaging.private(str(B), "还有一句")])
    assert merged[0].urgent  # merged with anything, it stays urgent


async def test_table_status_is_for_admins_and_superusers(app: App) -> None:
    await seat_table(HANDS3, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/牌桌 状态"))
        expect_group(ctx, "只有群主、管理员", without=("速率",))
        ctx.receive_event(bot, gmsg(B, "/牌桌 状态", role="admin"))
        expect_group(ctx, "账号 10001 状态", f"（牌桌 {__version__}）", "牌桌：1 桌（进行中 1 桌）",
                     "发送速率：", "排队：", "最近 5 分钟失败：")
        ctx.receive_event(bot, gmsg(9999, "/牌桌 状态"))
        expect_group(ctx, "账号 10001 状态")
