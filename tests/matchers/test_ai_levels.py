"""nonebug tests of 电脑难度 (RULES.md G-6): a timed-out player is played for at the group's
level — 简单's simple rule, 困难's searched move, and 普通 when the search gives none."""

from __future__ import annotations

from datetime import timedelta

from chat_support import GROUP, A, B, C, expect_group, expect_private, gmsg, make_bot, seat_table
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import ai_turn
from nonebot_plugin_paizhuo.actions import deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.games.choice import searched_setup
from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.ai.decisions import choose_bid, choose_bury
from paizhuo_engine.ai.simple import PASS
from paizhuo_engine.cards import format_cards
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame

HANDS = [cards("3 4 77 9"), [cards("♠A")[0], *cards("5 8 Q")], cards("66 10 K")]


async def fire(table: Table) -> None:
    table.remind_at, table.deadline = None, now_utc() - timedelta(seconds=1)
    deadlines.schedule(table)
    await table.timer


class FakePool:
    """Stands in for the worker pool: answers every search with ``answer``."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.asked: list[tuple[int, int]] = []

    async def search(self, state: dict, seat: int, seed: int, budget_ms: int):
        self.asked.append((seat, budget_ms))
        return self.answer


async def lead_3(app: App, table: Table) -> None:
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "出 3"))
        expect_group(ctx, "玩家101 出 ", at=B)
        expect_private(ctx, A, "手牌")


async def test_simple_level_passes_where_normal_would_beat(app: App) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "简单"}
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 过［超时］", at=C)
        await fire(table)
    assert table.engine.log[-1] == [1, []]


async def test_hard_level_plays_the_searched_move(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "困难", "ai_budget_ms": 200}
    fake = FakePool(PASS)
    monkeypatch.setattr(ai_turn, "pool", lambda: fake)
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 过［超时］", at=C)
        await fire(table)
    assert fake.asked == [(1, 200)]
    assert table.engine.log[-1] == [1, []]


async def test_hard_level_without_an_answer_plays_at_normal(app: App, monkeypatch) -> None:
    table = await seat_table(HANDS, leader=0)
    table.settings = {"ai_level": "困难"}
    fake = FakePool(None)  # pool full, timed out or a worker died
    monkeypatch.setattr(ai_turn, "pool", lambda: fake)
    await lead_3(app, table)
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "玩家102 出 ♠5（单张）［超时］", at=C)
        expect_private(ctx, B, "手牌（3 张）")
        await fire(table)
    assert fake.asked == [(1, 300)]


async def wakeng_of_computers(seed: int) -> Table:
    """A 挖坑 table (RULES.md W-2) of one person and two computer seats at 困难, dealt so
    that a computer bids first, its pause armed."""
    game = next(g for s in range(seed, seed + 50)
                if (g := WGame.deal(WRules(), s)).bidder == 1)
    table = Table(group_id=str(GROUP), game="挖坑", size=3, opener=str(A),
                  seats=[SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"),
                         SeatView("ai:2", "电脑2")],
                  settings={"ai_level": "困难"}, created_at=now_utc(), started_at=now_utc(),
                  uid="setup-test", engine=game, status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    return table


async def computers_act(table: Table) -> None:
    table.computer_at = now_utc() - timedelta(seconds=1)
    deadlines.schedule(table)
    await table.timer


async def test_hard_computer_bids_and_buries_as_searched(app: App, monkeypatch) -> None:
    """W-2 / W-3 at 困难: a computer seat's bid and burial are the searched ones (asked of
    the pool for that seat and phase), not 普通's rules of thumb; the group sees the bid
    and that the burial is done, never the buried cards (G-4). An answer that does not fit
    the phase is not taken."""
    table = await wakeng_of_computers(0)
    game = table.engine
    normal_bid = choose_bid(game.hands[1], game.bid_options(1), False)
    searched = 3 if normal_bid != 3 else 1
    hand = game.hands[1]
    normal = choose_bury(hand, game.rules.rank_order())
    other = tuple(sorted(c for c in hand if c not in normal)[:4])
    asked: list[str | None] = []
    budgets: dict[str, int] = {}

    class PhasePool:
        async def search(self, state: dict, seat: int, seed: int, budget_ms: int):
            asked.append(table.engine.phase)
            budgets[table.engine.phase] = budget_ms
            return {"bid": searched, "bury": other}.get(table.engine.phase)

    monkeypatch.setattr(ai_turn, "pool", lambda: PhasePool())
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, f"电脑1 叫 {searched}",
                     without=("超时", *format_cards(list(other)).split()))
        await computers_act(table)
    assert game.bids[1] == searched
    assert asked[:1] == ["bid"]
    assert game.digger == 1 and "bury" in asked and game.buried == list(other)
    # A decision before play searches twice the group's 困难用时 (default 300 ms), a play once.
    assert budgets["bid"] == budgets["bury"] == 2 * ai_turn.DEFAULT_BUDGET_MS
    assert budgets.get("play", ai_turn.DEFAULT_BUDGET_MS) == ai_turn.DEFAULT_BUDGET_MS


def test_a_searched_answer_that_does_not_fit_the_phase_is_not_taken() -> None:
    """A stale or malformed search answer (a bid where cards to bury are due, cards not in
    the hand) gives 普通's own choice."""
    game = WGame.deal(WRules(), 3)
    seat = game.bidder
    wrong = ai_turn.Choice("困难", seat, 0, phase="bid", setup=(1, 2, 3, 4))
    assert searched_setup(game, seat, 0, wrong) == 0
    assert searched_setup(game, seat, 0, ai_turn.Choice("困难", seat, 0, phase="bid", setup=9)) == 0
    right = ai_turn.Choice("困难", seat, 0, phase="bid", setup=2)
    assert searched_setup(game, seat, 0, right) == 2
    assert searched_setup(game, (seat + 1) % 3, 0, right) == 0


async def test_a_player_in_auto_play_is_moved_at_the_groups_level(app: App, monkeypatch) -> None:
    """G-6: 电脑难度 is for computer seats, 托管 and timeouts alike — a player in 托管 moved
    right after a computer player, in the same run, plays 困难's searched move (here 过),
    not 普通's (which would beat the computer's lead)."""
    hands = [cards("3 4 77 9"), [cards("♠A")[0], *cards("5 8 Q")], cards("66 10 K")]
    table = Table(group_id=str(GROUP), game="抓特务", size=3, opener=str(A),
                  seats=[SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"),
                         SeatView(str(C), "玩家103")],
                  settings={"ai_level": "困难", "ai_budget_ms": 200}, created_at=now_utc(),
                  started_at=now_utc(), uid="auto-level", engine=ZGame.from_hands(hands, leader=1),
                  status=PLAYING, account="10001", auto=[str(C)])
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    asked: list[int] = []

    class SeatPool:
        def start(self, *args):  # nothing searched ahead: each decision asks search()
            return None

        async def search(self, state: dict, seat: int, seed: int, budget_ms: int):
            asked.append(seat)
            return PASS if seat == 2 else None  # the computer: 普通

    monkeypatch.setattr(ai_turn, "pool", lambda: SeatPool())
    async with app.test_matcher() as ctx:
        make_bot(ctx)
        expect_group(ctx, "电脑1 出 ", "玩家103 过［托管］", at=A)
        await computers_act(table)
    assert asked == [1, 2]
    assert table.engine.log[-1] == [2, []]

