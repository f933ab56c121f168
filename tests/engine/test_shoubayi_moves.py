"""RULES.md S-2, S-3 (G-3, G-5): 手把一 legal-move generation (the game's generator behind
``paizhuo_engine.moves``), on rank multisets.

The reference is brute force: every sub-multiset of a small hand, classified by
``classify_counts`` and filtered by the rules (no bomb lead, S-3.4; follows beat the
play, S-3; never keep a lone joker, S-3).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import cards

from paizhuo_engine import moves
from paizhuo_engine.cards import RBJ, RSJ
from paizhuo_engine.movegen import pack_counts, unpack
from paizhuo_engine.readings import Reading
from paizhuo_engine.shoubayi.rules import Counts, SRules, beats, classify_counts, counts_of

Play = tuple[Counts, Reading]
POS_RANK = (-1, 11, 12, *range(11), 11)  # chain position → natural rank (S-2)
RULES = SRules()


def legal_plays(hand: Counts, to_beat: Reading | None = None) -> list[Play]:
    """The game's generator (:mod:`paizhuo_engine.moves`) on a rank-count hand, plays as
    ``(rank counts, reading)``."""
    return [(unpack(p), r) for p, r in moves.legal_plays(pack_counts(hand), RULES, to_beat)]


def can_beat(hand: Counts, to_beat: Reading) -> bool:
    """S-4 把一必拦's question as the game asks it: is there a cheapest follow?"""
    return moves.any_beating(pack_counts(hand), RULES, to_beat) is not None


def has_play(hand: Counts, to_beat: Reading | None) -> bool:
    """Whether the player to act has any play: a cheapest lead or follow."""
    return next(moves.iter_plays(pack_counts(hand), RULES, to_beat), None) is not None


def hand_of(text: str) -> Counts:
    return counts_of(cards(text))


def reading_of(text: str, kind: str) -> Reading:
    (r,) = [x for x in classify_counts(hand_of(text)) if x.kind == kind]
    return r


def plays_of(hand: Counts, to_beat: Reading | None) -> set[tuple[str, str, int, int]]:
    """Plays as comparable tuples: (ranks written out, kind, size, key)."""
    out = set()
    for m, r in legal_plays(hand, to_beat):
        out.add((_text(m), r.kind, r.size, r.key))
    return out


def _text(m: Counts) -> str:
    names = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "w", "W")
    return "".join(names[r] * m[r] for r in range(15))


# ---- brute-force reference --------------------------------------------------------------------
def leaves_lone_joker(hand: Counts, sub: Counts) -> bool:
    rest = [h - s for h, s in zip(hand, sub, strict=True)]
    return sum(rest) == 1 and (rest[RSJ] == 1 or rest[RBJ] == 1)


@lru_cache(maxsize=4096)
def brute(hand: Counts) -> tuple[Play, ...]:
    """Every (sub-multiset, reading) of ``hand`` that may be played, bombs included."""
    out = []
    for sub in itertools.product(*(range(c + 1) for c in hand)):
        if any(sub) and not leaves_lone_joker(hand, sub):
            out += [(sub, r) for r in classify_counts(sub)]
    return tuple(out)


def brute_lead(hand: Counts) -> set[Play]:
    return {p for p in brute(hand) if not p[1].bomb}


def brute_follow(hand: Counts, to_beat: Reading) -> set[Play]:
    return {p for p in brute(hand) if beats(p[1], to_beat)}


# ---- hands --------------------------------------------------------------------------------------
@st.composite
def hands(draw: st.DrawFn, max_cards: int, max_width: int = 6) -> Counts:
    """Hands concentrated on a few consecutive chain positions (so chains, triples and
    fours are common, A and 2 low too) with at most ``cap`` of a rank there, jokers half
    the time and a few stray cards."""
    counts = [0] * 15
    low = draw(st.integers(1, 14))
    width = draw(st.integers(1, max_width))
    cap = draw(st.integers(1, 4))  # 1 or 2: long straights and pair chains
    for pos in range(low, min(low + width, 15)):
        r = POS_RANK[pos]
        counts[r] += draw(st.integers(0, min(cap - counts[r], max_cards - sum(counts))))
    for r in (RSJ, RBJ):
        if sum(counts) < max_cards and draw(st.booleans()):
            counts[r] = 1
    for r in draw(st.lists(st.integers(0, 14), max_size=4)):
        if sum(counts) < max_cards and counts[r] < (1 if r >= RSJ else 4):
            counts[r] += 1
    return tuple(counts)


@st.composite
def any_reading(draw: st.DrawFn) -> Reading:
    """A reading of any 手把一 type, size and key (S-3), whether or not the hand can
    make it."""
    kind = draw(st.sampled_from(["single", "pair", "straight", "pair_chain", "triple_one",
                                 "four_two", "bomb"]))
    if kind == "single":
        return Reading(kind, 1, draw(st.integers(0, 14)))
    if kind == "pair":
        return Reading(kind, 2, draw(st.sampled_from([*range(13), 15])))
    if kind == "bomb":
        return Reading(kind, 4, draw(st.integers(0, 12)), bomb=True)
    if kind in ("straight", "pair_chain"):
        length = draw(st.integers(5 if kind == "straight" else 3, 13))
        width = 1 if kind == "straight" else 2
        return Reading(kind, length * width, draw(st.integers(1, 15 - length)))
    k = draw(st.integers(1, 4))
    key = draw(st.integers(0, 12)) if k == 1 else draw(st.integers(1, 15 - k))
    return Reading(kind, k * (4 if kind == "triple_one" else 6), key)


def targets_from(draw: st.DrawFn, hand: Counts, other: Counts, n: int) -> list[Reading]:
    """Readings to follow: readings the hand itself can make (so same kind and size
    occur), readings of a random multiset and arbitrary readings."""
    pool = sorted({r for _m, r in brute(hand)} | set(classify_counts(other)),
                  key=lambda r: (r.kind, r.size, r.key, r.bomb))
    extra = [Reading("bomb", 4, k, bomb=True) for k in (0, 12)] + [Reading("pair", 2, 15)]
    return draw(st.lists(st.sampled_from(pool + extra) | any_reading(), min_size=1, max_size=n))


def check_against_brute(hand: Counts, targets: list[Reading]) -> None:
    lead = legal_plays(hand, None)
    assert len(lead) == len(set(lead)), "duplicate lead"
    assert set(lead) == brute_lead(hand)
    assert has_play(hand, None) == bool(lead)
    for t in targets:
        follow = legal_plays(hand, t)
        assert len(follow) == len(set(follow)), ("duplicate follow", t)
        assert set(follow) == brute_follow(hand, t), t
        assert can_beat(hand, t) == bool(follow), (hand, t)
        assert has_play(hand, t) == bool(follow)


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_matches_brute_force(data: st.DataObject) -> None:
    """S-3: legal_plays equals brute force over every sub-multiset (≤ 10 cards), leading
    and following; can_beat equals "brute force found a follow"."""
    hand = data.draw(hands(10, max_width=10))
    other = data.draw(hands(12))
    check_against_brute(hand, targets_from(data.draw, hand, other, 8))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_matches_brute_force_twelve_cards(data: st.DataObject) -> None:
    """As above with up to 12 cards (四带二 chains of two and 三带一 chains of three fit)."""
    hand = data.draw(hands(12, max_width=13))
    other = data.draw(hands(12))
    check_against_brute(hand, targets_from(data.draw, hand, other, 8))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_big_hands_consistent(data: st.DataObject) -> None:
    """Up to 27 cards (a 2-player deal): every play classifies back to its reading, is
    taken from the hand, beats what it answers, and appears once; a follow is exactly
    the lead plays and bombs that beat; can_beat agrees."""
    hand = data.draw(hands(27, max_width=13))
    total = sum(hand)
    lead = legal_plays(hand, None)
    assert len(lead) == len(set(lead))
    bombs = [(m, r) for m, r in brute_bombs(hand) if not leaves_lone_joker(hand, m)]
    everything = lead + bombs
    for m, r in everything:
        assert r in classify_counts(m)
        assert all(a <= b for a, b in zip(m, hand, strict=True))
        assert not (total - r.size == 1 and leaves_lone_joker(hand, m))
    pool = sorted({r for _m, r in everything}, key=lambda r: (r.kind, r.size, r.key, r.bomb))
    if not pool:
        return
    for t in data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6)):
        follow = legal_plays(hand, t)
        assert len(follow) == len(set(follow))
        assert all(beats(r, t) and r in classify_counts(m) for m, r in follow)
        assert set(follow) == {p for p in everything if beats(p[1], t)}
        assert can_beat(hand, t) == bool(follow)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_big_hands_match_the_reference_generator(data: st.DataObject) -> None:
    """Up to 27 cards: the game's generator and the reference generator on rank counts
    (tests/shoubayi_reference.py, written the other way round) give the same plays,
    leading and following, and the same answer to "can anything beat it?" (把一必拦)."""
    import shoubayi_reference as reference

    hand = data.draw(hands(27, max_width=13))
    other = data.draw(hands(27, max_width=13))
    lead = legal_plays(hand, None)
    assert set(lead) == set(reference.legal_plays(hand, None))
    pool = sorted({r for _m, r in lead} | set(classify_counts(other)),
                  key=lambda r: (r.kind, r.size, r.key, r.bomb))
    extra = [Reading("bomb", 4, 0, bomb=True), Reading("pair", 2, 15)]
    for t in data.draw(st.lists(st.sampled_from(pool + extra) | any_reading(), min_size=1,
                                max_size=6)):
        follow = legal_plays(hand, t)
        assert set(follow) == set(reference.legal_plays(hand, t)), t
        assert can_beat(hand, t) == reference.can_beat(hand, t) == bool(follow), t


def brute_bombs(hand: Counts) -> list[Play]:
    out = []
    for r in range(13):
        if hand[r] == 4:
            m = [0] * 15
            m[r] = 4
            out.append((tuple(m), Reading("bomb", 4, r, bomb=True)))
    return out


# ---- table tests --------------------------------------------------------------------------------
def test_s34_bomb_never_leads_four_leads_as_triple_one() -> None:
    """S-3.4: a bomb may not lead; four equal cards led are a 三带一."""
    hand = hand_of("8888 3")
    lead = legal_plays(hand, None)
    assert not any(r.bomb for _m, r in lead)
    assert ("8888", "triple_one", 4, 5) in plays_of(hand, None)


def test_s34_bomb_answers_a_pair() -> None:
    """S-3.4: a bomb beats every non-bomb: 8888 answers QQ."""
    hand = hand_of("8888 3 5")
    qq = reading_of("QQ", "pair")
    assert plays_of(hand, qq) == {("8888", "bomb", 4, 5)}
    assert can_beat(hand, qq)


def test_s34_a_four_answers_triple_one_as_bomb_and_as_triple_one() -> None:
    """S-3.4, G-5: 5555 on 3334 is both a bomb and a higher 三带一 (two readings)."""
    plays = plays_of(hand_of("5555 7"), reading_of("3334", "triple_one"))
    assert ("5555", "bomb", 4, 2) in plays and ("5555", "triple_one", 4, 2) in plays


def test_s3_nothing_but_a_bomb_beats_a_bomb() -> None:
    """S-3.4: 22 and the joker pair never beat a bomb; a higher bomb does."""
    bomb = reading_of("3333", "bomb")
    hand = hand_of("22 小王 大王 5")
    assert legal_plays(hand, bomb) == []
    assert not can_beat(hand, bomb)
    assert plays_of(hand_of("2222 5"), bomb) == {("2222", "bomb", 4, 12)}
    assert plays_of(hand_of("3333 44"), reading_of("4444", "bomb")) == set()


def test_s2_joker_pair_is_the_highest_pair() -> None:
    """S-2: 小王+大王 beats 22; nothing beats it but a bomb."""
    assert can_beat(hand_of("小王 大王 3"), reading_of("22", "pair"))
    assert plays_of(hand_of("小王 大王 3"), reading_of("22", "pair")) == {("wW", "pair", 2, 15)}
    assert not can_beat(hand_of("22 AA 小王"), reading_of("小王大王", "pair"))


@pytest.mark.parametrize(
    ("hand", "to_beat", "expected"),
    [
        ("5 小王", ("4", "single"), {("w", "single", 1, 13)}),  # 5 would keep 小王
        ("55 大王", ("44", "pair"), set()),
        ("6666 大王", ("QQ", "pair"), set()),  # the bomb would keep 大王
        ("6666 大王 3", ("QQ", "pair"), {("6666", "bomb", 4, 3)}),
        ("333 4 小王", ("2223", "triple_one"), set()),
    ],
)
def test_s3_lone_joker_refused_when_following(hand: str, to_beat: tuple[str, str],
                                              expected: set) -> None:
    """S-3: a play that would leave the player holding one joker is refused."""
    t = reading_of(*to_beat)
    assert plays_of(hand_of(hand), t) == expected
    assert can_beat(hand_of(hand), t) == bool(expected)


def test_s3_lone_joker_refused_when_leading() -> None:
    """S-3: leading from 3+小王 only the joker may go; 333 4 小王 leads 333小王, not 3334;
    from 小王 大王 only the pair (either single would keep the other joker)."""
    assert plays_of(hand_of("3 小王"), None) == {("w", "single", 1, 13)}
    lead = plays_of(hand_of("333 4 小王"), None)
    assert ("333w", "triple_one", 4, 0) in lead
    assert ("3334", "triple_one", 4, 0) not in lead
    assert plays_of(hand_of("小王 大王"), None) == {("wW", "pair", 2, 15)}


def test_s32_33334444_is_a_triple_one_chain() -> None:
    """S-3.2: 33334444 is two consecutive 三带一 (333+3, 444+4), keyed 3."""
    hand = hand_of("33334444 9")
    assert ("33334444", "triple_one", 8, 3) in plays_of(hand, None)
    low = reading_of("AAA222 55", "triple_one")  # A low: key 1
    assert low.key == 1
    assert ("33334444", "triple_one", 8, 3) in plays_of(hand, low)


def test_s32_triple_one_needs_a_card_for_every_triple() -> None:
    """S-3.2: 333444 cannot answer AAA222+2 cards without two more cards to carry."""
    low = reading_of("AAA222 55", "triple_one")
    assert not can_beat(hand_of("333444 6"), low)
    assert legal_plays(hand_of("333444 6"), low) == []
    assert can_beat(hand_of("333444 6 小王"), low)
    assert plays_of(hand_of("333444 6 小王"), low) == {("3334446w", "triple_one", 8, 3)}


def test_s2_kkkaaa_with_two_singles() -> None:
    """S-2, S-3.2: KKKAAA carries two cards (A high, key 13); K A 2 never chains."""
    hand = hand_of("KKKAAA222 3 5")
    lead = plays_of(hand, None)
    assert ("35KKKAAA", "triple_one", 8, 13) in lead
    assert ("KKKAAA22", "triple_one", 8, 13) in lead
    assert ("3KAAA222", "triple_one", 8, 1) in lead  # A 2 low
    assert not any(kind == "triple_one" and size == 12 for _t, kind, size, _k in lead)
    qqqkkk = reading_of("QQQKKK 34", "triple_one")
    assert ("35KKKAAA", "triple_one", 8, 13) in plays_of(hand, qqqkkk)


def test_s2_aa2233_is_the_lowest_pair_chain() -> None:
    """S-2, S-3.1: AA2233 is a pair chain keyed 1, the lowest; 223344 beats it; KKAA22
    is no chain."""
    aa2233 = reading_of("AA2233", "pair_chain")
    assert aa2233.key == 1
    lead = plays_of(hand_of("AA223344 KK"), None)
    assert {(t, k) for t, kind, size, k in lead if kind == "pair_chain"} == {
        ("33AA22", 1), ("3344AA22", 1), ("334422", 2)}
    assert plays_of(hand_of("KKAA22 5"), aa2233) == set()
    assert plays_of(hand_of("223344 5"), aa2233) == {("334422", "pair_chain", 6, 2)}
    assert not can_beat(hand_of("QQKKAA22"), reading_of("QQKKAA", "pair_chain"))


def test_s2_straights_a_high_and_low() -> None:
    """S-2: 10JQKA keyed 10 (position), A2345 keyed 1, 2 never after K."""
    lead = plays_of(hand_of("10JQKA2 3456"), None)
    straights = {(t, s, k) for t, kind, s, k in lead if kind == "straight"}
    assert ("TJQKA", 5, 10) in straights
    assert ("3456A2", 6, 1) in straights
    assert ("3456TJQKA2", 10, 1) not in straights
    assert not any(t.endswith("KA2") for t, _s, _k in straights)


def test_s2_thirteen_rank_straight_has_one_reading() -> None:
    """S-2: A 2 3 … K is the longest straight (key 1); 2 3 … K A is the same cards, not
    a second chain, and A never stands at both ends."""
    hand = hand_of("A23456789 10JQK 5")
    straights = [(m, r) for m, r in legal_plays(hand, None) if r.kind == "straight"]
    assert [r for _m, r in straights if r.size >= 13] == [Reading("straight", 13, 1)]
    assert all(r in classify_counts(m) for m, r in straights)
    assert [r.size for _m, r in legal_plays(hand, Reading("straight", 12, 2))] == [12]


def test_g5_several_readings_of_one_multiset() -> None:
    """G-5: 333344445556 is three 三带一 (key 3) and two 四带二 (key 3); both listed."""
    lead = plays_of(hand_of("333344445556 7"), None)
    assert ("333344445556", "triple_one", 12, 3) in lead
    assert ("333344445556", "four_two", 12, 3) in lead
    lead = plays_of(hand_of("333444555666"), None)
    assert ("333444555666", "triple_one", 12, 3) in lead
    assert ("333444555666", "triple_one", 12, 4) in lead


def test_s33_four_two_with_a_joker_and_a_pair_of_kickers() -> None:
    """S-3.3: 四带二 carries any two cards (jokers too); follows need a higher four."""
    t = reading_of("444456", "four_two")
    plays = plays_of(hand_of("5555 小王 大王 3 7"), t)
    assert ("5555wW", "four_two", 6, 2) in plays and ("35555w", "four_two", 6, 2) in plays
    assert ("5555", "bomb", 4, 2) in plays
    # S-3: with one card fewer, 35555+either joker would keep the other joker alone.
    assert plays_of(hand_of("5555 小王 大王 3"), t) == {
        ("5555wW", "four_two", 6, 2), ("5555", "bomb", 4, 2)}
    assert not can_beat(hand_of("4444 小王"), t)  # the bomb would keep 小王 alone
    assert not can_beat(hand_of("444 77 小王 大王 2"), t)
    assert can_beat(hand_of("4444 7 小王"), t)  # bomb 4444 keeps 7 小王
