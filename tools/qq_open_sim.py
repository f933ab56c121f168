"""A fake QQ open platform (the official QQ bot's side) for end-to-end tests.

The official bot talks to Tencent's servers, not to a client on the operator's machine: an
access token from ``bots.qq.com``, a REST API (``api.sgroup.qq.com``) and events over a
gateway WebSocket or signed webhook callbacks. This module serves all three on loopback so the
real nonebot-adapter-qq (``QQ_API_BASE`` / ``QQ_AUTH_BASE``) drives it, and it plays the
people, the groups and the QQ client they use (pressing buttons, reading what the bot sent).
Like ``tools/onebot_sim.py`` it imports nothing from the project; dependencies: the standard
library and ``websockets`` (``cryptography`` only for webhook signatures, imported when a
webhook app is used; nonebot-adapter-qq depends on it).

Written from tencent-connect/bot-docs (``docs/develop/api-v2/``, published at
https://bot.q.qq.com/wiki/develop/api-v2/) and nonebot-adapter-qq 1.7.3 (``config.py``,
``adapter.py``, ``bot.py``, ``models/``, ``event.py``):

* token — ``dev-prepare/interface-framework/api-use.md``: ``POST /app/getAppAccessToken``
  ``{appId, clientSecret}`` → ``{access_token, expires_in}`` (a string of seconds, 7200); the
  same token is handed out until its last 60 s, when a new one is issued and the old one
  still works until it expires. Every API call carries ``Authorization: QQBot <token>``; a
  missing one is HTTP 401 code 11241, a wrong or expired one 401 code 11243
  (``openapi/error/error.md``).
* gateway — ``openapi/wss/shard_url_get.md`` (``GET /gateway/bot``: url, shards,
  session_start_limit), ``dev-prepare/interface-framework/event-emit.md`` and
  ``opcode.md`` (payload ``{id, op, d, s, t}``; op 10 HELLO with ``heartbeat_interval`` in
  ms, op 2 IDENTIFY ``{token: "QQBot …", intents, shard, properties}`` → READY dispatch
  ``{version, session_id, user, shard}``, op 1 heartbeat ``d`` = last ``s`` → op 11 ACK,
  op 6 RESUME ``{token, session_id, seq}`` → the missed dispatches after ``seq`` then a
  ``RESUMED`` dispatch with ``d: ""``, op 7 RECONNECT, op 9 INVALID_SESSION for a bad
  identify or resume), ``dev-prepare/error-trace/websocket.md`` (close codes 4001 invalid
  opcode, 4002 invalid payload, 4007 bad seq, 4009 session expired, 4010 invalid shard,
  4013 invalid intent, 4014 intent not permitted).
* webhook — ``event-emit.md`` (webhook section, op 13 callback validation: sign
  ``event_ts + plain_token``) and ``dev-prepare/interface-framework/sign.md`` (Ed25519 with the
  secret repeated to a 32-byte seed; ``X-Signature-Ed25519`` / ``X-Signature-Timestamp``, signed
  message = timestamp + body; ``X-Bot-Appid``; ``User-Agent: QQBot-Callback``).
* messages — ``server-inter/message/send-receive/send.md``: ``POST /v2/users/{openid}/messages``
  and ``POST /v2/groups/{group_openid}/messages`` (``msg_type`` 0 text, 2 markdown, 3 ark,
  4 embed, 7 media; ``msg_id`` or ``event_id`` makes a passive reply; ``msg_seq`` defaults to
  1 and a repeated ``msg_id`` + ``msg_seq`` fails). Windows: C2C, each user message allows up
  to 5 replies within 60 minutes; group, 5 replies within 5 minutes; proactive pushes were
  switched off on 2025-04-21 (the danger box at the top of send.md). ``22009 msg limit
  exceed`` is the documented refusal past 5. ``event_id`` is accepted from
  INTERACTION_CREATE, FRIEND_ADD, C2C_MSG_RECEIVE (C2C) and INTERACTION_CREATE,
  GROUP_ADD_ROBOT, GROUP_MSG_RECEIVE (group); message events' ids are not event sources.
* events — ``server-inter/message/send-receive/event.md`` (C2C_MESSAGE_CREATE,
  GROUP_AT_MESSAGE_CREATE with ``content`` led by a space where the @ was, intents 1<<25),
  ``server-inter/group/manage/event.md`` (GROUP_ADD_ROBOT ``{group_openid, op_member_openid,
  timestamp}``), ``server-inter/user/manage/event.md`` (FRIEND_ADD ``{openid, timestamp}``),
  ``dev-prepare/unique-id.md`` (openids differ per bot; a person's ``member_openid`` differs
  per group). GROUP_MESSAGE_CREATE (every group message, no @ needed) is not in bot-docs;
  its shape is the sample in nonebot/adapter-qq#195 (``author {id = member_openid,
  member_openid, union_openid: "", username, bot}``, ``group_id = group_openid``, ``mentions``
  with ``is_you`` for the bot, ``message_scene.ext`` ``msg_idx=…``).
* buttons — ``server-inter/message/trans/msg-btn.md``: ``keyboard.content.rows`` (at most 5
  rows of 5 buttons), ``action.type`` 0 link / 1 callback / 2 command (inserts ``@bot data``,
  sent at once when ``enter``), ``action.permission.type`` 0 the listed
  ``specify_user_ids`` / 1 managers / 2 everyone / 3 roles (guilds only); a callback press is
  an INTERACTION_CREATE (intents 1<<26, ``type`` 11, ``scene``, ``chat_type`` 1 group / 2 C2C,
  ``group_openid`` + ``group_member_openid`` or ``user_openid``,
  ``data.resolved.button_data`` / ``button_id``) acknowledged by ``PUT /interactions/{id}``
  ``{code: 0..5}`` (empty answer). Markdown: ``server-inter/message/type/markdown.md``.
* media — ``server-inter/message/send-receive/rich-media.md``: ``POST /v2/{users|groups}/
  {openid}/files`` ``{file_type (1 image, 2 video, 3 voice, 4 file), url, srv_send_msg,
  file_data}`` → ``{file_uuid, file_info, ttl}``; ``srv_send_msg: true`` sends at once and
  counts as a proactive message; a ``file_info`` from a group upload only goes to groups, one
  from a user upload only to C2C; used as ``media: {file_info}`` with ``msg_type`` 7.
* errors — ``openapi/error/error.md``: HTTP 400 with ``{code, message}`` for a refused call;
  304003 URL not allowed, 304026 reply to an unknown message id, 304027 reply to an expired
  message, 304036 / 304037 markdown / buttons not permitted, 304039 malformed buttons,
  304082 / 304083 media fetch / convert failed, 50006 empty message, 12002 bad request body.
  Codes not in bot-docs, taken from what clients report: 40034102 ``主动消息失败, 无权限``
  (a proactive message refused: tencent-connect/openclaw-qqbot#43, HKUDS/nanobot#1307) and
  40054005 for a repeated ``msg_seq`` (client code handling "deduplicated"). The error body
  is ``{message, code, err_code, trace_id}`` as in openclaw-qqbot#43.
* owner switches — nonebot-adapter-qq 1.7.3 ``GET /v2/groups/{group_openid}/bot_state``
  (``allow_proactive_msg``, ``recv_msg_setting`` "all" / "only_mention" /
  "mention_and_context"): :attr:`Group.allow_proactive` (the owner lets the bot speak
  unprompted) and :attr:`Group.recv_all` (the bot receives every message).

What the real platform does that this fake does not (or not surely the same way):

* Message audit (HTTP 201/202 with ``message_audit``), rate limits per second (429), the
  monthly proactive quotas of older bot-docs, the per-user "refuse proactive messages"
  switch, GROUP_MSG_REJECT / RECEIVE and C2C_MSG_REJECT / RECEIVE, message recall, chunked
  uploads (``upload_prepare``), guilds and channels, stream messages, ark / embed rendering.
* Expired replies answer 304027 here as documented; clients report that real groups answer
  40034005 / 40034031 / 40034128 instead. A refused proactive group post is 40034102 here
  (40034105 is also reported). Tests should not depend on the exact code, only on the refusal.
* Whether an @-message in a group whose owner let the bot read everything arrives as
  GROUP_AT_MESSAGE_CREATE, GROUP_MESSAGE_CREATE or both is reported differently; here it
  arrives as both, with the same message id (:attr:`QQOpenSim.at_also_as_full`), the harder
  case for a bot. Which intent bit carries GROUP_MESSAGE_CREATE is undocumented; here 1<<25.
* Whether ``msg_seq`` de-duplication also applies to ``event_id`` replies is undocumented;
  here it does (an unset ``msg_seq`` is 1, so two replies to one button press without
  ``msg_seq`` collide). Event-id replies get the window of their chat (5 within 5 minutes in
  a group, 5 within 60 minutes in C2C); the documents give no figure for them.
* ``member_openid`` and ``user_openid`` of one person always differ here, and a person's
  ``union_openid`` is ``""`` unless the test gives one; the documents promise no link.
* Which id ``specify_user_ids`` holds is not documented ("有权限的用户 id"); here it is the
  presser's openid in that chat (``member_openid`` in a group, ``user_openid`` in C2C). The
  real client greys out a button the person may not press; here :meth:`QQOpenSim.press`
  returns a refused :class:`Press` and nothing reaches the bot. Button ``group_id`` (one of a
  set) and ``click_limit`` are recorded, not enforced. Images are not fetched or decoded
  beyond their magic bytes; ``msg_type`` 7 without ``content`` is accepted (send.md says a
  space was once required). URLs are recognised by ``http(s)://`` and ``www.`` only.
* The replay of missed events after a RESUME has no time limit unless
  :attr:`QQOpenSim.resume_window` is set; the real one keeps them "a short time".

Typical use (the bot: any NoneBot process with nonebot-adapter-qq and ``env=sim.bot_env()``)::

    sim = QQOpenSim()
    await sim.start()
    sim.add_group("g", allow_proactive=False)
    sim.join("g", "甲")
    ... start the bot with sim.bot_env() ...
    await sim.wait_ready()
    since = sim.mark()
    await sim.group_message("g", "甲", "ping")
    reply = await sim.wait_for(lambda s: s.kind == "group", since=since)
    sim.clock.advance(301)          # the group window of that message has closed
    await sim.close()
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import json
import re
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

__all__ = [
    "App",
    "ApiCall",
    "Button",
    "Clock",
    "Group",
    "Interaction",
    "Person",
    "Press",
    "QQOpenSim",
    "Refusal",
    "Sent",
    "Upload",
    "Window",
]

# --------------------------------------------------------------------------------------
# Constants from the documents
# --------------------------------------------------------------------------------------

OP_DISPATCH, OP_HEARTBEAT, OP_IDENTIFY, OP_RESUME = 0, 1, 2, 6
OP_RECONNECT, OP_INVALID_SESSION, OP_HELLO, OP_HEARTBEAT_ACK = 7, 9, 10, 11
OP_CALLBACK_ACK, OP_WEBHOOK_VERIFY = 12, 13

INTENT_GROUP_AND_C2C = 1 << 25
"""C2C_MESSAGE_CREATE, GROUP_AT_MESSAGE_CREATE, FRIEND_ADD, GROUP_ADD_ROBOT … (event-emit.md)."""
INTENT_INTERACTION = 1 << 26
KNOWN_INTENTS = (1 << 0 | 1 << 1 | 1 << 9 | 1 << 10 | 1 << 12 | 1 << 18 | 1 << 19 | 1 << 24
                 | 1 << 25 | 1 << 26 | 1 << 27 | 1 << 28 | 1 << 29 | 1 << 30)
"""Every intent bit event-emit.md (and the adapter's ``Intents``, bit 24) names."""
EVENT_INTENTS = {
    "C2C_MESSAGE_CREATE": INTENT_GROUP_AND_C2C,
    "GROUP_AT_MESSAGE_CREATE": INTENT_GROUP_AND_C2C,
    "GROUP_MESSAGE_CREATE": INTENT_GROUP_AND_C2C,
    "GROUP_ADD_ROBOT": INTENT_GROUP_AND_C2C,
    "GROUP_DEL_ROBOT": INTENT_GROUP_AND_C2C,
    "FRIEND_ADD": INTENT_GROUP_AND_C2C,
    "FRIEND_DEL": INTENT_GROUP_AND_C2C,
    "INTERACTION_CREATE": INTENT_INTERACTION,
}

C2C_WINDOW = 3600.0
"""Seconds a C2C message can be replied to (send.md: 60 分钟)."""
GROUP_WINDOW = 300.0
"""Seconds a group message can be replied to (send.md: 5 分钟)."""
REPLIES_PER_SOURCE = 5
"""Replies one message (or event) allows, in either chat (send.md: 最多回复 5 次)."""
TOKEN_TTL = 7200
TOKEN_RENEW_BEFORE = 60

SEND_EVENT_SOURCES = {
    "c2c": {"INTERACTION_CREATE", "C2C_MSG_RECEIVE", "FRIEND_ADD"},
    "group": {"INTERACTION_CREATE", "GROUP_ADD_ROBOT", "GROUP_MSG_RECEIVE"},
}
"""Events whose id may be given as ``event_id`` for a passive message (send.md)."""

Kind = Literal["group", "c2c"]
Role = Literal["member", "admin", "owner"]


@dataclass(frozen=True)
class Refusal:
    """How the platform answers a call it refuses: HTTP ``status`` and body ``{code, message}``."""

    code: int
    message: str
    status: int = 400
    documented: bool = True
    """Whether bot-docs gives this code (False: the code clients report seeing)."""


REPLY_LIMIT = Refusal(22009, "msg limit exceed")
REPLY_EXPIRED = Refusal(304027, "MSG_EXPIRE 回复的消息过期")
REPLY_UNKNOWN = Refusal(304026, "MSG_ID 回复的消息 id 错误")
SEQ_REPEATED = Refusal(40054005, "消息被去重，请检查请求msgseq", documented=False)
PROACTIVE_DENIED = Refusal(40034102, "主动消息失败, 无权限", documented=False)
NOT_IN_GROUP = Refusal(40054003, "机器人不在该群", documented=False)
UNKNOWN_USER = Refusal(40054004, "用户未使用机器人", documented=False)
URL_NOT_ALLOWED = Refusal(304003, "URL_NOT_ALLOWED url 未报备")
MARKDOWN_DENIED = Refusal(304036, "没有 markdown 模板的权限")
KEYBOARD_DENIED = Refusal(304037, "没有发消息按钮组件的权限")
KEYBOARD_INVALID = Refusal(304039, "消息按钮组件解析错误")
MEDIA_FETCH_FAILED = Refusal(304082, "upload media info fail")
MEDIA_CONVERT_FAILED = Refusal(304083, "convert media info fail")
EMPTY_MESSAGE = Refusal(50006, "CannotSendEmptyMessage 消息为空")
BAD_REQUEST = Refusal(12002, "RequestInvalid 请求体错误")
TOKEN_MISSING = Refusal(11241, "ErrorWrongToken 参数中缺少 token", 401)
TOKEN_INVALID = Refusal(11243, "ErrorCheckTokenNotPass 校验 token 未通过", 401)
WRONG_SECRET = Refusal(100016, "invalid appid or secret", 200, documented=False)
NOT_FOUND = Refusal(404, "not found", 404, documented=False)

_URL = re.compile(r"(?:https?://|www\.)([A-Za-z0-9.-]+)", re.I)
_MENTION = re.compile(r'<qqbot-at-user id="([^"]+)"\s*/>|<@!?([^>\s]+)>|<qqbot-at-everyone\s*/>')
_PNG, _JPEG = b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff"


def _rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).astimezone().isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------
# The world and what it records
# --------------------------------------------------------------------------------------


class Clock:
    """The platform's time: the real time plus an offset that tests move with :meth:`advance`,
    so windows of minutes close without sleeping. Any object with ``time() -> float``
    (seconds since the epoch) can stand in for it."""

    def __init__(self, offset: float = 0.0) -> None:
        """Start ``offset`` seconds ahead of the real time."""
        self.offset = offset

    def time(self) -> float:
        """Seconds since the epoch, as the platform sees them."""
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        """Move the platform's time ``seconds`` ahead (reply windows, token lifetimes)."""
        self.offset += seconds


@dataclass
class App:
    """One bot application (AppID) on the open platform."""

    appid: str
    secret: str
    name: str = "牌桌"
    webhook: bool = False
    """Events go to :attr:`webhook_url` by signed HTTP POST instead of the gateway."""
    webhook_url: str | None = None
    intents_allowed: int = KNOWN_INTENTS
    """Intent bits this app was granted; asking for others closes the gateway with 4014."""
    markdown: bool = True
    keyboard: bool = True
    url_allowlist: set[str] = field(default_factory=set)
    """Domains the app registered for URLs in message text (消息URL配置)."""
    bot_id: str = ""
    tokens: list[tuple[str, float]] = field(default_factory=list)
    """Every access token issued, with its expiry on the platform's clock."""


@dataclass
class Person:
    """A QQ user. ``key`` is the test's name for them and never reaches the bot."""

    key: str
    name: str
    union_openid: str | None = None
    """Sent as the author's ``union_openid`` when set; ``""`` otherwise."""


@dataclass
class Group:
    """A QQ group the bot is in. ``key`` never reaches the bot."""

    key: str
    name: str
    members: dict[str, Role] = field(default_factory=dict)
    recv_all: bool = True
    """The owner let the bot receive every message (GROUP_MESSAGE_CREATE); when off only
    @-messages reach it (``recv_msg_setting`` "only_mention")."""
    allow_proactive: bool = False
    """The owner let the bot post without a message to reply to."""
    proactive_quota: int | None = None
    """Proactive posts left (None: no limit); at 0 a post is refused like a switched-off one."""
    joined_at: float = 0.0


@dataclass
class Window:
    """What one message (or event) still allows the bot: replies left until ``expires_at``."""

    source: str
    origin: str
    """``"message"`` or the event type that opened the window."""
    kind: Kind
    chat: str
    """The group key (group) or the person key (C2C)."""
    appid: str
    opened_at: float
    expires_at: float
    limit: int = REPLIES_PER_SOURCE
    used: int = 0
    seqs: set[int] = field(default_factory=set)

    @property
    def remaining(self) -> int:
        """Replies left (regardless of expiry)."""
        return max(0, self.limit - self.used)

    def open_at(self, now: float) -> bool:
        """Whether a reply at ``now`` would be inside the window with a reply left."""
        return now <= self.expires_at and self.used < self.limit


@dataclass
class Button:
    """One button of a keyboard the bot sent."""

    id: str | None
    label: str
    type: int
    """0 link, 1 callback, 2 command."""
    data: str
    permission: int
    """0 listed users, 1 managers, 2 everyone, 3 roles."""
    specify_user_ids: list[str]
    enter: bool
    raw: dict[str, Any]


@dataclass
class Upload:
    """A rich-media upload (``/files``)."""

    file_info: str
    file_uuid: str
    kind: Kind
    target: str
    file_type: int
    url: str | None
    data: bytes | None
    time: float
    expires_at: float


@dataclass
class Sent:
    """One message the bot tried to send (accepted or refused)."""

    kind: Kind
    target: str
    """The group key or the person key."""
    appid: str
    body: dict[str, Any]
    text: str
    """``content`` (and custom markdown) with mentions as ``@name``."""
    at: list[str]
    """Person keys the message @-mentions (openids of this chat only)."""
    time: float
    ok: bool
    refusal: Refusal | None = None
    id: str | None = None
    reply_to: str | None = None
    """The ``msg_id`` or ``event_id`` the message replies to (None: proactive)."""
    msg_seq: int | None = None
    media: Upload | None = None
    foreign_mentions: list[str] = field(default_factory=list)
    """Mentioned ids that are no openid of this chat (e.g. a member_openid in C2C)."""

    @property
    def msg_type(self) -> int:
        """The request's ``msg_type``."""
        return int(self.body.get("msg_type", 0))

    @property
    def markdown(self) -> dict[str, Any] | None:
        """The ``markdown`` object as sent."""
        return self.body.get("markdown")

    @property
    def keyboard(self) -> dict[str, Any] | None:
        """The ``keyboard`` object as sent."""
        return self.body.get("keyboard")

    @property
    def proactive(self) -> bool:
        """Sent without ``msg_id`` / ``event_id``."""
        return self.reply_to is None

    def buttons(self) -> list[Button]:
        """The buttons of :attr:`keyboard`, row by row (a template keyboard has none here)."""
        rows = ((self.keyboard or {}).get("content") or {}).get("rows") or []
        out = []
        for row in rows:
            for b in row.get("buttons") or []:
                action, render = b.get("action") or {}, b.get("render_data") or {}
                perm = action.get("permission") or {}
                out.append(Button(b.get("id"), str(render.get("label", "")), int(action.get("type", 1)),
                                  str(action.get("data", "")), int(perm.get("type", 2)),
                                  list(perm.get("specify_user_ids") or []),
                                  bool(action.get("enter")), b))
        return out

    def __str__(self) -> str:
        """``[group g1] text`` / ``[c2c 甲 REFUSED 22009] text``."""
        flag = "" if self.ok else f" REFUSED {self.refusal.code if self.refusal else ''}"
        return f"[{self.kind} {self.target}{flag}] {self.text}"


@dataclass
class Interaction:
    """A callback-button press delivered to the bot (INTERACTION_CREATE)."""

    id: str
    event_id: str
    person: str
    kind: Kind
    chat: str
    button: Button
    message: Sent
    time: float
    acks: list[int] = field(default_factory=list)
    """``code`` of each ``PUT /interactions/{id}`` (0 success … 5 managers only)."""


@dataclass
class Press:
    """What a button press did: refused by the client, an interaction, or a message sent."""

    ok: bool
    reason: str = ""
    interaction: Interaction | None = None
    message_id: str | None = None
    text: str | None = None


@dataclass
class ApiCall:
    """One HTTP request to the platform and how it was answered."""

    method: str
    path: str
    body: Any
    time: float
    status: int = 200
    code: int | None = None


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


class _Session:
    """One gateway session (IDENTIFY … RESUME …) of an app."""

    def __init__(self, app: App, session_id: str, intents: int, shard: tuple[int, int]) -> None:
        self.app = app
        self.id = session_id
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.backlog: list[dict[str, Any]] = []
        self.ws: ServerConnection | None = None
        self.valid = True
        self.lock = asyncio.Lock()
        self.disconnected_at: float | None = None
        self.heartbeats: list[Any] = []


# --------------------------------------------------------------------------------------
# The platform
# --------------------------------------------------------------------------------------


class QQOpenSim:
    """The open platform on loopback: token endpoint, REST API and gateway, plus the people.

    World: :meth:`add_app` (one app ``102000001`` exists from the start as :attr:`app`),
    :meth:`add_person`, :meth:`add_group`, :meth:`join`. Openids are derived per app from the
    keys (:meth:`user_openid`, :meth:`member_openid`, :meth:`group_openid`) and mapped back by
    :meth:`person_of`; nothing links a person's openids but this fake.

    Settings (change any time): :attr:`clock` (injectable), :attr:`heartbeat_interval` (ms,
    sent in HELLO), :attr:`at_also_as_full`, :attr:`resume_window`, :attr:`token_ttl`,
    :attr:`upload_ttl`; per group :attr:`Group.recv_all`, :attr:`Group.allow_proactive`,
    :attr:`Group.proactive_quota`; per app markdown / keyboard permission and the URL allowlist.

    Faults: :attr:`refuse_group` / :attr:`refuse_c2c` (``{key: Refusal}``: sends to that chat
    are refused), :attr:`hang_group` / :attr:`hang_c2c` (sends never answered),
    :meth:`drop_connection`, :meth:`request_reconnect`, :meth:`invalidate_session`,
    :meth:`send_raw`, :meth:`expire_tokens`.

    Observations: :attr:`sent` (every message send, accepted or refused), :attr:`calls`
    (every request), :attr:`uploads`, :attr:`interactions`, :attr:`presses`,
    :attr:`dispatched` (every event payload delivered or queued), :attr:`lost` (events the bot
    could not get: no valid session), :attr:`gateway` (``(op, detail)`` log: identify, resume,
    heartbeat, close …), windows (:meth:`windows`, :meth:`window`).
    """

    def __init__(self, *, seed: str = "qq", clock: Any = None, host: str = "127.0.0.1") -> None:
        """An idle platform; :meth:`start` binds its two ports."""
        self.seed = seed
        self.clock = clock if clock is not None else Clock()
        self.host = host
        self.heartbeat_interval = 41250
        self.at_also_as_full = True
        self.resume_window: float | None = None
        self.token_ttl = TOKEN_TTL
        self.upload_ttl = 3600
        self.apps: dict[str, App] = {}
        self.people: dict[str, Person] = {}
        self.groups: dict[str, Group] = {}
        self.refuse_group: dict[str, Refusal] = {}
        self.refuse_c2c: dict[str, Refusal] = {}
        self.hang_group: set[str] = set()
        self.hang_c2c: set[str] = set()
        self.sent: list[Sent] = []
        self.calls: list[ApiCall] = []
        self.uploads: dict[str, Upload] = {}
        self.interactions: dict[str, Interaction] = {}
        self.presses: list[tuple[str, Button, Press]] = []
        self.dispatched: list[tuple[str, dict[str, Any]]] = []
        self.lost: list[tuple[str, dict[str, Any]]] = []
        self.gateway: list[tuple[str, Any]] = []
        self.messages: dict[str, dict[str, Any]] = {}
        """Every message a person sent, by id: ``{kind, chat, person, text, delivered}``."""
        self.webhook_answers: list[tuple[int, str]] = []
        self.hung: list[tuple[Kind, str, float]] = []
        """Sends never answered (:attr:`hang_group` / :attr:`hang_c2c`): kind, target, time."""
        self.listeners: list[Callable[[Sent], None]] = []
        self._windows: dict[tuple[str, str], Window] = {}
        self._sessions: dict[str, _Session] = {}
        self._openids: dict[str, tuple[str, str, str | None]] = {}
        self._counter = 0
        self._cond = asyncio.Condition()
        self._http: asyncio.Server | None = None
        self._conns: set[asyncio.StreamWriter] = set()
        self._ws: Server | None = None
        self._closing = asyncio.Event()
        self.http_port = 0
        self.ws_port = 0
        self.app = self.add_app("102000001", "qqsim-secret-1")

    # ---- world ---------------------------------------------------------------------

    def add_app(self, appid: str, secret: str, *, webhook: bool = False, name: str = "牌桌") -> App:
        """Register a bot application."""
        app = App(appid, secret, name, webhook=webhook)
        app.bot_id = self._hex("bot", appid)
        self.apps[appid] = app
        return app

    def add_person(self, key: str, name: str | None = None, *,
                   union_openid: str | None = None) -> Person:
        """Add (or update) a person; ``name`` is their QQ nickname (``key`` by default)."""
        person = self.people.get(key)
        if person is None:
            person = self.people[key] = Person(key, name or key, union_openid)
        else:
            person.name = name or person.name
            if union_openid is not None:
                person.union_openid = union_openid
        return person

    def add_group(self, key: str, name: str | None = None, *, recv_all: bool = True,
                  allow_proactive: bool = False) -> Group:
        """Add a group the bot is in (the owner's two switches as given)."""
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = Group(key, name or key, recv_all=recv_all,
                                             allow_proactive=allow_proactive,
                                             joined_at=self.clock.time())
        return group

    def join(self, group: str, person: str, role: Role = "member") -> None:
        """Make ``person`` (created if new) a member of ``group`` (created if new)."""
        self.add_person(person)
        self.add_group(group).members[person] = role

    def _hex(self, *parts: str) -> str:
        return hashlib.sha256(":".join((self.seed, *parts)).encode()).hexdigest()[:32].upper()

    def _app(self, app: App | str | None) -> App:
        if app is None:
            return self.app
        return app if isinstance(app, App) else self.apps[app]

    def group_openid(self, group: str, app: App | str | None = None) -> str:
        """The group's openid as ``app`` sees it."""
        a = self._app(app)
        oid = self._hex("group", a.appid, group)
        self._openids[oid] = ("group", group, None)
        return oid

    def user_openid(self, person: str, app: App | str | None = None) -> str:
        """``person``'s C2C openid as ``app`` sees it."""
        a = self._app(app)
        oid = self._hex("user", a.appid, person)
        self._openids[oid] = ("user", person, None)
        return oid

    def member_openid(self, group: str, person: str, app: App | str | None = None) -> str:
        """``person``'s openid in ``group`` as ``app`` sees it (differs per group)."""
        a = self._app(app)
        oid = self._hex("member", a.appid, group, person)
        self._openids[oid] = ("member", person, group)
        return oid

    def bot_openid(self, group: str, app: App | str | None = None) -> str:
        """The bot's own member openid in ``group`` (mentions of the bot, ``bot_state``)."""
        a = self._app(app)
        oid = self._hex("bot-member", a.appid, group)
        self._openids[oid] = ("bot", a.appid, group)
        return oid

    def person_of(self, openid: str) -> str | None:
        """The person key behind a user or member openid this fake gave out (else None)."""
        found = self._openids.get(openid)
        return found[1] if found and found[0] in ("user", "member") else None

    def group_of(self, group_openid: str) -> str | None:
        """The group key behind a group openid (else None)."""
        found = self._openids.get(group_openid)
        return found[1] if found and found[0] == "group" else None

    def openids_of(self, person: str, app: App | str | None = None) -> dict[str, str]:
        """Every openid ``person`` has towards ``app``: ``{"c2c": …, <group key>: …}``."""
        out = {"c2c": self.user_openid(person, app)}
        for key, group in self.groups.items():
            if person in group.members:
                out[key] = self.member_openid(key, person, app)
        return out

    def _new_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._hex('id', str(self._counter))}"

    # ---- server --------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        """``QQ_API_BASE`` for the adapter."""
        return f"http://{self.host}:{self.http_port}/"

    @property
    def auth_url(self) -> str:
        """``QQ_AUTH_BASE`` for the adapter (the token endpoint itself)."""
        return f"http://{self.host}:{self.http_port}/app/getAppAccessToken"

    @property
    def gateway_url(self) -> str:
        """The WebSocket URL ``GET /gateway/bot`` hands out."""
        return f"ws://{self.host}:{self.ws_port}/websocket"

    async def start(self) -> None:
        """Bind the REST port and the gateway port (both free ones on :attr:`host`)."""
        self._closing.clear()
        self._http = await asyncio.start_server(self._serve_http, self.host, 0)
        self.http_port = self._http.sockets[0].getsockname()[1]
        self._ws = await serve(self._serve_gateway, self.host, 0, ping_interval=None,
                               max_size=None, compression=None)
        self.ws_port = next(iter(self._ws.sockets)).getsockname()[1]

    async def close(self) -> None:
        """Close every connection and both ports."""
        self._closing.set()
        for session in self._sessions.values():
            if session.ws is not None:
                session.ws.transport.abort()
        if self._ws is not None:
            self._ws.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ws.wait_closed(), 5)
        if self._http is not None:
            self._http.close()
            for writer in list(self._conns):
                writer.transport.abort()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._http.wait_closed(), 5)

    async def __aenter__(self) -> QQOpenSim:
        """Start the platform."""
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close the platform."""
        await self.close()

    def bot_env(self, apps: Iterable[App | str] | None = None, *,
                intent: Mapping[str, bool] | None = None) -> dict[str, str]:
        """Environment for a NoneBot process with nonebot-adapter-qq pointed at this platform:
        ``DRIVER`` (an HTTP and WebSocket client beside FastAPI), ``QQ_BOTS`` (each app with
        its secret, ``use_websocket`` false for a webhook app) and the two base URLs. The
        intents ask for group / C2C messages and interactions only, unless ``intent`` says
        otherwise (keys of the adapter's ``Intents``)."""
        chosen = [self._app(a) for a in (apps if apps is not None else self.apps.values())]
        wanted = {"guilds": False, "guild_members": False, "guild_message_reactions": False,
                  "message_audit": False, "at_messages": False, "c2c_group_at_messages": True,
                  "interaction": True, **(intent or {})}
        bots = [{"id": a.appid, "secret": a.secret, "intent": wanted,
                 "use_websocket": not a.webhook} for a in chosen]
        return {"DRIVER": "~fastapi+~httpx+~websockets", "QQ_BOTS": json.dumps(bots),
                "QQ_API_BASE": self.api_base, "QQ_AUTH_BASE": self.auth_url}

    # ---- waiting -------------------------------------------------------------------

    async def _notify(self) -> None:
        async with self._cond:
            self._cond.notify_all()

    async def wait_until(self, pred: Callable[[], bool], timeout: float = 10.0,
                         what: str = "condition") -> None:
        """Wait until ``pred()`` holds (checked whenever the platform records something)."""
        async def _wait() -> None:
            async with self._cond:
                await self._cond.wait_for(pred)
        try:
            await asyncio.wait_for(_wait(), timeout)
        except TimeoutError:
            raise TimeoutError(f"{what} not reached within {timeout}s; gateway log tail: "
                               f"{self.gateway[-6:]}") from None

    def connected(self, app: App | str | None = None) -> bool:
        """Whether ``app`` has a gateway session with an open connection."""
        session = self._sessions.get(self._app(app).appid)
        return session is not None and session.valid and session.ws is not None

    async def wait_ready(self, app: App | str | None = None, timeout: float = 20.0) -> None:
        """Wait until ``app`` is connected to the gateway (identified or resumed)."""
        await self.wait_until(lambda: self.connected(app), timeout, "gateway connection")

    def gateway_count(self, op: str) -> int:
        """How many gateway log entries are ``op`` ("identify", "resume", "heartbeat" …)."""
        return sum(1 for o, _ in self.gateway if o == op)

    def mark(self) -> int:
        """``len(sent)``: pass as ``since`` to see only later sends."""
        return len(self.sent)

    def sent_since(self, since: int = 0) -> list[Sent]:
        """Sends recorded at index ≥ ``since``."""
        return self.sent[since:]

    def seen(self, *, group: str | None = None, person: str | None = None) -> list[Sent]:
        """What a chat has seen: accepted messages to ``group`` or to ``person``'s C2C chat."""
        if (group is None) == (person is None):
            raise ValueError("give exactly one of group / person")
        kind, target = ("group", group) if group is not None else ("c2c", person)
        return [s for s in self.sent if s.ok and s.kind == kind and s.target == target]

    async def wait_for(self, pred: Callable[[Sent], bool], timeout: float = 10.0,
                       since: int | None = None) -> Sent:
        """The first send at index ≥ ``since`` matching ``pred`` (take ``since = mark()``
        before the triggering message)."""
        start = since or 0
        found: list[Sent] = []

        def _match() -> bool:
            found[:] = [s for s in self.sent[start:] if pred(s)][:1]
            return bool(found)
        try:
            await self.wait_until(_match, timeout, "matching send")
        except TimeoutError:
            tail = "\n".join(f"  #{i}: {s}" for i, s in enumerate(self.sent) if i >= start)
            raise TimeoutError(f"no matching send within {timeout}s since #{start}:\n{tail}"
                               ) from None
        return found[0]

    async def wait_for_text(self, substring: str, *, group: str | None = None,
                            person: str | None = None, timeout: float = 10.0,
                            since: int | None = None) -> Sent:
        """:meth:`wait_for` an accepted send containing ``substring`` (to that chat)."""
        def pred(s: Sent) -> bool:
            return (s.ok and substring in s.text
                    and (group is None or (s.kind == "group" and s.target == group))
                    and (person is None or (s.kind == "c2c" and s.target == person)))
        return await self.wait_for(pred, timeout, since)

    async def wait_idle(self, quiet: float = 0.5, timeout: float = 10.0) -> None:
        """Wait until nothing was sent for ``quiet`` seconds (≤ ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            seen = len(self.sent)
            await asyncio.sleep(quiet)
            if len(self.sent) == seen:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"bot still sending after {timeout}s")

    # ---- windows -------------------------------------------------------------------

    def _open_window(self, app: App, source: str, origin: str, kind: Kind, chat: str,
                     aliases: Iterable[str] = ()) -> Window:
        now = self.clock.time()
        span = C2C_WINDOW if kind == "c2c" else GROUP_WINDOW
        window = Window(source, origin, kind, chat, app.appid, now, now + span)
        for key in (source, *aliases):
            self._windows[(app.appid, key)] = window
        return window

    def window(self, source: str, app: App | str | None = None) -> Window | None:
        """The window a message id (or event id) opened, if any."""
        return self._windows.get((self._app(app).appid, source))

    def windows(self, *, group: str | None = None, person: str | None = None,
                open_only: bool = True, app: App | str | None = None) -> list[Window]:
        """Windows of a chat (``group``, or ``person``'s C2C chat), oldest first; by default
        only those that still allow a reply now."""
        kind, chat = ("group", group) if group is not None else ("c2c", person)
        now = self.clock.time()
        a = self._app(app)
        out = {id(w): w for (appid, _), w in self._windows.items()
               if appid == a.appid and w.kind == kind and w.chat == chat
               and (not open_only or w.open_at(now))}
        return sorted(out.values(), key=lambda w: w.opened_at)

    def c2c_state(self, person: str, app: App | str | None = None) -> dict[str, Any]:
        """``person``'s C2C reply state: replies left over all open windows, the newest
        window's replies left and seconds until it closes (None when nothing is open)."""
        open_windows = self.windows(person=person, app=app)
        now = self.clock.time()
        newest = open_windows[-1] if open_windows else None
        return {"open": len(open_windows),
                "remaining": sum(w.remaining for w in open_windows),
                "newest_remaining": newest.remaining if newest else 0,
                "expires_in": (newest.expires_at - now) if newest else None}

    # ---- people act ----------------------------------------------------------------

    def _group(self, key: str) -> Group:
        if key not in self.groups:
            raise KeyError(f"no group {key!r}; add_group() first")
        return self.groups[key]

    def _author_union(self, person: Person) -> str:
        return person.union_openid or ""

    def _mentions_text(self, group: str, at: Iterable[str], app: App) -> tuple[str, list[dict]]:
        tags, mentions = [], []
        for key in at:
            oid = self.member_openid(group, key, app)
            tags.append(f'<qqbot-at-user id="{oid}" />')
            mentions.append({"scope": "single", "bot": False, "id": oid, "is_you": False,
                             "member_openid": oid, "username": self.people[key].name})
        return "".join(t + " " for t in tags), mentions

    async def group_message(self, group: str, person: str, text: str, *, at_bot: bool = True,
                            at: Iterable[str] = (), attachments: Iterable[Mapping] = (),
                            app: App | str | None = None) -> str:
        """``person`` says ``text`` in ``group`` (@-ing the bot unless ``at_bot`` is false,
        and @-ing the persons in ``at``); return the message id.

        The bot gets GROUP_AT_MESSAGE_CREATE for an @-message and, when the owner let it read
        everything (:attr:`Group.recv_all`), GROUP_MESSAGE_CREATE for every message (for an
        @-message too when :attr:`at_also_as_full`). A message the bot gets opens a group
        window (5 replies, 5 minutes). A speaker not yet in the group joins it."""
        a = self._app(app)
        g = self._group(group)
        if person not in g.members:
            self.join(group, person)
        p = self.people[person]
        now = self.clock.time()
        mid = self._new_id("ROBOT1.0_")
        member = self.member_openid(group, person, a)
        gid = self.group_openid(group, a)
        tags, mentions = self._mentions_text(group, at, a)
        base = {"id": mid, "timestamp": _rfc3339(now), "group_id": gid, "group_openid": gid,
                "author": {"id": member, "member_openid": member,
                           "union_openid": self._author_union(p), "username": p.name,
                           "bot": False, "member_role": g.members[person]},
                "message_type": 0,
                "message_scene": {"source": "default",
                                  "ext": [f"msg_idx=REFIDX_{self._hex('idx', mid)}"]}}
        if attachments:
            base["attachments"] = [dict(x) for x in attachments]
        types: list[tuple[str, dict[str, Any]]] = []
        if at_bot:
            types.append(("GROUP_AT_MESSAGE_CREATE",
                          {**base, "content": " " + tags + text, "mentions": mentions or None}))
        if g.recv_all and (not at_bot or self.at_also_as_full):
            full_mentions = list(mentions)
            if at_bot:
                bot_oid = self.bot_openid(group, a)
                full_mentions.insert(0, {"scope": "single", "bot": True, "id": bot_oid,
                                         "is_you": True, "member_openid": bot_oid,
                                         "username": a.name})
            types.append(("GROUP_MESSAGE_CREATE",
                          {**base, "content": (" " if at_bot else "") + tags + text,
                           "mentions": full_mentions or None}))
        for _, d in types:
            if d.get("mentions") is None:
                d.pop("mentions")
        self.messages[mid] = {"kind": "group", "chat": group, "person": person, "text": text,
                              "delivered": [t for t, _ in types]}
        if types:
            self._open_window(a, mid, "message", "group", group)
        for event_type, d in types:
            await self._dispatch(a, event_type, d)
        return mid

    async def c2c_message(self, person: str, text: str, *, attachments: Iterable[Mapping] = (),
                          app: App | str | None = None) -> str:
        """``person`` sends ``text`` to the bot in C2C; return the message id. Opens a C2C
        window (5 replies, 60 minutes)."""
        a = self._app(app)
        p = self.add_person(person)
        now = self.clock.time()
        mid = self._new_id("ROBOT1.0_")
        oid = self.user_openid(person, a)
        d: dict[str, Any] = {"id": mid, "content": text, "timestamp": _rfc3339(now),
                             "author": {"id": oid, "user_openid": oid,
                                        "union_openid": self._author_union(p)},
                             "message_type": 0,
                             "message_scene": {"source": "default",
                                               "ext": [f"msg_idx=REFIDX_{self._hex('idx', mid)}"]}}
        if attachments:
            d["attachments"] = [dict(x) for x in attachments]
        self.messages[mid] = {"kind": "c2c", "chat": person, "person": person, "text": text,
                              "delivered": ["C2C_MESSAGE_CREATE"]}
        self._open_window(a, mid, "message", "c2c", person)
        await self._dispatch(a, "C2C_MESSAGE_CREATE", d)
        return mid

    private_message = c2c_message

    async def add_friend(self, person: str, app: App | str | None = None) -> str:
        """``person`` adds the bot to their message list: FRIEND_ADD, whose event id opens a C2C
        window. Returns the event id."""
        a = self._app(app)
        self.add_person(person)
        event_id = self._new_id("FRIEND_ADD:")
        self._open_window(a, event_id, "FRIEND_ADD", "c2c", person)
        await self._dispatch(a, "FRIEND_ADD", {"openid": self.user_openid(person, a),
                                               "timestamp": int(self.clock.time())},
                             event_id=event_id)
        return event_id

    async def add_bot_to_group(self, group: str, by: str, *, recv_all: bool = True,
                               allow_proactive: bool = False,
                               app: App | str | None = None) -> str:
        """``by`` adds the bot to ``group`` (created): GROUP_ADD_ROBOT, whose event id opens a
        group window. Returns the event id."""
        a = self._app(app)
        g = self.add_group(group, recv_all=recv_all, allow_proactive=allow_proactive)
        g.members.setdefault(by, "owner")
        self.add_person(by)
        event_id = self._new_id("GROUP_ADD_ROBOT:")
        self._open_window(a, event_id, "GROUP_ADD_ROBOT", "group", group)
        await self._dispatch(a, "GROUP_ADD_ROBOT", {
            "group_openid": self.group_openid(group, a),
            "op_member_openid": self.member_openid(group, by, a),
            "timestamp": int(self.clock.time())}, event_id=event_id)
        return event_id

    async def press(self, person: str, message: Sent, button: str,
                    app: App | str | None = None) -> Press:
        """``person`` taps the button whose id or label is ``button`` on ``message``.

        The client refuses a press the button's permission does not allow (nothing reaches
        the bot); a callback button (type 1) sends INTERACTION_CREATE (which opens a window for
        its event id); a command button (type 2) inserts ``@bot data`` and, with ``enter``,
        sends it as that person's message; a link (type 0) reaches nothing."""
        a = self._app(app)
        found = [b for b in message.buttons() if button in (b.id, b.label)]
        if not found:
            raise KeyError(f"no button {button!r} on {message}")
        b = found[0]
        result = self._may_press(person, message, b, a)
        if result is None:
            result = await self._do_press(person, message, b, a)
        self.presses.append((person, b, result))
        await self._notify()
        return result

    def _may_press(self, person: str, message: Sent, b: Button, a: App) -> Press | None:
        if not message.ok:
            return Press(False, "message was not sent")
        if message.kind == "group":
            g = self._group(message.target)
            if person not in g.members:
                return Press(False, "not in the group")
            own = self.member_openid(message.target, person, a)
            manager = g.members[person] in ("admin", "owner")
        else:
            if person != message.target:
                return Press(False, "not this chat")
            own, manager = self.user_openid(person, a), False
        allowed = {0: own in b.specify_user_ids, 1: manager, 2: True, 3: False}.get(b.permission,
                                                                                   False)
        return None if allowed else Press(False, "no permission")

    async def _do_press(self, person: str, message: Sent, b: Button, a: App) -> Press:
        if b.type == 0:
            return Press(True, "link")
        if b.type == 2:
            if not b.enter:
                return Press(True, "inserted", text=b.data)
            if message.kind == "group":
                mid = await self.group_message(message.target, person, b.data, app=a)
            else:
                mid = await self.c2c_message(person, b.data, app=a)
            return Press(True, "sent", message_id=mid, text=b.data)
        now = self.clock.time()
        iid = str(uuid.UUID(self._hex("interaction", str(len(self.interactions)))))
        event_id = f"INTERACTION_CREATE:{self._hex('ievent', iid).lower()}"
        d: dict[str, Any] = {"id": iid, "type": 11, "version": 1, "timestamp": _rfc3339(now),
                             "application_id": a.appid,
                             "data": {"type": 11, "resolved": {"button_data": b.data,
                                                               "button_id": b.id}}}
        if message.kind == "group":
            d.update(scene="group", chat_type=1, group_openid=self.group_openid(message.target, a),
                     group_member_openid=self.member_openid(message.target, person, a))
        else:
            d.update(scene="c2c", chat_type=2, user_openid=self.user_openid(person, a))
        interaction = Interaction(iid, event_id, person, message.kind, message.target, b,
                                  message, now)
        self.interactions[iid] = interaction
        self._open_window(a, event_id, "INTERACTION_CREATE", message.kind, message.target,
                          aliases=[iid])
        await self._dispatch(a, "INTERACTION_CREATE", d, event_id=event_id)
        return Press(True, "interaction", interaction=interaction)

    # ---- event delivery ------------------------------------------------------------

    async def _dispatch(self, app: App, event_type: str, d: Any, *,
                        event_id: str | None = None) -> None:
        event_id = event_id or self._new_id(f"{event_type}:").lower()
        if app.webhook:
            await self._post_webhook(app, event_type, d, event_id)
            return
        session = self._sessions.get(app.appid)
        if session is None:
            raise ConnectionError("the bot has not identified on the gateway yet")
        payload = {"op": OP_DISPATCH, "id": event_id, "t": event_type, "d": d}
        if not session.valid or not session.intents & EVENT_INTENTS.get(event_type, 0):
            self.lost.append((app.appid, payload))
            await self._notify()
            return
        async with session.lock:
            session.seq += 1
            payload["s"] = session.seq
            session.backlog = [*session.backlog[-999:], payload]
            self.dispatched.append((app.appid, payload))
            ws = session.ws
            if ws is not None:
                try:
                    await ws.send(json.dumps(payload, ensure_ascii=False))
                except ConnectionClosed:
                    session.ws = None
        await self._notify()

    async def send_raw(self, frame: str | bytes, app: App | str | None = None) -> None:
        """Send one raw frame (e.g. a malformed one) on ``app``'s gateway connection."""
        session = self._sessions.get(self._app(app).appid)
        if session is None or session.ws is None:
            raise ConnectionError("no gateway connection")
        self.gateway.append(("raw", frame if isinstance(frame, str) else frame.hex()))
        await session.ws.send(frame)

    async def dispatch_raw(self, event_type: str, d: Any, app: App | str | None = None) -> None:
        """Dispatch an event with arbitrary ``d`` (e.g. one missing required fields)."""
        await self._dispatch(self._app(app), event_type, d)

    async def drop_connection(self, app: App | str | None = None, *,
                              code: int | None = None, reason: str = "") -> None:
        """Cut ``app``'s gateway connection: abruptly (no close frame) by default, or with a
        close ``code`` (e.g. 4009 连接过期). The session survives: a RESUME gets what was
        dispatched meanwhile."""
        session = self._sessions.get(self._app(app).appid)
        if session is None or session.ws is None:
            raise ConnectionError("no gateway connection")
        ws = session.ws
        self.gateway.append(("drop", code))
        if code is None:
            ws.transport.abort()
        else:
            await ws.close(code, reason)
        await self.wait_until(lambda: session.ws is not ws, 5, "connection drop")

    async def request_reconnect(self, app: App | str | None = None) -> None:
        """Send op 7 RECONNECT: the bot should reconnect and RESUME."""
        session = self._sessions.get(self._app(app).appid)
        if session is None or session.ws is None:
            raise ConnectionError("no gateway connection")
        self.gateway.append(("reconnect", None))
        await session.ws.send(json.dumps({"op": OP_RECONNECT}))

    async def invalidate_session(self, app: App | str | None = None) -> None:
        """End ``app``'s session (op 9 INVALID_SESSION on its connection): events from now
        until the bot identifies anew are lost, and a RESUME of it is refused."""
        session = self._sessions.get(self._app(app).appid)
        if session is None:
            raise ConnectionError("no gateway session")
        session.valid = False
        self.gateway.append(("invalidate", session.id))
        if session.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await session.ws.send(json.dumps({"op": OP_INVALID_SESSION, "d": False}))

    def expire_tokens(self, app: App | str | None = None) -> None:
        """Make every token of ``app`` invalid now (the next API call answers 401)."""
        a = self._app(app)
        a.tokens = [(t, self.clock.time() - 1) for t, _ in a.tokens]

    # ---- gateway -------------------------------------------------------------------

    async def _serve_gateway(self, ws: ServerConnection) -> None:
        self.gateway.append(("connect", ws.request.path if ws.request else None))
        session: _Session | None = None
        try:
            await ws.send(json.dumps({"op": OP_HELLO,
                                      "d": {"heartbeat_interval": self.heartbeat_interval}}))
            try:
                raw = await asyncio.wait_for(ws.recv(), 30)
            except TimeoutError:
                await ws.close(4009, "identify timeout")
                return
            frame = _json(raw)
            if frame is None:
                self.gateway.append(("close", 4002))
                await ws.close(4002, "invalid payload")
                return
            if frame.get("op") == OP_IDENTIFY:
                session = await self._identify(ws, frame.get("d"))
            elif frame.get("op") == OP_RESUME:
                session = await self._resume(ws, frame.get("d"))
            else:
                self.gateway.append(("close", 4001))
                await ws.close(4001, "invalid opcode")
                return
            if session is None:
                return
            await self._notify()
            async for raw in ws:
                frame = _json(raw)
                if frame is None:
                    self.gateway.append(("close", 4002))
                    await ws.close(4002, "invalid payload")
                    return
                if frame.get("op") == OP_HEARTBEAT:
                    session.heartbeats.append(frame.get("d"))
                    self.gateway.append(("heartbeat", frame.get("d")))
                    await ws.send(json.dumps({"op": OP_HEARTBEAT_ACK}))
                    await self._notify()
                else:
                    self.gateway.append(("close", 4001))
                    await ws.close(4001, "invalid opcode")
                    return
        except ConnectionClosed:
            pass
        finally:
            self.gateway.append(("disconnect", ws.close_code))
            if session is not None and session.ws is ws:
                session.ws = None
                session.disconnected_at = self.clock.time()
            await self._notify()

    def _token_app(self, token: Any) -> App | None:
        if not isinstance(token, str) or not token.startswith("QQBot "):
            return None
        return self._check_token(token.removeprefix("QQBot "))

    async def _identify(self, ws: ServerConnection, d: Any) -> _Session | None:
        d = d if isinstance(d, dict) else {}
        app = self._token_app(d.get("token"))
        self.gateway.append(("identify", {k: d.get(k) for k in ("intents", "shard")}))
        if app is None:
            await self._invalid(ws)
            return None
        intents, shard = d.get("intents"), d.get("shard")
        if not isinstance(intents, int) or intents & ~KNOWN_INTENTS:
            await self._close(ws, 4013, "invalid intent")
            return None
        if intents & ~app.intents_allowed:
            await self._close(ws, 4014, "intent not permitted")
            return None
        if (not isinstance(shard, list | tuple) or len(shard) != 2
                or not all(isinstance(x, int) for x in shard) or not 0 <= shard[0] < shard[1]):
            await self._close(ws, 4010, "invalid shard")
            return None
        session = _Session(app, str(uuid.UUID(self._hex("session", str(len(self.gateway))))),
                           intents, (shard[0], shard[1]))
        old = self._sessions.get(app.appid)
        if old is not None:
            old.valid = False
        self._sessions[app.appid] = session
        async with session.lock:
            session.seq += 1
            ready = {"op": OP_DISPATCH, "s": session.seq, "t": "READY",
                     "d": {"version": 1, "session_id": session.id,
                           "user": {"id": app.bot_id, "username": app.name, "bot": True},
                           "shard": list(session.shard)}}
            session.backlog.append(ready)
            await ws.send(json.dumps(ready, ensure_ascii=False))
            session.ws = ws
        return session

    async def _resume(self, ws: ServerConnection, d: Any) -> _Session | None:
        d = d if isinstance(d, dict) else {}
        app = self._token_app(d.get("token"))
        self.gateway.append(("resume", {k: d.get(k) for k in ("session_id", "seq")}))
        session = self._sessions.get(app.appid) if app is not None else None
        seq = d.get("seq")
        stale = (session is not None and session.disconnected_at is not None
                 and self.resume_window is not None
                 and self.clock.time() - session.disconnected_at > self.resume_window)
        if (session is None or session.id != d.get("session_id") or not session.valid
                or stale):
            if session is not None and stale:
                session.valid = False
            await self._invalid(ws)
            return None
        if not isinstance(seq, int) or seq > session.seq:
            await self._close(ws, 4007, "invalid seq")
            return None
        async with session.lock:
            if session.ws is not None and session.ws is not ws:
                session.ws.transport.abort()
            for payload in session.backlog:
                if payload["s"] > seq:
                    self.gateway.append(("replay", payload["s"]))
                    await ws.send(json.dumps(payload, ensure_ascii=False))
            session.seq += 1
            await ws.send(json.dumps({"op": OP_DISPATCH, "s": session.seq, "t": "RESUMED",
                                      "d": ""}))
            session.ws = ws
            session.disconnected_at = None
        return session

    async def _invalid(self, ws: ServerConnection) -> None:
        self.gateway.append(("invalid_session", None))
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps({"op": OP_INVALID_SESSION, "d": False}))
            await ws.close()

    async def _close(self, ws: ServerConnection, code: int, reason: str) -> None:
        self.gateway.append(("close", code))
        with contextlib.suppress(ConnectionClosed):
            await ws.close(code, reason)

    # ---- webhook -------------------------------------------------------------------

    @staticmethod
    def _signing_key(app: App) -> Any:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        seed = app.secret
        while len(seed) < 32:
            seed += seed
        return Ed25519PrivateKey.from_private_bytes(seed[:32].encode())

    async def _post(self, app: App, body: bytes, extra: Mapping[str, str] = ()) -> tuple[int, str]:
        if not app.webhook_url:
            raise ConnectionError(f"app {app.appid} has no webhook_url")
        headers = {"Content-Type": "application/json", "User-Agent": "QQBot-Callback",
                   "X-Bot-Appid": app.appid, **dict(extra)}
        url = app.webhook_url

        def _send() -> tuple[int, str]:
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, response.read().decode("utf-8", "replace")
            except urllib.error.HTTPError as err:
                return err.code, err.read().decode("utf-8", "replace")

        return await asyncio.to_thread(_send)

    async def verify_webhook(self, app: App | str | None = None) -> bool:
        """The platform's check of a newly configured callback URL (op 13): whether the bot
        answered ``plain_token`` with a valid Ed25519 signature of ``event_ts + plain_token``."""
        a = self._app(app)
        plain, ts = self._hex("plain", str(len(self.calls)))[:20], str(int(self.clock.time()))
        body = json.dumps({"d": {"plain_token": plain, "event_ts": ts}, "op": OP_WEBHOOK_VERIFY})
        status, text = await self._post(a, body.encode())
        self.webhook_answers.append((status, text))
        answer = _json(text) or {}
        try:
            signature = binascii.unhexlify(str(answer.get("signature", "")))
            self._signing_key(a).public_key().verify(signature, (ts + plain).encode())
        except Exception:
            return False
        return status == 200 and answer.get("plain_token") == plain

    async def _post_webhook(self, app: App, event_type: str, d: Any, event_id: str) -> None:
        key = self._signing_key(app)
        self._counter += 1
        payload = {"id": event_id, "op": OP_DISPATCH, "d": d, "s": self._counter, "t": event_type}
        body = json.dumps(payload, ensure_ascii=False).encode()
        ts = str(int(self.clock.time()))
        signature = key.sign(ts.encode() + body).hex()
        self.dispatched.append((app.appid, payload))
        status, text = await self._post(app, body, {"X-Signature-Ed25519": signature,
                                                    "X-Signature-Timestamp": ts})
        self.webhook_answers.append((status, text))
        if status != 200:
            self.lost.append((app.appid, payload))
        await self._notify()

    # ---- REST ----------------------------------------------------------------------

    async def _serve_http(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        self._conns.add(writer)
        try:
            while not self._closing.is_set():
                line = await reader.readline()
                if not line:
                    return
                method, target, _ = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = h.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = b""
                if "content-length" in headers:
                    body = await reader.readexactly(int(headers["content-length"]))
                elif headers.get("transfer-encoding", "").lower() == "chunked":
                    body = await _read_chunked(reader)
                status, answer = await self._route(method, target.split("?", 1)[0], headers,
                                                   body)
                payload = b"" if answer is None else json.dumps(answer, ensure_ascii=False
                                                                ).encode()
                head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}",
                        f"Content-Length: {len(payload)}",
                        f"X-Tps-trace-ID: {self._hex('trace', str(len(self.calls)))}"]
                if answer is not None:
                    head.append("Content-Type: application/json")
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        finally:
            self._conns.discard(writer)
            writer.close()

    async def _route(self, method: str, path: str, headers: Mapping[str, str],
                     body: bytes) -> tuple[int, Any]:
        data = _json(body) if body else None
        call = ApiCall(method, path, data if body else None, self.clock.time())
        self.calls.append(call)
        try:
            status, answer = await self._handle(method, path, headers, data, body, call)
        except _Refused as refused:
            r = refused.refusal
            status, answer = r.status, {"message": r.message, "code": r.code,
                                        "err_code": r.code,
                                        "trace_id": self._hex("trace", str(len(self.calls)))}
            call.code = r.code
        call.status = status
        await self._notify()
        return status, answer

    def _check_token(self, token: str) -> App | None:
        now = self.clock.time()
        for app in self.apps.values():
            if any(t == token and now < exp for t, exp in app.tokens):
                return app
        return None

    def _issue_token(self, app: App) -> tuple[str, float]:
        now = self.clock.time()
        if app.tokens and app.tokens[-1][1] - now > TOKEN_RENEW_BEFORE:
            return app.tokens[-1]
        token = self._hex("token", app.appid, str(len(app.tokens)), str(now))
        app.tokens.append((token, now + self.token_ttl))
        return app.tokens[-1]

    async def _handle(self, method: str, path: str, headers: Mapping[str, str], data: Any,
                      body: bytes, call: ApiCall) -> tuple[int, Any]:
        if method == "POST" and path == "/app/getAppAccessToken":
            d = data if isinstance(data, dict) else {}
            app = self.apps.get(str(d.get("appId")))
            if app is None or d.get("clientSecret") != app.secret:
                raise _Refused(WRONG_SECRET)
            token, expires = self._issue_token(app)
            return 200, {"access_token": token,
                         "expires_in": str(round(expires - self.clock.time()))}
        auth = headers.get("authorization", "")
        if not auth.startswith("QQBot ") or not auth.removeprefix("QQBot "):
            raise _Refused(TOKEN_MISSING)
        app = self._check_token(auth.removeprefix("QQBot "))
        if app is None or headers.get("x-union-appid", app.appid) != app.appid:
            raise _Refused(TOKEN_INVALID)
        parts = [p for p in path.split("/") if p]
        if body and data is None:
            raise _Refused(BAD_REQUEST)
        d = data if isinstance(data, dict) else {}
        match method, parts:
            case "GET", ["gateway", "bot"]:
                return 200, {"url": self.gateway_url, "shards": 1,
                             "session_start_limit": {"total": 1000, "remaining": 1000,
                                                     "reset_after": 86400000,
                                                     "max_concurrency": 1}}
            case "GET", ["gateway"]:
                return 200, {"url": self.gateway_url}
            case "GET", ["users", "@me"]:
                return 200, {"id": app.bot_id, "username": app.name, "avatar": "", "bot": True}
            case "POST", ["v2", "groups", gid, "messages"]:
                return 200, await self._post_message(app, "group", gid, d)
            case "POST", ["v2", "users", oid, "messages"]:
                return 200, await self._post_message(app, "c2c", oid, d)
            case "POST", ["v2", "groups", gid, "files"]:
                return 200, await self._upload(app, "group", gid, d)
            case "POST", ["v2", "users", oid, "files"]:
                return 200, await self._upload(app, "c2c", oid, d)
            case "GET", ["v2", "groups", gid, "bot_state"]:
                group = self._target_group(app, gid)
                return 200, {"member_openid": self.bot_openid(group.key, app),
                             "joined_at": _rfc3339(group.joined_at),
                             "allow_proactive_msg": group.allow_proactive,
                             "recv_msg_setting": "all" if group.recv_all else "only_mention",
                             "member_role": "member"}
            case "PUT", ["interactions", iid]:
                interaction = self.interactions.get(iid)
                code = d.get("code")
                if interaction is None or code not in (0, 1, 2, 3, 4, 5):
                    raise _Refused(BAD_REQUEST)
                interaction.acks.append(code)
                return 204, None
        raise _Refused(NOT_FOUND)

    def _target_group(self, app: App, gid: str) -> Group:
        key = self.group_of(gid)
        if key is None or key not in self.groups or gid != self.group_openid(key, app):
            raise _Refused(NOT_IN_GROUP)
        return self.groups[key]

    def _target(self, app: App, kind: Kind, openid: str) -> str:
        if kind == "group":
            return self._target_group(app, openid).key
        person = self.person_of(openid)
        if person is None or self._openids[openid][0] != "user" or \
                openid != self.user_openid(person, app):
            raise _Refused(UNKNOWN_USER)
        return person

    def _render(self, app: App, kind: Kind, target: str, text: str) -> tuple[str, list, list]:
        at: list[str] = []
        foreign: list[str] = []

        def _one(m: re.Match[str]) -> str:
            oid = m.group(1) or m.group(2)
            if oid is None:
                return "@全体成员"
            person = self.person_of(oid)
            own = (person in self.people and (
                oid == self.member_openid(target, person, app) if kind == "group"
                else oid == self.user_openid(target, app) and person == target))
            if not own:
                foreign.append(oid)
                return "@?"
            at.append(person)
            return "@" + self.people[person].name
        return _MENTION.sub(_one, text), at, foreign

    async def _post_message(self, app: App, kind: Kind, openid: str,
                            d: dict[str, Any]) -> dict[str, Any]:
        target = self._target(app, kind, openid)
        now = self.clock.time()
        content = d.get("content") if isinstance(d.get("content"), str) else ""
        markdown = d.get("markdown")
        md_text = markdown.get("content", "") if isinstance(markdown, dict) else ""
        text, at, foreign = self._render(app, kind, target, "\n".join(
            x for x in (content, md_text) if x))
        source = d.get("msg_id") or d.get("event_id")
        seq = d.get("msg_seq") if d.get("msg_seq") is not None else 1
        media = None
        if isinstance(d.get("media"), dict):
            media = self.uploads.get(str(d["media"].get("file_info")))
        sent = Sent(kind, target, app.appid, dict(d), text, at, now, False,
                    reply_to=str(source) if source else None,
                    msg_seq=seq if source else d.get("msg_seq"), media=media,
                    foreign_mentions=foreign)
        try:
            self._check_body(app, kind, d, content, sent)
            window = self._check_window(app, kind, target, d, seq, now)
            if target in (self.hang_group if kind == "group" else self.hang_c2c):
                self.hung.append((kind, target, now))
                await self._notify()
                await self._closing.wait()
                raise ConnectionError("platform closed")
            fault = (self.refuse_group if kind == "group" else self.refuse_c2c).get(target)
            if fault is not None:
                raise _Refused(fault)
        except _Refused as refused:
            sent.refusal = refused.refusal
            await self._record(sent)
            raise
        if window is not None:
            window.used += 1
            window.seqs.add(seq)
        elif kind == "group":
            group = self.groups[target]
            if group.proactive_quota is not None:
                group.proactive_quota -= 1
        sent.ok = True
        sent.id = self._new_id("MSG_")
        await self._record(sent)
        return {"id": sent.id, "timestamp": int(now)}

    def _check_body(self, app: App, kind: Kind, d: dict[str, Any], content: str,
                    sent: Sent) -> None:
        msg_type = d.get("msg_type")
        if msg_type not in (0, 2, 3, 4, 7):
            raise _Refused(BAD_REQUEST)
        for m in _URL.finditer(content):
            domain = m.group(1).lower().rstrip(".")
            if not any(domain == a or domain.endswith("." + a) for a in app.url_allowlist):
                raise _Refused(URL_NOT_ALLOWED)
        if msg_type == 0 and not content.strip():
            raise _Refused(EMPTY_MESSAGE)
        if msg_type == 2:
            if d.get("markdown") is None and d.get("keyboard") is None:
                raise _Refused(EMPTY_MESSAGE)
            if d.get("markdown") is not None and not app.markdown:
                raise _Refused(MARKDOWN_DENIED)
            if d.get("keyboard") is not None:
                if not app.keyboard:
                    raise _Refused(KEYBOARD_DENIED)
                _check_keyboard(d["keyboard"])
        if msg_type == 7:
            upload = sent.media
            if (upload is None or upload.kind != kind
                    or upload.expires_at < self.clock.time()):
                raise _Refused(MEDIA_CONVERT_FAILED)

    def _check_window(self, app: App, kind: Kind, target: str, d: dict[str, Any], seq: Any,
                      now: float) -> Window | None:
        source = d.get("msg_id") or d.get("event_id")
        if not source:
            if kind == "c2c":
                raise _Refused(PROACTIVE_DENIED)
            group = self.groups[target]
            if not group.allow_proactive or group.proactive_quota == 0:
                raise _Refused(PROACTIVE_DENIED)
            return None
        window = self._windows.get((app.appid, str(source)))
        by_event = not d.get("msg_id")
        if (window is None or window.kind != kind or window.chat != target
                or (by_event and window.origin not in SEND_EVENT_SOURCES[kind])
                or (not by_event and window.origin != "message")):
            raise _Refused(REPLY_UNKNOWN)
        if now > window.expires_at:
            raise _Refused(REPLY_EXPIRED)
        if not isinstance(seq, int) or seq < 1:
            raise _Refused(BAD_REQUEST)
        if seq in window.seqs:
            raise _Refused(SEQ_REPEATED)
        if window.used >= window.limit:
            raise _Refused(REPLY_LIMIT)
        return window

    async def _upload(self, app: App, kind: Kind, openid: str, d: dict[str, Any]) -> dict:
        target = self._target(app, kind, openid)
        file_type, url, data = d.get("file_type"), d.get("url"), d.get("file_data")
        if file_type not in (1, 2, 3) or (url is None) == (data is None):
            raise _Refused(BAD_REQUEST)
        raw: bytes | None = None
        if data is not None:
            try:
                raw = base64.b64decode(str(data), validate=True)
            except (binascii.Error, ValueError):
                raise _Refused(BAD_REQUEST) from None
            if file_type == 1 and not raw.startswith((_PNG, _JPEG)):
                raise _Refused(MEDIA_CONVERT_FAILED)
        elif not re.match(r"https?://[^/\s]+", str(url)):
            raise _Refused(MEDIA_FETCH_FAILED)
        now = self.clock.time()
        file_info = base64.b64encode(self._hex("file", str(len(self.uploads))).encode()).decode()
        upload = Upload(file_info, self._hex("uuid", file_info), kind, target, file_type,
                        None if url is None else str(url), raw, now, now + self.upload_ttl)
        answer: dict[str, Any] = {"file_uuid": upload.file_uuid, "file_info": file_info,
                                  "ttl": self.upload_ttl}
        if d.get("srv_send_msg"):
            sent = Sent(kind, target, app.appid, {"msg_type": 7, "media": {"file_info": file_info}},
                        "", [], now, False, media=upload)
            try:
                self._check_window(app, kind, target, {}, None, now)
            except _Refused as refused:
                sent.refusal = refused.refusal
                await self._record(sent)
                raise
            sent.ok, sent.id = True, self._new_id("MSG_")
            await self._record(sent)
            answer["id"] = sent.id
        self.uploads[file_info] = upload
        return answer

    async def _record(self, sent: Sent) -> None:
        self.sent.append(sent)
        await self._notify()
        for listener in list(self.listeners):
            listener(sent)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

_REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
            404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}


def _json(raw: Any) -> Any:
    if isinstance(raw, bytes | bytearray):
        try:
            raw = raw.decode()
        except UnicodeDecodeError:
            return None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readline()
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readline()


def _check_keyboard(keyboard: Any) -> None:
    """msg-btn.md: a template ``{id}`` or ``content.rows`` of at most 5 rows of 5 buttons,
    each with a label, an action type 0–2, a permission type 0–3 and data."""
    if not isinstance(keyboard, dict):
        raise _Refused(KEYBOARD_INVALID)
    if "content" not in keyboard:
        if not keyboard.get("id"):
            raise _Refused(KEYBOARD_INVALID)
        return
    rows = (keyboard.get("content") or {}).get("rows")
    if not isinstance(rows, list) or not 0 < len(rows) <= 5:
        raise _Refused(KEYBOARD_INVALID)
    for row in rows:
        buttons = row.get("buttons") if isinstance(row, dict) else None
        if not isinstance(buttons, list) or not 0 < len(buttons) <= 5:
            raise _Refused(KEYBOARD_INVALID)
        for b in buttons:
            action = b.get("action") if isinstance(b, dict) else None
            render = b.get("render_data") if isinstance(b, dict) else None
            perm = (action or {}).get("permission")
            if (not isinstance(render, dict) or not isinstance(render.get("label"), str)
                    or not isinstance(action, dict) or action.get("type") not in (0, 1, 2)
                    or not isinstance(action.get("data"), str)
                    or not isinstance(perm, dict) or perm.get("type") not in (0, 1, 2, 3)):
                raise _Refused(KEYBOARD_INVALID)

