"""End to end: the real bot (``bot.py``) over a real OneBot v11 reverse WebSocket, with
simulated players who read their hands from private messages and act when @-mentioned.
Whole 3- and 4-player games of 抓特务, ``/战绩`` afterwards, and a restart mid-game."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import RANKS, SimPlayer, continue_table, next_game, play_table, ranks_of

GROUP = 30001
TOKEN = "e2e-token"
NAMES = ["甲", "乙", "丙", "丁"]


def world(size: int, declare: list[str] | None = None) -> tuple[OneBotSim, list[SimPlayer]]:
    sim = OneBotSim(self_id=10001)
    choices = declare or ["暗"] * size
    players = [SimPlayer(2001 + i, NAMES[i], declare=choices[i]) for i in range(size)]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return sim, players


def check_no_spy_leak(sim: OneBotSim) -> None:
    """Nothing the group saw before the end names a role (the spy stays hidden, Z-9)."""
    for sent in sim.sent:
        if sent.kind != "group":
            continue
        if "本局结束" in sent.text:
            break
        assert "是特务" not in sent.text and "特务：" not in sent.text, sent.text
        assert "平民" not in sent.text, sent.text


def check_cards_accounted(sim: OneBotSim, size: int, end_text: str, since: int = 0) -> None:
    """Every card played in the group (from message ``since`` on) plus the hands left
    shown at the end is one deck."""
    played: list[int] = []
    for sent in sim.sent[since:]:
        if sent.kind == "group" and sent.target == GROUP:
            for line in sent.text.splitlines():
                m = re.match(r"^\S+ 出 (.+?)（[^）]+）(?:［.+］)?$", line)
                if m:
                    played += ranks_of(m.group(1))
    left: list[int] = []
    for line in end_text.splitlines():
        if " 剩牌：" in line:
            left += ranks_of(line.split("剩牌：", 1)[1])
    counts = {r: 0 for r in range(len(RANKS))}
    for r in played + left:
        counts[r] += 1
    assert counts == {**{r: 4 for r in range(13)}, 13: 1, 14: 1}


@pytest.mark.parametrize("size", [3, 4])
async def test_whole_game_over_real_websocket(tmp_path: Path, size: int) -> None:
    db = tmp_path / "bot.db"
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                          database_url=f"sqlite+aiosqlite:///{db}") as bot:
        sim, players = world(size)
        await sim.connect(bot.url, TOKEN)
        try:
            end = await play_table(sim, GROUP, players, f"抓特务 {size}人", timeout=30)
            assert end is not None and "本局结束" in end.text
            assert re.search(r"特务：\S+；平民：\S+", end.text)
            # Every player got a hand with the right count and a role at the deal.
            first_hands = {}
            for s in sim.sent:
                if s.kind == "private" and s.target not in first_hands and "你的手牌" in s.text:
                    first_hands[s.target] = s
            sizes = sorted(len(ranks_of(s.text.splitlines()[2])) for s in first_hands.values())
            assert sizes == ([18, 18, 18] if size == 3 else [13, 13, 14, 14])
            spies = [u for u, s in first_hands.items() if "你是特务" in s.text]
            assert 1 <= len(spies) <= (1 if size == 3 else 2)
            check_no_spy_leak(sim)
            check_cards_accounted(sim, size, end.text)
            points = [int(x) for x in re.findall(r" [胜平负] ([+-]?\d+)", end.text)]
            assert len(points) == size and sum(points) == 0

            await sim.wait_idle(quiet=0.2)
            # No card after the end: its last line names /对局 1, which answers with the
            # details (合并转发): every hand as dealt, as each player got it privately.
            assert not any(s.forward for s in sim.sent if s.kind == "group")
            assert end.text.endswith("本群第 1 局。每人发到的牌和每一手：/对局 1")
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/对局 1")
            details = await sim.wait_for_text("【第 1 局】", kind="group", since=since)
            assert details.ok and details.forward and "过程：" in details.text
            dealt = {}
            for line in details.text.splitlines():
                m = re.match(r"^\d\.(\S+?)（(特务|平民)）：(.+)$", line)
                if m:
                    dealt[m.group(1)] = sorted(ranks_of(m.group(3)))
            assert dealt == {p.name: sorted(ranks_of(first_hands[p.user_id].text.splitlines()[2]))
                             for p in players}
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/战绩")
            stats = await sim.wait_for_text("战绩", kind="group", since=since)
            assert "抓特务：1 局" in stats.text
        finally:
            await sim.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from game_records").fetchone()[0] == 1
        assert conn.execute("select count(*) from player_records").fetchone()[0] == size
        (state,) = conn.execute("select state from live_tables").fetchone()
        assert json.loads(state)["status"] == "finished"  # open for /继续, game recorded


def untimed(text: str) -> str:
    """A re-posted table without the turn time left in its prompt (G-3)."""
    return re.sub(r"（还剩 \d+ 秒）$", "", text)


@pytest.mark.parametrize("hard", [False, True], ids=["sigterm", "sigkill"])
async def test_restart_mid_game_continues_and_records_once(tmp_path: Path, hard: bool) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN, database_url=f"sqlite+aiosqlite:///{db}")
    await bot.start()
    sim, players = world(4)
    try:
        await sim.connect(bot.url, TOKEN)
        assert await play_table(sim, GROUP, players, "抓特务 四人", timeout=30, stop_after=12) is None
        await sim.wait_idle(quiet=0.2)
        since = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/牌桌")
        before = (await sim.wait_for_text("轮到", kind="group", since=since)).text

        if hard:
            bot.kill()
        else:
            await bot.stop()
        await sim.wait_closed()
        await bot.start()
        reconnect = sim.mark()
        await sim.connect(bot.url, TOKEN)
        # On reconnecting, the bot re-posts the table: the player to act is @-mentioned.
        resumed = await sim.wait_for_text("牌局继续", kind="group", since=reconnect)
        assert untimed(resumed.text).endswith(untimed(before))  # the time left runs on
        await sim.wait_idle(quiet=0.2)

        since = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/牌桌")
        after = await sim.wait_for_text("轮到", kind="group", since=since)
        assert untimed(after.text) == untimed(before)  # same position, same player to act
        end = await continue_table(sim, GROUP, players, since=since, timeout=30)
        assert end is not None and "本局结束" in end.text
        await sim.wait_idle(quiet=0.2)
    finally:
        await sim.close()
        await bot.stop()
    await bot.start()  # a further restart must not write the record again
    await bot.stop()
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from game_records").fetchone()[0] == 1
        (state,) = conn.execute("select state from live_tables").fetchone()
        assert json.loads(state)["status"] == "finished"  # open for /继续, game recorded


@pytest.mark.parametrize(("size", "seed"), [(3, 1), (4, 4)])
async def test_consecutive_games_with_tribute_and_declaring(tmp_path: Path, size: int, seed: int) -> None:
    """Z-8/Z-9/Z-10 over the chat: three games at one table (/继续), tribute after every
    decided game, spies declaring 明 / 明牌 / 暗, points zero-sum, each game recorded."""
    db = tmp_path / "bot.db"
    async with BotProcess(tmp_path / "bot.log", access_token=TOKEN, env={"PAIZHUO_DEAL_SEED": str(seed)},
                          database_url=f"sqlite+aiosqlite:///{db}") as bot:
        sim, players = world(size, ["明", "暗", "明牌", "暗"][:size])
        await sim.connect(bot.url, TOKEN)
        try:
            ends = []
            since = sim.mark()
            end = await play_table(sim, GROUP, players, f"抓特务 {size}", timeout=30)
            tributes = 0
            for game in range(3):
                assert end is not None
                check_cards_accounted(sim, size, end.text, since)
                points = [int(x) for x in re.findall(r" [胜平负] ([+-]?\d+)", end.text)]
                assert len(points) == size and sum(points) == 0
                ends.append(end.text)
                if game == 2:
                    break
                await sim.wait_idle(quiet=0.2)
                since = sim.mark()
                end = await next_game(sim, GROUP, players, timeout=30)
                start = next(s for s in sim.sent[since:] if s.kind == "group" and "开局" in s.text)
                if "平局" in ends[-1]:
                    assert "进贡" not in start.text
                else:
                    assert "进贡：" in start.text
                    tributes += 1
            assert tributes >= 1
            answers = [a for p in players for a in p.answers]
            assert any(a.startswith("还 ") for a in answers)  # returns were chosen privately
            assert any(a in ("明", "明牌", "暗") for a in answers)
            await sim.wait_idle(quiet=0.2)
            # Each end message names its game's /对局 N: the details (合并转发), with the
            # tribute of the games that had one.
            assert [e.splitlines()[-1] for e in ends] == [
                f"本群第 {n} 局。每人发到的牌和每一手：/对局 {n}" for n in (1, 2, 3)]
            details = []
            for n in (1, 2, 3):
                since = sim.mark()
                await sim.group_message(GROUP, players[0].user_id, f"/对局 {n}")
                details.append((await sim.wait_for_text(f"【第 {n} 局】", kind="group", since=since)).text)
            assert all(d.count("发牌：") == 1 for d in details)
            assert sum("进贡：" in d.split("过程：")[0] for d in details) == tributes
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/战绩")
            stats = await sim.wait_for_text("战绩", kind="group", since=since)
            assert "抓特务：3 局" in stats.text
        finally:
            await sim.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from game_records").fetchone()[0] == 3
        assert conn.execute("select sum(points) from player_records").fetchone()[0] == 0
