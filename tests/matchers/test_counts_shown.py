"""Counts are true when shown: every card count in a private hand line or a group post is
the count after everything the same post reports. A person's move and the computer
players' moves after it go out as one post; the person's hand line rides in it and is
written when the post goes out, not at the person's move (it said ``其他人：电脑1 7``
when the computers had played since)."""

from __future__ import annotations

import re

import pytest
from chat_support import GROUP, A, gmsg, recording_bot
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import accounts, tables
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SEATS = [SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"), SeatView("ai:2", "电脑2")]


def computers_table(game_name: str, engine, settings: dict | None = None) -> Table:
    table = Table(group_id=str(GROUP), game=game_name, size=3, opener=str(A), seats=list(SEATS),
                  settings=dict(settings or {}), created_at=now_utc(), started_at=now_utc(),
                  uid="counts-test", engine=engine, status=PLAYING, account="10001")
    REGISTRY.add(table)
    return table


async def person_then_computers(monkeypatch, clock, table: Table, command: str):
    """玩家101 moves; the computers' pause runs out; returns the calls sent (one post)."""
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda t: bot)
    await bot.handle_event(gmsg(A, command))
    assert table.computer_at is not None  # the post waits for the computers
    task = table.timer
    await clock.advance((table.computer_at - tables.timer_now()).total_seconds())
    await task
    return sent


def counts_in(text: str) -> dict[str, int]:
    line = next(x for x in text.splitlines() if x.startswith("其他人："))
    return {name: int(n) for name, n in re.findall(r"([^，\s]+) (\d+)", line.removeprefix("其他人："))}


@pytest.mark.parametrize("game_name", ["挖坑", "手把一"])
async def test_the_private_hand_line_counts_after_the_computers_moves(
        app: App, monkeypatch, clock, game_name: str) -> None:
    hands = [cards("3 4 4 9 J"), cards("5 6 7 8 10 Q"), cards("5 6 8 9 K A")]
    engine = (WGame.from_hands(hands, digger=0) if game_name == "挖坑"
              else SGame.from_hands(hands, leader=0))
    table = computers_table(game_name, engine)
    sent = await person_then_computers(monkeypatch, clock, table, "出 3")
    privates = [(d["user_id"], t) for (api, d), t in zip(sent.calls, sent.texts(), strict=False)
                if api == "send_private_msg"]
    [(user, text)] = privates  # one hand line, in the run's one post
    assert user == A
    played = [len(h) for h in hands[1:]] != [len(h) for h in table.engine.hands[1:]]
    assert played  # the computers played after 玩家101: the old line was a move late
    assert counts_in(text) == {"电脑1": len(table.engine.hands[1]), "电脑2": len(table.engine.hands[2])}
    group = next(t for (api, _), t in zip(sent.calls, sent.texts(), strict=False)
                 if api == "send_group_msg")
    assert "玩家101 出 ♠3" in group and "电脑1 " in group and "电脑2 " in group


async def test_the_group_counts_line_is_the_one_after_the_last_move(app: App, monkeypatch,
                                                                      clock) -> None:
    """Z-6 显示张数: a post of three moves shows the counts once, after them all."""
    hands = [cards("3 4 4 9 J"), [cards("♠A")[0], *cards("5 7 8 10 Q")], cards("5 6 8 9 K 2")]
    table = computers_table("抓特务", ZGame.from_hands(hands, rules=ZRules(show_counts=True), leader=0),
                            {"show_counts": True})
    sent = await person_then_computers(monkeypatch, clock, table, "出 3")
    group = next(t for (api, _), t in zip(sent.calls, sent.texts(), strict=False)
                 if api == "send_group_msg")
    lines = [x for x in group.splitlines() if x.startswith("张数：")]
    assert len(lines) == 1, group
    now = {s.name: len(table.engine.hands[i]) for i, s in enumerate(SEATS)}
    assert lines[0] == "张数：" + "，".join(f"{name} {n}" for name, n in now.items())
    assert group.splitlines()[-2] == lines[0] and group.splitlines()[-1].startswith("轮到")
