"""The event gate (``ordering.py``: each message once, one person's messages in order), the
room's own events (``Room.intercept``: the official bot's linking and button
acknowledgements) and the event scope (``scope.py``) on the sides the bot dials — Milky,
Satori and the official QQ bot — whose
adapters make a task per event themselves (``asyncio.create_task(bot.handle_event(event))``
in their receive loops) and de-duplicate nothing.

:func:`gate_bot` wraps the connection's ``handle_event`` (an instance attribute, set before
the adapter reports the bot connected, so before its first event): called in arrival
order by the adapter's loop, the wrapper drops a repeated delivery (the room's key:
Milky (scene, peer, seq), Satori's message id) and returns the coroutine that waits for the
same person's previous message. :func:`gated` makes the subclass of an adapter that does
this in ``bot_connect`` (NoneBot's public hook between an adapter and the driver);
``bot.py`` registers those. A host bot that registers the plain adapters gets the same
games without the gate (its events handled as they come; a repeat is still handled once
by the plugin, which checks the message keys it keeps in the database), as it gets them
without the OneBot guards (docs/platforms.md).

NoneBot keeps one bot per id, and a Milky bot's id is the account's QQ number, as a
OneBot bot's is: the account connected over OneBot (or a second Milky side) already, a
new Milky connection would be refused by NoneBot itself, with a traceback the adapter
repeats every few seconds — and the adapter, keeping that bot, would then serve its
stream unregistered and, when it ends, unregister the other side's bot of the same id.
So the gated adapter refuses it first (:meth:`Gated.bot_connect`): one log line of ours,
the stream stays up with its events dropped, and once the other connection goes, the
waiting one is registered (the account goes on over this side).
"""

from __future__ import annotations

from typing import Any

import nonebot
from nonebot import logger
from nonebot.adapters import Adapter, Bot
from nonebot.drivers import Request, Response

from .. import ordering
from ..port import room_of
from . import fast_dispatch, scope

GATED = "_paizhuo_gated"
"""Attribute marking a connection whose ``handle_event`` is gated."""
WAITING = "_paizhuo_waiting"
"""Attribute marking a connection not registered with NoneBot: another side's bot of the
same id is (:meth:`Gated.bot_connect`); its events are dropped."""
_waiting: dict[str, tuple[Adapter, Bot]] = {}
"""The connections waiting for another side's bot of the same id to go, by id."""


def gate_bot(bot: Bot) -> None:
    """Put the gate (and, with fast dispatch, the event scope) in front of ``bot``'s
    ``handle_event`` (once; nothing for a side without a room)."""
    room = room_of(bot)
    if room is None or getattr(bot, GATED, False):
        return
    handle = bot.handle_event
    account = room.account(bot)

    async def dropped() -> None:
        return None

    def gated_handle(event: Any) -> Any:
        if getattr(bot, WAITING, False) or not ordering.GATE.first_delivery(
                account, event, room.delivery) or room.intercept(bot, event):
            return dropped()
        run = handle(event)
        if fast_dispatch():
            run = scope.handling(bot, event, run)
        return ordering.GATE.ordered(event, run, room.delivery)

    bot.handle_event = gated_handle  # type: ignore[method-assign]
    setattr(bot, GATED, True)


def gated(base: type[Adapter]) -> type[Adapter]:
    """A subclass of the adapter ``base`` whose connections are gated (:func:`gate_bot`)
    before they are reported connected; it handles its events in the scope, so the
    dispatchers read them from there; its HTTP calls share one client session."""

    class Gated(base):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            scope.provided = True
            self._kept: Any = None

        def bot_connect(self, bot: Bot) -> None:
            gate_bot(bot)
            other = nonebot.get_bots().get(bot.self_id)
            if other is not None and other is not bot:
                _wait(self, bot, other)
                return
            setattr(bot, WAITING, False)
            _waiting.pop(bot.self_id, None)
            super().bot_connect(bot)

        def bot_disconnect(self, bot: Bot) -> None:
            if getattr(bot, WAITING, False):  # never registered: the other bot stays
                setattr(bot, WAITING, False)
                if _waiting.get(bot.self_id, (None, None))[1] is bot:
                    del _waiting[bot.self_id]
                return
            super().bot_disconnect(bot)

        async def request(self, setup: Request) -> Response:
            """The adapter's HTTP calls through one kept client session (NoneBot's httpx
            driver makes a new client, SSL context and all, for every ``request``: about
            45 ms of CPU per Milky API call, docs/benchmarks.md「协议端」). The request's own
            timeout still applies; the session is closed at shutdown."""
            get_session = getattr(self.driver, "get_session", None)
            if get_session is None:
                return await super().request(setup)
            if self._kept is None:
                session = get_session()
                await session.setup()
                self._kept = session
                self.driver.on_shutdown(self._close_kept)
            return await self._kept.request(setup)

        async def _close_kept(self) -> None:
            kept, self._kept = self._kept, None
            if kept is not None:
                await kept.close()

    Gated.__name__ = Gated.__qualname__ = f"Gated{base.__name__}"
    return Gated


def _wait(adapter: Adapter, bot: Bot, other: Bot) -> None:
    """Keep ``bot`` (a new connection of an account another side's bot of the same id
    serves) unregistered until ``other`` goes (one log line)."""
    room, held = room_of(bot), room_of(other)
    side = room.name if room is not None else adapter.get_name()
    over = held.name if held is not None else other.adapter.get_name()
    account = room.account(bot) if room is not None else bot.self_id
    setattr(bot, WAITING, True)
    _waiting[bot.self_id] = (adapter, bot)
    logger.warning(f"牌桌: 拒绝 Bot {account} 经 {side} 的连接：这个账号正经 {over} 连着本进程，"
                   "一个账号同时只能经一个协议端连接（那条连接断开后改用这条）")
    _watch_disconnects()


_watching = False


def _watch_disconnects() -> None:
    """Once: when a bot disconnects, register the connection waiting for its id."""
    global _watching
    if _watching:
        return
    _watching = True

    @nonebot.get_driver().on_bot_disconnect
    async def _take_over(bot: Bot) -> None:
        waiting = _waiting.get(bot.self_id)
        if waiting is None or waiting[1] is bot or not getattr(waiting[1], WAITING, False):
            return
        adapter, successor = waiting
        if bot.self_id in nonebot.get_bots():
            return  # another one connected meanwhile: it keeps waiting
        adapter.bot_connect(successor)
        logger.info(f"牌桌: Bot {successor.self_id} 改经 {adapter.get_name()} 连着本进程")


def dial_sides(driver: Any) -> list[type[Adapter]]:
    """The gated adapters of the sides the bot dials that the settings name: Milky when
    ``MILKY_CLIENTS`` (or ``MILKY_WEBHOOK``) is set, Satori when ``SATORI_CLIENTS`` is (as
    each adapter reads its settings; none set: that side is not registered, so a
    OneBot-only bot needs no client driver)."""
    from ..port import ROOMS

    return [gated(room.adapter) for room in ROOMS
            if room.adapter is not None and room.configured()]
