"""Texts that tell the truth: the turn-time warning says what the timeout then does (G-3,
G-4: from public information only), comes for every limit above a few seconds, and every
prompt to act shows its time limit; the end message says why a game is a draw (Z-7) and
what each multiplier was (Z-9, W-6, S-6); no rule codes in player texts; wording fits the
number of players (S-4 包赔); ``/加入`` ignores trailing words."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from chat_support import (
    SPADE_A,
    A,
    B,
    gmsg,
    recording_bot,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.actions import commit, turns
from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import REGISTRY, Table, now_utc, reminder_before
from paizhuo_engine.cards import card
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.zhuatewu.game import ZGame

HANDS = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


async def run_timer(bot, table: Table, *, remind: bool = False) -> None:
    """Make the table's reminder (or deadline) due now and run what it does."""
    past = now_utc() - timedelta(seconds=1)
    if remind:
        table.remind_at, table.deadline = past, now_utc() + timedelta(seconds=10)
    else:
        table.remind_at, table.deadline = None, past
    await commit.run_locked(bot, table, lambda: turns._on_time(table))


@pytest.mark.parametrize("timeout_play", ["电脑", "简单"])
@pytest.mark.parametrize("lead", [None, "3", "77"])
async def test_g3_warning_says_what_the_timeout_then_does(app: App, monkeypatch, timeout_play: str,
                                                          lead: str | None) -> None:
    """The reported case: ``还剩 5 秒，超时机器人将代你过。`` and then the timeout played a
    single. Now the warning names what the bot does, and the move made fits it."""
    table = await seat_table(HANDS, leader=0)
    table.settings = {"timeout_play": timeout_play}
    if lead:
        table.engine.play(0, cards(lead))
    bot, sent = await recording_bot(monkeypatch)
    await run_timer(bot, table, remind=True)
    warning = sent.texts()[-1]
    count = len(sent.texts())
    await run_timer(bot, table)
    first = sent.texts()[count].splitlines()[0]
    said = re.search(r"超时机器人将(.+?)。", warning)
    assert said, warning
    words = said.group(1)
    played = " 出 " in first and first.endswith("［超时］")
    passed = first.endswith(" 过［超时］")
    assert played or passed, first
    if words.startswith("代你过"):
        assert passed, (words, first)
    elif words.startswith("代你首出"):
        assert played, (words, first)
    else:
        assert words.startswith("代你跟牌或过"), words
    if timeout_play == "电脑" and lead:
        assert "代你过" not in words  # the computer players' play may beat: never promise a pass


def test_g3_every_limit_above_a_few_seconds_is_warned() -> None:
    assert reminder_before(60) == 15 and reminder_before(15) == 5 and reminder_before(10) == 3
    assert reminder_before(6) == 2 and reminder_before(5) is None and reminder_before(0) is None


async def test_g3_short_limit_is_armed_with_a_reminder(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"turn_seconds": 12}
    table.rearm()
    assert (table.deadline - table.remind_at).total_seconds() == 4


async def test_g3_prompt_to_act_shows_the_time_limit(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    engine = table.engine
    engine.rules = type(engine.rules).from_json({**engine.rules.to_json(), "turn_seconds": 45})
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    prompt = next(t for t in sent.texts() if "轮到" in t)
    assert prompt.endswith("跟牌或过（45 秒）"), prompt


def test_g3_prompt_time_comes_from_the_group_setting() -> None:

    for name, adapter in GAMES.items():
        size = 3
        game = adapter.new_game(size, {"turn_seconds": 33}, 1, None)
        assert game.rules.turn_seconds == 33, name


# ---- end messages -----------------------------------------------------------------------------
def test_z7_draw_end_says_why_and_every_multiplier() -> None:
    """The reported end ``本局结束：平局！ 名次：1.电脑2 2.电脑3 3.小明`` said no reason."""

    game = ZGame.from_hands([cards("3"), [SPADE_A], cards("4 5")], leader=0)
    game.play(0, cards("3"))
    game.play(1, [SPADE_A])
    assert game.result["outcome"] == "draw"
    seats = [SeatView(str(u), f"玩家{u}") for u in (101, 102, 103)]
    text = GAMES["抓特务"].end(game, seats).extract_plain_text()
    assert "平局：平民第一个出完，特务第二个" in text
    assert "倍数：玩家102（暗特务）×1" in text


def test_z7_four_player_draw_names_the_order() -> None:
    """Two spies, order 特民民(特): a draw (Z-7), told with the order."""

    club_ace = card(11, 2)
    game = ZGame.from_hands([[SPADE_A], cards("3"), cards("4"), [club_ace, *cards("5")]], leader=0)
    game.play(0, [SPADE_A])
    for seat in (1, 2, 3):
        game.pass_turn(seat)       # 接风: seat 1 leads
    game.play(1, cards("3"))
    game.play(2, cards("4"))
    assert game.result["outcome"] == "draw"
    seats = [SeatView(str(u), f"玩家{u}") for u in (101, 102, 103, 104)]
    text = GAMES["抓特务"].end(game, seats).extract_plain_text()
    assert "平局：出完顺序 特民民特，双方各有一人先走、一人垫底" in text


def test_s4_baopei_wording_fits_two_players() -> None:

    game = SGame.from_hands([cards("3 4 5"), []], leader=0)
    game.played = [True, True]
    game.result = {"winner": 1, "baopei": 0, "points": [-3, 3], "results": ["loss", "win"],
                   "payments": [3, 0]}
    seats = [SeatView("101", "甲"), SeatView("102", "乙")]
    text = GAMES["手把一"].end(game, seats).extract_plain_text()
    assert "替所有人赔" not in text and "包赔：甲 放走了把一的下家（只有他一家输" in text
    game3 = SGame.from_hands([cards("3 4 5"), [], cards("6 7")], leader=0)
    game3.played = [True, True, True]
    game3.result = {"winner": 1, "baopei": 0, "points": [-5, 5, 0], "results": ["loss", "win", "loss"],
                    "payments": [5, 0, 0]}
    seats3 = [*seats, SeatView("103", "丙")]
    assert "替 丙 赔" in GAMES["手把一"].end(game3, seats3).extract_plain_text()


# ---- other texts --------------------------------------------------------------------------------
async def test_rules_text_has_no_rule_codes(monkeypatch) -> None:
    bot, sent = await recording_bot(monkeypatch)
    for game in ("抓特务 显示张数", "挖坑 挖坑规则", "手把一 包赔", "抓特务 出牌限时"):
        await bot.handle_event(gmsg(A, f"/规则 {game}"))
    for text in sent.texts():
        assert not re.search(r"[GZWS]-\d", text), text


async def test_join_ignores_trailing_words(monkeypatch) -> None:

    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "/开局 抓特务 三人"))
    await bot.handle_event(gmsg(B, "/加入 我来了"))
    table = REGISTRY.get("5001")
    assert [s.user_id for s in table.seats] == [str(A), str(B)]
    assert not any("用法" in t for t in sent.texts())


async def test_g3_table_repost_shows_the_time_left(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    table.deadline = now_utc() + timedelta(seconds=23.5)
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(B, "/牌桌"))
    (text,) = sent.texts()
    assert re.search(r"首出（还剩 2[23] 秒）$", text), text
