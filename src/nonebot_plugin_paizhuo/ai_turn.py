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

When does 困难 search? Inside the computer player's pause (``PAIZHUO_COMPUTER_DELAY``), not
after it: every saved change of a table ends in ``actions.deadlines.schedule``, which
calls :func:`ahead`; when the table now waits for a computer seat at
困难 (``computer_at`` armed), that decision's search is submitted at once
(:meth:`SearchPool.start`, same seed :func:`search_seed`, same budget) and remembered for
the table, keyed by exactly the state it searched (group, game uid and number, seat, moves
made, budget, and the whole state). When the pause ends, :func:`prepare` takes it for
that very state and waits only for what is left of its budget (with the default 1 s
pause and 300 ms budget: nothing); for any other state it is dropped and, as after a
restart, when another process serves the table now, or when the pool was full at the
pause's start, a search starts then. A table closed, a game over or a state moved on
drops its search (:func:`forget`: cancelled when still queued; a running one ends at its
budget and frees its place in the pool then). Consecutive computer seats move in one
run after one pause (the run is one post): when the first one's search answers, the
state its move will leave is made on a copy (the adapter's own ``computer_turn`` with
that answer) and, when a computer seat moves next at 困难, its search starts then, still
in the pause (:func:`_next`); and so on down the run. Each decision gets its full budget,
and with searches that fit the pause none of them delays the run's post. Decisions
before play (叫分, 扣底, 明 / 暗) are searched the same way: a computer bidder's search
starts with its pause, and when it will dig, its burial's right after, in the pause.

The chat layer calls :func:`prepare` (async, under the table lock) just before the
adapter's synchronous ``computer_turn`` / ``auto_move`` and passes the
:class:`~.games.choice.Choice` it returns (the level and the search's answer) to it as an
argument. The searches started ahead are the table's own (``Table.ahead``): removing a
table drops them. Nothing here changes a game, and nothing the group is told depends on
a search other than the move it chose.
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from dataclasses import dataclass
from typing import Any

from paizhuo_ai_worker import SETUP_BUDGET_FACTOR, Search, SearchPool
from paizhuo_engine.ai.setup_search import setup_phase
from paizhuo_engine.ai.simple import Action

from .games.base import is_computer
from .games.choice import Choice

__all__ = ["Choice", "ahead", "decision_budget", "forget", "forget_all", "pool", "prepare",
           "search_seed", "searching"]

DEFAULT_BUDGET_MS = 300


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
        _POOL.on_error = _log_search_error
        with contextlib.suppress(Exception):
            import nonebot

            nonebot.get_driver().on_shutdown(_shutdown)
    return _POOL


async def _shutdown() -> None:
    from .tables import REGISTRY

    forget_all(REGISTRY.tables.values())
    if _POOL is not None:
        _POOL.shutdown()


def search_seed(group_id: str, games: int, moves: int, seat: int) -> int:
    """困难's seed for one decision: from the table and the move, not from the deal."""
    return zlib.crc32(f"{group_id}:{games}:{moves}:{seat}".encode())


@dataclass(slots=True)
class _Ahead:
    """A search started ahead (:func:`ahead`) for ``table`` at exactly ``key`` and
    ``state``."""

    table: Any
    key: tuple
    state: dict
    search: Search


def _decision(table: Any, game: Any, paused: bool) -> tuple[tuple, dict, int, int] | None:
    """``(key, state, seed, budget_ms)`` of the 困难 search for the computer seat ``game``
    (the table's, or the state a move will leave) waits for — its play, or its decision
    before play (the first computer seat owing one); ``None`` when there is none.
    ``paused``: only while the table's computer pause is armed."""
    if (paused and getattr(table, "computer_at", None) is None) or not table.playing \
            or getattr(game, "over", True):
        return None
    if getattr(game, "phase", None) == "play":
        seat = game.turn
    else:  # a decision before play (挖坑 叫分 / 扣底, 抓特务 明 / 暗): the first computer's
        seat = next((s for s in range(game.players) if setup_phase(game, s) is not None
                     and is_computer(table.seats[s].user_id)), None)
        if seat is None:
            return None
    if not is_computer(table.seats[seat].user_id) or str(table.setting("ai_level")) != "困难":
        return None
    budget = decision_budget(table, game, seat)
    return _key(table, game, seat, budget), game.to_json(), _seed(table, game, seat), budget


def secret_pause(table: Any) -> float:
    """Seconds the computer seats of ``table`` wait before they answer in a secret phase
    (抓特务 明 / 暗, G-4): at 困难, long enough for every computer seat's searched answer
    to be ready (its budget for a decision before play, once per computer seat that might
    hold a spy card — the searches run one after another — from the public counts of
    computer seats and spy cards alone), so that when they answer tells nothing of which
    of them searched (only a spy does); 0 at the other levels."""
    from .games.base import is_computer  # not at import: the adapters import this module

    if str(table.setting("ai_level")) != "困难":
        return 0.0
    budget = int(table.setting("ai_budget_ms") or DEFAULT_BUDGET_MS) * SETUP_BUDGET_FACTOR
    computers = sum(1 for s in table.seats if is_computer(s.user_id))
    searching = min(computers, len(getattr(table.engine, "spy_cards", ())) or computers)
    return budget * searching / 1000


def decision_budget(table: Any, game: Any, seat: int) -> int:
    """The search budget in ms for ``seat``'s decision in ``game``: the group's 困难用时,
    × ``paizhuo_ai_worker.SETUP_BUDGET_FACTOR`` for a decision before play."""
    budget = int(table.setting("ai_budget_ms") or DEFAULT_BUDGET_MS)
    return budget * SETUP_BUDGET_FACTOR if setup_phase(game, seat) is not None else budget


def _key(table: Any, game: Any, seat: int, budget: int) -> tuple:
    """What a search is for: the group, its game (uid and number), the seat, the moves
    made, the budget (with the whole state, compared besides)."""
    return (str(table.group_id), getattr(table, "uid", None), int(getattr(table, "games", 0)),
            seat, len(game.log), budget, setup_phase(game, seat))


def _seed(table: Any, game: Any, seat: int) -> int:
    seed = search_seed(str(table.group_id), int(getattr(table, "games", 0)), len(game.log), seat)
    phase = setup_phase(game, seat)
    return seed if phase is None else zlib.crc32(f"{seed}:{phase}".encode())


def _log_search_error(err: BaseException) -> None:
    """A search raised in its worker (a bug; the move was made at 普通): the error and the
    worker's traceback go to the log, once per search."""
    with contextlib.suppress(Exception):
        from nonebot import logger

        logger.opt(exception=err).error("困难 search failed in its worker; decided at 普通")


def _log_failure(table: Any) -> None:
    with contextlib.suppress(Exception):
        from nonebot import logger

        logger.exception(f"search ahead failed group={getattr(table, 'group_id', '?')}")


def ahead(table: Any) -> None:
    """The table was just saved and its timer armed (``deadlines.schedule``): when a
    computer seat is to move at 困难 — a play, or a decision before play (挖坑 叫分 /
    扣底, 抓特务 明 / 暗) — and its pause (``computer_at``) begins, start that decision's
    search now in the pool, so that it runs during the
    pause; :func:`prepare` takes its answer when the pause ends. Searches already started
    for exactly this state (and the ones chained after it) are kept; any for another
    state are dropped. Never raises (a search that cannot start leaves the decision to
    :func:`prepare`)."""
    try:
        wanted = _decision(table, table.engine, paused=True)
        if wanted is None:
            forget(table)
            return
        key, state, seed, budget = wanted
        chain = table.ahead
        for i, entry in enumerate(chain):
            if entry.key == key and entry.state == state:
                for stale in chain[:i]:
                    stale.search.cancel()
                del chain[:i]
                return
        forget(table)
        _start(table, key, state, seed, budget)
    except Exception:  # noqa: BLE001 - the move still comes, searched later or at 普通
        forget(table)
        _log_failure(table)


def _start(table: Any, key: tuple, state: dict, seed: int, budget: int) -> None:
    """Submit the search for ``state`` and remember it at the end of the table's chain;
    when it answers, :func:`_next` may start the next decision's."""
    search = pool().start(state, key[3], seed, budget)
    if search is None:  # the pool is full: the decision searches when its time comes
        return
    entry = _Ahead(table, key, state, search)
    table.ahead.append(entry)
    loop = asyncio.get_running_loop()

    def answered(_future: Any) -> None:  # in the pool's thread
        with contextlib.suppress(RuntimeError):  # the loop is gone (shutdown)
            loop.call_soon_threadsafe(_next, entry)

    search.future.add_done_callback(answered)


def _next(entry: _Ahead) -> None:
    """A search started ahead answered while it is still the last one of its table's
    chain: the state its move will leave is made on a copy of the game, through the
    adapter's own ``computer_turn`` with that answer; when another computer seat then
    moves in the same run at 困难 (no pause of its own), its search starts now, still
    inside the pause. Never raises."""
    table = entry.table
    chain = table.ahead
    if not chain or chain[-1] is not entry:
        return
    try:
        future = entry.search.future
        if future.cancelled() or future.exception() is not None:
            return
        found = future.result()
        seat, moves, phase = entry.key[3], entry.key[4], entry.key[6]
        if phase is None and not isinstance(found, Action):
            return
        choice = (Choice("困难", seat, moves, found) if phase is None
                  else Choice("困难", seat, moves, phase=phase, setup=found))
        adapter = table.adapter
        game = adapter.load(entry.state)
        adapter.computer_turn(game, table.seats, seat, choice)
        wanted = _decision(table, game, paused=False)
        if wanted is not None:
            _start(table, *wanted)
    except Exception:  # noqa: BLE001 - the next decision searches when its time comes
        _log_failure(table)


def forget(table: Any) -> None:
    """Drop the searches started ahead for ``table`` (closed, over, moved on, served by
    another process): cancelled, their places in the pool freed (at once when still
    queued, at the end of the budget when running)."""
    chain = getattr(table, "ahead", None)
    if not chain:
        return
    for entry in chain:
        entry.search.cancel()
    chain.clear()


def forget_all(tables: Any) -> None:
    """Drop every search started ahead for ``tables`` (shutdown, tests)."""
    for table in list(tables):
        forget(table)


def searching(table: Any) -> list[Search]:
    """The searches started ahead for ``table``, in decision order (tests, diagnostics)."""
    return [entry.search for entry in getattr(table, "ahead", [])]


def _take(table: Any, key: tuple, state: dict) -> Search | None:
    """The search started ahead for exactly ``key`` and ``state`` (taken: used once);
    the ones for earlier states are dropped, the ones chained after it kept. With none
    for this state, every one of the table is dropped."""
    chain = table.ahead
    if not chain:
        return None
    for i, entry in enumerate(chain):
        if entry.key == key and entry.state == state:
            for stale in chain[:i]:
                stale.search.cancel()
            del chain[:i + 1]
            return entry.search
    forget(table)
    return None


async def prepare(table: Any, seat: int, wait: bool = True) -> Choice:
    """The :class:`Choice` for ``seat``'s next decision at ``table`` (its 电脑难度; for
    困难 in a play phase, the search's action, or ``None`` when it could not finish).
    困难 takes the search :func:`ahead` started for exactly this state (waiting only for
    what is left of its budget) and starts one otherwise. ``wait=False`` (a secret
    phase, G-4: when the computers answer must not depend on which of them searched)
    waits for nothing: a search started ahead counts only when it is done, and none is
    started now."""
    try:
        level = str(table.setting("ai_level"))
    except Exception:  # noqa: BLE001 - a game without the setting
        level = "普通"
    game = table.engine
    if level != "困难" or getattr(game, "over", True):
        forget(table)
        return Choice(level)
    phase = setup_phase(game, seat)
    if phase is not None and not is_computer(table.seats[seat].user_id):
        forget(table)
        return Choice(level)  # a person's bid or answer that timed out: the timeout rule
    if phase is None and (getattr(game, "phase", None) != "play"
                          or getattr(game, "turn", None) != seat):
        forget(table)
        return Choice(level)
    budget = decision_budget(table, game, seat)
    state = game.to_json()
    started = _take(table, _key(table, game, seat, budget), state)
    if not wait:
        found = (await pool().result(started)
                 if started is not None and started.future.done() else None)
        if started is not None and not started.future.done():
            started.cancel()
    elif started is not None:
        found = await pool().result(started)
    else:
        found = await pool().search(state, seat, _seed(table, game, seat), budget)
    if phase is not None:
        return Choice(level, seat, len(game.log), phase=phase,
                      setup=None if isinstance(found, Action) else found,
                      ahead=started is not None)
    return Choice(level, seat, len(game.log), found if isinstance(found, Action) else None,
                  ahead=started is not None)
