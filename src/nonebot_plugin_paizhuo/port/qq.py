"""The official QQ bot's room (QQ 开放平台, nonebot-adapter-qq: the bot dials Tencent's
gateway with ``QQ_BOTS``; docs/platforms.md「官方 QQ 机器人」).

Written from tencent-connect/bot-docs (``server-inter/message/send-receive/send.md``,
``event.md``, ``rich-media.md``, ``trans/msg-btn.md``, ``dev-prepare/unique-id.md``) and
nonebot-adapter-qq 1.7 (``bot.py``, ``event.py``, ``models/``):

* **Ids.** The account is the AppID (``bot.self_id``). A group is its ``group_openid``; a
  person in a group is their ``member_openid`` (different in every group), in private chat
  their ``user_openid``; ``union_openid`` is given only sometimes. The scope is
  ``QQBot:<AppID>``: these persons' records never merge with QQ numbers'. The seat's id is
  the ``member_openid``; a private message *to* a seat goes to the ``user_openid`` linked to
  it, and a private message *from* a linked ``user_openid`` is said by its seat
  (:class:`Links`).
* **Linking** (:meth:`QQRoom.intercept`, before the chat layer sees the event): a person who
  writes to the bot privately and is not linked yet is linked at once when both their group
  and private messages carry the same non-empty ``union_openid``; otherwise the bot answers
  privately with a one-time code (``在群里发：绑定 4827``, 10 minutes) and the group message
  ``绑定 4827`` links its sender's seat to that private chat. The code travels from the
  private chat to the group, never the other way (RULES.md G-4). Links are kept in
  ``qq_links.json`` in the plugin data directory.
* **Reply windows** (send.md): private messages are replies only — each message a person
  sends allows 5 replies within 60 minutes; a group message allows 5 replies within 5
  minutes, and posts without one need the owner's switch (``get_group_bot_state``
  ``allow_proactive_msg``). Every received message opens a window in a per-chat ledger
  (:class:`Ledger`: the message id, replies used, ``msg_seq``); each send replies to the
  newest window with a reply left. A window the platform calls spent or expired (22009,
  304026, 304027, 4003410x) is closed and the next one tried; a repeated ``msg_seq``
  (40054005) takes the next. With no window: a group post goes proactively where the owner
  allowed it, else waits in the group's backlog and goes out, merged and in order, with the
  next reply in that group (:meth:`QQRoom.intercept` flushes it on the next group
  message); a private message raises :class:`Unreachable` (the send scheduler gives it up
  and the group is told once, ``messaging``).
* **Buttons.** A private message that offers commands (``Outgoing.choices``) carries a
  keyboard of command buttons (``action.type`` 2, ``enter``: a press sends the command as
  the person's own private message, which opens a new window), each limited to that person
  (``permission.type`` 0, ``specify_user_ids``). A callback button's press
  (INTERACTION_CREATE) is acknowledged (``PUT /interactions``) and dropped: the bot sends
  none.
* **Pictures** are uploaded (``/files``, ``srv_send_msg`` false) and sent as ``msg_type`` 7;
  when that fails the send raises and the scheduler sends the text. **Long texts** (merged
  forwards) do not exist here: their text is sent. **@** is
  ``<qqbot-at-user id="member_openid" />`` in a group; in private chat a name is not known,
  so an @ is left out.
* A refused send raises the adapter's ``ActionFailed`` (``.code``); 401 is retried by the
  adapter; a hung one is cut off by the send scheduler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nonebot import logger
from nonebot.adapters import Bot as AnyBot
from nonebot.adapters import Event as AnyEvent
from nonebot.adapters.qq import Adapter, Bot
from nonebot.adapters.qq.event import (
    C2CMessageCreateEvent,
    GroupAddRobotEvent,
    GroupDelRobotEvent,
    GroupMessageCreateEvent,
    InteractionCreateEvent,
    QQMessageEvent,
)
from nonebot.adapters.qq.exception import ActionFailed
from nonebot.adapters.qq.models import (
    Action,
    InlineKeyboard,
    InlineKeyboardRow,
    Media,
    MessageKeyboard,
    Permission,
    RenderData,
)
from nonebot.adapters.qq.models import Button as KeyboardButton

from . import message as neutral
from .room import Delivery, Outgoing, Room, Said

GROUP_SPAN = 300.0
"""Seconds a group message can be replied to (send.md: 5 分钟)."""
PRIVATE_SPAN = 3600.0
"""Seconds a private message can be replied to (send.md: 60 分钟)."""
REPLIES = 5
"""Replies one received message allows (send.md: 最多回复 5 次)."""
SPENT = frozenset({22009, 304026, 304027, 40034005, 40034031, 40034128})
"""Codes of a reply whose window is spent or expired (bot-docs; the last three as
clients report them)."""
EXPIRED = frozenset({304027, 40034005, 40034031, 40034128})
"""Of those, the codes of a window that lapsed (not one whose replies ran out)."""
SEQ_TAKEN = 40054005
PROACTIVE_REFUSED = frozenset({40034102, 40034105})
CODE_TTL = 600.0
"""Seconds a linking code is good for."""
MAX_TEXT = 1800
"""Characters per group post when held posts are sent together."""
BUTTONS_PER_ROW, ROWS = 4, 5


class Unreachable(Exception):  # noqa: N818 - a state, not a programming error
    """No reply window is open in this private chat (or it is linked to no one)."""


@dataclass
class Window:
    """What one received message (or event) still allows: ``used`` replies so far."""

    source: str
    event: bool
    """``event_id`` (an interaction, FRIEND_ADD …) rather than ``msg_id``."""
    expires: float
    used: int = 0

    def open(self, now: float) -> bool:
        """Whether a reply at ``now`` (monotonic seconds) is within the window, as far as
        the bot knows (the platform's refusal says otherwise)."""
        return self.used < REPLIES and now < self.expires


@dataclass
class Ledger:
    """One chat's reply windows (newest last), its backlog of held group posts and the
    lock that keeps ``msg_seq`` in order."""

    windows: list[Window] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def slot(self, now: float) -> Window | None:
        """The newest window still open at ``now`` (the closed ones are dropped)."""
        self.windows = [w for w in self.windows if w.open(now)]
        return self.windows[-1] if self.windows else None


class Links:
    """Seats (``member_openid``) linked to private chats (``user_openid``), kept in a JSON
    file: ``private[member] = user``; ``seat[user]`` is the seat a private message from
    ``user`` speaks for (the one linked last)."""

    def __init__(self) -> None:
        self.private: dict[str, str] = {}
        self.seat: dict[str, str] = {}
        self.unions: dict[str, str] = {}
        """``union_openid`` → the ``member_openid`` it was last seen with in a group."""
        self.path: Path | None = None
        self.loaded = False

    def load(self) -> None:
        """Read the links once (a missing or unreadable file: none; logged)."""
        if self.loaded:
            return
        self.loaded = True
        try:
            import nonebot_plugin_localstore as localstore

            self.path = localstore.get_plugin_data_dir() / "qq_links.json"
            data = json.loads(self.path.read_text("utf-8")) if self.path.is_file() else {}
        except Exception as err:  # noqa: BLE001 - links are a convenience: start empty
            logger.warning(f"牌桌: 读不了官方机器人的私聊绑定（{err!r}），重新绑定即可")
            data = {}
        self.private = dict(data.get("private", {}))
        self.seat = dict(data.get("seat", {}))

    def link(self, member: str, user: str) -> None:
        """Link the seat ``member`` to the private chat ``user`` (saved at once; a failed
        save is logged and the link holds until a restart)."""
        self.load()
        self.private[member] = user
        self.seat[user] = member
        if self.path is not None:
            try:
                tmp = self.path.with_suffix(".tmp")
                tmp.parent.mkdir(parents=True, exist_ok=True)
                tmp.write_text(json.dumps({"private": self.private, "seat": self.seat}), "utf-8")
                os.replace(tmp, self.path)
            except OSError as err:
                logger.warning(f"牌桌: 私聊绑定没有存下（{err!r}），重启后要重新绑定")

    def seat_of(self, user: str) -> str:
        """The seat a private message from ``user`` speaks for (``user`` when unlinked)."""
        self.load()
        return self.seat.get(user, user)

    def user_of(self, member: str) -> str | None:
        """The private chat linked to the seat ``member`` (``None``: not linked)."""
        self.load()
        return self.private.get(member)


GROUP_PLAY = "出牌请在群里发："
"""How the hand's last line begins on the sides where moves are typed in the group
(``games.base.HOW_TO_PLAY``)."""
PRIVATE_PLAY = "轮到你时点私聊里的按钮出牌，也可以在这里或群里发："
"""What this side says instead: here a player's turn comes privately with buttons."""
GROUP_BID = "叫分在群里发："
"""How 挖坑's hand tells the bidding on the sides where bids are typed in the group."""
PRIVATE_BID = "叫分：轮到你时点私聊里的按钮，也可以在这里或群里发："
"""What this side says instead (the bid buttons come with the turn, like the plays)."""


def _content(message: neutral.Message, group: bool) -> str:
    parts = []
    for seg in message:
        if seg.type == neutral.AT:
            if group:
                parts.append(f'<qqbot-at-user id="{seg.data["user_id"]}" />')
        else:
            parts.append(seg.data["text"])
    text = "".join(parts)
    return text if group else text.replace(GROUP_PLAY, PRIVATE_PLAY).replace(GROUP_BID, PRIVATE_BID)


def keyboard(user: str, choices: list[str]) -> MessageKeyboard:
    """Command buttons (``choices``, each pressed sends itself), only ``user`` may press."""
    rows = []
    for start in range(0, min(len(choices), BUTTONS_PER_ROW * ROWS), BUTTONS_PER_ROW):
        rows.append(InlineKeyboardRow(buttons=[
            KeyboardButton(id=str(start + i), render_data=RenderData(label=c, visited_label=c, style=1),
                           action=Action(type=2, data=c, enter=True,
                                         permission=Permission(type=0, specify_user_ids=[user]),
                                         unsupport_tips="请升级 QQ 或直接发送这条命令"))
            for i, c in enumerate(choices[start:start + BUTTONS_PER_ROW])]))
    return MessageKeyboard(content=InlineKeyboard(rows=rows))


class QQRoom(Room):
    """The official QQ bot (see the module docstring)."""

    name = "qq"
    title = "QQ 官方机器人"
    supported_adapter = "~qq"
    bot_class = Bot
    group_events = (GroupMessageCreateEvent,)
    private_events = (C2CMessageCreateEvent,)
    adapter = Adapter
    forward_sender = "牌桌"
    tell_unreachable_once = True
    plays_privately = True

    def __init__(self) -> None:
        self.links = Links()
        self.ledgers: dict[tuple[str, str], Ledger] = {}
        self.codes: dict[str, tuple[str, float]] = {}
        """Linking code → (``user_openid``, when it lapses)."""
        self.bind_answered: dict[str, float] = {}
        """Group messages ``绑定 <code>`` answered (message id → when to forget it): the
        platform delivers an @-message twice (at-message and full-message events)."""
        self.proactive: dict[str, bool] = {}
        """The owner's switch per group, as last read (or learnt from a refusal)."""
        self.clock = time.monotonic
        self._tasks: set[asyncio.Task] = set()

    # ---- the port's contract -------------------------------------------------------

    def configured(self) -> bool:
        """``QQ_BOTS`` names an app."""
        from nonebot import get_plugin_config
        from nonebot.adapters.qq.config import Config

        return bool(get_plugin_config(Config).qq_bots)

    def scope(self, bot: AnyBot) -> str:
        return f"QQBot:{bot.self_id}"

    def said(self, bot: AnyBot, event: AnyEvent) -> Said | None:
        if isinstance(event, GroupMessageCreateEvent):
            author = event.author
            return Said(self, str(bot.self_id), self.scope(bot), author.member_openid,
                        event.group_openid, author.username or "", author.member_role or "member",
                        event.get_plaintext().strip(), tuple(self.mentions(event.get_message())))
        if isinstance(event, C2CMessageCreateEvent):
            return Said(self, str(bot.self_id), self.scope(bot),
                        self.links.seat_of(event.author.user_openid), None,
                        event.author.username or "", "member", event.get_plaintext().strip())
        return None

    def where(self, event: AnyEvent) -> tuple[str | None, str]:
        if isinstance(event, GroupMessageCreateEvent):
            return event.group_openid, event.author.member_openid
        return None, self.links.seat_of(event.author.user_openid)  # type: ignore[attr-defined]

    def delivery(self, event: AnyEvent) -> Delivery | None:
        if not isinstance(event, QQMessageEvent):
            return None
        user = (event.author.member_openid if isinstance(event, GroupMessageCreateEvent)
                else event.author.user_openid)  # type: ignore[attr-defined]
        return Delivery(event.id, user, (user, event.get_plaintext()))

    def mentions(self, message: Any) -> list[str]:
        return [str(seg.data["user_id"]) for seg in message
                if seg.type == "mention_user" and not seg.data.get("is_bot")]

    def membership(self, bot: AnyBot, event: AnyEvent) -> tuple[str, str] | None:
        if isinstance(event, GroupAddRobotEvent):
            return "joined", event.group_openid
        if isinstance(event, GroupDelRobotEvent):
            return "left", event.group_openid
        return None

    async def is_friend(self, bot: AnyBot, user_id: str) -> bool:
        return self.links.user_of(user_id) is not None

    async def reachable(self, bot: AnyBot, user_id: str) -> bool:
        """Linked, with a private reply window open now."""
        user = self.links.user_of(user_id)
        return user is not None and self._ledger("c2c", user).slot(self.clock()) is not None

    async def group_ids(self, bot: AnyBot) -> set[str]:
        raise LookupError("the official bot cannot list its groups")

    async def member_name(self, bot: AnyBot, group_id: str, user_id: str) -> str | None:
        return None

    async def member_names(self, bot: AnyBot, group_id: str) -> dict[str, str]:
        return {}

    def unreachable_text(self) -> str:
        return "私聊发不出去：请私聊机器人发一句话（比如 /手牌），手牌和待答的问题会补发给你。"

    def join_text(self) -> str:
        return ("机器人需要私聊给你发牌：先私聊机器人发一句话（点机器人头像→发消息；"
                "第一次用时把它私聊回你的“绑定 ……”发到群里），再来入座。")

    # ---- events the room handles itself --------------------------------------------

    def intercept(self, bot: AnyBot, event: AnyEvent) -> bool:
        """Note the reply window every message opens; handle linking and button
        acknowledgements. ``True``: the event was the room's own (the chat layer never
        sees it)."""
        assert isinstance(bot, Bot)
        now = self.clock()
        if isinstance(event, InteractionCreateEvent):
            self._spawn(self._ack(bot, event.id))
            return True
        if isinstance(event, GroupMessageCreateEvent):
            ledger = self._ledger("group", event.group_openid)
            if all(w.source != event.id for w in ledger.windows):
                ledger.windows.append(Window(event.id, False, now + GROUP_SPAN))
            if event.author.union_openid:
                self.links.unions[event.author.union_openid] = event.author.member_openid
            if ledger.held:
                self._spawn(self._flush(bot, event.group_openid))
            text = event.get_plaintext().strip()
            if text.startswith("绑定"):
                if event.id in self.bind_answered:
                    return True
                code = text[2:].strip()
                found = self.codes.get(code)
                if found is not None and found[1] > now:
                    self._answered(event.id, now)
                    del self.codes[code]
                    self.links.link(event.author.member_openid, found[0])
                    reply = neutral.MessageSegment.at(event.author.member_openid) + \
                        neutral.MessageSegment.text(" 私聊已接上：手牌和提问会私聊发给你，也可以在私聊里出牌。")
                    self._spawn(self._text(bot, "group", event.group_openid,
                                           _content(reply, True)))
                    return True
                if len(code) == 4 and code.isascii() and code.isdigit():
                    # a code mistyped, used or expired: say so (it tells nothing — every
                    # code is good once), rather than leave the person waiting
                    self._answered(event.id, now)
                    reply = neutral.MessageSegment.at(event.author.member_openid) + \
                        neutral.MessageSegment.text(" 这个绑定码不对或已过期：请私聊机器人再说一句话，"
                                                    "把它回你的新码发到群里。")
                    self._spawn(self._text(bot, "group", event.group_openid,
                                           _content(reply, True)))
                    return True
            return False
        if isinstance(event, C2CMessageCreateEvent):
            user = event.author.user_openid
            ledger = self._ledger("c2c", user)
            if all(w.source != event.id for w in ledger.windows):
                ledger.windows.append(Window(event.id, False, now + PRIVATE_SPAN))
            if self.links.seat_of(user) != user:
                return False
            union = event.author.union_openid
            if union and union in self.links.unions:
                self.links.link(self.links.unions[union], user)
                return False
            code = self._new_code(user, now)
            self._spawn(self._text(bot, "c2c", user,
                                   f"要把私聊接到你在群里的座位，请在群里发：绑定 {code}\n"
                                   f"（{int(CODE_TTL // 60)} 分钟内有效；接上后手牌、提问都在这里，也可以在这里出牌。）"))
            return True
        return False

    def _answered(self, message: str, now: float) -> None:
        self.bind_answered = {m: t for m, t in self.bind_answered.items() if t > now}
        self.bind_answered[message] = now + CODE_TTL

    def _new_code(self, user: str, now: float) -> str:
        self.codes = {c: v for c, v in self.codes.items() if v[1] > now and v[0] != user}
        while True:
            code = f"{secrets.randbelow(9000) + 1000}"
            if code not in self.codes:
                self.codes[code] = (user, now + CODE_TTL)
                return code

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ack(self, bot: Bot, interaction: str) -> None:
        try:
            await bot.put_interaction(interaction_id=interaction, code=0)
        except Exception as err:  # noqa: BLE001
            logger.warning(f"牌桌: 按钮回应失败 {interaction}: {err!r}")

    async def _text(self, bot: Bot, kind: str, chat: str, content: str) -> None:
        try:
            await self._post(bot, kind, chat, {"msg_type": 0, "content": content})
        except Exception as err:  # noqa: BLE001
            logger.warning(f"牌桌: 官方机器人的 {kind} 消息没发出去 {chat}: {err!r}")

    async def _flush(self, bot: Bot, group: str) -> None:
        try:
            await self._post(bot, "group", group, None)
        except Exception as err:  # noqa: BLE001
            logger.warning(f"牌桌: 群 {group} 存着的消息没发出去: {err!r}")

    # ---- sending -------------------------------------------------------------------

    def _ledger(self, kind: str, chat: str) -> Ledger:
        ledger = self.ledgers.get((kind, chat))
        if ledger is None:
            ledger = self.ledgers[(kind, chat)] = Ledger()
        return ledger

    async def send(self, bot: AnyBot, out: Outgoing) -> None:
        assert isinstance(bot, Bot)
        group = out.kind == "group"
        if group:
            chat = str(out.target)
        else:
            user = self.links.user_of(str(out.target))
            chat = user if user is not None else str(out.target)
        kind = "group" if group else "c2c"
        body: dict[str, Any]
        if out.image is not None:
            uploaded = await (bot.post_group_files(group_openid=chat, file_type=1, srv_send_msg=False,
                                                   file_data=out.image) if group else
                              bot.post_c2c_files(openid=chat, file_type=1, srv_send_msg=False,
                                                 file_data=out.image))
            if not uploaded.file_info:
                raise RuntimeError("upload gave no file_info")
            body = {"msg_type": 7, "media": Media(file_info=uploaded.file_info)}
        else:
            body = {"msg_type": 0, "content": _content(out.message, group)}
            choices = getattr(out, "choices", None)
            if choices and not group:
                body["keyboard"] = keyboard(chat, list(choices))
        await self._post(bot, kind, chat, body)

    async def _post(self, bot: Bot, kind: str, chat: str, body: dict[str, Any] | None) -> None:
        """Send ``body`` (``None``: only the group's held posts) as a reply within the
        chat's windows; a group post with none open goes proactively where allowed, else is
        held (see the module docstring)."""
        ledger = self._ledger(kind, chat)
        async with ledger.lock:
            while True:
                window = ledger.slot(self.clock())
                if window is None:
                    if kind == "c2c":
                        raise Unreachable(f"no reply window open with {chat}")
                    if body is None:
                        return
                    if not await self._may_post(bot, chat):
                        if body["msg_type"] != 0:
                            raise Unreachable("no window for a picture: its text is held")
                        ledger.held.append(body["content"])
                        return
                try:
                    if kind == "group" and ledger.held:
                        if await self._held(bot, chat, ledger, window, body):
                            return
                        continue
                    if body is None:
                        return
                    await self._call(bot, kind, chat, body, window)
                    return
                except ActionFailed as err:
                    if not self._retry(kind, chat, window, err):
                        raise

    async def _held(self, bot: Bot, chat: str, ledger: Ledger, window: Window | None,
                    body: dict[str, Any] | None) -> bool:
        """Send the group's held posts (with ``body`` when it is text), oldest first, in
        chunks; ``True`` once ``body`` went too (or there was none)."""
        texts = list(ledger.held)
        joins_body = body is not None and body["msg_type"] == 0
        if joins_body:
            texts.append(body["content"])  # type: ignore[index]
        chunk, taken = "", 0
        for text in texts:
            if chunk and len(chunk) + 1 + len(text) > MAX_TEXT:
                break
            chunk = f"{chunk}\n{text}" if chunk else text
            taken += 1
        await self._call(bot, "group", chat, {"msg_type": 0, "content": chunk}, window)
        held_taken = min(taken, len(ledger.held))
        del ledger.held[:held_taken]
        if joins_body and taken > held_taken:
            return True
        return body is None and not ledger.held

    async def _call(self, bot: Bot, kind: str, chat: str, body: dict[str, Any],
                    window: Window | None) -> None:
        args = dict(body)
        if window is not None:
            args["event_id" if window.event else "msg_id"] = window.source
            args["msg_seq"] = window.used + 1
        if kind == "group":
            await bot.post_group_messages(group_openid=chat, **args)
        else:
            await bot.post_c2c_messages(openid=chat, **args)
        if window is not None:
            window.used += 1

    def _retry(self, kind: str, chat: str, window: Window | None, err: ActionFailed) -> bool:
        """Whether the send may be tried again after ``err`` (the window's state updated;
        a refused proactive post is held from now on)."""
        code = err.code
        if window is None:
            if code in PROACTIVE_REFUSED and kind == "group":
                self.proactive[chat] = False
                return True
            return False
        if code == SEQ_TAKEN:
            window.used += 1
            return True
        if code in SPENT:
            window.used = REPLIES
            if code in EXPIRED:  # the older windows of the chat have lapsed too
                for older in self._ledger(kind, chat).windows:
                    if older.expires <= window.expires:
                        older.used = REPLIES
            return True
        return False

    async def _may_post(self, bot: Bot, group: str) -> bool:
        """Whether the owner lets the bot post unprompted (read once per group)."""
        if group not in self.proactive:
            try:
                state = await bot.get_group_bot_state(group_id=group)
                self.proactive[group] = bool(getattr(state, "allow_proactive_msg", False))
            except Exception as err:  # noqa: BLE001
                logger.warning(f"牌桌: 读不到群 {group} 的主动消息开关: {err!r}")
                return False
        return self.proactive[group]

    def forget(self) -> None:
        """Drop every window, code and held post (tests)."""
        self.ledgers.clear()
        self.codes.clear()
        self.proactive.clear()
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                task.cancel()
