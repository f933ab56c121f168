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
* When a send slot is free, the most urgent message goes first: a private message the
  player to act needs before acting (``item.urgent``: the digger's hand with the bottom,
  a hand after tribute, a question), then group messages (a table's announcement before
  other tables' hand updates), then other private messages, then chatter
  (``item.chatter``: replies to commands, refusals). Chatter waiting in a conversation is
  overtaken there by that conversation's game messages (a table's own prompt never waits
  behind the replies to its group's spam). A message that waited ``starve_after``
  seconds competes like a group message. Among equals, the conversation served least
  recently goes first (round robin), so one busy group cannot crowd out the others.
* A picture or merged-forward message (an item with a ``fallback()`` that returns its
  text) that fails or hangs is not retried: its text replaces it at the head of its
  conversation, as a send of its own with its own deadline, tries and token.
* And it is remembered (``item.media``: ``"image"`` or ``"forward"``, each kind on its
  own): that conversation — and the whole account when the call hung, or when it failed
  in a second conversation too — sends that kind as text at once, without a call, for
  ``media_probe_after`` seconds; then the next one is tried (a probe). A probe that fails
  or hangs starts a wait twice as long (at most ``media_probe_max``); one that goes
  through, or any such call that does, forgets it (one log line each way). A picture that
  only adds to what the texts said (``item.extra``: the table after a move) is left out
  meanwhile, as with pictures off. Before, a hung upload cost every move with a picture
  its full ``call_timeout``, all game.
* State stays bounded: a conversation with nothing queued or in flight is dropped; one
  whose sends failed is remembered (failures in a row, back-off) for ``forget_after``
  seconds, at most ``remember_max`` of them.
* The account notices when it is being throttled (风控): when sends fail or time out in
  ``throttle_conversations`` conversations within ``throttle_window`` seconds (group
  conversations, or a timeout anywhere: a private message refused by one user who blocks
  the bot says nothing of the account), the whole account halves its rate (down to an
  eighth), steps back up one halving each ``recover_after`` quiet seconds, logs one
  WARNING per episode and calls ``on_throttle`` once per episode.
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
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

PROMPT, GROUP_FIRST, PRIVATE_LATER, CHATTER = 0, 1, 2, 3
"""Priority classes, lower served first: a private message the player to act needs, a
group message, another private message, chatter (replies to commands, refusals)."""

MAX_SLOWDOWN = 3
"""At most this many halvings of the account's rate when it is throttled (an eighth)."""


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
    ``target`` (group or user id) and an optional ``coalesce`` key. Optional too (read
    with ``getattr``): ``urgent`` and ``chatter`` (its priority class) and ``fallback()``
    (the item to send instead when this one's call fails: a picture's text)."""

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
    probing: tuple[Any, ...] = ()
    """The media memories this entry's call tries again (:meth:`SendScheduler._media_try`)."""


@dataclass(slots=True)
class _MediaDown:
    """One kind of media found failing in one place (a conversation, or the account):
    no call of it before ``until``; ``rest`` the current wait between two tries;
    ``probing`` while a try is in flight."""

    until: float
    rest: float
    probing: bool = False


@dataclass(slots=True)
class _Conversation:
    queue: deque[_Entry] = field(default_factory=deque)
    chatter: deque[_Entry] = field(default_factory=deque)
    busy: bool = False
    failures: int = 0
    ready_at: float = 0.0
    served: int = 0

    def head(self, now: float, starve_after: float) -> _Entry | None:
        """The entry to send next: the oldest game message, else the oldest chatter;
        chatter that waited ``starve_after`` seconds goes first."""
        if self.chatter and (not self.queue
                             or now - self.chatter[0].enqueued >= starve_after):
            return self.chatter[0]
        return self.queue[0] if self.queue else None

    def lane(self, entry: _Entry) -> deque[_Entry]:
        """The queue ``entry`` belongs in."""
        return self.chatter if entry.priority == CHATTER else self.queue

    def idle(self) -> bool:
        """Nothing queued, nothing in flight."""
        return not self.busy and not self.queue and not self.chatter


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
    fallbacks: int = 0
    throttled: int = 0
    media_skipped: int = 0
    """Pictures and forwards sent as their text without a call (remembered failing)."""


@dataclass(slots=True)
class Failure:
    """One failed or timed-out call: when (clock seconds), where, and why."""

    at: float
    kind: str
    target: str
    error: str


def _answer(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


class SendScheduler:
    """Schedules the sends of one bot account.

    ``send(item)`` performs one call and raises on failure; ``rate`` is sends per second
    (``math.inf``: no pacing), ``burst`` how many may go at once after a quiet spell;
    ``call_timeout`` seconds per call; ``retries`` tries of a group message (private
    messages get one); ``on_give_up(item)`` may return an item to send instead of one that
    was given up (the private-failure notice); ``on_throttle(scheduler)`` is called once
    when the account starts slowing down as a whole. All times are in seconds of
    ``clock``.
    """

    def __init__(self, send: Callable[[Any], Awaitable[object]], *, clock: Clock | None = None,
                 rate: float = math.inf, burst: int = 1, call_timeout: float = 5.0,
                 retries: int = 3, backoff: float = 0.5, backoff_max: float = 30.0,
                 starve_after: float = 10.0,
                 on_give_up: Callable[[Any], Any | None] | None = None,
                 throttle_conversations: int = 3, throttle_window: float = 30.0,
                 recover_after: float = 60.0,
                 on_throttle: Callable[[SendScheduler], None] | None = None,
                 forget_after: float = 300.0, remember_max: int = 1024,
                 media_probe_after: float = 120.0, media_probe_max: float = 1800.0) -> None:
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
        self.throttle_conversations = max(1, throttle_conversations)
        self.throttle_window = throttle_window
        self.recover_after = recover_after
        self.on_throttle = on_throttle
        self.forget_after = forget_after
        self.remember_max = max(0, remember_max)
        self.media_probe_after = media_probe_after
        self.media_probe_max = max(media_probe_after, media_probe_max)
        self._media: OrderedDict[tuple[str, tuple[str, str] | None], _MediaDown] = OrderedDict()
        """Media remembered failing: by ``(kind of media, conversation)``, the account's own
        under ``(kind, None)``."""
        self.stats = Stats()
        self._slowdown = 0
        self.failures: deque[Failure] = deque(maxlen=50)
        """The most recent failed or timed-out calls (for ``/牌桌 状态``)."""
        self._slowed_at = 0.0
        self._suspects: deque[tuple[float, tuple[str, str]]] = deque()
        self._convs: dict[tuple[str, str], _Conversation] = {}
        """Conversations with something queued or in flight."""
        self._resting: OrderedDict[tuple[str, str], tuple[float, int, float]] = OrderedDict()
        """Idle conversations whose last send failed: ``(since, failures, ready_at)``,
        oldest first."""
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
        conv = self._conversation((item.kind, item.target))
        priority = self._priority(item)
        entry = _Entry(item, loop.create_future(), next(self._seq), self.clock.now(),
                       self.retries if item.kind == "group" else 1, priority)
        lane = conv.lane(entry)
        if item.coalesce is not None:
            for old in [e for e in lane if e.item.coalesce == item.coalesce]:
                lane.remove(old)
                self.stats.superseded += 1
                if not old.future.done():
                    old.future.set_result(True)
        lane.append(entry)
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
                for entry in (*conv.queue, *conv.chatter):
                    if not entry.future.done():
                        entry.future.set_result(False)
            self._convs.clear()
            self._resting.clear()
        finally:
            self._stopping = False

    def waiting(self) -> int:
        """Messages queued and not yet in flight."""
        return sum(len(c.queue) + len(c.chatter) for c in self._convs.values())

    def in_flight(self) -> int:
        """Calls running now."""
        return sum(1 for c in self._convs.values() if c.busy)

    def conversations(self) -> int:
        """Conversations held: with something queued or in flight, or resting after a
        failure."""
        return len(self._convs) + len(self._resting)

    @property
    def slowdown(self) -> int:
        """Halvings of the rate in force now (0: the configured rate)."""
        self._recover(self.clock.now())
        return self._slowdown

    def current_rate(self) -> float:
        """Sends per second allowed now (the configured rate, halved ``slowdown`` times
        while the account is throttled; recovers step by step)."""
        self._recover(self.clock.now())
        return self._effective_rate()

    def media_down(self) -> dict[str, float]:
        """The kinds of media the whole account sends as text for now, with the seconds
        until the next try (for ``/牌桌 状态``)."""
        now = self.clock.now()
        return {media: max(0.0, down.until - now)
                for (media, where), down in self._media.items() if where is None}

    def recent_failures(self, seconds: float) -> list[Failure]:
        """The failed or timed-out calls of the last ``seconds``."""
        since = self.clock.now() - seconds
        return [f for f in self.failures if f.at >= since]

    # ---- conversations ------------------------------------------------------------------
    @staticmethod
    def _priority(item: Any) -> int:
        if getattr(item, "urgent", False):
            return PROMPT
        if getattr(item, "chatter", False):
            return CHATTER
        return GROUP_FIRST if item.kind == "group" else PRIVATE_LATER

    def _conversation(self, key: tuple[str, str]) -> _Conversation:
        """The active conversation ``key``, made (with what a resting one remembered)."""
        conv = self._convs.get(key)
        if conv is None:
            conv = self._convs[key] = _Conversation()
            rested = self._resting.pop(key, None)
            if rested is not None:
                _, conv.failures, conv.ready_at = rested
        return conv

    def _retire(self, key: tuple[str, str], conv: _Conversation) -> None:
        """Drop an idle conversation; remember it a while when its last send failed."""
        if not conv.idle() or self._convs.get(key) is not conv:
            return
        del self._convs[key]
        now = self.clock.now()
        if conv.failures and self.remember_max:
            self._resting[key] = (now, conv.failures, conv.ready_at)
            self._resting.move_to_end(key)
        while self._resting:
            key0, (since, _, ready_at) = next(iter(self._resting.items()))
            if len(self._resting) <= self.remember_max and (
                    now - since < self.forget_after or ready_at > now):
                break
            del self._resting[key0]

    # ---- throttling (风控) ----------------------------------------------------------------
    def _effective_rate(self) -> float:
        base = self.rate if not math.isinf(self.rate) else 2.0 * 2 ** MAX_SLOWDOWN
        if self._slowdown == 0:
            return self.rate
        return base / 2 ** self._slowdown

    def _recover(self, now: float) -> None:
        while self._slowdown and now - self._slowed_at >= self.recover_after:
            self._refill(self._slowed_at + self.recover_after)
            self._slowdown -= 1
            self._slowed_at += self.recover_after
            if self._slowdown == 0:
                log.info("send rate recovered: %s per second", self.rate)

    def _suspect(self, kind: str, target: str, timed_out: bool, err: Exception,
                 counts: bool = True) -> None:
        """Note a failed call; slow the account down when several conversations failed
        within ``throttle_window``."""
        now = self.clock.now()
        self.failures.append(Failure(now, kind, target, repr(err)[:200]))
        if not counts or (kind != "group" and not timed_out):
            return  # one user's blocked chat says nothing of the account
        self._suspects.append((now, (kind, target)))
        while self._suspects and self._suspects[0][0] < now - self.throttle_window:
            self._suspects.popleft()
        places = {key for _, key in self._suspects}
        if len(places) < self.throttle_conversations:
            return
        self._suspects.clear()
        self._recover(now)
        self._refill(now)
        first = self._slowdown == 0
        self._slowdown = min(MAX_SLOWDOWN, self._slowdown + 1)
        self._slowed_at = now
        self._tokens = min(self._tokens, 0.0)
        if not first:
            return
        self.stats.throttled += 1
        log.warning("account throttled: sends failed in %s conversations within %g s; "
                    "slowing down to %.3g per second, recovering step by step",
                    len(places), self.throttle_window, self._effective_rate())
        if self.on_throttle is not None:
            try:
                self.on_throttle(self)
            except Exception:  # noqa: BLE001 - a notice is never worth the scheduler
                log.exception("throttle notice failed")

    # ---- pictures and forwards remembered failing -----------------------------------------
    def media_blocked(self, media: str, key: tuple[str, str]) -> bool:
        """Whether a ``media`` message to conversation ``key`` would go as text (or be left
        out) now: remembered failing there or on the account, and not due for a try."""
        now = self.clock.now()
        for scope in ((media, None), (media, key)):
            down = self._media.get(scope)
            if down is not None and (down.probing or now < down.until):
                return True
        return False

    def _media_try(self, media: str, key: tuple[str, str]) -> tuple[Any, ...] | None:
        """Whether a ``media`` call to conversation ``key`` is made now: ``None`` when it
        is remembered failing there or on the whole account (send the text); else the
        memories this call tries again (empty when there are none)."""
        now = self.clock.now()
        scopes = []
        for scope in ((media, None), (media, key)):
            down = self._media.get(scope)
            if down is None:
                continue
            if down.probing or now < down.until:
                return None
            scopes.append(scope)
        for scope in scopes:
            self._media[scope].probing = True
        return tuple(scopes)

    def _media_ok(self, media: str, key: tuple[str, str]) -> None:
        """A ``media`` call went through: forget it failing there and on the account."""
        forgot = [scope for scope in ((media, None), (media, key))
                  if self._media.pop(scope, None) is not None]
        if forgot:
            log.info("%s messages go through again (%s %s)", media, key[0], key[1])

    def _media_failed(self, media: str, key: tuple[str, str], hung: bool,
                      probing: tuple[Any, ...]) -> None:
        """A ``media`` call to ``key`` failed (``hung``: timed out): that conversation, and
        the account when it hung or another conversation fails too, send it as text for
        a while (a failed try doubles the wait)."""
        now = self.clock.now()
        account = (media, None)
        scopes = [(media, key)]
        if hung or account in self._media or any(
                m == media and where not in (None, key) for m, where in self._media):
            scopes.append(account)
        rest = 0.0
        for scope in scopes:
            down = self._media.get(scope)
            if down is None:
                down = self._media[scope] = _MediaDown(now, self.media_probe_after)
            elif scope in probing:
                down.rest = min(self.media_probe_max, down.rest * 2)
            down.probing = False
            down.until = now + down.rest
            rest = max(rest, down.rest)
            self._media.move_to_end(scope)
        log.warning("%s messages %s (%s %s%s): sent as text without trying for %g s%s", media,
                    "hang" if hung else "fail", key[0], key[1],
                    ", the whole account" if account in scopes else "", rest,
                    "; a try failed" if probing else "")
        while len(self._media) > max(1, self.remember_max):
            self._media.popitem(last=False)

    def _media_released(self, probing: tuple[Any, ...]) -> None:
        """A try ended without telling (stopped): let a later one try again."""
        for scope in probing:
            down = self._media.get(scope)
            if down is not None:
                down.probing = False

    # ---- budget -------------------------------------------------------------------------
    def _refill(self, now: float) -> None:
        rate = self._effective_rate()
        if self._stamp is not None and not math.isinf(rate) and now > self._stamp:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * rate)
        self._stamp = now if self._stamp is None else max(self._stamp, now)

    def _token_wait(self, now: float) -> float:
        self._recover(now)
        rate = self._effective_rate()
        if math.isinf(rate):
            return 0.0
        self._refill(now)
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / rate

    # ---- dispatching --------------------------------------------------------------------
    def _pick(self, now: float) -> tuple[_Conversation, _Entry] | None:
        best: tuple[_Conversation, _Entry] | None = None
        best_key: tuple[int, int, int] | None = None
        for conv in self._convs.values():
            if conv.busy or conv.ready_at > now:
                continue
            head = conv.head(now, self.starve_after)
            if head is None:
                continue
            priority = head.priority
            if priority > GROUP_FIRST and now - head.enqueued >= self.starve_after:
                priority = GROUP_FIRST
            key = (priority, conv.served, head.seq)
            if best_key is None or key < best_key:
                best, best_key = (conv, head), key
        return best

    def _dispatch(self) -> float | None:
        """Start every call that may start now, most urgent first; returns when the
        timekeeper must look again (a token, a back-off ending), ``None`` for never."""
        if self._stopping:
            return None
        while True:
            now = self.clock.now()
            picked = self._pick(now)
            if picked is None:
                return self._next_ready()
            wait = self._token_wait(now)
            if wait > 0:
                return now + wait
            if not math.isinf(self._effective_rate()):
                self._tokens -= 1.0
            conv, entry = picked
            conv.lane(entry).remove(entry)
            self._launch(conv, entry)

    def _kick(self, until: float | None) -> None:
        """Have the timekeeper look again at ``until`` (``None``: nothing waits for time;
        what waits for a busy conversation starts when that call ends)."""
        if until is not None:
            self.start()
            self._wake.set()

    def _next_ready(self) -> float | None:
        times = [c.ready_at for c in self._convs.values() if not c.busy and (c.queue or c.chatter)]
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
        key = (item.kind, item.target)
        media = getattr(item, "media", None)
        left_out = False
        if media is not None:
            probing = self._media_try(media, key)
            if probing is None:  # remembered failing: its text, at once, without a call
                self.stats.media_skipped += 1
                instead = None if getattr(item, "extra", False) else item.fallback()
                if instead is None:  # nothing the texts did not say: left out
                    left_out = True
                else:
                    entry.item = item = instead
                media = None
            else:
                entry.probing = probing
        try:
            if not left_out:
                await self._call(item)
        except asyncio.CancelledError:
            self._media_released(entry.probing)
            _answer(entry.future, False)  # stopped
            raise
        except Exception as err:  # noqa: BLE001 - any failure of the OneBot side
            if media is not None:
                self._media_failed(media, key, isinstance(err, TimeoutError), entry.probing)
            entry.probing = ()
            self._failed(conv, entry, err)
        except BaseException:
            self._media_released(entry.probing)
            log.exception("send aborted: %s %s", item.kind, item.target)
            self._give_up(entry)
            raise
        else:
            if media is not None:
                self._media_ok(media, key)
            if not left_out:
                self.stats.sent += 1
                conv.failures = 0
            if not entry.future.done():
                entry.future.set_result(True)
        finally:
            conv.busy = False
            if not self._stopping:
                self._retire(key, conv)
                self._kick(self._dispatch())

    def _failed(self, conv: _Conversation, entry: _Entry, err: Exception) -> None:
        self.stats.failed += 1
        item = entry.item
        fallback = getattr(item, "fallback", None)
        instead = fallback() if callable(fallback) else None
        self._suspect(item.kind, item.target, isinstance(err, TimeoutError), err,
                      counts=instead is None)  # a picture may fail where text does not
        if instead is not None:
            # A picture or forward message that failed or hung: its text goes next, as a
            # send of its own (own deadline, tries and token); the media is not retried.
            self.stats.fallbacks += 1
            log.warning("%s message to %s failed (%r): sending its text", item.kind,
                        item.target, err)
            entry.item = instead
            entry.tries_left = self.retries if item.kind == "group" else 1
            conv.lane(entry).appendleft(entry)
            return
        conv.failures += 1
        conv.ready_at = self.clock.now() + min(self.backoff_max,
                                               self.backoff * 2 ** (conv.failures - 1))
        log.warning("send failed (%s in a row): %s %s: %r", conv.failures, item.kind,
                    item.target, err)
        entry.tries_left -= 1
        if entry.tries_left > 0 and conv.failures < self.retries:
            conv.lane(entry).appendleft(entry)
            return
        doomed = [entry]
        if conv.failures > self.retries:  # a failed probe of a conversation that is down
            doomed += [*conv.queue, *conv.chatter]
            conv.queue.clear()
            conv.chatter.clear()
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
