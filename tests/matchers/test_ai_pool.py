"""电脑难度 困难's search in worker processes (RULES.md G-6): real worker processes, a
killed worker, a hung search past its budget and a full pool each give no action (the
move is then made at 普通), and the pool recovers."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from ai_pool_support import hang, quick, raise_error, slow_quick

from nonebot_plugin_paizhuo.games.choice import Choice, LeveledStrategy
from paizhuo_ai_worker import SearchPool
from paizhuo_engine.ai.levels import NORMAL
from paizhuo_engine.ai.simple import Action
from paizhuo_engine.ai.strategy import decide
from paizhuo_engine.ai.view import view_of
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules

pytestmark = pytest.mark.once  # the search's worker processes: no event, no dispatch (.ci/run)


def _normal(g: SGame) -> tuple[list[int], object]:
    action = NORMAL.choose(g, g.turn)
    return list(action.cards), action.reading


def game() -> SGame:
    return SGame.deal(3, SRules(), 11)


@pytest.fixture
def pools():
    made: list[SearchPool] = []

    def make(*args, **kwargs) -> SearchPool:
        made.append(SearchPool(*args, **kwargs))
        return made[-1]

    yield make
    for pool in made:
        pool.shutdown()


async def wait_for_worker(pool: SearchPool) -> list[int]:
    """Start the pool and wait until its worker process exists."""
    pool.executor()
    for _ in range(200):
        pids = pool.worker_pids()
        if pids:
            return pids
        await asyncio.sleep(0.05)
    raise AssertionError("no worker started")


async def test_search_in_a_worker_returns_a_legal_action(pools) -> None:
    pool = pools(1, 2)
    g = game()
    for _ in range(12):  # later in the game: the real search is cheap enough here
        g.play_reading(g.turn, *_normal(g)) if NORMAL.choose(g, g.turn).kind == "play" \
            else g.pass_turn(g.turn)
    assert not g.over
    action = await pool.search(g.to_json(), g.turn, seed=1, budget_ms=20_000)
    assert action is not None and pool.searched == 1
    g.play_reading(g.turn, list(action.cards), action.reading)  # legal


async def test_a_killed_worker_gives_no_action_and_the_pool_recovers(pools) -> None:
    pool = pools(1, 2, work=hang)
    pids = await wait_for_worker(pool)
    g = game()
    search = asyncio.ensure_future(pool.search(g.to_json(), g.turn, 1, 20_000))
    await asyncio.sleep(0.2)
    os.kill(pids[0], signal.SIGKILL)
    assert await search is None
    assert pool.failed == 1
    pool.work = quick
    action = await pool.search(g.to_json(), g.turn, 1, 20_000)
    assert action is not None


async def test_a_search_that_raises_is_reported_and_keeps_the_workers(pools) -> None:
    """A bug in the search (it raises in the worker) gives no action — the move is made at
    普通 — and is reported (``on_error``, with the worker's traceback): it does not
    restart the pool, and a search running beside it in the same workers answers."""
    pool = pools(2, 2, work=slow_quick)
    errors: list[BaseException] = []
    pool.on_error = errors.append
    pids = await wait_for_worker(pool)
    g = game()
    beside = asyncio.ensure_future(pool.search(g.to_json(), g.turn, 1, 20_000))
    await asyncio.sleep(0.1)
    pool.work = raise_error
    assert await pool.search(g.to_json(), g.turn, 1, 20_000) is None
    assert pool.failed == 1
    assert len(errors) == 1 and isinstance(errors[0], ValueError)
    assert "a search bug" in str(errors[0]) and "raise_error" in str(errors[0].__cause__)
    assert await beside is not None  # not cancelled by a restart of the pool
    assert set(pids) <= set(pool.worker_pids())  # the same workers, none restarted


async def test_a_hung_search_times_out_and_a_full_pool_refuses_at_once(pools) -> None:
    pool = pools(1, 1, work=hang)
    await wait_for_worker(pool)
    g = game()
    assert await pool.search(g.to_json(), g.turn, 1, 300) is None
    assert pool.timed_out == 1
    # The hung search still holds the only slot: the next one is refused, not queued.
    assert pool.busy() == 1
    assert await pool.search(g.to_json(), g.turn, 1, 300) is None
    assert pool.refused == 1 and pool.timed_out == 1


async def test_a_search_hung_long_past_its_budget_frees_the_pool(pools) -> None:
    """A worker that never answers (a search stuck in a loop, a stopped process) holds
    its place only until ``hung_after`` seconds past its start: the next search then ends
    those workers, starts new ones and runs — 困难 does not stay at 普通 for good. The
    hang is reported (``on_error``)."""
    pool = pools(1, 1, work=hang)
    errors: list[BaseException] = []
    pool.on_error = errors.append
    pool.hung_after = 1.0
    pids = await wait_for_worker(pool)
    g = game()
    assert await pool.search(g.to_json(), g.turn, 1, 300) is None  # timed out, still running
    os.kill(pids[0], signal.SIGSTOP)  # and now a stopped process: SIGTERM would not end it
    assert await pool.search(g.to_json(), g.turn, 1, 300) is None  # refused: full
    assert pool.refused == 1 and errors == []
    await asyncio.sleep(1.0)
    pool.work = quick
    action = await pool.search(g.to_json(), g.turn, 1, 20_000)
    assert action is not None and pool.busy() == 0
    assert len(errors) == 1 and "hung" in str(errors[0])
    for _ in range(100):  # the stuck worker is ended, not left behind
        if not any(_alive(pid) for pid in pids):
            break
        await asyncio.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


async def test_shutdown_ends_even_a_stopped_worker(pools) -> None:
    """Bot shutdown ends the workers, a stopped one too (it would ignore SIGTERM and
    outlive the bot)."""
    pool = pools(1, 1, work=hang)
    pids = await wait_for_worker(pool)
    g = game()
    assert await pool.search(g.to_json(), g.turn, 1, 300) is None
    os.kill(pids[0], signal.SIGSTOP)
    pool.shutdown()
    for _ in range(100):
        if not _alive(pids[0]):
            break
        await asyncio.sleep(0.05)
    assert not _alive(pids[0])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not alive
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_leveled_strategy_falls_back_to_normal_without_a_search() -> None:
    g = game()
    seat = g.turn
    normal = NORMAL.choose(g, seat)
    assert LeveledStrategy(Choice("困难", seat, len(g.log), None)).choose(g, seat) == normal
    # A searched action is used only for the very state it was searched for.
    other = Action("pass")
    assert LeveledStrategy(Choice("困难", seat, len(g.log) + 1, other)).choose(g, seat) == normal
    simple = LeveledStrategy(Choice("简单")).choose(g, seat)
    assert simple.kind == "play"
    assert decide(view_of(g, seat)) == normal


MAIN_SCRIPT = '''
import os
import sys

with open(sys.argv[1], "a") as marks:
    marks.write(f"{__name__}\\n")  # what a bot.py does at import: nonebot.init(), plugins...
if __name__ == "__main__":
    from paizhuo_ai_worker import SearchPool, warm

    pool = SearchPool(1, 1)
    print(pool.executor().submit(warm).result(timeout=120), pool.worker_pids())
    pool.shutdown()
'''


def test_a_worker_does_not_run_the_bots_main_script_again(tmp_path) -> None:
    """A spawned worker does not re-run the script that started the bot (``bot.py``, or a
    host bot's: ``nonebot.init()`` and every plugin loaded again in the worker)."""
    import subprocess
    import sys

    script, marks = tmp_path / "mybot.py", tmp_path / "marks.txt"
    script.write_text(MAIN_SCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(marks)], capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 [")  # a worker ran warm()
    assert marks.read_text(encoding="utf-8").splitlines() == ["__main__"]


async def test_a_search_started_earlier_waits_only_for_what_is_left_of_its_budget(pools) -> None:
    """:meth:`SearchPool.start` submits at once; :meth:`SearchPool.result` later takes the
    answer when it is in, however late, and waits no longer than the rest of the budget
    (none once it is spent: 普通 decides at once) when it is not."""
    from ai_pool_support import answer_pass, slow_pass

    from paizhuo_engine.ai.simple import PASS

    pool = pools(1, 2, work=answer_pass)
    await wait_for_worker(pool)
    g = game()
    search = pool.start(g.to_json(), g.turn, 1, 300)
    assert search is not None and pool.submitted == 1 and pool.busy() == 1
    while not search.future.done():
        await asyncio.sleep(0.02)
    pool.clock = lambda: search.started + 10.0  # long after its budget: the answer still counts
    assert await pool.result(search) == PASS and pool.searched == 1
    pool.work = slow_pass
    pool.clock = lambda: 0.0
    search = pool.start(g.to_json(), g.turn, 1, 300)
    pool.clock = lambda: 0.3  # the budget (90% of 300 ms) is spent: no wait at all
    assert await pool.result(search) is None and pool.timed_out == 1
    for _ in range(300):  # the running search ends and frees its place
        if pool.busy() == 0:
            break
        await asyncio.sleep(0.02)
    assert pool.busy() == 0
