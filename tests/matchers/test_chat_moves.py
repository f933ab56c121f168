"""Chat is not a move (RULES.md G-1, G-3): a seated player's chat that merely starts with a
move word (出 / 过 / 不要, 挖坑 叫 / 不叫 / 扣, private 还 / 扣) is ignored like any chat; a
message is a move only when everything after the word is card notation with an optional
type name, and notation with a mistake in it still gets the reason."""

from __future__ import annotations

import json

import pytest
from chat_support import (
    GROUP,
    A,
    B,
    C,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    pmsg,
    recording_bot,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.games.climbing import is_card_text
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

HAND = cards("3 4 77 88 9 Q K")
OTHERS = [cards("5 6 10 J"), cards("5 6 10 J")]


def engine_for(game: str):
    """A game of ``game`` in play, A (seat 1) to lead with :data:`HAND`."""
    hands = [HAND, *OTHERS]
    if game == "抓特务":
        return ZGame.from_hands(hands, rules=ZRules(), leader=0)
    if game == "挖坑":
        wk = WGame.from_hands(hands, rules=WRules(), digger=0)
        assert wk.phase == "play"
        return wk
    return SGame.from_hands(hands, leader=0)


async def table_for(game: str, engine=None) -> Table:
    table = Table(group_id=str(GROUP), game=game, size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], settings={},
                  created_at=now_utc(), started_at=now_utc(), uid=f"chat-{game}",
                  engine=engine or engine_for(game), status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


def state(table: Table) -> str:
    return json.dumps(table.to_json(), sort_keys=True)


# The words players start moves and answers with (README 命令), and chat that begins with
# each of them.
GROUP_WORDS = ("出", "出牌", "过", "不要", "要不起", "过牌", "pass", "叫", "叫分", "不叫", "扣")
PRIVATE_WORDS = ("还", "扣")
CHAT_TAILS = ("去吃个饭，马上回来", "来了出来了", "什么好呢", "了吗", "得好！", "一下看看",
              "王炸了吧", "个大的呀")


def chat_lines(words: tuple[str, ...]) -> list[str]:
    return [w + tail for w in words for tail in CHAT_TAILS]


# ---- the examples ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["出去吃个饭，马上回来", "出来了出来了", "出什么好呢"])
async def test_chat_starting_with_chu_is_ignored(app: App, monkeypatch, text: str) -> None:
    table = await table_for("抓特务")
    before = state(table)
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, text))
    assert sent.calls == []
    assert state(table) == before


@pytest.mark.parametrize("text, reason", [("出 77889", "不是合法牌型"), ("出 ７７ｘ8", "“x”不是牌")])
async def test_card_notation_with_a_mistake_gets_the_reason(app: App, text: str, reason: str) -> None:
    table = await table_for("抓特务")
    before = state(table)
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, text))
        expect_group(ctx, reason, at=A)
    assert state(table) == before


async def test_the_plays_still_work(app: App) -> None:
    table = await table_for("抓特务")
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, "出 ７７ 88 连对"))
        expect_group(ctx, "玩家101 出", "（连对）", at=B)
        expect_private(ctx, A, "你的手牌")
    assert table.engine.hands[0] == sorted(cards("3 4 9 Q K"))


# ---- the kinds ------------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(GAMES))
async def test_chat_beginning_with_every_move_word_is_ignored(app: App, monkeypatch, game: str) -> None:
    """Every group move word of every game, followed by chat: no reply, no change."""
    table = await table_for(game)
    before = state(table)
    bot, sent = await recording_bot(monkeypatch)
    for text in chat_lines(GROUP_WORDS):
        await bot.handle_event(gmsg(A, text))
        assert sent.calls == [], text
    assert state(table) == before


@pytest.mark.parametrize("game", ["抓特务", "挖坑"])
async def test_private_chat_beginning_with_an_answer_word_is_ignored(app: App, monkeypatch,
                                                                    game: str) -> None:
    """还 / 扣 followed by chat, sent privately by a seated player: no reply, no change."""
    table = await table_for(game)
    before = state(table)
    bot, sent = await recording_bot(monkeypatch)
    for text in chat_lines(PRIVATE_WORDS):
        await bot.handle_event(pmsg(A, text))
        assert sent.calls == [], text
    assert state(table) == before


async def test_private_answer_with_a_mistake_gets_the_reason(app: App) -> None:
    await table_for("挖坑")
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(A, "扣 ３４x6"))
        expect_private(ctx, A, "现在不需要你扣底")
        ctx.receive_event(bot, pmsg(A, "还 1"))
        expect_private(ctx, A, "没有需要回复")


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("body", ["77889", "７７ｘ8", "1", "xyz", "黑桃", "77 炸弹", "对子", "99 1010 JJ"])
async def test_every_game_answers_card_notation_with_a_mistake(app: App, game: str, body: str) -> None:
    """The same notation mistakes get one reply in every game, and change nothing."""
    table = await table_for(game)
    before = state(table)
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, f"出 {body}"))
        if body == "99 1010 JJ":  # cards not held: the reason depends on the hand (G-4)
            expect_group(ctx, "没有生效", "私聊", at=A, without=("9",))
            expect_private(ctx, A, "你没有")
        else:
            expect_group(ctx, at=A)
    assert state(table) == before


def test_card_text_rule() -> None:
    """G-1 notation (ranks, suits, jokers, full-width, separators), a type name of any
    game, and stray Latin letters or digits are card text; a CJK word that is no card or
    type name, or punctuation alone, is chat."""
    for body in ("778899", "7 7 8 8 9 9", "７７８８９９", "99 1010 JJ", "♠A", "黑桃A", "sA", "小王大王",
                 "小 大", "333444 三连", "4444 四条", "77889", "７７ｘ8", "1", "xyz", "黑桃", "", "对子",
                 "3，3、4"):
        assert is_card_text(body), body
    for body in ("去吃个饭，马上回来", "来了出来了", "什么好呢", "大事了", "王", "!!!", "...", "个三",
                 "333 三连吧"):
        assert not is_card_text(body), body


@pytest.mark.parametrize("text", ["叫分 2", "叫2分", "叫 两分", "叫 2", "叫二", "叫 2 分", "/叫分2"])
async def test_every_way_of_writing_a_bid_of_two(app: App, text: str) -> None:
    game = WGame.deal(WRules(), 7, first=0)
    table = await table_for("挖坑", game)
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, text))
        expect_group(ctx, "玩家101 叫 2 分", at=B)
    assert table.engine.bids[0] == 2


@pytest.mark.parametrize("text", ["叫", "叫分"])
async def test_a_bid_without_points_gets_the_usage(app: App, text: str) -> None:
    table = await table_for("挖坑", WGame.deal(WRules(), 7, first=0))
    before = state(table)
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, text))
        expect_group(ctx, "叫 1 / 叫 2 / 叫 3 / 不叫", at=A)
    assert state(table) == before
