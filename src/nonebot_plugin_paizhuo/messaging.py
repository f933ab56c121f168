"""Outgoing messages: the send scheduler of each bot account, and refusal limits.

A handler collects :class:`Outgoing` items while it holds a table's lock and hands them to
:func:`deliver` (or queues them with :func:`submit` under the lock and waits after
releasing it). The messages of one action are merged (one group message per group, one
private message per user) and queued on the account's
:class:`~nonebot_plugin_paizhuo.send_queue.SendScheduler`: one queue per conversation, an
account-wide budget (``PAIZHUO_SEND_RATE`` / ``PAIZHUO_SEND_BURST``, QQ rate limits, 风控), a timeout on
every call (``PAIZHUO_ONEBOT_CALL_TIMEOUT``), retries and a back-off of its own for a conversation
whose sends fail, group messages before private ones, and a player's waiting hand updates
collapsed into the latest. A private message that cannot be delivered is reported in its
group with how to fix it (never with its content; without a name, and only after the phase
is over, when only a hidden role got it — G-4). Long texts go as merged-forward messages
and pictures as images, each with its plain text as the fallback.

Refusals (a move or answer that was not accepted) are limited per user
(``PAIZHUO_REFUSAL_LIMIT`` in ``PAIZHUO_REFUSAL_WINDOW`` seconds, then silence for ``PAIZHUO_REFUSAL_SILENCE``
seconds), and so is every sender's commands of any kind, each weighed by what it costs
(:func:`command_weight`: an answer sent privately costs the group nothing and counts a
quarter, a picture or merged-forward reply three; ``PAIZHUO_COMMAND_LIMIT`` in
``PAIZHUO_COMMAND_WINDOW`` seconds, then ``PAIZHUO_COMMAND_SILENCE``; applied by the dispatcher), so one
player's junk cannot flood a group or the account's budget, while a person who asks for
their hand, a hint, the count and the table at every turn never meets the limit. A limit
that stops someone says so once (:func:`slow_down`, privately where the bot can), then
stays silent. Every reply, to any command, goes through the scheduler (as chatter: after
the game's messages), and a reply identical to one still waiting in its conversation
replaces it, so a burst of the same command costs the account one send.

When sends fail or time out in several conversations of the account at once, the
scheduler slows the whole account down; the superusers are told once by private message
and ``/牌桌 状态`` shows the account's state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import nonebot
from nonebot import logger
from nonebot.adapters import Bot, Event
from nonebot.log import LoguruHandler

from . import ordering, send_queue
from .config import Config, plugin_config
from .port import Message, MessageSegment, Said, account_of, plain, room_of, where
from .send_queue import SendScheduler

T = TypeVar("T")
_scheduler_log = logging.getLogger(send_queue.__name__)
_scheduler_log.addHandler(LoguruHandler())  # the scheduler's lines go to the bot's log
_scheduler_log.setLevel(logging.INFO)  # its INFO too: the rate recovered, media working again
_scheduler_log.propagate = False


@dataclass(slots=True)
class Outgoing:
    """One message: ``kind`` ``"group"`` or ``"private"``, ``target`` the group or user id
    (as a string), ``message`` the content. ``group_id`` of a private message is the group
    to tell if it cannot be delivered. ``coalesce``: a waiting message of the same
    conversation with the same key is replaced by this one (``"hand"``: a player's hand
    update). ``refusal_of``: the user whose move or answer this message refuses (limited
    per user, see :class:`RefusalLimiter`)."""

    kind: str
    target: str
    message: Message
    group_id: str | None = None
    coalesce: str | None = None
    refusal_of: str | None = None
    forward: list[Message | bytes] | None = None
    """When set: sent as one merged-forward message (合并转发) of these nodes (a text, or
    a picture's PNG), and ``message`` (the same text, plain) is sent instead when the send
    fails."""
    image: bytes | None = None
    """When set: this PNG is sent, and ``message`` (the same content as text) instead
    when the send fails."""
    urgent: bool = False
    """A private message the player to act needs before acting (a hand with the bottom,
    a hand after tribute, a question): sent before every other waiting message."""
    chatter: bool = False
    """A reply to a command or a refusal: sent after the game's messages, and overtaken
    in its own conversation by them."""
    hidden: bool = False
    """A private message only a hidden role gets: a failure is reported without a name,
    and not before the group's next ``release`` message (G-4)."""
    release: bool = False
    """A group message after which held failure notices of hidden messages may be told."""
    choices: list[str] | None = None
    """A private message's commands worth sending now (the plays worth making, 过): a side
    with buttons offers them as buttons only this person may press (the official bot);
    the others ignore them, the text says the same."""
    prompt: bool = False
    """A group message that is only a turn prompt (``轮到 …``), see ``runs.assemble``."""
    hand_of: int | None = None
    """A private hand update of this seat: written again from the game as it stands when
    the post that carries it goes out (its counts are those after every move the post
    reports)."""
    extra: bool = False
    """A picture that only adds to what the texts said (the table after a move): while
    the account's pictures are remembered failing it is left out, as with pictures off
    (its text is sent instead only when a call of it fails)."""
    sent: bool = False
    """Set once the message was sent (alone or merged: ``parts`` are the messages merged
    into it)."""
    parts: list[Outgoing] = field(default_factory=list, repr=False, compare=False)

    @property
    def media(self) -> str | None:
        """``"forward"`` for a merged-forward message, ``"image"`` for a picture, ``None``
        for text (the scheduler remembers each kind failing on its own)."""
        if self.forward is not None:
            return "forward"
        return "image" if self.image is not None else None

    def fallback(self) -> Outgoing | None:
        """The text to send instead when this picture or forward message fails (the
        scheduler sends it as a send of its own); ``None`` for a text message."""
        if self.forward is None and self.image is None:
            return None
        return Outgoing(self.kind, self.target, self.message, self.group_id, self.coalesce,
                        self.refusal_of, urgent=self.urgent, chatter=self.chatter,
                        hidden=self.hidden, release=self.release, parts=self.parts,
                        choices=self.choices)


def group(group_id: str, message: Message | str, release: bool = False) -> Outgoing:
    """A group message (a ``str`` is sent as plain text)."""
    return Outgoing("group", group_id, plain(message), release=release)


def private(user_id: str, message: Message | str, group_id: str | None = None,
            hidden: bool = False) -> Outgoing:
    """A private message to ``user_id`` (a ``str`` is plain text); failures are reported
    in ``group_id`` (without a name when ``hidden``)."""
    return Outgoing("private", user_id, plain(message), group_id, hidden=hidden)


def private_failed_notice(user_id: str, text: str | None = None) -> Message:
    """The group notice for a private message that could not be delivered (``text``: the
    side's own, ``Room.unreachable_text``)."""
    return MessageSegment.at(user_id) + MessageSegment.text(
        " " + (text or "私聊消息发送失败：请先加机器人为好友，再发送 /手牌 取回手牌和待答的问题。"))


def hidden_failed_notice() -> Message:
    """The group notice for undelivered private messages that only a hidden role got:
    it names nobody (G-4)."""
    return Message(MessageSegment.text(
        "有私聊消息发送失败：请各位确认已加机器人为好友，再发送 /手牌 取回手牌和待答的问题。"))


def refusal(out: Outgoing, user_id: str) -> Outgoing:
    """Mark ``out`` as refusing ``user_id``'s move or answer (rate-limited per user, sent
    as chatter)."""
    out.refusal_of = user_id
    out.chatter = True
    return out


def chatter(out: Outgoing) -> Outgoing:
    """Mark ``out`` as a reply to a command (sent after the game's messages)."""
    out.chatter = True
    return out


def answer(heard: Said, message: Message | str) -> Outgoing:
    """A plain reply to a command, as chatter, where it was said (the group, or the
    private chat)."""
    if heard.group_id is not None:
        return chatter(group(heard.group_id, message))
    return chatter(private(heard.user_id, message))


def merge(outs: list[Outgoing]) -> list[Outgoing]:
    """One message per recipient, at the place of its first part, parts joined by a line
    break (the messages of one action arrive together and in order). A merged message
    keeps a ``coalesce`` key only if every part has it; forward messages and pictures are
    never merged."""
    merged: dict[tuple[str, str] | int, Outgoing] = {}
    for i, out in enumerate(outs):
        if out.forward is not None or out.image is not None:
            merged[i] = out
            continue
        key = (out.kind, out.target)
        if key in merged:
            first = merged[key]
            first.message = first.message + MessageSegment.text("\n") + out.message
            first.group_id = first.group_id or out.group_id
            if first.coalesce != out.coalesce:
                first.coalesce = None
            first.urgent = first.urgent or out.urgent
            first.chatter = first.chatter and out.chatter
            first.parts.append(out)
            first.hidden = first.hidden and out.hidden
            first.release = first.release or out.release
            first.choices = out.choices or first.choices
        else:
            merged[key] = Outgoing(out.kind, out.target, Message(out.message), out.group_id,
                                   out.coalesce, urgent=out.urgent, chatter=out.chatter,
                                   hidden=out.hidden, release=out.release, parts=[out],
                                   choices=out.choices)
    return list(merged.values())


OK, NOTICE, SILENT = "ok", "notice", "silent"
"""What a limit says of one more item (:meth:`RefusalLimiter.check`): let it through;
over the limit — tell the user once; or silence."""

PRIVATE_WEIGHT = 0.25
"""What a command answered privately (/手牌, /提示, /记牌) counts towards the limit: it
costs the group nothing, and a burst of it collapses into one send."""
HEAVY_WEIGHT = 3.0
"""What a command answered with a picture or a merged-forward message counts."""
PRIVATE_WORDS = frozenset({"手牌", "看牌", "提示", "记牌", "记牌器"})
HEAVY_WORDS = frozenset({"帮助", "help", "牌桌帮助", "规则", "战绩", "排行", "排行榜", "排名",
                         "对局", "复盘", "对局记录"})


def command_weight(words: set[str] | frozenset[str]) -> float:
    """What one command (by its command words) counts towards its sender's limit: what its
    answer costs — :data:`PRIVATE_WEIGHT` for one sent privately, :data:`HEAVY_WEIGHT` for
    a picture or merged-forward one, 1 for a short group reply."""
    if words and words <= PRIVATE_WORDS:
        return PRIVATE_WEIGHT
    if words & HEAVY_WORDS:
        return HEAVY_WEIGHT
    return 1.0


class RefusalLimiter:
    """Per-user budget: at most ``limit`` (weighed) items in ``window`` seconds; the one
    that would go over starts ``silence`` seconds in which that user's items are dropped.
    ``clock`` gives seconds (monotonic)."""

    def __init__(self, limit: float, window: float, silence: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.silence, self.clock = limit, window, silence, clock
        self._recent: dict[str, deque[tuple[float, float]]] = {}
        self._silent_until: dict[str, float] = {}

    def check(self, user_id: str, weight: float = 1.0) -> str:
        """:data:`OK` when an item of ``weight`` for ``user_id`` may go now (it is
        counted); :data:`NOTICE` when it goes over the limit (the silence starts now: tell
        the user, once); :data:`SILENT` while the silence lasts."""
        if self.limit <= 0:
            return OK
        now = self.clock()
        if self._silent_until.get(user_id, -1.0) > now:
            return SILENT
        self._silent_until.pop(user_id, None)
        recent = self._recent.setdefault(user_id, deque())
        while recent and recent[0][0] <= now - self.window:
            recent.popleft()
        if sum(w for _, w in recent) + weight > self.limit + 1e-9:
            recent.clear()
            self._silent_until[user_id] = now + self.silence
            logger.info(f"event=user_silenced user={user_id} seconds={self.silence:g}")
            return NOTICE
        recent.append((now, weight))
        if len(self._recent) > 4096:  # forget users who went quiet
            for uid in [u for u, q in self._recent.items() if not q or q[-1][0] <= now - self.window]:
                del self._recent[uid]
        return OK

    def allow(self, user_id: str, weight: float = 1.0) -> bool:
        """Whether an item for ``user_id`` may go now (and count it)."""
        return self.check(user_id, weight) == OK


@dataclass(slots=True)
class Delivery:
    """The queued messages of one action: ``parts`` pairs each merged message with a
    future that is ``True`` once it was sent (or superseded), ``False`` once given up."""

    parts: list[tuple[Outgoing, asyncio.Future[bool]]] = field(default_factory=list)

    async def prompt_sent(self) -> None:
        """Wait until every message that may carry a prompt (all but hand updates) was
        sent or given up."""
        waiting = [f for out, f in self.parts if out.coalesce is None]
        if waiting:
            await asyncio.wait(waiting)

    async def sent(self) -> None:
        """Wait until every message was sent or given up."""
        if self.parts:
            await asyncio.wait([f for _, f in self.parts])


_schedulers: dict[str, SendScheduler] = {}
_bots: dict[str, Bot] = {}
_held: dict[str, set[str]] = {}
"""Per account: groups owed a :func:`hidden_failed_notice` (told after their next
``release`` message)."""
_released: dict[str, set[str]] = {}
"""Per account: groups whose last message sent was a ``release`` one (no secret phase
runs there now)."""
_limiter: RefusalLimiter | None = None
_commands: RefusalLimiter | None = None


def pacing(config: Config) -> tuple[float, int]:
    """``(rate, burst)`` of the account budget from the settings: ``PAIZHUO_SEND_RATE`` and
    ``PAIZHUO_SEND_BURST``; without ``PAIZHUO_SEND_RATE``, the older ``PAIZHUO_SEND_INTERVAL`` means one send every
    that many seconds (``0``: no pacing)."""
    if config.send_rate is not None:
        rate = config.send_rate if config.send_rate > 0 else float("inf")
    elif config.send_interval is not None:
        rate = 1.0 / config.send_interval if config.send_interval > 0 else float("inf")
    else:
        rate = Config.DEFAULT_SEND_RATE
    return rate, max(1, config.send_burst)


def _give_up(self_id: str, out: Outgoing) -> Outgoing | None:
    """A message was given up: a private one is reported in its group — without a name
    and after the phase, when only a hidden role got it (G-4)."""
    if out.kind == "private" and out.group_id and out.hidden:
        if out.group_id in _released.get(self_id, set()):
            return Outgoing("group", out.group_id, hidden_failed_notice())  # the phase is over
        _held.setdefault(self_id, set()).add(out.group_id)
        return None
    if out.kind == "private" and out.group_id:
        bot = connection(self_id) or _bots.get(self_id)
        room = room_of(bot) if bot is not None else None
        if room is not None and room.tell_unreachable_once:
            told = _told.setdefault(self_id, set())
            if out.target in told:
                return None
            told.add(out.target)
        return Outgoing("group", out.group_id, private_failed_notice(
            out.target, room.unreachable_text() if room is not None else None))
    return None


_told: dict[str, set[str]] = {}
"""Per account, on a side that tells it once (``Room.tell_unreachable_once``): the persons
the group was told the bot cannot reach privately, until a private message reaches them."""


def unreached(account: str | None, user_id: str) -> bool:
    """Whether the group was told the bot cannot reach ``user_id`` privately (on a side
    that tells it once) and no private message has reached them since: their timeouts
    meanwhile do not count towards 托管 (docs/platforms.md「官方 QQ 机器人」)."""
    return account is not None and user_id in _told.get(account, set())


def connection(account: str) -> Bot | None:
    """The connected bot of ``account`` (the account's QQ number on the QQ sides), any
    side but one refused for the account (``accounts.refused``: it is served over another
    side); ``None`` while it is not connected."""
    from .accounts import is_refused  # accounts imports this module

    for bot in nonebot.get_bots().values():
        if room_of(bot) is not None and account_of(bot) == account and not is_refused(bot):
            return bot
    return None


async def _send_one(account: str, out: Outgoing) -> None:
    """Send ``out`` through the account's current connection and its side's room (a
    forward message or a picture when it has one: when that send fails or hangs, the
    scheduler sends ``out.fallback()``, its text, as a send of its own), then a held
    anonymous failure notice after a releasing group message."""
    bot = connection(account) or _bots[account]
    room = room_of(bot)
    assert room is not None, f"no room for {type(bot).__name__}"
    await room.send(bot, out)
    if out.kind != "group":
        told = _told.get(account)
        if told:
            told.discard(out.target)
        return
    released = _released.setdefault(account, set())
    if out.release:
        released.add(out.target)
    else:
        released.discard(out.target)
    held = _held.get(account)
    if out.release and held and out.target in held:
        held.discard(out.target)
        scheduler_for(bot).submit(Outgoing("group", out.target, hidden_failed_notice(), release=True))


def scheduler_for(bot: Bot) -> SendScheduler:
    """The send scheduler of ``bot``'s account (created on first use from the settings;
    one per account, whichever side it is connected over)."""
    self_id = account_of(bot)
    _bots[self_id] = bot
    sched = _schedulers.get(self_id)
    if sched is None:
        config = plugin_config()
        rate, burst = pacing(config)
        sched = _schedulers[self_id] = SendScheduler(
            lambda out: _send_one(self_id, out), rate=rate, burst=burst,
            call_timeout=config.onebot_call_timeout, retries=config.send_retries,
            backoff_max=config.send_backoff_max, on_give_up=lambda out: _give_up(self_id, out),
            throttle_conversations=config.send_throttle_conversations,
            throttle_window=config.send_throttle_window,
            recover_after=config.send_recover_after,
            media_probe_after=config.paizhuo_media_probe_after,
            on_throttle=lambda s: _tell_superusers_throttled(self_id, s))
    return sched


def throttled_notice(sched: SendScheduler) -> str:
    """The superusers' private notice that the account is being throttled (风控)."""
    return (f"【牌桌】本账号发送受限：{sched.throttle_window:g} 秒内多个会话发送失败或超时，"
            f"已降速到每秒 {sched.current_rate():.2g} 条，之后逐步恢复。"
            "在群里发送 /牌桌 状态 查看。")


def _tell_superusers_throttled(self_id: str, sched: SendScheduler) -> None:
    """Tell every superuser, privately and once per episode, that the account slows down."""
    bot = _bots.get(self_id)
    if bot is None:
        return
    for user_id in sorted(bot.config.superusers):
        if user_id.isdigit():
            sched.submit(Outgoing("private", user_id, plain(throttled_notice(sched)), urgent=True))


def limiter() -> RefusalLimiter:
    """The process-wide refusal limiter (from the settings)."""
    global _limiter
    if _limiter is None:
        config = plugin_config()
        _limiter = RefusalLimiter(config.refusal_limit, config.refusal_window,
                                  config.refusal_silence)
    return _limiter


def command_limiter() -> RefusalLimiter:
    """The process-wide limit on each sender's commands of any kind (``PAIZHUO_COMMAND_LIMIT``
    in ``PAIZHUO_COMMAND_WINDOW`` seconds, then ``PAIZHUO_COMMAND_SILENCE`` seconds ignored), moves and
    private answers excepted (their refusals have :func:`limiter`)."""
    global _commands
    if _commands is None:
        config = plugin_config()
        _commands = RefusalLimiter(config.command_limit, config.command_window,
                                   config.command_silence)
    return _commands


def reset_refusals() -> None:
    """Forget every user's refusal and command count (tests)."""
    global _limiter, _commands
    _limiter = None
    _commands = None


REFUSALS_NOTICE = "出错太多次了：{seconds} 秒内出错不再回复（能出的牌照常生效）。"
COMMANDS_NOTICE = "你发得太快了，{seconds} 秒后再试（出牌、过不受影响）。"


def slow_down(user_id: str, group_id: str | None, text: str) -> Outgoing:
    """The one notice of a limit that stops ``user_id``: privately when the bot can (the
    command came in private chat, or the user sits at a table, so is the bot's friend —
    no failure is reported for it), else a short reply in ``group_id``."""
    from .tables import REGISTRY  # not at import: the tables send through this module

    if group_id is None or REGISTRY.table_of_user(user_id) is not None:
        return chatter(private(user_id, text))
    return chatter(group(group_id, MessageSegment.at(user_id) + MessageSegment.text(" " + text)))


def notify_limited(bot: Bot, event: Event) -> None:
    """The sender of ``event`` (a person's message on any side) just went over the command
    limit: tell them once."""
    group_id, user_id = where(event)
    seconds = f"{command_limiter().silence:g}"
    submit(bot, [slow_down(user_id, group_id, COMMANDS_NOTICE.format(seconds=seconds))])


def _refusals_kept(outs: list[Outgoing]) -> list[Outgoing]:
    """``outs`` with each refusal over its user's limit dropped — the first one replaced
    by the notice that the user's refusals go silent now."""
    kept = []
    for out in outs:
        if out.refusal_of is None:
            kept.append(out)
            continue
        verdict = limiter().check(out.refusal_of)
        if verdict == OK:
            kept.append(out)
        elif verdict == NOTICE:
            where = out.target if out.kind == "group" else None
            text = REFUSALS_NOTICE.format(seconds=f"{limiter().silence:g}")
            kept.append(slow_down(out.refusal_of, where, text))
    return kept


def _same_key(out: Outgoing) -> str:
    """The coalescing key of a reply: the same reply still waiting in its conversation is
    replaced by this one (a burst of one command is one send)."""
    digest = hashlib.sha1(repr([(s.type, s.data) for s in out.message]).encode())
    if out.image is not None:
        digest.update(out.image)
    return "same:" + digest.hexdigest()


def submit(bot: Bot, outs: list[Outgoing]) -> Delivery:
    """Queue ``outs`` (merged; refusals over their user's limit dropped, the first of them
    replaced by a notice) on the bot's scheduler at once, without waiting: call it under a
    table's lock to keep that table's messages in command order. A reply (chatter) is
    coalesced with the same reply still waiting in its conversation. The command being
    handled then lets its sender's next command start (``ordering.applied``): a handler
    queues its messages last. Never raises."""
    kept = _refusals_kept(outs)
    delivery = Delivery()
    if kept:
        sched = scheduler_for(bot)
        for out in merge(kept):
            if out.chatter and out.coalesce is None:
                out.coalesce = _same_key(out)
            future = sched.submit(out)
            future.add_done_callback(lambda f, out=out: _mark_sent(out, f))
            delivery.parts.append((out, future))
    ordering.applied()  # queued in order: the sender's next command need not wait for the sends
    return delivery


def _mark_sent(out: Outgoing, future: asyncio.Future[bool]) -> None:
    if not future.cancelled() and future.exception() is None and future.result():
        out.sent = True
        for part in out.parts:
            part.sent = True


async def deliver(bot: Bot, outs: list[Outgoing]) -> None:
    """Merge ``outs`` and send them through the bot's scheduler; returns once they were
    sent (or given up and reported). Never raises."""
    await submit(bot, outs).sent()


async def deliver_reply(bot: Bot, outs: list[Outgoing]) -> None:
    """:func:`deliver` replies to a command, as chatter (after the game's messages)."""
    await deliver(bot, [chatter(out) for out in outs])


async def timed(call: Awaitable[T]) -> T:
    """A call to the side other than a send (a friend list, a member's name …), cut off
    after ``PAIZHUO_ONEBOT_CALL_TIMEOUT`` seconds (raises ``TimeoutError``, or what the
    call raises). Awaited in the caller's task (``asyncio.timeout``, no task of its own):
    the call is made at once, in the order the caller makes its calls."""
    async with asyncio.timeout(plugin_config().onebot_call_timeout):
        return await call


def media_blocked(bot: Bot, media: str, kind: str, target: str) -> bool:
    """Whether a ``media`` message (``"image"`` / ``"forward"``) to the group or user
    ``target`` would go as text now: remembered failing for the account or there
    (``SendScheduler.media_blocked``); a picture then need not be drawn."""
    sched = _schedulers.get(account_of(bot))
    return sched is not None and sched.media_blocked(media, (kind, target))


def schedulers() -> dict[str, SendScheduler]:
    """The send scheduler of each account that sent something (by account, ``port.account_of``)."""
    return dict(_schedulers)


async def stop_queues() -> None:
    """Stop every scheduler (shutdown, tests)."""
    global _limiter
    for sched in list(_schedulers.values()):
        await sched.stop()
    _schedulers.clear()
    _bots.clear()
    _held.clear()
    _released.clear()
    _told.clear()
    _limiter = None
    reset_refusals()
