"""Each user's messages in the order they were sent, each message once (顺序与去重).

The adapter (``internals/adapter.py``) hands every event to NoneBot in a task of its own,
so two messages of one player sent back to back (``/加机器人 1`` then ``/退出``) raced:
whichever task reached the table first applied first. And a OneBot implementation that
reconnects may deliver a message again with the same ``message_id``; it was applied twice
(two computers seated, ``/托管`` on and off again).

:class:`EventGate` sits where the frames arrive, in arrival order, before any task:

* **Once** — a message event whose ``(account, message_id)`` was seen recently, with the
  same sender, time and text, is dropped (a bounded memory of the last
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
from collections.abc import Coroutine
from contextvars import ContextVar
from typing import Any

from nonebot import logger

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


def user_key(event: Any) -> str | None:
    """The ordering key of a message event: its sender's ``user_id`` (the same in every
    group and in private chat); ``None`` for any other event."""
    if getattr(event, "post_type", None) != "message":
        return None
    user_id = getattr(event, "user_id", None)
    return None if user_id is None else str(user_id)


def fingerprint(event: Any) -> tuple[Any, ...]:
    """What a repeated delivery of a message has in common with the first one besides
    its id: sender, time and text. An id that comes back with another fingerprint is a
    new message (a OneBot implementation that restarted may reuse ids)."""
    return (getattr(event, "user_id", None), getattr(event, "time", None),
            str(getattr(event, "raw_message", "")))


class EventGate:
    """Duplicate filter and per-user ordering for one process (see the module docstring).

    ``remember`` — ids kept per account; ``wait`` — seconds a message waits at most for
    the previous message of its user."""

    def __init__(self, remember: int = RECENT_IDS, wait: float = ORDER_WAIT) -> None:
        self.remember = remember
        self.wait = wait
        self._seen: dict[str, dict[Any, tuple[Any, ...]]] = {}
        self._tails: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}

    def first_delivery(self, self_id: str, event: Any) -> bool:
        """Whether this is the first delivery to account ``self_id`` of ``event``: False
        for a message event whose ``message_id`` the account received recently with the
        same :func:`fingerprint` (it is then not to be handled); True for every other
        event."""
        if getattr(event, "post_type", None) != "message":
            return True
        message_id = getattr(event, "message_id", None)
        if message_id is None:
            return True
        seen = self._seen.setdefault(self_id, {})
        mark = fingerprint(event)
        if seen.get(message_id) == mark:
            logger.info(f"event=duplicate account={self_id} message_id={message_id}")
            return False
        seen.pop(message_id, None)  # an id used again for another message: a new one
        seen[message_id] = mark
        if len(seen) > self.remember:
            del seen[next(iter(seen))]
        return True

    def spawn(self, event: Any, run: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A task that awaits ``run`` (the event's handling) once the previous message of
        the same user is handled or has :func:`applied` its change (waiting at most
        :data:`ORDER_WAIT`); at once for other events.
        Call in arrival order, synchronously (no await between arrival and this call)."""
        key = user_key(event)
        if key is None:
            return asyncio.create_task(run)
        previous = self._tails.get(key)
        turn = asyncio.Event()
        task = asyncio.create_task(self._after(previous, key, turn, run))
        self._tails[key] = (task, turn)
        task.add_done_callback(lambda done: self._forget(key, done))
        return task

    async def _after(self, previous: tuple[asyncio.Task[None], asyncio.Event] | None, key: str,
                     turn: asyncio.Event, run: Coroutine[Any, Any, None]) -> None:
        try:
            if previous is not None and not previous[0].done() and not previous[1].is_set():
                released = asyncio.ensure_future(previous[1].wait())
                try:
                    done, _ = await asyncio.wait({previous[0], released}, timeout=self.wait,
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    released.cancel()
                if not done:
                    logger.warning(f"event=order_wait_expired user={key} seconds={self.wait}")
        except BaseException:
            run.close()
            turn.set()
            raise
        _turn.set(turn)
        try:
            await run
        finally:
            turn.set()

    def _forget(self, key: str, task: asyncio.Task[None]) -> None:
        tail = self._tails.get(key)
        if tail is not None and tail[0] is task:
            del self._tails[key]

    def reset(self) -> None:
        """Forget every id and ordering chain (tests)."""
        self._seen.clear()
        self._tails.clear()


GATE = EventGate()
"""The process's gate, used by the adapter."""
