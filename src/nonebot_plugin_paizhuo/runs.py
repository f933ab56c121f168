"""Runs of automatic moves (连续的代打) as one post.

Between two decisions of people, the moves nobody decides — computer players (电脑),
players in 托管, 要不起自动过, timeouts — go out together: one group post that lists every
move in order and ends with the prompt of the person who must act now, and per player one
private message (only the latest hand update of each). While a run waits for its pause
(``PAIZHUO_COMPUTER_DELAY``), its messages are kept with the table (``Table.pending``, saved with
every move), so a restart or a failed save loses none of them.

Only the person who must act now is @-mentioned: every other @ in a run's group post
(an old prompt, a player in 托管) becomes the plain name.
"""

from __future__ import annotations

import re

from .messaging import Outgoing
from .port import Message, MessageSegment
from .tables import message_from_json, message_to_json


def dump_outs(outs: list[Outgoing]) -> list[dict]:
    """Plain messages (no forward, no picture) as JSON-able data for ``Table.pending``."""
    return [{"kind": o.kind, "target": o.target, "message": message_to_json(o.message),
             "group_id": o.group_id, "coalesce": o.coalesce, "hidden": o.hidden,
             "release": o.release, "prompt": o.prompt, "hand_of": o.hand_of}
            for o in outs if o.forward is None and o.image is None]


def load_outs(data: list[dict]) -> list[Outgoing]:
    """Inverse of :func:`dump_outs`."""
    return [Outgoing(d["kind"], d["target"], message_from_json(d["message"]), d.get("group_id"),
                     d.get("coalesce"), hidden=bool(d.get("hidden")), release=bool(d.get("release")),
                     prompt=bool(d.get("prompt")), hand_of=d.get("hand_of"))
            for d in data]


def assemble(earlier: list[Outgoing], last: list[Outgoing], actor: str | None,
             names: dict[str, str], prompt: bool = True) -> list[Outgoing]:
    """The messages of a run, ready to send: ``earlier`` (kept with the table) then
    ``last`` (the latest change). Every prompt is left out but the latest one (each move
    of a game in play ends with the prompt for the next, so the latest is the current
    one), which goes last in the group post; none at all when ``prompt`` is false (no
    seat is to move: private answers are awaited, or the game is over). Of each player's hand updates only the latest is kept; an @ of anyone
    but ``actor`` (the user who must act now, ``None``: nobody) becomes the name from
    ``names`` (user id → name)."""
    prompts = [o for o in [*earlier, *last] if o.prompt]
    final = prompts[-1] if prompts and prompt else None
    outs = [o for o in [*earlier, *last] if not o.prompt]
    if final is not None:
        outs.append(final)
    latest_hand: dict[str, Outgoing] = {}
    for o in outs:
        if o.kind == "private" and o.coalesce == "hand":
            latest_hand[o.target] = o
    kept = []
    for o in outs:
        if o.kind == "private" and o.coalesce == "hand" and latest_hand[o.target] is not o:
            continue
        if o.kind == "group":
            o.message = only_at(o.message, actor, names)
        kept.append(o)
    return kept


TURN_TIME = re.compile(r"（\d+ 秒）$")


def in_tuoguan(prompt: Message) -> Message:
    """A turn prompt of a player in 托管: its turn time (``（60 秒）``) is not what the bot
    waits — it moves for them after a short pause — so it says ``（托管中）``."""
    out = Message()
    for i, seg in enumerate(prompt):
        if seg.type == "text" and i == len(prompt) - 1:
            text = str(seg.data.get("text", ""))
            seg = MessageSegment.text(TURN_TIME.sub("", text) + "（托管中）")
        out.append(seg)
    return out


def only_at(message: Message, actor: str | None, names: dict[str, str]) -> Message:
    """``message`` with every @ of a user other than ``actor`` as that user's name."""
    if not any(seg.user_id is not None and seg.user_id != actor for seg in message):
        return message
    out = Message()
    for seg in message:
        user = seg.user_id
        if user is not None and user != actor:
            out.append(MessageSegment.text(names.get(user, user)))
        else:
            out.append(seg)
    return out
