"""What the table, the games and the records say, whichever side carries it: a text with
@-mentions of persons (``Message`` of ``MessageSegment.text`` / ``MessageSegment.at``).

Built on NoneBot's adapter-neutral ``Message`` / ``MessageSegment`` base classes (``+``,
``extract_plain_text``, iteration), it knows no protocol: each room (``port/rooms``) turns
it into its adapter's message when it sends — a OneBot ``at`` segment, a Milky
``mention``, a Satori ``<at>`` — and a picture or a merged forward is a field of
``messaging.Outgoing``, never a segment here. A ``str`` given to :class:`Message` is
always plain text (nothing in a player's name or input becomes an element).

Saved as JSON (``Table.pending``, the end messages of ``game_records``) with
:func:`to_json` / :func:`from_json`: ``{"type": "text", "data": {"text": …}}`` and
``{"type": "at", "data": {"user_id": …}}``; rows written before the port (OneBot segments,
``{"qq": …}``) read back the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nonebot.adapters import Message as BaseMessage
from nonebot.adapters import MessageSegment as BaseMessageSegment
from typing_extensions import override

TEXT, AT = "text", "at"


class MessageSegment(BaseMessageSegment["Message"]):
    """One piece of a :class:`Message`: ``text`` (``data["text"]``) or ``at`` (an
    @-mention of a person, ``data["user_id"]``: the side's user id as a string)."""

    @classmethod
    @override
    def get_message_class(cls) -> type[Message]:
        return Message

    @override
    def __str__(self) -> str:
        return self.data["text"] if self.type == TEXT else f"@{self.data['user_id']}"

    @override
    def is_text(self) -> bool:
        return self.type == TEXT

    @classmethod
    def text(cls, text: str) -> MessageSegment:
        """Plain text."""
        return cls(TEXT, {"text": str(text)})

    @classmethod
    def at(cls, user_id: int | str) -> MessageSegment:
        """An @-mention of the person ``user_id``."""
        return cls(AT, {"user_id": str(user_id)})

    @property
    def user_id(self) -> str | None:
        """The person an ``at`` mentions (``None`` for text)."""
        return self.data.get("user_id") if self.type == AT else None


class Message(BaseMessage[MessageSegment]):
    """A text with @-mentions (see the module docstring)."""

    @classmethod
    @override
    def get_segment_class(cls) -> type[MessageSegment]:
        return MessageSegment

    @staticmethod
    @override
    def _construct(msg: str) -> Iterable[MessageSegment]:
        yield MessageSegment.text(msg)

    def mentions(self) -> list[str]:
        """The persons @-mentioned, in order."""
        return [seg.data["user_id"] for seg in self if seg.type == AT]


def plain(text: str | Message) -> Message:
    """``text`` as a message (a ``str`` is one text segment, a :class:`Message` a copy)."""
    return Message(text) if isinstance(text, Message) else Message(MessageSegment.text(text))


def to_json(message: Message) -> list[dict[str, Any]]:
    """A message as JSON-able data (see the module docstring)."""
    return [{"type": seg.type, "data": dict(seg.data)} for seg in message]


def from_json(data: list[dict[str, Any]]) -> Message:
    """Inverse of :func:`to_json`; also reads the OneBot segments saved before the port
    (an ``at`` with ``qq``); any other segment type is kept as its text (if any)."""
    out = Message()
    for seg in data:
        kind, fields = seg.get("type"), seg.get("data") or {}
        if kind == AT:
            user = fields.get("user_id", fields.get("qq"))
            if user is not None:
                out.append(MessageSegment.at(str(user)))
        elif "text" in fields:
            out.append(MessageSegment.text(str(fields["text"])))
    return out
