"""A simulated OneBot v11 implementation for end-to-end tests and demos.

This module plays the part that NapCat / Lagrange.OneBot play in production: it connects
to the bot over a **real** reverse WebSocket (``ws://HOST:PORT/onebot/v11/ws``), posts
NapCat-shaped events on behalf of simulated players and answers the bot's API calls from a
small simulated world (friends, groups, members).

It deliberately imports nothing from the project (``engine``, ``plugins``, ``db``); it
only speaks the protocol. Dependencies: the standard library and ``websockets``.

Two building blocks:

* :class:`BotProcess` starts ``bot.py`` as a subprocess on a free port.
* :class:`OneBotSim` is one QQ account (``self_id``) connected to that bot.

Typical use::

    async with BotProcess(tmp / "bot.log", access_token="t", superusers=[1],
                          database_url=f"sqlite+aiosqlite:///{tmp}/bot.db") as bot:
        sim = OneBotSim(self_id=10001)
        sim.add_member(100, 1, "甲")
        await sim.connect(bot.url, "t")
        since = sim.mark()
        await sim.group_message(100, 1, "/帮助")
        reply = await sim.wait_for(lambda s: s.kind == "group", since=since)
        await sim.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType
from typing import IO, Any, ClassVar, Literal

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tools.sim_base import ApiCall, ChatSim, Member, Sent

__all__ = [
    "ApiCall",
    "BotProcess",
    "ConnectionRejected",
    "Member",
    "OneBotSim",
    "Segment",
    "Sent",
    "escape_cq",
    "find_free_port",
    "http_post_event",
    "normalize_message",
    "parse_cq",
    "render_text",
    "seg_at",
    "seg_image",
    "seg_reply",
    "seg_text",
    "to_cq",
    "unescape_cq",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
"""Repository root (the parent of ``tools/``); ``bot.py`` lives here."""

NAPCAT_VERSION = "4.8.98"
"""Version string the simulator reports (User-Agent, ``get_version_info``)."""

RETCODE_FAILED = 1200
"""retcode used for simulated send failures (NapCat uses 1200 for most action errors)."""

RETCODE_BAD_PARAMS = 1400
"""retcode for malformed parameters."""

RETCODE_UNKNOWN_ACTION = 1404
"""retcode for actions the simulator does not implement."""

Segment = dict[str, Any]
"""One OneBot message segment: ``{"type": str, "data": dict}``."""

# --------------------------------------------------------------------------------------
# Message helpers (CQ codes, segments, rendering)
# --------------------------------------------------------------------------------------

_CQ_RE = re.compile(r"\[CQ:([A-Za-z0-9_.\-]+)((?:,[^,=\]]+=[^,\]]*)*),?\]")


def escape_cq(text: str, *, escape_comma: bool = False) -> str:
    """Escape ``&``, ``[``, ``]`` (and ``,`` when ``escape_comma``) for a CQ string."""
    text = text.replace("&", "&amp;").replace("[", "&#91;").replace("]", "&#93;")
    if escape_comma:
        text = text.replace(",", "&#44;")
    return text


def unescape_cq(text: str) -> str:
    """Undo :func:`escape_cq` (``&#91; &#93; &#44; &amp;``)."""
    return (
        text.replace("&#44;", ",").replace("&#91;", "[").replace("&#93;", "]").replace("&amp;", "&")
    )


def seg_text(text: str) -> Segment:
    """Build a ``text`` segment."""
    return {"type": "text", "data": {"text": text}}


def seg_at(user_id: int | str) -> Segment:
    """Build an ``at`` segment (``user_id`` may be ``"all"``)."""
    return {"type": "at", "data": {"qq": str(user_id)}}


def seg_reply(message_id: int) -> Segment:
    """Build a ``reply`` segment quoting ``message_id``."""
    return {"type": "reply", "data": {"id": str(message_id)}}


def seg_image(file: str) -> Segment:
    """Build an ``image`` segment."""
    return {"type": "image", "data": {"file": file}}


def parse_cq(message: str) -> list[Segment]:
    """Parse a CQ-code string into a segment array.

    ``"hi [CQ:at,qq=123] a&#91;b"`` → ``[text "hi ", at 123, text " a[b"]``. Text and
    parameter values are unescaped; empty text runs are dropped.
    """
    segments: list[Segment] = []
    pos = 0
    for match in _CQ_RE.finditer(message):
        if match.start() > pos:
            segments.append(seg_text(unescape_cq(message[pos : match.start()])))
        data: dict[str, str] = {}
        for part in match.group(2).split(","):
            if not part:
                continue
            key, _, value = part.partition("=")
            data[key] = unescape_cq(value)
        segments.append({"type": match.group(1), "data": data})
        pos = match.end()
    if pos < len(message):
        segments.append(seg_text(unescape_cq(message[pos:])))
    return segments


def to_cq(segments: Iterable[Segment]) -> str:
    """Render a segment array as a CQ-code string (the ``raw_message`` form)."""
    out: list[str] = []
    for seg in segments:
        data = seg.get("data") or {}
        if seg.get("type") == "text":
            out.append(escape_cq(str(data.get("text", ""))))
            continue
        params = "".join(
            f",{key}={escape_cq(str(value), escape_comma=True)}"
            for key, value in data.items()
            if value is not None
        )
        out.append(f"[CQ:{seg.get('type')}{params}]")
    return "".join(out)


def _normalize_segment(seg: Any) -> Segment:
    """Coerce one segment-like object into a fresh ``{"type", "data"}`` dict."""
    if isinstance(seg, str):
        return seg_text(seg)
    if not isinstance(seg, Mapping) or "type" not in seg:
        raise TypeError(f"not a message segment: {seg!r}")
    data = seg.get("data") or {}
    if not isinstance(data, Mapping):
        raise TypeError(f"segment data must be a mapping: {seg!r}")
    return {"type": str(seg["type"]), "data": dict(data)}


def normalize_message(message: Any, *, cq: bool = True) -> list[Segment]:
    """Turn any OneBot ``message`` value into a segment array.

    Accepts a segment array, a single segment dict, or a string. A string is parsed as
    CQ codes when ``cq`` is true (how OneBot treats outgoing strings unless
    ``auto_escape``), otherwise it becomes one plain text segment. ``None`` → ``[]``.
    """
    if message is None:
        return []
    if isinstance(message, str):
        if cq:
            return parse_cq(message)
        return [seg_text(message)] if message else []
    if isinstance(message, Mapping):
        return [_normalize_segment(message)]
    if isinstance(message, list | tuple):
        return [_normalize_segment(seg) for seg in message]
    raise TypeError(f"unsupported message value: {message!r}")


def render_text(
    segments: Iterable[Segment], name_of: Callable[[int], str] | None = None
) -> tuple[str, list[int]]:
    """Flatten segments to ``(text, at_ids)``.

    Text segments are concatenated; ``at`` segments render as ``"@<nickname>"`` (via
    ``name_of``; ``qq=all`` renders ``"@全体成员"``) and numeric targets are collected in
    ``at_ids``. Every other segment type is ignored.
    """
    parts: list[str] = []
    at_ids: list[int] = []
    for seg in segments:
        data = seg.get("data") or {}
        kind = seg.get("type")
        if kind == "text":
            parts.append(str(data.get("text", "")))
        elif kind == "at":
            qq = str(data.get("qq", ""))
            if qq == "all":
                parts.append("@全体成员")
            elif qq.isdigit():
                uid = int(qq)
                at_ids.append(uid)
                parts.append("@" + (name_of(uid) if name_of else qq))
            else:
                parts.append("@" + qq)
    return "".join(parts), at_ids


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


_VIA: ContextVar[str] = ContextVar("onebot_sim_via", default="")
"""The URL of the connection whose API call is being answered."""


class ConnectionRejected(ConnectionError):
    """The bot refused the WebSocket handshake (e.g. wrong access token → HTTP 403)."""

    def __init__(self, status: int, body: str = "") -> None:
        """Store the HTTP ``status`` and response ``body`` of the refusal."""
        super().__init__(f"bot rejected the OneBot connection: HTTP {status} {body}".strip())
        self.status = status
        self.body = body


class _ActionError(Exception):
    """Raised by an action handler to produce a ``status: failed`` answer."""

    def __init__(self, retcode: int, message: str) -> None:
        super().__init__(message)
        self.retcode = retcode
        self.message = message


# --------------------------------------------------------------------------------------
# The simulated OneBot implementation
# --------------------------------------------------------------------------------------

ActionHandler = Callable[[dict[str, Any]], Awaitable[Any]]


class OneBotSim(ChatSim):
    """One simulated QQ account connected to the bot over reverse WebSocket.

    Message ids count from 1 per simulator; one that connects goes on after the highest
    id any earlier simulator of the same account used in this process.

    World state (mutate freely before or during a test):

    * ``friends`` – user ids that are friends of the bot account.
    * ``groups`` – ``{group_id: {user_id: Member}}``; ``group_names`` – optional names.
    * ``nicknames`` – nicknames of users outside any group (friends, strangers).
    * ``fail_private`` / ``fail_group`` – sends to these targets answer ``failed``
      (retcode 1200, as for a muted bot or a blocked user).
    * ``hang_group`` / ``hang_private`` – sends to these targets are never answered (a hung
      call); they are not recorded in ``sent`` but in ``hung`` (kind, target, time).
    * ``action_delays`` – ``{action: seconds}``: calls of these actions are answered that
      much later (a slow implementation), e.g. ``{"get_friend_list": 1.0}``.
    * ``hang_media`` – pictures (a message with an ``image`` segment) and merged-forward
      messages are never answered, to anyone (a hung upload); plain text goes through.
      ``hang_media_to`` / ``fail_media_to`` – the same (or a ``failed`` answer) for the
      ``(kind, target)`` pairs listed.
    * ``forward_supported`` – ``send_group_forward_msg`` / ``send_private_forward_msg``
      are implemented (as by NapCat; default) or answer retcode 1404 (unknown action).

    The world, the observations and the waits are :class:`~tools.sim_base.ChatSim`'s, the
    same on every simulated side.

    One account may be connected to several bots at once (NapCat's several “WebSocket
    clients”: :meth:`connect_also`): every event goes to each open connection, each bot's
    calls are answered on its own connection and its messages are recorded with its URL
    (``Sent.via``).

    API calls are answered concurrently, like a real implementation: a hung call does not
    hold up the answers to other calls.

    Observations: ``sent`` (every outgoing message, as :class:`Sent`), ``calls`` (every API
    call), ``events`` (every event posted), ``deleted`` (recalled message ids).
    """

    _account_ids: ClassVar[dict[int, int]] = {}
    """The highest message id used per account (``self_id``) by any simulator."""

    def __init__(
        self,
        self_id: int = 10001,
        nickname: str = "牌桌",
        *,
        api_delay: float = 0.0,
    ) -> None:
        """Create the account ``self_id`` called ``nickname``.

        ``api_delay`` (seconds) is slept before answering each API call, to mimic a
        real implementation's latency.
        """
        super().__init__(self_id, nickname, api_delay=api_delay)
        self._answering: set[asyncio.Task[None]] = set()
        self.events: list[dict[str, Any]] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.deleted: list[int] = []
        self._next_message_id = 1
        self._ws: ClientConnection | None = None
        self._url = ""
        self._also: dict[str, ClientConnection] = {}
        self._also_tasks: set[asyncio.Task[None]] = set()
        self._recv_task: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._closed.set()
        self._handlers: dict[str, ActionHandler] = {
            "send_group_msg": self._act_send_group_msg,
            "send_private_msg": self._act_send_private_msg,
            "send_msg": self._act_send_msg,
            "send_group_forward_msg": self._act_send_group_forward_msg,
            "send_private_forward_msg": self._act_send_private_forward_msg,
            "get_msg": self._act_get_msg,
            "delete_msg": self._act_delete_msg,
            "get_login_info": self._act_get_login_info,
            "get_friend_list": self._act_get_friend_list,
            "get_group_list": self._act_get_group_list,
            "get_group_info": self._act_get_group_info,
            "get_group_member_info": self._act_get_group_member_info,
            "get_group_member_list": self._act_get_group_member_list,
            "get_stranger_info": self._act_get_stranger_info,
            "get_status": self._act_get_status,
            "get_version_info": self._act_get_version_info,
            "can_send_image": self._act_yes,
            "can_send_record": self._act_yes,
        }

    # ---- connection -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the WebSocket to the bot is open."""
        return self._ws is not None and not self._closed.is_set()

    async def connect(
        self, url: str, access_token: str | None = None, *, retry_for: float = 10.0
    ) -> None:
        """Open the reverse WebSocket to ``url`` and announce ourselves.

        Sends the OneBot reverse-WS headers (``X-Self-ID``, ``X-Client-Role: Universal``,
        ``Authorization: Bearer <token>``, NapCat ``User-Agent``), retries refused TCP
        connections for ``retry_for`` seconds (the bot may still be starting), then posts
        a ``lifecycle/connect`` meta event and starts answering API calls.

        Raises :class:`ConnectionRejected` if the bot refuses the handshake (bad token,
        duplicate ``X-Self-ID``); that is never retried. Can be called again after the
        connection dropped (e.g. to reconnect to a restarted bot); the world and the
        ``sent``/``calls`` history are kept.
        """
        if self.connected:
            raise RuntimeError("already connected; close() first")
        # The account's message ids go on from those of any earlier simulator of the same
        # account in this process, as a real account's do across reconnects (the bot
        # drops a message id it has just seen as a repeated delivery).
        self._next_message_id = max(self._next_message_id,
                                    OneBotSim._account_ids.get(self.self_id, 0) + 1)
        headers = {"X-Self-ID": str(self.self_id), "X-Client-Role": "Universal"}
        if access_token:
            headers["Authorization"] = f"Bearer {access_token}"
        deadline = time.monotonic() + retry_for
        while True:
            try:
                ws = await ws_connect(
                    url,
                    additional_headers=headers,
                    user_agent_header=f"NapCat/{NAPCAT_VERSION}",
                    open_timeout=10,
                    max_size=None,
                )
                break
            except InvalidStatus as exc:
                body = exc.response.body.decode("utf-8", "replace") if exc.response.body else ""
                raise ConnectionRejected(exc.response.status_code, body) from None
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                await asyncio.sleep(0.2)
        self._ws = ws
        self._url = url
        self.close_code = None
        self._closed.clear()
        self._recv_task = asyncio.create_task(self._recv_loop(ws, url), name="onebot-sim-recv")
        event = self._lifecycle()
        self.events.append(event)
        await ws.send(json.dumps(event))

    def _lifecycle(self) -> dict[str, Any]:
        return {"time": int(time.time()), "self_id": self.self_id, "post_type": "meta_event",
                "meta_event_type": "lifecycle", "sub_type": "connect"}

    async def connect_also(self, url: str, access_token: str | None = None) -> None:
        """Connect this account to one more bot (another process) at ``url``, beside the
        connection :meth:`connect` made: from now on every event goes to both, as
        NapCat does for an account with several reverse WebSocket clients. Raises
        :class:`ConnectionRejected` when that bot refuses the account (tried once)."""
        headers = {"X-Self-ID": str(self.self_id), "X-Client-Role": "Universal"}
        if access_token:
            headers["Authorization"] = f"Bearer {access_token}"
        try:
            ws = await ws_connect(url, additional_headers=headers, open_timeout=10, max_size=None,
                                  user_agent_header=f"NapCat/{NAPCAT_VERSION}")
        except InvalidStatus as exc:
            body = exc.response.body.decode("utf-8", "replace") if exc.response.body else ""
            raise ConnectionRejected(exc.response.status_code, body) from None
        self._also[url] = ws
        task = asyncio.create_task(self._recv_loop(ws, url), name="onebot-sim-recv-also")
        self._also_tasks.add(task)
        task.add_done_callback(self._also_tasks.discard)
        await ws.send(json.dumps(self._lifecycle()))

    def connected_to(self, url: str) -> bool:
        """Whether this account is connected to the bot at ``url`` now (either way)."""
        if url == self._url and self.connected:
            return True
        return url in self._also

    async def close(self) -> None:
        """Close the WebSocket (if open) and stop the receive loop; and every connection
        :meth:`connect_also` made."""
        for also in list(self._also.values()):
            with contextlib.suppress(Exception):
                await also.close()
        self._also.clear()
        ws, task = self._ws, self._recv_task
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if task is not None:
            try:
                await asyncio.wait_for(task, 5)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        self._closed.set()

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until the bot side closes the connection; return the close code."""
        await asyncio.wait_for(self._closed.wait(), timeout)
        return self.close_code

    async def _recv_loop(self, ws: ClientConnection, url: str = "") -> None:
        """Answer every API frame until the connection closes."""
        try:
            async for raw in ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(frame, dict) or "action" not in frame:
                    continue
                _VIA.set(url)
                task = asyncio.create_task(self._answer(ws, frame))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
        except ConnectionClosed:
            pass
        finally:
            if self._also.get(url) is ws:
                del self._also[url]
            if self._ws is ws:  # a late end of an old connection must not close the new one
                for task in list(self._answering):
                    task.cancel()
                self.close_code = ws.close_code
                self._closed.set()
                async with self._cond:
                    self._cond.notify_all()

    async def _answer(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        """Answer one API frame (a task of its own, so calls are answered concurrently)."""
        params = frame.get("params")
        response = await self.handle_action(
            str(frame["action"]), params if isinstance(params, dict) else {}
        )
        response["echo"] = frame.get("echo")
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(response, ensure_ascii=False))

    async def post_event(self, event: dict[str, Any]) -> None:
        """Send an arbitrary event dict to the bot (recorded in ``events``): to every bot
        the account is connected to (:meth:`connect_also`). A connection closed meanwhile
        (a bot refusing the account as the first takes it back) is skipped; raises
        ``ConnectionClosed`` only when no connection took the frame."""
        connections = [*([self._ws] if self.connected else []), *self._also.values()]
        if not connections:
            raise ConnectionError("simulator is not connected to the bot")
        self.events.append(event)
        frame = json.dumps(event, ensure_ascii=False)
        delivered = 0
        closed: ConnectionClosed | None = None
        for ws in connections:
            try:
                await ws.send(frame)
                delivered += 1
            except ConnectionClosed as err:  # that bot gone (or it refused the account
                closed = err  # just now): the frame goes to the others
        if not delivered and closed is not None:
            raise closed

    async def send_raw(self, frame: str | bytes) -> None:
        """Send one raw WebSocket frame (text for ``str``, binary for ``bytes``) as is,
        e.g. a malformed one; not recorded in ``events``."""
        if self._ws is None or self._closed.is_set():
            raise ConnectionError("simulator is not connected to the bot")
        await self._ws.send(frame)

    async def resend(self, message_id: int) -> None:
        """Post the event of a message sent earlier (:meth:`group_message`,
        :meth:`private_message`) again, unchanged — same ``message_id`` — as a OneBot
        implementation does after a reconnect."""
        await self.post_event(self.messages[message_id])

    # ---- events from players ----------------------------------------------------------

    def _new_message_id(self) -> int:
        mid = self._next_message_id
        self._next_message_id += 1
        OneBotSim._account_ids[self.self_id] = max(mid, OneBotSim._account_ids.get(self.self_id, 0))
        return mid

    def build_group_message(
        self, group_id: int, user_id: int, message: str | Segment | list[Segment]
    ) -> dict[str, Any]:
        """Build (but do not send) a NapCat-shaped group message event.

        A ``str`` message is plain text (not CQ-parsed). Allocates a message id.
        """
        segments = normalize_message(message, cq=False)
        member = self.groups.get(group_id, {}).get(user_id)
        nickname = member.nickname if member else self.nickname_of(user_id)
        mid = self._new_message_id()
        return {
            "self_id": self.self_id,
            "user_id": user_id,
            "time": int(time.time()),
            "message_id": mid,
            "message_seq": mid,
            "real_id": mid,
            "real_seq": str(mid),
            "message_type": "group",
            "sender": {
                "user_id": user_id,
                "nickname": nickname,
                "card": member.card if member else "",
                "role": member.role if member else "member",
                "sex": "unknown",
                "age": 0,
            },
            "raw_message": to_cq(segments),
            "font": 14,
            "sub_type": "normal",
            "message": segments,
            "message_format": "array",
            "post_type": "message",
            "group_id": group_id,
            "group_name": self.group_names.get(group_id, f"群{group_id}"),
        }

    def build_private_message(
        self, user_id: int, message: str | Segment | list[Segment]
    ) -> dict[str, Any]:
        """Build (but do not send) a NapCat-shaped private (friend) message event."""
        segments = normalize_message(message, cq=False)
        mid = self._new_message_id()
        return {
            "self_id": self.self_id,
            "user_id": user_id,
            "time": int(time.time()),
            "message_id": mid,
            "message_seq": mid,
            "real_id": mid,
            "real_seq": str(mid),
            "message_type": "private",
            "sender": {
                "user_id": user_id,
                "nickname": self.nickname_of(user_id),
                "card": "",
                "sex": "unknown",
                "age": 0,
            },
            "raw_message": to_cq(segments),
            "font": 14,
            "sub_type": "friend",
            "message": segments,
            "message_format": "array",
            "post_type": "message",
            "target_id": user_id,
        }

    async def group_message(
        self, group_id: int, user_id: int, message: str | Segment | list[Segment]
    ) -> int:
        """Post a group message from ``user_id``; return its message id.

        The group and member are auto-registered if unknown (a member who speaks is a
        member), so tests only need :meth:`add_member` to set nicknames/roles.
        """
        members = self.add_group(group_id)
        if user_id not in members:
            members[user_id] = Member(user_id, self.nickname_of(user_id))
        event = self.build_group_message(group_id, user_id, message)
        self.messages[event["message_id"]] = event
        await self.post_event(event)
        return int(event["message_id"])

    async def private_message(self, user_id: int, message: str | Segment | list[Segment]) -> int:
        """Post a private message from ``user_id``; return its message id."""
        event = self.build_private_message(user_id, message)
        self.messages[event["message_id"]] = event
        await self.post_event(event)
        return int(event["message_id"])

    # ---- API handling -----------------------------------------------------------------

    def register_action(self, action: str, handler: ActionHandler) -> None:
        """Add or override an API handler: ``async handler(params) -> data``."""
        self._handlers[action] = handler

    async def handle_action(self, action: str, params: dict[str, Any]) -> dict[str, Any]:
        """Answer one API call NapCat-style (without ``echo``); records it in ``calls``."""
        if self.api_delay:
            await asyncio.sleep(self.api_delay)
        if self.action_delays.get(action):
            await asyncio.sleep(self.action_delays[action])
        call = ApiCall(action, dict(params), time.time())
        handler = self._handlers.get(action)
        if handler is None:
            response = _failed(RETCODE_UNKNOWN_ACTION, f"不支持的Api {action}")
        else:
            try:
                response = _ok(await handler(params))
            except _ActionError as exc:
                response = _failed(exc.retcode, exc.message)
            except (KeyError, TypeError, ValueError) as exc:
                response = _failed(RETCODE_BAD_PARAMS, f"bad params for {action}: {exc!r}")
        call.status, call.retcode = response["status"], response["retcode"]
        async with self._cond:
            self.calls.append(call)
            self._cond.notify_all()
        return response

    async def _send(
        self, kind: Literal["group", "private"], target: int, params: dict[str, Any],
        forward: bool = False,
    ) -> dict[str, Any]:
        segments = normalize_message(
            params.get("message"), cq=not _truthy(params.get("auto_escape"))
        )
        media = forward or any(seg.get("type") == "image" for seg in segments)
        reason = await self._fault(kind, target, media=media)  # a hung chat never returns
        group_ctx = target if kind == "group" else None
        text, at_ids = render_text(segments, lambda uid: self.nickname_of(uid, group_ctx))
        error = ""
        if not segments:
            error = "消息体无法解析, 请检查是否发送了不支持的消息类型"
        elif reason:
            error = ("发送群消息失败" if kind == "group" else "发送私聊消息失败") + f" ({reason})"
        mid = None if error else self._new_message_id()
        await self._record(Sent(kind, target, segments, text, at_ids, time.time(), not error, mid,
                                forward, via=_VIA.get()))
        if error:
            raise _ActionError(RETCODE_FAILED, error)
        assert mid is not None
        self.messages[mid] = {
            "self_id": self.self_id,
            "user_id": self.self_id,
            "time": int(time.time()),
            "message_id": mid,
            "message_seq": mid,
            "real_id": mid,
            "message_type": kind,
            "sender": {"user_id": self.self_id, "nickname": self.nickname, "card": ""},
            "raw_message": to_cq(segments),
            "font": 14,
            "sub_type": "normal" if kind == "group" else "friend",
            "message": segments,
            "message_format": "array",
            "post_type": "message_sent",
            **({"group_id": target} if kind == "group" else {"target_id": target}),
        }
        return {"message_id": mid}

    async def _act_send_group_msg(self, params: dict[str, Any]) -> Any:
        return await self._send("group", int(params["group_id"]), params)

    async def _act_send_private_msg(self, params: dict[str, Any]) -> Any:
        return await self._send("private", int(params["user_id"]), params)

    async def _forward(self, kind: Literal["group", "private"], target: int,
                       params: dict[str, Any]) -> Any:
        """A merged-forward message: its ``node`` segments' contents, one after another
        (a line between nodes), recorded as one message with ``forward=True``."""
        if not self.forward_supported:
            raise _ActionError(RETCODE_UNKNOWN_ACTION, f"不支持的Api send_{kind}_forward_msg")
        nodes = params["messages"]
        if not isinstance(nodes, list) or not nodes:
            raise _ActionError(RETCODE_BAD_PARAMS, "messages must be a non-empty list of nodes")
        combined: list[Segment] = []
        for node in nodes:
            if node.get("type") != "node" or "content" not in node.get("data", {}):
                raise _ActionError(RETCODE_BAD_PARAMS, f"not a custom node: {node!r}")
            if combined:
                combined.append({"type": "text", "data": {"text": "\n"}})
            combined += normalize_message(node["data"]["content"], cq=True)
        return await self._send(kind, target, {"message": combined, "auto_escape": True},
                                forward=True)

    async def _act_send_group_forward_msg(self, params: dict[str, Any]) -> Any:
        return await self._forward("group", int(params["group_id"]), params)

    async def _act_send_private_forward_msg(self, params: dict[str, Any]) -> Any:
        return await self._forward("private", int(params["user_id"]), params)

    async def _act_send_msg(self, params: dict[str, Any]) -> Any:
        message_type = params.get("message_type")
        if message_type is None:
            message_type = "group" if params.get("group_id") is not None else "private"
        if message_type == "group":
            return await self._act_send_group_msg(params)
        if message_type == "private":
            return await self._act_send_private_msg(params)
        raise _ActionError(RETCODE_BAD_PARAMS, f"unknown message_type {message_type!r}")

    async def _act_get_msg(self, params: dict[str, Any]) -> Any:
        mid = int(params["message_id"])
        if mid not in self.messages:
            raise _ActionError(RETCODE_FAILED, f"消息{mid}不存在")
        return self.messages[mid]

    async def _act_delete_msg(self, params: dict[str, Any]) -> Any:
        mid = int(params["message_id"])
        if mid not in self.messages:
            raise _ActionError(RETCODE_FAILED, f"消息{mid}不存在")
        del self.messages[mid]
        self.deleted.append(mid)
        return None

    async def _act_get_login_info(self, params: dict[str, Any]) -> Any:
        return {"user_id": self.self_id, "nickname": self.nickname}

    async def _act_get_friend_list(self, params: dict[str, Any]) -> Any:
        return [
            {"user_id": uid, "nickname": self.nickname_of(uid), "remark": ""}
            for uid in sorted(self.friends)
        ]

    def _group_info(self, group_id: int) -> dict[str, Any]:
        return {
            "group_id": group_id,
            "group_name": self.group_names.get(group_id, f"群{group_id}"),
            "member_count": len(self.groups[group_id]) + 1,
            "max_member_count": 500,
            "group_all_shut": 0,
            "group_remark": "",
        }

    async def _act_get_group_list(self, params: dict[str, Any]) -> Any:
        return [self._group_info(gid) for gid in sorted(self.groups)]

    async def _act_get_group_info(self, params: dict[str, Any]) -> Any:
        gid = int(params["group_id"])
        if gid not in self.groups:
            raise _ActionError(RETCODE_FAILED, f"获取群{gid}信息失败")
        return self._group_info(gid)

    def _member_info(self, group_id: int, member: Member) -> dict[str, Any]:
        return {
            "group_id": group_id,
            "user_id": member.user_id,
            "nickname": member.nickname,
            "card": member.card,
            "sex": "unknown",
            "age": 0,
            "area": "",
            "level": "1",
            "qq_level": 0,
            "join_time": 0,
            "last_sent_time": 0,
            "title_expire_time": 0,
            "unfriendly": False,
            "card_changeable": True,
            "is_robot": False,
            "shut_up_timestamp": 0,
            "role": member.role,
            "title": "",
        }

    async def _act_get_group_member_info(self, params: dict[str, Any]) -> Any:
        gid, uid = int(params["group_id"]), int(params["user_id"])
        member = self.groups.get(gid, {}).get(uid)
        if member is None:
            raise _ActionError(RETCODE_FAILED, f"群{gid}中不存在成员{uid}")
        return self._member_info(gid, member)

    async def _act_get_group_member_list(self, params: dict[str, Any]) -> Any:
        gid = int(params["group_id"])
        if gid not in self.groups:
            raise _ActionError(RETCODE_FAILED, f"获取群{gid}成员列表失败")
        return [self._member_info(gid, m) for m in self.groups[gid].values()]

    async def _act_get_stranger_info(self, params: dict[str, Any]) -> Any:
        uid = int(params["user_id"])
        return {
            "user_id": uid,
            "uid": f"u_{uid}",
            "nickname": self.nickname_of(uid),
            "remark": "",
            "sex": "unknown",
            "age": 0,
            "qid": "",
            "level": 0,
            "login_days": 0,
            "long_nick": "",
        }

    async def _act_get_status(self, params: dict[str, Any]) -> Any:
        return {"online": self.connected, "good": True, "stat": {}}

    async def _act_get_version_info(self, params: dict[str, Any]) -> Any:
        return {
            "app_name": "NapCat.Onebot",
            "app_version": NAPCAT_VERSION,
            "protocol_version": "v11",
        }

    async def _act_yes(self, params: dict[str, Any]) -> Any:
        return {"yes": True}


def _ok(data: Any) -> dict[str, Any]:
    return {"status": "ok", "retcode": 0, "data": data, "message": "", "wording": ""}


def _failed(retcode: int, message: str) -> dict[str, Any]:
    return {
        "status": "failed",
        "retcode": retcode,
        "data": None,
        "message": message,
        "wording": message,
    }


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes"}
    return bool(value)


# --------------------------------------------------------------------------------------
# OneBot HTTP POST (the other way events can reach a bot)
# --------------------------------------------------------------------------------------


async def http_post_event(
    url: str,
    event: Mapping[str, Any] | bytes,
    self_id: int | str | None,
    *,
    secret: str | None = None,
    signature: str | None = None,
    timeout: float = 10.0,
) -> tuple[int, str]:
    """POST one event to a bot's OneBot HTTP route (e.g. ``…/onebot/v11/http``) the way
    a OneBot implementation in HTTP POST mode does; return ``(status, body)``.

    Sends ``X-Self-ID`` (unless ``None``) and ``X-Signature: sha1=<HMAC-SHA1 of the body
    with secret>`` when ``secret`` is given (``signature`` overrides the header as is).
    ``event`` may be raw ``bytes`` to send a malformed body. HTTP errors are returned,
    not raised.
    """
    body = event if isinstance(event, bytes) else json.dumps(event, ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json", "User-Agent": f"NapCat/{NAPCAT_VERSION}"}
    if self_id is not None:
        headers["X-Self-ID"] = str(self_id)
    if secret is not None:
        headers["X-Signature"] = "sha1=" + hmac.new(secret.encode(), body, hashlib.sha1).hexdigest()
    if signature is not None:
        headers["X-Signature"] = signature

    def _post() -> tuple[int, str]:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode("utf-8", "replace")

    return await asyncio.to_thread(_post)


# --------------------------------------------------------------------------------------
# The bot under test, as a subprocess
# --------------------------------------------------------------------------------------


PORT_MOVES = 3
"""Times :meth:`BotProcess.start` moves to another free port taken by another program."""


def find_free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that was free a moment ago (bind to port 0, read, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _listening_inodes(port: int) -> set[str] | None:
    """The socket inodes listening on local TCP ``port`` (Linux ``/proc/net/tcp``,
    ``tcp6``); ``None`` where the system does not show them."""
    inodes: set[str] = set()
    shown = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        shown = True
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes if shown else None


def listens_on(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds a socket listening on local TCP ``port``; ``None``
    where the system cannot tell (no ``/proc``, or the process's descriptors hidden)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:[") and link[8:-1] in inodes:
                return True
    return False


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Finalizer: never leave a bot process running behind a forgotten BotProcess."""
    if proc.poll() is None:
        proc.kill()
        with contextlib.suppress(Exception):
            proc.wait(5)


class BotProcess:
    """The real bot (``python bot.py``) running as a subprocess on a free local port."""

    def __init__(
        self,
        log_path: str | os.PathLike[str],
        *,
        access_token: str = "",
        superusers: Iterable[int | str] = (),
        database_url: str | None = None,
        log_level: str = "INFO",
        port: int | None = None,
        env: Mapping[str, str | None] | None = None,
        root: str | os.PathLike[str] | None = None,
        startup_timeout: float = 30.0,
        script: str = "bot.py",
        python: str | os.PathLike[str] | None = None,
    ) -> None:
        """Configure (not start) the bot.

        ``python`` is the interpreter that runs it (this one by default; the host-install
        tests run a host bot with the interpreter of a venv the project is installed in).

        ``script`` is the entry point run with ``python`` in ``root`` (``bot.py``; the
        load benchmark runs ``bench/echo_bot.py``, the bot with NoneBot's echo command).

        ``log_path`` receives stdout+stderr (appended across restarts). ``env`` adds or
        overrides environment variables after the standard ones (a value ``None`` removes
        the variable: the bot's own default applies). The port is fixed for
        the object's lifetime, so :meth:`start` after :meth:`stop`/:meth:`kill` restarts
        the bot on the same URL.
        """
        self.log_path = Path(log_path)
        self.access_token = access_token
        self.superusers = [str(u) for u in superusers]
        self.database_url = database_url
        self.log_level = log_level
        self.port = port if port is not None else find_free_port()
        self._may_move = port is None
        """The port was chosen here and the bot never listened on it: when another program
        takes it first, :meth:`start` moves to another free port."""
        self.extra_env = dict(env or {})
        self.root = Path(root) if root is not None else REPO_ROOT
        self.startup_timeout = startup_timeout
        self.script = script
        self.python = str(python) if python is not None else sys.executable
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """Reverse-WebSocket URL the OneBot side connects to."""
        return f"ws://127.0.0.1:{self.port}/onebot/v11/ws"

    @property
    def http_url(self) -> str:
        """OneBot HTTP POST URL (served only when the bot enables it)."""
        return f"http://127.0.0.1:{self.port}/onebot/v11/http"

    @property
    def pid(self) -> int | None:
        """PID of the current bot process, if started."""
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        """True while the subprocess is alive."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """Exit status of the last process (``None`` while running / never started)."""
        return self._proc.poll() if self._proc else None

    def build_env(self) -> dict[str, str]:
        """The environment the bot is started with."""
        env = dict(os.environ)
        env.update(
            {
                "HOST": "127.0.0.1",
                "PORT": str(self.port),
                "ONEBOT_ACCESS_TOKEN": self.access_token,
                "SUPERUSERS": json.dumps(self.superusers),
                "COMMAND_START": '["/"]',
                "DRIVER": "~fastapi",
                "LOG_LEVEL": self.log_level,
                "PYTHONUNBUFFERED": "1",
                # The simulated account is never rate-limited: pace sends only lightly
                # (override with env={"PAIZHUO_SEND_RATE": ...} to measure real pacing; an empty
                # PAIZHUO_SEND_RATE lets PAIZHUO_SEND_INTERVAL decide, and both empty mean the default).
                "PAIZHUO_SEND_INTERVAL": "0.005",
                "PAIZHUO_SEND_RATE": "",
                # Simulated players try moves until one is accepted and wait for each reply:
                # no refusal or command limit unless a test asks for one
                # (env={"PAIZHUO_REFUSAL_LIMIT": "5"}, env={"PAIZHUO_COMMAND_LIMIT": "10"}).
                "PAIZHUO_REFUSAL_LIMIT": "0",
                "PAIZHUO_COMMAND_LIMIT": "0",
                # Texts, not pictures: runs read what the bot says (env={"PAIZHUO_IMAGES":
                # "true"} turns the pictures on).
                "PAIZHUO_IMAGES": "false",
                # The log is ``log_path`` (stdout): no log file of bot.py's own beside it
                # (env={"PAIZHUO_LOG_FILE": path} turns it on).
                "PAIZHUO_LOG_FILE": "",
            }
        )
        if self.database_url is not None:
            env["PAIZHUO_DATABASE_URL"] = self.database_url
        env.update(self.extra_env)
        return {key: value for key, value in env.items() if value is not None}

    def log_text(self) -> str:
        """Everything the bot has logged so far."""
        try:
            return self.log_path.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def _log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    async def start(self) -> None:
        """Spawn ``bot.py`` and wait (≤ ``startup_timeout``) until it listens on its port.

        Listening means this process's own socket (checked in ``/proc`` where the system
        has it; elsewhere any TCP answer on the port counts). A port chosen here (no
        ``port`` given) that another program started listening on before the bot bound it
        — two test runs can be handed the same free port — is given up for another free
        one, up to :data:`PORT_MOVES` times, until the bot has listened once; after that
        the URL stays the same across restarts."""
        if self.running:
            raise RuntimeError("bot already running")
        deadline = time.monotonic() + self.startup_timeout
        self._spawn()
        moves = 0
        while True:
            proc = self._proc
            assert proc is not None
            if proc.poll() is not None:
                code = proc.returncode
                self._close_log()
                if self._may_move and moves < PORT_MOVES and await self._answers():
                    moves += 1
                    self.port = find_free_port()
                    self._spawn()
                    continue
                raise RuntimeError(
                    f"bot exited during startup with code {code}; log tail:\n{self._log_tail()}"
                )
            if await self._answers() and listens_on(proc.pid, self.port) is not False:
                self._may_move = False
                return
            if time.monotonic() >= deadline:
                self.kill()
                raise TimeoutError(
                    f"bot did not listen on port {self.port} within "
                    f"{self.startup_timeout}s; log tail:\n{self._log_tail()}"
                )
            await asyncio.sleep(0.1)

    def _spawn(self) -> None:
        self._close_log()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = self.log_path.open("ab")
        self._proc = subprocess.Popen(
            [self.python, self.script],
            cwd=self.root,
            env=self.build_env(),
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        weakref.finalize(self, _reap, self._proc)

    async def _answers(self) -> bool:
        """Whether something accepts TCP connections on the port."""
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 1.0)
        except (OSError, TimeoutError):
            return False
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
        return True

    async def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM the bot, wait ≤ ``timeout`` s, then SIGKILL; return the exit status."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(proc.wait, timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                await asyncio.to_thread(proc.wait)
        self._close_log()
        return proc.returncode

    def kill(self) -> None:
        """SIGKILL the bot immediately (simulated crash) and reap it."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    async def __aenter__(self) -> BotProcess:
        """Start the bot."""
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the bot."""
        await self.stop()
