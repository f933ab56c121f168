"""nonebug tests: a table survives a player leaving between games — the seat is freed,
a newcomer takes it with /加入, /继续 deals when the seats are full again, tribute (Z-8)
moves only between players who played the last game, and /踢 frees an absent player's
seat (opener, admins, SUPERUSERS; never during a game)."""

from __future__ import annotations

from chat_support import (
    GROUP,
    SPADE_A,
    STRANGER,
    A,
    B,
    C,
    D,
    expect_friends,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    seat_table,
)
from nonebot.adapters.onebot.v11 import Message, MessageSegment
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY
from paizhuo_engine.zhuatewu.game import SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SEED = 777


async def finished_game(app: App) -> None:
    """A finished 3-player 抓特务 game: B (seat 1, the spy) went out first and won."""
    await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名", "本局结束")


def at(user: int, text: str = "") -> Message:
    return Message([MessageSegment.text(text), MessageSegment.at(user)])


async def test_newcomer_takes_the_free_seat_and_tribute_skips_them(app: App, monkeypatch) -> None:
    """Z-8: tribute carries over only among players who played the last game."""
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: SEED)
    await finished_game(app)
    table = REGISTRY.get(str(GROUP))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "/退出"))
        expect_group(ctx, "玩家103 退出", "还差 1 人")
        ctx.receive_event(bot, gmsg(A, "/继续"))
        expect_group(ctx, "准备好了", "还差 1 人", "等 /继续：玩家102")
        ctx.receive_event(bot, gmsg(D, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "玩家104 入座", "等 /继续：玩家102", without=("还差",))
        ctx.receive_event(bot, gmsg(STRANGER, "/加入"))
        expect_group(ctx, "坐满", at=STRANGER)
        ctx.receive_event(bot, gmsg(B, "/继续"))
        expect_group(ctx, "开局")
        for user in (A, B, D):
            expect_private(ctx, user, "手牌")
    assert table.status == PLAYING and [s.user_id for s in table.seats] == [str(A), str(B), str(D)]
    game: ZGame = table.engine
    # Last game: A civilian (seat 0), B spy (seat 1, first out, won), C civilian (left).
    # Only A pays B; D (now seat 2) neither pays nor receives.
    assert [(e["giver"], e["receiver"]) for e in game.exchanges] == [(0, 1)]
    same_deal = ZGame.deal(3, ZRules(), SEED, previous={
        "roles": ["civilian", SPY, "civilian"], "out": [1], "outcome": SPY, "stakes": [1, 1, 1],
        "seat_map": [0, 1, None]})
    assert game.hands == same_deal.hands


async def test_same_players_keep_the_whole_tribute(app: App, monkeypatch) -> None:
    """Z-8: with the same three players both civilians pay the winning spy."""
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: SEED)
    await finished_game(app)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for user in (A, B):
            ctx.receive_event(bot, gmsg(user, "/继续"))
            expect_group(ctx, "准备好了")
        ctx.receive_event(bot, gmsg(C, "/继续"))
        expect_group(ctx, "开局")
        for user in (A, B, C):
            expect_private(ctx, user, "手牌")
    game = REGISTRY.get(str(GROUP)).engine
    assert sorted((e["giver"], e["receiver"]) for e in game.exchanges) == [(0, 1), (2, 1)]


async def test_kick_frees_an_absent_players_seat(app: App) -> None:
    await finished_game(app)
    table = REGISTRY.get(str(GROUP))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, at(C, "/踢 ")))
        expect_group(ctx, "只有开局人", at=B)
        ctx.receive_event(bot, gmsg(A, "/踢 玩家103"))
        expect_group(ctx, "用法：/踢 @某人", at=A)
        ctx.receive_event(bot, gmsg(A, at(STRANGER, "/踢 ")))
        expect_group(ctx, "不在本群的牌桌上", at=A)
        ctx.receive_event(bot, gmsg(A, at(C, "/踢 ")))
        expect_group(ctx, "玩家103 被请离座位", "还差 1 人")
    assert [s.user_id for s in table.seats] == [str(A), str(B)] and table.status == FINISHED
    assert REGISTRY.table_of_user(str(C)) is None
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, at(A, "/踢 "), role="admin"))
        expect_group(ctx, "玩家101 被请离座位")
    assert [s.user_id for s in table.seats] == [str(B)] and table.opener == str(B)


async def test_kick_is_refused_during_a_game(app: App) -> None:
    table = await seat_table([cards("3 4"), [SPADE_A, *cards("5")], cards("6 7")], leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, at(C, "/踢 ")))
        expect_group(ctx, "牌局进行中不能请人离座", at=A)
    assert len(table.seats) == 3 and table.status == PLAYING


async def test_newcomer_cannot_join_a_game_in_progress(app: App) -> None:
    await seat_table([cards("3 4"), [SPADE_A, *cards("5")], cards("6 7")], leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(D, "/加入"))
        expect_group(ctx, "这桌正在打", at=D)
    assert REGISTRY.table_of_user(str(D)) is None
    assert REGISTRY.get(str(GROUP)).status != FINISHED
