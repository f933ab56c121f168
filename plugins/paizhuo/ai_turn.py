"""The group's 电脑难度 (RULES.md G-6) for computer seats, 托管 and timeouts, and 困难's
search off the event loop.

* 简单 plays the game's simple rule, 普通 the planner (both in the event loop: well under
  a millisecond at the median, :mod:`bench.ai_bench`).
* 困难 runs :func:`paizhuo_engine.ai.search.search_decide` — and, for a computer seat's
  decision before play (挖坑 叫分 / 扣底, 抓特务 明 / 暗),
  :func:`paizhuo_engine.ai.setup_search.search_setup` — in a worker process
  (:class:`SearchPool`, a ``ProcessPoolExecutor``) with the group's 困难用时 as its budget:
  the worker stops sampling when the budget is near, the event loop waits at most the
  budget, and a full pool (``PAIZHUO_AI_SEARCHES`` searches running), a timeout, a killed worker
  or any error gives ``None`` — the move is then made at 普通, never late.

The chat layer calls :func:`prepare` (async, under the table lock) just before the
adapter's synchronous ``computer_turn`` / ``auto_move``; it leaves the level and the
search's choice in a context variable that :class:`LeveledStrategy` (every climbing
adapter's strategy) reads. Nothing here changes a game.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from paizhuo_ai_worker import SearchPool
from paizhuo_engine.ai.levels import NORMAL, simple_strategy
from paizhuo_engine.ai.setup_search import Setup, setup_phase
from paizhuo_engine.ai.simple import Action

DEFAULT_BUDGET_MS = 300


@dataclass(frozen=True, slots=True)
class Choice:
    """The level for one decision and, for 困难, the searched action for ``seat`` at the
    game state of ``moves`` log entries (``None``: decide at 普通) — or, before play, the
    searched ``setup`` decision (挖坑 bid / burial, 抓特务 明 / 暗) of the ``phase`` it was
    searched in."""

    level: str
    seat: int = -1
    moves: int = -1
    action: Action | None = None
    phase: str | None = None
    setup: Setup | None = None


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


_POOL: SearchPool | None = None


def pool() -> SearchPool:
    """The bot's search pool, sized by ``PAIZHUO_AI_WORKERS`` / ``PAIZHUO_AI_SEARCHES`` (defaults 1 / 2)."""
    global _POOL
    if _POOL is None:
        workers, limit = 1, 2
        with contextlib.suppress(Exception):  # outside a running bot: the defaults
            from .config import plugin_config

            config = plugin_config()
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
    if level != "困难" or getattr(game, "over", True):
        return Choice(level)
    phase = setup_phase(game, seat)
    from .games.base import is_computer  # the games import this module

    if phase is not None and not is_computer(table.seats[seat].user_id):
        return Choice(level)  # a person's bid or answer that timed out: the timeout rule
    if phase is None and (getattr(game, "phase", None) != "play"
                          or getattr(game, "turn", None) != seat):
        return Choice(level)
    budget = int(table.setting("ai_budget_ms") or DEFAULT_BUDGET_MS)
    seed = search_seed(str(table.group_id), int(getattr(table, "games", 0)), len(game.log), seat)
    if phase is not None:
        seed = zlib.crc32(f"{seed}:{phase}".encode())
    found = await pool().search(game.to_json(), seat, seed, budget)
    if phase is not None:
        return Choice(level, seat, len(game.log), phase=phase,
                      setup=None if isinstance(found, Action) else found)
    return Choice(level, seat, len(game.log), found if isinstance(found, Action) else None)


def searched_setup(game: Any, seat: int, normal: Setup) -> Setup:
    """The decision before play (挖坑 叫分 / 扣底, 抓特务 明 / 暗) a computer seat takes:
    困难's searched one when :func:`deciding` holds it for this seat and phase, else
    ``normal`` (普通's rule of thumb, :mod:`paizhuo_engine.ai.decisions`)."""
    choice = CHOICE.get()
    phase = setup_phase(game, seat)
    if (choice is None or choice.setup is None or choice.seat != seat
            or choice.phase != phase or choice.moves != len(game.log)):
        return normal
    value = choice.setup
    fits = (value in game.bid_options(seat) if phase == "bid"
            else isinstance(value, tuple) and len(set(value)) == 4
            and set(value) <= set(game.hands[seat]) if phase == "bury"
            else value in game.declare_choices())
    return value if fits else normal


@contextlib.contextmanager
def deciding(choice: Choice) -> Iterator[None]:
    """Within the block, :class:`LeveledStrategy` decides with ``choice``."""
    token = CHOICE.set(choice)
    try:
        yield
    finally:
        CHOICE.reset(token)
