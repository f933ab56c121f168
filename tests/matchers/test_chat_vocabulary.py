"""Each game's own words for its hand types (RULES.md G-5 Decision): every type name that
RULES.md or docs/commands.md uses for a game is accepted after the cards in that game, with that
game's meaning — 飞机 is 三连 in 抓特务, 三顺 in 挖坑 标准 and a chain of 三带一 in 手把一;
挖坑 陕西 says 连牌, 对子连牌 and 四条 — and /帮助 <游戏> shows the game's table."""

from __future__ import annotations

import pytest
from chat_support import GROUP, A, B, C, expect_group, expect_private, expect_reply, gmsg, make_bot
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.errors import MoveError
from paizhuo_engine.readings import Vocabulary
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

FILLER = "3 4"
"""Cards the leader keeps, so that no play ends the game."""


def leading(game: str, play: str):
    """A game of ``game`` (``挖坑`` 标准, ``陕西`` or another game's name) in play, seat 1
    to lead holding ``play`` and :data:`FILLER`."""
    hand = cards(f"{play} {FILLER}") if play else cards(FILLER)
    others = [cards("Q"), cards("Q")]
    if game == "抓特务":
        return ZGame.from_hands([hand, *others], rules=ZRules(), leader=0)
    if game in ("挖坑", "陕西"):
        rules = WRules(ruleset="陕西") if game == "陕西" else WRules()
        return WGame.from_hands([hand, *others], rules=rules, digger=0)
    return SGame.from_hands([hand, *others], leader=0)


def following_bomb() -> SGame:
    """手把一: seat 1 leads a single 3, seat 2 holds 7777 (a bomb may not lead, S-3.4)."""
    game = SGame.from_hands([cards("3 4 5"), cards("7777 9"), cards("Q K")], leader=0)
    game.play_text(0, "3")
    return game


# What RULES.md (Z-4, W-4, W-7, S-3, G-5) and docs/commands.md call each game's hand types, as
# (cards, name, the type it means, least cards).
SPEC: dict[str, list[tuple[str, str, str, int]]] = {
    "抓特务": [("7", "单张", "single", 1), ("77", "对子", "pair", 2), ("777", "三张", "triple", 3),
              ("7777", "四张", "four", 4), ("34567", "顺子", "straight", 5),
              ("778899", "连对", "pair_chain", 6), ("777888999", "三连", "triple_chain", 9),
              ("7775", "三带一", "triple_one", 4), ("777756", "四带二", "four_two", 6),
              ("777888999", "飞机", "triple_chain", 9)],
    "挖坑": [("7", "单张", "single", 1), ("77", "对子", "pair", 2), ("777", "三张", "triple", 3),
            ("7777", "炸弹", "bomb", 4), ("56789", "单顺", "straight", 5),
            ("56789", "顺子", "straight", 5), ("778899", "双顺", "pair_chain", 6),
            ("778899", "连对", "pair_chain", 6), ("777888", "三顺", "triple_chain", 6),
            ("777888", "飞机", "triple_chain", 6)],
    "陕西": [("7", "单张", "single", 1), ("77", "对子", "pair", 2), ("777", "三张", "triple", 3),
            ("567", "连牌", "straight", 3), ("556677", "对子连牌", "pair_chain", 6),
            ("7777", "四条", "four", 4)],
    "手把一": [("7", "单张", "single", 1), ("77", "对子", "pair", 2), ("778899", "联对", "pair_chain", 6),
              ("56789", "顺子", "straight", 5), ("7775", "三带一", "triple_one", 4),
              ("777756", "四带二", "four_two", 6), ("77788856", "飞机", "triple_one", 8)],
}


@pytest.mark.parametrize("game, play, name, kind, size",
                         [(g, *row) for g, rows in SPEC.items() for row in rows])
def test_every_spec_type_name_is_accepted_with_the_games_meaning(game: str, play: str, name: str,
                                                                  kind: str, size: int) -> None:
    engine = leading(game, play)
    move = engine.play_text(0, f"{play} {name}")
    assert (move.reading.kind, move.reading.size) == (kind, size)


def test_a_bomb_named_in_shoubayi_follows() -> None:
    move = following_bomb().play_text(1, "7777 炸弹")
    assert move.reading.bomb and move.reading.kind == "bomb"


@pytest.mark.parametrize("game, text, reason", [
    ("抓特务", "7777 炸弹", "抓特务没有“炸弹”这种牌型"),
    ("陕西", "777888 三顺", "挖坑（陕西）没有“三顺”这种牌型"),
    ("陕西", "7777 炸弹", "挖坑（陕西）没有“炸弹”这种牌型"),
    ("挖坑", "7775 三带一", "挖坑没有“三带一”这种牌型"),
    ("手把一", "7775 飞机", "这手牌不能当飞机出"),
    ("手把一", "777 三张", "手把一没有“三张”这种牌型"),
])
def test_a_name_the_game_does_not_have_is_refused_with_its_own_names(game: str, text: str,
                                                                      reason: str) -> None:
    engine = leading(game, text.split()[0])
    with pytest.raises(MoveError) as err:
        engine.play_text(0, text)
    assert reason in err.value.message


def vocabulary_cases() -> list[tuple[str, Vocabulary, str, str, str, int]]:
    """Every name of every row of every game's table, with the row's example play."""
    out = []
    for game_name, adapter in GAMES.items():
        for vocabulary in adapter.vocabularies:
            game = "陕西" if "陕西" in vocabulary.title else game_name
            for row in vocabulary.rows:
                play = row.example.split(maxsplit=1)[1].rsplit(maxsplit=1)[0]
                for name in row.names:
                    out.append((game, vocabulary, play, name, row.kind, row.min_size))
    return out


@pytest.mark.parametrize("game, vocabulary, play, name, kind, least", vocabulary_cases())
def test_every_name_in_every_games_table_is_accepted(game: str, vocabulary: Vocabulary, play: str,
                                                      name: str, kind: str, least: int) -> None:
    if game == "手把一" and kind == "bomb":
        move = following_bomb().play_text(1, f"{play} {name}")
    else:
        engine = leading(game, play)
        assert engine.vocabulary is vocabulary
        move = engine.play_text(0, f"{play} {name}")
    assert move.reading.kind == kind and move.reading.size >= least


# ---- through the chat -------------------------------------------------------------------------
async def seat(game: str, engine) -> Table:
    table = Table(group_id=str(GROUP), game=game, size=3, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in (A, B, C)], settings={},
                  created_at=now_utc(), started_at=now_utc(), uid=f"vocab-{game}",
                  engine=engine, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


@pytest.mark.parametrize("game, table_game, play, shown", [
    ("抓特务", "抓特务", "777888999 飞机", "（三连）"),
    ("挖坑", "挖坑", "777888 飞机", "（三顺）"),
    ("手把一", "手把一", "77788856 飞机", "（三带一）"),
    ("陕西", "挖坑", "567 连牌", "（连牌）"),
    ("陕西", "挖坑", "556677 对子连牌", "（对子连牌）"),
    ("陕西", "挖坑", "7777 四条", "（四条）"),
])
async def test_the_group_sees_the_games_own_type_name(app: App, game: str, table_game: str,
                                                      play: str, shown: str) -> None:
    table = await seat(table_game, leading(game, play.split()[0]))
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(A, f"出 {play}"))
        expect_group(ctx, "玩家101 出", shown, at=B)
        expect_private(ctx, A, "手牌")
    assert table.engine.hands[0] == sorted(cards(FILLER))


async def test_a_follow_is_told_in_the_games_words(app: App) -> None:
    engine = leading("陕西", "567")
    engine.play_text(0, "567")
    engine.hands[1] = sorted(cards("99 J"))
    await seat("挖坑", engine)
    async with app.test_matcher() as ctx:
        ctx.receive_event(make_bot(ctx), gmsg(B, "出 99"))
        expect_group(ctx, "要跟同样的牌型：桌上是 3 张的连牌，你出的是对子", at=B)


@pytest.mark.parametrize("game", list(GAMES))
async def test_help_shows_each_games_vocabulary(app: App, game: str) -> None:
    names = {name for g, rows in SPEC.items() for _p, name, _k, _s in rows
             if g == game or (game == "挖坑" and g == "陕西")}
    async with app.test_matcher() as ctx:
        event = gmsg(A, f"/帮助 {game}")
        ctx.receive_event(make_bot(ctx), event)
        expect_reply(ctx, event, HasAll(names), {"message_id": 1})


class HasAll:
    """Equals a message holding every one of ``names``."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def __eq__(self, other: object) -> bool:
        text = str(other)
        return all(n in text for n in self.names)

    def __repr__(self) -> str:
        return f"HasAll({sorted(self.names)})"
