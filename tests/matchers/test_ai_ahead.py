"""电脑难度 困难 (RULES.md G-6): a computer player's search runs inside its pause.

When a table is saved with a computer seat to move in the play phase at 困难, that
decision's search starts at once in the worker pool; when the pause runs out the move
uses it (waiting only for what is left of its budget). A search for any other state is
never used, an abandoned one frees its place in the pool, and after a restart the
computer still moves. Real worker processes (the pool's ``work`` is a stand-in search
from ``ai_pool_support``), deadlines on a stepped clock."""

from __future__ import annotations

import asyncio

import pytest
from ai_pool_support import (
    answer_pass,
    bid_three_bury_highest,
    lowest_single,
    slow_hidden,
    slow_pass,
)
from chat_support import GROUP, A, B, C, gmsg, pmsg, recording_bot
from clock_support import SteppedClock
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import accounts, ai_turn, tables
from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.games.choice import LeveledStrategy
from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY, Table, now_utc
from paizhuo_ai_worker import SearchPool
from paizhuo_engine.ai.decisions import choose_bid
from paizhuo_engine.ai.levels import NORMAL
from paizhuo_engine.ai.simple import Action
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

# 普通 follows 玩家101's 3 with ♠5 (seat 1); the stand-in search says 过.
HANDS = [cards("3 4 77 9"), [cards("♠A")[0], *cards("5 8 Q")], cards("66 10 K")]
OTHER = [cards("3 4 77 10"), cards("6 6 8 J"), cards("5 9 Q K")]
HARD = {"ai_level": "困难", "ai_budget_ms": 2000}


class RecordingPool(SearchPool):
    """The real pool, noting every search submitted as ``(seat, moves in the state)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[int, int]] = []

    def start(self, state: dict, seat: int, seed: int, budget_ms: int):
        self.asked.append((seat, len(state["log"])))
        return super().start(state, seat, seed, budget_ms)


@pytest.fixture
def install(monkeypatch):
    """Put a :class:`RecordingPool` in as the bot's search pool (shut down after)."""
    made: list[SearchPool] = []

    def make(work, limit: int = 2) -> RecordingPool:
        pool = RecordingPool(1, limit, work=work)
        made.append(pool)
        monkeypatch.setattr(ai_turn, "_POOL", pool)
        return pool

    yield make
    ai_turn.forget_all(REGISTRY.tables.values())
    for pool in made:
        pool.shutdown()


async def until(check, what: str, seconds: float = 60.0) -> None:
    """Wait (real time: a worker process answers) until ``check()``."""
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


def hard_table(hands: list[list[int]], leader: int, computers: tuple[int, ...] = (1,)) -> Table:
    """A 抓特务 table at 困难 of persons and computer players (the seats ``computers``)."""
    seats = [SeatView(f"ai:{i}", f"电脑{i}") if i in computers else SeatView(str(u), f"玩家{u}")
             for i, u in enumerate((A, B, C))]
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A), seats=seats,
                  settings=dict(HARD), created_at=now_utc(), started_at=now_utc(),
                  uid="ahead-test", engine=ZGame.from_hands(hands, rules=ZRules(), leader=leader),
                  status=PLAYING, account="10001", games=1)
    REGISTRY.add(table)
    return table


async def quiet_bot(monkeypatch):
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda table: bot)
    return bot, sent


async def pause_runs_out(clock: SteppedClock, table: Table) -> None:
    """Step the clock to the end of the computer players' pause and wait for their run."""
    task = table.timer
    await clock.advance((table.computer_at - tables.timer_now()).total_seconds())
    await task


async def test_the_search_starts_when_the_pause_begins(app: App, monkeypatch, clock, install) -> None:
    """The person's move is saved with 电脑1 to move: its search is submitted then, not
    when the pause runs out; the move uses that answer, without a second search."""
    pool = install(answer_pass)
    table = hard_table(HANDS, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert table.computer_at is not None and len(table.engine.log) == 1
    assert pool.asked == [(1, 1)]  # at the start of the pause
    await until(lambda: pool.busy() == 0, "the search answered")
    await clock.advance(0.9)
    assert len(table.engine.log) == 1  # still the pause
    await pause_runs_out(clock, table)
    assert table.engine.log[-1] == [1, []]  # the searched 过, not 普通's ♠5
    assert pool.asked == [(1, 1)] and pool.searched == 1
    assert any("电脑1 过" in text for text in sent.texts())


async def test_consecutive_computers_each_search_once(app: App, monkeypatch, clock, install) -> None:
    """Two computer players after the person move in one run after one pause (one post):
    the first one's search starts with the pause; once it answers, the state its move
    will leave is known and the second one's search starts too, still in the pause. Each
    decision is searched once and neither waits when the pause ends."""
    pool = install(answer_pass)
    table = hard_table(HANDS, leader=0, computers=(1, 2))
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert pool.asked == [(1, 1)]
    # 电脑1's answer (过) is in: 电脑2's decision is known, its search starts in the pause.
    await until(lambda: len(pool.asked) == 2 and pool.busy() == 0, "both searches answered")
    assert pool.asked == [(1, 1), (2, 2)] and len(table.engine.log) == 1
    await pause_runs_out(clock, table)
    assert table.engine.log[1:] == [[1, []], [2, []]]
    assert pool.asked == [(1, 1), (2, 2)] and pool.searched == 2
    assert ai_turn.searching(table) == []


async def test_a_search_for_another_state_is_never_used(app: App, install) -> None:
    """A search started for one state decides nothing else: the same seat and number of
    moves in other hands, another game of the table, another seat — each gets a fresh
    search (its answer names the hands it searched); with no place left in the pool the
    move is made at 普通."""
    pool = install(lowest_single)
    table = hard_table(HANDS, leader=1)
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0)]
    # Same seat, same number of moves, same game number: other hands.
    table.engine = ZGame.from_hands(OTHER, rules=ZRules(), leader=1)
    choice = await ai_turn.prepare(table, 1)
    assert choice.action == Action("play", (min(OTHER[1]),))
    assert pool.asked == [(1, 0), (1, 0)] and ai_turn.searching(table) == []
    # Another game of the same table.
    deadlines.schedule(table)
    assert pool.asked[-1] == (1, 0) and ai_turn.searching(table)
    table.games += 1
    choice = await ai_turn.prepare(table, 1)
    assert len(pool.asked) == 4 and choice.action == Action("play", (min(OTHER[1]),))
    # The state moved on: seat 1 played, seat 2 is asked (its timeout, at 困难).
    deadlines.schedule(table)
    assert len(pool.asked) == 5
    table.engine.play(1, [min(OTHER[1])])
    choice = await ai_turn.prepare(table, 2)
    assert pool.asked[-1] == (2, 1) and choice.action == Action("play", (min(OTHER[2]),))
    assert (choice.seat, choice.moves) == (2, 1)


async def test_a_stale_search_in_a_full_pool_leaves_the_move_to_normal(app: App, install) -> None:
    pool = install(slow_pass, limit=1)
    table = hard_table(HANDS, leader=1)
    table.settings = {**HARD, "ai_budget_ms": 50}
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0)]
    table.engine = ZGame.from_hands(OTHER, rules=ZRules(), leader=1)
    choice = await ai_turn.prepare(table, 1)
    assert choice.action is None  # the stale 过 is not used: 普通 decides
    assert LeveledStrategy(choice).choose(table.engine, 1) == NORMAL.choose(table.engine, 1)
    await until(lambda: pool.busy() == 0, "the pool is free again")


async def test_closing_the_table_mid_pause_frees_the_pool(app: App, monkeypatch, clock, install) -> None:
    """/结束 while 电脑1's search runs: it is dropped and the pool's count of running
    searches goes back to 0; nothing is moved."""
    pool = install(slow_pass)
    table = hard_table(HANDS, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert pool.asked == [(1, 1)] and pool.busy() == 1
    await bot.handle_event(gmsg(A, "/结束"))
    assert REGISTRY.get(str(GROUP)) is None and ai_turn.searching(table) == []
    await until(lambda: pool.busy() == 0, "the abandoned search freed its place")
    assert pool.searched == 0 and len(table.engine.log) == 1


async def test_a_finished_game_or_a_table_gone_elsewhere_frees_the_pool(app: App, install) -> None:
    """The game ends (the table waits for /继续) or the table's account is served by
    another process now: the search started for the pause is dropped."""
    pool = install(slow_pass)
    table = hard_table(HANDS, leader=1)
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0)] and ai_turn.searching(table)
    REGISTRY.remove(table)  # what accounts does when another process takes the account
    deadlines.schedule(table)
    assert ai_turn.searching(table) == []
    REGISTRY.add(table)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0), (1, 0)] and ai_turn.searching(table)
    table.status = FINISHED  # the game is over (what REGISTRY.record_finished saves)
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    assert ai_turn.searching(table) == []
    await until(lambda: pool.busy() == 0, "the abandoned searches freed their places")
    assert pool.searched == 0


async def test_a_restart_in_the_pause_searches_again(app: App, monkeypatch, clock, install) -> None:
    """The bot restarts while 电脑1 waits: the search of the old process is gone; the
    restored table's pause starts a fresh one, which the move then uses."""
    old = install(slow_pass)
    table = hard_table(HANDS, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert old.asked == [(1, 1)]
    # The restart: timers, searches and the pool of the old process are gone.
    deadlines.cancel_timers()
    ai_turn.forget_all(REGISTRY.tables.values())
    old.shutdown()
    REGISTRY.reset()
    pool = install(answer_pass)
    (restored,) = await REGISTRY.restore("10001")
    REGISTRY.resumed.clear()
    await deadlines.resume_timers()
    assert pool.asked == [(1, 1)] and len(restored.engine.log) == 1
    await until(lambda: pool.busy() == 0, "the search answered")
    await pause_runs_out(clock, restored)
    assert restored.engine.log[-1] == [1, []]
    assert pool.asked == [(1, 1)] and pool.searched == 1


async def test_decisions_before_play_are_searched_in_the_pause(app: App, monkeypatch, clock,
                                                             install) -> None:
    """W-2 / W-3 at 困难: a computer bidder's search starts when its pause begins; once it
    answers (叫 3: it will dig), its burial's search starts too, still in the pause. When
    the pause ends both answers are taken — no search is submitted again."""
    pool = install(bid_three_bury_highest)
    game = next(g for s in range(60) if (g := WGame.deal(WRules(), s)).bidder == 1
                and choose_bid(g.hands[1], g.bid_options(1), False) != 3)
    seats = [SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"), SeatView("ai:2", "电脑2")]
    table = Table(group_id=str(GROUP), game="挖坑", size=3, opener=str(A), seats=seats,
                  settings=dict(HARD), created_at=now_utc(), started_at=now_utc(),
                  uid="ahead-setup", engine=game, status=PLAYING, account="10001", games=1)
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    await quiet_bot(monkeypatch)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0)]  # the bid, at the start of the pause
    await until(lambda: len(pool.asked) >= 2 and pool.busy() == 0, "bid and burial searched")
    assert pool.asked[:2] == [(1, 0), (1, 0)] and game.bids[1] is None
    highest = sorted(game.hands[1])[-4:]
    await pause_runs_out(clock, table)
    assert table.engine.bids[1] == 3 and table.engine.buried == highest
    assert pool.asked[:2] == [(1, 0), (1, 0)] and pool.searched >= 2


async def test_removing_a_table_drops_everything_the_process_held_for_it(app: App, install) -> None:
    """One object per live table: its timer, its searches started ahead and its pictures
    still to draw are the table's own; removing it from the registry cancels the timer and
    the searches (their places in the pool freed) and forgets the pictures."""
    from nonebot_plugin_paizhuo.pictures import Pending, later

    pool = install(slow_pass)
    table = hard_table(HANDS, leader=1)
    table.rearm()
    await REGISTRY.save(table)
    deadlines.schedule(table)
    later(table, Pending(table.group_id, "桌面", lambda: None, ()))
    timer, searches = table.timer, ai_turn.searching(table)
    assert timer is not None and not timer.done() and len(searches) == 1
    assert pool.asked == [(1, 0)] and len(table.later) == 1
    REGISTRY.remove(table)
    await asyncio.sleep(0)
    assert timer.cancelled() and table.timer is None
    assert ai_turn.searching(table) == [] and table.later == []
    await until(lambda: pool.busy() == 0, "the pool is free again")


def declaring_table(spy_seat: int, person_leads: bool = False) -> Table:
    """A 抓特务 table at 困难 in its declare phase, dealt as the chat deals it (every seat
    answers, G-4): 玩家101 and two computer players, the spy card at ``spy_seat`` (and
    ♥3, the first lead, with 玩家101 when ``person_leads``)."""
    heart3 = cards("♥3")[0]
    game = next(g for g in (ZGame.deal(3, ZRules(), s, everyone_answers=True) for s in range(500))
                if g.phase == "declare" and g.spies() == [spy_seat]
                and (not person_leads or heart3 in g.hands[0]))
    seats = [SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"), SeatView("ai:2", "电脑2")]
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A), seats=seats,
                  settings=dict(HARD), created_at=now_utc(), started_at=now_utc(),
                  uid="declare-test", engine=game, status=PLAYING, account="10001", games=1)
    REGISTRY.add(table)
    return table


async def test_the_computers_answer_the_declare_question_after_a_pause_no_role_changes(
        app: App, clock) -> None:
    """G-4: at 困难 a computer spy searches its 明 / 暗 and a computer civilian does not;
    the computers' answers still come after the same pause whoever holds the spy card — a
    pause as long as the searches it may take (the 困难用时 for a decision before play)."""
    pauses = []
    for spy in (0, 1, 2):
        table = declaring_table(spy)
        table.rearm()
        pauses.append((table.computer_at - tables.timer_now()).total_seconds())
        REGISTRY.reset()
    budget = HARD["ai_budget_ms"] * 2 / 1000  # SETUP_BUDGET_FACTOR, one spy card
    assert pauses == [budget] * 3


async def test_the_computers_answers_never_wait_for_a_search(app: App, monkeypatch, clock,
                                                           install) -> None:
    """G-4: when the pause is over, a computer spy whose search has not answered takes
    普通's choice at once, so the phase ends when the person answers and the pause is over —
    never later because a computer searched."""
    pool = install(slow_hidden)
    table = declaring_table(1, person_leads=True)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    deadlines.schedule(table)
    assert pool.asked == [(1, 0)]  # 电脑1's 明 / 暗 is searched in the pause
    await bot.handle_event(pmsg(A, "暗"))  # the person (a civilian) answers at once
    assert table.engine.phase == "declare"
    started = asyncio.get_running_loop().time()
    await pause_runs_out(clock, table)
    assert asyncio.get_running_loop().time() - started < 0.5  # not the search's second
    assert table.engine.phase == "play" and table.engine.declared[1] is not None
    assert any("先出" in text for text in sent.texts())
