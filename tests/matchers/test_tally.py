"""nonebug tests of /记牌 (记牌器, G-6): a seated player gets privately, in the hand's
notation, the cards not yet seen — never the cards of another hand as seen, nothing in
the group; a player without a game, or a group that turned the setting off, gets a
clear reply where they asked; /帮助 and /规则 name it."""

from __future__ import annotations

from chat_support import (
    SPADE_A,
    STRANGER,
    A,
    B,
    C,
    Has,
    expect_forward,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
    pmsg,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.tables import REGISTRY
from nonebot_plugin_paizhuo.tally import tally_text
from paizhuo_engine.cards import parse_cards, resolve

HANDS = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


def unseen_line(text: str) -> str:
    return text.splitlines()[1]


async def test_seated_player_gets_the_unseen_cards_privately(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    game = table.engine
    game.play(0, resolve(parse_cards("3"), game.hands[0]))  # A leads a 3
    await REGISTRY.save(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/记牌"))  # in the group: the answer goes privately
        expect_private(ctx, B, "还没见过的牌（49 张）", "各点数：", "大王×1")
        ctx.receive_event(bot, pmsg(C, "/记牌"))
        expect_private(ctx, C, "还没见过的牌（49 张）")
    # B's answer: the deck less B's hand and the played 3; A's and C's cards are unseen.
    text = tally_text(table, 1)
    line = unseen_line(text)
    unseen = resolve(parse_cards(line), range(54))
    assert sorted(unseen) == sorted(set(range(54)) - set(game.hands[1]) - {c for _, cs in game.log
                                                                            for c in cs})
    assert set(game.hands[0]) | set(game.hands[2]) <= set(unseen)
    assert "3×3" in text  # four 3s, one played: three unseen


async def test_answer_does_not_depend_on_the_other_hands(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    before = tally_text(table, 0)
    game = table.engine
    game.hands[1], game.hands[2] = (sorted([SPADE_A, *cards("66 10")]), sorted(cards("5 8 Q K")))
    assert tally_text(table, 0) == before


async def test_no_game_and_setting_off_are_answered_where_asked(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(STRANGER, "/记牌"))
        expect_group(ctx, "你现在没有进行中的牌局", at=STRANGER)
        ctx.receive_event(bot, pmsg(STRANGER, "/记牌"))
        expect_private(ctx, STRANGER, "你现在没有进行中的牌局")
        ctx.receive_event(bot, gmsg(A, "/记牌 全部"))
        expect_group(ctx, "用法：/记牌", at=A)
    table = await seat_table(HANDS, leader=0)
    table.settings = {**table.settings, "card_counter": False}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/记牌"))
        expect_group(ctx, "本群关闭了记牌器", at=A)
        ctx.receive_event(bot, pmsg(B, "/记牌"))
        expect_private(ctx, B, "本群关闭了记牌器")
        ctx.receive_event(bot, gmsg(STRANGER, "/记牌"))
        expect_group(ctx, "你现在没有进行中的牌局", at=STRANGER)


async def test_help_and_rules_name_it(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/帮助"))
        expect_forward(ctx, "/记牌")
        ctx.receive_event(bot, gmsg(A, "/规则 挖坑 记牌器"))
        expect_forward(ctx, "记牌器：开", "/记牌")
        event = gmsg(A, "/设置 挖坑 记牌器 关", role="admin")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("记牌器 已设为 关"), {"message_id": 2})
