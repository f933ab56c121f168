"""Records people would post: a replay marks the moves the bot made for a person
(``［超时］``, ``［托管］``) as the group saw them; a free 把一 is shown as such on /战绩;
/排行 with few rows is readable; the end of a game comes with a settlement picture when
pictures are on."""

from __future__ import annotations

from chat_support import (
    GROUP,
    A,
    Has,
    expect_forward,
    expect_group,
    fire,
    gmsg,
    make_bot,
    recording_bot,
)
from history_support import dealt_table
from nonebug import App

from nonebot_plugin_paizhuo import accounts
from nonebot_plugin_paizhuo.tables import REGISTRY, Table, now_utc


async def bot_moves_for_the_seat_to_act(table: Table, why: str, sent) -> str:
    """The turn time of the seat to act runs out (``超时``), or the seat is in 托管: the
    bot moves for it. Returns its name."""
    seat = table.adapter.acting_seat(table.engine)
    if why == "托管":
        table.auto = [table.seats[seat].user_id]
    await fire(table)
    assert any(f"［{why}］" in text for text in sent.texts())
    return table.seats[seat].name


async def test_a_replay_marks_timeouts_and_tuoguan(app: App, monkeypatch) -> None:
    table, _ = dealt_table("抓特务", 7, 4)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda t: bot)
    late = await bot_moves_for_the_seat_to_act(table, "超时", sent)
    away = await bot_moves_for_the_seat_to_act(table, "托管", sent)
    assert table.marks == {str(len(table.engine.log) - 2): "超时",
                           str(len(table.engine.log) - 1): "托管"}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "牌桌已关闭", "记为第 1 局（作废）")
        ctx.receive_event(bot, gmsg(A, "/对局 1"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_forward(ctx, "【第 1 局】", "过程：", f"{late} ", "［超时］", f"{away} ", "［托管］")


async def test_a_free_baiyi_is_shown_as_such_on_the_stats(app: App) -> None:
    """S-6: a loser left holding one card (把一) pays nothing: /战绩 says 把一 不赔, not 负 0."""
    from chat_support import B, C, expect_reply
    from support import cards

    from nonebot_plugin_paizhuo.games.base import SeatView
    from nonebot_plugin_paizhuo.tables import PLAYING
    from paizhuo_engine.shoubayi.game import SGame

    table = Table(group_id=str(GROUP), game="手把一", size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], settings={},
                  created_at=now_utc(), started_at=now_utc(), uid="baiyi-test",
                  engine=SGame.from_hands([cards("5"), cards("9"), cards("6 7")], leader=0),
                  status=PLAYING, account="10001")
    REGISTRY.add(table)
    await REGISTRY.save(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 5"))
        expect_group(ctx, "本局结束", "玩家102 剩 1 张", "把一不赔")
        event = gmsg(B, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("手把一 把一 不赔 0", without=("负 0",)), {"message_id": 1})
        event = gmsg(C, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("手把一 玩家 负 -4"), {"message_id": 1})


async def test_a_board_of_few_rows_is_text_even_with_pictures_on(app: App, monkeypatch) -> None:
    """/排行 with one or two ranked players: a picture of them would be a thin strip a
    phone shows too small to read; the text is readable."""
    import nonebot
    from history_support import finish

    from nonebot_plugin_paizhuo import render
    from nonebot_plugin_paizhuo.config import reset_plugin_config

    config = nonebot.get_driver().config
    config.paizhuo_images = True
    reset_plugin_config()
    monkeypatch.setattr(render, "usable", lambda: True)
    try:
        await finish([(A, "win", 2), (102, "loss", -2)])
        await REGISTRY.require_store().set_settings(str(GROUP), "抓特务", {"board_min_games": 1})
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "/排行"))
            ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
            expect_group(ctx, "【抓特务排行·总榜】", "1. 101 +2", "2. 102 -2")
    finally:
        config.paizhuo_images = False
        reset_plugin_config()


async def test_the_end_of_a_game_comes_with_a_settlement_picture(app: App, monkeypatch) -> None:
    """With pictures on (the table picture off, as by default), the end message of a game
    is followed by its settlement picture: the result, every seat's cards left and points."""
    import nonebot
    from history_support import last_play

    from nonebot_plugin_paizhuo import render
    from nonebot_plugin_paizhuo.config import reset_plugin_config

    config = nonebot.get_driver().config
    config.paizhuo_images = True
    reset_plugin_config()
    drawn = []
    real = render.draw_settlement

    def draw(view):
        drawn.append(view)
        return real(view)

    monkeypatch.setattr(render, "draw_settlement", draw)
    try:
        table, last = dealt_table("挖坑", 16, 1)
        await REGISTRY.save(table)
        user, command = last_play(table, last)
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(user, command))
            expect_group(ctx, "本局结束", "本群第 1 局")
            ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                                {"message_id": 2})
    finally:
        config.paizhuo_images = False
        reset_plugin_config()
    [view] = drawn
    assert view.title == "【挖坑】第 1 局 结算" and view.headline.endswith("胜！")
    assert [row.points for row in view.rows] == table.engine.result["points"]
    assert [row.cards for row in view.rows] == [list(h) for h in table.engine.hands]


class IsPicture:
    def __eq__(self, other: object) -> bool:
        from nonebot.adapters.onebot.v11 import Message

        return any(seg.type == "image" for seg in Message(other))
