"""The texts a player meets: no message twice (the role and hand after a tribute return,
你的牌已出完 after going out), a refusal that says what is on the table and what was
played, /帮助 naming 电脑难度, and a score line that says why each place scored what it
did (Z-10)."""

from __future__ import annotations

import re

import pytest
from chat_support import HANDS3
from nonebot.adapters.onebot.v11 import Message
from support import cards

from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.matchers.info import HELP
from paizhuo_engine.cards import format_cards
from paizhuo_engine.errors import MoveError
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SEATS = [SeatView(str(100 + i), f"玩家{i}") for i in range(4)]
Z = GAMES["抓特务"]


def private_texts(says, seat: int) -> list[str]:
    return [Message(s.message).extract_plain_text() for s in says if s.seat == seat]


def test_a_tribute_return_does_not_repeat_the_role_and_hand_message() -> None:
    """The deal's message told each player their role and hand; after a return, the two
    players of the exchange get the cards that moved and their hand — not the whole
    role-and-hand message again."""
    previous = {"roles": ["civilian", "spy", "civilian"], "out": [1], "outcome": "spy",
                "stakes": [1, 1, 1]}
    game = ZGame.deal(3, ZRules(), 4242, previous=previous, everyone_answers=True)
    exchange = game.pending_returns()[0]
    giver, receiver = exchange["giver"], exchange["receiver"]
    lowest = game.tribute_allowed(receiver)[-1]
    says = Z.answer(game, SEATS[:3], receiver, "还 " + format_cards([lowest]))
    for seat in (giver, receiver):
        [text] = private_texts(says, seat)
        assert "你是" not in text and "出牌请在群里发" not in text, text
        assert re.search(r"你的手牌（\d+ 张）", text)
    assert "还给你" in private_texts(says, giver)[0]


def test_going_out_sends_no_private_message() -> None:
    game = ZGame.from_hands([cards("3"), HANDS3[1], cards("66 10 K")], leader=0)
    says = Z.act(game, SEATS[:3], 0, "play", "3")
    assert private_texts(says, 0) == []  # the group post says 玩家0 出完了


def test_help_names_the_computer_level() -> None:
    assert "电脑难度" in HELP and "简单" in HELP and "困难" in HELP


def test_a_follow_refusal_says_what_is_on_the_table_and_what_was_played() -> None:
    game = ZGame.from_hands([cards("3 44 9"), cards("5 8 Q 77"), cards("6 10 K")], leader=0)
    game.play_text(0, "44")
    with pytest.raises(MoveError) as refused:
        game.play_text(1, "5")
    assert refused.value.message == "要跟同样的牌型：桌上是对子，你出的是单张"


def finished(players: int, spies: int, outcome: str) -> ZGame:
    """A game of ``players`` with ``spies`` spy seats (every spy hidden, 暗), played out,
    ending in ``outcome``."""
    for seed in range(2000):
        game = ZGame.deal(players, ZRules(), seed)
        if len(game.spies()) != spies:
            continue
        game.declare_timeout()
        seats = SEATS[:players]
        while not game.over:
            Z.auto_move(game, seats, game.turn, "托管")
        if game.result["outcome"] == outcome:
            return game
    raise AssertionError("no such game")


def score_line(game: ZGame) -> str:
    text = Z.end(game, SEATS[:game.players]).extract_plain_text()
    return next(line for line in text.splitlines() if line.startswith("积分："))


def test_the_score_line_says_who_each_place_was_paired_with() -> None:
    """Z-10, two spies: the winners and the losers in finishing order, one to one; the
    stake of a declared spy in a pair. Each place says whom it scored against."""
    game = finished(4, 2, "civilian")
    line = score_line(game)
    for w, lo, stake in game.score_pairs("civilian"):
        assert f"玩家{w} 胜 +{stake}（对 玩家{lo}" in line, line
        assert f"玩家{lo} 负 -{stake}（对 玩家{w}" in line, line


def test_the_score_line_says_a_declared_spys_stake() -> None:
    game = finished(3, 1, "spy")
    spy = game.spies()[0]
    game.stakes[spy], game.declared[spy] = 2, "明"  # as if declared: the stake doubles (Z-9)
    game.result["points"] = game._points("spy")
    line = score_line(game)
    assert f"玩家{spy} 胜 +4（对 2 名平民各 2，明特务 ×2）" in line, line
    assert all(f"玩家{s} 负 -2（对 玩家{spy}，明特务 ×2）" in line for s in range(3) if s != spy)


def test_no_baopei_warning_for_a_player_left_with_one_card() -> None:
    """S-4: a player holding one card can only play it — its highest single — so no
    包赔 can follow; the prompt does not warn of it."""
    from paizhuo_engine.shoubayi.game import SGame

    s = GAMES["手把一"]
    game = SGame.from_hands([cards("3 K"), cards("4"), cards("8 9 10")], leader=0)
    assert "包赔" in s.prompt(game, SEATS[:3]).extract_plain_text()  # two cards: it may
    game.hands[0] = cards("K")
    assert "包赔" not in s.prompt(game, SEATS[:3]).extract_plain_text()
