"""What the group sees of a refused command depends only on what everyone can see — the
typed text and the table — never on the player's hand (RULES.md G-4, **Decision** a
refused play). For every game and phase, the same command typed at the same public table
with different hands behind it gets the same group reply and the same routing (group only,
or the group's ``原因已私聊发给你`` plus the private reason). Also the refusals' texts: every
reason that applies, whose turn it is, the rule that refused a type (Z-4, W-3, Z-8, S-3)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from support import cards

from nonebot_plugin_paizhuo.actions.basics import reply
from nonebot_plugin_paizhuo.actions.turns import move_refusal
from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.messaging import private, refusal
from nonebot_plugin_paizhuo.tables import PLAYING, Table, now_utc
from paizhuo_engine.cards import DECK_52, DECK_54, card, rank_of
from paizhuo_engine.errors import MoveError
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

pytestmark = pytest.mark.once  # the plugin's refusal texts, called directly: no event, no dispatch (.ci/run)

GROUP = "5001"
USERS = ("101", "102", "103", "104")
DEALS = 40
"""Different hands behind one public table, per scenario."""

PLAYS = ("出 梅花A 黑桃Q", "出 黑桃A 黑桃Q", "出 3", "出 4", "出 ♠A", "出 ♣A", "出 A", "出 AA",
         "出 77889", "出 778899", "出 KKK", "出 KKK3", "出 555 66", "出 5555", "出 555566",
         "出 34567", "出 33", "出 ♥3", "出 ♠3♠3", "出 77777", "出 1", "出 QQ 三带一",
         "出 991010", "出 大王", "出 小王", "出 小王大王", "出 2", "出 10JQKA", "出 xyz", "过")


def seats(n: int) -> list[SeatView]:
    return [SeatView(u, f"玩家{u}") for u in USERS[:n]]


def table_of(game_name: str, engine, n: int) -> Table:
    """A table in play (not registered: only what a refusal reads)."""
    return Table(group_id=GROUP, game=game_name, size=n, opener=USERS[0], seats=seats(n),
                 settings={}, created_at=now_utc(), engine=engine, status=PLAYING,
                 account="10001")


def shown(outs) -> tuple | None:
    """Every message of a refusal as the group can tell it apart: where it goes, and the
    text of what goes to the group."""
    return tuple((o.kind, o.target, o.message.extract_plain_text().strip() if o.kind == "group" else "")
                 for o in outs)


def group_view(game_name: str, engine, seat: int, text: str) -> tuple | None:
    """What a group command gives: ``None`` when accepted, else :func:`shown` of the
    refusal (through the chat layer's :func:`move_refusal`)."""
    adapter = GAMES[game_name]
    engine = adapter.load(adapter.dump(engine))
    n = engine.players
    table = table_of(game_name, engine, n)
    parsed = adapter.parse_command(text)
    assert parsed is not None, text
    user = USERS[seat]
    try:
        adapter.act(engine, table.seats, seat, *parsed)
    except MoveError as err:
        return shown(move_refusal(table, user, err, lambda m: refusal(reply(GROUP, user, m), user)))
    return None


def answer_view(game_name: str, engine, seat: int, text: str) -> tuple | None:
    """What a private answer gives: ``None`` when accepted (or no answer)."""
    adapter = GAMES[game_name]
    engine = adapter.load(adapter.dump(engine))
    table = table_of(game_name, engine, engine.players)
    user = USERS[seat]
    try:
        adapter.answer(engine, table.seats, seat, text)
    except MoveError as err:
        return shown(move_refusal(table, user, err, lambda m: refusal(private(user, m), user)))
    return None


def assert_hand_independent(make: Callable[[random.Random], object], game_name: str,
                            commands: tuple[str, ...], view=group_view) -> int:
    """For each command and each seat: among the deals where it is refused, one and the
    same group view. Returns how many refusals were compared."""
    rng = random.Random(7)
    games = [make(rng) for _ in range(DEALS)]
    compared = 0
    for seat in range(games[0].players):
        for text in commands:
            views = {}
            for i, g in enumerate(games):
                v = view(game_name, g, seat, text)
                if v is not None:
                    views.setdefault(v, i)
            compared += len(views)
            assert len(views) <= 1, (seat, text, list(views))
    return compared


def deal_around(rng: random.Random, deck, sizes: list[int], fixed: dict[int, list[int]]) -> list[list[int]]:
    """Random hands of ``sizes`` cards; seat ``s`` always holds ``fixed[s]`` (the cards
    it will play to set up the public table)."""
    pool = [c for c in deck if not any(c in f for f in fixed.values())]
    rng.shuffle(pool)
    hands = []
    for s, size in enumerate(sizes):
        own = list(fixed.get(s, []))
        while len(own) < size:
            own.append(pool.pop())
        hands.append(sorted(own))
    return hands


# ---- the property, every game and phase ------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("lead", [None, "77", "9", "34567"])
def test_g4_z_play_refusals_do_not_depend_on_the_hand(players: int, lead: str | None) -> None:
    """抓特务 (Z-4) in play: leading and following a single, a pair, a straight; spies
    holding ♣A or not (打双黑) — ``出 梅花A 黑桃Q`` by the spy holding ♣A told the
    group ``不是合法牌型`` and by anyone else ``原因已私聊发给你``."""
    fixed = {0: cards(lead)} if lead else {}

    def make(rng: random.Random) -> ZGame:
        sizes = [13] * players if players == 4 else [17] * 3
        game = ZGame.from_hands(deal_around(rng, DECK_54, sizes, fixed), leader=0)
        if lead:
            game.play(0, cards(lead))
        return game

    assert assert_hand_independent(make, "抓特务", PLAYS) > 50


def test_g4_z_spy_holding_club_ace_is_not_told_apart() -> None:
    """The reported case: a hidden spy holding ♣A, and a civilian, type the same two
    plays at the same table; the group reads the same for both."""
    spy = [card(11, 2), *cards("3 5 9 J")]           # ♣A
    civilian = cards("4 6 8 10 K")
    for hands in ([spy, civilian, cards("7 7 Q"), cards("2 2 6")],
                  [civilian, spy, cards("7 7 Q"), cards("2 2 6")]):
        game = ZGame.from_hands(hands, leader=0)
        views = {group_view("抓特务", game, 0, t) for t in ("出 梅花A 黑桃Q", "出 黑桃A 黑桃Q")}
        assert views == {(("group", GROUP, "AQ 不是合法牌型：不同的单牌要连成顺子，至少 5 张"),)}


def test_g4_z_tribute_and_declare_refusals_do_not_depend_on_the_hand() -> None:
    """Z-8 / Z-9 phases: group commands are refused for the phase (public); the private
    answers 还 / 明 / 暗 are refused in private chat only, whatever the hand."""
    previous = {"roles": ["spy", "civilian", "civilian"], "out": [0, 1], "outcome": "spy",
                "stakes": [1, 1, 1]}

    def tribute(rng: random.Random) -> ZGame:
        game = ZGame.deal(3, ZRules(), rng.randrange(10**9), previous=previous)
        assert game.phase == "tribute" and game.next_return(0)  # seat 0 returns to 1 and 2
        return game

    assert assert_hand_independent(tribute, "抓特务", ("出 3", "过", "出 77")) > 0
    compared = assert_hand_independent(tribute, "抓特务", ("还 A", "还 3", "还 33", "还 ♠A", "还 1",
                                                         "明", "暗"), view=answer_view)
    assert compared > 0

    def declare(rng: random.Random) -> ZGame:
        while True:
            game = ZGame.deal(4, ZRules(), rng.randrange(10**9))
            if game.phase == "declare":
                return game

    assert assert_hand_independent(declare, "抓特务", ("出 3", "过")) > 0
    for seat in range(4):
        for text in ("明", "暗", "明牌", "还 3"):
            views = {answer_view("抓特务", declare(random.Random(i)), seat, text) for i in range(DEALS)}
            assert all(v is None or all(kind == "private" for kind, _, _ in v) for v in views)


@pytest.mark.parametrize("shaanxi", [False, True])
def test_g4_w_bid_bury_and_play_refusals_do_not_depend_on_the_hand(shaanxi: bool) -> None:
    """挖坑: bidding (W-2, W-7), burying (W-3: answered privately; 扣 in the group is
    refused for where it was typed), and play (W-4)."""
    rules = WRules(ruleset="陕西" if shaanxi else "标准")
    bids = ("叫 1", "叫 2", "叫 3", "叫 5", "不叫", "叫", "出 3", "过", "扣 3 4 5 6")

    def bidding(rng: random.Random) -> WGame:
        game = WGame.deal(rules, rng.randrange(10**9), first=0)
        game.first = game.bidder = game.turn = 0  # W-7 picks the bidder by ♥4: keep it fixed
        return game

    assert assert_hand_independent(bidding, "挖坑", bids) > 0

    def burying(rng: random.Random) -> WGame:
        game = bidding(rng)
        game.place_bid(0, 3)
        return game

    assert assert_hand_independent(burying, "挖坑", bids) > 0
    assert assert_hand_independent(burying, "挖坑", ("扣 3 4 5 6", "扣 3", "扣 ♠3♠3 4 5",
                                                   "扣 AAAAA", "扣 xyz"), view=answer_view) > 0

    def playing(rng: random.Random) -> WGame:
        game = WGame.from_hands(deal_around(rng, DECK_52, [16, 16, 16], {0: cards("88")}), rules=rules)
        game.play(0, cards("88"))
        return game

    assert assert_hand_independent(playing, "挖坑", PLAYS) > 20


@pytest.mark.parametrize("players", [2, 3])
def test_g4_s_play_must_block_and_lone_joker_refusals_do_not_depend_on_the_hand(players: int) -> None:
    """手把一: S-3 types, S-3 a lone joker (a hand rule: told privately), S-4 把一必拦 (a
    pass refused for a play the hand holds: told privately)."""

    def blocking(rng: random.Random) -> SGame:
        sizes = [2] + [8] * (players - 2) + [2]
        game = SGame.from_hands(deal_around(rng, DECK_54, sizes, {0: cards("3 6")}), leader=0)
        game.play(0, cards("6"))      # seat 0 is down to one card: 把一
        for s in range(1, players - 1):
            game.pass_turn(s)
        return game

    assert assert_hand_independent(blocking, "手把一", PLAYS) > 20

    def leading(rng: random.Random) -> SGame:
        return SGame.from_hands(deal_around(rng, DECK_54, [12] * players, {}), leader=0)

    assert assert_hand_independent(leading, "手把一", PLAYS) > 20


# ---- the texts of refusals -------------------------------------------------------------------
def _reason(call) -> MoveError:
    with pytest.raises(MoveError) as info:
        call()
    return info.value


def test_g4_not_turn_says_whose_turn_it_is() -> None:
    game = ZGame.from_hands([cards("3 4 77 9"), cards("5 8 Q"), cards("66 10 K")], leader=0)
    view = group_view("抓特务", game, 1, "出 5")
    assert view == (("group", GROUP, "还没轮到你，现在轮到 玩家101"),)
    w = WGame.deal(WRules(), 1, first=0)
    assert group_view("挖坑", w, 2, "叫 2") == (("group", GROUP, "还没轮到你叫分，现在轮到 玩家101"),)


def test_g4_z4_wrong_type_is_told_before_the_missing_cards() -> None:
    """``出 77889`` by a player without two 7s: the group hears that 77889 is no hand type
    (public); a valid type not held goes privately with every card missing."""
    game = ZGame.from_hands([cards("3 4 7 9"), cards("5 8 Q"), cards("66 10 K")], leader=0)
    assert group_view("抓特务", game, 0, "出 77889") == (("group", GROUP, "77889 不是合法牌型"),)
    err = _reason(lambda: game.play_text(0, "778899"))
    assert err.private and err.message == "你没有 2 张 7、2 张 8、2 张 9"
    assert group_view("抓特务", game, 0, "出 77777")[0][2].startswith("一副牌只有 4 张 7")


def test_s3_type_refusals_explain_the_rule() -> None:
    game = SGame.from_hands([cards("555 99 10 10 3"), cards("6"), cards("7")], rules=SRules())
    assert _reason(lambda: game.play_text(0, "555")).message == "555 不是合法牌型：三张必须带一张牌（三带一）"
    assert _reason(lambda: game.play_text(0, "991010")).message == "991010 不是合法牌型：联对至少 3 对"


def test_z8_return_refusal_gives_every_reason() -> None:
    """``还 A`` when 4 cards are due: both the count and that an A cannot be returned."""
    previous = {"roles": ["spy", "civilian", "civilian"], "out": [0, 1], "outcome": "spy",
                "stakes": [4, 1, 1]}
    for seed in range(200):
        game = ZGame.deal(3, ZRules(), seed, previous=previous)
        if game.phase == "tribute" and game.next_return(0):
            break
    adapter = GAMES["抓特务"]
    count = game.next_return(0)["count"]
    err = _reason(lambda: adapter.answer(game, seats(3), 0, "还 A"))
    assert f"要还 {count} 张牌，你写了 1 张" in err.message and "A 不能还" in err.message


def test_w3_bury_refusal_gives_every_reason() -> None:
    game = WGame.deal(WRules(), 3, first=0)
    game.place_bid(0, 3)
    lacking = next(r for r in range(13) if sum(rank_of(c) == r for c in game.hands[0]) == 0)
    from paizhuo_engine.cards import RANK_NAMES
    err = _reason(lambda: GAMES["挖坑"].answer(game, seats(3), 0, f"扣 {RANK_NAMES[lacking]}"))
    assert "要扣 4 张牌，你写了 1 张" in err.message and f"你没有 1 张 {RANK_NAMES[lacking]}" in err.message
