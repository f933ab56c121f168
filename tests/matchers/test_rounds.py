"""nonebug tests of house rules (/规则, /设置), consecutive games (/继续), tribute returns
(还, Z-8), declaring (明/明牌/暗, Z-9), private-answer deadlines, and that no group
message reveals a hidden spy."""

from __future__ import annotations

from datetime import timedelta

from chat_support import (
    GROUP,
    SPADE_A,
    STRANGER,
    A,
    B,
    C,
    Has,
    expect_forward,
    expect_group,
    expect_private,
    expect_reply,
    gmsg,
    make_bot,
    pmsg,
    seat_table,
)
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY, now_utc
from paizhuo_engine.cards import format_cards
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

SEED = 4242


# ---- /规则 /设置 ---------------------------------------------------------------------------
async def test_rules_lists_every_setting(app: App) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/规则")
        ctx.receive_event(bot, event)
        expect_forward(ctx, "本群规则", "特务牌：双黑", "带3：关", "大小王成对：关",
                                        "连牌规则：a（a/b/c）", "连对最少：2", "首出：红桃3",
                                        "后续首出：上局头游", "报牌张数：1", "显示张数：关",
                                        "独头规则：a", "明特务：开", "明牌：开", "私聊限时：45")
        event = gmsg(A, "/规则 手把一")
        ctx.receive_event(bot, event)
        expect_forward(ctx, "【手把一】", "大小王：开", "把一必拦：开", "包赔：开", "打到底：关",
                       "人数上限：6", "两人藏牌最少：10")


async def test_set_permissions_and_validation(app: App) -> None:
    store = REGISTRY.store
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for user, role, text, want in [
            (A, "member", "/设置 抓特务 连牌规则 b", "只有群主、管理员"),
            (A, "admin", "/设置 抓特务 连牌 b", "可设置：特务牌、带3"),
            (A, "admin", "/设置 抓特务 连牌规则 d", "可选：a / b / c"),
            (A, "admin", "/设置 抓特务 报牌张数 9", "可选：0–5"),
            (A, "admin", "/设置 斗地主 连牌规则 b", "用法：/设置"),
            (A, "admin", "/设置", "用法"),
            (A, "admin", "/设置 抓特务 连牌规则", "用法"),
        ]:
            event = gmsg(user, text, role=role)
            ctx.receive_event(bot, event)
            expect_reply(ctx, event, Has(want), {"message_id": 1})
    assert await store.get_settings(str(GROUP), "抓特务") == {}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        for user, role, text, want in [
            (A, "admin", "/设置 抓特务 连牌规则 B", "连牌规则 已设为 b"),
            (B, "owner", "/设置 抓特务 带3 开", "带3 已设为 开"),
            (9999, "member", "/设置 抓特务 特务牌 黑KA", "特务牌 已设为 黑KA"),
            (A, "admin", "/设置 抓特务 私聊限时 20", "已设为 20"),
        ]:
            event = gmsg(user, text, role=role)
            ctx.receive_event(bot, event)
            expect_reply(ctx, event, Has(want, "下一局生效"), {"message_id": 1})
    assert await store.get_settings(str(GROUP), "抓特务") == {
        "chain_ends": "b", "three_high": True, "spy_cards": "黑KA", "prompt_seconds": 20}
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        event = gmsg(A, "/规则 抓特务")
        ctx.receive_event(bot, event)
        expect_forward(ctx, "连牌规则：b（a/b/c，已改）", "带3：开（开/关，已改）")
        event = gmsg(A, "/设置 抓特务 默认", role="admin")
        ctx.receive_event(bot, event)
        expect_reply(ctx, event, Has("恢复默认"), {"message_id": 1})
    assert await store.get_settings(str(GROUP), "抓特务") == {}


async def test_setting_applies_from_the_next_game(app: App, monkeypatch) -> None:
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: SEED)
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    await REGISTRY.store.set_settings(str(GROUP), "抓特务", {"chain_ends": "c", "allow_open_hand": False})
    assert table.engine.rules.chain_ends == "a"  # the game in play keeps its rules
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名", "本局结束：特务胜", "/继续")
        ctx.receive_event(bot, gmsg(A, "/继续"))
        expect_group(ctx, "准备好了（1/3）", "等 /继续：玩家102、玩家103")
        ctx.receive_event(bot, gmsg(A, "/继续"))
        expect_group(ctx, "准备好了（1/3）")
        ctx.receive_event(bot, gmsg(STRANGER, "/继续"))
        expect_group(ctx, "你不在本群的牌桌上", at=STRANGER)
        ctx.receive_event(bot, gmsg(B, "/继续"))
        expect_group(ctx, "准备好了（2/3）")
        ctx.receive_event(bot, gmsg(C, "/继续"))
        expect_group(ctx, "开局", "进贡：玩家101 → 玩家102 1 张", "进贡：玩家103 → 玩家102 1 张", "等待还贡")
        for _ in range(3):
            ctx.should_call_api("send_private_msg", {"user_id": Has_any(), "message": Has("手牌")},
                                {"message_id": 1})
    assert table.status == PLAYING and table.games == 1
    assert table.engine.rules.chain_ends == "c" and not table.engine.rules.allow_open_hand
    assert table.engine.phase == "tribute" and [e["receiver"] for e in table.engine.exchanges] == [1, 1]
    assert table.deadline is not None


class Has_any:  # noqa: N801 - reads like a matcher
    """Equals anything (a field whose value the test does not pin)."""

    def __eq__(self, other: object) -> bool:
        return True


# ---- tribute returns and declaring ------------------------------------------------------------
async def finished_then_next(app: App, monkeypatch, rules: dict | None = None) -> ZGame:
    """A finished 3-player game (seat 1, the spy, out first) and the next one dealt with
    ``SEED``; returns the engine game the table now plays."""
    monkeypatch.setattr("nonebot_plugin_paizhuo.actions.seating.secrets.randbits", lambda _n: SEED)
    if rules:
        await REGISTRY.store.set_settings(str(GROUP), "抓特务", rules)
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名", "本局结束")
        for user in (A, B):
            ctx.receive_event(bot, gmsg(user, "/继续"))
            expect_group(ctx, "准备好了")
        ctx.receive_event(bot, gmsg(C, "/继续"))
        expect_group(ctx, "开局")
        for user in (A, B, C):
            expect_private(ctx, user, "手牌")
    return table.engine


async def test_tribute_returns_by_private_message(app: App, monkeypatch) -> None:
    game = await finished_then_next(app, monkeypatch)
    expected = ZGame.deal(3, ZRules(), SEED, previous={"roles": ["civilian", "spy", "civilian"],
                                                       "out": [1], "outcome": "spy", "stakes": [1, 1, 1]})
    assert game.hands == expected.hands
    allowed = game.tribute_allowed(1)
    lowest, aces = allowed[-1], [c for c in game.hands[1] if c // 4 == 11]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(A, "还 3"))
        expect_private(ctx, A, "你现在不需要还贡")
        ctx.receive_event(bot, pmsg(B, "还 1"))
        expect_private(ctx, B, "“1”不是牌点")
        ctx.receive_event(bot, pmsg(B, "还 " + format_cards(allowed[-2:])))
        expect_private(ctx, B, "要还 1 张牌")
        if aces:
            ctx.receive_event(bot, pmsg(B, "还 A"))
            expect_private(ctx, B, "不能还 A")
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "还没开始出牌", at=A)
        ctx.receive_event(bot, pmsg(B, "还 " + format_cards([lowest])))
        expect_private(ctx, B, "你已还给 玩家101", "请还给 玩家103")
        expect_private(ctx, A, "玩家102 还给你")
        expect_group(ctx, "玩家102 已还贡给 玩家101", without=(format_cards([lowest]),))
    assert lowest in game.hands[0] and game.phase == "tribute"


async def test_tribute_deadline_returns_lowest_then_declaring(app: App, monkeypatch) -> None:
    game = await finished_then_next(app, monkeypatch)
    table = REGISTRY.get(str(GROUP))
    lowest = game.tribute_allowed(1)[-1]
    spy = game.spies()[0]
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        # One message per recipient, in the order each first appears.
        expect_private(ctx, B, "超时自动", "你已还给 玩家103", "请选择" if spy == 1 else "请私聊回复 暗")
        expect_private(ctx, A, "还给你", "请选择" if spy == 0 else "请私聊回复 暗")
        expect_group(ctx, "已还贡给 玩家101（超时自动）", "已还贡给 玩家103（超时自动）",
                     "请各位私聊回复", without=("是特务",))
        expect_private(ctx, C, "还给你", "请选择" if spy == 2 else "请私聊回复 暗")
        table.deadline = now_utc() - timedelta(seconds=1)
        deadlines.schedule(table)
        await REGISTRY.get(str(GROUP)).timer
    assert lowest in game.hands[0] and game.phase == "declare"
    assert table.deadline is not None and table.deadline > now_utc()


async def test_declare_open_hand_and_hidden(app: App, monkeypatch) -> None:
    game = await finished_then_next(app, monkeypatch, {"prompt_seconds": 10})
    table = REGISTRY.get(str(GROUP))
    game.tribute_timeout()
    spy = game.spies()[0]
    users = (A, B, C)
    civilian, other = (u for s, u in enumerate(users) if s != spy)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(civilian, "明"))
        expect_private(ctx, civilian, "你是平民，没有明/暗可选")
        ctx.receive_event(bot, pmsg(STRANGER, "暗"))
        expect_private(ctx, STRANGER, "没有需要回复")
        ctx.receive_event(bot, pmsg(civilian, "暗"))
        expect_private(ctx, civilian, "收到")
        ctx.receive_event(bot, pmsg(civilian, "暗"))  # answered already
        expect_private(ctx, civilian, "现在不需要你选择明/暗")
        ctx.receive_event(bot, pmsg(users[spy], "明牌"))
        expect_private(ctx, users[spy], "你选择了：明牌")
        ctx.receive_event(bot, pmsg(other, "暗"))
        expect_private(ctx, other, "收到")
        expect_group(ctx, f"玩家{users[spy]} 是特务，明牌！手牌：", "轮到")
    assert game.phase == "play" and game.stakes[spy] == 4
    # Now the turn timer runs: 60 s (出牌限时 default) with a reminder 15 s before.
    assert 55 < (table.deadline - now_utc()).total_seconds() <= 60
    assert (table.deadline - table.remind_at).total_seconds() == 15


async def test_hidden_spy_never_named_in_group_before_the_end(app: App, monkeypatch) -> None:
    """Z-9: while the spy stays hidden, group messages name no role."""
    game = await finished_then_next(app, monkeypatch)
    game.tribute_timeout()
    spy = game.spies()[0]
    users = (A, B, C)
    forbidden = ("是特务", "特务：", "平民")
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(users[spy], "暗"))
        expect_private(ctx, users[spy], "暗特务")
        for civilian in (u for s, u in enumerate(users) if s != spy):
            ctx.receive_event(bot, pmsg(civilian, "暗"))
            expect_private(ctx, civilian, "收到")
        expect_group(ctx, "轮到", without=forbidden)
        ctx.receive_event(bot, gmsg(users[game.turn], "过"))
        expect_group(ctx, "首出，不能过", without=forbidden)
        ctx.receive_event(bot, gmsg(users[(game.turn + 1) % 3], "过"))
        expect_group(ctx, "还没轮到你", without=forbidden)
        ctx.receive_event(bot, gmsg(A, "/牌桌"))
        expect_group(ctx, "轮到", without=forbidden + ("明",))
    assert REGISTRY.get(str(GROUP)).status == PLAYING


async def test_leave_between_games_frees_only_that_seat(app: App) -> None:
    """Between games /退出 frees one seat; the table closes only when the last one leaves."""
    table = await seat_table([cards("3"), [SPADE_A], cards("4")], leader=1)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/继续"))
        expect_group(ctx, "不用 /继续", at=A)
        ctx.receive_event(bot, gmsg(B, "出 A"))
        expect_group(ctx, "第 1 名", "本局结束")
    assert table.status == FINISHED
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(C, "/退出"))
        expect_group(ctx, "玩家103 退出", "还差 1 人", "/加入", without=("关闭",))
        ctx.receive_event(bot, gmsg(A, "/退出"))
        expect_group(ctx, "玩家101 退出", "还差 2 人", without=("关闭",))
    assert REGISTRY.get(str(GROUP)) is table and table.opener == str(B)
    assert [s.user_id for s in table.seats] == [str(B)]
    assert REGISTRY.table_of_user(str(A)) is None and REGISTRY.table_of_user(str(C)) is None
    saved = await REGISTRY.store.load_live()
    assert [u for u, _ in saved[str(GROUP)][1]["seats"]] == [str(B)]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/退出"))
        expect_group(ctx, "玩家102 退出，牌桌已关闭")
    assert REGISTRY.get(str(GROUP)) is None
    assert await REGISTRY.store.load_live() == {}
    [stats] = await REGISTRY.store.player_stats(str(GROUP), str(B))
    assert stats.games == 1


async def test_z6_show_counts_setting(app: App) -> None:
    """Z-6 显示张数 on: every move shows each active player's card count."""
    await seat_table([cards("3 4 5"), [SPADE_A, *cards("7 8")], cards("9 10")], leader=0,
                     rules=ZRules(show_counts=True))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "张数：玩家101 2，玩家102 3，玩家103 2", at=B)
        expect_private(ctx, A, "手牌（2 张）")
    REGISTRY.reset()
    await seat_table([cards("3 4 5"), [SPADE_A, *cards("7 8")], cards("9 10")], leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "出 ", at=B, without=("张数",))
        expect_private(ctx, A, "手牌（2 张）")
