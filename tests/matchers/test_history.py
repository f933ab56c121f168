"""/排行, /战绩 (history), /对局 and the command namespace through the real NoneBot pipeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chat_support import (
    GROUP,
    Has,
    details_pointer,
    expect_details,
    expect_group,
    expect_reply,
    gmsg,
    make_bot,
)
from history_support import dealt_table, finish, last_play
from nonebot.adapters.onebot.v11 import ActionFailed
from nonebug import App

from nonebot_plugin_paizhuo.tables import REGISTRY
from paizhuo_db.history import CHINA_TZ as CHINA

MEMBERS = [{"user_id": 101, "card": "阿甲", "nickname": "a"},
           {"user_id": 102, "card": "", "nickname": "老乙"}]


async def test_board_defaults_to_the_most_played_game_and_names_members(app: App) -> None:
    for _ in range(3):
        await finish([(101, "win", 2), (102, "loss", -1), (103, "loss", -1)])
    await finish([(104, "win", 9)], game="挖坑")
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(102, "/排行"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, MEMBERS)
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "【抓特务排行·总榜】", "1. 阿甲 +6（3 局，胜率 100%）", "2. 老乙 -3（3 局，胜率 0%）",
            "3. 103 -3")}, {"message_id": 1})


async def test_board_and_games_clean_names_as_seat_lists_do(app: App) -> None:
    """A group card with a right-to-left override and 300 characters is shown on /排行
    and /对局 as in a seat list: without the override, at most 20 characters."""
    card = "\u202e" + "长" * 299
    await REGISTRY.require_store().set_settings(str(GROUP), "抓特务", {"board_min_games": 1})
    await finish([(101, "win", 2), (102, "loss", -2)])
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for command, shown in (("/排行", "1. " + "长" * 20 + " +2"), ("/对局", "胜：" + "长" * 20)):
            ctx.receive_event(bot, gmsg(102, command))
            ctx.should_call_api("get_group_member_list", {"group_id": GROUP},
                                [{"user_id": 101, "card": card, "nickname": "a"}])
            ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
                shown, without=("\u202e", "长" * 21))}, {"message_id": 1})


async def test_board_period_game_minimum_and_failed_member_list(app: App) -> None:
    old = datetime.now(UTC) - timedelta(days=40)
    await finish([(101, "win", 6), (102, "loss", -6)], game="挖坑", ended=old)
    await finish([(102, "win", 2), (103, "loss", -2)], game="挖坑")
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(101, "/排行 本月 挖坑"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, None,
                            exception=ActionFailed(status="failed", retcode=1200))
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "【挖坑排行·本月】", "至少 3 局上榜", "还没有人上榜", "你在这段时间还没有打过")},
            {"message_id": 1})
        event = gmsg(102, "/设置 挖坑 上榜局数 1", role="admin")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("上榜局数 已设为 1"), {"message_id": 2})
        ctx.receive_event(bot, gmsg(101, "/排行 挖坑 本月"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "1. 102 +2", "2. 103 -2", "你在这段时间还没有打过", without=("101",))},
            {"message_id": 3})
        ctx.receive_event(bot, gmsg(101, "/排行 挖坑 总"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "1. 101 +6", "2. 103 -2", "3. 102 -4")}, {"message_id": 4})


async def test_board_refuses_unknown_words_and_empty_groups(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(101, "/排行"))
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "还没有打完的牌局", at=101)}, {"message_id": 1})
        ctx.receive_event(bot, gmsg(101, "/排行 斗地主"))
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "用法：/排行 [游戏] [本周|本月|总]", at=101)}, {"message_id": 2})


async def test_board_shows_the_caller_below_the_top_ten(app: App) -> None:
    await REGISTRY.require_store().set_settings(str(GROUP), "抓特务", {"board_min_games": 1})
    for i in range(12):
        await finish([(200 + i, "win", 20 - i), (300, "loss", -(20 - i))])
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(211, "/排行"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(
            "1. 200 +20", "10. 209 +11", "共 13 人上榜", "你：12. 211 +9", without=("210",))},
            {"message_id": 1})


async def test_stats_lists_recent_games_streak_best_and_worst(app: App) -> None:
    t0 = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)
    for i, (r, p) in enumerate([("loss", -4), ("win", 6), ("win", 1)]):
        await finish([(101, r, p), (102, "draw", 0)], ended=t0 + timedelta(minutes=i))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(101, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has(
            "抓特务：3 局，胜 2 平 0 负 1", "当前：2 连胜", "最好一局：第 2 局 抓特务 +6",
            "最差一局：第 1 局 抓特务 -4", "最近 3 局：", "第 3 局 11-30 12:02 抓特务 平民 第1名 胜 +1",
            "第 1 局 11-30 12:00 抓特务 平民 第1名 负 -4"), {"message_id": 1})


# ---- game records and replays ------------------------------------------------------------------
async def test_end_message_numbers_the_game_and_the_replay_shows_it(app: App) -> None:
    from chat_support import expect_forward, expect_group

    await finish([(101, "win", 1)])  # an older record: 第 1 局, saved without a replay
    table, last = dealt_table("挖坑", 11, 1)
    await REGISTRY.save(table)
    user, command = last_play(table, last)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, command))
        # One post: the last move, the end message and where the details are.
        expect_group(ctx, "出完", "本局结束", "/继续", details_pointer(2))
        ctx.receive_event(bot, gmsg(102, "/对局"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_group(ctx, "【本群最近的对局】", "第 2 局", "挖坑 3 人，胜：", "第 1 局")
        ctx.receive_event(bot, gmsg(102, "/对局 2"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_forward(ctx, "【第 2 局】挖坑 3 人", "座次：1.玩家101 2.玩家102 3.玩家103", "规则：默认",
                     "发牌：", "挖坑者", "农民", "底牌：", "叫 3 分", "扣底：", "第 1 轮：",
                     f"玩家{user} {command[2:]}", "本局结束")
        ctx.receive_event(bot, gmsg(102, "/对局 第1局"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_forward(ctx, "【第 1 局】抓特务", "没有保存发牌和出牌", "101 平民 第1名 胜 +1",
                       fail=True)  # the OneBot implementation has no forward messages
        expect_group(ctx, "【第 1 局】抓特务", "没有保存发牌和出牌", "101 平民 第1名 胜 +1")
        ctx.receive_event(bot, gmsg(102, "/对局 9"))
        expect_group(ctx, "本群没有第 9 局", at=102)
        ctx.receive_event(bot, gmsg(102, "/对局 最好的那局"))
        expect_group(ctx, "用法：/对局", at=102)


async def test_a_game_closed_with_end_is_kept_as_a_void_record(app: App) -> None:
    from chat_support import A, expect_forward, expect_group

    table, _ = dealt_table("挖坑", 5, 6)
    await REGISTRY.save(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "牌桌已关闭", "本局不计分", "记为第 1 局（作废）")
        ctx.receive_event(bot, gmsg(A, "/对局 1"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_forward(ctx, "【第 1 局】挖坑 3 人", "作废", "发牌：", "第 1 轮：", "结果：作废，不计分。")
    assert await REGISTRY.require_store().player_stats(str(GROUP), str(A)) == []
    assert await REGISTRY.require_store().load_live() == {}


# ---- living beside other plugins: /牌桌 <命令> and bare command words ---------------------------
async def test_every_command_works_under_the_namespace(app: App) -> None:
    from chat_support import A, expect_forward, expect_friends, expect_group, expect_private, pmsg

    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/牌桌 帮助"))
        expect_forward(ctx, "【牌桌 bot】")
        ctx.receive_event(bot, gmsg(A, "/牌桌"))
        expect_group(ctx, "本群还没有牌桌", at=A)
        ctx.receive_event(bot, gmsg(A, "/牌桌 开局 抓特务 三人"))
        expect_friends(ctx)
        expect_group(ctx, "开了一桌抓特务（3 人）")
        ctx.receive_event(bot, gmsg(A, "/牌桌 牌桌"))
        expect_group(ctx, "等人入座", "1/3")
        ctx.receive_event(bot, gmsg(A, "/牌桌 对局"))
        expect_group(ctx, "本群还没有对局记录")
        ctx.receive_event(bot, pmsg(A, "/牌桌 手牌"))
        expect_private(ctx, A, "没有进行中的牌局")
        ctx.receive_event(bot, pmsg(A, "/牌桌 开局 抓特务"))
        expect_private(ctx, A, "这个命令请在群里发送")


async def test_bare_words_left_to_other_plugins(app: App) -> None:
    import nonebot
    from chat_support import A, expect_forward, expect_group
    from nonebot import on_command

    from nonebot_plugin_paizhuo.config import reset_plugin_config

    config = nonebot.get_driver().config
    config.paizhuo_bare_commands = "all, -帮助 -help，-结束"
    reset_plugin_config()
    other_help = on_command("帮助", aliases={"help"}, priority=20, block=True)

    @other_help.handle()
    async def _() -> None:
        await other_help.finish("别的插件的帮助")

    try:
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            for text in ("/帮助", "/help"):
                event = gmsg(A, text)
                ctx.receive_event(bot, event)
                ctx.should_call_send(event, "别的插件的帮助", {"message_id": 1})
            ctx.receive_event(bot, gmsg(A, "/牌桌 帮助"))
            expect_forward(ctx, "【牌桌 bot】")
            ctx.receive_event(bot, gmsg(A, "/结束"))  # nobody answers it here
            ctx.receive_event(bot, gmsg(A, "/牌桌 结束"))
            expect_group(ctx, "本群没有牌桌", at=A)
            ctx.receive_event(bot, gmsg(A, "/排行"))  # still answered bare
            expect_group(ctx, "还没有打完的牌局", at=A)
        config.paizhuo_bare_commands = "none"
        reset_plugin_config()
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "/排行"))
            ctx.receive_event(bot, gmsg(A, "/牌桌"))  # the namespace itself always answers
            expect_group(ctx, "本群还没有牌桌", at=A)
    finally:
        config.paizhuo_bare_commands = "all"
        reset_plugin_config()
        other_help.destroy()


async def test_long_texts_go_as_forward_messages_with_a_plain_fallback(app: App) -> None:
    from chat_support import A, expect_forward, expect_private, pmsg

    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/帮助"))
        expect_forward(ctx, "【牌桌 bot】", fail=True)
        expect_group(ctx, "【牌桌 bot】", "/开局 抓特务", "机器人要私聊发牌")
        ctx.receive_event(bot, pmsg(A, "/帮助"))
        expect_forward(ctx, "【牌桌 bot】", user=A)
        ctx.receive_event(bot, pmsg(A, "/help"))
        expect_forward(ctx, "【牌桌 bot】", user=A, fail=True)
        expect_private(ctx, A, "【牌桌 bot】", "记牌")
        # Forwards failed in two conversations: the account sends them as text for a
        # while, at once, without trying.
        ctx.receive_event(bot, gmsg(A, "/规则 挖坑"))
        expect_group(ctx, "【挖坑】本群规则", "挖坑规则：标准", "上榜局数：3")


async def test_end_details_fall_back_to_plain_text_when_forward_fails(app: App) -> None:
    """The end message of the last move's post points to ``/对局 N``, no card of its own;
    ``/对局 N`` answers with the details (every hand as dealt with its role, the dealer,
    the spy cards) as one merged-forward message, and an implementation without forward
    messages (retcode 1200) gets the same text as a plain group message."""

    table, last = dealt_table("抓特务", 4, 1)
    await REGISTRY.save(table)
    user, command = last_play(table, last)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, command))
        expect_group(ctx, "本局结束", details_pointer(1))
        expect_details(ctx, bot, 1, "1.玩家101（", "庄家：", "特务牌：", "本局结束", fail=True)
    assert REGISTRY.get(str(GROUP)) is table and not table.playing


# ---- games with computer seats ---------------------------------------------------------------
async def test_a_game_with_a_computer_seat_is_listed_replayed_and_scored_alike(app: App) -> None:
    """Every seat is in the record: the list names the computer among the winners (the
    person who lost is not shown a draw), ``/对局 1`` (the end message offers it) and the
    older ``/对局 1 查看复盘`` both answer with all three seats, and ``/战绩`` says the same 负."""
    from chat_support import A, B, expect_forward

    table, last = dealt_table("挖坑", 16, 1, computers=1)  # 玩家101 loses, 玩家102 and 电脑1 win
    await REGISTRY.save(table)
    user, command = last_play(table, last)
    assert user == B and last.result["results"] == ["loss", "win", "win"]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, command))
        expect_group(ctx, "本局结束", details_pointer(1), "/继续")
        ctx.receive_event(bot, gmsg(A, "/对局"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_group(ctx, "第 1 局", "挖坑 3 人（电脑 1），胜：玩家102、电脑1", without=("平局",))
        for asked in ("/对局 1", "/对局 1 查看复盘", "/对局 第1局 复盘"):
            ctx.receive_event(bot, gmsg(A, asked))
            ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
            expect_forward(ctx, "【第 1 局】挖坑 3 人", "座次：1.玩家101 2.玩家102 3.电脑1",
                           "发牌：", "3.电脑1", "过程：", "本局结束", "电脑1 胜")
        event = gmsg(A, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("挖坑：1 局，胜 0 平 0 负 1", "第 1 局", "挖坑者 负 -6"),
                             {"message_id": 1})


def _old_record(seats: list[tuple[str, str]], seed: int, number: int):
    """A 挖坑 game played to its end by the engine, recorded the way records were written
    before every seat was kept: person seats as player rows, computer seats only as
    ``computer_seats`` beside the names and the replay."""
    import random

    from history_support import play_out

    from nonebot_plugin_paizhuo.games import GAMES
    from nonebot_plugin_paizhuo.games.base import SeatView
    from nonebot_plugin_paizhuo.replay import capture
    from paizhuo_db import FinishedGame

    adapter = GAMES["挖坑"]
    views = [SeatView(u, n) for u, n in seats]
    game = adapter.new_game(3, adapter.schema.clean({}), seed, None)
    play_out(adapter, game, views, random.Random(seed))
    ended = datetime.now(UTC) - timedelta(minutes=10 - number)
    record: FinishedGame = adapter.record(game, views, uid=f"old-{number}", group_id=str(GROUP),
                                          started_at=ended - timedelta(minutes=5), ended_at=ended)
    record.summary.update(names=[n for _, n in seats], replay=capture(game),
                          computer_seats=[i + 1 for i, (u, _) in enumerate(seats) if u.startswith("ai:")])
    record.players = [p for p in record.players if not p.user_id.startswith("ai:")]
    return record, game


async def test_records_written_before_every_seat_was_kept_are_answered(app: App) -> None:
    """Older records know computer seats only from ``computer_seats``: the list counts
    every seat (a game of computers alone is no ``0 人，平局``) and ``/对局 N`` answers."""
    from chat_support import A, expect_forward

    store = REGISTRY.require_store()
    alone, alone_game = _old_record([("ai:1", "电脑1"), ("ai:2", "电脑2"), ("ai:3", "电脑3")], 3, 1)
    mixed, mixed_game = _old_record([(str(A), "玩家101"), ("ai:1", "电脑1"), ("ai:2", "电脑2")], 16, 2)
    for record in (alone, mixed):
        await store.finish_game(record)
    winners = ["、".join(f"电脑{s}" for s in range(1, 4) if g.result["results"][s - 1] == "win")
               for g in (alone_game,)]
    mine = mixed_game.result["results"][0]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/对局"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        expect_group(ctx, f"第 1 局 {alone.ended_at.astimezone(CHINA).strftime('%m-%d %H:%M')} "
                          f"挖坑 3 人（电脑 3），胜：{winners[0]}",
                     "第 2 局", "挖坑 3 人（电脑 2），胜：", without=("0 人", "1 人", "平局"))
        for number in (1, 2):
            ctx.receive_event(bot, gmsg(A, f"/对局 {number}"))
            ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
            expect_forward(ctx, f"【第 {number} 局】挖坑 3 人", "3.电脑", "发牌：", "本局结束")
        event = gmsg(A, "/战绩")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("挖坑：1 局", "第 2 局", {"win": "胜", "loss": "负"}[mine]),
                             {"message_id": 1})
