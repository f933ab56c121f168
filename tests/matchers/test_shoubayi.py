"""nonebug tests of 手把一 through the chat (RULES.md S): opening with or without a size,
/开始, the lone-joker and must-block refusals, 把一 announcements, the end message with
multipliers and 包赔, and records."""

from __future__ import annotations

from chat_support import (
    GROUP,
    A,
    B,
    C,
    D,
    details_pointer,
    expect_details,
    expect_friends,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.shoubayi.game import SGame


async def sby_table(game: SGame) -> Table:
    users = [A, B, C, D][: game.players]
    table = Table(group_id=str(GROUP), game="手把一", size=game.players, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in users], created_at=now_utc(),
                  started_at=now_utc(), uid="sb-test", engine=game, status=PLAYING,
                  account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


async def test_open_ended_table_starts_on_kaishi(app: App, monkeypatch) -> None:
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: 77)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 手把一"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌手把一（2–6 人，开局人发送 /开始 开打）", "1/最多 6")
        ctx.receive_event(bot, gmsg(A, "/开始"))
        expect_group(ctx, "至少 2 人", at=A)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "2/最多 6")
        ctx.receive_event(bot, gmsg(B, "/开始"))
        expect_group(ctx, "只有开局人", at=B)
        ctx.receive_event(bot, gmsg(A, "/开始"))
        expect_group(ctx, "【手把一】开局！2 人", "先抽出", "张不看", "轮到")
        expect_private(ctx, A, "你的手牌")
        expect_private(ctx, B, "你的手牌")
    table = REGISTRY.get(str(GROUP))
    assert table.playing and table.engine.players == 2 and 10 <= len(table.engine.aside) <= 20


async def test_fixed_size_table_starts_when_full(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 手把一 2人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌手把一（2 人）")
        ctx.receive_event(bot, gmsg(A, "/开始"))
        expect_group(ctx, "坐满 2 人自动开始", at=A)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "开局！2 人")
        expect_private(ctx, A, "你的手牌")
        expect_private(ctx, B, "你的手牌")


async def test_s3_lone_joker_and_s4_must_block_refusals(app: App) -> None:
    game = SGame.from_hands([cards("5 9"), cards("6 小王"), cards("8 10 J")])
    table = await sby_table(game)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 5"))
        expect_group(ctx, "玩家101 出 ", "玩家101 把一了！", at=B)
        expect_private(ctx, A, "手牌（1 张）")
        ctx.receive_event(bot, gmsg(B, "出 6"))
        expect_group(ctx, "没有生效", at=B, without=("王",))
        expect_private(ctx, B, "不能只剩一张王")
        ctx.receive_event(bot, gmsg(B, "过"))
        expect_group(ctx, "玩家102 过", at=C)
        ctx.receive_event(bot, gmsg(C, "过"))
        expect_group(ctx, "没有生效", at=C, without=("必须管",))
        expect_private(ctx, C, "能管就必须管")
        ctx.receive_event(bot, gmsg(C, "出 8"))
        expect_group(ctx, "玩家103 出 ", at=A)
        expect_private(ctx, C, "手牌（2 张）")
    assert table.engine.lead[0] == 2 and table.engine.log[-1] == [2, cards("8")]


async def test_s6_end_message_multipliers_and_baopei(app: App) -> None:
    game = SGame.from_hands([cards("3 K Q"), cards("9"), cards("5 6 小王 大王")])
    game.played = [True, True, False]
    await sby_table(game)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌")
        ctx.receive_event(bot, gmsg(B, "出 9"))
        expect_group(ctx, "玩家102 先出完，胜", "玩家101 剩 2 张", "玩家103 剩 4 张",
                     "一张没出 ×2", "手里有王 ×4", "应赔 32", "包赔：玩家101", "玩家102 +34",
                     "玩家101 -34", "玩家103 0", details_pointer(1))
        expect_details(ctx, bot, 1, "1.玩家101：♠3 ♠Q ♠K")
    [stats] = await REGISTRY.store.player_stats(str(GROUP), str(A))
    assert (stats.game, stats.losses, stats.points) == ("手把一", 1, -34)


def test_plays_are_shown_in_reading_order() -> None:
    """G-5: the group sees chains from their low end and kickers after the main cards."""
    from nonebot_plugin_paizhuo.games.shoubayi import ShoubayiAdapter
    from paizhuo_engine.readings import Reading

    adapter = ShoubayiAdapter()
    game = SGame.from_hands([cards("3"), cards("4")])
    shown = {t: adapter.play_cards(game, cards(t), Reading(k, len(cards(t)), key))
             for t, k, key in [("A2345", "straight", 1), ("4 101010", "triple_one", 7),
                               ("AAA222333 456", "triple_one", 1), ("KKKAAA 3 5", "triple_one", 13)]}
    assert shown["A2345"] == "♠A ♠2 ♠3 ♠4 ♠5"
    assert shown["4 101010"] == "♠10♥10♣10 ♠4"
    assert shown["AAA222333 456"] == "♠A♥A♣A ♠2♥2♣2 ♠3♥3♣3 ♠4 ♠5 ♠6"
    assert shown["KKKAAA 3 5"] == "♠K♥K♣K ♠A♥A♣A ♠3 ♠5"


async def test_seat_limit_and_settings_checked_together(app: App) -> None:
    from chat_support import Has

    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/设置 手把一 人数上限 3", role="admin")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("人数上限 已设为 3"), {"message_id": 1})
        ctx.receive_event(bot, gmsg(A, "/开局 手把一 4人"))
        expect_group(ctx, "本群手把一最多 3 人", at=A)
        event = gmsg(A, "/设置 手把一 两人藏牌最多 5", role="admin")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("两人藏牌最少不能大于最多"), {"message_id": 1})
    assert REGISTRY.get(str(GROUP)) is None
    assert await REGISTRY.store.get_settings(str(GROUP), "手把一") == {"max_players": 3}
