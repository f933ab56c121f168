"""Table deadlines (timers): one asyncio task per table (``Table.timer``), armed for its
saved reminder, turn or answer deadline, or computer players' pause (``Table.remind_at``,
``deadline``, ``computer_at``; a failed save's backoff ``retry_at``), re-armed after a
restart or a reconnect.

Owns: :func:`schedule`, :func:`cancel_timers`, :func:`resume_timers`, the timers of the
tables whose account was away (``Table.deferred``, :func:`resume_deferred`). What a due
timer does (remind, move for a player who timed out, let computer players act, close an
idle table) is installed by :mod:`.turns` through :func:`on_due`, so this module calls
nothing of the chat layer: ``accounts``, the pipeline (:mod:`.commit`) and every stage may
arm timers. It starts (or drops) the search of a 困难 computer player whose pause begins
(``ai_turn``, which needs nothing of the chat layer either).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .. import ai_turn
from .. import tables as _tables
from ..tables import REGISTRY, Table, timer_now

_act: Callable[[Table], Awaitable[None]] | None = None
"""What a due timer does (:func:`on_due`)."""


def on_due(act: Callable[[Table], Awaitable[None]]) -> None:
    """Install what a table's timer does when it comes due (``act(table)``; it must
    never raise). Installed once, by :mod:`.turns`."""
    global _act
    _act = act


def defer(table: Table) -> None:
    """The table's timer came due with no bot to tell anyone: it acts when the table's
    account connects (:func:`resume_deferred`)."""
    table.deferred = True


def schedule(table: Table) -> None:
    """(Re)arm the table's timer for its saved reminder / deadline; an expired one fires
    at once. Without either, the table has no timer. Every saved change of a table ends
    here, so this is also where a computer player's pause begins: its 困难 search starts
    now, to run during the pause (:func:`.ai_turn.ahead`; dropped once the table is
    closed, over, served elsewhere or has moved on)."""
    old, table.timer = table.timer, None
    if old is not None and old is not asyncio.current_task():
        old.cancel()
    registered = REGISTRY.get(table.group_id) is table
    if registered:
        ai_turn.ahead(table)
    else:
        ai_turn.forget(table)
    times = [t for t in (table.remind_at, table.deadline, table.computer_at) if t is not None]
    if times and registered:
        when = min(times)
        if table.retry_at is not None and table.retry_at > when:
            when = table.retry_at  # the last save failed: retry later, never spin
        table.timer = asyncio.create_task(_fire(table, when))


def cancel_timers() -> None:
    """Stop every table's timer (shutdown, tests)."""
    for table in list(REGISTRY.tables.values()):
        timer, table.timer = table.timer, None
        if timer is not None:
            timer.cancel()
        table.deferred = False


async def _fire(table: Table, when) -> None:
    """The timer of a table: wait (on the monotonic clock, ``timer_now`` time) until
    ``when``, then act (:func:`on_due`)."""
    await _tables.CLOCK.sleep(max(0.0, (when - timer_now()).total_seconds()))
    assert _act is not None, "nonebot_plugin_paizhuo.actions.turns installs what a timer does"
    await _act(table)


async def resume_timers() -> None:
    """After a restart: re-arm every restored table's saved deadline (an expired one acts
    at once, a running one continues)."""
    for table in list(REGISTRY.tables.values()):
        schedule(table)


def resume_deferred(owned: Callable[[Table], bool]) -> None:
    """An account connected: the timers of its tables (``owned``) that came due while it
    was away act now (unless re-armed meanwhile)."""
    for table in sorted(REGISTRY.tables.values(), key=lambda t: t.group_id):
        if table.deferred and owned(table):
            table.deferred = False
            if table.timer is None or table.timer.done():  # not re-armed by the restore
                schedule(table)


def _timer_due(table: Table) -> bool:
    """Whether the table's reminder, deadline or computer players' time has come."""
    now = timer_now()
    return any(t is not None and t <= now
               for t in (table.remind_at, table.deadline, table.computer_at))
