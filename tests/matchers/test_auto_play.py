"""托管 a person can follow (G-3): a turn the player could not have beaten is no timeout
towards 托管; the warning before the timeout that would start it says so and how to cancel
it; the moves made for a player in 托管 come one round per post with a pause between,
in which ``/托管`` or any play — even one refused — cancels it."""

from __future__ import annotations

from chat_support import (
    GROUP,
    SPADE_A,
    A,
    B,
    C,
    expect_group,
    expect_private,
    fire,
    gmsg,
    make_bot,
    recording_bot,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import accounts, tables
from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.zhuatewu.game import ZGame


async def test_a_turn_the_player_could_not_beat_is_no_timeout_towards_tuoguan(app: App) -> None:
    """玩家102 has timed out once; now nothing of theirs beats the 2 on the table and the
    time runs out: the bot passes for them, and they are not put in 托管."""
    table = await seat_table([cards("2 3 4"), [SPADE_A, *cards("5 6")], cards("7 8 9")], leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 2"))
        expect_group(ctx, "玩家101 出 ♠2", at=B)
        expect_private(ctx, A, "你的手牌（2 张）")
    table.timeouts = {str(B): 1}
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 过［超时］", at=C, without=("托管",))
        await fire(table)
    assert table.auto == [] and table.timeouts == {str(B): 1}
    # A turn they could have beaten counts: the second timeout in a row, 托管.
    table.engine.lead, table.engine.passes, table.engine.turn = None, 0, 0
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ♠3", at=B)
        expect_private(ctx, A, "你的手牌（1 张）")
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 出 ", "［超时］", "连续两次超时，进入托管", at=C)
        expect_private(ctx, B, "你的手牌")
        await fire(table)
    assert table.auto == [str(B)]


async def test_the_warning_before_tuoguan_says_so_and_how_to_cancel(app: App) -> None:
    table = await seat_table([cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")],
                             leader=0)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "还剩 9 秒", at=A, without=("托管",))  # a first timeout: no 托管 yet
        await fire(table, remind=True)
    table.timeouts = {str(A): 1}
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "还剩 9 秒", "再超时就进入托管", "/托管 即可取消", at=A)
        await fire(table, remind=True)


async def test_a_player_in_tuoguan_moves_one_round_per_post(app: App, monkeypatch, clock) -> None:
    """玩家101 in 托管 with two computer players: one round per post — the 托管 move and
    the computers' after it — then the pause before 玩家101's next move, not the rest of
    the game at once."""
    hands = [cards("3 5 7 9 J K 2"), [SPADE_A, *cards("4 6 8 10 Q")],
             cards("♥3 ♥5 ♥7 ♥9 ♥J ♥K ♥2")]
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A),
                  seats=[SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"),
                         SeatView("ai:2", "电脑2")],
                  settings={}, created_at=now_utc(), started_at=now_utc(), uid="auto-test",
                  engine=ZGame.from_hands(hands, leader=0), status=PLAYING, account="10001",
                  auto=[str(A)])
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda t: bot)
    pause = (table.deadline - tables.timer_now()).total_seconds()
    assert pause >= 1.5  # a pace the group can read
    deadlines.schedule(table)
    task = table.timer
    await clock.advance(pause)
    await task
    seats = [seat for seat, _ in table.engine.log]
    assert seats.count(0) == 1 and seats[0] == 0 and len(seats) >= 3, table.engine.log
    posts = [t for (api, _), t in zip(sent.calls, sent.texts(), strict=False) if api == "send_group_msg"]
    assert len(posts) == 1 and "［托管］" in posts[0]
    assert posts[0].endswith("（托管中）") and "60 秒" not in posts[0]  # no turn time: 托管 moves
    assert table.engine.turn == 0 and table.deadline is not None  # the next round waits
    # In the pause 玩家101 is back: any play, even one refused, ends the 托管.
    table.engine.turn = 1
    await bot.handle_event(gmsg(A, "出 4"))
    assert table.auto == []
    texts = sent.texts()
    assert any("玩家101 取消托管" in t for t in texts), texts
    assert any("还没轮到你" in t for t in texts), texts
    assert (await REGISTRY.store.load_live())[str(GROUP)][1]["auto"] == []
