"""The event a task is handling (事件作用域), for code that NoneBot calls without
parameters.

NoneBot solves a rule's or handler's parameters (``bot``, ``event``, ``state`` …) each in
its own task, twice per call (a check and a solve, one task group each); under load each
of those task switches waits its turn on the busy event loop. The bot's own adapter
(``internals/adapter.py``, ``GuardedAdapter``) handles every event inside :func:`handling`, so the
dispatchers' rules (``dispatch.py``) can read the event from here and take no
parameters at all. Under another adapter (the plugin added to an existing bot) there is
no scope and the dispatchers take their parameters as usual.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from nonebot.adapters import Bot, Event


@dataclass(slots=True)
class EventScope:
    """One event being handled: its ``bot`` and ``event``, and ``data``, a place the
    dispatchers keep what they worked out for it (its candidates)."""

    bot: Bot
    event: Event
    data: dict[str, Any] = field(default_factory=dict)


CURRENT: ContextVar[EventScope | None] = ContextVar("paizhuo_event_scope", default=None)
"""The scope of the event the running task handles; ``None`` outside one."""

provided = False
"""Whether the registered adapter handles its events in a scope (set by the adapter)."""


async def handling(bot: Bot, event: Event, run: Awaitable[None]) -> None:
    """Await ``run`` (``bot.handle_event(event)``) with ``event`` as the current scope;
    call it as the task's own coroutine, so the scope is that task's and its children's."""
    CURRENT.set(EventScope(bot, event))
    await run
