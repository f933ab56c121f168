"""Endgames of the computer player (RULES.md G-6 and each game's play rules): positions the
planner used to lose, as a seat sees them (:class:`paizhuo_engine.ai.view.View`)."""

from __future__ import annotations

from support import cards

from paizhuo_engine.ai.endgame import starts_sure_line, sure_line
from paizhuo_engine.ai.plan import plan_hand, shape_of
from paizhuo_engine.ai.simple import Action
from paizhuo_engine.ai.strategy import decide
from paizhuo_engine.ai.view import View
from paizhuo_engine.movegen import pack_cards, unpack
from paizhuo_engine.moves import legal_leads
from paizhuo_engine.readings import Reading
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu.rules import ZRules


def reading_of(text: str, rules, kind: str) -> Reading:
    """The reading of ``text`` as a ``kind`` lead in the game of ``rules``."""
    packed = pack_cards(cards(text))
    return next(p[1] for p in legal_leads(cards(text), rules)
                if p[0] == packed and p[1].kind == kind)


def view(rules, hand: str, unseen: str, counts: list[int], *, seat: int = 0,
         lead: tuple[int, str, str] | None = None, partners=(), opponents=None,
         next_seat: int | None = None, deck: int = 54, played=None) -> View:
    """The view of ``seat`` holding ``hand``: every card of the deck that is neither in
    ``hand`` nor in ``unseen`` has been played."""
    mine = cards(hand)
    hidden = cards(unseen)
    seen = [c for c in range(deck) if c not in mine and c not in hidden]
    players = len(counts)
    counts = list(counts)
    counts[seat] = len(mine)
    to_beat = None
    if lead is not None:
        owner, text, kind = lead
        to_beat = (owner, reading_of(text, rules, kind))
    others = frozenset(set(range(players)) - {seat})
    partners = frozenset(partners)
    opponents = frozenset(opponents) if opponents is not None else others - partners
    return View(seat=seat, players=players, rules=rules, hand=tuple(sorted(mine)),
                counts=tuple(counts), lead=to_beat, seen=pack_cards(seen), partners=partners,
                opponents=opponents, out=tuple(s for s in range(players) if not counts[s]),
                may_pass=lead is not None, next_seat=(seat + 1) % players
                if next_seat is None else next_seat,
                played=frozenset(range(players)) if played is None else frozenset(played))


def ranks(action: Action) -> list[int]:
    return sorted(c // 4 if c < 52 else c - 39 for c in action.cards)


def test_s3_pairs_ace_beats_kings_when_nothing_unseen_can_beat_it() -> None:
    """S-3 / S-5 (手把一 3 人): JJ QQ KK AA against KK, one 2 unseen, both jokers gone:
    AA cannot be beaten (one 2 is no pair), then JJQQKK goes out as one 联对."""
    v = view(SRules(), "J J Q Q K K A A", "2 3 4 5 6 7 8 9", [0, 4, 4],
             lead=(1, "K K", "pair"))
    action = decide(v)
    assert ranks(action) == [11, 11]
    assert sure_line(v) is not None


def test_z4_spy_plays_big_joker_then_three_aces() -> None:
    """Z-3 / Z-4 (抓特务 3 人): the spy with ♠A♥A♣A 大王 against a single: 大王 wins the
    trick and AAA cannot be beaten (one 2 unseen), so it plays instead of passing."""
    v = view(ZRules(), "♠A ♥A ♣A 大王", "2 3 4 5 6 7 8 9 10 J", [0, 5, 5],
             lead=(1, "5", "single"))
    action = decide(v)
    assert ranks(action) == [14]


def test_w4_pair_chain_counts_as_a_sure_winner() -> None:
    """W-4 (挖坑 标准): the digger with 7 1010 JJ QQ KK, one A unseen, leads the 双顺 (no
    unseen cards make a higher one, and no bomb is possible) and then goes out with 7."""
    v = view(WRules(), "7 10 10 J J Q Q K K", "A 3 4 5 6 8 9", [0, 4, 3], deck=52)
    action = decide(v)
    assert ranks(action) == [7, 7, 8, 8, 9, 9, 10, 10]


def test_w4_bomb_order_and_triple_before_bomb() -> None:
    """W-4: JJJ with 2222 — the bomb is unbeatable, so it goes first and JJJ goes out."""
    v = view(WRules(), "J J J 2 2 2 2", "A A 3 4 5 6 8 9 K", [0, 5, 4], deck=52)
    action = decide(v)
    assert ranks(action) == [12, 12, 12, 12]
    line = sure_line(v)
    assert line is not None and len(line) == 2


def test_z4_two_groups_left_leads_the_harder_to_beat_one() -> None:
    """Z-4 (抓特务): ♦J ♠Q ♠K♣K♦K with aces unseen: lead KKK+J (few hands beat a 三带一),
    keeping ♠Q, rather than the lone Q first."""
    v = view(ZRules(), "♦J ♠Q ♠K ♣K ♦K", "A A A 2 3 4 5 6 7 8 9 10 大王", [0, 7, 6])
    action = decide(v)
    assert sorted(ranks(action)) == [8, 10, 10, 10]


def test_z7_partner_going_out_is_not_a_trick_the_partner_wins() -> None:
    """Z-7 / G-3 接风 (抓特务 4 人): the partner went out with ♥9; holding 222+3 the seat
    beats it instead of letting the declared spy after it take the lead."""
    v = view(ZRules(), "2 2 2 3", "4 5 6 7 8 9 10 J Q K A 大王 小王", [0, 5, 0, 6],
             lead=(2, "♥9", "single"), partners=[2], opponents=[1, 3])
    action = decide(v)
    assert action.kind == "play"


def test_w5_farmer_does_not_overtake_the_partner_when_the_digger_has_passed() -> None:
    """W-5 (挖坑): the other farmer's single stands once the digger passed — no point
    beating it, even with the digger short."""
    # seat 0 farmer, seat 1 farmer (partner) led, seat 2 the digger passed; then seat 0.
    v = view(WRules(), "4 8 K A", "3 5 6 7 9 10 J Q", [0, 5, 2], deck=52,
             lead=(1, "9", "single"), partners=[1], opponents=[2], next_seat=1)
    assert decide(v).kind == "pass"


def test_w5_farmer_feeds_a_one_card_partner_sitting_next() -> None:
    """W-5 (挖坑): the partner next to act holds one card: lead the lowest single (♠3),
    which the partner can beat to go out, not the pair 33."""
    v = view(WRules(), "3 3 8 9 9 K", "4 5 6 7 10 J Q A 2", [0, 1, 8], deck=52,
             partners=[1], opponents=[2], next_seat=1)
    action = decide(v)
    assert ranks(action) == [0]


def test_w4_digger_sheds_a_low_triple_chain_before_a_low_single() -> None:
    """W-4 (挖坑): with 999 101010 and a lone 4, lead the 三顺 (it is harder to get rid of
    later), not ♣4."""
    v = view(WRules(), "4 9 9 9 10 10 10 Q K A 2", "3 5 6 7 8 J Q K A 2 3 5",
             [0, 10, 10], deck=52)
    action = decide(v)
    assert len(action.cards) == 6


def test_s3_plane_is_planned_as_one_play() -> None:
    """S-3 (手把一 飞机): 333 444 9 10 J QQ K A 2 plans as two plays — the straight 9-A and
    the 飞机 333444+Q+2 — not 333+Q and 444+2 apart."""
    shape = shape_of(SRules())
    plan = plan_hand(unpack(pack_cards(cards("3 3 3 4 4 4 9 10 J Q Q K A 2"))), shape)
    assert len(plan) == 2
    plane = next(g for g in plan if g.kind == "triple_one")
    assert plane.ranks == (0, 1) and plane.size == 8


def test_g6_a_won_line_is_never_passed_away_and_pass_keeps_none() -> None:
    """G-6: ``starts_sure_line`` holds for the chosen play in a won position; a pass
    never keeps a won line."""
    v = view(SRules(), "J J Q Q K K A A", "2 3 4 5 6 7 8 9", [0, 4, 4],
             lead=(1, "K K", "pair"))
    action = decide(v)
    assert action.kind == "play"
    assert starts_sure_line(v, (pack_cards(action.cards), action.reading))
    assert not starts_sure_line(v, None)


def test_w4_a_bomb_unseen_means_no_sure_line() -> None:
    """W-4: the same hand with four unseen aces is no sure line (a bomb beats the chain)."""
    v = view(WRules(), "7 10 10 J J Q Q K K", "A A A A 3 4 5", [0, 4, 3], deck=52)
    assert sure_line(v) is None


def test_z7_heads_up_with_the_other_hand_known_looks_ahead() -> None:
    """Z-7 (抓特务 3 人): the spy with 8 J 22 against the last civilian, whose 9 10 K A are
    the only unseen cards: 22 first (then 8, and J goes out over the civilian's lead)
    wins; leading 8 first loses."""
    v = view(ZRules(), "8 J 2 2", "9 10 K A", [0, 4, 0], opponents=[1])
    assert ranks(decide(v)) == [12, 12]
    assert ranks(decide(v, sound=False)) == [5]


def test_w5_heads_up_needs_the_other_hand_known() -> None:
    """W-5: with cards still out of sight besides the other hand, no look-ahead applies."""
    from paizhuo_engine.ai.endgame import headsup_move

    v = view(WRules(), "8 J 2 2", "9 10 K A 3", [0, 4, 0], deck=52, opponents=[1, 2])
    assert headsup_move(v) == (False, None)


def test_s4_pass_a_ba_yi_single_when_the_next_seat_must_block() -> None:
    """S-4 把一必拦 / 包赔 (手把一 3 人): the 把一 player (seat 2) led ♥J; seat 1 acts after
    this seat and must beat it if it can. Beating it here would leave only singles to lead
    into the 把一 player, so this seat passes."""
    v = view(SRules(), "4 6 9 K", "3 5 7 8 10 Q A 2 大王", [0, 6, 1],
             lead=(2, "♥J", "single"))
    assert decide(v).kind == "pass"
    assert decide(v, sound=False).kind == "play"


def test_g6_hard_keeps_the_planners_move_unless_another_is_clearly_better() -> None:
    """困难 (G-6): another candidate replaces the planner's choice (column 0) only when
    its paired advantage over the sampled deals is clear."""
    from paizhuo_engine.ai.search import _pick

    assert _pick([]) == 0
    assert _pick([[0, 2], [0, 2], [0, 2]]) == 1  # always better
    assert _pick([[0, 8], [0, -6], [0, -1]]) == 0  # better on average, by noise
    assert _pick([[1, 0], [1, 0]]) == 0
