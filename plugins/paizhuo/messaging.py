"""Outgoing messages: one paced send queue per bot account.

A handler collects :class:`Outgoing` items while it holds a table's lock and hands them to
:func:`deliver` after releasing it. :func:`deliver` merges the messages of one action
(one group message per group, one private message per user) and queues them on the
bot's :class:`SendQueue`, which keeps at least ``SEND_INTERVAL`` seconds between two
sends (QQ accounts get rate-limited, 风控, when a bot sends too fast), retries a failed
group message with backoff a bounded number of times, and reports a failed private
message in its group with how to fix it (never with its content; without a name, and
only after the phase is over, when only a hidden role got it — G-4).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from nonebot import get_plugin_config, logger
from nonebot.adapters.onebot.v11 import Bot, Message, MessageSegment

from plugins.paizhuo.config import Config


@dataclass(slots=True)
class Outgoing:
    """One message: ``kind`` ``"group"`` or ``"private"``, ``target`` the group or user id
    (as a string), ``message`` the content. ``group_id`` of a private message is the group
    to tell if it cannot be delivered. ``sent`` becomes ``True`` once :func:`deliver`
    sent it (alone or merged with others: ``parts`` are the messages merged into it)."""

    kind: str
    target: str
    message: Message
    group_id: str | None = None
    forward: list[Message] | None = None
    """When set: sent as one merged-forward message (合并转发) of these nodes, and
    ``message`` (the same text, plain) is sent instead when the OneBot call fails."""
    image: bytes | None = None
    """When set: this PNG is sent, and ``message`` (the same content as text) instead
    when the OneBot call fails."""
    sent: bool = False
    parts: list[Outgoing] = field(default_factory=list, repr=False, compare=False)
    hidden: bool = False
    """A private message only a hidden role gets: a failure is reported without a name,
    and not before the group's next ``release`` message (G-4)."""
    release: bool = False
    """A group message after which held failure notices of hidden messages may be told."""


def plain(text: str | Message) -> Message:
    """``text`` as a message of one text segment: CQ-code-like text stays text (a player's
    name or input can never become an @全体成员 or an image)."""
    return Message(text) if isinstance(text, Message) else Message(MessageSegment.text(text))


def group(group_id: str, message: Message | str, release: bool = False) -> Outgoing:
    """A group message (a ``str`` is sent as plain text)."""
    return Outgoing("group", group_id, plain(message), release=release)


def private(user_id: str, message: Message | str, group_id: str | None = None,
            hidden: bool = False) -> Outgoing:
    """A private message to ``user_id`` (a ``str`` is plain text); failures are reported
    in ``group_id`` (without a name when ``hidden``)."""
    return Outgoing("private", user_id, plain(message), group_id, hidden=hidden)


def private_failed_notice(user_id: str) -> Message:
    """The group notice for a private message that could not be delivered."""
    return MessageSegment.at(int(user_id)) + MessageSegment.text(
        " 私聊消息发送失败：请先加机器人为好友，再发送 /手牌 取回手牌和待答的问题。")


def hidden_failed_notice() -> Message:
    """The group notice for undelivered private messages that only a hidden role got:
    it names nobody (G-4)."""
    return Message(MessageSegment.text(
        "有私聊消息发送失败：请各位确认已加机器人为好友，再发送 /手牌 取回手牌和待答的问题。"))


def merge(outs: list[Outgoing]) -> list[Outgoing]:
    """One message per recipient, at the place of its first part, parts joined by a line
    break (the messages of one action arrive together and in order)."""
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
            first.parts.append(out)
            first.hidden = first.hidden and out.hidden
            first.release = first.release or out.release
        else:
            merged[key] = Outgoing(out.kind, out.target, Message(out.message), out.group_id,
                                   hidden=out.hidden, release=out.release, parts=[out])
    return list(merged.values())


class SendQueue:
    """The paced sender of one bot account; a single worker task sends in FIFO order."""

    def __init__(self, interval: float, retries: int) -> None:
        self.interval = interval
        self.retries = max(1, retries)
        self.queue: asyncio.Queue[tuple[Bot, list[Outgoing], asyncio.Future[None]]] = asyncio.Queue()
        self.last = 0.0
        self.sent = 0
        self.worker: asyncio.Task[None] | None = None
        self.held: set[str] = set()
        """Groups owed a :func:`hidden_failed_notice`."""

    def start(self) -> None:
        """Start the worker (again, if it stopped)."""
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._run())

    async def _pace(self) -> None:
        wait = self.last + self.interval - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self.last = time.monotonic()

    async def _run(self) -> None:
        while True:
            bot, outs, done = await self.queue.get()
            try:
                for out in outs:
                    await self._send(bot, out)
                    if out.kind == "group" and out.release and out.target in self.held:
                        self.held.discard(out.target)
                        await self._send(bot, Outgoing("group", out.target, hidden_failed_notice()))
            except Exception:  # noqa: BLE001 - the worker must survive anything
                logger.exception("send queue failure")
            finally:
                if not done.done():
                    done.set_result(None)

    async def _send(self, bot: Bot, out: Outgoing) -> None:
        if out.forward is not None and await self._send_forward(bot, out):
            return
        if out.image is not None and await self._send_image(bot, out):
            return
        tries = self.retries if out.kind == "group" else 1
        for attempt in range(tries):
            await self._pace()
            try:
                if out.kind == "group":
                    await bot.send_group_msg(group_id=int(out.target), message=out.message)
                else:
                    await bot.send_private_msg(user_id=int(out.target), message=out.message)
                self.sent += 1
                out.sent = True
                for part in out.parts:
                    part.sent = True
                return
            except Exception as err:  # noqa: BLE001 - any failure of the OneBot side
                logger.warning(f"send failed ({attempt + 1}/{tries}): {out.kind} {out.target}: {err!r}")
                if attempt + 1 < tries:
                    await asyncio.sleep(min(4.0, 0.5 * 2 ** attempt))
        if out.kind == "private" and out.group_id and out.hidden:
            self.held.add(out.group_id)  # told, without a name, after the next release (G-4)
        elif out.kind == "private" and out.group_id:
            await self._send(bot, Outgoing("group", out.group_id, private_failed_notice(out.target)))
        elif out.kind == "group":
            logger.warning(f"group message to {out.target} dropped after {tries} tries")


    async def _send_forward(self, bot: Bot, out: Outgoing) -> bool:
        """One try of a merged-forward message (OneBot v11 ``send_group_forward_msg`` /
        ``send_private_forward_msg``); ``False`` when it failed (the caller sends the
        plain text)."""
        await self._pace()
        nodes = Message([MessageSegment.node_custom(user_id=int(bot.self_id), nickname="牌桌",
                                                    content=part) for part in out.forward or []])
        try:
            if out.kind == "group":
                await bot.send_group_forward_msg(group_id=int(out.target), messages=nodes)
            else:
                await bot.send_private_forward_msg(user_id=int(out.target), messages=nodes)
        except Exception as err:  # noqa: BLE001 - not every OneBot implementation has it
            logger.warning(f"forward message failed, sending plain text: {out.kind} {out.target}: {err!r}")
            return False
        self.sent += 1
        return True


    async def _send_image(self, bot: Bot, out: Outgoing) -> bool:
        """One try of a picture; ``False`` when it failed (the caller sends the text)."""
        await self._pace()
        picture = Message(MessageSegment.image(out.image or b""))
        try:
            if out.kind == "group":
                await bot.send_group_msg(group_id=int(out.target), message=picture)
            else:
                await bot.send_private_msg(user_id=int(out.target), message=picture)
        except Exception as err:  # noqa: BLE001 - e.g. the implementation cannot upload
            logger.warning(f"picture failed, sending text: {out.kind} {out.target}: {err!r}")
            return False
        self.sent += 1
        return True


_queues: dict[str, SendQueue] = {}


def queue_for(bot: Bot) -> SendQueue:
    """The send queue of ``bot``'s account (created on first use)."""
    q = _queues.get(bot.self_id)
    if q is None:
        config = get_plugin_config(Config)
        q = _queues[bot.self_id] = SendQueue(config.send_interval, config.send_retries)
    q.start()
    return q


async def deliver(bot: Bot, outs: list[Outgoing]) -> None:
    """Merge ``outs`` and send them through the bot's queue; returns once they were sent
    (or reported). Never raises. Each of ``outs`` that was sent has ``sent`` set."""
    if not outs:
        return
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    queue_for(bot).queue.put_nowait((bot, merge(outs), done))
    await done


def stop_queues() -> None:
    """Stop every send worker (shutdown)."""
    for q in _queues.values():
        if q.worker is not None:
            q.worker.cancel()
    _queues.clear()
