"""困难's worker processes (:mod:`nonebot_plugin_paizhuo.ai_turn` uses them): :class:`SearchPool`
and the function each worker runs. Kept outside the ``nonebot_plugin_paizhuo`` package: a spawned
worker imports only this and the engine, never the bot (whose import needs a running
NoneBot) — nor the script that started the bot (:func:`main_not_rerun`) — and the
benchmarks use the pool without a bot."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor, CancelledError, Future, ProcessPoolExecutor
from importlib.machinery import ModuleSpec
from typing import Any

from paizhuo_engine.ai.search import game_from_json, search_decide
from paizhuo_engine.ai.setup_search import Setup, search_setup, setup_phase
from paizhuo_engine.ai.simple import Action

SAMPLES_CAP = 64
"""困难 plays at most this many sampled deals per candidate, whatever the budget."""

SETUP_BUDGET_FACTOR = 2
"""A decision before play (叫分, 扣底, 明 / 暗) searches this many times the group's 困难用时:
it comes once or twice a game and sets the stakes of the whole game, and each of its
play-outs is a whole game (about twice a play's). With the defaults (300 ms, a 1 s pause)
it still ends inside the computer's pause, the burial's chained right after the bid's."""


def worker_search(state: dict, seat: int, seed: int, budget_ms: int) -> Action | Setup:
    """困难's decision on ``state`` until 70% of ``budget_ms`` is spent (the clock is read
    here, not in the engine): a decision before play (挖坑 bid or burial, 抓特务 明 / 暗)
    by :func:`paizhuo_engine.ai.setup_search.search_setup` when the seat owes one, else its
    play by :func:`paizhuo_engine.ai.search.search_decide`."""
    deadline = time.monotonic() + budget_ms * 0.7 / 1000

    def stop() -> bool:
        return time.monotonic() >= deadline

    try:
        if setup_phase(game_from_json(state), seat) is not None:
            return search_setup(state, seat, seed, SAMPLES_CAP, stop)
        return search_decide(state, seat, seed, SAMPLES_CAP, stop)
    except StopIteration as err:  # cannot cross into an asyncio future as it is
        raise RuntimeError("search failed") from err


@contextlib.contextmanager
def main_not_rerun() -> Iterator[None]:
    """While worker processes may be started (a pool's ``submit``): a spawned process
    runs the parent's main script again (as ``__mp_main__``) before it works, and a bot's
    main script is ``nonebot.init()`` plus every plugin of the bot — its own ``bot.py`` or
    a host bot's. The workers need nothing from it, so ``__main__`` is shown to
    :mod:`multiprocessing` as a module named ``__main__``, which a spawned child skips."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = main.__dict__.get("__spec__")
    main.__spec__ = ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = saved


def warm() -> int:
    """A no-op that makes a new worker import the engine before the first search."""
    return 0


def exit_with_parent() -> None:
    """Run in each worker as it starts (the pool's ``initializer``): a thread that waits
    for the parent process to end and then ends this worker at once, whatever it is doing
    (a search holds nothing worth saving). The parent's end is seen on the pipe
    :mod:`multiprocessing` keeps between them (:func:`multiprocessing.parent_process`'s
    sentinel: readable once the parent is gone, however it died, kill -9 included).

    Without it a killed bot left its workers running for good (parent pid 1, blocked on
    the task queue whose other end they hold themselves), and with them the resource
    tracker, which lives while any of them holds its pipe; a crash loop added about
    100 MiB a restart."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()  # waits on the sentinel: returns once the parent process is gone
        os._exit(0)

    threading.Thread(target=watch, name="paizhuo-exit-with-parent", daemon=True).start()


class Search:
    """A search submitted to a :class:`SearchPool` (:meth:`SearchPool.start`) whose answer
    is taken later (:meth:`SearchPool.result`): ``future`` (the worker's), ``budget_ms``
    and ``started`` (the pool's ``clock``, seconds)."""

    __slots__ = ("budget_ms", "executor", "future", "started")

    def __init__(self, future: Future, budget_ms: int, started: float, executor: Any) -> None:
        self.future = future
        self.budget_ms = budget_ms
        self.started = started
        self.executor = executor

    def cancel(self) -> None:
        """Abandon the search: one still queued never runs (its place in the pool is freed
        now); one already running runs on to its end (the worker stops at 70% of the
        budget) and frees its place then."""
        self.future.cancel()


class SearchPool:
    """Worker processes for 困难 (``workers`` processes, at most ``limit`` searches at
    once). Counts what happened: ``submitted`` (searches started), ``searched`` (answers
    taken), ``refused`` (pool full), ``timed_out``, ``failed`` (a worker died or the search
    raised). A worker that died breaks the pool: the next search starts new workers. A
    search that raised (a bug) leaves the workers as they are — the other searches go on —
    and is handed to ``on_error`` (the exception, the worker's traceback as its
    ``__cause__``), which the bot logs. A search still running ``hung_after`` seconds
    after its start (its worker should have stopped at 70% of the budget: it is stuck)
    holds its place until the pool is next found full; then the workers are ended and
    new ones started (``hung`` counts it, ``on_error`` gets a ``TimeoutError``)."""

    def __init__(self, workers: int = 1, limit: int = 2, work: Any = None) -> None:
        self.workers = max(1, workers)
        self.limit = max(1, limit)
        self.work = work or worker_search
        """The function run in a worker: ``(state, seat, seed, budget_ms) -> Action``."""
        self.clock = time.monotonic
        """Seconds on the scale a search's budget is measured on."""
        self.hung_after = 30.0
        """Seconds after its start by which a running search counts as stuck (a budget is
        at most a few seconds)."""
        self._executor: ProcessPoolExecutor | None = None
        self._running: dict[Future, float] = {}  # search → its start on ``clock``
        self._lock = threading.Lock()
        self.submitted = self.searched = self.refused = self.timed_out = self.failed = 0
        self.hung = 0
        self.on_error: Callable[[BaseException], None] | None = None
        """Called with the exception of a search that raised (in the event loop)."""

    def executor(self) -> ProcessPoolExecutor:
        """The worker pool, started on first use (spawned processes: no state of the bot
        process is copied into them; each ends as soon as the bot does,
        :func:`exit_with_parent`)."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=exit_with_parent)
            with main_not_rerun():
                self._executor.submit(warm)
        return self._executor

    def _release(self, future: Future) -> None:
        with self._lock:
            self._running.pop(future, None)

    def busy(self) -> int:
        """Searches submitted and not finished (a timed-out or abandoned search that is
        already running runs on to its end; one still queued is dropped at once)."""
        return len(self._running)

    def start(self, state: dict, seat: int, seed: int, budget_ms: int) -> Search | None:
        """Submit a search and return at once (its budget counts from now); ``None`` when
        the pool is full or broken. Its place in the pool is freed when it finishes or is
        cancelled (:meth:`Search.cancel`), whether or not its answer is ever taken."""
        now = self.clock()
        with self._lock:
            full = len(self._running) >= self.limit
            stuck = full and min(self._running.values()) <= now - self.hung_after
            if full and not stuck:
                self.refused += 1
                return None
        if stuck:
            self._end_stuck()
        try:
            with main_not_rerun():  # a submit may start (or restart) a worker
                executor = self.executor()
                future = executor.submit(self.work, state, seat, seed, budget_ms)
        except Exception:  # noqa: BLE001 - a broken or shut-down pool
            self.failed += 1
            self._reset()
            return None
        with self._lock:
            if not future.done():
                self._running[future] = now
        self.submitted += 1
        future.add_done_callback(self._release)
        return Search(future, budget_ms, now, executor)

    def _end_stuck(self) -> None:
        """The pool is full and a search has run ``hung_after`` seconds: end the workers
        (their searches fail as a killed worker's do) and forget their places."""
        self.hung += 1
        self.shutdown()
        with self._lock:
            self._running.clear()
        if self.on_error is not None:
            with contextlib.suppress(Exception):
                self.on_error(TimeoutError(
                    f"a search hung for over {self.hung_after:g} s; its workers were restarted"))

    async def result(self, search: Search) -> Action | Setup | None:
        """The answer of a search :meth:`start` submitted, waiting at most what is left of
        90% of its budget (none when it is spent); ``None`` when it ran out, was cancelled
        or the worker failed."""
        future = search.future
        # 90%: the rest of the budget is for the fallback to 普通 and the move itself.
        left = search.budget_ms * 0.9 / 1000 - (self.clock() - search.started)
        try:
            if future.cancelled():
                return None
            if not future.done():
                if left <= 0:
                    raise TimeoutError
                await asyncio.wait_for(asyncio.wrap_future(future), left)
            action = future.result(timeout=0)
        except TimeoutError:
            future.cancel()
            self.timed_out += 1
            return None
        except CancelledError:  # the search was abandoned
            return None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller was cancelled
            return None  # the search was (the pool shut down)
        except BrokenExecutor:  # a killed worker: the pool is broken
            self.failed += 1
            if search.executor is self._executor:
                self._reset()
            return None
        except Exception as err:  # noqa: BLE001 - the search raised: a bug, the workers are fine
            self.failed += 1
            if self.on_error is not None:
                with contextlib.suppress(Exception):
                    self.on_error(err)
            return None
        self.searched += 1
        return action

    async def search(self, state: dict, seat: int, seed: int,
                     budget_ms: int) -> Action | Setup | None:
        """困难's decision (an action, or a decision before play: :func:`worker_search`),
        or ``None`` when the pool is full, the budget ran out, or the
        worker failed. Waits at most ``budget_ms`` (plus scheduling)."""
        search = self.start(state, seat, seed, budget_ms)
        if search is None:
            return None
        return await self.result(search)

    def _reset(self) -> None:
        """Drop a broken pool; the next search starts a new one."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers."""
        processes = getattr(self._executor, "_processes", None) or {}
        return [p.pid for p in processes.values() if p.pid is not None]

    def shutdown(self) -> None:
        """End the workers now (bot shutdown, stuck workers): a search still running is
        abandoned. SIGKILL: a worker holds nothing to save, and a stuck or stopped
        process would ignore SIGTERM and outlive the bot."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
