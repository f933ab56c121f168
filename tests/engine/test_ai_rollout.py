"""困难's rollout player in the positions where it used to misjudge a sampled deal
(:func:`paizhuo_engine.ai.rollout.quick_action`, every hand known): a sure way out
(RULES.md G-3), the never-played ×2 (S-6) and 包赔 (S-4). Each test has its control: the
same position without the reason, where the old choice stands."""

from __future__ import annotations

from support import cards

from paizhuo_engine.ai.rollout import quick_action, sides, sure_lead
from paizhuo_engine.cards import rank_of
from paizhuo_engine.movegen import pack_cards
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules


def lead_of(hands: list[str], rules: SRules | None = None) -> list[int]:
    """The cards seat 0 leads, in 手把一 from ``hands``."""
    game = SGame.from_hands([cards(h) for h in hands], rules or SRules(), leader=0)
    action = quick_action(game, 0, sides(game))
    assert action.kind == "play"
    return sorted(action.cards)


def test_a_sure_group_is_led_before_the_last_one() -> None:
    """G-3: 22 + 3 against hands that hold no pair above 2 and no bomb — 22 keeps the
    lead and 3 goes out; the weakest-first lead (3) would hand the lead over."""
    assert lead_of(["2 2 3", "4 5 6 7", "8 9 10 J"]) == cards("2 2")


def test_no_sure_lead_when_a_rival_holds_a_bomb() -> None:
    """The control: a rival's bomb (8888) beats 22, so nothing is sure and the weakest
    group is led."""
    assert lead_of(["2 2 3", "4 5 6 7", "8 8 8 8"]) == cards("3")


def test_sure_lead_needs_all_groups_but_one_sure() -> None:
    """Two groups that a rival can beat (a pair and a single under its K and QQ) leave no
    sure way out, whatever the third."""
    game = SGame.from_hands([cards("2 2 J 3"), cards("K Q Q 4"), cards("5 6 7 8")],
                            SRules(), leader=0)
    assert sure_lead(game, 0, sides(game), pack_cards(game.hands[0])) is None


def test_sure_lead_ignores_what_a_partner_could_beat() -> None:
    """抓特务 4 players, spies at seats 1 and 3 (♠A, ♣A, Z-2): only opponents' hands count
    — the partner at seat 2 could beat KK with AA, the spies hold one A each, so KK is
    sure and is led before the 4."""
    hands = [cards("♥K ♣K ♥4"), cards("♠A ♥5 ♥6"), cards("♥A ♦A ♥9"), cards("♣A ♥7 ♥8")]
    game = ZGame.from_hands(hands, ZRules(), leader=0)
    side = sides(game)
    assert side[0] == side[2] != side[1] == side[3]
    play = sure_lead(game, 0, side, pack_cards(game.hands[0]))
    assert play is not None and play[0] == pack_cards(cards("♥K ♣K"))


def ranks(text: str) -> list[int]:
    return sorted(rank_of(c) for c in cards(text))


def follow_of(hands: list[str], lead: str, rules: SRules | None = None) -> list[int] | None:
    """Seat 0 leads ``lead`` in 手把一; the ranks of seat 1's rollout answer (``None`` =
    pass)."""
    game = SGame.from_hands([cards(h) for h in hands], rules or SRules(), leader=0)
    game.play(0, cards(lead))
    action = quick_action(game, 1, sides(game))
    return None if action.kind == "pass" else sorted(rank_of(c) for c in action.cards)


def test_a_seat_that_never_played_beats_when_a_rival_is_short() -> None:
    """S-6: seat 1 has not played and seat 2 holds 3 cards — breaking a pair to beat the 9
    now halves what seat 1 would pay."""
    hands = ["9 J J Q K A", "3 3 4 4 10 10 5", "6 7 8"]
    assert follow_of(hands, "9") == ranks("10")


def test_the_never_played_rule_waits_while_nobody_is_short() -> None:
    """The control: seat 2 holds 5 cards, so seat 1 keeps its pair of 10s and passes."""
    hands = ["9 J J Q K A", "3 3 4 4 10 10 5", "6 7 8 2 2"]
    assert follow_of(hands, "9") is None


def test_baopei_watch_plays_the_highest_single() -> None:
    """S-4 包赔: the next player (seat 2) holds one card, so seat 1 follows the 5 with its
    highest single K, not the 7 it would otherwise spend."""
    hands = ["5 6 6 9 10", "7 K 3 3", "J"]
    assert follow_of(hands, "5") == ranks("K")


def test_without_baopei_the_cheapest_single_stands() -> None:
    """The control: 包赔 off (S-4 setting), the same position follows with 7 (66 can
    beat 33, so no follow leads into a sure way out)."""
    hands = ["5 6 6 9 10", "7 K 3 3", "J"]
    assert follow_of(hands, "5", SRules(baopei=False)) == ranks("7")


def test_a_follow_nobody_can_beat_that_leaves_a_sure_way_out_is_taken() -> None:
    """G-3: seat 1 holds K K 5 5 against a Q — breaking KK is no cheap follow, but nobody
    can beat a K (no A, 2, joker or bomb out) nor 55, so K, K, 55 goes out."""
    hands = ["Q 3 4 6 7", "K K 5 5", "8 9 10 J"]
    assert follow_of(hands, "Q") == ranks("K")


def test_no_sure_follow_when_a_rival_can_beat_it() -> None:
    """The control: seat 2 holds an A, so nothing is sure and seat 1 keeps its pair."""
    hands = ["Q 3 4 6 7", "K K 5 5", "8 9 10 A"]
    assert follow_of(hands, "Q") is None
