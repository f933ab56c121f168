"""/提示 keeps sets (G-6): its alternatives put the plays that leave the hand's plan whole
first — a loose single, a whole pair, a whole chain — cheapest first, then the others.
(Before, the cheapest legal plays came first: leading with 444 55 77 88 9 K AA 222 it
offered 4, 5, 7 and 8, each breaking a set, and never the loose 9 and K.)"""

from __future__ import annotations

from support import cards

from paizhuo_engine.ai.plan import plan_hand, shape_of
from paizhuo_engine.ai.strategy import suggestions
from paizhuo_engine.cards import format_ranks, rank_of
from paizhuo_engine.movegen import pack_cards, unpack
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.zhuatewu.game import ZGame


def shown(game, actions) -> list[str]:
    return [format_ranks(a.cards, game.rules.rank_order()).replace(" ", "") for a in actions]


def kept(game, action) -> bool:
    from paizhuo_engine.ai.strategy import keeps_plan

    plan = plan_hand(unpack(pack_cards(game.hands[game.turn])), shape_of(game.rules))
    return keeps_plan(unpack(pack_cards(action.cards)), plan)


def test_zhuatewu_lead_offers_the_loose_cards_and_whole_sets() -> None:
    game = ZGame.from_hands([cards("444 55 77 88 9 K AA 222"), cards("♥3 ♥5 ♥6 ♥10 ♥J ♥Q"),
                             cards("♣3 ♣6 ♣10 ♣J ♣Q ♣K")], leader=0)
    best, others = suggestions(game, 0)
    assert shown(game, [best]) == ["4449"]  # 三带一 with the loose 9
    assert shown(game, others) == ["9", "K", "55", "AA"]
    assert all(kept(game, a) for a in others)


def test_zhuatewu_follow_offers_a_loose_single_before_breaking_a_set() -> None:
    game = ZGame.from_hands([cards("♥6"), cards("444 55 77 88 9 K AA 222"),
                             cards("♣3 ♣6 ♣10 ♣J ♣Q ♣K")], leader=0)
    game.play(0, cards("♥6"))
    best, others = suggestions(game, 1)
    lines = shown(game, [best, *others])
    assert lines[:2] == ["9", "K"] or (lines[0] in ("9", "K") and lines[1] in ("9", "K"))
    assert not {"7", "8"} & set(lines[:2])


def test_wakeng_lead_offers_the_loose_singles_before_breaking_a_pair_or_chain() -> None:
    hand = cards("33 444 6 88 99 1010 Q K A 2")
    game = WGame.from_hands([hand, cards("♥5 ♥7 ♥J"), cards("♣5 ♣7 ♣J")], digger=0)
    best, others = suggestions(game, 0)
    singles = [s for s in shown(game, others) if len(s) == 1]
    assert "6" in shown(game, [best, *others]) and singles and all(s in "6QKA2" for s in singles)
    assert all(kept(game, a) for a in others), shown(game, others)


def test_shoubayi_lead_offers_the_loose_singles_and_whole_sets() -> None:
    hand = cards("333 55 8 99 J K A")
    game = SGame.from_hands([hand, cards("♥4 ♥6 ♥10"), cards("♣4 ♣6 ♣10")], leader=0)
    best, others = suggestions(game, 0)
    lines = shown(game, [best, *others])
    assert {"J", "K"} <= set(lines)
    assert not any(len(s) == 1 and s in "359" for s in lines)  # no single out of a set
    assert all(kept(game, a) for a in others), lines


def test_keeps_plan_reads_sets_chains_and_kickers() -> None:
    from paizhuo_engine.ai.strategy import keeps_plan

    game = ZGame.from_hands([cards("444 55 77 88 9 K AA 222"), cards("♥3"), cards("♣3")], leader=0)
    plan = plan_hand(unpack(pack_cards(game.hands[0])), shape_of(game.rules))

    def counts(text: str) -> list[int]:
        out = [0] * 15
        for c in cards(text):
            out[rank_of(c)] += 1
        return out

    for whole in ("9", "K", "9 K"[:1], "55", "7788", "4449", "444", "AA", "222K"):
        assert keeps_plan(counts(whole), plan), whole
    for broken in ("4", "5", "7", "77", "44", "2", "45", "778"):
        assert not keeps_plan(counts(broken), plan), broken
