"""nonebug tests of 电脑难度 (RULES.md G-6): a timed-out player is played for at the group's
level — 简单's simple rule, 困难's searched move, and 普通 when the search gives none."""

from __future__ import annotations

from datetime import timedelta

from chat_support import A, B, C, expect_group, expect_private, gmsg, make_bot, seat_table
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import ai_turn
from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.tables import Table, now_utc
from paizhuo_engine.ai.simple import PASS

HANDS = [cards("3 4 77 9"), [cards("♠A")[0], *cards("5 8 Q")], cards("66 10 K")]


async def fire(table: Table) -> None:
    table.remind_at, table.deadline = None, now_utc() - timedelta(seconds=1)
    deadlines.schedule(table)
    await deadlines._timers[table.group_id]


class FakePool:
    """Stands in for the worker pool: answers every search with ``answer``."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.asked: list[tuple[int, int]] = []

    async def search(self, state: dict, seat: int, seed: int, budget_ms: int):
        self.asked.append((seat, budget_ms))
        return self.answer


async def lead_3(app: App, table: Table) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌")


async def test_simple_level_passes_where_normal_would_beat(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "简单"}
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 过［超时］", at=C)
        await fire(table)
    assert table.engine.log[-1] == [1, []]


async def test_hard_level_plays_the_searched_move(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "困难", "ai_budget_ms": 200}
    fake = FakePool(PASS)
    monkeypatch.setattr(ai_turn, "pool", lambda: fake)
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 过［超时］", at=C)
        await fire(table)
    assert fake.asked == [(1, 200)]
    assert table.engine.log[-1] == [1, []]


async def test_hard_level_without_an_answer_plays_at_normal(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "困难"}
    fake = FakePool(None)  # pool full, timed out or a worker died
    monkeypatch.setattr(ai_turn, "pool", lambda: fake)
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 出 ♠5（单张）［超时］", at=C)
        expect_private(ctx, B, "手牌（3 张）")
        await fire(table)
    assert fake.asked == [(1, 300)]
