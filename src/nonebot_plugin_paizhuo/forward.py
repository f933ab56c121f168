"""Long texts (help, rules, a game's replay) as merged-forward messages (合并转发): one
tidy card in the chat instead of a wall of lines, with the plain text as the fallback
when the send fails or hangs (``Outgoing.fallback``: the send scheduler sends it as
a send of its own)."""

from __future__ import annotations

from .messaging import Outgoing
from .port import Message, Said, plain

NODE_LINES = 8
"""At most this many lines per forwarded node."""


def nodes_of(text: str, lines_per_node: int = NODE_LINES) -> list[Message]:
    """``text`` cut into nodes: a new node at every line starting with ``【`` or ending
    with ``：`` (a section head), and after ``lines_per_node`` lines."""
    nodes: list[list[str]] = []
    for line in text.splitlines():
        head = line.startswith("【") or line.endswith("：")
        if not nodes or head or len(nodes[-1]) >= lines_per_node:
            nodes.append([])
        nodes[-1].append(line)
    return [plain("\n".join(lines)) for lines in nodes if any(s.strip() for s in lines)]


def forward(kind: str, target: str, text: str, group_id: str | None = None) -> Outgoing:
    """``text`` to a group (``kind="group"``) or a user (``"private"``) as a forward
    message, or as plain text when that fails."""
    return Outgoing(kind, target, plain(text), group_id, forward=list(nodes_of(text)))


def forward_reply(heard: Said, text: str) -> Outgoing:
    """``text`` as a forward message to where it was said (group or private)."""
    if heard.group_id is not None:
        return forward("group", heard.group_id, text)
    return forward("private", heard.user_id, text)

