"""The group's 电脑难度 (RULES.md G-6) for computer seats, 托管 and timeouts, and 困难's
search off the event loop.

* 简单 plays the game's simple rule, 普通 the planner (both in the event loop: well under
  a millisecond at the median, :mod:`bench.ai_bench`).
* 困难 runs :func:`engine.ai.search.search_decide` in a worker process
  (:class:`SearchPool`, a ``ProcessPoolExecutor``) with the group's 困难用时 as its budget:
  the worker stops sampling when the budget is near, the event loop waits at most the
  budget, and a full pool (``AI_SEARCHES`` searches running), a timeout, a killed worker
  or any error gives ``None`` — the move is then made at 普通, never late.

The chat layer calls :func:`prepare` (async, under the table lock) just before the
adapter's synchronous ``computer_turn`` / ``auto_move``; it leaves the level and the
search's choice in a context variable that :class:`LeveledStrategy` (every climbing
adapter's strategy) reads. Nothing here changes a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import threading
import zlib
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from engine.ai.levels import NORMAL, simple_strategy
from engine.strategy import Action
from plugins.ai_worker import warm, worker_search

DEFAULT_BUDGET_MS = 300


@dataclass(frozen=True, slots=True)
class Choice:
    """The level for one decision and, for 困难, the searched action for ``seat`` at the
    game state of ``moves`` log entries (``None``: decide at 普通)."""

    level: str
    seat: int = -1
    moves: int = -1
    action: Action | None = None


CHOICE: ContextVar[Choice | None] = ContextVar("paizhuo_ai_choice", default=None)


class LeveledStrategy:
    """The strategy of computer seats, 托管 and timeouts: the level :func:`deciding` set
    for this task (普通 when none), 困难's searched action when it is for this very
    state."""

    def choose(self, game: Any, seat: int) -> Action:
        """``Strategy.choose``; legal for a game in its play phase."""
        choice = CHOICE.get()
        if choice is None:
            return NORMAL.choose(game, seat)
        if choice.level == "简单":
            return simple_strategy(game).choose(game, seat)
        if (choice.action is not None and choice.seat == seat
                and choice.moves == len(game.log)):
            return choice.action
        return NORMAL.choose(game, seat)


class SearchPool:
    """Worker processes for 困难 (``workers`` processes, at most ``limit`` searches at
    once). Counts what happened: ``searched``, ``refused`` (pool full), ``timed_out``,
    ``failed`` (a worker died or raised)."""

    def __init__(self, workers: int = 1, limit: int = 2, work: Any = None) -> None:
        self.workers = max(1, workers)
        self.limit = max(1, limit)
        self.work = work or worker_search
        """The function run in a worker: ``(state, seat, seed, budget_ms) -> Action``."""
        self._executor: ProcessPoolExecutor | None = None
        self._busy = 0
        self._lock = threading.Lock()
        self.searched = self.refused = self.timed_out = self.failed = 0

    def executor(self) -> ProcessPoolExecutor:
        """The worker pool, started on first use (spawned processes: no state of the bot
        process is copied into them)."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"))
            self._executor.submit(warm)
        return self._executor

    def _release(self, _future: Future) -> None:
        with self._lock:
            self._busy -= 1

    def busy(self) -> int:
        """Searches submitted and not finished (a timed-out search runs on to its end)."""
        return self._busy

    async def search(self, state: dict, seat: int, seed: int, budget_ms: int) -> Action | None:
        """困难's action, or ``None`` when the pool is full, the budget ran out, or the
        worker failed. Waits at most ``budget_ms`` (plus scheduling)."""
        with self._lock:
            if self._busy >= self.limit:
                self.refused += 1
                return None
            self._busy += 1
        try:
            future = self.executor().submit(self.work, state, seat, seed, budget_ms)
        except Exception:  # noqa: BLE001 - a broken or shut-down pool
            with self._lock:
                self._busy -= 1
            self.failed += 1
            self._reset()
            return None
        future.add_done_callback(self._release)
        try:
            action = await asyncio.wait_for(asyncio.wrap_future(future), budget_ms / 1000)
        except TimeoutError:
            future.cancel()
            self.timed_out += 1
            return None
        except Exception:  # noqa: BLE001 - BrokenProcessPool (a killed worker) and the like
            self.failed += 1
            self._reset()
            return None
        self.searched += 1
        return action

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
        """Stop the workers now (bot shutdown): a search still running is abandoned."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()


_POOL: SearchPool | None = None


def pool() -> SearchPool:
    """The bot's search pool, sized by ``AI_WORKERS`` / ``AI_SEARCHES`` (defaults 1 / 2)."""
    global _POOL
    if _POOL is None:
        workers, limit = 1, 2
        with contextlib.suppress(Exception):  # outside a running bot: the defaults
            import nonebot

            from plugins.paizhuo.config import Config

            config = nonebot.get_plugin_config(Config)
            workers, limit = config.ai_workers, config.ai_searches
        _POOL = SearchPool(workers, limit)
        with contextlib.suppress(Exception):
            import nonebot

            nonebot.get_driver().on_shutdown(_shutdown)
    return _POOL


async def _shutdown() -> None:
    if _POOL is not None:
        _POOL.shutdown()


def search_seed(group_id: str, games: int, moves: int, seat: int) -> int:
    """困难's seed for one decision: from the table and the move, not from the deal."""
    return zlib.crc32(f"{group_id}:{games}:{moves}:{seat}".encode())


async def prepare(table: Any, seat: int) -> Choice:
    """The :class:`Choice` for ``seat``'s next decision at ``table`` (its 电脑难度; for
    困难 in a play phase, the search's action, or ``None`` when it could not finish)."""
    try:
        level = str(table.setting("ai_level"))
    except Exception:  # noqa: BLE001 - a game without the setting
        level = "普通"
    game = table.engine
    if level != "困难" or getattr(game, "phase", None) != "play" or getattr(game, "over", True) \
            or getattr(game, "turn", None) != seat:
        return Choice(level)
    budget = int(table.setting("ai_budget_ms") or DEFAULT_BUDGET_MS)
    seed = search_seed(str(table.group_id), int(getattr(table, "games", 0)), len(game.log), seat)
    action = await pool().search(game.to_json(), seat, seed, budget)
    return Choice(level, seat, len(game.log), action)


@contextlib.contextmanager
def deciding(choice: Choice) -> Iterator[None]:
    """Within the block, :class:`LeveledStrategy` decides with ``choice``."""
    token = CHOICE.set(choice)
    try:
        yield
    finally:
        CHOICE.reset(token)
