"""One table, any QQ side: the real bot (``bot.py``) through the real adapter of each
protocol side — OneBot v11 (reverse WebSocket), Milky and Satori (the bot dials their
fakes: HTTP API + WebSocket events) — plays whole games of every kind with simulated
players who read only what the bot says, and keeps the same records."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sides_support import SIDES, make_sim, running

from tools.players import SimPlayer, play_table

GROUP = 30501
NAMES = ["甲", "乙", "丙", "丁"]
GAMES = [("抓特务 三人", 3), ("挖坑", 3), ("手把一 3人", 3)]


def seat(sim, size: int) -> list[SimPlayer]:
    players = [SimPlayer(2101 + i, NAMES[i]) for i in range(size)]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return players


@pytest.mark.parametrize("side", SIDES)
async def test_a_whole_game_of_each_kind_and_the_records(tmp_path: Path, side: str) -> None:
    """抓特务, 挖坑 and 手把一 played to the end on the side, one after another at one
    table; hands only privately, every prompt @-mentions its player; /战绩 counts them."""
    sim = make_sim(side)
    players = seat(sim, 3)
    async with running(sim, tmp_path):
        for game, size in GAMES:
            end = await play_table(sim, GROUP, players[:size], game, timeout=60)
            assert end is not None and "本局结束" in end.text, game
            mark = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/退出")
            for p in players[1:size]:
                await sim.group_message(GROUP, p.user_id, "/退出")
            await sim.wait_for_text("牌桌已关闭", kind="group", target=GROUP, since=mark, timeout=30)
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/战绩")
        stats = await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP and s.ok
                                   and "局" in s.text, since=mark, timeout=30)
        assert re.search(r"3\s*局", stats.text), stats.text
    hands = [s for s in sim.sent if s.kind == "private" and "你的手牌" in s.text]
    assert hands and all(s.ok for s in hands)
    assert not any("你的手牌" in s.text for s in sim.sent if s.kind == "group")
    prompts = [s for s in sim.sent if s.kind == "group" and "轮到 @" in s.text]
    assert prompts and all(len(s.at) == 1 for s in prompts)
