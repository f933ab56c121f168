"""Deadlines on a stepped wall clock, and the one post per table after a restart.

The timers run on :data:`nonebot_plugin_paizhuo.tables.CLOCK`; here a fake one whose monotonic
time moves only when the test moves it, and whose wall clock the test can step back or
forward (NTP, an operator) without moving the monotonic time."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from chat_support import (
    GROUP,
    A,
    B,
    expect_group,
    expect_private,
    make_bot,
    recording_bot,
    seat_table,
)
from clock_support import SteppedClock, settle
from nonebot.adapters.onebot.v11 import Message
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import accounts, tables
from nonebot_plugin_paizhuo.actions import announce, deadlines
from nonebot_plugin_paizhuo.tables import REGISTRY, timer_now

HANDS = [cards("3 4 77 9"), cards("A 5 8 Q"), cards("66 10 K")]


@pytest.mark.parametrize("step", [timedelta(hours=-1), timedelta(hours=1)])
async def test_a_stepped_wall_clock_neither_freezes_nor_skips_the_turn_timer(
        app: App, clock: SteppedClock, step: timedelta) -> None:
    """A 60 s turn, reminded 15 s before its end: right after the turn starts the wall
    clock jumps an hour back (or forward). The reminder still comes after 45 s and the
    timeout move after 60 s; the saved deadline is the real (wall-clock) one."""
    table = await seat_table(HANDS, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    clock.step(step)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await clock.advance(44)  # nothing yet
        expect_group(ctx, "还剩 15 秒", at=A)
        await clock.advance(1)
    saved = (await REGISTRY.require_store().load_live())[str(GROUP)][1]
    assert datetime.fromisoformat(saved["deadline"]) == clock.wall() + timedelta(seconds=15)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await clock.advance(14)  # nothing yet
        expect_group(ctx, "玩家101 出 ", "［超时］", at=B)
        expect_private(ctx, A, "手牌")
        await clock.advance(1)
    assert table.engine.log and table.engine.log[0][0] == 0


async def test_a_deadline_saved_before_a_restart_counts_in_wall_clock_time(
        app: App, clock: SteppedClock) -> None:
    """A deadline saved while the wall clock was stepped is read back after a restart
    as the same wall-clock moment."""
    table = await seat_table(HANDS, leader=0)
    clock.step(timedelta(hours=-1))
    table.rearm()  # 60 s from now
    await REGISTRY.save(table)
    saved = (await REGISTRY.require_store().load_live())[str(GROUP)][1]
    assert datetime.fromisoformat(saved["deadline"]) == clock.wall() + timedelta(seconds=60)
    tables.use_clock(clock)  # a restart: the process clock starts from the wall clock
    REGISTRY.reset()
    [again] = await REGISTRY.restore()
    assert again.deadline == timer_now() + timedelta(seconds=60)


@pytest.mark.parametrize("step", [timedelta(hours=-1), timedelta(hours=1)])
async def test_a_clock_step_across_a_restart_keeps_the_time_left(
        app: App, clock: SteppedClock, step: timedelta) -> None:
    """A 60 s turn (reminder 15 s before its end) is saved; 10 s later the wall clock
    jumps an hour back (or forward) and the bot is killed before it saves again; it
    starts 5 s later. The turn has the 45 s it had left (the reminder after 30 s), not an
    hour more (no timeout for an hour) or an hour less (the timeout at once, no
    reminder): the remaining time is what counts, not the wall-clock deadline read
    against the stepped clock."""
    table = await seat_table(HANDS, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    await clock.advance(10)
    clock.step(step)  # NTP, an operator: nothing is saved after it
    await clock.advance(5)  # the bot is down
    tables.use_clock(clock)  # a restart: the process clock starts from the wall clock
    REGISTRY.reset()
    [again] = await REGISTRY.restore()
    assert again.deadline == timer_now() + timedelta(seconds=45)
    assert again.remind_at == timer_now() + timedelta(seconds=30)
    REGISTRY.resumed.clear()  # the re-post after a restart has its own test
    deadlines.schedule(again)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await clock.advance(29)  # nothing yet
        expect_group(ctx, "还剩 15 秒", at=A)
        await clock.advance(1)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await clock.advance(14)  # nothing yet
        expect_group(ctx, "玩家101 出 ", "［超时］", at=B)
        expect_private(ctx, A, "手牌")
        await clock.advance(1)


@pytest.mark.parametrize(("step", "left"), [(timedelta(0), 45), (timedelta(hours=-1), 60),
                                           (timedelta(hours=1), -3555)])
async def test_a_restart_on_another_machine_counts_by_the_wall_clock(
        app: App, clock: SteppedClock, monkeypatch, step: timedelta, left: int) -> None:
    """Saved on another machine (or before a reboot): the monotonic clocks cannot be
    compared, so the time that passed is read on the wall clock, and a wall clock behind
    the save counts as no time passed (the whole turn is left, not an hour more); one
    ahead expires the turn (the move is made for the player at once)."""
    table = await seat_table(HANDS, leader=0)
    table.rearm()  # 60 s
    await REGISTRY.save(table)
    await clock.advance(15)
    clock.step(step)
    monkeypatch.setattr(tables, "BOOT_ID", "another-boot")
    tables.use_clock(clock)
    REGISTRY.reset()
    [again] = await REGISTRY.restore()
    assert again.deadline == timer_now() + timedelta(seconds=left)


async def test_a_restart_with_an_expired_deadline_posts_once(app: App, monkeypatch) -> None:
    """The bot was down past a player's turn time: when it connects, the timeout move is
    posted (it carries the next prompt) and the table is not re-posted besides."""
    table = await seat_table(HANDS, leader=0)
    table.deadline = timer_now() - timedelta(seconds=5)
    await REGISTRY.save(table)
    REGISTRY.reset()  # a restart: only the database is left
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "connected", lambda: {bot.self_id: bot})
    await announce.bot_connected(bot)
    for _ in range(500):  # until the timer's post went out
        if any("超时" in t for t in sent.texts()):
            break
        await asyncio.sleep(0.01)
    await settle(50)
    posts = [d for api, d in sent.calls if api == "send_group_msg" and d["group_id"] == GROUP]
    assert len(posts) == 1, sent.texts()
    assert "［超时］" in Message(posts[0]["message"]).extract_plain_text()
