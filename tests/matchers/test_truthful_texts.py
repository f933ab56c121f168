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
    expect_group,
    expect_private,
    make_bot,
    recording_bot,
    seat_table,
)
from nonebug import App
from support import cards

from plugins.paizhuo import actions
from plugins.paizhuo.tables import Table, now_utc, reminder_before

HANDS = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


async def run_timer(bot, table: Table, *, remind: bool = False) -> None:
    """Make the table's reminder (or deadline) due now and run what it does."""
    past = now_utc() - timedelta(seconds=1)
    if remind:
        table.remind_at, table.deadline = past, now_utc() + timedelta(seconds=10)
    else:
        table.remind_at, table.deadline = None, past
    await actions.run_locked(bot, table, lambda: actions._on_time(table))


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


async def test_g3_prompt_to_act_shows_the_time_limit(app: App) -> None:
    from chat_support import gmsg

    table = await seat_table(HANDS, leader=0)
    engine = table.engine
    engine.rules = type(engine.rules).from_json({**engine.rules.to_json(), "turn_seconds": 45})
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "轮到", "（45 秒）", at=B)
        expect_private(ctx, A, "手牌")


def test_g3_prompt_time_comes_from_the_group_setting() -> None:
    from plugins.paizhuo.games import GAMES

    for name, adapter in GAMES.items():
        size = 3
        game = adapter.new_game(size, {"turn_seconds": 33}, 1, None)
        assert game.rules.turn_seconds == 33, name
