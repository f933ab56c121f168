"""nonebug tests for every command of the chat layer, each rejection reply included
(issue: 抓特务 playable in a QQ group). Expected API calls are listed in the order the
plugin must make them; a message is matched by the text it must contain."""

from __future__ import annotations

from chat_support import (
    FRIENDS,
    GROUP,
    HANDS3,
    OTHER_GROUP,
    SPADE_A,
    STRANGER,
    A,
    B,
    C,
    D,
    Has,
    engine_json,
    expect_forward,
    expect_friends,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
    pmsg,
    seat_table,
)
from nonebot.adapters.onebot.v11 import Message, MessageSegment
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.tables import FINISHED, REGISTRY
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules


# ---- /帮助 ---------------------------------------------------------------------------------
async def test_help_lists_commands_and_notation(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/帮助")
        ctx.receive_event(bot, event)
        expect_forward(ctx, "/开局 抓特务", "/加入", "出 778899", "过", "/手牌", "/牌桌",
                       "/战绩", "/结束", "T 或 0", "小王")


# ---- /开局 --------------------------------------------------------------------------------
async def test_open_usage_errors(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局"))
        expect_group(ctx, "用法：/开局", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 斗地主"))
        expect_group(ctx, "没有“斗地主”这个游戏", "抓特务、挖坑、手把一", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 手把一 7人"))
        expect_group(ctx, "2–6 人", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务 五人"))
        expect_group(ctx, "抓特务 3 或 4 人", at=A)
        ctx.receive_event(bot, gmsg(A, "/开局 抓特务"))
        expect_group(ctx, "抓特务 3 或 4 人", at=A)
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
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: 12345)
    expected = ZGame.deal(3, ZRules(), 12345)
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
        expect_group(ctx, "入座", "3/3", "开局", "请各位私聊回复", without=("轮到",))
        for seat, user in enumerate((A, B, C)):
            if expected.roles[seat] == "spy":
                expect_private(ctx, user, "你是特务", "手牌（18 张）", "请选择", "明牌")
            else:
                expect_private(ctx, user, "你是平民", "手牌（18 张）", "请私聊回复 暗")
        ctx.receive_event(bot, gmsg(D, "/加入"))
        expect_group(ctx, "这桌正在打", at=D)
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "牌局进行中，不能退出", at=A)
    table = REGISTRY.get(str(GROUP))
    assert table is not None and table.playing
    assert table.engine.hands == expected.hands
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["engine"]["hands"] == expected.hands


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
            expect_group(ctx, "牌桌已关闭", "不计分")
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
        expect_group(ctx, "没有生效", "私聊", at=A, without=("K",))
        expect_private(ctx, A, "你没有 2 张 K")
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
        expect_group(ctx, "要跟同样的牌型：桌上是对子，你出的是单张", at=B)
        ctx.receive_event(bot, gmsg(B, "出 ♠A"))
        expect_group(ctx, "要跟同样的牌型：桌上是对子，你出的是单张", at=B)
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
        expect_group(ctx, "出完了，第 1 名", "本局结束：特务胜", "特务：玩家102", "积分", "+2", "-1", "/继续")
        # and no private message: the group post says that B has gone out
    assert REGISTRY.get(str(GROUP)) is table and table.status == FINISHED
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["status"] == FINISHED
    [stats] = await REGISTRY.store.player_stats(str(GROUP), str(B))
    assert (stats.games, stats.wins, stats.points) == (1, 1, 2)
    [stats_a] = await REGISTRY.store.player_stats(str(GROUP), str(A))
    assert (stats_a.losses, stats_a.points) == (1, -1)


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
        expect_group(ctx, "本群还没有牌桌", at=A)
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
        expect_reply(ctx, event, Has("还没有战绩"), {"message_id": 1})
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名", "本局结束")
        event = gmsg(A, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("的战绩", "抓特务：1 局", "负 1", "胜率 0%", "积分 -1"),
                             {"message_id": 1})
        event = gmsg(A, Message("/战绩 ") + MessageSegment.at(B))
        ctx.receive_event(bot, event)
        ctx.should_call_api("get_group_member_info", {"group_id": GROUP, "user_id": B},
                            {"card": "小B", "nickname": "B"})
        expect_reply(ctx, event, Has("小B 的战绩", "胜 1", "胜率 100%", "积分 +2"),
                             {"message_id": 1})


# ---- hostile names, stray words, private chat ---------------------------------------------------
async def test_cq_code_in_a_name_stays_text(app: App) -> None:
    from nonebot.adapters.onebot.v11.event import Sender

    event = gmsg(A, "/开局 抓特务 三人")
    event.sender = Sender(user_id=A, nickname="x", card="[CQ:at,qq=all]", role="member")

    class NoAtAll:
        def __eq__(self, other: object) -> bool:
            segs = list(other)  # type: ignore[call-overload]
            return all(s.type == "text" for s in segs) and "［CQ:at,qq=all］" in str(segs[0].data)

    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, event)
        expect_friends(ctx)
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": NoAtAll()}, {"message_id": 1})
    assert REGISTRY.get(str(GROUP)).seats[0].name == "［CQ:at,qq=all］"


async def test_a_hostile_name_is_cleaned_in_stats_as_in_seat_lists(app: App) -> None:
    """A group card with a right-to-left override (U+202E) and 300 characters: /战绩 shows
    it as the seat list does (no control character, at most 20 characters)."""
    from nonebot.adapters.onebot.v11.event import Sender

    card = "\u202e" + "长" * 299
    event = gmsg(A, "/战绩")
    event.sender = Sender(user_id=A, nickname="x", card=card, role="member")
    other = gmsg(B, Message("/战绩 ") + MessageSegment.at(A))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("长" * 20 + " 在本群还没有战绩", without=("\u202e", "长" * 21)),
                             {"message_id": 1})
        ctx.receive_event(bot, other)
        ctx.should_call_api("get_group_member_info", {"group_id": GROUP, "user_id": A},
                            {"card": card, "nickname": "x"})
        expect_reply(ctx, other, Has("长" * 20 + " 在本群还没有战绩", without=("\u202e", "长" * 21)),
                             {"message_id": 2})
        open_event = gmsg(A, "/开局 抓特务 三人")
        open_event.sender = event.sender
        ctx.receive_event(bot, open_event)
        expect_friends(ctx)
        expect_group(ctx, "长" * 20 + " 开了一桌", without=("\u202e", "长" * 21))


async def test_open_without_spaces_and_full_width(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/开局抓特务三人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌抓特务（3 人）")
    await REGISTRY.close(REGISTRY.get(str(GROUP)))  # gone (also from the database)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/开局 抓特务 ４人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌抓特务（4 人）")


async def test_bystander_pass_words_are_ignored(app: App) -> None:
    await seat_table(HANDS3)
    for text in ("过", "不要"):
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(STRANGER, text))
            ctx.should_not_pass_rule()


async def test_refusals_name_the_bad_part(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    before = engine_json(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 ♠3♠3"))
        expect_group(ctx, "♠3 写了两次", at=A)
        ctx.receive_event(bot, gmsg(A, "出 333 三张"))
        expect_group(ctx, "没有生效", at=A, without=("你没有",))
        expect_private(ctx, A, "你没有 3 张 3")
        ctx.receive_event(bot, gmsg(A, "出 ♦7"))
        expect_group(ctx, "没有生效", at=A, without=("♦7",))
        expect_private(ctx, A, "你没有 ♦7")
        ctx.receive_event(bot, gmsg(A, "出 7，7"))
        expect_group(ctx, "对子", at=B)
        expect_private(ctx, A, "手牌")
    assert engine_json(table) != before and len(table.engine.log) == 1


async def test_group_commands_in_private_chat_are_explained(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for text in ("/开局 抓特务 三人", "/战绩", "/结束"):
            ctx.receive_event(bot, pmsg(A, text))
            expect_private(ctx, A, "请在群里发送")
        ctx.receive_event(bot, pmsg(A, "出 33"))
        expect_private(ctx, A, "出牌、过和叫分请在群里发送")


async def test_every_alias_of_a_group_command_is_explained_privately(app: App) -> None:
    """The words a command declares (its aliases too) are the ones explained in private
    chat: ``/排名`` is ``/排行``, ``/复盘`` is ``/对局``; ``/记牌器`` works privately."""
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for text in ("/排名", "/复盘", "/对局记录", "/下一局"):
            ctx.receive_event(bot, pmsg(A, text))
            expect_private(ctx, A, "这个命令请在群里发送")
        ctx.receive_event(bot, pmsg(A, "/记牌器"))
        expect_private(ctx, A, "没有进行中的牌局")


async def test_stats_by_qq_number(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/战绩 1234567")
        ctx.receive_event(bot, event)
        ctx.should_call_api("get_group_member_info", {"group_id": GROUP, "user_id": 1234567},
                            {"card": "", "nickname": "路人"})
        expect_reply(ctx, event, Has("路人 在本群还没有战绩"), {"message_id": 1})


async def test_resumed_games_are_reposted_when_the_bot_connects(app: App) -> None:
    from nonebot_plugin_paizhuo.actions import announce

    await seat_table(HANDS3, leader=2)
    REGISTRY.reset()
    await REGISTRY.restore()
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        expect_group(ctx, "机器人已重启，牌局继续", "轮到", at=C)
        await announce.announce_resumed(bot)
    assert REGISTRY.resumed == set()
