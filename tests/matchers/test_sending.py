"""nonebug tests of the chat side of sending: a turn's time counts from when its prompt
was actually sent, and one user's refusals are limited (then ignored silently)."""

from __future__ import annotations

from datetime import timedelta

from chat_support import (
    HANDS3,
    STRANGER,
    A,
    B,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    seat_table,
)
from nonebug import App

from nonebot_plugin_paizhuo import messaging, tables
from nonebot_plugin_paizhuo.actions import commit
from nonebot_plugin_paizhuo.games.base import Say
from nonebot_plugin_paizhuo.messaging import RefusalLimiter
from nonebot_plugin_paizhuo.tables import REGISTRY, now_utc


class MovedClock(tables.SystemClock):
    """The deadlines' clocks, moved forward (both together) only by the test."""

    def __init__(self) -> None:
        self.base, self.moved = now_utc(), 0.0

    def wall(self):
        return self.base + timedelta(seconds=self.moved)

    def mono(self) -> float:
        return self.moved


def slow_group_sends(bot, monkeypatch, clock: MovedClock, seconds: float) -> None:
    """Every group message of ``bot`` takes ``seconds`` (of the fake clock) to go
    out, as when it waited behind other groups' messages."""
    real = bot.call_api

    async def call_api(api: str, **data):
        if api == "send_group_msg":
            clock.moved += seconds
        return await real(api, **data)

    monkeypatch.setattr(bot, "call_api", call_api)


async def test_turn_time_counts_from_when_the_prompt_was_sent(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS3, leader=0)
    clock = MovedClock()
    tables.use_clock(clock)
    try:
        await _turn_time_counts_from_the_prompt(app, monkeypatch, table, clock)
    finally:
        tables.use_clock(tables.SystemClock())


async def _turn_time_counts_from_the_prompt(app: App, monkeypatch, table, clock) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        slow_group_sends(bot, monkeypatch, clock, 40)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出", "轮到", at=B)
        expect_private(ctx, A, "你的手牌")
    sent_at = tables.timer_now()
    # B was @-mentioned 40 s after the move: B still has the full 60 s from then.
    assert table.deadline == sent_at + timedelta(seconds=60)
    assert table.remind_at == sent_at + timedelta(seconds=45)
    saved = (await REGISTRY.store.load_live())[str(table.group_id)][1]
    assert saved["deadline"] == table.deadline.isoformat()  # and it was saved
    # A refused move changes nothing, not even the deadline, however slow its reply.
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        slow_group_sends(bot, monkeypatch, clock, 20)
        ctx.receive_event(bot, gmsg(B, "出 K"))
        expect_group(ctx, "没有生效", at=B)  # the reason depends on B's hand: privately
        expect_private(ctx, B, "你没有")
    assert table.deadline == sent_at + timedelta(seconds=60)


def record_group_sends(bot, monkeypatch) -> list[str]:
    """The text of every group message ``bot`` sends from now on."""
    sent: list[str] = []
    real = bot.call_api

    async def call_api(api: str, **data):
        result = await real(api, **data)
        if api == "send_group_msg":
            sent.append(data["message"].extract_plain_text())
        return result

    monkeypatch.setattr(bot, "call_api", call_api)
    return sent


async def test_refusals_are_limited_per_user(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS3, leader=0)
    t = [1000.0]
    monkeypatch.setattr(messaging, "_limiter", RefusalLimiter(5, 30.0, 60.0, clock=lambda: t[0]))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        sent = record_group_sends(bot, monkeypatch)
        for i in range(8):  # a bystander's junk: five replies, one notice, then silence
            ctx.receive_event(bot, gmsg(STRANGER, "出 3"))
            if i < 5:
                expect_group(ctx, "你不在这桌牌局中", at=STRANGER)
            elif i == 5:
                expect_group(ctx, "出错太多次了：60 秒内出错不再回复", at=STRANGER)
        for i in range(7):  # a seated player out of turn: the same limit, per user
            ctx.receive_event(bot, gmsg(B, "出 5"))
            if i < 5:
                expect_group(ctx, "还没轮到你", at=B)
            elif i == 5:  # told privately: a seated player is the bot's friend
                expect_private(ctx, B, "出错太多次了")
        # An accepted move is never held back.
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出", at=B)
        expect_private(ctx, A, "你的手牌")
    assert sum("你不在这桌牌局中" in x for x in sent) == 5
    assert sum("还没轮到你" in x for x in sent) == 5
    assert table.engine.log[0][0] == 0
    t[0] += 59
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        sent = record_group_sends(bot, monkeypatch)
        ctx.receive_event(bot, gmsg(STRANGER, "出 3"))  # still silent
    assert sent == []
    t[0] += 2
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(STRANGER, "出 3"))  # the silence is over
        expect_group(ctx, "你不在这桌牌局中", at=STRANGER)


async def test_only_a_plain_hand_update_may_be_superseded(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    says = table.adapter.act(table.engine, table.seats, 0, "play", "3")
    privates = [o for o in commit.says_to_outs(table, says) if o.kind == "private"]
    assert [(o.target, o.coalesce) for o in privates] == [(str(A), "hand")]
    question = commit.says_to_outs(table, [Say("【抓特务】请选择，私聊回复 明 / 暗", 1)])
    assert question[0].coalesce is None
    merged = messaging.merge([*privates, messaging.private(str(A), "你已还给 乙：5")])
    assert merged[0].coalesce is None  # a hand with something else in it is kept
