"""End to end: computer players (电脑) over the real WebSocket — one human with computer
players finishing a whole game of each game, a table left to computer players that
closes, and a restart while a computer player is about to move (G-6)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim
from tools.players import SimPlayer, attach, continue_table

GROUP = 60001
TOKEN = "ai"
ADMIN = 9
HUMAN = 6001


def world() -> tuple[OneBotSim, SimPlayer]:
    sim = OneBotSim(self_id=10001)
    human = SimPlayer(HUMAN, "甲")
    sim.add_member(GROUP, HUMAN, "甲")
    sim.add_friend(HUMAN, "甲")
    sim.add_member(GROUP, ADMIN, "管理", role="admin")
    return sim, human


def bot_process(tmp_path: Path, seed: int, delay: str = "0.05") -> BotProcess:
    db = tmp_path / "bot.db"
    return BotProcess(tmp_path / "bot.log", access_token=TOKEN, superusers=[ADMIN],
                      env={"PAIZHUO_DEAL_SEED": str(seed), "PAIZHUO_COMPUTER_DELAY": delay},
                      database_url=f"sqlite+aiosqlite:///{db}")


@pytest.mark.parametrize(("game", "computers", "seed"),
                         [("挖坑", 2, 5), ("抓特务 四人", 3, 6), ("手把一 3人", 2, 7)])
async def test_one_human_and_computers_finish_a_game(tmp_path: Path, game: str, computers: int,
                                                     seed: int) -> None:
    sim, human = world()
    async with bot_process(tmp_path, seed) as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            await sim.group_message(GROUP, HUMAN, f"/开局 {game}")
            await sim.wait_for_text("开了一桌", kind="group")
            attach(sim, [human])  # the table deals as the last computer sits: listen first
            since = sim.mark()
            await sim.group_message(GROUP, HUMAN, f"/加机器人 {computers}")
            await sim.wait_for_text("电脑玩家", kind="group", since=since)
            end = await continue_table(sim, GROUP, [human], since=since, timeout=60)
            assert end is not None and "本局结束" in end.text
            # The human answered the table's private questions (明/暗 in 抓特务): none timed out.
            assert "回复时间到" not in "".join(s.text for s in sim.sent if s.kind == "group")
            assert "电脑1" in end.text
            # Computer players get no private messages; the human got their hand.
            privates = [s for s in sim.sent if s.kind == "private"]
            assert privates and {s.target for s in privates} == {HUMAN}
            assert any("电脑" in s.text and " 出 " in s.text for s in sim.sent if s.kind == "group")
            # The replay the end message offers answers, with every seat.
            assert end.text.endswith("/对局 1")
            since = sim.mark()
            await sim.group_message(GROUP, HUMAN, "/对局 1")
            replay = await sim.wait_for_text("【第 1 局】", kind="group", since=since)
            assert f"{computers + 1}.电脑{computers}" in replay.text
            assert "发牌：" in replay.text and "过程：" in replay.text
        finally:
            await sim.close()
    with sqlite3.connect(tmp_path / "bot.db") as conn:
        players = conn.execute("select user_id from player_records").fetchall()
        summary = conn.execute("select summary from game_records").fetchone()[0]
    assert players == [(str(HUMAN),)]  # computer players have no records of their own
    seats = json.loads(summary)["seats"]  # but the record knows their seats
    assert [(s["user_id"], s["computer"]) for s in seats] == (
        [(str(HUMAN), False)] + [(f"ai:{n}", True) for n in range(1, computers + 1)])
    assert all(s["result"] in ("win", "draw", "loss") for s in seats)


@pytest.mark.once  # the searches run in worker processes without NoneBot; the commands here
# go through test_one_human_and_computers_finish_a_game too, in both passes of .ci/run
@pytest.mark.parametrize("game", ["手把一 3人", "挖坑"])
async def test_hard_computers_search_in_their_pause(tmp_path: Path, game: str) -> None:
    """电脑难度 困难 with real worker processes: a whole game with two computer players;
    their searches — 挖坑's bids and burial too (W-2, W-3) — start when their pause
    begins and the moves use them (the bot's log says how each 困难 move was decided),
    and nothing fails."""
    sim, human = world()
    async with bot_process(tmp_path, 7, delay="0.5") as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            end = await hard_game(sim, human, game)
            assert end is not None and "本局结束" in end.text
        finally:
            await sim.close()
        log = bot.log_text()
    moves = [line for line in log.splitlines() if "event=computer_move" in line]
    assert moves and all("search=" in line for line in moves)
    assert any("search='ahead'" in line for line in moves)
    if game == "挖坑":  # a computer bid (each seat bids once; two of three are computers)
        assert any("phase='bid'" in line for line in moves)
    check_nothing_failed(log)


async def hard_game(sim: OneBotSim, human: SimPlayer, game: str):
    """电脑难度 困难 for ``game``; the person opens a table of it, adds two computers and
    plays the first game to its end, which is returned."""
    await sim.group_message(GROUP, ADMIN, f"/设置 {game.split()[0]} 电脑难度 困难")
    await sim.wait_for_text("电脑难度", kind="group")
    await sim.group_message(GROUP, HUMAN, f"/开局 {game}")
    await sim.wait_for_text("开了一桌", kind="group")
    since = sim.mark()
    await sim.group_message(GROUP, HUMAN, "/加机器人 2")
    return await continue_table(sim, GROUP, [human], since=since, timeout=120)


def check_nothing_failed(log: str) -> None:
    """No search, and no computer move, failed in the bot's ``log``."""
    assert "search ahead failed" not in log and "Traceback" not in log
    assert "search failed" not in log and "computer move failed" not in log


@pytest.mark.once  # as above: the searches run in worker processes without NoneBot
async def test_hard_computers_play_on_after_a_tribute(tmp_path: Path) -> None:
    """Z-8 with 电脑难度 困难: 抓特务 3 人, one person and two computers, games in a row
    (/继续) until one starts with a tribute. In that game the computers' tribute, their
    明 / 暗 and their plays are made by searches that read what the tribute told them, and
    nothing fails."""
    sim, human = world()
    async with bot_process(tmp_path, 3, delay="0.3") as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            end = await hard_game(sim, human, "抓特务 三人")
            tribute_log = None
            for _ in range(4):
                assert end is not None and "本局结束" in end.text
                if tribute_log is not None:
                    break
                await sim.wait_idle(quiet=0.2)
                since = sim.mark()
                mark = len(bot.log_text())
                await sim.group_message(GROUP, HUMAN, "/继续")
                start = await sim.wait_for_text("开局", kind="group", since=since)
                if "进贡：" in start.text:
                    tribute_log = mark
                end = await continue_table(sim, GROUP, [human], since=since, timeout=120)
            assert tribute_log is not None, "no game with a tribute in four"
        finally:
            await sim.close()
        log = bot.log_text()
    moves = [line for line in log[tribute_log:].splitlines() if "event=computer_move" in line]
    plays = [line for line in moves if "search=" in line and "phase=" not in line]
    assert plays and any("search='ahead'" in line for line in plays)
    check_nothing_failed(log)


async def test_a_table_left_to_computers_closes(tmp_path: Path) -> None:
    """The last person out closes the table, computer players or not: nobody can leave a
    table of computers behind (and open another in the next group)."""
    sim, _human = world()
    async with bot_process(tmp_path, 8, delay="0.02") as bot:
        await sim.connect(bot.url, TOKEN)
        try:
            await sim.group_message(GROUP, HUMAN, "/开局 挖坑")
            await sim.wait_for_text("开了一桌", kind="group")
            await sim.group_message(GROUP, HUMAN, "/加机器人")
            await sim.wait_for_text("电脑1 入座", kind="group")
            await sim.group_message(GROUP, HUMAN, "/退出")
            left = await sim.wait_for_text("甲 退出", kind="group")
            assert "牌桌已关闭" in left.text
            since = sim.mark()
            await sim.group_message(GROUP, ADMIN, "/加机器人 2")
            await sim.wait_for_text("本群还没有牌桌", kind="group", since=since)
        finally:
            await sim.close()
    with sqlite3.connect(tmp_path / "bot.db") as conn:
        assert conn.execute("select count(*) from game_records").fetchone()[0] == 0
        assert conn.execute("select count(*) from live_tables").fetchone()[0] == 0


async def test_restart_during_a_computer_players_pause(tmp_path: Path) -> None:
    """The computer's pending move is saved with the table: after a kill and a restart it
    is made, and the game goes on to its end."""
    sim, human = world()
    attach(sim, [human])
    bot = bot_process(tmp_path, 9, delay="3")
    async with bot:
        await sim.connect(bot.url, TOKEN)
        await sim.group_message(GROUP, HUMAN, "/开局 手把一 3人")
        await sim.wait_for_text("开了一桌", kind="group")
        since = sim.mark()
        await sim.group_message(GROUP, HUMAN, "/加机器人 2")
        start = await sim.wait_for_text("开局", kind="group", since=since)
        if HUMAN in start.at:  # the human leads: one play, so that a computer is to move
            await sim.wait_idle(quiet=0.2)
            for command in human.candidates(start.text):
                mark = sim.mark()
                await sim.group_message(GROUP, HUMAN, command)
                answer = await sim.wait_for(lambda s: s.kind == "group", since=mark)
                if "轮到 电脑" in answer.text:
                    break
        last = [s for s in sim.sent if s.kind == "group"][-1]
        assert "轮到 电脑" in last.text
        bot.kill()
        await sim.close()
        with sqlite3.connect(tmp_path / "bot.db") as conn:
            state = conn.execute("select state from live_tables").fetchone()[0]
        assert '"computer_at":"' in state.replace(" ", "")
        bot.extra_env["PAIZHUO_COMPUTER_DELAY"] = "0.05"  # the saved pause still runs out first
        await bot.start()
        sim2, human2 = world()
        attach(sim2, [human2])
        await sim2.connect(bot.url, TOKEN)
        try:
            since = sim2.mark()
            await sim2.group_message(GROUP, HUMAN, "/手牌")
            end = await continue_table(sim2, GROUP, [human2], since=since, timeout=90)
            assert end is not None and "本局结束" in end.text
            assert any("电脑" in s.text and (" 出 " in s.text or " 过" in s.text)
                       for s in sim2.sent if s.kind == "group")
        finally:
            await sim2.close()


def session_processes(sid: int) -> list[int]:
    """The processes of session ``sid`` (the bot runs in a session of its own: every
    process it starts, a search worker or a helper of :mod:`multiprocessing`, is in it
    unless it made a session of its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs /proc")
async def test_a_killed_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    """kill -9 of the bot while 困难's workers run (and the resource tracker
    :mod:`multiprocessing` starts beside them): within a few seconds not one process of
    the bot's session is left (they had parent pid 1 and lived on for good)."""
    sim, human = world()
    bot = bot_process(tmp_path, 7, delay="0.5")
    await bot.start()
    try:
        await sim.connect(bot.url, TOKEN)
        await sim.group_message(GROUP, ADMIN, "/设置 手把一 电脑难度 困难")
        await sim.wait_for_text("电脑难度", kind="group")
        await sim.group_message(GROUP, HUMAN, "/开局 手把一 3人")
        await sim.wait_for_text("开了一桌", kind="group")
        since = sim.mark()
        await sim.group_message(GROUP, HUMAN, "/加机器人 2")
        await continue_table(sim, GROUP, [human], since=since, timeout=60, stop_after=2)
        pid = bot.pid
        assert pid is not None
        helpers = [p for p in session_processes(pid) if p != pid]
        assert len(helpers) >= 2, helpers  # a search worker, and the resource tracker
        bot.kill()
        left = helpers
        for _ in range(100):
            left = session_processes(pid)
            if not left:
                break
            await asyncio.sleep(0.1)
        assert left == [], f"processes left after kill -9: {left}"
    finally:
        await sim.close()
        await bot.stop()
