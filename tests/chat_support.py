"""Shared helpers of the nonebug tests: events, expected API calls, a seated table."""

from __future__ import annotations

import json
from typing import Any

from nonebot.adapters.onebot.v11 import (
    Adapter,
    Bot,
    GroupMessageEvent,
    Message,
    PrivateMessageEvent,
)
from nonebot.adapters.onebot.v11.event import Sender
from support import cards

from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.cards import card
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

GROUP = 5001
OTHER_GROUP = 5002
A, B, C, D, STRANGER = 101, 102, 103, 104, 199
FRIENDS = [{"user_id": u, "nickname": str(u), "remark": ""} for u in (A, B, C, D, STRANGER)]
_msg_id = iter(range(1, 10**6))


class Has:
    """Equals a message whose plain text contains every part (and @-mentions ``at``),
    and never contains any of ``without``."""

    def __init__(self, *parts: str, at: int | None = None, without: tuple[str, ...] = ()) -> None:
        self.parts, self.at, self.without = parts, at, without

    def __eq__(self, other: object) -> bool:
        msg = other if isinstance(other, Message) else Message(other)  # type: ignore[arg-type]
        text = msg.extract_plain_text()
        ats = [int(seg.data["qq"]) for seg in msg if seg.type == "at"]
        return (all(p in text for p in self.parts)
                and (self.at is None or self.at in ats)
                and not any(w in text for w in self.without))

    def __repr__(self) -> str:
        return f"Has({self.parts!r}, at={self.at}, without={self.without})"


def gmsg(user: int, text: str | Message, role: str = "member", group: int = GROUP) -> GroupMessageEvent:
    message = text if isinstance(text, Message) else Message(text)
    return GroupMessageEvent(
        time=1, self_id=10001, post_type="message", sub_type="normal", user_id=user,
        message_type="group", message_id=next(_msg_id), message=message,
        original_message=message, raw_message=str(message), font=14,
        sender=Sender(user_id=user, nickname=f"玩家{user}", card="", role=role), group_id=group,
        to_me=False,
    )


def pmsg(user: int, text: str) -> PrivateMessageEvent:
    message = Message(text)
    return PrivateMessageEvent(
        time=1, self_id=10001, post_type="message", sub_type="friend", user_id=user,
        message_type="private", message_id=next(_msg_id), message=message,
        original_message=message, raw_message=text, font=14,
        sender=Sender(user_id=user, nickname=f"玩家{user}"), to_me=True,
    )


def expect_group(ctx: Any, *parts: str, at: int | None = None, group: int = GROUP,
                 without: tuple[str, ...] = ()) -> None:
    ctx.should_call_api("send_group_msg", {"group_id": group, "message": Has(*parts, at=at, without=without)},
                        {"message_id": next(_msg_id)})


def expect_reply(ctx: Any, event: Any, message: Any, result: Any) -> None:
    """A plain reply to ``event`` in its group, sent through the send scheduler."""
    ctx.should_call_api("send_group_msg", {"group_id": event.group_id, "message": message}, result)


class Forward:
    """Equals a merged-forward message (合并转发) whose nodes' text, joined, contains every
    part (see :class:`Has`)."""

    def __init__(self, *parts: str, without: tuple[str, ...] = ()) -> None:
        self.has = Has(*parts, without=without)

    def __eq__(self, other: object) -> bool:
        nodes = other if isinstance(other, Message) else Message(other)  # type: ignore[arg-type]
        text = "\n".join(Message(n.data["content"]).extract_plain_text() for n in nodes
                         if n.type == "node")
        return bool(text) and self.has == Message(text)

    def __repr__(self) -> str:
        return f"Forward{self.has!r}"


def expect_forward(ctx: Any, *parts: str, group: int | None = GROUP, user: int | None = None,
                   fail: bool = False) -> None:
    """A merged-forward message to the group (or to ``user`` privately); ``fail`` makes the
    OneBot call fail with retcode 1200."""
    from nonebot.adapters.onebot.v11 import ActionFailed

    api, target = (("send_private_forward_msg", {"user_id": user}) if user is not None
                   else ("send_group_forward_msg", {"group_id": group}))
    ctx.should_call_api(api, {**target, "messages": Forward(*parts)},
                        None if fail else {"message_id": next(_msg_id)},
                        exception=ActionFailed(status="failed", retcode=1200) if fail else None)


def details_pointer(number: int) -> str:
    """The end message's last line: where the deal and every move of 第 ``number`` 局 are."""
    return f"本群第 {number} 局。每人发到的牌和每一手：/对局 {number}"


def expect_details(ctx: Any, bot: Any, number: int, *parts: str, group: int = GROUP,
                   user: int = A, fail: bool = False) -> None:
    """The end-of-game details of 第 ``number`` 局 where the end message points
    (:func:`details_pointer`): ``user`` sends ``/对局 N``; the answer is one merged-forward
    message with the deal (``发牌：``) and ``parts`` (``fail``: the forward call fails and
    the same text comes as a plain group message)."""
    ctx.receive_event(bot, gmsg(user, f"/对局 {number}", group=group))
    ctx.should_call_api("get_group_member_list", {"group_id": group}, [])
    expect_forward(ctx, f"【第 {number} 局】", "发牌：", *parts, group=group, fail=fail)
    if fail:
        expect_group(ctx, f"【第 {number} 局】", "发牌：", *parts, group=group)


def expect_private(ctx: Any, user: int, *parts: str, fail: bool = False) -> None:
    from nonebot.adapters.onebot.v11 import ActionFailed

    ctx.should_call_api("send_private_msg", {"user_id": user, "message": Has(*parts)},
                        None if fail else {"message_id": next(_msg_id)},
                        exception=ActionFailed(status="failed", retcode=1200) if fail else None)


def expect_friends(ctx: Any, friends: list[dict] = FRIENDS) -> None:
    ctx.should_call_api("get_friend_list", {}, friends)


def make_bot(ctx: Any) -> Bot:
    import nonebot

    return ctx.create_bot(base=Bot, adapter=nonebot.get_adapter(Adapter), self_id="10001")


async def seat_table(hands: list[list[int]], leader: int = 0, group: int = GROUP,
                     rules: ZRules | None = None, account: str = "10001") -> Table:
    """A table in play with the given hands (seats A, B, C[, D]) of the bot account
    ``account``."""
    users = [A, B, C, D][: len(hands)]
    table = Table(group_id=str(group), game="抓特务", size=len(hands), opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in users], settings={},
                  created_at=now_utc(), started_at=now_utc(), uid=f"test-{group}",
                  engine=ZGame.from_hands(hands, rules=rules, leader=leader), status=PLAYING,
                  account=account)
    REGISTRY.add(table)
    await REGISTRY.save(table)
    return table


def engine_json(table: Table) -> str:
    return json.dumps(table.engine.to_json(), sort_keys=True)


SPADE_A = card(11, 0)
HANDS3 = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]




class Sent:
    """Every OneBot API call the bot makes, recorded in place of the connection (the
    friend list answers with :data:`FRIENDS`), so a test can see that nothing was sent."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    async def __call__(self, bot: Bot, api: str, **data: Any) -> Any:
        self.calls.append((api, data))
        if api == "get_friend_list":
            return FRIENDS
        return {"message_id": len(self.calls)}

    def texts(self) -> list[str]:
        """The plain text of every message sent."""
        out = []
        for api, d in self.calls:
            if api.endswith("_forward_msg"):
                out.append("\n".join(Message(node.data["content"]).extract_plain_text()
                                      for node in d["messages"]))
            elif api.startswith("send_"):
                out.append(Message(d["message"]).extract_plain_text())
        return out


async def recording_bot(monkeypatch: Any) -> tuple[Bot, Sent]:
    """A bot on the real adapter whose API calls go to a :class:`Sent` recorder; events
    go through the whole NoneBot pipeline with ``await bot.handle_event(event)``."""
    import nonebot

    adapter = nonebot.get_adapter(Adapter)
    sent = Sent()
    monkeypatch.setattr(adapter, "_call_api", sent)
    return Bot(adapter, self_id="10001"), sent


async def fire(table: Table, *, remind: bool = False) -> None:
    """Make the table's reminder (or deadline) due now and let its timer run."""
    from datetime import timedelta

    from nonebot_plugin_paizhuo.actions import deadlines

    past = now_utc() - timedelta(seconds=1)
    if remind:
        table.remind_at, table.deadline = past, now_utc() + timedelta(seconds=10)
    else:
        table.remind_at, table.deadline = None, past
    deadlines.schedule(table)
    await table.timer
