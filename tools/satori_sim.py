"""A simulated Satori server (as LLBot's Satori or Chronocat would be) for end-to-end tests:
the bot, through nonebot-adapter-satori, dials it.

Written from the Satori documents (satorijs/docs; site https://satori.chat/zh-CN/):

* events — https://satori.chat/zh-CN/protocol/events.html : the WebSocket ``/v1/events``;
  signalling ``{"op", "body"}`` with EVENT 0, PING 1, PONG 2, IDENTIFY 3 (``token``, ``sn``),
  READY 4 (``logins``, ``proxy_urls``), META 5; IDENTIFY within 10 s of connecting, PING
  every 10 s answered by PONG; session recovery: an IDENTIFY carrying the ``sn`` of the last
  EVENT received gets every event sent since; an Event has ``sn``, ``type``,
  ``timestamp``, ``login`` (``sn``, ``user``, ``platform`` only) and the resources lifted to
  the top (``channel``, ``guild``, ``member``, ``user``, ``message``);
* API — https://satori.chat/zh-CN/protocol/api.html : ``POST /v1/{resource}.{method}``
  with a JSON body, headers ``Satori-Platform`` and ``Satori-User-ID``, ``Authorization:
  Bearer {token}``; status 400 (bad request), 401 (no authorisation), 403, 404 (no such
  API), 405 (method not allowed), 5XX (server error);
* resources — https://satori.chat/zh-CN/resources/message.html (``message.create`` →
  an array of Message; ``message.get``, ``message.delete``),
  https://satori.chat/zh-CN/resources/channel.html (Channel ``type`` TEXT 0 / DIRECT 1;
  ``user.channel.create`` → the private channel), https://satori.chat/zh-CN/resources/member.html
  (``guild.member.get``), https://satori.chat/zh-CN/resources/guild.html,
  https://satori.chat/zh-CN/resources/login.html (``login.get``, LoginStatus),
  https://satori.chat/zh-CN/resources/user.html;
* message encoding — https://satori.chat/zh-CN/protocol/message.html and
  https://satori.chat/zh-CN/protocol/elements.html : XHTML-like elements, ``&quot; &amp;
  &lt; &gt;`` and numeric escapes; whitespace runs containing a line break at the start or
  end of a text are dropped; unpaired tags are text; ``<at id name type>``,
  ``<img src>``, ``<br>``, ``<p>``, ``<message>`` (each one a message of its own; with
  ``forward``, a merged forward of its child messages), ``<quote>``, ``<author>``;
  decoration elements render their children.

QQ on Satori, as LLBot (LLOneBot/LuckyLilliaBot, ``src/satori``) and Chronocat do it:
platform ``llonebot`` (``platform=`` to change), QQ numbers as strings; a group is a guild
whose one channel has the group's number as its id; a private channel is
``private:{QQ number}``; ``message.create`` to a person who is not a friend goes as a
temporary session (临时会话) through a shared group; an ``<at>`` in a private channel is
dropped; a failed call answers HTTP 500 with the error text (which nonebot-adapter-satori
raises as ``ApiNotImplementedException``); a bad token on IDENTIFY closes the stream with
4004, a frame that is not JSON with 4000; message ids are ``{chatType}|{peer}|{seq}``.

What a real server does that this fake does not:

* no QQ behind it: a send fails only through the fault knobs
  (:class:`~tools.sim_base.ChatSim`), a rule above, a bad element or a picture it cannot
  read (``data:`` URLs are decoded, ``file://`` must exist, ``http(s)`` is not fetched);
  QQ may refuse temporary sessions (risk control), which only ``fail_private`` models;
* LLBot does not recover sessions (it ignores IDENTIFY's ``sn``; ``resume=False`` does the
  same); this fake keeps every event for recovery;
* no WebHook, no META, no proxy routes, no ``upload.create``, no ``message.list`` /
  reactions / roles / administration (HTTP 404); no login events;
* ``<audio>``, ``<video>``, ``<file>`` are recorded but not checked; faces and market faces
  are kept as elements without meaning.

Dependencies: the standard library and aiohttp (through ``sim_server.py``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import html
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from aiohttp import web

from tools.sim_base import Kind, Member, Sent
from tools.sim_server import ServedSim, SideError

__all__ = [
    "OP_EVENT",
    "OP_IDENTIFY",
    "OP_PING",
    "OP_PONG",
    "OP_READY",
    "SatoriSim",
    "escape",
    "parse_elements",
    "render_elements",
    "satori_at",
    "to_content",
]

OP_EVENT, OP_PING, OP_PONG, OP_IDENTIFY, OP_READY, OP_META = range(6)
"""Signalling opcodes (https://satori.chat/zh-CN/protocol/events.html#opcode)."""
TEXT, DIRECT = 0, 1
"""Channel types."""
CHAT_GROUP, CHAT_C2C, CHAT_TEMP = 2, 1, 100
"""LLBot's chat types in message ids."""
ROLE_IDS = {"owner": "4", "admin": "3", "member": "2"}
"""LLBot's role ids (QQ's member roles)."""
IDENTIFY_TIMEOUT = 10.0
"""Seconds a new stream has to IDENTIFY."""

_TAG = re.compile(
    r"<!--[\s\S]*?-->"
    r"|<(/?)([a-zA-Z][a-zA-Z0-9:_-]*)((?:\s+[^\s/>=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'))?)*)\s*(/?)>")
_ATTR = re.compile(r"([^\s/>=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'))?")


def escape(text: str, *, inline: bool = False) -> str:
    """Escape ``&``, ``<``, ``>`` (and ``"`` in an attribute)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if inline else text


def satori_at(user_id: int | str, name: str | None = None) -> dict[str, Any]:
    """An ``<at>`` element."""
    attrs = {"id": str(user_id)}
    if name:
        attrs["name"] = name
    return {"type": "at", "attrs": attrs, "children": []}


def to_content(elements: list[Any]) -> str:
    """Serialise elements (a ``str`` is text) to message content."""
    out = []
    for el in elements:
        if isinstance(el, str):
            out.append(escape(el))
        elif el["type"] == "text":
            out.append(escape(el["attrs"]["content"]))
        else:
            attrs = "".join(
                f" {k}" if v is True else f" no-{k}" if v is False else f' {k}="{escape(str(v), inline=True)}"'
                for k, v in el["attrs"].items())
            inner = to_content(el.get("children", []))
            out.append(f"<{el['type']}{attrs}>{inner}</{el['type']}>" if inner
                       else f"<{el['type']}{attrs}/>")
    return "".join(out)


@dataclass
class _Open:
    type: str
    attrs: dict[str, Any]
    source: str
    children: list[dict[str, Any]]


def _text(content: str) -> dict[str, Any]:
    return {"type": "text", "attrs": {"content": content}, "children": []}


def parse_elements(source: str) -> list[dict[str, Any]]:
    """Parse message content into elements ``{"type", "attrs", "children"}`` (text:
    ``{"type": "text", "attrs": {"content": …}}``), the way Satori's own parser does:
    entities decoded; a whitespace run with a line break dropped at the start of a text
    that follows the start or a tag and at the end of one before a tag or the end; an
    attribute without a value is ``True``, ``no-x`` is ``x: False``; a tag without its pair
    is text."""
    root = _Open("", {}, "", [])
    stack = [root]
    pos = 0

    def push_text(raw: str, start: bool, end: bool) -> None:
        content = html.unescape(raw)
        if start:
            content = re.sub(r"^\s*\n\s*", "", content)
        if end:
            content = re.sub(r"\s*\n\s*$", "", content)
        if content:
            children = stack[-1].children
            if children and children[-1]["type"] == "text":
                children[-1]["attrs"]["content"] += content
            else:
                children.append(_text(content))

    for match in _TAG.finditer(source):
        push_text(source[pos:match.start()], True, True)
        pos = match.end()
        if match.group(0).startswith("<!--"):
            continue
        close, name, raw_attrs, empty = match.group(1), match.group(2), match.group(3), match.group(4)
        if close:
            if any(o.type == name for o in stack[1:]):
                while True:
                    done = stack.pop()
                    element = {"type": done.type, "attrs": done.attrs, "children": done.children}
                    if done.type == name:
                        stack[-1].children.append(element)
                        break
                    _unpair(stack[-1], done)
            else:
                push_text(escape(match.group(0)), False, False)
            continue
        attrs: dict[str, Any] = {}
        for attr in _ATTR.finditer(raw_attrs or ""):
            key, value = attr.group(1), attr.group(2) if attr.group(2) is not None else attr.group(3)
            if value is not None:
                attrs[key] = html.unescape(value)
            elif key.startswith("no-"):
                attrs[key[3:]] = False
            else:
                attrs[key] = True
        if empty:
            stack[-1].children.append({"type": name, "attrs": attrs, "children": []})
        else:
            stack.append(_Open(name, attrs, match.group(0), []))
    push_text(source[pos:], True, True)
    while len(stack) > 1:
        _unpair(stack[-2], stack.pop())
    return root.children


def _unpair(parent: _Open, opened: _Open) -> None:
    """An opening tag never closed: its source is text, its content stays."""
    for child in [_text(opened.source), *opened.children]:
        last = parent.children[-1] if parent.children else None
        if child["type"] == "text" and last is not None and last["type"] == "text":
            last["attrs"]["content"] += child["attrs"]["content"]
        else:
            parent.children.append(child)


def render_elements(elements: list[dict[str, Any]], name_of) -> tuple[str, list[int]]:
    """Flatten elements to ``(text, at_ids)``: text, ``<at>`` as ``@name`` (its ``name``, or
    ``name_of(id)``), ``<at type="all">`` as ``@全体成员``, ``<br>`` as a line break, ``<p>``
    on lines of its own; pictures, quotes and authors add nothing; other elements render
    their children."""
    parts: list[str] = []
    at: list[int] = []
    for el in elements:
        kind, attrs = el["type"], el["attrs"]
        if kind == "text":
            parts.append(attrs["content"])
        elif kind == "at":
            if attrs.get("type") == "all":
                parts.append("@全体成员")
            elif str(attrs.get("id", "")).isdigit():
                at.append(int(attrs["id"]))
                parts.append("@" + (attrs.get("name") or name_of(int(attrs["id"]))))
        elif kind == "br":
            parts.append("\n")
        elif kind == "p":
            text, inner_at = render_elements(el["children"], name_of)
            if parts and not parts[-1].endswith("\n"):
                parts.append("\n")
            parts.append(text + "\n")
            at += inner_at
        elif kind not in {"img", "image", "audio", "video", "file", "quote", "author"}:
            text, inner_at = render_elements(el["children"], name_of)
            parts.append(text)
            at += inner_at
    return "".join(parts), at


class SatoriSim(ServedSim):
    """One simulated QQ account on a Satori server, served on ``127.0.0.1:port``.

    The bot is started with :meth:`bot_env` (``SATORI_CLIENTS`` pointing here) and connects
    by itself; :meth:`connect` lets it in. People speak with :meth:`group_message` and
    :meth:`private_message` (content: a ``str`` is plain text; a list mixes text and elements
    such as :func:`satori_at`).

    Knobs beyond :class:`~tools.sim_base.ChatSim`'s: ``platform``; ``resume`` (recover
    sessions: events sent while the bot was away are kept and replayed after an IDENTIFY
    carrying an ``sn``; ``False``: as LLBot, events with nobody connected are lost);
    ``temp_sessions`` (a private message to a non-friend who shares a group goes as a
    temporary session; ``False``: it fails).

    Observations beyond :class:`~tools.sim_server.ServedSim`'s: ``identified`` (the body of
    each IDENTIFY), ``messages`` (every message by id: channel, user, content),
    ``channels_created`` (``user.channel.create`` calls' user ids).
    """

    side: ClassVar[str] = "satori"
    _account_seqs: ClassVar[dict[tuple[int, str], int]] = {}

    def __init__(self, self_id: int = 10001, nickname: str = "牌桌", *,
                 api_delay: float = 0.0, access_token: str = "", port: int = 0,
                 platform: str = "llonebot") -> None:
        """Create the account and bind its port (see :class:`~tools.sim_server.ServedSim`)."""
        super().__init__(self_id, nickname, api_delay=api_delay, access_token=access_token,
                         port=port)
        self.platform = platform
        self.resume = True
        self.temp_sessions = True
        self.events: list[dict[str, Any]] = []
        self.identified: list[dict[str, Any]] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.channels_created: list[str] = []
        self._sn = 0
        self._handlers.update({
            "message.create": self._act_message_create,
            "message.get": self._act_message_get,
            "message.delete": self._act_message_delete,
            "user.channel.create": self._act_user_channel_create,
            "channel.get": self._act_channel_get,
            "guild.get": self._act_guild_get,
            "guild.list": self._act_guild_list,
            "guild.member.get": self._act_guild_member_get,
            "guild.member.list": self._act_guild_member_list,
            "login.get": self._act_login_get,
            "user.get": self._act_user_get,
            "friend.list": self._act_friend_list,
        })

    def bot_env(self, access_token: str = "") -> dict[str, str]:
        """``SATORI_CLIENTS`` for this side (with ``access_token``, also kept as the token
        the side requires) and a driver that serves and dials."""
        if access_token:
            self.access_token = access_token
        client: dict[str, Any] = {"host": self.host, "port": self.port}
        if self.access_token:
            client["token"] = self.access_token
        return {"DRIVER": "~fastapi+~httpx+~websockets", "SATORI_CLIENTS": json.dumps([client])}

    # ---- resources ------------------------------------------------------------------------

    def user(self, user_id: int) -> dict[str, Any]:
        """User of ``user_id``."""
        return {"id": str(user_id), "name": self.nickname_of(user_id),
                "avatar": f"http://q.qlogo.cn/headimg_dl?dst_uin={user_id}&spec=640",
                "is_bot": user_id == self.self_id}

    def login(self) -> dict[str, Any]:
        """The Login (online)."""
        return {"sn": 1, "platform": self.platform, "user": self.user(self.self_id), "status": 1,
                "adapter": self.platform, "features": ["message.delete", "guild.plain"]}

    def guild(self, group_id: int) -> dict[str, Any]:
        """Guild of ``group_id``."""
        return {"id": str(group_id), "name": self.group_names.get(group_id, f"群{group_id}"),
                "avatar": f"https://p.qlogo.cn/gh/{group_id}/{group_id}/640"}

    def channel(self, kind: Kind, target: int) -> dict[str, Any]:
        """The Channel of a group or a person."""
        if kind == "group":
            return {"id": str(target), "type": TEXT,
                    "name": self.group_names.get(target, f"群{target}")}
        return {"id": f"private:{target}", "type": DIRECT, "name": self.nickname_of(target)}

    def member(self, group_id: int, member: Member) -> dict[str, Any]:
        """GuildMember of ``member``."""
        return {"user": self.user(member.user_id), "nick": member.card or member.nickname,
                "avatar": self.user(member.user_id)["avatar"], "joined_at": 0,
                "roles": [{"id": ROLE_IDS[member.role], "name": member.role}]}

    def _message_id(self, chat: int, peer: str) -> str:
        key = (self.self_id, f"{chat}|{peer}")
        seq = SatoriSim._account_seqs.get(key, 0) + 1
        SatoriSim._account_seqs[key] = seq
        return f"{chat}|{peer}|{seq}"

    # ---- HTTP -------------------------------------------------------------------------------

    def _routes(self) -> list[web.RouteDef]:
        return [web.get("/v1/events", self._http_events), web.post("/v1/{method}", self._http_api),
                web.get("/v1/{method}", self._http_get)]

    async def _http_get(self, request: web.Request) -> web.StreamResponse:
        return self._refuse(request, 405, "Please use POST method to send requests.")

    async def _http_api(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        if self.access_token and request.headers.get("Authorization") != f"Bearer {self.access_token}":
            return self._refuse(request, 401, "invalid token")
        if (request.headers.get("Satori-User-ID") != str(self.self_id)
                or request.headers.get("Satori-Platform") != self.platform):
            return self._refuse(request, 403, "login not found")
        if method not in self._handlers:
            return self._refuse(request, 404, "method not found")
        if not self._open.is_set():
            return self._refuse(request, 503, "the Satori server is away")
        try:
            params = json.loads(await request.read() or b"{}")
        except ValueError:
            params = None
        if not isinstance(params, dict):
            await self._log_call(method, {}, "failed", 400)
            return web.Response(status=400, text="request body is not a JSON object")
        data, error = await self._api(method, params, bad_params=400)
        if error is None:
            await self._log_call(method, params, "ok", 200)
            return web.json_response(data)
        await self._log_call(method, params, "failed", error.code)
        return web.Response(status=error.code, text=error.message)

    async def _http_events(self, request: web.Request) -> web.StreamResponse:
        ws = await self._accept(request)
        if ws is None:
            return web.Response(status=499)
        watchdog = asyncio.get_running_loop().call_later(
            IDENTIFY_TIMEOUT, lambda: asyncio.ensure_future(ws.close(code=4000, message=b"no IDENTIFY")))
        try:
            async for text in self._frames(ws):
                try:
                    frame = json.loads(text)
                    op = frame.get("op")
                except (ValueError, AttributeError):
                    await ws.close(code=4000, message=b"invalid message")
                    break
                if op == OP_IDENTIFY:
                    body = frame.get("body") or {}
                    self.identified.append(body)
                    if self.access_token and body.get("token") != self.access_token:
                        await ws.close(code=4004, message=b"invalid token")
                        break
                    watchdog.cancel()
                    await ws.send_str(json.dumps({"op": OP_READY, "body": {
                        "logins": [self.login()], "proxy_urls": []}}, ensure_ascii=False))
                    await self._ready(ws)
                    if self.resume and isinstance(body.get("sn"), int):
                        for event in [e for e in self.events if e["sn"] > body["sn"]]:
                            await ws.send_str(json.dumps({"op": OP_EVENT, "body": event},
                                                         ensure_ascii=False))
                elif op == OP_PING:
                    await ws.send_str(json.dumps({"op": OP_PONG, "body": {}}))
        finally:
            watchdog.cancel()
        return ws

    # ---- events -----------------------------------------------------------------------------

    def build_event(self, type_: str, **resources: Any) -> dict[str, Any]:
        """An Event body (``sn`` allocated), its ``login`` as in non-login events, with
        LLBot's compatibility fields (``id``, ``self_id``, ``platform``)."""
        self._sn += 1
        return {"sn": self._sn, "id": self._sn, "type": type_, "timestamp": int(time.time() * 1000),
                "self_id": str(self.self_id), "platform": self.platform,
                "login": {"sn": 1, "user": self.user(self.self_id), "platform": self.platform},
                **resources}

    async def post_event(self, event: dict[str, Any]) -> None:
        """Send an Event body (an ``sn`` is given when it has none) on every ready stream,
        recorded in ``events``. With nobody connected it is kept for session recovery when
        ``resume``, else ``ConnectionError``."""
        if "sn" not in event:
            self._sn += 1
            event = {"sn": self._sn, **event}
        if not self.connected and not self.resume:
            raise ConnectionError("SatoriSim: the bot is not connected")
        self.events.append(event)
        if self.connected:
            await self._broadcast(json.dumps({"op": OP_EVENT, "body": event}, ensure_ascii=False),
                                  ready_only=True)

    @staticmethod
    def _content(message: Any) -> str:
        if isinstance(message, str):
            return escape(message)
        if isinstance(message, dict):
            return to_content([message])
        return to_content(list(message))

    async def group_message(self, group_id: int, user_id: int, message: Any) -> str:
        """Post a group message from ``user_id`` (registered as a member if unknown); return
        its message id."""
        member = self.speaker(group_id, user_id)
        mid = self._message_id(CHAT_GROUP, str(group_id))
        message_obj = {"id": mid, "content": self._content(message),
                       "created_at": int(time.time() * 1000)}
        self.messages[mid] = {**message_obj, "channel": self.channel("group", group_id),
                              "user": self.user(user_id)}
        await self.post_event(self.build_event(
            "message-created", channel=self.channel("group", group_id), guild=self.guild(group_id),
            member={"user": self.user(user_id), "nick": member.card or member.nickname},
            user=self.user(user_id), message=message_obj))
        return mid

    async def private_message(self, user_id: int, message: Any) -> str:
        """Post a private message from ``user_id`` (a friend's, or a temporary session's:
        both are the ``private:`` channel on Satori); return its message id."""
        chat = CHAT_C2C if user_id in self.friends else CHAT_TEMP
        mid = self._message_id(chat, f"u_{user_id}")
        message_obj = {"id": mid, "content": self._content(message),
                       "created_at": int(time.time() * 1000)}
        self.messages[mid] = {**message_obj, "channel": self.channel("private", user_id),
                              "user": self.user(user_id)}
        await self.post_event(self.build_event(
            "message-created", channel=self.channel("private", user_id), user=self.user(user_id),
            message=message_obj))
        return mid

    async def resend(self, message_id: int | str) -> None:
        """Post the event of an earlier message again, unchanged (same ``sn`` and id), as a
        server replaying after a reconnect does."""
        event = next(e for e in reversed(self.events)
                     if (e.get("message") or {}).get("id") == message_id)
        self.events.append(event)
        await self._broadcast(json.dumps({"op": OP_EVENT, "body": event}, ensure_ascii=False),
                              ready_only=True)

    # ---- sending ----------------------------------------------------------------------------

    def _target(self, channel_id: Any) -> tuple[Kind, int]:
        if not isinstance(channel_id, str):
            raise SideError(400, f"channel_id must be a string: {channel_id!r}")
        if channel_id.startswith("private:") and channel_id[8:].isdigit():
            return "private", int(channel_id[8:])
        if channel_id.isdigit():
            return "group", int(channel_id)
        raise SideError(500, f"无法解析频道 {channel_id}")

    def _split(self, elements: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], bool]]:
        """The messages one ``message.create`` sends: ``(elements, forward)`` each; a
        ``<message>`` ends the one before it and is one of its own."""
        out: list[tuple[list[dict[str, Any]], bool]] = []
        current: list[dict[str, Any]] = []
        for el in elements:
            if el["type"] != "message":
                current.append(el)
                continue
            if current:
                out.append((current, False))
                current = []
            if el["attrs"].get("forward"):
                out.append(([el], True))
            elif el["children"]:
                out.append((el["children"], False))
        if current:
            out.append((current, False))
        return out

    async def _act_message_create(self, params: dict[str, Any]) -> Any:
        kind, target = self._target(params["channel_id"])
        content = params["content"]
        if not isinstance(content, str):
            raise SideError(400, "content must be a string")
        results = []
        for elements, forward in self._split(parse_elements(content)):
            if kind == "private":  # an <at> has no meaning in a private chat (LLBot drops it)
                elements = _without_at(elements)
            results.append(await self._send_one(kind, target, elements, forward))
        return results

    async def _send_one(self, kind: Kind, target: int, elements: list[dict[str, Any]],
                        forward: bool) -> dict[str, Any]:
        media = forward or _has_media(elements)
        for el in _walk(elements):
            if el["type"] in {"img", "image"}:
                _read_src(el["attrs"].get("src") or el["attrs"].get("url"))
        error = await self._fault(kind, target, media=media)
        temp = kind == "private" and target not in self.friends
        if not error and temp and not (self.temp_sessions and self.shares_group(target)):
            error = "无法获取用户信息"
        if not error and forward and not self.forward_supported:
            error = "不支持合并转发"
        group_ctx = target if kind == "group" else None
        if forward:
            texts, at = [], []
            for node in (c for c in elements[0]["children"] if c["type"] == "message"):
                text, node_at = render_elements(node["children"], lambda u: self._shown(u, group_ctx))
                texts.append(text)
                at += node_at
            text = "\n".join(texts)
        else:
            text, at = render_elements(elements, lambda u: self._shown(u, group_ctx))
        chat = CHAT_GROUP if kind == "group" else CHAT_TEMP if temp else CHAT_C2C
        mid = None if error else self._message_id(chat, str(target) if kind == "group" else f"u_{target}")
        await self._record(Sent(kind, target, elements, text, at, time.time(), not error, mid,
                                forward, temp))
        if error:
            raise SideError(500, error)
        assert mid is not None
        message = {"id": mid, "content": to_content(elements), "channel": self.channel(kind, target),
                   "user": self.user(self.self_id), "created_at": int(time.time() * 1000)}
        self.messages[mid] = message
        return message

    def _shown(self, user_id: int, group_id: int | None) -> str:
        member = self.groups.get(group_id or 0, {}).get(user_id)
        return (member.card or member.nickname) if member else self.nickname_of(user_id)

    async def _act_message_get(self, params: dict[str, Any]) -> Any:
        message = self.messages.get(str(params["message_id"]))
        if message is None or message["id"] in self.deleted:
            raise SideError(500, "消息不存在")
        return message

    async def _act_message_delete(self, params: dict[str, Any]) -> Any:
        await self._act_message_get(params)
        self.deleted.append(str(params["message_id"]))
        return {}

    async def _act_user_channel_create(self, params: dict[str, Any]) -> Any:
        user_id = str(params["user_id"])
        self.channels_created.append(user_id)
        return {"id": f"private:{user_id}", "type": DIRECT}

    async def _act_channel_get(self, params: dict[str, Any]) -> Any:
        return self.channel(*self._target(params["channel_id"]))

    def _guild_id(self, params: dict[str, Any]) -> int:
        gid = str(params["guild_id"])
        if not gid.isdigit() or int(gid) not in self.groups:
            raise SideError(500, f"群 {gid} 不存在")
        return int(gid)

    async def _act_guild_get(self, params: dict[str, Any]) -> Any:
        return self.guild(self._guild_id(params))

    async def _act_guild_list(self, params: dict[str, Any]) -> Any:
        return {"data": [self.guild(g) for g in sorted(self.groups)], "next": None}

    async def _act_guild_member_get(self, params: dict[str, Any]) -> Any:
        gid = self._guild_id(params)
        uid = str(params["user_id"])
        member = self.groups[gid].get(int(uid)) if uid.isdigit() else None
        if member is None:
            raise SideError(500, f"群 {gid} 中没有成员 {uid}")
        return self.member(gid, member)

    async def _act_guild_member_list(self, params: dict[str, Any]) -> Any:
        gid = self._guild_id(params)
        return {"data": [self.member(gid, m) for m in self.groups[gid].values()], "next": None}

    async def _act_login_get(self, params: dict[str, Any]) -> Any:
        return self.login()

    async def _act_user_get(self, params: dict[str, Any]) -> Any:
        uid = str(params["user_id"])
        if not uid.isdigit():
            raise SideError(500, "无法获取用户信息")
        return self.user(int(uid))

    async def _act_friend_list(self, params: dict[str, Any]) -> Any:
        return {"data": [{"user": self.user(u), "nick": self.nickname_of(u)}
                         for u in sorted(self.friends)], "next": None}


def _walk(elements: list[dict[str, Any]]):
    for el in elements:
        yield el
        yield from _walk(el.get("children", []))


def _has_media(elements: list[dict[str, Any]]) -> bool:
    return any(el["type"] in {"img", "image", "audio", "video", "file"} for el in _walk(elements))


def _without_at(elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**el, "children": _without_at(el["children"])} for el in elements if el["type"] != "at"]


def _read_src(src: Any) -> bytes | None:
    """Check a picture's ``src``: a ``data:`` URL must decode, ``file://`` must exist;
    ``http(s)://`` is taken as it is. Anything else fails (HTTP 500, as a server that cannot
    fetch it)."""
    if not isinstance(src, str):
        raise SideError(500, "图片缺少 src")
    if src.startswith("data:"):
        head, _, data = src.partition(",")
        if not head.endswith(";base64"):
            raise SideError(500, "只支持 base64 的 data URL")
        with contextlib.suppress(binascii.Error, ValueError):
            return base64.b64decode(data, validate=True)
        raise SideError(500, "data URL 无法解码")
    if src.startswith("file://"):
        path = Path(unquote(urlparse(src).path))
        if not path.is_file():
            raise SideError(500, f"文件不存在: {path}")
        return path.read_bytes()
    if src.startswith(("http://", "https://")):
        return None
    raise SideError(500, f"不支持的 src: {src[:40]}")
