"""The send scheduler (发送调度): one queue per conversation, one budget per account.

Independent of NoneBot: it is given a ``send(item) -> Awaitable`` callable and a
:class:`Clock`, so it runs the same against a real OneBot connection and, in tests, against
a fake clock.

* Every conversation (a group, a private chat: ``(item.kind, item.target)``) has its own
  FIFO queue and at most one call in flight, so its messages arrive in order and a slow or
  failing conversation never holds up another one.
* An account-wide token bucket (``rate`` sends per second, ``burst`` sends at once) paces
  the account (QQ rate limits, 风控).
* Every call is cut off after ``call_timeout`` seconds and counts as failed.
* A conversation whose sends fail backs off on its own (``backoff`` seconds, doubling per
  failure in a row, at most ``backoff_max``); a group message is tried ``retries`` times. A
  conversation that failed ``retries`` times in a row is *down*: each further message gets
  one try (a probe), and a failed probe gives up every message waiting there, so callers
  waiting on a muted group or a blocked user are answered within one back-off.
* When a send slot is free, group messages go before private ones (a table's announcement
  before other tables' hand updates); a private message that waited ``starve_after``
  seconds competes like a group message. Among equals, the conversation served least
  recently goes first (round robin), so one busy group cannot crowd out the others.
* An item with a ``coalesce`` key replaces a waiting item of the same conversation with
  the same key (several hand updates of one player collapse into the latest).
* A message that may go at once has its call started by ``submit`` itself, and when a
  call ends the next message of its conversation starts from there: no dispatcher task
  to wake in between (on a busy event loop every task switch waits its turn). A
  timekeeper task runs only while something waits for a token or a back-off.

The token bucket is our own (a dozen lines) rather than ``aiolimiter``: aiolimiter reads
the event loop's clock, which a fake clock cannot drive, and the dispatcher needs to ask
"how long until a token" without taking one so that it can pick the most urgent message
at the moment a slot frees up.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

GROUP_FIRST, PRIVATE_LATER = 0, 1
"""Priority classes: lower is served first."""


class Clock(Protocol):
    """Time source of the scheduler: ``now()`` in seconds (monotonic), ``sleep(s)``."""

    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return after ``seconds``."""
        ...


class LoopClock:
    """The running event loop's clock (production)."""

    def now(self) -> float:
        """``loop.time()``."""
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep``."""
        await asyncio.sleep(max(0.0, seconds))


class Item(Protocol):
    """What the scheduler needs of a message: ``kind`` ``"group"`` / ``"private"``,
    ``target`` (group or user id) and an optional ``coalesce`` key."""

    kind: str
    target: str
    coalesce: str | None


@dataclass(slots=True)
class _Entry:
    item: Any
    future: asyncio.Future[bool]
    seq: int
    enqueued: float
    tries_left: int
    priority: int


@dataclass(slots=True)
class _Conversation:
    queue: deque[_Entry] = field(default_factory=deque)
    busy: bool = False
    failures: int = 0
    ready_at: float = 0.0
    served: int = 0


@dataclass(slots=True)
class Stats:
    """Counters since start: calls made, messages sent, calls failed / timed out,
    messages given up, messages superseded by a newer one."""

    calls: int = 0
    sent: int = 0
    failed: int = 0
    timeouts: int = 0
    given_up: int = 0
    superseded: int = 0


def _answer(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


class SendScheduler:
    """Schedules the sends of one bot account.

    ``send(item)`` performs one call and raises on failure; ``rate`` is sends per second
    (``math.inf``: no pacing), ``burst`` how many may go at once after a quiet spell;
    ``call_timeout`` seconds per call; ``retries`` tries of a group message (private
    messages get one); ``on_give_up(item)`` may return an item to send instead of one that
    was given up (the private-failure notice). All times are in seconds of ``clock``.
    """

    def __init__(self, send: Callable[[Any], Awaitable[object]], *, clock: Clock | None = None,
                 rate: float = math.inf, burst: int = 1, call_timeout: float = 5.0,
                 retries: int = 3, backoff: float = 0.5, backoff_max: float = 30.0,
                 starve_after: float = 10.0,
                 on_give_up: Callable[[Any], Any | None] | None = None) -> None:
        if rate <= 0 or burst < 1 or call_timeout <= 0:
            raise ValueError("rate and call_timeout must be positive, burst at least 1")
        self.send = send
        self.clock: Clock = clock or LoopClock()
        self.rate = rate
        self.burst = burst
        self.call_timeout = call_timeout
        self.retries = max(1, retries)
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.starve_after = starve_after
        self.on_give_up = on_give_up
        self.stats = Stats()
        self._convs: dict[tuple[str, str], _Conversation] = {}
        self._seq = itertools.count(1)
        self._served = itertools.count(1)
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._flights: set[asyncio.Task[None]] = set()
        self._stopping = False

    # ---- public -------------------------------------------------------------------------
    def submit(self, item: Item) -> asyncio.Future[bool]:
        """Queue ``item`` on its conversation; the future becomes ``True`` once it was
        sent (or superseded by a newer item with the same ``coalesce`` key), ``False``
        once it was given up. Never raises for a failed send. Needs a running loop.

        A message that may go at once (its conversation idle, a token free, nothing more
        urgent waiting) has its call started before this returns."""
        loop = asyncio.get_running_loop()
        conv = self._convs.setdefault((item.kind, item.target), _Conversation())
        if item.coalesce is not None:
            for old in [e for e in conv.queue if e.item.coalesce == item.coalesce]:
                conv.queue.remove(old)
                self.stats.superseded += 1
                if not old.future.done():
                    old.future.set_result(True)
        group = item.kind == "group"
        entry = _Entry(item, loop.create_future(), next(self._seq), self.clock.now(),
                       self.retries if group else 1, GROUP_FIRST if group else PRIVATE_LATER)
        conv.queue.append(entry)
        self._kick(self._dispatch())
        return entry.future

    def start(self) -> None:
        """Start the timekeeper (again, if it stopped): the task that starts the calls
        that must wait (for a token, a back-off, a starving private message)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop dispatching; calls in flight are cancelled and every waiting message (and
        every message whose call was cancelled) is answered ``False``."""
        self._stopping = True
        try:
            tasks = [t for t in (self._task, *self._flights) if t is not None]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            for conv in self._convs.values():
                for entry in conv.queue:
                    if not entry.future.done():
                        entry.future.set_result(False)
            self._convs.clear()
        finally:
            self._stopping = False

    def waiting(self) -> int:
        """Messages queued and not yet in flight."""
        return sum(len(c.queue) for c in self._convs.values())

    # ---- budget -------------------------------------------------------------------------
    def _refill(self, now: float) -> None:
        if self._stamp is not None and not math.isinf(self.rate):
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def _token_wait(self, now: float) -> float:
        if math.isinf(self.rate):
            return 0.0
        self._refill(now)
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.rate

    # ---- dispatching --------------------------------------------------------------------
    def _pick(self, now: float) -> _Conversation | None:
        best: _Conversation | None = None
        best_key: tuple[int, int, int] | None = None
        for conv in self._convs.values():
            if conv.busy or not conv.queue or conv.ready_at > now:
                continue
            head = conv.queue[0]
            priority = head.priority
            if priority != GROUP_FIRST and now - head.enqueued >= self.starve_after:
                priority = GROUP_FIRST
            key = (priority, conv.served, head.seq)
            if best_key is None or key < best_key:
                best, best_key = conv, key
        return best

    def _dispatch(self) -> float | None:
        """Start every call that may start now, most urgent first; returns when the
        timekeeper must look again (a token, a back-off ending), ``None`` for never."""
        if self._stopping:
            return None
        while True:
            now = self.clock.now()
            conv = self._pick(now)
            if conv is None:
                return self._next_ready()
            wait = self._token_wait(now)
            if wait > 0:
                return now + wait
            if not math.isinf(self.rate):
                self._tokens -= 1.0
            self._launch(conv, conv.queue.popleft())

    def _kick(self, until: float | None) -> None:
        """Have the timekeeper look again at ``until`` (``None``: nothing waits for time;
        what waits for a busy conversation starts when that call ends)."""
        if until is not None:
            self.start()
            self._wake.set()

    def _next_ready(self) -> float | None:
        times = [c.ready_at for c in self._convs.values() if c.queue and not c.busy]
        return min(times) if times else None

    async def _wait(self, until: float | None) -> None:
        """Until something is submitted or a call ends, or the clock reaches ``until``."""
        waiter = asyncio.ensure_future(self._wake.wait())
        tasks: set[asyncio.Future[Any]] = {waiter}
        if until is not None:
            tasks.add(asyncio.ensure_future(self.clock.sleep(until - self.clock.now())))
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()

    async def _run(self) -> None:
        """The timekeeper: starts what waited for a token or a back-off; ends when
        nothing waits."""
        while True:
            self._wake.clear()
            until = self._dispatch()
            if until is None:
                return
            await self._wait(until)

    def _launch(self, conv: _Conversation, entry: _Entry) -> None:
        """Start the call of ``entry`` in its own task (the conversation is busy until it
        ends)."""
        conv.busy = True
        conv.served = next(self._served)
        self.stats.calls += 1
        task = asyncio.get_running_loop().create_task(self._fly(conv, entry))
        self._flights.add(task)
        task.add_done_callback(self._flights.discard)

    async def _call(self, item: Any) -> None:
        """One call in the running task, cut off after ``call_timeout``: a timer cancels
        the task, and the cancellation becomes ``TimeoutError``."""
        task = asyncio.current_task()
        assert task is not None
        expired = False

        async def expire() -> None:
            nonlocal expired
            await self.clock.sleep(self.call_timeout)
            expired = True
            task.cancel()

        timer = asyncio.ensure_future(expire())
        try:
            await self.send(item)
        except asyncio.CancelledError:
            if not expired:
                raise
            task.uncancel()
            self.stats.timeouts += 1
            raise TimeoutError(f"no answer within {self.call_timeout} s") from None
        finally:
            timer.cancel()

    async def _fly(self, conv: _Conversation, entry: _Entry) -> None:
        item = entry.item
        try:
            await self._call(item)
        except asyncio.CancelledError:
            _answer(entry.future, False)  # stopped
            raise
        except Exception as err:  # noqa: BLE001 - any failure of the OneBot side
            self._failed(conv, entry, err)
        except BaseException:
            log.exception("send aborted: %s %s", item.kind, item.target)
            self._give_up(entry)
            raise
        else:
            self.stats.sent += 1
            conv.failures = 0
            if not entry.future.done():
                entry.future.set_result(True)
        finally:
            conv.busy = False
            self._forget_idle()
            self._kick(self._dispatch())

    def _failed(self, conv: _Conversation, entry: _Entry, err: Exception) -> None:
        self.stats.failed += 1
        conv.failures += 1
        conv.ready_at = self.clock.now() + min(self.backoff_max,
                                               self.backoff * 2 ** (conv.failures - 1))
        item = entry.item
        log.warning("send failed (%s in a row): %s %s: %r", conv.failures, item.kind,
                    item.target, err)
        entry.tries_left -= 1
        if entry.tries_left > 0 and conv.failures < self.retries:
            conv.queue.appendleft(entry)
            return
        doomed = [entry]
        if conv.failures > self.retries:  # a failed probe of a conversation that is down
            doomed += list(conv.queue)
            conv.queue.clear()
        for lost in doomed:
            self._give_up(lost)

    def _give_up(self, entry: _Entry) -> None:
        self.stats.given_up += 1
        item = entry.item
        log.warning("%s message to %s given up", item.kind, item.target)
        instead = self.on_give_up(item) if self.on_give_up is not None else None
        if instead is None:
            _answer(entry.future, False)
        else:  # answered once the message sent instead is sent or given up
            self.submit(instead).add_done_callback(lambda _: _answer(entry.future, False))

    def _forget_idle(self) -> None:
        now = self.clock.now()
        for key in [k for k, c in self._convs.items()
                    if not c.queue and not c.busy and c.failures == 0 and c.ready_at <= now]:
            del self._convs[key]
