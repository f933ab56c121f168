"""The port's contract: what the chat layer asks of a protocol side, and the neutral
shapes it asks in.

The table, the engine, the records and the texts speak of a group, a person, a private
message, a picture, a long text (merged forward) and an @ (``port/message.py``). A
:class:`Room` is one protocol side's adapter behind that vocabulary: who is speaking and
where (:class:`Said`), how to send each kind of message and how a send fails (it raises:
the send scheduler counts any exception, or its own timeout, as a failed send), whether a
person can be reached privately, the names in a group, the account's groups, which events
are deliveries of the same message again. No module outside ``port/`` imports a
protocol's types; a side that is not installed simply has no room.

Room-specific rules live in the rooms' docstrings: OneBot v11 (``onebot.py``), Milky
(``milky.py``), Satori (``satori.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from nonebot.adapters import Adapter, Bot, Event
from pydantic import create_model

from .message import Message

QQ_SCOPE = "QQClient"
"""The identity scope of a person on the QQ client protocols (OneBot v11 on NapCat /
LLBot / Lagrange, Milky, Satori on LLBot / Chronocat): QQ numbers, the same person on each
(uninfo calls it ``QQClient`` too). Records kept before scopes were recorded are this
scope's."""


@dataclass(frozen=True, slots=True)
class Said:
    """A person's message as the chat layer needs it.

    ``account``: the bot account that received it (the QQ number on the QQ sides);
    ``scope`` and ``user_id``: who said it (identity is the pair); ``group_id``: the group,
    ``None`` for a private message; ``name``: the sender's group card or nickname (may be
    empty); ``role``: ``owner`` / ``admin`` / ``member`` in the group (``member`` when the
    side does not say); ``text``: the plain text; ``mentions``: the persons it @-mentions;
    ``role_known``: false when the event did not carry the sender's role (LLBot's Satori
    group messages): whoever needs it asks the side (:meth:`Room.member_role`).
    """

    room: Room
    account: str
    scope: str
    user_id: str
    group_id: str | None
    name: str
    role: str
    text: str
    mentions: tuple[str, ...] = ()
    role_known: bool = True

    @property
    def private(self) -> bool:
        """A private message (not in a group)."""
        return self.group_id is None


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the event gate (``ordering.py``) needs of a message event: ``key`` identifies
    the message on its side (a side that delivers it again repeats it), ``user`` orders one
    person's messages, ``mark`` is what a repeat has in common with the first delivery
    besides its key (a side that restarted may reuse keys)."""

    key: Any
    user: str
    mark: tuple[Any, ...]


class Outgoing(Protocol):
    """What a room sends (``messaging.Outgoing``): ``kind`` ``group`` / ``private``,
    ``target`` (the group or person), ``message``; ``image`` (PNG bytes) or ``forward``
    (nodes: a :class:`Message` or a picture's PNG bytes) when it is one of those."""

    kind: str
    target: str
    message: Message
    image: bytes | None
    forward: list[Message | bytes] | None


@dataclass(frozen=True, slots=True)
class Dialled:
    """A side the bot dials, as its setting names it: ``setting`` (``MILKY_CLIENTS``),
    ``url`` (its API root), ``token_set`` (the setting gives a token)."""

    setting: str
    url: str
    token_set: bool


class DialSettingsError(ValueError):
    """A dial setting (``MILKY_CLIENTS``, ``SATORI_CLIENTS``) that cannot be read or would
    never connect; the message is one Chinese line for the owner."""


def check_dial_setting(setting: str, token_key: str, other_key: str, example: str,
                       read: Callable[[], list[Any]]) -> list[Any]:
    """The clients of the dial setting ``setting`` (``MILKY_CLIENTS``) as the adapter reads
    them (``read``), checked the way an owner gets it wrong: not JSON, not a list of
    objects with ``host`` and ``port``, the token under the other side's key
    (``other_key`` instead of ``token_key``: the adapter would silently send none), a
    token that is not ASCII (it goes in an HTTP header, which the HTTP client cannot
    encode: the adapter would retry for ever). ``example`` is the right form. Raises
    :class:`DialSettingsError`."""
    import nonebot

    form = f"应写成一行 {setting}={example}"
    try:
        clients = read()
    except Exception as err:  # noqa: BLE001 - pydantic / NoneBot's SettingsError, JSON
        cause = err.__cause__ or err
        why = (f"不是正确的 JSON（{cause}）" if isinstance(cause, ValueError)
               and type(cause).__name__ == "JSONDecodeError" else "每一项要有 host 和 port")
        raise DialSettingsError(f".env 里的 {setting} 读不出来：{why}；{form}") from None
    raw_model = create_model(f"Raw{setting.title()}", **{setting.lower(): (list[Any], [])})
    raw = getattr(nonebot.get_plugin_config(raw_model), setting.lower())  # environment or .env
    for item in raw:
        if isinstance(item, dict) and other_key in item and token_key not in item:
            raise DialSettingsError(f".env 里 {setting} 的令牌要写在 \"{token_key}\" 里"
                                    f"（写成了 \"{other_key}\"，机器人会不带令牌去连）；{form}")
    for client in clients:
        token = getattr(client, token_key, None) or ""
        if not token.isascii():
            raise DialSettingsError(
                f".env 里 {setting} 的令牌只能用英文字母、数字和符号（它放在 HTTP 头里）："
                "在协议端里换一个这样的令牌，两边填同一个")
    return clients


class Room(ABC):
    """One protocol side behind the port (see the module docstring)."""

    name: ClassVar[str]
    """``onebot``, ``milky``, ``satori``."""
    title: ClassVar[str]
    """The side's name for people (``/牌桌 状态``): ``OneBot v11``, ``Milky``, ``Satori``,
    ``QQ 官方机器人``."""
    supported_adapter: ClassVar[str]
    """The adapter's name for ``PluginMetadata.supported_adapters`` (``~onebot.v11`` …)."""
    bot_class: ClassVar[type[Bot]]
    group_events: ClassVar[tuple[type[Event], ...]]
    """The adapter's event classes of a message in a group."""
    private_events: ClassVar[tuple[type[Event], ...]]
    """The adapter's event classes of a private message (a temporary session included)."""
    private_to_strangers: ClassVar[bool] = False
    """Whether a person who is not a friend of the account can be sent private messages
    (hands, questions): then nobody is asked to add the bot first."""
    forward_sender = "牌桌"
    """The name on each node of a merged forward."""
    adapter: ClassVar[type[Adapter] | None] = None
    """The adapter of a side the bot dials (``bot.py`` registers it, gated, when
    :meth:`configured`); ``None`` for a side that dials the bot (OneBot: its guarded
    adapter is always registered)."""

    def configured(self) -> bool:
        """Whether the settings name a side of this kind to dial."""
        return False

    def dialled(self) -> list[Dialled]:
        """Each side of this kind the settings name for the bot to dial (empty for a
        side that dials the bot). Raises :class:`DialSettingsError` (one Chinese line for
        the owner) when the setting cannot be read or would never connect."""
        return []

    def owns(self, bot: Bot) -> bool:
        """Whether ``bot`` is a connection of this side."""
        return isinstance(bot, self.bot_class)

    def account(self, bot: Bot) -> str:
        """The account a connection serves (its QQ number on the QQ sides)."""
        return str(bot.self_id)

    def scope(self, bot: Bot) -> str:
        """The identity scope of the persons this connection sees."""
        return QQ_SCOPE

    @abstractmethod
    def said(self, bot: Bot, event: Event) -> Said | None:
        """A person's message in a group or in private (``None`` for any other event)."""

    @abstractmethod
    def where(self, event: Event) -> tuple[str | None, str]:
        """``(group id or None for a private message, sender)`` of one of this side's
        message events (the hot path's view: no bot needed)."""

    @abstractmethod
    def delivery(self, event: Event) -> Delivery | None:
        """The gate's view of a message event; ``None`` for other events (they pass)."""

    @abstractmethod
    def mentions(self, message: Any) -> list[str]:
        """The persons @-mentioned in ``message`` (the adapter's own, e.g. a command's
        argument), in order; @全体成员 is none."""

    def intercept(self, bot: Bot, event: Event) -> bool:
        """Called first for every event of this side (by the gated adapter,
        ``internals/gated.py``): ``True`` when the event is the side's own business, handled
        here (the official bot: linking a seat to its private chat, a button's
        acknowledgement) and never seen by the chat layer."""
        return False

    def unreachable_text(self) -> str:
        """The group's notice, after the @ of the player, when a private message to them
        could not be delivered (never what it said)."""
        return "私聊消息发送失败：请先加机器人为好友，再发送 /手牌 取回手牌和待答的问题。"

    def join_text(self) -> str:
        """The reply to someone who cannot be sent private messages and wants a seat."""
        return "机器人需要私聊给你发牌：请先加机器人为好友，再来入座。"

    plays_privately: ClassVar[bool] = False
    """Whether a seated player's own moves (``出``, ``过``, a bid) are taken in private chat
    too, as if said in their table's group (the official bot, where the private chat is
    where the player's hand and buttons are; elsewhere moves are said in the group, where
    everyone sees them)."""
    tell_unreachable_once: ClassVar[bool] = False
    """Whether a player the bot cannot reach privately is told so in the group only once
    until a private message reaches them again (where every further private send would
    fail the same way until the player acts: the official bot's reply windows)."""

    def membership(self, bot: Bot, event: Event) -> tuple[str, str] | None:
        """``("joined" | "left", group id)`` when ``event`` says the account itself joined
        or left a group; ``None`` otherwise."""
        return None

    @abstractmethod
    async def send(self, bot: Bot, out: Outgoing) -> None:
        """Send one message (text, picture or merged forward) to a group or a person;
        returns once the side accepted it. Raises whatever the adapter raises when the
        side refuses it or cannot be reached."""

    @abstractmethod
    async def is_friend(self, bot: Bot, user_id: str) -> bool:
        """Whether ``user_id`` is on the account's friend list. Raises when the side
        cannot tell."""

    async def reachable(self, bot: Bot, user_id: str) -> bool:
        """Whether private messages to ``user_id`` can be sent (a friend, or anyone where
        the side allows temporary sessions)."""
        return self.private_to_strangers or await self.is_friend(bot, user_id)

    @abstractmethod
    async def group_ids(self, bot: Bot) -> set[str]:
        """The groups the account is in. Raises when the side cannot list them."""

    @abstractmethod
    async def member_name(self, bot: Bot, group_id: str, user_id: str) -> str | None:
        """A member's group card or nickname (raw, not cleaned); ``None`` when the side
        does not know them. Raises when the call fails."""

    async def member_role(self, bot: Bot, group_id: str, user_id: str) -> str:
        """A member's role in the group as the side knows it now: ``owner`` / ``admin`` /
        ``member``; asked only for a message whose event did not say (``Said.role_known``
        false; a side whose events always say keeps this default). Raises when the call
        fails."""
        return "member"

    @abstractmethod
    async def member_names(self, bot: Bot, group_id: str) -> dict[str, str]:
        """Every member's group card or nickname (raw). Raises when the call fails."""


ROOMS: list[Room] = []
"""The rooms of the sides whose adapters are installed, in the order they are tried."""
_by_class: dict[type, Room | None] = {}
_by_event: dict[type, Room] = {}


def register(room: Room) -> None:
    """Add a side's room (once per side)."""
    if all(r.name != room.name for r in ROOMS):
        ROOMS.append(room)
        _by_class.clear()
        _by_event.clear()


def room_of(bot: Bot) -> Room | None:
    """The room of ``bot``'s side, ``None`` for a side the port does not serve."""
    kind = type(bot)
    if kind not in _by_class:
        _by_class[kind] = next((r for r in ROOMS if r.owns(bot)), None)
    return _by_class[kind]


def where(event: Event) -> tuple[str | None, str]:
    """``(group id or None, sender)`` of a person's message on any side with a room.
    Raises ``TypeError`` for another event."""
    kind = type(event)
    room = _by_event.get(kind)
    if room is None:
        room = next((r for r in ROOMS if issubclass(kind, r.group_events + r.private_events)),
                    None)
        if room is None:
            raise TypeError(f"{kind.__name__} is not a person's message on a known side")
        _by_event[kind] = room
    return room.where(event)


def said(bot: Bot, event: Event) -> Said | None:
    """The neutral view of ``event`` (``None``: no room, or not a person's message)."""
    room = room_of(bot)
    return room.said(bot, event) if room is not None else None


def account_of(bot: Bot) -> str:
    """The account ``bot`` serves (its ``self_id`` on a side without a room)."""
    room = room_of(bot)
    return room.account(bot) if room is not None else str(bot.self_id)


def scope_of(bot: Bot) -> str:
    """The identity scope of the persons ``bot`` sees (``QQClient`` on a side without a
    room)."""
    room = room_of(bot)
    return room.scope(bot) if room is not None else QQ_SCOPE


def is_own(bot: Bot, event: Event) -> bool:
    """Whether ``event`` is a person's message sent by the bot's own account (echoed
    back)."""
    room = room_of(bot)
    if room is None or not isinstance(event, room.group_events + room.private_events):
        return False
    return room.where(event)[1] == room.account(bot)


Hook = Callable[[Bot], None]
