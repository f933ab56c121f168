"""The platform port (平台端口): the one place that knows QQ's protocol sides.

The rest of the chat layer — the table, the games' texts, the records, the send
scheduler — speaks of a group, a person, a private message, a picture, a long text and an
@ (:mod:`.message`), and asks the side's :class:`~.room.Room` for the rest: who said what
where (:class:`~.room.Said`), sending, whether a person can be reached privately, names,
the account's groups, the keys of a message for de-duplication. One room per side, each
in its own module with its rules in the docstring:

* :mod:`.onebot` — OneBot v11 (NapCat, LLBot, Lagrange V1), the side that dials the bot;
* :mod:`.milky` — Milky (Lagrange.Milky, LLBot), the bot dials it;
* :mod:`.satori` — Satori (LLBot, Chronocat), the bot dials it;
* :mod:`.qq` — the official QQ bot (QQ 开放平台), the bot dials Tencent's gateway.

A side whose adapter is not installed has no room. The event classes the matchers take
(:data:`GroupEvent`, :data:`PrivateEvent`, :data:`AnyMessageEvent`) are the unions of the
installed rooms' own.

Why not nonebot-plugin-alconna's ``UniMessage`` and nonebot-plugin-uninfo's ``Session``
here (the ecosystem's usual way): docs/platforms.md gives the measurements and the
mistakes they make on these sides (a picture without a MIME type sent as text on Satori,
a Milky temporary session answered into a group, LLBot's persons in a ``satori_other``
scope and its private chats as group scenes); each room is a few dozen lines over its
adapter's own API instead.
"""

from __future__ import annotations

import contextlib
from typing import Union

from nonebot.adapters import Event

from .message import Message, MessageSegment, plain
from .onebot import OneBotRoom  # noqa: E402  (OneBot v11 is a dependency of the plugin)
from .room import (
    QQ_SCOPE,
    ROOMS,
    Delivery,
    Dialled,
    DialSettingsError,
    Room,
    Said,
    account_of,
    is_own,
    register,
    room_of,
    said,
    scope_of,
    where,
)

register(OneBotRoom())
with contextlib.suppress(ImportError):
    from .milky import MilkyRoom

    register(MilkyRoom())
with contextlib.suppress(ImportError):
    from .satori import SatoriRoom

    register(SatoriRoom())
with contextlib.suppress(ImportError):
    from .qq import QQRoom

    register(QQRoom())

_group = tuple(c for room in ROOMS for c in room.group_events)
_private = tuple(c for room in ROOMS for c in room.private_events)
GroupEvent = Union[_group]  # type: ignore[valid-type]  # noqa: UP007
"""A message in a group, on any installed side (a handler taking it runs for group
messages only)."""
PrivateEvent = Union[_private]  # type: ignore[valid-type]  # noqa: UP007
"""A private message (a temporary session included), on any installed side."""
AnyMessageEvent = Union[_group + _private]  # type: ignore[valid-type]  # noqa: UP007
"""A person's message in a group or in private, on any installed side."""


def supported_adapters() -> set[str]:
    """``PluginMetadata.supported_adapters``: every side with a room (and its tests)."""
    return {room.supported_adapter for room in ROOMS}


def is_message(event: Event) -> bool:
    """Whether ``event`` is a person's message on a side with a room."""
    return isinstance(event, _group + _private)


__all__ = ["QQ_SCOPE", "ROOMS", "AnyMessageEvent", "Delivery", "DialSettingsError", "Dialled", "GroupEvent", "Message",
           "MessageSegment", "PrivateEvent", "Room", "Said", "account_of", "is_message",
           "is_own", "plain", "register", "room_of", "said", "scope_of", "supported_adapters", "where"]
