"""RULES.md G-3, G-5, Z-3/Z-4, W-4/W-7, S-2/S-3: the legal-move generators of every game
through the one interface (engine.moves), against brute force.

The reference is brute force: every sub-multiset of a small hand, classified by the
game's own classifier (``paizhuo_engine.<game>.rules.classify``) under the rule settings drawn,
and filtered by the game's rules (follows must beat by the game's ``beats``; 手把一 never
leads a bomb and never keeps a lone joker). Generated plays must equal it: nothing
missing, nothing extra, no duplicates; the lazy cheapest-first order yields the same
plays in the documented order. ``MOVES_LONG=1`` runs many more examples.
"""

from __future__ import annotations

import itertools
import os
import random
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine.cards import RBJ, RSJ, cards_of_rank, parse_cards, resolve
from paizhuo_engine.errors import MoveError
from paizhuo_engine.movegen import KIND_ORDER, Play, pack_counts, unpack
from paizhuo_engine.moves import (
    any_beating,
    cards_for,
    iter_plays,
    legal_follows,
    legal_leads,
    legal_plays,
    lowest_single,
    turn_plays,
)
from paizhuo_engine.readings import Reading
from paizhuo_engine.shoubayi import rules as srules
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.shoubayi.rules import SRules
from paizhuo_engine.wakeng import rules as wrules
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.wakeng.rules import WRules
from paizhuo_engine.zhuatewu import rules as zrules
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

Counts = tuple[int, ...]
LONG = pytest.mark.skipif(not os.environ.get("MOVES_LONG"),
                          reason="long brute-force run: set MOVES_LONG=1")
CHAIN_ORDER = (11, 12, *range(12))  # A 2 3 … A: hands concentrated around chains


# ---- the games' own classifiers and comparisons ----------------------------------------------
def ids_of(counts: Counts) -> list[int]:
    return [c for r in range(15) for c in cards_of_rank(r)[: counts[r]]]


def classify(rules: object, counts: Counts) -> list[Reading]:
    if isinstance(rules, ZRules):
        return zrules.classify(ids_of(counts), rules)
    if isinstance(rules, WRules):
        return wrules.classify(ids_of(counts), rules)
    return srules.classify_counts(counts)


def beats(rules: object, new: Reading, old: Reading) -> bool:
    mod = zrules if isinstance(rules, ZRules) else wrules if isinstance(rules, WRules) else srules
    return mod.beats(new, old)


def keeps_lone_joker(hand: Counts, sub: Counts) -> bool:
    rest = [h - s for h, s in zip(hand, sub, strict=True)]
    return sum(rest) == 1 and (rest[RSJ] == 1 or rest[RBJ] == 1)


@lru_cache(maxsize=2048)
def brute(rules: object, hand: Counts) -> tuple[tuple[Counts, Reading], ...]:
    """Every (sub-multiset, reading) that may be played (bombs included, leads or not)."""
    out = []
    shoubayi = isinstance(rules, SRules)
    for sub in itertools.product(*(range(c + 1) for c in hand)):
        if any(sub) and not (shoubayi and keeps_lone_joker(hand, sub)):
            out += [(sub, r) for r in classify(rules, sub)]
    return tuple(out)


def brute_leads(rules: object, hand: Counts) -> set[tuple[Counts, Reading]]:
    shoubayi = isinstance(rules, SRules)
    return {p for p in brute(rules, hand) if not (shoubayi and p[1].bomb)}


def brute_follows(rules: object, hand: Counts, t: Reading) -> set[tuple[Counts, Reading]]:
    return {p for p in brute(rules, hand) if beats(rules, p[1], t)}


def as_set(plays: list[Play]) -> set[tuple[Counts, Reading]]:
    return {(unpack(m), r) for m, r in plays}


# ---- settings and hands ----------------------------------------------------------------------
z_rules = st.builds(ZRules, three_high=st.booleans(), joker_pair=st.booleans(),
                    chain_ends=st.sampled_from("abc"), min_pair_chain=st.sampled_from([2, 3]))
w_rules = st.sampled_from([WRules(), WRules(ruleset="陕西")])
s_rules = st.just(SRules())
any_rules = st.one_of(z_rules, w_rules, s_rules)


@st.composite
def hands(draw: st.DrawFn, rules: object, max_cards: int) -> Counts:
    """A hand concentrated on a few consecutive chain ranks (so chains, triples and fours
    are common, A and 2 low too), jokers (not in 挖坑) and a few stray cards."""
    counts = [0] * 15
    start = draw(st.integers(0, len(CHAIN_ORDER) - 1))
    width = draw(st.integers(1, 8))
    cap = draw(st.integers(1, 4))
    for r in CHAIN_ORDER[start:start + width]:
        room = min(cap - counts[r], max_cards - sum(counts))
        counts[r] += draw(st.integers(0, max(room, 0)))
    jokers = not isinstance(rules, WRules)
    if jokers:
        for r in (RSJ, RBJ):
            if sum(counts) < max_cards and draw(st.booleans()):
                counts[r] = 1
    for r in draw(st.lists(st.integers(0, 14 if jokers else 12), max_size=4)):
        if sum(counts) < max_cards and counts[r] < (1 if r >= RSJ else 4):
            counts[r] += 1
    return tuple(counts)


def targets(draw: st.DrawFn, rules: object, hand: Counts, n: int) -> list[Reading]:
    """Readings to follow: readings the hand can make (same type and size occur), those
    of another hand, and every kind of a game at random sizes and keys."""
    other = draw(hands(rules, 12))
    pool = sorted({r for _m, r in brute(rules, hand)} | {r for _m, r in brute(rules, other)},
                  key=lambda r: (r.kind, r.size, r.key, r.bomb))
    kinds = sorted(KIND_ORDER)
    arbitrary = st.builds(lambda k, s, key: Reading(k, s, key, k == "bomb"),
                          st.sampled_from(kinds), st.integers(1, 14), st.integers(-3, 16))
    choice = st.sampled_from(pool) | arbitrary if pool else arbitrary
    return draw(st.lists(choice, min_size=1, max_size=n))


# ---- the check -------------------------------------------------------------------------------
def order_key(play: Play) -> tuple[int, int, int]:
    r = play[1]
    return (r.size, KIND_ORDER[r.kind], r.key)


def check(rules: object, hand: Counts, follow: list[Reading]) -> None:
    packed = pack_counts(hand)
    leads = legal_leads(packed, rules)
    assert len(leads) == len(set(leads)), "duplicate lead"
    assert as_set(leads) == brute_leads(rules, hand)
    assert legal_leads(ids_of(hand), rules) == leads  # card ids or packed: the same
    lazy = list(iter_plays(packed, rules))
    assert len(lazy) == len(leads) and set(lazy) == set(leads)
    assert [order_key(p) for p in lazy] == sorted(order_key(p) for p in lazy)
    singles = [p for p in leads if p[1].kind == "single"]
    low = lowest_single(packed, rules)
    assert low == (min(singles, key=lambda p: p[1].key) if singles else None)
    for t in follow:
        plays = legal_follows(packed, rules, t)
        assert len(plays) == len(set(plays)), ("duplicate follow", t)
        assert as_set(plays) == brute_follows(rules, hand, t), t
        assert legal_plays(packed, rules, t) == plays
        lazy = list(iter_plays(packed, rules, t))
        assert len(lazy) == len(plays) and set(lazy) == set(plays)
        # cheapest first: the same type by ascending key, then bombs by ascending key
        keys = [(p[1].bomb and not t.bomb, p[1].key) for p in lazy]
        assert keys == sorted(keys), t
        first = any_beating(packed, rules, t)
        assert first == (lazy[0] if lazy else None)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.data())
def test_zhuatewu_matches_brute_force(data: st.DataObject) -> None:
    """Z-3, Z-4 under every setting (带3, 大小王成对, 连牌规则 a/b/c, 连对最少): leads and
    follows equal brute force over every sub-multiset (≤ 10 cards)."""
    rules = data.draw(z_rules)
    hand = data.draw(hands(rules, 10))
    check(rules, hand, targets(data.draw, rules, hand, 6))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.data())
def test_wakeng_matches_brute_force(data: st.DataObject) -> None:
    """W-4 (标准: bombs, triple chains) and W-7 (陕西: 3 high, 四条, chains 4 … K):
    leads and follows equal brute force (≤ 11 cards)."""
    rules = data.draw(w_rules)
    hand = data.draw(hands(rules, 11))
    check(rules, hand, targets(data.draw, rules, hand, 6))


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.data())
def test_shoubayi_matches_brute_force(data: st.DataObject) -> None:
    """S-2, S-3: the packed 手把一 generator equals brute force (no bomb lead, no lone
    joker kept, 三带一 / 四带二 chains with any kickers), ≤ 11 cards."""
    hand = data.draw(hands(SRules(), 11))
    check(SRules(), hand, targets(data.draw, SRules(), hand, 6))


@LONG
@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_long_every_game_matches_brute_force(data: st.DataObject) -> None:
    """Opt-in (``MOVES_LONG=1``): many more hands of up to 12 cards, every game."""
    rules = data.draw(any_rules)
    hand = data.draw(hands(rules, 12))
    check(rules, hand, targets(data.draw, rules, hand, 8))


# ---- table tests ----------------------------------------------------------------------------------
def plays_text(plays: list[Play]) -> set[tuple[str, str, int]]:
    names = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "w", "W")
    return {("".join(names[r] * n for r, n in enumerate(unpack(m)) if n), r.kind, r.key)
            for m, r in plays}


def test_z4_chain_rules_a_b_c() -> None:
    """Z-4 连牌规则: a — A only at the top; b — A2345 and 23456 chain (A low keyed -2 …),
    never KA2; c — as b for straights, pair chains hold neither 2 nor A."""
    hand = cards("A2345 6 KK AA 22 QQ")
    straights = {t for t, kind, _k in plays_text(legal_leads(hand, ZRules())) if kind == "straight"}
    assert "3456A" not in straights and "34562" not in straights
    b = plays_text(legal_leads(hand, ZRules(chain_ends="b")))
    assert ("345A2", "straight", 2) in b and ("34562", "straight", 3) in b
    assert ("QQKKAA", "pair_chain", 11) in b and not any(t == "KKAA22" for t, _k, _x in b)
    c = plays_text(legal_leads(hand, ZRules(chain_ends="c")))
    assert ("345A2", "straight", 2) in c
    assert not any(kind == "pair_chain" and "A" in t for t, kind, _k in c)
    assert ("QQKK", "pair_chain", 10) in c
    assert ("QQKK", "pair_chain", 10) not in plays_text(
        legal_leads(hand, ZRules(chain_ends="c", min_pair_chain=3)))


@pytest.mark.parametrize("rules", [ZRules(chain_ends="b"), ZRules(chain_ends="c"), SRules()])
def test_thirteen_rank_straight_is_read_once(rules: object) -> None:
    """Z-4 b/c, S-2: all thirteen ranks make one straight, A 2 3 … K (2 only low), never
    also 2 3 … K A."""
    hand = cards("A23456789 10JQK 5")
    longest = [r for _m, r in legal_leads(hand, rules) if r.kind == "straight" and r.size == 13]
    assert longest == [classify(rules, srules.counts_of(cards("A23456789 10JQK")))[0]]


def test_z3_three_high_and_joker_pair() -> None:
    """Z-3 带3: a 3 beats a 2; 大小王成对: the joker pair is the highest pair, and a pair
    of 2s does not beat it."""
    rules = ZRules(three_high=True, joker_pair=True)
    two = Reading("single", 1, rules.rank_order()[12])
    assert plays_text(legal_follows(cards("3 4 2"), rules, two)) == {("3", "single", 13)}
    pair22 = zrules.classify(cards("22"), rules)[0]
    assert plays_text(legal_follows(cards("小王 大王 33"), rules, pair22)) == {
        ("33", "pair", 13), ("wW", "pair", 16)}
    assert legal_follows(cards("22 33"), rules, Reading("pair", 2, 16)) == []
    assert not any(r.kind == "pair" for _m, r in legal_leads(cards("小王 大王"), ZRules()))


def test_z4_kickers() -> None:
    """Z-4.5/4.6: 三带一 carries one card of another rank (a joker too), 四带二 two singles
    or one pair, never two pairs; the kicker never counts."""
    plays = plays_text(legal_leads(cards("5555 77 小王"), ZRules()))
    assert ("555w", "triple_one", 2) in plays and ("5557", "triple_one", 2) in plays
    assert ("555577", "four_two", 2) in plays and ("55557w", "four_two", 2) in plays
    assert not any(kind == "four_two" and len(t) == 8 for t, kind, _k in plays)


def test_w4_bombs_and_w7_shaanxi() -> None:
    """W-4: a bomb beats any non-bomb and leads; W-7 陕西: 四条 is no bomb, 连牌 of three
    within 4 … K, 3 the highest single."""
    hand = cards("9999 456 3")
    straight = wrules.classify(cards("34567"), WRules())[0]
    assert plays_text(legal_follows(hand, WRules(), straight)) == {("9999", "bomb", 6)}
    assert ("9999", "bomb", 6) in plays_text(legal_leads(hand, WRules()))
    sx = WRules(ruleset="陕西")
    lead = plays_text(legal_leads(hand, sx))
    assert ("9999", "four", 6) in lead and ("456", "straight", 3) in lead
    assert legal_follows(hand, sx, straight) == []
    two = Reading("single", 1, sx.rank_order()[12])
    assert plays_text(legal_follows(hand, sx, two)) == {("3", "single", 13)}


def test_s3_packed_generator_equals_the_reference_generator() -> None:
    """S-3: on the worst 27-card hands the game's generator gives exactly the plays of
    the reference generator on rank counts (tests/shoubayi_reference.py), leading and
    following."""
    from shoubayi_reference import legal_plays as counts_plays

    for text in ("3 4444 5555 6666 7777 8 9 10 J Q K A 2 小王 大王",
                 "3333 4444 5555 6666 7777 8888 9 小王 大王"):
        hand = cards(text)
        counts = srules.counts_of(hand)
        assert as_set(legal_leads(hand, SRules())) == set(counts_plays(counts))
        for t in (Reading("triple_one", 8, 1), Reading("four_two", 12, 3),
                  Reading("single", 1, 0), Reading("bomb", 4, 1, bomb=True)):
            assert as_set(legal_follows(hand, SRules(), t)) == set(counts_plays(counts, t))


def test_lazy_queries_give_the_cheapest_play() -> None:
    """The cheapest-first order: the lowest single (never one that keeps a lone joker,
    S-3), the lowest 四带二 chain answer with the lowest kickers, ``None`` when nothing
    beats."""
    hand = cards("3 4444 5555 6666 7777 8 9 10 J Q K A 2 小王 大王")
    assert plays_text([lowest_single(hand, SRules())]) == {("3", "single", 0)}
    first = any_beating(hand, SRules(), Reading("four_two", 12, 1))
    assert plays_text([first]) == {(_sorted_text("4444 5555 3 666"), "four_two", 4)}
    assert any_beating(cards("3 4"), SRules(), Reading("single", 1, 14)) is None
    assert plays_text([lowest_single(cards("3 小王"), SRules())]) == {("w", "single", 13)}


def _sorted_text(text: str) -> str:
    names = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "w", "W")
    counts = srules.counts_of(cards(text))
    return "".join(names[r] * n for r, n in enumerate(counts) if n)


def test_g1_cards_for_keeps_spy_cards_back() -> None:
    """G-1: concrete cards are chosen as a rank-only 出 chooses them — never a spy card
    while another card of that rank is left, the lowest suit ♦ ♣ ♥ ♠ first."""
    hand = sorted(cards("♠A ♦A ♥A 4"))
    spy = cards("♠A")
    (play,) = [p for p in legal_leads(hand, ZRules()) if p[1].kind == "pair"]
    chosen = cards_for(play, hand, spy)
    assert chosen == sorted(resolve(parse_cards("AA"), hand, spy))
    assert cards("♠A")[0] not in chosen
    (triple,) = [p for p in legal_leads(hand, ZRules()) if p[1].kind == "triple"]
    assert cards_for(triple, hand, spy) == sorted(cards("♠A ♥A ♦A"))
    with pytest.raises(ValueError):
        cards_for(pack_counts([0] * 11 + [4] + [0] * 3), hand)


# ---- the trusted apply path ------------------------------------------------------------------
def test_g5_play_reading_keeps_the_generated_reading() -> None:
    """G-5: 333344445556 led without a type name is refused by play(); the generated play
    (四带二 chain) applies through play_reading and keeps its reading."""
    game = SGame.from_hands([cards("333344445556 7 8"), cards("9 10 J")])
    hand = game.hands[0]
    meant = pack_counts(srules.counts_of(cards("333344445556")))
    (play,) = [p for p in legal_leads(hand, game.rules) if p[0] == meant and p[1].kind == "four_two"]
    assert (meant, Reading("triple_one", 12, 3)) in legal_leads(hand, game.rules)
    chosen = cards_for(play, hand)
    with pytest.raises(MoveError):
        game.play(0, chosen)
    move = game.play_reading(0, chosen, play[1])
    assert move.reading == play[1] and game.lead_reading() == play[1]
    assert sorted(game.hands[0]) == sorted(cards("7 8"))


def test_play_reading_refuses_without_changing_state() -> None:
    """The trusted path still checks the turn, the cards held, that a lead may take the
    reading (S-3.4: no bomb) and that a follow beats; a refusal changes nothing."""
    game = SGame.from_hands([cards("3333 4 5"), cards("6 7 8")])
    before = game.to_json()
    bomb = Reading("bomb", 4, 0, bomb=True)
    with pytest.raises(MoveError):
        game.play_reading(0, cards("3333"), bomb)  # a bomb may not lead
    with pytest.raises(MoveError):
        game.play_reading(1, cards("6"), Reading("single", 1, 3))  # not their turn
    with pytest.raises(MoveError):
        game.play_reading(0, cards("9"), Reading("single", 1, 6))  # not held
    assert game.to_json() == before
    game.play_reading(0, cards("5"), Reading("single", 1, 2))
    before = game.to_json()
    with pytest.raises(MoveError):
        game.play_reading(1, [c for c in game.hands[1] if c // 4 == 3],
                          Reading("single", 1, 2))  # a 6 read as key 2 does not beat the 5
    assert game.to_json() == before


def random_games() -> list[object]:
    out: list[object] = []
    for seed in range(3):
        for rules in (ZRules(), ZRules(chain_ends="b", joker_pair=True, three_high=True)):
            for players in (3, 4):
                g = ZGame.deal(players, rules, seed)
                g.declare_timeout()
                out.append(g)
        for rules in (WRules(), WRules(ruleset="陕西")):
            g = WGame.deal(rules, seed)
            while g.phase == "bid":
                g.bid_timeout()
            if g.phase == "bury":
                g.bury_timeout()
            out.append(g)
        for players in (2, 3, 5):
            out.append(SGame.deal(players, SRules(), seed))
    return out


@pytest.mark.parametrize("game", random_games(), ids=lambda g: type(g).__name__)
def test_random_self_play_through_the_trusted_path(game: object) -> None:
    """G-3: random games where every move is a generated play (or a pass) applied with
    play_reading: every generated play classifies back to its reading, the move is
    accepted, and every game ends."""
    rnd = random.Random(0)
    for _ in range(2000):
        if game.over:
            break
        seat = game.turn
        plays = turn_plays(game)
        if game.lead is not None and (not plays or rnd.random() < 0.3):
            try:
                game.pass_turn(seat)
                continue
            except MoveError:
                assert plays  # only must-block (S-4) refuses a pass, and then a play exists
        m, r = rnd.choice(plays)
        chosen = cards_for(m, game.hands[seat], game.protected())
        assert r in game.classify(chosen)
        game.play_reading(seat, chosen, r)
    assert game.over
