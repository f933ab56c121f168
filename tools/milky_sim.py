"""A simulated Milky protocol side (as Lagrange.Milky or LLBot's Milky would be) for
end-to-end tests: the bot, through nonebot-adapter-milky, dials it.

Written from the Milky documents (SaltifyDev/milky; site https://milky.ntqqrev.org):

* communication — https://milky.ntqqrev.org/guide/communication : ``POST /api/:api`` with a
  JSON body and ``Authorization: Bearer {access_token}``; HTTP 401 (credentials missing or
  wrong), 404 (no such API), 415 (Content-Type not supported); everything else is HTTP 200
  with ``{"status": "ok", "retcode": 0, "data": {...}}`` or ``{"status": "failed", "retcode":
  <non-zero>, "message": ...}`` (``-400`` parameters, ``-403`` not logged in, the rest the
  side's choice); events on ``GET /event`` upgraded to a WebSocket, the token in the
  ``Authorization`` header or the ``access_token`` query parameter;
* events — https://milky.ntqqrev.org/struct/Event : ``{"time", "self_id", "event_type",
  "data"}``; ``message_receive`` carries an IncomingMessage
  (https://milky.ntqqrev.org/struct/IncomingMessage: ``message_scene`` ``friend`` /
  ``group`` / ``temp``, ``peer_id``, ``message_seq``, ``sender_id``, ``time``,
  ``segments``, and ``friend`` / ``group`` + ``group_member`` / the temp session's optional
  ``group``);
* segments — https://milky.ntqqrev.org/struct/IncomingSegment and
  https://milky.ntqqrev.org/struct/OutgoingSegment : ``text``, ``mention`` (``user_id``),
  ``mention_all``, ``face``, ``reply`` (``message_seq``), ``image`` (``uri``: ``file://``,
  ``http(s)://`` or ``base64://``), ``record``, ``video``, ``forward`` (``messages`` of
  OutgoingForwardedMessage ``user_id`` / ``sender_name`` / ``segments``), ``light_app``;
* message API — https://milky.ntqqrev.org/api/message : ``send_private_message``
  (``user_id`` is a *friend's* QQ number), ``send_group_message`` → ``message_seq`` and
  ``time``; ``get_message``, ``get_forwarded_messages``, ``recall_*``,
  ``get_resource_temp_url``;
* system API — https://milky.ntqqrev.org/api/system : ``get_login_info`` (``uin``,
  ``nickname``), ``get_impl_info``, ``get_user_profile``, ``get_friend_list`` /
  ``get_friend_info``, ``get_group_list`` / ``get_group_info``, ``get_group_member_list`` /
  ``get_group_member_info`` (wrapped as ``{"friends": …}``, ``{"member": …}``, …);
* FAQ — https://milky.ntqqrev.org/guide/faq : ``message_seq`` counts per conversation;
  ``message_scene`` + ``peer_id`` + ``message_seq`` identify a message.

Where the documents leave a choice to the side, the reference side (Yogurt, SaltifyDev)
was followed: a private message to someone who is not a friend fails with retcode ``-404``
"Friend not found"; a failed send here answers ``-500``.

What a real side does that this fake does not:

* no Server-Sent Events and no WebHook (the adapter uses the WebSocket);
* no QQ behind it: a send fails only through the fault knobs (:class:`~tools.sim_base.ChatSim`)
  or a rule below (not a friend, not in the group, a bad segment); real sides also fail on
  risk control, a muted bot, a too-long message, a picture the server rejects;
* ``http(s)://`` picture URIs are not fetched (``base64://`` is decoded, ``file://`` must
  exist); pictures are not transcoded or checked as images;
* ``message_seq`` values of the bot's own messages are the fake's counter, not QQ's; no
  ``message_recall`` / notice / request events unless posted by hand (:meth:`MilkySim.post_event`);
* no login state: ``-403`` (not logged in) is never answered; ``get_history_messages``,
  files, announcements and group administration APIs answer HTTP 404.

Dependencies: the standard library and aiohttp (through ``sim_server.py``).
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from aiohttp import web

from tools.sim_base import Kind, Member, Sent
from tools.sim_server import ServedSim, SideError

__all__ = [
    "RETCODE_BAD_PARAMS",
    "RETCODE_NOT_FOUND",
    "RETCODE_SEND_FAILED",
    "MilkySim",
    "milky_image",
    "milky_mention",
    "milky_text",
    "render_segments",
]

RETCODE_BAD_PARAMS = -400
"""retcode of parameters that cannot be read (communication guide)."""
RETCODE_NOT_FOUND = -404
"""retcode of a friend, group, member or message that does not exist (Yogurt's choice)."""
RETCODE_SEND_FAILED = -500
"""retcode of a send that failed (the fake's choice; the guide leaves it to the side)."""

OUTGOING_TYPES = {"text", "mention", "mention_all", "face", "reply", "image", "record",
                  "video", "forward", "light_app"}
"""OutgoingSegment types (https://milky.ntqqrev.org/struct/OutgoingSegment)."""
MEDIA_SCHEMES = ("file://", "http://", "https://", "base64://")


def milky_text(text: str) -> dict[str, Any]:
    """A ``text`` segment."""
    return {"type": "text", "data": {"text": text}}


def milky_mention(user_id: int, name: str = "") -> dict[str, Any]:
    """An incoming ``mention`` segment (``name`` without the ``@``)."""
    return {"type": "mention", "data": {"user_id": user_id, "name": name}}


def milky_image(resource_id: str = "img-1", url: str = "http://127.0.0.1/img.png") -> dict[str, Any]:
    """An incoming ``image`` segment."""
    return {"type": "image", "data": {"resource_id": resource_id, "temp_url": url, "width": 1,
                                      "height": 1, "summary": "[图片]", "sub_type": "normal"}}


def render_segments(segments: list[dict[str, Any]], name_of) -> tuple[str, list[int], bool]:
    """Flatten Milky segments to ``(text, at_ids, forward)``: text joined, ``mention`` as
    ``@name`` (``name_of(uid)``), ``mention_all`` as ``@全体成员``, a ``forward`` segment's
    messages one after another (a line between them); pictures and the rest add nothing."""
    parts: list[str] = []
    at: list[int] = []
    forward = False
    for seg in segments:
        kind, data = seg["type"], seg.get("data") or {}
        if kind == "text":
            parts.append(str(data["text"]))
        elif kind == "mention":
            uid = int(data["user_id"])
            at.append(uid)
            parts.append("@" + name_of(uid))
        elif kind == "mention_all":
            parts.append("@全体成员")
        elif kind == "forward":
            forward = True
            texts = []
            for node in data["messages"]:
                text, node_at, _ = render_segments(node["segments"], name_of)
                texts.append(text)
                at += node_at
            parts.append("\n".join(texts))
    return "".join(parts), at, forward


class MilkySim(ServedSim):
    """One simulated QQ account on a Milky side, served on ``127.0.0.1:port``.

    The bot is started with :meth:`bot_env` (``MILKY_CLIENTS`` pointing here, a driver that
    can dial) and connects by itself; :meth:`connect` lets it in. People speak with
    :meth:`group_message`, :meth:`private_message` (a friend's message; someone else's is a
    temporary session, ``scene="temp"``) and :meth:`temp_message`.

    ``message_seq`` counts per conversation (``(scene, peer)``), from 1, and goes on across
    simulators of the same account in this process (a side that restarts keeps QQ's
    sequence). :meth:`group_message` returns the seq; :meth:`resend` takes it (the newest
    message with that seq, or exactly one with ``peer``).

    Observations beyond :class:`~tools.sim_server.ServedSim`'s: ``messages`` (every message
    by ``(scene, peer_id, seq)``, as IncomingMessage), ``forwards`` (forward id → the
    messages of each merged-forward the bot sent), ``recalled``.
    """

    side: ClassVar[str] = "milky"
    _account_seqs: ClassVar[dict[tuple[int, str, int], int]] = {}

    def __init__(self, self_id: int = 10001, nickname: str = "牌桌", *,
                 api_delay: float = 0.0, access_token: str = "", port: int = 0) -> None:
        """Create the account and bind its port (see :class:`~tools.sim_server.ServedSim`)."""
        super().__init__(self_id, nickname, api_delay=api_delay, access_token=access_token,
                         port=port)
        self.events: list[dict[str, Any]] = []
        self.messages: dict[tuple[str, int, int], dict[str, Any]] = {}
        self.forwards: dict[str, list[dict[str, Any]]] = {}
        self.recalled: list[tuple[str, int, int]] = []
        self._by_seq: dict[int, tuple[str, int, int]] = {}
        self._handlers.update({
            "send_private_message": self._act_send_private_message,
            "send_group_message": self._act_send_group_message,
            "get_message": self._act_get_message,
            "get_forwarded_messages": self._act_get_forwarded_messages,
            "get_resource_temp_url": self._act_get_resource_temp_url,
            "recall_private_message": self._act_recall_private_message,
            "recall_group_message": self._act_recall_group_message,
            "mark_message_as_read": self._act_nothing,
            "get_login_info": self._act_get_login_info,
            "get_impl_info": self._act_get_impl_info,
            "get_user_profile": self._act_get_user_profile,
            "get_friend_list": self._act_get_friend_list,
            "get_friend_info": self._act_get_friend_info,
            "get_group_list": self._act_get_group_list,
            "get_group_info": self._act_get_group_info,
            "get_group_member_list": self._act_get_group_member_list,
            "get_group_member_info": self._act_get_group_member_info,
        })

    # ---- the bot's settings ---------------------------------------------------------------

    def bot_env(self, access_token: str = "") -> dict[str, str]:
        """``MILKY_CLIENTS`` for this side (with ``access_token``, also kept as the token the
        side requires) and a driver that serves and dials (``~fastapi+~httpx+~websockets``)."""
        if access_token:
            self.access_token = access_token
        client = {"host": self.host, "port": self.port}
        if self.access_token:
            client["access_token"] = self.access_token
        return {"DRIVER": "~fastapi+~httpx+~websockets", "MILKY_CLIENTS": json.dumps([client])}

    # ---- HTTP -------------------------------------------------------------------------------

    def _routes(self) -> list[web.RouteDef]:
        return [web.post("/api/{api}", self._http_api), web.get("/event", self._http_event)]

    def _token_ok(self, request: web.Request, *, query: bool) -> bool:
        if not self.access_token:
            return True
        header = request.headers.get("Authorization", "")
        if header == f"Bearer {self.access_token}":
            return True
        return query and request.query.get("access_token") == self.access_token

    async def _http_api(self, request: web.Request) -> web.StreamResponse:
        api = request.match_info["api"]
        if not self._token_ok(request, query=False):
            return self._refuse(request, 401, "Unauthorized")
        if api not in self._handlers:
            return self._refuse(request, 404, "Not Found")
        if request.content_type != "application/json":
            return self._refuse(request, 415, "Unsupported Media Type")
        if not self._open.is_set():
            return self._refuse(request, 503, "the Milky side is away")
        try:
            params = json.loads(await request.read() or b"null")
        except ValueError:
            params = None
        if not isinstance(params, dict):
            await self._log_call(api, {}, "failed", RETCODE_BAD_PARAMS)
            return web.json_response(_failed(RETCODE_BAD_PARAMS, "请求体不是一个 JSON 对象"))
        data, error = await self._api(api, params, bad_params=RETCODE_BAD_PARAMS)
        if error is None:
            await self._log_call(api, params, "ok", 0)
            return web.json_response({"status": "ok", "retcode": 0,
                                      "data": {} if data is None else data})
        await self._log_call(api, params, "failed", error.code)
        return web.json_response(_failed(error.code, error.message))

    async def _http_event(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return self._refuse(request, 404, "only the WebSocket event stream is simulated")
        if not self._token_ok(request, query=True):
            return self._refuse(request, 401, "Unauthorized")
        ws = await self._accept(request)
        if ws is None:
            return web.Response(status=499)
        async for _ in self._frames(ws):
            pass  # the application sends nothing on the event stream
        return ws

    # ---- events from people ---------------------------------------------------------------

    def _next_seq(self, scene: str, peer: int) -> int:
        key = (self.self_id, scene, peer)
        seq = MilkySim._account_seqs.get(key, 0) + 1
        MilkySim._account_seqs[key] = seq
        return seq

    def friend_entity(self, user_id: int) -> dict[str, Any]:
        """FriendEntity of ``user_id``."""
        return {"user_id": user_id, "nickname": self.nickname_of(user_id), "sex": "unknown",
                "qid": "", "remark": "", "category": {"category_id": 0, "category_name": "我的好友"}}

    def group_entity(self, group_id: int) -> dict[str, Any]:
        """GroupEntity of ``group_id``."""
        return {"group_id": group_id, "group_name": self.group_names.get(group_id, f"群{group_id}"),
                "member_count": len(self.groups.get(group_id, {})) + 1, "max_member_count": 500,
                "remark": "", "created_time": 0, "description": "", "question": "",
                "announcement": ""}

    def member_entity(self, group_id: int, member: Member) -> dict[str, Any]:
        """GroupMemberEntity of ``member`` in ``group_id``."""
        return {"user_id": member.user_id, "nickname": member.nickname, "sex": "unknown",
                "group_id": group_id, "card": member.card, "title": "", "level": 1,
                "role": member.role, "join_time": 0, "last_sent_time": 0}

    @staticmethod
    def _segments(message: Any) -> list[dict[str, Any]]:
        if isinstance(message, str):
            return [milky_text(message)]
        if isinstance(message, dict):
            return [message]
        return list(message)

    def build_message(self, scene: str, peer: int, sender: int, message: Any,
                      group_id: int | None = None) -> dict[str, Any]:
        """Build (not send) a ``message_receive`` event; allocates the seq. A ``str`` is one
        text segment; segments (``milky_text``, ``milky_mention`` …) pass as they are."""
        data: dict[str, Any] = {
            "message_scene": scene, "peer_id": peer, "message_seq": self._next_seq(scene, peer),
            "sender_id": sender, "time": int(time.time()), "segments": self._segments(message)}
        if scene == "friend":
            data["friend"] = self.friend_entity(sender)
        elif scene == "group":
            data["group"] = self.group_entity(peer)
            data["group_member"] = self.member_entity(peer, self.speaker(peer, sender))
        elif group_id is not None:
            data["group"] = self.group_entity(group_id)
        return {"time": data["time"], "self_id": self.self_id, "event_type": "message_receive",
                "data": data}

    async def post_event(self, event: dict[str, Any]) -> None:
        """Send an arbitrary event on the event stream (recorded in ``events``)."""
        self.events.append(event)
        await self._broadcast(json.dumps(event, ensure_ascii=False))

    async def _post_message(self, event: dict[str, Any]) -> int:
        data = event["data"]
        key = (data["message_scene"], data["peer_id"], data["message_seq"])
        self.messages[key] = data
        self._by_seq[data["message_seq"]] = key
        await self.post_event(event)
        return int(data["message_seq"])

    async def group_message(self, group_id: int, user_id: int, message: Any) -> int:
        """Post a group message from ``user_id`` (registered as a member if unknown);
        return its ``message_seq``."""
        return await self._post_message(self.build_message("group", group_id, user_id, message))

    async def private_message(self, user_id: int, message: Any) -> int:
        """Post a private message from ``user_id``: a friend's (``friend``) or, from someone
        else, a temporary session through a group you share (``temp``)."""
        if user_id in self.friends:
            return await self._post_message(self.build_message("friend", user_id, user_id, message))
        return await self.temp_message(user_id, message, self.shares_group(user_id))

    async def temp_message(self, user_id: int, message: Any, group_id: int | None = None) -> int:
        """Post a temporary-session message (``temp``) from ``user_id``, through
        ``group_id``."""
        event = self.build_message("temp", user_id, user_id, message, group_id)
        return await self._post_message(event)

    async def resend(self, message_id: int | str, peer: tuple[str, int] | None = None) -> None:
        """Post a message again, unchanged: the newest with ``message_seq == message_id``,
        or the one in ``peer`` (``(scene, peer_id)``)."""
        key = (peer[0], peer[1], int(message_id)) if peer else self._by_seq[int(message_id)]
        await self.post_event({"time": int(time.time()), "self_id": self.self_id,
                               "event_type": "message_receive", "data": self.messages[key]})

    # ---- sending ----------------------------------------------------------------------------

    def _check_segments(self, message: Any) -> list[dict[str, Any]]:
        """The outgoing segments, checked against OutgoingSegment (-400 when they are not)."""
        if not isinstance(message, list) or not message:
            raise SideError(RETCODE_BAD_PARAMS, "message 必须是非空的消息段数组")
        for seg in message:
            if not isinstance(seg, dict) or seg.get("type") not in OUTGOING_TYPES:
                raise SideError(RETCODE_BAD_PARAMS, f"不支持的消息段 {seg!r}")
            data = seg.get("data")
            if not isinstance(data, dict):
                raise SideError(RETCODE_BAD_PARAMS, f"消息段缺少 data: {seg!r}")
            kind = seg["type"]
            if kind == "text" and not isinstance(data.get("text"), str):
                raise SideError(RETCODE_BAD_PARAMS, "text 消息段缺少 text")
            if kind == "mention" and not isinstance(data.get("user_id"), int):
                raise SideError(RETCODE_BAD_PARAMS, "mention 消息段的 user_id 不是 QQ 号")
            if kind in {"image", "record", "video"}:
                _read_uri(data.get("uri"))
            if kind == "forward":
                nodes = data.get("messages")
                if not isinstance(nodes, list) or not nodes:
                    raise SideError(RETCODE_BAD_PARAMS, "forward 消息段需要至少一条消息")
                for node in nodes:
                    if not (isinstance(node, dict) and isinstance(node.get("user_id"), int)
                            and isinstance(node.get("sender_name"), str)):
                        raise SideError(RETCODE_BAD_PARAMS, f"不是 OutgoingForwardedMessage: {node!r}")
                    self._check_segments(node.get("segments"))
        return message

    async def _send(self, kind: Kind, target: int, params: dict[str, Any]) -> dict[str, Any]:
        segments = self._check_segments(params.get("message"))
        media = any(s["type"] in {"image", "record", "video", "forward"} for s in segments)
        error = await self._fault(kind, target, media=media)
        code = RETCODE_SEND_FAILED
        if error.startswith("the bot is not in group"):
            code, error = RETCODE_NOT_FOUND, "Group not found"
        elif not error and kind == "private" and target not in self.friends:
            code, error = RETCODE_NOT_FOUND, "Friend not found"
        elif not error and not self.forward_supported and any(
                s["type"] == "forward" for s in segments):
            error = "不支持发送合并转发"
        group_ctx = target if kind == "group" else None
        text, at, forward = render_segments(
            segments, lambda uid: self._shown_name(uid, group_ctx))
        scene = "group" if kind == "group" else "friend"
        seq = None if error else self._next_seq(scene, target)
        await self._record(Sent(kind, target, segments, text, at, time.time(), not error, seq,
                                forward))
        if error:
            raise SideError(code, error)
        assert seq is not None
        now = int(time.time())
        stored = {"message_scene": scene, "peer_id": target, "message_seq": seq,
                  "sender_id": self.self_id, "time": now, "segments": segments}
        self.messages[(scene, target, seq)] = stored
        for seg in segments:
            if seg["type"] == "forward":
                forward_id = f"fwd-{len(self.forwards) + 1}"
                self.forwards[forward_id] = seg["data"]["messages"]
        return {"message_seq": seq, "time": now}

    def _shown_name(self, user_id: int, group_id: int | None) -> str:
        member = self.groups.get(group_id or 0, {}).get(user_id)
        if member is not None:
            return member.card or member.nickname
        return self.nickname_of(user_id)

    async def _act_send_private_message(self, params: dict[str, Any]) -> Any:
        return await self._send("private", _uin(params["user_id"]), params)

    async def _act_send_group_message(self, params: dict[str, Any]) -> Any:
        return await self._send("group", _uin(params["group_id"]), params)

    async def _act_get_message(self, params: dict[str, Any]) -> Any:
        key = (params["message_scene"], _uin(params["peer_id"]), int(params["message_seq"]))
        if key not in self.messages or key in self.recalled:
            raise SideError(RETCODE_NOT_FOUND, "Message not found")
        return {"message": self.messages[key]}

    async def _act_get_forwarded_messages(self, params: dict[str, Any]) -> Any:
        nodes = self.forwards.get(str(params["forward_id"]))
        if nodes is None:
            raise SideError(RETCODE_NOT_FOUND, "Forward not found")
        return {"messages": [{"message_seq": i + 1, "sender_name": n["sender_name"],
                              "avatar_url": "", "time": int(time.time()),
                              "segments": n["segments"]} for i, n in enumerate(nodes)]}

    async def _act_get_resource_temp_url(self, params: dict[str, Any]) -> Any:
        return {"url": f"http://{self.host}:{self.port}/resource/{params['resource_id']}"}

    async def _recall(self, scene: str, peer: int, seq: int) -> None:
        key = (scene, peer, seq)
        if key not in self.messages or key in self.recalled:
            raise SideError(RETCODE_NOT_FOUND, "Message not found")
        self.recalled.append(key)
        self.deleted.append(key)

    async def _act_recall_private_message(self, params: dict[str, Any]) -> Any:
        await self._recall("friend", _uin(params["user_id"]), int(params["message_seq"]))
        return {}

    async def _act_recall_group_message(self, params: dict[str, Any]) -> Any:
        await self._recall("group", _uin(params["group_id"]), int(params["message_seq"]))
        return {}

    async def _act_nothing(self, params: dict[str, Any]) -> Any:
        return {}

    # ---- system -----------------------------------------------------------------------------

    async def _act_get_login_info(self, params: dict[str, Any]) -> Any:
        for ws in list(self._live):  # the adapter asks right after its stream opens
            await self._ready(ws)
        return {"uin": self.self_id, "nickname": self.nickname}

    async def _act_get_impl_info(self, params: dict[str, Any]) -> Any:
        return {"impl_name": "milky_sim", "impl_version": "1.0", "qq_protocol_version": "0",
                "qq_protocol_type": "linux", "milky_version": "1.2"}

    async def _act_get_user_profile(self, params: dict[str, Any]) -> Any:
        uid = _uin(params["user_id"])
        return {"nickname": self.nickname_of(uid), "qid": "", "age": 0, "sex": "unknown",
                "remark": "", "bio": "", "level": 1, "country": "", "city": "", "school": ""}

    async def _act_get_friend_list(self, params: dict[str, Any]) -> Any:
        return {"friends": [self.friend_entity(u) for u in sorted(self.friends)]}

    async def _act_get_friend_info(self, params: dict[str, Any]) -> Any:
        uid = _uin(params["user_id"])
        if uid not in self.friends:
            raise SideError(RETCODE_NOT_FOUND, "Friend not found")
        return {"friend": self.friend_entity(uid)}

    async def _act_get_group_list(self, params: dict[str, Any]) -> Any:
        return {"groups": [self.group_entity(g) for g in sorted(self.groups)]}

    def _group(self, params: dict[str, Any]) -> int:
        gid = _uin(params["group_id"])
        if gid not in self.groups:
            raise SideError(RETCODE_NOT_FOUND, "Group not found")
        return gid

    async def _act_get_group_info(self, params: dict[str, Any]) -> Any:
        return {"group": self.group_entity(self._group(params))}

    async def _act_get_group_member_list(self, params: dict[str, Any]) -> Any:
        gid = self._group(params)
        return {"members": [self.member_entity(gid, m) for m in self.groups[gid].values()]}

    async def _act_get_group_member_info(self, params: dict[str, Any]) -> Any:
        gid = self._group(params)
        member = self.groups[gid].get(_uin(params["user_id"]))
        if member is None:
            raise SideError(RETCODE_NOT_FOUND, "Member not found")
        return {"member": self.member_entity(gid, member)}


def _uin(value: Any) -> int:
    """A QQ number parameter (an int64 on the wire; a bool or a string is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SideError(RETCODE_BAD_PARAMS, f"{value!r} 不是一个合法的 QQ 号")
    return value


def _read_uri(uri: Any) -> bytes | None:
    """Check a media ``uri``: ``base64://`` must decode, ``file://`` must exist;
    ``http(s)://`` is taken as it is (not fetched). Returns the bytes when local."""
    if not isinstance(uri, str) or not uri.startswith(MEDIA_SCHEMES):
        raise SideError(RETCODE_BAD_PARAMS, f"uri 不支持: {str(uri)[:40]!r}")
    if uri.startswith("base64://"):
        try:
            return base64.b64decode(uri[len("base64://"):], validate=True)
        except (binascii.Error, ValueError):
            raise SideError(RETCODE_BAD_PARAMS, "base64 数据无法解码") from None
    if uri.startswith("file://"):
        path = Path(unquote(urlparse(uri).path))
        if not path.is_file():
            raise SideError(RETCODE_SEND_FAILED, f"文件不存在: {path}")
        return path.read_bytes()
    return None


def _failed(retcode: int, message: str) -> dict[str, Any]:
    return {"status": "failed", "retcode": retcode, "message": message}
