"""Limits that normal play never meets, and that speak when met (messaging, dispatch).

A person who plays at full speed and asks for /提示, /记牌, /牌桌 and /手牌 at every turn
(and mistypes a play now and then) is never limited by the shipped settings: an answer
sent privately costs the group nothing and counts a quarter. A member who goes over a
limit is told once, then silenced."""

from __future__ import annotations

from chat_support import HANDS3, A, gmsg, pmsg, recording_bot, seat_table
from nonebug import App

from nonebot_plugin_paizhuo import accounts, messaging
from nonebot_plugin_paizhuo.config import Config
from nonebot_plugin_paizhuo.messaging import RefusalLimiter

TURNS = 45
TURN_SECONDS = 4.0
"""A turn every 4 s for three minutes: faster than anyone types five commands."""


def shipped_limiters(monkeypatch, clock) -> Config:
    """The command and refusal limits as shipped (``.env.example`` and the defaults), on
    ``clock``."""
    config = Config.model_validate({})
    monkeypatch.setattr(messaging, "_commands", RefusalLimiter(
        config.command_limit, config.command_window, config.command_silence, clock=clock))
    monkeypatch.setattr(messaging, "_limiter", RefusalLimiter(
        config.refusal_limit, config.refusal_window, config.refusal_silence, clock=clock))
    return config


async def test_full_speed_play_with_every_information_command_is_never_limited(
        app: App, monkeypatch) -> None:
    await seat_table(HANDS3, leader=1)  # 玩家102 leads: 玩家101's commands are all asked
    t = [1000.0]
    shipped_limiters(monkeypatch, lambda: t[0])
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda table: bot)
    asked = 0
    for _ in range(TURNS):
        for text in ("/提示", "/记牌", "/牌桌", "/手牌", "出 34"):  # 34: no legal type
            before = len(sent.texts())
            await bot.handle_event(gmsg(A, text) if text != "/记牌" else pmsg(A, text))
            asked += 1
            assert len(sent.texts()) == before + 1, (text, sent.texts()[-3:])
        t[0] += TURN_SECONDS
    assert asked == TURNS * 5
    assert not any("太快" in x or "出错太多" in x for x in sent.texts())


def test_commands_weigh_what_their_answers_cost() -> None:
    from nonebot_plugin_paizhuo.messaging import command_weight

    assert command_weight({"提示"}) == command_weight({"手牌", "看牌"}) == 0.25
    assert command_weight({"牌桌"}) == command_weight({"加入"}) == 1
    assert command_weight({"帮助", "help"}) == command_weight({"战绩"}) == 3



async def test_the_answers_the_player_to_act_asked_for_go_first(app: App, monkeypatch) -> None:
    """/提示, /手牌 and /记牌 of the player to act are what they need to act: their answers
    are urgent (before other waiting messages, as a question is); another player's are
    not. /牌桌 stays in order with the game's posts (it shows the table as it is)."""
    from nonebot_plugin_paizhuo import tally
    from nonebot_plugin_paizhuo.actions import announce, turns

    await seat_table(HANDS3, leader=0)
    bot, _ = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda table: bot)
    queued = []

    async def deliver(_bot, outs):
        queued.extend(outs)

    for module in (turns, tally, announce):
        monkeypatch.setattr(module, "deliver", deliver)
    for user in (str(A), "102"):
        await turns.send_hints(bot, user)
        await turns.resend_hand(bot, user, None)
        await tally.send_tally(bot, user, None)
    assert [o.urgent for o in queued] == [True] * 3 + [False] * 3
    await announce.show_table(bot, "5001", str(A))
    assert queued[-1].kind == "group" and not queued[-1].chatter and queued[-1].coalesce == "table"
