"""nonebug tests of hidden information and warnings (RULES.md G-4): 抓特务 answers to the
明/暗 question revealed together (Z-9), failure notices that name no hidden role,
hand-dependent refusals told only to the player, prompts that warn before a trap (S-4
把一必拦 / 包赔, W-3/W-6 bury), who leads first (Z-5, W-5, W-7, S-4), and /结束 showing
everything of a void game."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from chat_support import (
    GROUP,
    HANDS3,
    SPADE_A,
    A,
    B,
    C,
    D,
    Has,
    expect_group,
    expect_private,
    gmsg,
    make_bot,
    pmsg,
    seat_table,
)
from nonebot.adapters.onebot.v11 import Message
from nonebug import App
from support import card, cards

from nonebot_plugin_paizhuo.games import find_game
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.cards import R5, R10, RK, card_name, rank_of
from paizhuo_engine.errors import MoveError
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

USERS = (A, B, C, D)
pytestmark = pytest.mark.usefixtures("unexpected_calls_fail")
"""A call that does not match what a test expects fails the test (conftest)."""


class Anonymous(Has):
    """A group message with every part, no @-mention and no player's name."""

    def __eq__(self, other: object) -> bool:
        msg = other if isinstance(other, Message) else Message(other)  # type: ignore[arg-type]
        return (super().__eq__(other) and not any(seg.type == "at" for seg in msg)
                and "玩家" not in msg.extract_plain_text())


def seats(n: int) -> list[SeatView]:
    return [SeatView(str(u), f"玩家{u}") for u in USERS[:n]]


async def table_for(game_name: str, engine, n: int) -> Table:
    table = Table(group_id=str(GROUP), game=game_name, size=n, opener=str(A), seats=seats(n),
                  settings={}, created_at=now_utc(), started_at=now_utc(), uid="hidden-test",
                  engine=engine, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


def declaring(players: int, spies: int) -> ZGame:
    """A first game of 抓特务 in its declare phase with ``spies`` spy seats, dealt as the
    chat deals it (every seat answers, G-4)."""
    for seed in range(500):
        game = ZGame.deal(players, ZRules(), seed, everyone_answers=True)
        if game.phase == "declare" and len(game.spies()) == spies:
            return game
    raise AssertionError("no such deal")


def state(table: Table) -> str:
    return json.dumps(table.engine.to_json(), sort_keys=True)


# ---- A: Z-9 answers revealed together (G-4) -------------------------------------------------
async def test_g4_z9_first_spy_answer_is_invisible_until_both_answered(app: App) -> None:
    game = declaring(4, 2)
    await table_for("抓特务", game, 4)
    first, second = game.spies()
    civilian, other = (s for s in range(4) if s not in (first, second))
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(USERS[first], "明牌"))
        expect_private(ctx, USERS[first], "你选择了：明牌", "等大家都回复了就开始")
        ctx.receive_event(bot, gmsg(USERS[civilian], "/牌桌"))
        expect_group(ctx, "等待各位私聊回复", without=("明牌特务", "明特务", "手牌："))
        ctx.receive_event(bot, pmsg(USERS[second], "/手牌"))
        expect_private(ctx, USERS[second], "另一名特务是谁，你并不知道", "请选择")
        ctx.receive_event(bot, pmsg(USERS[civilian], "/手牌"))
        expect_private(ctx, USERS[civilian], "你是平民", "回复 暗")
        ctx.receive_event(bot, pmsg(USERS[civilian], "明"))  # a civilian has nothing to declare
        expect_private(ctx, USERS[civilian], "你是平民，没有明/暗可选")
        ctx.receive_event(bot, pmsg(USERS[second], "暗"))
        expect_private(ctx, USERS[second], "你选择了：暗特务", "等大家都回复了就开始")
        ctx.receive_event(bot, pmsg(USERS[civilian], "暗"))
        expect_private(ctx, USERS[civilian], "收到。等大家都回复了就开始。")
        # the last answer, a civilian's, starts the game: every spy answered long before
        ctx.receive_event(bot, pmsg(USERS[other], "暗"))
        expect_private(ctx, USERS[other], "收到。")
        expect_group(ctx, f"玩家{USERS[first]} 是特务，明牌！手牌：", "轮到")
        ctx.receive_event(bot, pmsg(USERS[second], "/手牌"))
        expect_private(ctx, USERS[second], "另一名特务已亮明身份")
    assert game.phase == "play" and game.open_seats() == [first]


def test_g4_z9_engine_shows_no_declaration_before_all_answered() -> None:
    game = declaring(4, 2)
    first, second = game.spies()
    game.declare(first, "明")
    assert game.phase == "declare"
    assert game.declared_spies() == [] and game.open_seats() == []
    game.declare(second, "明牌")
    assert game.phase == "declare" and game.declared_spies() == []  # the civilians still answer
    for civilian in game.awaiting_answer():
        game.declare(civilian, "暗")
    assert game.declared_spies() == [first, second] and game.open_seats() == [second]


async def test_g4_failed_spy_confirmation_names_nobody_3p(app: App) -> None:
    game = declaring(3, 1)
    await table_for("抓特务", game, 3)
    [spy] = game.spies()
    civilians = [s for s in range(3) if s != spy]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(USERS[spy], "暗"))
        expect_private(ctx, USERS[spy], "你选择了：暗特务", fail=True)
        ctx.receive_event(bot, pmsg(USERS[civilians[0]], "暗"))
        expect_private(ctx, USERS[civilians[0]], "收到")
        ctx.receive_event(bot, pmsg(USERS[civilians[1]], "暗"))
        expect_private(ctx, USERS[civilians[1]], "收到")
        expect_group(ctx, "轮到", without=("特务", "平民"))
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Anonymous("私聊消息发送失败")},
                            {"message_id": 1})
    assert game.phase == "play"


async def test_g4_failed_spy_confirmation_waits_for_the_phase_end_4p(app: App) -> None:
    game = declaring(4, 2)
    await table_for("抓特务", game, 4)
    first, second = game.spies()
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(USERS[first], "明"))
        expect_private(ctx, USERS[first], "你选择了", fail=True)
        # nothing reaches the group while the other spy still chooses
        ctx.receive_event(bot, gmsg(USERS[second], "/牌桌"))
        expect_group(ctx, "等待各位私聊回复", without=("私聊消息", "明特务"))
        ctx.receive_event(bot, pmsg(USERS[second], "暗"))
        expect_private(ctx, USERS[second], "你选择了")
        for civilian in (s for s in range(4) if s not in (first, second)):
            ctx.receive_event(bot, pmsg(USERS[civilian], "暗"))
            expect_private(ctx, USERS[civilian], "收到")
        expect_group(ctx, "亮明：我是特务", "轮到")
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Anonymous("私聊消息发送失败")},
                            {"message_id": 1})


# ---- B: hand-dependent refusals go privately (G-4) ----------------------------------------
async def _refused(app: App, table: Table, user: int, text: str, reason: str) -> None:
    before = state(table)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, text))
        expect_group(ctx, "没有生效", "私聊", at=user, without=(reason,))
        expect_private(ctx, user, reason)
    assert state(table) == before


async def test_g4_hand_dependent_refusals_never_reach_the_group(app: App) -> None:
    """Every refusal whose reason depends on the hand, in every game."""
    table = await seat_table(HANDS3, leader=0)
    await _refused(app, table, A, "出 ♠A", "你没有 ♠A")            # Z: a suit not held
    await _refused(app, table, A, "出 KKK", "你没有 3 张 K")         # Z: how many of a rank
    REGISTRY.reset()
    table = await table_for("挖坑", WGame.from_hands([cards("3 4 5"), cards("6 7 8"), cards("9 10 J")]), 3)
    await _refused(app, table, A, "出 ♦3", "你没有 ♦3")             # W: a suit not held
    await _refused(app, table, A, "出 55", "你没有 2 张 5")
    REGISTRY.reset()
    game = SGame.from_hands([cards("5 9"), cards("6 小王"), cards("8 10 J")])
    table = await table_for("手把一", game, 3)
    await _refused(app, table, A, "出 66", "你没有 2 张 6")          # S: not held
    game.play(0, cards("5"))
    await _refused(app, table, B, "出 6", "不能只剩一张王")           # S-3 lone joker
    game.pass_turn(1)
    await _refused(app, table, C, "过", "能管就必须管")               # S-4 must block


async def test_g4_public_refusals_keep_their_reason_in_the_group(app: App) -> None:
    await seat_table(HANDS3, leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "出 5"))
        expect_group(ctx, "还没轮到你", at=B)
        ctx.receive_event(bot, gmsg(A, "出 34"))
        expect_group(ctx, "不是合法牌型", at=A)


# ---- C: warnings before a trap -------------------------------------------------------------
def _group_text(says) -> str:
    return "\n".join(Message(s.message).extract_plain_text() for s in says if s.seat is None)


def test_s4_must_block_prompt_does_not_offer_pass() -> None:
    adapter = find_game("手把一")
    game = SGame.from_hands([cards("5 9"), cards("6 7"), cards("8 10 J")])
    says = adapter.act(game, seats(3), 0, "play", "5")
    assert "或 过" in _group_text(says)  # B may pass: C still comes
    says = adapter.act(game, seats(3), 1, "pass", None)
    text = _group_text(says)
    assert "轮到" in text and "或 过" not in text and "把一必拦" in text


def test_s4_baopei_prompt_warns_before_the_single() -> None:
    adapter = find_game("手把一")
    game = SGame.from_hands([cards("3 K Q"), cards("9"), cards("5 6 7")])
    prompt = adapter.prompt(game, seats(3)).extract_plain_text()
    assert "包赔" in prompt and "最大的单张" in prompt
    off = SGame.from_hands([cards("3 K Q"), cards("9"), cards("5 6 7")], rules=SRules(baopei=False))
    assert "包赔" not in adapter.prompt(off, seats(3)).extract_plain_text()
    calm = SGame.from_hands([cards("3 K Q"), cards("9 10"), cards("5 6 7")])
    assert "包赔" not in adapter.prompt(calm, seats(3)).extract_plain_text()


def _bury_prompt(game: WGame) -> str:
    adapter = find_game("挖坑")
    game.place_bid(game.bidder, 3)
    return "\n".join(str(s.message) for s in adapter._after_bid(game, seats(3), game.digger)
                     if s.seat == game.digger)


def test_w3_bury_prompt_warns_of_scoring_cards_and_example_buries_none() -> None:
    for seed in range(30):
        game = WGame.deal(WRules(), seed, first=0)
        text = _bury_prompt(game)
        assert "5、10、K" in text and "翻倍" in text, text
        example = text.split("例如 扣 ")[1].split("。")[0].split("（")[0]
        assert "5" not in example and "10" not in example and "K" not in example, example
    shaanxi = _bury_prompt(WGame.deal(WRules(ruleset="陕西"), 1, first=0))
    assert "翻倍" not in shaanxi


def test_w6_timed_out_bury_avoids_scoring_cards() -> None:
    hand = cards("3 4 5 10 K 6 7 8 9 J Q A 2 2 A Q")
    game = WGame.from_hands([hand, [], []])
    game.phase, game.buried = "bury", []
    buried = game.bury_timeout()
    assert not any(rank_of(c) in (R5, R10, RK) for c in buried)
    assert sorted(card_name(c)[1:] for c in buried) == sorted(["3", "4", "6", "7"])
    forced = WGame.from_hands([cards("5 5 5 5 10 10 10 10 K K K K 3 4 6 7"), [], []])
    forced.phase = "bury"
    assert sum(rank_of(c) not in (R5, R10, RK) for c in forced.bury_timeout()) == 4
    full = WGame.from_hands([cards("5 5 5 5 10 10 10 10 K K K K 3 4 6"), [], []])
    full.phase = "bury"
    assert sum(rank_of(c) in (R5, R10, RK) for c in full.bury_timeout()) == 1  # only 3 others


def test_z5_w5_s4_start_of_play_says_who_leads_and_why() -> None:
    z = find_game("抓特务")
    game = ZGame.deal(3, ZRules(allow_declare=False, allow_open_hand=False), 3)
    leader = game.turn
    assert f"♥3 在 玩家{USERS[leader]} 手里，玩家{USERS[leader]} 先出" in _group_text(z.start(game, seats(3)))
    game = ZGame.deal(3, ZRules(allow_declare=False, allow_open_hand=False, three_high=True), 3)
    assert f"♥4 在 玩家{USERS[game.turn]} 手里" in _group_text(z.start(game, seats(3)))
    game = ZGame.deal(3, ZRules(allow_declare=False, allow_open_hand=False, first_lead="庄家"), 3)
    assert f"庄家 玩家{USERS[game.dealer]} 先出" in _group_text(z.start(game, seats(3)))
    previous = {"roles": game.roles, "out": [2, 0, 1], "outcome": "draw", "stakes": [1, 1, 1]}
    game = ZGame.deal(3, ZRules(allow_declare=False, allow_open_hand=False), 3, previous=previous)
    assert "上局头游 玩家103 先出" in _group_text(z.start(game, seats(3)))
    declare = declaring(3, 1)  # the explanation comes with the first prompt, after declaring
    assert "先出" not in _group_text(z.start(declare, seats(3)))
    z.answer(declare, seats(3), declare.spies()[0], "暗")
    last, *others = [s for s in range(3) if s not in declare.spies()][::-1]
    for s in others:
        assert _group_text(z.answer(declare, seats(3), s, "暗")) == ""
    assert "♥3 在" in _group_text(z.answer(declare, seats(3), last, "暗"))

    s = find_game("手把一")
    game = SGame.deal(3, SRules(), 5)
    assert f"♥5 在 玩家{USERS[game.turn]} 手里，玩家{USERS[game.turn]} 先出" in _group_text(s.start(game, seats(3)))
    two = SGame.deal(2, SRules(), 5)  # cards set aside: never say which heart leads
    text = _group_text(s.start(two, seats(2)))
    assert f"玩家{USERS[two.turn]} 先出" in text and "♥5 在" not in text and "被抽走" in text
    game = SGame.deal(3, SRules(), 5, previous={"winner": 1})
    assert "上局赢家 玩家102 先出" in _group_text(s.start(game, seats(3)))

    w = find_game("挖坑")
    game = WGame.deal(WRules(), 4, first=0)
    game.place_bid(0, 3)
    text = _group_text(w.answer(game, seats(3), 0, "扣 " + " ".join(card_name(c) for c in game.hands[0][:4])))
    assert "挖坑者 玩家101 先出" in text
    game = WGame.deal(WRules(ruleset="陕西"), 4)
    game.place_bid(game.bidder, 3)
    text = _group_text(w.timeout(game, seats(3)))
    assert f"玩家{USERS[game.first]} 先叫先出" in text and "♥" not in text


# ---- C: /结束 of a game in play shows everything ---------------------------------------------
async def test_g4_end_mid_game_reveals_hidden_spy_and_hands(app: App) -> None:
    table = await seat_table(HANDS3, leader=0)
    game = table.engine
    adapter = table.adapter
    hands = [adapter.cards(game, h) for h in game.hands]
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "牌桌已关闭", "本局不计分", "特务：玩家102", "平民：玩家101、玩家103",
                     *(f"玩家{u} 手牌：{h}" for u, h in zip(USERS, hands, strict=False)))
    assert REGISTRY.get(str(GROUP)) is None


async def test_w3_end_mid_game_reveals_bottom_and_buried(app: App) -> None:
    game = WGame.deal(WRules(), 9, first=0)
    game.place_bid(0, 3)
    game.bury_timeout()
    table = await table_for("挖坑", game, 3)
    adapter = table.adapter
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/结束"))
        expect_group(ctx, "本局不计分", f"扣的底：{adapter.cards(game, game.buried)}",
                     f"原底牌：{adapter.cards(game, game.bottom)}",
                     f"玩家102 手牌：{adapter.cards(game, game.hands[1])}")


async def test_s1_end_mid_game_reveals_hands_and_set_aside(app: App) -> None:
    game = SGame.deal(2, SRules(), 11)
    table = await table_for("手把一", game, 2)
    adapter = table.adapter
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(B, "/结束", role="admin"))
        expect_group(ctx, "本局不计分", f"抽出的牌：{adapter.cards(game, game.aside)}",
                     f"玩家101 手牌：{adapter.cards(game, game.hands[0])}")


def _error(call) -> MoveError:
    with pytest.raises(MoveError) as info:
        call()
    return info.value


def test_g4_engines_flag_every_hand_dependent_refusal() -> None:
    z = ZGame.from_hands(HANDS3, leader=0)
    s = SGame.from_hands([cards("5 9"), cards("6 小王"), cards("8 10 J")])
    w = WGame.deal(WRules(), 3, first=0)
    w.place_bid(0, 3)
    missing = next(c for c in range(52) if c not in w.hands[0])
    hand_dependent = [
        _error(lambda: z.play_text(0, "♠A")), _error(lambda: z.play_text(0, "KKK")),
        _error(lambda: z.play(0, cards("K"))),
        _error(lambda: w.bury(0, [missing, *w.hands[0][:3]])),
        _error(lambda: s.play_text(0, "66")),
    ]
    s.play(0, cards("5"))
    hand_dependent.append(_error(lambda: s.play_text(1, "6")))
    s.pass_turn(1)
    hand_dependent.append(_error(lambda: s.pass_turn(2)))
    assert [e.code for e in hand_dependent] == ["not_held"] * 5 + ["lone_joker", "must_block"]
    assert all(e.private for e in hand_dependent)
    public = [_error(lambda: z.play_text(1, "5")), _error(lambda: z.pass_turn(0)),
              _error(lambda: z.play_text(0, "34")), _error(lambda: z.play_text(0, "1")),
              _error(lambda: z.play_text(0, "♠3♠3")), _error(lambda: w.bury(0, w.hands[0][:3]))]
    assert [e.code for e in public] == ["not_turn", "must_lead", "no_type", "notation", "not_held", "count"]
    assert not any(e.private for e in public)


async def test_g4_z9_an_answer_does_not_move_the_declare_deadline(app: App) -> None:
    """The time limit is the same whatever the spies answer, so when it runs out nobody
    can tell whether (or when) a spy answered."""
    game = declaring(4, 2)
    table = await table_for("抓特务", game, 4)
    first, second = game.spies()
    table.deadline = now_utc() + timedelta(seconds=20)  # the phase began 25 s ago
    await REGISTRY.save(table)
    deadline = table.deadline
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(USERS[first], "明"))
        expect_private(ctx, USERS[first], "你选择了")
        ctx.receive_event(bot, gmsg(USERS[second], "/托管"))
        expect_group(ctx, "托管")
    assert game.phase == "declare" and table.deadline == deadline
    _game, saved = (await REGISTRY.store.load_live())[str(GROUP)]
    assert saved["deadline"] == deadline.isoformat()


async def test_a_player_who_went_out_is_not_told_to_wait_for_a_turn(app: App) -> None:
    """A player whose cards are all played who sends a move (a late tap of an old button
    on the official bot, or a typed one) is told their cards are gone, not 还没轮到你 —
    their turn never comes again this game."""
    await seat_table([cards("3"), [SPADE_A, *cards("5 8 Q")], cards("66 10 K"),
                      [card(11, 2), *cards("4 9 J")]], leader=0)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "出完了")
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "你的牌已出完", at=A)
