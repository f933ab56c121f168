"""Messages a phone can read (RULES.md G-4): the private message after a play is short —
the hand in 出 notation, the others' card counts when the table shows them — with the
role and how-to-play lines only in the first hand of a game; the prompt after a play does
not repeat it; templates are spaced (``桌上是 3 张的连牌``) and no message ends with a
dangling separator."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from chat_support import GROUP, A, B, C, gmsg, recording_bot
from support import cards

from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.errors import MoveError
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SEATS = [SeatView(str(u), f"玩家{u}") for u in (A, B, C)]


def bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "message_counts.py"
    spec = importlib.util.spec_from_file_location("message_counts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def seat(game_name: str, engine) -> Table:
    table = Table(group_id=str(GROUP), game=game_name, size=3, opener=str(A), seats=list(SEATS),
                  settings={}, created_at=now_utc(), started_at=now_utc(), uid="msg-test",
                  engine=engine, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


def private_to(sent, user: int) -> list[str]:
    from nonebot.adapters.onebot.v11 import Message

    return [Message(d["message"]).extract_plain_text() for api, d in sent.calls
            if api == "send_private_msg" and d["user_id"] == user]


async def test_private_message_after_a_play_is_the_hand_only(monkeypatch) -> None:
    await seat("抓特务", ZGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K")],
                                          rules=ZRules(), leader=0))
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 44"))
    [text] = private_to(sent, A)
    assert text == "你的手牌（2 张）：♠3 ♠9"


async def test_private_message_shows_the_others_counts_when_the_table_does(monkeypatch) -> None:
    rules = ZRules(show_counts=True)
    await seat("抓特务", ZGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K J")],
                                          rules=rules, leader=0))
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 44"))
    assert private_to(sent, A) == ["你的手牌（2 张）：♠3 ♠9\n其他人：玩家102 3，玩家103 4"]


async def test_shoubayi_always_shows_counts(monkeypatch) -> None:
    await seat("手把一", SGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K")], leader=0))
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert private_to(sent, A) == ["你的手牌（3 张）：♠4♥4 ♠9\n其他人：玩家102 3，玩家103 3"]


async def test_the_prompt_after_a_play_does_not_repeat_it(monkeypatch) -> None:
    await seat("抓特务", ZGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K")],
                                          rules=ZRules(), leader=0))
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    await bot.handle_event(gmsg(B, "过"))
    first, second = [t for t in sent.texts() if "轮到" in t]
    assert first.startswith("玩家101 出 ♠3（单张）\n轮到 ") and first.endswith(" 跟牌或过（60 秒）")  # G-3: the time limit shown
    assert first.count("♠3") == 1 and "要大过" not in first
    assert "要大过 玩家101 的 ♠3（单张），或 过" in second  # after a pass the play is named again


def test_the_first_hand_has_the_role_and_how_to_play() -> None:
    adapter = GAMES["抓特务"]
    game = ZGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K")], rules=ZRules(), leader=0)
    says = adapter.start(game, SEATS)
    first = next(s.message for s in says if s.seat == 0)
    assert "你是" in first and "出牌请在群里发" in first


@pytest.mark.parametrize("name, size", [("抓特务", 3), ("抓特务", 4), ("挖坑", 3), ("手把一", 2),
                                        ("手把一", 6)])
def test_whole_games_end_no_message_with_a_separator(name: str, size: int) -> None:
    result = bench().play_table(name, size, games=2, seed=3)
    assert result["dangling"] == 0
    assert result["group"] > 0 and result["private"] > 0


def test_follow_reason_is_spaced() -> None:
    game = ZGame.from_hands([cards("3 44 9"), cards("5 8 Q"), cards("6 10 K")], rules=ZRules(), leader=0)
    game.play_text(0, "44")
    with pytest.raises(MoveError) as err:
        game.play_text(1, "5")
    assert err.value.message == "要跟同样的牌型：桌上是对子，你出的是单张"
