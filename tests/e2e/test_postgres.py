"""The real bot on a real PostgreSQL server (``PAIZHUO_TEST_PG_URL``; ``.ci/run`` starts
one with ``tools/pg_test_server.sh``): two bot processes with one account each share one
database and play at once — a whole game end to end with ``/战绩`` on one, part of a game
on the other. Each process only ever loads and writes its own account's tables; one is
killed mid-game, the other restarted, then the killed one: nothing is lost or recorded
twice. (The same whole game on SQLite: ``test_games.py``.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pg_support import fresh_pg_url
from sqlalchemy import text

from paizhuo_db.store import Store
from tools.onebot_sim import BotProcess, ConnectionRejected, OneBotSim
from tools.players import SimPlayer, continue_table, play_table

TOKEN = "pg-token"


def world(self_id: int, group: int, first_user: int) -> tuple[OneBotSim, list[SimPlayer]]:
    sim = OneBotSim(self_id=self_id)
    players = [SimPlayer(first_user + i, n) for i, n in enumerate("甲乙丙")]
    for p in players:
        sim.add_member(group, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return sim, players


async def records(store: Store) -> dict[str, list[tuple[str, int]]]:
    """Per group: (uid, number of player rows) of every recorded game."""
    async with store.engine.connect() as conn:
        rows = (await conn.execute(text(
            "select g.group_id, g.uid, count(p.id) from game_records g "
            "join player_records p on p.game_id = g.id group by g.group_id, g.uid"))).all()
    out: dict[str, list[tuple[str, int]]] = {}
    for group_id, uid, players in rows:
        out.setdefault(group_id, []).append((uid, int(players)))
    return out


async def test_two_processes_one_database(tmp_path: Path) -> None:
    url = await fresh_pg_url()
    g1, g2 = 51001, 51002
    one = BotProcess(tmp_path / "one.log", access_token=TOKEN, database_url=url)
    two = BotProcess(tmp_path / "two.log", access_token=TOKEN, database_url=url)
    sim1, players1 = world(10001, g1, 2001)
    sim2, players2 = world(10002, g2, 2101)
    store = Store(url)
    try:
        await asyncio.gather(one.start(), two.start())  # both migrate: one waits
        await asyncio.gather(sim1.connect(one.url, TOKEN), sim2.connect(two.url, TOKEN))
        # Both play at once: process one a whole game, process two part of one.
        end1, cut = await asyncio.gather(
            play_table(sim1, g1, players1, "抓特务 三人", timeout=30),
            play_table(sim2, g2, players2, "挖坑", timeout=30, stop_after=8))
        assert end1 is not None and "本局结束" in end1.text and cut is None
        await sim1.wait_idle(quiet=0.2)
        since = sim1.mark()
        await sim1.group_message(g1, players1[0].user_id, "/战绩")
        stats = await sim1.wait_for_text("战绩", kind="group", target=g1, since=since)
        assert "抓特务：1 局" in stats.text
        await sim2.wait_idle(quiet=0.3)
        saved2 = (await store.load_live(account="10002"))[str(g2)]
        assert saved2[1]["status"] == "playing"

        # Process two dies mid-game. Process one restarts meanwhile: it resumes only its
        # own table and never touches the other's row.
        two.kill()
        await sim2.wait_closed()
        await sim2.close()
        await one.stop()
        await sim1.wait_closed()
        await sim1.close()
        await one.start()
        await sim1.connect(one.url, TOKEN)
        since = sim1.mark()
        for p in players1:
            await sim1.group_message(g1, p.user_id, "/继续")
        await sim1.wait_for_text("开局", kind="group", target=g1, since=since, timeout=30)
        await sim1.wait_idle(quiet=0.3)
        assert "账号 10001 已连上，恢复了 1 桌牌局" in one.log_text()
        assert (await store.load_live(account="10002"))[str(g2)] == saved2
        assert not [s for s in sim1.sent if s.kind == "group" and s.target == g2]

        # Process two comes back: its game continues where it was and ends once.
        await two.start()
        since = sim2.mark()
        await sim2.connect(two.url, TOKEN)
        resumed = await sim2.wait_for_text("牌局继续", kind="group", target=g2, since=since,
                                           timeout=30)
        assert "轮到" in resumed.text
        end2 = await continue_table(sim2, g2, players2, since=since, timeout=30)
        assert end2 is not None and "本局结束" in end2.text
        await asyncio.gather(sim1.wait_idle(quiet=0.3), sim2.wait_idle(quiet=0.3))
        assert "账号 10002 已连上，恢复了 1 桌牌局" in two.log_text()

        recorded = await records(store)
        assert [n for _uid, n in recorded[str(g1)]] == [3]  # the second game goes on
        assert [n for _uid, n in recorded[str(g2)]] == [3]
        assert await store.live_owners([str(g1), str(g2)]) == {str(g1): "10001", str(g2): "10002"}
        assert (await store.load_live(account="10001"))[str(g1)][1]["status"] == "playing"
        assert not [s for s in sim2.sent if s.target in (g1, *(p.user_id for p in players1))]
    finally:
        for sim in (sim1, sim2):
            await sim.close()
        await one.stop()
        await two.stop()
        await store.close()


async def connect_when_free(sim: OneBotSim, bot: BotProcess, tries: int = 50) -> None:
    """Connect ``sim`` to ``bot``, trying again while the bot refuses the account (the
    process that served it just let it go; the server may not have seen it yet)."""
    for _ in range(tries):
        try:
            await sim.connect(bot.url, TOKEN)
            return
        except ConnectionRejected:
            await asyncio.sleep(0.2)
    await sim.connect(bot.url, TOKEN)


def last_prompt(sim: OneBotSim, group_id: int) -> int:
    """Index in ``sim.sent`` of the last turn prompt (轮到) posted in the group."""
    return max(i for i, s in enumerate(sim.sent)
               if s.kind == "group" and s.target == group_id and "轮到 @" in s.text)


async def saved_moves(store: Store, group_id: int) -> list:
    """The moves of the saved game of the group (its engine log)."""
    return (await store.load_live())[str(group_id)][1]["engine"]["log"]


async def test_one_account_is_served_by_one_process_at_a_time(tmp_path: Path) -> None:
    """Account 10001 on process one: process two refuses a second connection of it (no
    second deal, no second answer). Then the account moves one → two → one → two: each
    process that takes it loads its table from the database, so two never plays on the
    position it held before one played on."""
    url = await fresh_pg_url()
    g = 52001
    one = BotProcess(tmp_path / "one.log", access_token=TOKEN, database_url=url)
    two = BotProcess(tmp_path / "two.log", access_token=TOKEN, database_url=url)
    sim, players = world(10001, g, 2201)
    twin = OneBotSim(self_id=10001)  # the same account, connected a second time
    store = Store(url)
    try:
        await asyncio.gather(one.start(), two.start())
        await sim.connect(one.url, TOKEN)
        assert await play_table(sim, g, players, "抓特务 三人", timeout=30, stop_after=2) is None
        try:
            await twin.connect(two.url, TOKEN)
        except ConnectionRejected as err:
            assert err.status == 403
        else:
            raise AssertionError("a second process accepted an account another one serves")
        assert "另一个进程服务" in two.log_text()
        assert not twin.sent

        # One dies: two takes the account and plays a move.
        one.kill()
        await sim.wait_closed()
        await sim.close()
        since = sim.mark()
        await connect_when_free(sim, two)
        await continue_table(sim, g, players, since=since, timeout=30, stop_after=1)
        await sim.wait_idle(quiet=0.3)
        # The account goes back to one (restarted), which plays two more moves.
        await sim.close()
        await one.start()
        await connect_when_free(sim, one)
        await continue_table(sim, g, players, since=last_prompt(sim, g), timeout=30,
                             stop_after=2)
        await sim.wait_idle(quiet=0.3)
        before = await saved_moves(store, g)
        # And to two again: it plays on from what one saved, not from what it held.
        await sim.close()
        await connect_when_free(sim, two)
        await continue_table(sim, g, players, since=last_prompt(sim, g), timeout=30,
                             stop_after=1)
        await sim.wait_idle(quiet=0.3)
        after = await saved_moves(store, g)
        assert len(after) > len(before) and after[:len(before)] == before  # nothing lost
        assert "账号 10001 已连上，恢复了 1 桌牌局" in two.log_text()
        end = await continue_table(sim, g, players, since=last_prompt(sim, g), timeout=30)
        assert end is not None and "本局结束" in end.text
        await sim.wait_idle(quiet=0.3)
        assert [n for _uid, n in (await records(store))[str(g)]] == [3]
    finally:
        for s in (sim, twin):
            await s.close()
        await one.stop()
        await two.stop()
        await store.close()
