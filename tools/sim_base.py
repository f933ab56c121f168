"""What every simulated QQ protocol side has in common, whichever protocol it speaks.

The simulators under ``tools/`` (``onebot_sim.py`` for OneBot v11, ``milky_sim.py`` for Milky,
``satori_sim.py`` for Satori) each play one QQ account's protocol side for the bot under test.
They differ in the wire (who connects to whom, frames, ids, message encoding) and agree on
everything a driver uses — tests, ``tools/players.py``, ``tools/combo.py``,
``tools/watch_game.py``, the benchmarks:

* **the world**: :meth:`ChatSim.add_member`, :meth:`ChatSim.add_friend`,
  :meth:`ChatSim.add_group` (QQ numbers as ``int`` on every side; a side whose wire carries
  strings converts at the wire);
* **people speaking**: :meth:`ChatSim.group_message`, :meth:`ChatSim.private_message`,
  :meth:`ChatSim.resend` (the same message delivered again, same id);
* **what the bot said**: ``sent`` (:class:`Sent`, one per message the bot tried to send, in
  a protocol-neutral form: kind, target, text, @-ed QQ numbers, forward or not),
  :meth:`ChatSim.mark`, :meth:`ChatSim.wait_for`, :meth:`ChatSim.wait_for_text`,
  :meth:`ChatSim.wait_idle`, ``listeners``; ``calls`` (every API call, :class:`ApiCall`);
* **faults**: ``fail_group`` / ``fail_private`` (sends answered with the protocol's own
  failure), ``hang_group`` / ``hang_private`` (sends never answered; noted in ``hung``),
  ``hang_media`` (every picture or merged-forward send hangs), ``hang_media_to`` /
  ``fail_media_to`` (the same for one ``(kind, target)``), ``action_delays``;
* **the connection**: :meth:`ChatSim.bot_env` (what the bot must be started with to reach
  this side), :meth:`ChatSim.connect`, :meth:`ChatSim.close`, :meth:`ChatSim.wait_closed`,
  ``connected``.

This module imports nothing from the project and nothing but the standard library.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar, Literal

__all__ = ["ApiCall", "ChatSim", "Kind", "Member", "Role", "Sent"]

Role = Literal["owner", "admin", "member"]
Kind = Literal["group", "private"]


@dataclass
class Member:
    """A member of a simulated group."""

    user_id: int
    nickname: str
    card: str = ""
    role: Role = "member"


@dataclass
class Sent:
    """One message the bot tried to send (successfully or not), in a protocol-neutral form.

    ``segments`` keeps the message as the protocol carried it (OneBot segments, Milky
    segments, Satori elements); ``text`` joins its text with each @ rendered as ``@name``,
    ``at`` lists the @-ed QQ numbers."""

    kind: Kind
    target: int
    segments: list[Any]
    text: str
    at: list[int]
    time: float
    ok: bool
    message_id: int | str | None = None
    forward: bool = False
    """Sent as a merged-forward message (合并转发); ``text`` joins its nodes by lines."""
    temp: bool = False
    """A private message to someone who is not a friend, delivered as a temporary session
    (临时会话) where the side allows it."""
    via: str = ""
    """The bot that sent it, where a side tells (OneBot: the URL of the connection it came
    over, for an account connected to several bots, ``OneBotSim.connect_also``)."""

    def __str__(self) -> str:
        """Human-readable one-liner, e.g. ``[group 100] 开局了``."""
        flag = "" if self.ok else " FAILED"
        return f"[{self.kind} {self.target}{flag}] {self.text}"


@dataclass
class ApiCall:
    """One API call the bot made (``action`` + ``params``) and how it was answered.

    ``status`` is ``"ok"`` or ``"failed"``; ``retcode`` the protocol's error number (OneBot
    and Milky ``retcode``; Satori: the HTTP status)."""

    action: str
    params: dict[str, Any]
    time: float
    status: str = ""
    retcode: int = 0


class ChatSim:
    """One simulated QQ account (``self_id``): its world, what the bot said, the faults.

    Subclasses speak a protocol: they turn :meth:`group_message` / :meth:`private_message`
    into that protocol's events, answer the bot's API calls, and record each outgoing
    message with :meth:`_record` (after :meth:`_fault` decided whether it hangs or fails).
    """

    side: ClassVar[str] = ""
    """The protocol's name: ``onebot``, ``milky``, ``satori``."""

    def __init__(self, self_id: int = 10001, nickname: str = "牌桌", *,
                 api_delay: float = 0.0) -> None:
        """Create the account ``self_id`` called ``nickname``; ``api_delay`` (seconds) is
        slept before answering each API call, to mimic a real implementation's latency."""
        self.self_id = self_id
        self.nickname = nickname
        self.api_delay = api_delay
        self.friends: set[int] = set()
        self.groups: dict[int, dict[int, Member]] = {}
        self.group_names: dict[int, str] = {}
        self.nicknames: dict[int, str] = {}
        self.fail_private: set[int] = set()
        self.fail_group: set[int] = set()
        self.hang_private: set[int] = set()
        self.hang_group: set[int] = set()
        self.hang_media = False
        self.hang_media_to: set[tuple[Kind, int]] = set()
        self.fail_media_to: set[tuple[Kind, int]] = set()
        self.hung: list[tuple[str, int, float]] = []
        self.forward_supported = True
        self.action_delays: dict[str, float] = {}
        self.sent: list[Sent] = []
        self.calls: list[ApiCall] = []
        self.events: list[Any] = []
        self.deleted: list[Any] = []
        self.listeners: list[Callable[[Sent], None]] = []
        self.close_code: int | None = None
        self._cond = asyncio.Condition()

    # ---- world setup ------------------------------------------------------------------

    def add_group(self, group_id: int, name: str | None = None,
                  members: Iterable[Member] = ()) -> dict[int, Member]:
        """Ensure the bot is in ``group_id`` (optionally named) and add ``members``."""
        group = self.groups.setdefault(group_id, {})
        if name is not None:
            self.group_names[group_id] = name
        for member in members:
            group[member.user_id] = member
        return group

    def add_member(self, group_id: int, user_id: int, nickname: str | None = None,
                   card: str = "", role: Role = "member") -> Member:
        """Add (or replace) a member of ``group_id``, creating the group if needed."""
        member = Member(user_id, nickname or self.nickname_of(user_id), card, role)
        self.add_group(group_id)[user_id] = member
        return member

    def add_friend(self, user_id: int, nickname: str | None = None) -> None:
        """Make ``user_id`` a friend of the bot account."""
        self.friends.add(user_id)
        if nickname is not None:
            self.nicknames[user_id] = nickname

    def nickname_of(self, user_id: int, group_id: int | None = None) -> str:
        """Best known nickname of ``user_id`` (group member → nicknames → any group)."""
        if user_id == self.self_id:
            return self.nickname
        if group_id is not None and (m := self.groups.get(group_id, {}).get(user_id)):
            return m.nickname
        if user_id in self.nicknames:
            return self.nicknames[user_id]
        for members in self.groups.values():
            if user_id in members:
                return members[user_id].nickname
        return f"用户{user_id}"

    def shares_group(self, user_id: int) -> int | None:
        """A group the bot and ``user_id`` are both in (the lowest number), if any."""
        return min((g for g, members in self.groups.items() if user_id in members), default=None)

    def speaker(self, group_id: int, user_id: int) -> Member:
        """The member ``user_id`` of ``group_id``, registered if unknown (a member who
        speaks is a member), so tests only need :meth:`add_member` for names and roles."""
        members = self.add_group(group_id)
        if user_id not in members:
            members[user_id] = Member(user_id, self.nickname_of(user_id))
        return members[user_id]

    # ---- the connection (each protocol) ------------------------------------------------

    def bot_env(self, access_token: str = "") -> dict[str, str]:
        """Environment the bot must be started with to reach this side (added to
        :class:`~tools.onebot_sim.BotProcess`'s ``env``). OneBot needs none: the simulator
        connects to the bot."""
        return {}

    @property
    def connected(self) -> bool:
        """True while the bot and this side are connected."""
        raise NotImplementedError

    async def connect(self, url: str | None = None, access_token: str | None = None, *,
                      retry_for: float = 10.0) -> None:
        """Bring the connection with the bot up (see each protocol for who dials whom)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Take the connection down and keep it down until :meth:`connect`."""
        raise NotImplementedError

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until the connection is down; return its close code (if the protocol has
        one)."""
        raise NotImplementedError

    async def group_message(self, group_id: int, user_id: int, message: Any) -> int | str:
        """Post a group message from ``user_id`` (plain text for a ``str``); return its id."""
        raise NotImplementedError

    async def private_message(self, user_id: int, message: Any) -> int | str:
        """Post a private message from ``user_id``; return its id."""
        raise NotImplementedError

    async def resend(self, message_id: int | str) -> None:
        """Deliver a message posted earlier again, unchanged (same id), as a side does
        after a reconnect."""
        raise NotImplementedError

    async def __aenter__(self) -> ChatSim:
        """Return self (call :meth:`connect` yourself)."""
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        """Close the connection."""
        await self.close()

    # ---- the fault knobs ----------------------------------------------------------------

    async def _fault(self, kind: Kind, target: int, *, media: bool) -> str:
        """Apply the fault knobs to one outgoing message to ``(kind, target)``.

        Never returns for a hung target (noted in ``hung``); otherwise returns why the send
        fails (``""`` when it goes through). ``media`` marks a picture or merged-forward
        message. A group the bot is not in fails, as on every side."""
        hung = self.hang_group if kind == "group" else self.hang_private
        if target in hung or (media and (self.hang_media or (kind, target) in self.hang_media_to)):
            self.hung.append((kind, target, time.time()))
            await asyncio.get_running_loop().create_future()  # never answered
        if kind == "private" and target in self.fail_private:
            return f"simulated failure of private messages to {target}"
        if kind == "group" and target in self.fail_group:
            return f"simulated failure of messages to group {target}"
        if kind == "group" and target not in self.groups:
            return f"the bot is not in group {target}"
        if media and (kind, target) in self.fail_media_to:
            return f"simulated failure of pictures and forwards to {kind} {target}"
        return ""

    async def _delay(self, action: str) -> None:
        """Sleep ``api_delay`` and the action's ``action_delays`` entry."""
        if self.api_delay:
            await asyncio.sleep(self.api_delay)
        if self.action_delays.get(action):
            await asyncio.sleep(self.action_delays[action])

    # ---- observing the bot ------------------------------------------------------------

    def mark(self) -> int:
        """Current ``len(self.sent)``: pass as ``since`` to only see later messages."""
        return len(self.sent)

    def sent_since(self, since: int = 0) -> list[Sent]:
        """Messages recorded at index ≥ ``since``."""
        return self.sent[since:]

    async def wait_for(self, pred: Callable[[Sent], bool], timeout: float = 10.0,
                       since: int | None = None) -> Sent:
        """Return the first :class:`Sent` at index ≥ ``since`` (default 0) matching ``pred``.

        Already-recorded messages count, so take ``since = sim.mark()`` *before* posting
        the triggering event. Raises ``TimeoutError`` listing the last few messages.
        """
        start = 0 if since is None else since

        async def _scan() -> Sent:
            index = start
            async with self._cond:
                while True:
                    while index < len(self.sent):
                        item = self.sent[index]
                        index += 1
                        if pred(item):
                            return item
                    await self._cond.wait()

        try:
            return await asyncio.wait_for(_scan(), timeout)
        except TimeoutError:
            raise TimeoutError(self._timeout_text("message", timeout, start)) from None

    async def wait_for_text(self, substring: str, *, kind: Kind | None = None,
                            target: int | None = None, timeout: float = 10.0,
                            since: int | None = None) -> Sent:
        """:meth:`wait_for` a successful message containing ``substring`` (optionally filtered)."""

        def pred(s: Sent) -> bool:
            return (
                s.ok
                and substring in s.text
                and (kind is None or s.kind == kind)
                and (target is None or s.target == target)
            )

        return await self.wait_for(pred, timeout=timeout, since=since)

    async def wait_for_call(self, action: str, timeout: float = 10.0, since: int = 0) -> ApiCall:
        """Return the first API call named ``action`` at ``calls`` index ≥ ``since``."""

        async def _scan() -> ApiCall:
            index = since
            async with self._cond:
                while True:
                    while index < len(self.calls):
                        call = self.calls[index]
                        index += 1
                        if call.action == action:
                            return call
                    await self._cond.wait()

        try:
            return await asyncio.wait_for(_scan(), timeout)
        except TimeoutError:
            seen = ", ".join(c.action for c in self.calls[since:][-10:]) or "none"
            raise TimeoutError(
                f"no {action!r} API call within {timeout}s (calls since {since}: {seen})"
            ) from None

    async def wait_idle(self, quiet: float = 0.5, timeout: float = 10.0) -> None:
        """Wait until the bot has sent nothing for ``quiet`` seconds (≤ ``timeout``)."""
        deadline = time.monotonic() + timeout

        async def _changed(seen: int) -> None:
            async with self._cond:
                await self._cond.wait_for(lambda: len(self.sent) != seen)

        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"bot still sending after {timeout}s")
            try:
                await asyncio.wait_for(_changed(len(self.sent)), min(quiet, remaining))
            except TimeoutError:
                if quiet <= remaining:
                    return
                raise TimeoutError(f"bot still sending after {timeout}s") from None

    def _timeout_text(self, what: str, timeout: float, since: int) -> str:
        first = max(since, len(self.sent) - 8)
        lines = "\n".join(f"  #{i}: {self.sent[i]}" for i in range(first, len(self.sent)))
        state = "" if self.connected else f" (connection closed, code {self.close_code})"
        return (
            f"no matching {what} within {timeout}s{state}; "
            f"{max(0, len(self.sent) - since)} message(s) since #{since}"
            + (f", last ones:\n{lines}" if lines else "")
        )

    async def _record(self, sent: Sent) -> None:
        """Append ``sent``, wake the waiters, tell the listeners."""
        async with self._cond:
            self.sent.append(sent)
            self._cond.notify_all()
        for listener in list(self.listeners):
            listener(sent)

    async def _record_call(self, call: ApiCall) -> None:
        """Append an answered API call and wake the waiters."""
        async with self._cond:
            self.calls.append(call)
            self._cond.notify_all()

    async def _notify(self) -> None:
        """Wake the waiters (the connection changed)."""
        async with self._cond:
            self._cond.notify_all()
