"""Save before effect: every kind of state change, with a store that fails.

The faults are real: a write statement on the store's SQLAlchemy connections raises
``sqlite3.OperationalError("database or disk is full")`` from the driver call (the whole
real call path: Registry → Store → SQLAlchemy → aiosqlite) while the store's dedicated
per-move connection is made read-only (``PRAGMA query_only``: SQLite itself refuses the
write); the database file opened read-only; and ``database is locked`` from a write lock
held by another connection.

For each change: no message about it goes out, the actor gets 没有生效，请重试 (privately
for a private answer; nobody for a timer), the table in memory (and the user index) equals
what the database holds, and once the store heals the same command works.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from chat_support import (
    GROUP,
    HANDS3,
    SPADE_A,
    A,
    B,
    C,
    Has,
    expect_friends,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
    pmsg,
    recording_bot,
    seat_table,
)
from clock_support import settle
from nonebug import App
from sqlalchemy import event, select
from support import cards

from nonebot_plugin_paizhuo import accounts
from nonebot_plugin_paizhuo.actions import announce, commit, deadlines, turns
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY, WAITING, Table, now_utc
from paizhuo_db.models import GameRecord
from paizhuo_db.store import Store
from paizhuo_engine.cards import format_cards
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

NOT_APPLIED = "没有生效，请重试"
WRITES = ("INSERT", "UPDATE", "DELETE")
PREVIOUS = {"roles": ["civilian", "spy", "civilian"], "out": [1], "outcome": "spy", "stakes": [1, 1, 1]}


class Faults:
    """Makes every write of the plugin's store fail inside SQLite's driver calls."""

    def __init__(self) -> None:
        self.error: str | None = None
        self.hits = 0

    async def arm(self, error: str = "database or disk is full") -> None:
        self.error = error
        self.hits = 0
        hot = await REGISTRY.require_store().hot_connection()
        if hot is not None:
            await hot.execute("PRAGMA query_only=ON")

    async def heal(self) -> None:
        self.error = None
        hot = await REGISTRY.require_store().hot_connection()
        if hot is not None:
            await hot.execute("PRAGMA query_only=OFF")

    def hook(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if self.error and statement.lstrip().split(None, 1)[0].upper() in WRITES:
            self.hits += 1
            raise sqlite3.OperationalError(self.error)


@pytest.fixture
async def faults() -> AsyncIterator[Faults]:
    engine = REGISTRY.require_store().engine.sync_engine
    f = Faults()
    event.listen(engine, "before_cursor_execute", f.hook)
    try:
        yield f
    finally:
        event.remove(engine, "before_cursor_execute", f.hook)
        await f.heal()


def canon(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


async def assert_memory_is_saved(group: int = GROUP) -> None:
    """The table in memory and the user index are exactly what the database holds."""
    rows = await REGISTRY.require_store().load_live()
    table = REGISTRY.get(str(group))
    indexed = {u for u, g in REGISTRY.by_user.items() if g == str(group)}
    if str(group) not in rows:
        assert table is None and not indexed
        return
    assert table is not None
    saved = {k: v for k, v in rows[str(group)][1].items() if k != "clock"}  # the save's clocks
    assert canon(table.to_json()) == canon(saved)
    assert indexed == {s.user_id for s in table.seats}


async def settled_pending() -> list:
    """The pending announcements once the handler that sent an end message finished
    (it marks the record right after the send returns)."""
    for _ in range(200):
        pending = await REGISTRY.require_store().pending_announcements()
        if not pending:
            return pending
        await asyncio.sleep(0.01)
    return pending


async def records() -> list[str]:
    async with REGISTRY.require_store().engine.connect() as conn:
        return list((await conn.execute(select(GameRecord.uid))).scalars())


async def fails_in_group(app: App, faults: Faults, user: int, text: str, *, friends: bool = False,
                         error: str = "database or disk is full") -> None:
    """``user`` sends ``text`` to the group while the store fails: only the refusal goes out."""
    await faults.arm(error)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, text))
        if friends:
            expect_friends(ctx)
        expect_group(ctx, NOT_APPLIED, at=user)
    await faults.heal()
    await assert_memory_is_saved()


async def fails_in_private(app: App, faults: Faults, user: int, text: str) -> None:
    await faults.arm()
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(user, text))
        expect_private(ctx, user, NOT_APPLIED)
    await faults.heal()
    await assert_memory_is_saved()


async def fire(table: Table, *, remind: bool = False) -> None:
    """Make the table's reminder (or deadline) due now and let its timer run."""
    past = now_utc() - timedelta(seconds=1)
    if remind:
        table.remind_at, table.deadline = past, now_utc() + timedelta(seconds=10)
    else:
        table.remind_at, table.deadline = None, past
    if getattr(table, "retry_at", None) is not None:
        table.retry_at = None  # the backoff after an earlier failure has passed
    deadlines.schedule(table)
    await table.timer


async def fails_on_timer(app: App, faults: Faults, monkeypatch, table: Table, *,
                         remind: bool = False) -> None:
    """The table's timer comes due while the store fails: nothing is sent, nothing
    changes, and the timer retries later (backoff) instead of spinning."""
    await faults.arm()
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await fire(table, remind=remind)
    await faults.heal()
    await assert_memory_is_saved()
    assert table.retry_at is not None and table.retry_at > now_utc()
    retry = table.timer
    assert retry is not None and not retry.done()


async def open_table(app: App, text: str = "/开局 抓特务 三人", joiners: tuple[int, ...] = ()) -> Table:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, text))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
        for user in joiners:
            ctx.receive_event(bot, gmsg(user, "/加入"))
            expect_friends(ctx)
            expect_group(ctx, "入座")
    table = REGISTRY.get(str(GROUP))
    assert table is not None
    return table


async def armed_table(hands: list[list[int]] = HANDS3, leader: int = 0) -> Table:
    """:func:`seat_table` with its turn timer armed and saved."""
    table = await seat_table(hands, leader=leader)
    table.rearm()
    await REGISTRY.save(table)
    return table


async def zhuatewu_table(game: ZGame) -> Table:
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], created_at=now_utc(),
                  started_at=now_utc(), uid="zt-test", engine=game, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


# ---- table life --------------------------------------------------------------------------------
async def test_open(app: App, faults: Faults) -> None:
    await fails_in_group(app, faults, A, "/开局 抓特务 三人", friends=True)
    assert REGISTRY.get(str(GROUP)) is None and REGISTRY.table_of_user(str(A)) is None
    await open_table(app)


async def test_join(app: App, faults: Faults) -> None:
    table = await open_table(app)
    await fails_in_group(app, faults, B, "/加入", friends=True)
    assert [s.user_id for s in table.seats] == [str(A)] and REGISTRY.table_of_user(str(B)) is None
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "玩家102 入座", "2/3")


async def test_join_that_fills_the_table_and_deals(app: App, faults: Faults) -> None:
    table = await open_table(app, joiners=(B,))
    await fails_in_group(app, faults, C, "/加入", friends=True)
    assert table.status == WAITING and table.engine is None and table.games == 0
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "3/3", "开局")
        for user in (A, B, C):
            expect_private(ctx, user, "手牌")
    assert table.playing


async def test_leave(app: App, faults: Faults) -> None:
    table = await open_table(app, joiners=(B,))
    await fails_in_group(app, faults, B, "/退出")
    assert len(table.seats) == 2 and REGISTRY.table_of_user(str(B)) is table
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/退出"))
        expect_group(ctx, "玩家102 退出", "1/3")


async def test_last_one_out_closes(app: App, faults: Faults) -> None:
    table = await open_table(app)
    await fails_in_group(app, faults, A, "/退出")
    assert REGISTRY.get(str(GROUP)) is table and REGISTRY.table_of_user(str(A)) is table
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "牌桌已关闭")
    assert REGISTRY.get(str(GROUP)) is None


async def test_end_table(app: App, faults: Faults) -> None:
    table = await seat_table(HANDS3)
    await fails_in_group(app, faults, A, "/结束")
    assert REGISTRY.get(str(GROUP)) is table and table.playing
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "牌桌已关闭", "本局不计分")
    assert REGISTRY.get(str(GROUP)) is None


async def test_start_now(app: App, faults: Faults) -> None:
    table = await open_table(app, "/开局 手把一", joiners=(B,))
    await fails_in_group(app, faults, A, "/开始")
    assert table.status == WAITING and table.engine is None
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开始"))
        expect_group(ctx, "开局")
        for user in (A, B):
            expect_private(ctx, user, "手牌")
    assert table.playing


# ---- playing ---------------------------------------------------------------------------------------
async def test_play(app: App, faults: Faults) -> None:
    table = await seat_table(HANDS3)
    await fails_in_group(app, faults, A, "出 3")
    assert table.engine.log == [] and table.engine.hands[0] == HANDS3[0]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌（4 张）")


async def test_pass(app: App, faults: Faults) -> None:
    table = await seat_table(HANDS3)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌")
    await fails_in_group(app, faults, B, "过")
    assert len(table.engine.log) == 1
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "过"))
        expect_group(ctx, "玩家102 过", at=C)


async def test_auto_toggle(app: App, faults: Faults) -> None:
    table = await seat_table(HANDS3)
    await fails_in_group(app, faults, B, "/托管")
    assert table.auto == []
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/托管"))
        expect_group(ctx, "玩家102 进入托管")
    assert table.auto == [str(B)]


async def test_last_move_and_the_game_record(app: App, faults: Faults) -> None:
    """The move that ends a game writes the record: when that fails there is no record,
    no end message, and the game is still on."""
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    await fails_in_group(app, faults, B, "出 A")
    assert table.status == PLAYING and await records() == []
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "本局结束", "/继续")
    assert table.status == FINISHED and await records() == ["test-5001"]


async def test_continue_that_deals(app: App, faults: Faults, monkeypatch) -> None:
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: 4242)
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "本局结束")
    await fails_in_group(app, faults, A, "/继续")
    assert table.ready == []
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for user in (A, B):
            ctx.receive_event(bot, gmsg(user, "/继续"))
            expect_group(ctx, "准备好了")
    await fails_in_group(app, faults, C, "/继续")
    assert table.status == FINISHED and table.games == 0 and table.ready == [str(A), str(B)]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "/继续"))
        expect_group(ctx, "开局")
        for user in (A, B, C):
            expect_private(ctx, user, "手牌")
    assert table.playing and table.games == 1


# ---- private answers -----------------------------------------------------------------------
async def test_tribute_return(app: App, faults: Faults) -> None:
    game = ZGame.deal(3, ZRules(), 4242, previous=PREVIOUS)
    table = await zhuatewu_table(game)
    lowest = game.tribute_allowed(1)[-1]
    await fails_in_private(app, faults, B, "还 " + format_cards([lowest]))
    assert table.engine.phase == "tribute" and lowest in table.engine.hands[1]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(B, "还 " + format_cards([lowest])))
        expect_private(ctx, B, "你已还给 玩家101")
        expect_private(ctx, A, "玩家102 还给你")
        expect_group(ctx, "玩家102 已还贡给 玩家101")


async def test_declare(app: App, faults: Faults) -> None:
    game = ZGame.deal(3, ZRules(), 4242, previous=PREVIOUS, everyone_answers=True)
    game.tribute_timeout()
    table = await zhuatewu_table(game)
    spy = game.spies()[0]
    user = (A, B, C)[spy]
    civilians = [u for s, u in enumerate((A, B, C)) if s != spy]
    await fails_in_private(app, faults, user, "明牌")
    assert table.engine.phase == "declare"
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(civilians[0], "暗"))
        expect_private(ctx, civilians[0], "收到")
        ctx.receive_event(bot, pmsg(user, "明牌"))
        expect_private(ctx, user, "你选择了：明牌")
    await fails_in_private(app, faults, civilians[1], "暗")  # the last answer, not saved
    assert table.engine.phase == "declare"
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(civilians[1], "暗"))
        expect_private(ctx, civilians[1], "收到")
        expect_group(ctx, f"玩家{user} 是特务，明牌！")
    assert table.engine.phase == "play"


async def test_bury(app: App, faults: Faults) -> None:
    game = WGame.deal(WRules(), 8, first=1)
    game.place_bid(1, 3)
    table = Table(group_id=str(GROUP), game="挖坑", size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], created_at=now_utc(),
                  started_at=now_utc(), uid="wk-test", engine=game, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    user = (A, B, C)[game.digger]
    bury = "扣 " + format_cards(list(game.hands[game.digger])[:4])
    await fails_in_private(app, faults, user, bury)
    assert table.engine.phase == "bury"
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(user, bury))
        expect_private(ctx, user, "你扣下：")
        expect_group(ctx, "扣底完成", at=user)
    assert table.engine.phase == "play"


# ---- timers ---------------------------------------------------------------------------------------
async def test_timeout_move(app: App, faults: Faults, monkeypatch) -> None:
    table = await armed_table()
    await fails_on_timer(app, faults, monkeypatch, table)
    assert table.engine.log == [] and table.timeouts == {}
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家101 出 ", "［超时］", at=B)
        expect_private(ctx, A, "手牌（4 张）")
        await fire(table)
    assert table.timeouts == {str(A): 1}


async def test_auto_move(app: App, faults: Faults, monkeypatch) -> None:
    table = await armed_table()
    table.auto = [str(A)]
    await REGISTRY.save(table)
    await fails_on_timer(app, faults, monkeypatch, table)
    assert table.engine.log == []
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家101 出 ", "［托管］", at=B)
        expect_private(ctx, A, "手牌（4 张）")
        await fire(table)


async def test_reminder(app: App, faults: Faults, monkeypatch) -> None:
    table = await armed_table()
    await fails_on_timer(app, faults, monkeypatch, table, remind=True)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "还剩 9 秒", at=A)
        await fire(table, remind=True)


async def test_prompt_timeout(app: App, faults: Faults, monkeypatch) -> None:
    game = ZGame.deal(3, ZRules(), 4242, previous=PREVIOUS, everyone_answers=True)
    table = await zhuatewu_table(game)
    await fails_on_timer(app, faults, monkeypatch, table)
    assert table.engine.phase == "tribute"
    spy = game.spies()[0]
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_private(ctx, B, "超时自动", "你已还给 玩家103", "请选择" if spy == 1 else "请私聊回复 暗")
        expect_private(ctx, A, "还给你", "请选择" if spy == 0 else "请私聊回复 暗")
        expect_group(ctx, "已还贡给 玩家101（超时自动）", "请各位私聊回复")
        expect_private(ctx, C, "还给你", "请选择" if spy == 2 else "请私聊回复 暗")
        await fire(table)
    assert table.engine.phase == "declare"


async def test_idle_close(app: App, faults: Faults, monkeypatch) -> None:
    table = await open_table(app)
    await fails_on_timer(app, faults, monkeypatch, table)
    assert REGISTRY.get(str(GROUP)) is table
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "已自动关闭")
        await fire(table)
    assert REGISTRY.get(str(GROUP)) is None


async def test_timer_backs_off_while_the_store_keeps_failing(app: App, faults: Faults,
                                                            monkeypatch) -> None:
    table = await armed_table()
    await fails_on_timer(app, faults, monkeypatch, table)
    first = table.retry_at
    await faults.arm()
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        await fire(table)
    await faults.heal()
    assert table.failures == 2 and table.retry_at is not None
    assert (table.retry_at - now_utc()).total_seconds() > 1.5 and table.retry_at > first


# ---- /设置 ---------------------------------------------------------------------------------------
async def test_settings(app: App, faults: Faults) -> None:
    for text in ("/设置 抓特务 连牌规则 b", "/设置 抓特务 默认"):
        await faults.arm()
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            event = gmsg(A, text, role="admin")
            ctx.receive_event(bot, event)
            expect_reply(ctx, event, Has(NOT_APPLIED), {"message_id": 1})
        await faults.heal()
        assert await REGISTRY.require_store().get_settings(str(GROUP), "抓特务") == (
            {} if "连牌" in text else {"chain_ends": "b"})
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            event = gmsg(A, text, role="admin")
            ctx.receive_event(bot, event)
            expect_reply(ctx, event, Has("已设为 b" if "连牌" in text else "已恢复默认规则"),
                                 {"message_id": 1})


# ---- real SQLite faults ------------------------------------------------------------------------
async def test_database_locked_by_another_connection(app: App, monkeypatch) -> None:
    """Another process holds the write lock longer than the busy timeout: ``database is
    locked`` for real; the move does not count; it works once the lock is released."""
    store = REGISTRY.require_store()
    table = await seat_table(HANDS3)
    impatient = Store(store.url, busy_timeout=0.2)
    path = store.url.split("///", 1)[1]
    other = sqlite3.connect(path, isolation_level=None)
    try:
        monkeypatch.setattr(REGISTRY, "store", impatient)
        other.execute("BEGIN IMMEDIATE")
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "出 3"))
            expect_group(ctx, NOT_APPLIED, at=A)
        other.execute("ROLLBACK")
        await assert_memory_is_saved()
        assert table.engine.log == []
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "出 3"))
            expect_group(ctx, "玩家101 出 ", at=B)
            expect_private(ctx, A, "手牌（4 张）")
    finally:
        other.close()
        await impatient.close()


async def test_read_only_database_file(app: App, monkeypatch) -> None:
    """The database file opened read-only (as after a remount): writes fail in SQLite."""
    store = REGISTRY.require_store()
    table = await seat_table(HANDS3)
    path = store.url.split("///", 1)[1]
    read_only = Store(f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true")
    try:
        monkeypatch.setattr(REGISTRY, "store", read_only)
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "出 3"))
            expect_group(ctx, NOT_APPLIED, at=A)
        await assert_memory_is_saved()
        assert table.engine.log == []
        monkeypatch.setattr(REGISTRY, "store", store)
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "出 3"))
            expect_group(ctx, "玩家101 出 ", at=B)
            expect_private(ctx, A, "手牌（4 张）")
    finally:
        await read_only.close()


# ---- end announcements ---------------------------------------------------------------------------
async def test_end_message_is_stored_with_the_record_and_marked_when_sent(app: App) -> None:
    await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    store = REGISTRY.require_store()
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "本局结束", "/继续")
    assert await settled_pending() == []
    async with store.engine.connect() as conn:
        [(announcement, announced_at)] = (await conn.execute(
            select(GameRecord.announcement, GameRecord.announced_at))).all()
    assert "本局结束" in "".join(seg["data"].get("text", "") for seg in announcement)
    assert announced_at is not None


async def test_end_message_not_sent_is_announced_when_a_bot_connects(app: App, monkeypatch) -> None:
    """The game ends while no bot is connected (a timer's last auto move): the record
    and the end message are saved; the next connect sends it, once."""
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    table.auto = [str(B)]
    table.deadline = now_utc() - timedelta(seconds=1)
    await REGISTRY.save(table)
    async with app.test_matcher():
        await commit.run_locked(None, table, lambda: turns._on_time(table))
    assert table.status == FINISHED
    [pending] = await REGISTRY.require_store().pending_announcements()
    assert pending.group_id == str(GROUP)

    async def connected_by_hand(bot) -> None:  # the test connects the bot itself, below
        return None

    monkeypatch.setattr(announce, "bot_connected", connected_by_hand)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "这局已结束", "本局结束", "/继续", "本群第 1 局。每人发到的牌和每一手：/对局 1")
        await announce.announce_pending(bot)
    assert await settled_pending() == []
    async with app.test_matcher() as ctx:  # a second connect sends nothing
        bot = make_bot(ctx)
        await announce.announce_pending(bot)


async def until(check, seconds: float = 10.0) -> None:
    """Wait until ``await check()`` is true (fails the test after ``seconds``)."""
    for _ in range(int(seconds / 0.01)):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{check.__name__} never came true")


async def test_an_end_posted_by_a_resumed_table_races_no_second_post(app: App, monkeypatch) -> None:
    """After a restart a resumed table's expired deadline ends its game at once, while
    the account's connect reads the end messages never sent (a slow database: its list
    is read once the game is recorded, its next read answers after the timer's post went
    out and was marked). The group gets the end message once: the list's item is stale,
    and it was sent again (“机器人掉线时这局已结束：”)."""
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    table.auto = [str(B)]
    table.deadline = now_utc() - timedelta(seconds=1)
    await REGISTRY.save(table)
    REGISTRY.reset()  # a restart: only the database is left
    store = REGISTRY.require_store()
    real_pending, real_owners = store.pending_announcements, store.live_owners

    async def recorded() -> bool:
        async with store.engine.connect() as conn:
            return bool((await conn.execute(select(GameRecord.id))).all())

    async def announced() -> bool:
        async with store.engine.connect() as conn:
            return bool((await conn.execute(select(GameRecord.id).where(
                GameRecord.announced_at.is_not(None)))).all())

    async def slow_pending(group_id: str | None = None) -> list:
        await until(recorded)
        return await real_pending(group_id)

    async def slow_owners(group_ids) -> dict:
        owners = await real_owners(group_ids)
        await until(announced)
        return owners

    monkeypatch.setattr(store, "pending_announcements", slow_pending)
    monkeypatch.setattr(store, "live_owners", slow_owners)
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "connected", lambda: {bot.self_id: bot})
    await announce.bot_connected(bot)
    await settle(50)
    ends = [t for t in sent.texts() if "本局结束" in t]
    assert len(ends) == 1, sent.texts()
    assert not any("这局已结束" in t for t in ends)
    assert await settled_pending() == []


async def test_a_change_that_breaks_halfway_is_undone(app: App, monkeypatch) -> None:
    """Not only the store: an engine failure after part of the move was applied leaves
    the table as saved (the same single mechanism), and the actor is told."""
    table = await seat_table(HANDS3)
    adapter = table.adapter
    real_act = type(adapter).act

    def half_then_fail(self, game, seats, seat, kind, arg):
        game.hands[seat].pop()  # a partial change in memory …
        raise RuntimeError("engine bug")  # … then the failure

    monkeypatch.setattr(type(adapter), "act", half_then_fail)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, NOT_APPLIED, at=A)
    await assert_memory_is_saved()
    assert table.engine.hands[0] == HANDS3[0]
    monkeypatch.setattr(type(adapter), "act", real_act)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌（4 张）")
