"""End to end on a real PostgreSQL: a bot process loses its account's lock under it, and
the account's OneBot side is connected to both processes throughout (NapCat with a reverse
WebSocket client for each: it connects again to whichever process it is not connected to,
every 0.2 s, and sends every event to each connection).

The lock goes three ways: its session is ended (``pg_terminate_backend``) while the
process runs; while the process is paused (SIGSTOP: a VM stall, a long GC), so that the
other process takes the account before it can notice; and with the whole server
restarted. Whatever happens, the group sees each post once (one process serves the
account at a time: the posts come from one process, then from the other), every player
gets one hand per deal, every move announced is in the database, and a move after the
restart is not refused (a pooled connection the restart ended is replaced unseen).

The account is the port's (its QQ number whichever side it connects over): on Milky and
Satori, which the bot dials, a lock session ended under the running process is noticed,
said once and taken back the same way (:func:`test_a_lock_lost_on_a_side_the_bot_dials`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from pathlib import Path

import pytest
from pg_support import fresh_pg_url, own_server
from sides_support import TOKEN as SIDE_TOKEN
from sides_support import bot_for, make_sim
from sqlalchemy import pool, text
from sqlalchemy.ext.asyncio import create_async_engine

from paizhuo_db.holds import account_lock_key
from paizhuo_db.store import Store
from tools.onebot_sim import BotProcess, ConnectionRejected, OneBotSim, Sent
from tools.players import SimPlayer, continue_table, play_table

TOKEN = "pg-loss"
GROUP = 53001
MOVE = re.compile(r"^(甲|乙|丙) (出 |过)", re.M)
"""A move announced in a group post (a play or a pass, the player's name first)."""


def world(account: int) -> tuple[OneBotSim, list[SimPlayer]]:
    """The account (each test its own: an advisory lock is the whole server's, and tests
    run side by side on one server) and its three players."""
    sim = OneBotSim(self_id=account)
    players = [SimPlayer(2301 + i, n) for i, n in enumerate("甲乙丙")]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    return sim, players


async def keep_connected(sim: OneBotSim, urls: list[str]) -> None:
    """The account's OneBot side: every 0.2 s, connect to each bot it is not connected to
    (a bot that refuses the account is tried again next time)."""
    while True:
        for url in urls:
            if sim.connected_to(url):
                continue
            with contextlib.suppress(ConnectionRejected, OSError):
                if sim.connected:
                    await sim.connect_also(url, TOKEN)
                else:
                    await sim.connect(url, TOKEN, retry_for=0)
        await asyncio.sleep(0.2)


async def until(check, seconds: float = 20.0, what: str = "") -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or check}")


async def end_lock_session(url: str, account: str) -> None:
    """``pg_terminate_backend`` of the session holding the account's lock, as an operator
    would (waits until that session is gone)."""
    unsigned = account_lock_key(account) & 0xFFFF_FFFF_FFFF_FFFF
    engine = create_async_engine(url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            pid = await conn.scalar(text(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid = :high AND objid = :low AND objsubid = 1"),
                {"high": unsigned >> 32, "low": unsigned & 0xFFFF_FFFF})
            assert pid is not None, "nobody holds the account's lock"
            assert await conn.scalar(text("SELECT pg_terminate_backend(:pid, 5000)"),
                                     {"pid": pid})
    finally:
        await engine.dispose()


def last_prompt(sim) -> int:
    """Index in ``sim.sent`` of the last turn prompt (轮到 @) posted in the group."""
    return max(i for i, s in enumerate(sim.sent)
               if s.kind == "group" and s.target == GROUP and "轮到 @" in s.text)


def group_posts(sim, since: int = 0) -> list[Sent]:
    return [s for s in sim.sent[since:] if s.kind == "group" and s.target == GROUP and s.ok]


def check_each_post_once(sim: OneBotSim) -> None:
    """One process served the account at a time: everything the account sent (group
    posts, hands, answers) came from one process, then — at most once — from the other,
    never from both by turns; and no group post follows an identical one."""
    senders = [s.via for s in sim.sent]
    changes = [i for i, (a, b) in enumerate(zip(senders, senders[1:], strict=False)) if a != b]
    assert len(changes) <= 1, [(s.via[-8:], s.kind, s.text[:30]) for s in sim.sent]
    posts = group_posts(sim)
    repeats = [b.text for a, b in zip(posts, posts[1:], strict=False) if a.text == b.text]
    assert not repeats, repeats


def check_one_hand_per_deal(sim: OneBotSim, players: list[SimPlayer], deals: int) -> None:
    """``deals`` deals were asked for and each was dealt once (one group post with 开局
    each: two processes would each have dealt, and sent every player a hand of their
    own), and every player got a hand in each."""
    starts = [i for i, s in enumerate(sim.sent)
              if s.kind == "group" and s.target == GROUP and "开局" in s.text and s.ok]
    assert len(starts) == deals, [sim.sent[i].text[:40] for i in starts]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(sim.sent)
        for p in players:
            assert any(s.kind == "private" and s.target == p.user_id and "你的手牌" in s.text
                       for s in sim.sent[start:end]), f"{p.name} got no hand in deal {n + 1}"


async def check_moves_saved(sim, store: Store) -> None:
    """Every move announced since the last deal is in the saved game, and nothing else."""
    deal = max(i for i, s in enumerate(sim.sent)
               if s.kind == "group" and s.target == GROUP and "开局" in s.text)
    announced = sum(len(MOVE.findall(s.text)) for s in group_posts(sim, deal))
    saved = (await store.load_live())[str(GROUP)][1]["engine"]["log"]
    assert announced == len(saved), (announced, len(saved))


async def next_deal_and_moves(sim, players: list[SimPlayer], moves: int) -> None:
    """Everyone sends /继续; the next game is dealt and ``moves`` moves are played."""
    await sim.wait_idle(quiet=0.3, timeout=30)
    since = sim.mark()
    for p in players:
        await sim.group_message(GROUP, p.user_id, "/继续")
    await sim.wait_for_text("开局", kind="group", target=GROUP, since=since, timeout=30)
    assert await continue_table(sim, GROUP, players, since=since, timeout=30,
                                stop_after=moves) is None
    await sim.wait_idle(quiet=0.5, timeout=30)


async def test_a_process_paused_past_its_lock_changes_and_says_nothing_after(
        tmp_path: Path) -> None:
    """Process one is paused (SIGSTOP) mid-game; its lock's session is ended; process two
    takes the account and plays on while one's events queue up. When one wakes it finds
    the account held elsewhere — its queued moves are refused by the database (their
    token is old) and it says nothing — and gives the connection up; the game goes on
    with two alone."""
    url = await fresh_pg_url()
    one = BotProcess(tmp_path / "one.log", access_token=TOKEN, database_url=url)
    two = BotProcess(tmp_path / "two.log", access_token=TOKEN, database_url=url)
    sim, players = world(10031)
    store = Store(url)
    keeper: asyncio.Task[None] | None = None
    try:
        await asyncio.gather(one.start(), two.start())
        await sim.connect(one.url, TOKEN)
        keeper = asyncio.create_task(keep_connected(sim, [one.url, two.url]))
        assert await play_table(sim, GROUP, players, "抓特务 三人", timeout=30,
                                stop_after=3) is None
        await sim.wait_idle(quiet=0.3)
        assert one.pid is not None
        since = sim.mark()
        os.kill(one.pid, signal.SIGSTOP)
        try:
            await end_lock_session(url, "10031")
            await until(lambda: sim.connected_to(two.url), what="process two takes the account")
            await sim.wait_for_text("牌局继续", kind="group", target=GROUP, since=since,
                                    timeout=20)
            assert await continue_table(sim, GROUP, players, since=last_prompt(sim),
                                        timeout=30, stop_after=3) is None
            await sim.wait_idle(quiet=0.3)
            woke = sim.mark()
        finally:
            os.kill(one.pid, signal.SIGCONT)
        await sim.wait_idle(quiet=1.0, timeout=30)  # one wakes up to its queued events
        end = await continue_table(sim, GROUP, players, since=last_prompt(sim), timeout=60)
        assert end is not None and "本局结束" in end.text
        await next_deal_and_moves(sim, players, 3)
        assert not [s for s in sim.sent[woke:] if s.via == one.url], "one spoke after it woke"
        check_each_post_once(sim)
        check_one_hand_per_deal(sim, players, 2)
        await check_moves_saved(sim, store)
        log = one.log_text()
        assert log.count("在数据库的持有已失去") == 1 and "另一个进程服务" in log
    finally:
        if keeper is not None:
            keeper.cancel()
        await sim.close()
        await one.stop()
        await two.stop()
        await store.close()


async def test_a_lock_session_ended_under_a_running_process(tmp_path: Path) -> None:
    """The lock's session is ended while process one runs: it notices at once, says so
    once and takes the account again (or, if process two was quicker, gives it up): the
    game goes on, one post for each move, one hand each, nothing announced and lost."""
    url = await fresh_pg_url()
    one = BotProcess(tmp_path / "one.log", access_token=TOKEN, database_url=url)
    two = BotProcess(tmp_path / "two.log", access_token=TOKEN, database_url=url)
    sim, players = world(10032)
    store = Store(url)
    keeper: asyncio.Task[None] | None = None
    try:
        await asyncio.gather(one.start(), two.start())
        await sim.connect(one.url, TOKEN)
        keeper = asyncio.create_task(keep_connected(sim, [one.url, two.url]))
        assert await play_table(sim, GROUP, players, "抓特务 三人", timeout=30,
                                stop_after=3) is None
        await sim.wait_idle(quiet=0.3)
        await end_lock_session(url, "10032")
        end = await continue_table(sim, GROUP, players, since=last_prompt(sim), timeout=60)
        assert end is not None and "本局结束" in end.text
        await next_deal_and_moves(sim, players, 3)
        check_each_post_once(sim)
        check_one_hand_per_deal(sim, players, 2)
        await check_moves_saved(sim, store)
        assert one.log_text().count("在数据库的持有已失去") == 1
    finally:
        if keeper is not None:
            keeper.cancel()
        await sim.close()
        await one.stop()
        await two.stop()
        await store.close()


async def test_a_restarted_server_costs_no_move_and_serves_the_account_once(
        tmp_path: Path) -> None:
    """PostgreSQL restarts mid-game (every session ended, the lock's too): whichever
    process takes the account afterwards, the next move is accepted at once (not
    “没有生效”), each move is posted once and saved, and the next deal is one."""
    async with own_server() as server:
        url = server.url
        one = BotProcess(tmp_path / "one.log", access_token=TOKEN, database_url=url)
        two = BotProcess(tmp_path / "two.log", access_token=TOKEN, database_url=url)
        sim, players = world(10033)
        store = Store(url)
        keeper: asyncio.Task[None] | None = None
        try:
            await asyncio.gather(one.start(), two.start())
            await sim.connect(one.url, TOKEN)
            keeper = asyncio.create_task(keep_connected(sim, [one.url, two.url]))
            assert await play_table(sim, GROUP, players, "抓特务 三人", timeout=30,
                                    stop_after=3) is None
            await sim.wait_idle(quiet=0.3)
            await server.restart()
            restarted = sim.mark()
            end = await continue_table(sim, GROUP, players, since=last_prompt(sim), timeout=60)
            assert end is not None and "本局结束" in end.text
            assert not [s for s in sim.sent[restarted:] if "没有生效" in s.text]
            await next_deal_and_moves(sim, players, 3)
            check_each_post_once(sim)
            check_one_hand_per_deal(sim, players, 2)
            await check_moves_saved(sim, store)
            for bot in (one, two):
                assert "Traceback" not in bot.log_text()
        finally:
            if keeper is not None:
                keeper.cancel()
            await sim.close()
            await one.stop()
            await two.stop()
            await store.close()


@pytest.mark.parametrize("side", ["milky", "satori"])
async def test_a_lock_lost_on_a_side_the_bot_dials(tmp_path: Path, side: str) -> None:
    """Milky or Satori (the bot dials the side; its account is the QQ number, not the
    connection's id): the lock's session is ended mid-game; the process says so once,
    takes the account again with a new token and plays on — every move posted once and
    saved, the next deal dealt once."""
    url = await fresh_pg_url()
    account = {"milky": 10034, "satori": 10035}[side]
    sim = make_sim(side, self_id=account)
    players = [SimPlayer(2301 + i, n) for i, n in enumerate("甲乙丙")]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    bot = bot_for(sim, tmp_path, database_url=url)
    store = Store(url)
    try:
        await bot.start()
        await sim.connect(bot.url, SIDE_TOKEN)
        assert await play_table(sim, GROUP, players, "抓特务 三人", timeout=30,
                                stop_after=3) is None
        await sim.wait_idle(quiet=0.3)
        await end_lock_session(url, str(account))
        await until(lambda: "已重新取得" in bot.log_text(), what="the account taken again")
        end = await continue_table(sim, GROUP, players, since=last_prompt(sim), timeout=60)
        assert end is not None and "本局结束" in end.text
        await next_deal_and_moves(sim, players, 3)
        posts = group_posts(sim)
        assert not [b.text for a, b in zip(posts, posts[1:], strict=False) if a.text == b.text]
        starts = [s for s in posts if "开局" in s.text]
        assert len(starts) == 2, [s.text[:40] for s in starts]
        await check_moves_saved(sim, store)
        log = bot.log_text()
        assert log.count("在数据库的持有已失去") == 1, log[-3000:]
        assert f"账号 {account} 已重新取得" in log
    finally:
        await sim.stop()
        await bot.stop()
        await store.close()
