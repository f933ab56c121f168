"""nonebug tests of /提示 (the suggested play and other legal plays, privately, never in
the group; 要不起 when nothing beats) and the 要不起自动过 setting (G-3)."""

from __future__ import annotations

from chat_support import (
    GROUP,
    SPADE_A,
    A,
    B,
    C,
    Has,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    pmsg,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.tables import REGISTRY
from paizhuo_engine.cards import parse_cards, resolve

HANDS = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


async def test_hint_is_private_and_lists_ready_to_send_plays(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/提示"))  # in the group: the answer goes privately
        expect_private(ctx, A, "提示", "\n出 ")
        ctx.receive_event(bot, pmsg(B, "/提示"))
        expect_private(ctx, B, "还没轮到你")
    # Every suggested line is a legal play of A, accepted as written.
    game = table.engine
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(A, "/提示"))
        ctx.should_call_api("send_private_msg", {"user_id": A, "message": Has("提示")},
                            {"message_id": 1})
    lines = [line for line in table.adapter.hints(game, 0)]
    assert 1 < len(lines) <= 5 and len(set(lines)) == len(lines)
    for line in lines:
        text = line.removeprefix("出 ")
        body = text.split(" ")[0]
        resolve(parse_cards(body), game.hands[0])  # held: raises otherwise


async def test_hint_says_when_nothing_beats(app: App) -> None:
    await seat_table([cards("3 4"), [SPADE_A, *cards("5")], cards("2 6")], leader=2)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "出 2"))
        expect_group(ctx, "玩家103 出 ", at=A)
        expect_private(ctx, C, "手牌")
        ctx.receive_event(bot, pmsg(A, "/提示"))
        expect_private(ctx, A, "要不起")


async def test_auto_pass_setting_passes_at_once_for_who_cannot_beat(app: App) -> None:
    """要不起自动过: nobody can beat the 2, so the bot passes for each at once and says so."""
    await REGISTRY.store.set_settings(str(GROUP), "抓特务", {"auto_pass": True})
    table = await seat_table([cards("3 4"), [SPADE_A, *cards("5")], cards("2 6")], leader=2)
    table.settings = {"auto_pass": True}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "出 2"))
        expect_group(ctx, "玩家103 出 ", "玩家101 过［要不起，自动过］",
                     "玩家102 过［要不起，自动过］", "拿下这一轮", at=C)
        expect_private(ctx, C, "手牌")
    # Neither A nor B can beat the 2: both passed at once, C leads again.
    assert table.engine.turn == 2 and table.engine.log[-2:] == [[0, []], [1, []]]
    table.settings = {}
    await seat_table([cards("3 4"), [SPADE_A, *cards("5")], cards("2 6")], leader=2,
                     group=GROUP + 1)
    other = REGISTRY.get(str(GROUP + 1))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "出 2", group=GROUP + 1))
        expect_group(ctx, "玩家103 出 ", at=A, group=GROUP + 1, without=("自动过",))
        expect_private(ctx, C, "手牌")
    assert other.engine.turn == 0  # off by default: A decides


def test_hints_name_the_type_as_the_game_does() -> None:
    """A suggested play (a button label on the official bot) names its type with the
    game's own word, the one the group's line shows (挖坑: 单顺, not 顺子), and is accepted
    as written."""
    from nonebot_plugin_paizhuo.games import find_game
    from paizhuo_engine.wakeng.game import WGame

    game = WGame.from_hands([cards("9 10 J Q K A"), cards("3 4 5"), cards("6 7 8")])
    adapter = find_game("挖坑")
    lines = adapter.hints(game, 0)
    assert "出 910JQKA 单顺" in lines, lines
    assert not any("顺子" in line for line in lines), lines
    assert adapter.parse_command("出 910JQKA 单顺") is not None
