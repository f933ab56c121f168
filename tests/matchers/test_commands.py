"""nonebug tests for every command of the chat layer, each rejection reply included
(issue: 抓特务 playable in a QQ group). Expected API calls are listed in the order the
plugin must make them; a message is matched by the text it must contain."""

from __future__ import annotations

import json
from typing import Any

from nonebot.adapters.onebot.v11 import (
    Adapter,
    Bot,
    GroupMessageEvent,
    Message,
    MessageSegment,
    PrivateMessageEvent,
)
from nonebot.adapters.onebot.v11.event import Sender
from nonebug import App
from support import cards

from engine.cards import card
from engine.zhuatewu.game import ZGame
from plugins.paizhuo.games.base import SeatView
from plugins.paizhuo.tables import REGISTRY, Table, now_utc

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


async def seat_table(hands: list[list[int]], leader: int = 0, group: int = GROUP) -> Table:
    """A table in play with the given hands (seats A, B, C[, D])."""
    users = [A, B, C, D][: len(hands)]
    table = Table(group_id=str(group), game="抓特务", size=len(hands), opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in users], settings={},
                  created_at=now_utc(), started_at=now_utc(), uid=f"test-{group}",
                  engine=ZGame.from_hands(hands, leader=leader))
    REGISTRY.add(table)
    await REGISTRY.save(table)
    return table


def engine_json(table: Table) -> str:
    return json.dumps(table.engine.to_json(), sort_keys=True)


SPADE_A = card(11, 0)
HANDS3 = [cards("3 4 77 9"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K")]


# ---- /帮助 ---------------------------------------------------------------------------------
async def test_help_lists_commands_and_notation(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/帮助")
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, Has("/开局 抓特务", "/加入", "出 778899", "过", "/手牌", "/牌桌",
                                        "/战绩", "/结束", "T 或 0", "小王"), {"message_id": 1})


# ---- /开局 --------------------------------------------------------------------------------
async def test_open_usage_errors(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局"))
        expect_group(ctx, "请写明游戏", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 挖坑"))
        expect_group(ctx, "开发中", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 五人"))
        expect_group(ctx, "请写明人数", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务"))
        expect_group(ctx, "请写明人数", at=A)
    assert REGISTRY.get(str(GROUP)) is None


async def test_open_refused_when_not_a_friend(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 三人"))
        expect_friends(ctx, [])
        expect_group(ctx, "加机器人为好友", at=A)
    assert REGISTRY.get(str(GROUP)) is None


async def test_open_seats_the_opener_and_saves(app: App) -> None:
    for arg in ("三人", "3", "3人", "四人", "4", "4人"):
        REGISTRY.reset()
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, f"/开局 抓特务 {arg}"))
            expect_friends(ctx)
            expect_group(ctx, "开了一桌抓特务", "/加入")
        table = REGISTRY.get(str(GROUP))
        assert table is not None and table.seat_of(str(A)) == 0
        assert table.size == (3 if "3" in arg or "三" in arg else 4)
        await REGISTRY.close(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 三人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
        ctx.receive_event(bot, gmsg(B, "/开局 抓特务 四人"))
        expect_friends(ctx)
        expect_group(ctx, "本群已有一桌抓特务", at=B)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 四人", group=OTHER_GROUP))
        expect_friends(ctx)
        expect_group(ctx, "另一个群的牌桌", at=A, group=OTHER_GROUP)
    saved = await REGISTRY.store.load_live()
    assert list(saved) == [str(GROUP)] and saved[str(GROUP)][1]["seats"] == [[str(A), f"玩家{A}"]]


# ---- /加入 /退出 and the start --------------------------------------------------------------
async def test_join_leave_and_start_when_full(app: App, monkeypatch) -> None:
    monkeypatch.setattr("plugins.paizhuo.actions.secrets.randbits", lambda _n: 12345)
    expected = ZGame.deal(3, ZRules_default(), 12345)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_group(ctx, "本群还没有牌桌", at=B)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 三人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
        ctx.receive_event(bot, gmsg(A, "/加入"))
        expect_group(ctx, "你已经在这桌了", at=A)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx, [f for f in FRIENDS if f["user_id"] != B])
        expect_group(ctx, "加机器人为好友", at=B)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "2/3")
        ctx.receive_event(bot, gmsg(B, "/退出"))
        expect_group(ctx, "退出", "1/3")
        ctx.receive_event(bot, gmsg(STRANGER, "/退出"))
        expect_group(ctx, "你不在本群的牌桌上", at=STRANGER)
        ctx.receive_event(bot, gmsg(B, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "2/3")
        ctx.receive_event(bot, gmsg(C, "/加入"))
        expect_friends(ctx)
        expect_group(ctx, "入座", "3/3")
        expect_group(ctx, "开局", "轮到", at=[A, B, C][expected.turn])
        for seat, user in enumerate((A, B, C)):
            role = "特务" if expected.roles[seat] == "spy" else "平民"
            expect_private(ctx, user, f"你是{role}", "手牌（18 张）")
        ctx.receive_event(bot, gmsg(D, "/加入"))
        expect_group(ctx, "已经开始", at=D)
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "牌局进行中，不能退出", at=A)
    table = REGISTRY.get(str(GROUP))
    assert table is not None and table.playing
    assert table.engine.hands == expected.hands
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["engine"]["hands"] == expected.hands


def ZRules_default():  # noqa: N802 - reads like the class
    from engine.zhuatewu.rules import ZRules

    return ZRules()


async def test_last_one_out_closes_waiting_table(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 四人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "牌桌已关闭")
    assert REGISTRY.get(str(GROUP)) is None and await REGISTRY.store.load_live() == {}


# ---- /结束 ---------------------------------------------------------------------------------
async def test_end_permissions(app: App) -> None:
    await seat_table(HANDS3)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/结束"))
        expect_group(ctx, "只有开局人、群主、管理员", at=B)
        ctx.receive_event(bot, gmsg(STRANGER, "/结束"))
        expect_group(ctx, "只有开局人", at=STRANGER)
    assert REGISTRY.get(str(GROUP)) is not None
    for user, role in ((A, "member"), (STRANGER, "admin"), (STRANGER, "owner"), (9999, "member")):
        REGISTRY.reset()
        await seat_table(HANDS3)
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(user, "/结束", role=role))
            expect_group(ctx, "牌局已结束", "不计分")
        assert REGISTRY.get(str(GROUP)) is None
        assert REGISTRY.table_of_user(str(B)) is None
        assert await REGISTRY.store.load_live() == {}
        assert await REGISTRY.store.player_stats(str(GROUP), str(A)) == []
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "本群没有牌桌", at=A)


# ---- moves ---------------------------------------------------------------------------------
async def test_every_rejected_move_gets_one_reply_and_changes_nothing(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    before = engine_json(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "过"))
        expect_group(ctx, "首出，不能过", at=A)
        ctx.receive_event(bot, gmsg(B, "出 5"))
        expect_group(ctx, "还没轮到你", at=B)
        ctx.receive_event(bot, gmsg(STRANGER, "出 3"))
        expect_group(ctx, "你不在这桌牌局中", at=STRANGER)
        ctx.receive_event(bot, gmsg(A, "出 KK"))
        expect_group(ctx, "手牌里没有", at=A)
        ctx.receive_event(bot, gmsg(A, "出 34"))
        expect_group(ctx, "不是合法牌型", at=A)
        ctx.receive_event(bot, gmsg(A, "出 1"))
        expect_group(ctx, "“1”不是牌点", at=A)
        ctx.receive_event(bot, gmsg(A, "/出 3x"))
        expect_group(ctx, "“x”不是牌", at=A)
        ctx.receive_event(bot, gmsg(A, "出"))
        expect_group(ctx, "请在“出”后面写牌", at=A)
    assert engine_json(table) == before
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 77"))
        expect_group(ctx, "玩家101 出 ", "对子", "轮到", at=B)
        expect_private(ctx, A, "你的手牌（3 张）")
    after_play = engine_json(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 5"))
        expect_group(ctx, "要跟2张的对子", at=B)
        ctx.receive_event(bot, gmsg(B, "出 ♠A"))
        expect_group(ctx, "要跟2张的对子", at=B)
    assert engine_json(table) == after_play
    # 66 does not beat 77.
    table.engine.turn = 2
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "出 66"))
        expect_group(ctx, "没有大过", at=C)


async def test_bystander_chat_starting_with_chu_is_ignored(app: App) -> None:
    await seat_table(HANDS3)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(STRANGER, "出去吃饭了"))
        ctx.should_not_pass_rule()


async def test_moves_with_prefix_and_pass_words(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/出 ３"))
        expect_group(ctx, "出 ", "单张", at=B)
        expect_private(ctx, A, "手牌（4 张）")
        ctx.receive_event(bot, gmsg(B, "不要"))
        expect_group(ctx, "玩家102 过", at=C)
        ctx.receive_event(bot, gmsg(C, "/过"))
        expect_group(ctx, "玩家103 过", "拿下这一轮", at=A)
    assert table.engine.turn == 0 and table.engine.lead is None
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["engine"] == table.engine.to_json()


async def test_private_failure_is_reported_in_group_and_game_goes_on(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "单张", at=B)
        expect_private(ctx, A, "手牌", fail=True)
        expect_group(ctx, "私聊消息发送失败", "/手牌", at=A, without=("♦", "♠", "♥", "♣"))
    assert table.engine.turn == 1


async def test_game_end_posts_result_and_records_once(app: App) -> None:
    # A (civilian) holds one card and leads; B (spy) and C follow.
    table = await seat_table([cards("3"), [SPADE_A, *cards("5")], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 5"))
        expect_group(ctx, "出 ", at=C, without=("特务：", "是特务"))
        expect_private(ctx, B, "手牌（1 张）")
        ctx.receive_event(bot, gmsg(C, "过"))
        expect_group(ctx, "过", at=A, without=("特务：", "是特务"))
        ctx.receive_event(bot, gmsg(A, "过"))
        expect_group(ctx, "拿下这一轮", at=B, without=("特务：", "是特务"))
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "出完了，第 1 名")
        expect_private(ctx, B, "你的牌已出完")
        expect_group(ctx, "本局结束：特务胜", "特务：玩家102", "积分", "+2", "-1")
    assert REGISTRY.get(str(GROUP)) is None and REGISTRY.table_of_user(str(A)) is None
    assert await REGISTRY.store.load_live() == {}
    [stats] = await REGISTRY.store.player_stats(str(GROUP), str(B))
    assert (stats.games, stats.wins, stats.points) == (1, 1, 2)
    [stats_a] = await REGISTRY.store.player_stats(str(GROUP), str(A))
    assert (stats_a.losses, stats_a.points) == (1, -1)
    del table


# ---- /手牌 /牌桌 /战绩 -----------------------------------------------------------------------
async def test_hand_resend_in_group_and_private(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/手牌"))
        expect_group(ctx, "没有进行中的牌局", at=A)
        ctx.receive_event(bot, pmsg(A, "/手牌"))
        expect_private(ctx, A, "没有进行中的牌局")
    await seat_table(HANDS3)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/手牌"))
        expect_private(ctx, B, "你是特务", "♠A")
        ctx.receive_event(bot, pmsg(A, "/手牌"))
        expect_private(ctx, A, "你是平民", "♠3 ♠4 ♠7♥7 ♠9")
        ctx.receive_event(bot, pmsg(C, "/手牌"))
        expect_private(ctx, C, "手牌", fail=True)
        expect_group(ctx, "私聊消息发送失败", at=C)


async def test_table_view(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/牌桌"))
        expect_group(ctx, "本群没有牌桌", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 四人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌")
        ctx.receive_event(bot, gmsg(B, "/牌桌"))
        expect_group(ctx, "等人入座", "1/4")
    REGISTRY.reset()
    await seat_table(HANDS3, leader=2)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/牌桌"))
        expect_group(ctx, "1. 玩家101", "3. 玩家103", "首出", at=C, without=("特务：", "平民", "是特务"))


async def test_stats_self_and_other(app: App) -> None:
    await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/战绩")
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, Has("还没有战绩"), {"message_id": 1})
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名")
        expect_private(ctx, B, "出完")
        expect_group(ctx, "本局结束")
        event = gmsg(A, "/战绩")
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, Has("的战绩", "抓特务：1 局", "负 1", "胜率 0%", "积分 -1"),
                             {"message_id": 1})
        event = gmsg(A, Message("/战绩 ") + MessageSegment.at(B))
        ctx.receive_event(bot, event)
        ctx.should_call_api("get_group_member_info", {"group_id": GROUP, "user_id": B},
                            {"card": "小B", "nickname": "B"})
        ctx.should_call_send(event, Has("小B 的战绩", "胜 1", "胜率 100%", "积分 +2"),
                             {"message_id": 1})
