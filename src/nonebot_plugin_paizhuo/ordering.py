"""Each user's messages in the order they were sent, each message once (顺序与去重).

The adapter (``internals/adapter.py``) hands every event to NoneBot in a task of its own,
so two messages of one player sent back to back (``/加机器人 1`` then ``/退出``) raced:
whichever task reached the table first applied first. And a OneBot implementation that
reconnects may deliver a message again with the same ``message_id``; it was applied twice
(two computers seated, ``/托管`` on and off again).

:class:`EventGate` sits where the frames arrive, in arrival order, before any task:

* **Once** — a message event whose ``(account, key)`` was seen recently (the key is the
  side's: OneBot's ``message_id``, Milky's (scene, peer, seq), Satori's message id; see
  ``port.room.Room.delivery``), with the same sender, time and text, is dropped (a bounded memory of the last
  :data:`RECENT_IDS` ids per account; it outlives a reconnect, which is when the repeats
  come).
* **In order** — the messages of one user (by ``user_id``: group chats and private chat
  alike, whichever account received them) run one after another: a message's handling
  starts when the previous one of that user has finished or has applied its change and
  queued its messages (:func:`applied`, called when a handler queues its messages,
  ``messaging.submit``, which every handler does last: the wait for the sends
  themselves — paced, and long in a muted group — is not the next command's), or after
  :data:`ORDER_WAIT` seconds at most (a handler stuck on a hung call must not silence
  its user for good). Different users never wait for each other.

Other events (notices, meta events, the bot's own echoed messages) pass untouched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any

from nonebot import logger

from .port.room import Delivery

RECENT_IDS = 4096
"""Message ids remembered per account (a few minutes of a busy account's traffic)."""

ORDER_WAIT = 30.0
"""Longest wait, in seconds, of a user's message for that user's previous one."""


_turn: ContextVar[asyncio.Event | None] = ContextVar("paizhuo_order_turn", default=None)
"""Set when the message being handled (in this task and its children) lets the next
message of its user start."""


def applied() -> None:
    """The message being handled has applied its change and queued its messages: the
    next message of the same user may start (a no-op outside an ordered message)."""
    turn = _turn.get()
    if turn is not None:
        turn.set()


Describe = Callable[[Any], Delivery | None]
"""A room's view of an event for the gate (``port.room.Room.delivery``): the message's
key, its sender, what a repeat has in common with it; ``None`` for other events."""


def onebot_delivery(event: Any) -> Delivery | None:
    """The gate's view of a OneBot-shaped event (``post_type``, ``user_id``,
    ``message_id``, ``time``, ``raw_message``): key the ``message_id``, user the sender,
    mark sender, time and text; ``None`` for an event that is not a message."""
    if getattr(event, "post_type", None) != "message":
        return None
    user_id = getattr(event, "user_id", None)
    if user_id is None:
        return None
    return Delivery(getattr(event, "message_id", None), str(user_id),
                    (user_id, getattr(event, "time", None), str(getattr(event, "raw_message", ""))))


def user_key(event: Any, describe: Describe = onebot_delivery) -> str | None:
    """The ordering key of a message event: its sender (the same in every group and in
    private chat); ``None`` for any other event."""
    found = describe(event)
    return None if found is None else found.user


class EventGate:
    """Duplicate filter and per-user ordering for one process (see the module docstring).

    ``remember`` — ids kept per account; ``wait`` — seconds a message waits at most for
    the previous message of its user."""

    def __init__(self, remember: int = RECENT_IDS, wait: float = ORDER_WAIT) -> None:
        self.remember = remember
        self.wait = wait
        self._seen: dict[str, dict[Any, tuple[Any, ...]]] = {}
        self._tails: dict[str, asyncio.Event] = {}
        """Per user, the turn of their latest message: set once it is handled or has
        applied its change."""

    def first_delivery(self, self_id: str, event: Any,
                       describe: Describe = onebot_delivery) -> bool:
        """Whether this is the first delivery to account ``self_id`` of ``event``: False
        for a message event whose key (``describe``: the room's view) the account received
        recently with the same mark (it is then not to be handled); True for every other
        event. A key that comes back with another mark is a new message (a side that
        restarted may reuse ids)."""
        found = describe(event)
        if found is None or found.key is None:
            return True
        message_id = found.key
        seen = self._seen.setdefault(self_id, {})
        mark = found.mark
        if seen.get(message_id) == mark:
            logger.info(f"event=duplicate account={self_id} message_id={message_id}")
            return False
        seen.pop(message_id, None)  # an id used again for another message: a new one
        seen[message_id] = mark
        if len(seen) > self.remember:
            del seen[next(iter(seen))]
        return True

    def spawn(self, event: Any, run: Coroutine[Any, Any, None],
              describe: Describe = onebot_delivery) -> asyncio.Task[None]:
        """A task that awaits ``run`` (the event's handling) once the previous message of
        the same user is handled or has :func:`applied` its change (waiting at most
        :data:`ORDER_WAIT`); at once for other events.
        Call in arrival order, synchronously (no await between arrival and this call)."""
        return asyncio.create_task(self.ordered(event, run, describe))

    def ordered(self, event: Any, run: Coroutine[Any, Any, None],
                describe: Describe = onebot_delivery) -> Coroutine[Any, Any, None]:
        """The coroutine :meth:`spawn` runs in its task: ``run`` once the previous message
        of the same user is handled or has :func:`applied` its change (``run`` itself for
        other events). For an adapter that makes the task itself (``port.gate``): call it
        in arrival order, synchronously, and run the coroutine in a task at once."""
        key = user_key(event, describe)
        if key is None:
            return run
        previous = self._tails.get(key)
        turn = asyncio.Event()
        self._tails[key] = turn
        return self._after(previous, key, turn, run)

    async def _after(self, previous: asyncio.Event | None, key: str, turn: asyncio.Event,
                     run: Coroutine[Any, Any, None]) -> None:
        try:
            if previous is not None and not previous.is_set():
                try:
                    await asyncio.wait_for(previous.wait(), self.wait)
                except TimeoutError:
                    logger.warning(f"event=order_wait_expired user={key} seconds={self.wait}")
        except BaseException:
            run.close()
            turn.set()
            self._forget(key, turn)
            raise
        _turn.set(turn)
        try:
            await run
        finally:
            turn.set()
            self._forget(key, turn)

    def _forget(self, key: str, turn: asyncio.Event) -> None:
        if self._tails.get(key) is turn:
            del self._tails[key]

    def reset(self) -> None:
        """Forget every id and ordering chain (tests)."""
        self._seen.clear()
        self._tails.clear()


GATE = EventGate()
"""The process's gate, used by the adapter."""
