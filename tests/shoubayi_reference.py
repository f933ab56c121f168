"""The reference 手把一 move generator on rank-count vectors, kept for tests only
(RULES.md S-2, S-3; G-3, G-5): the game's one generator is
:class:`paizhuo_engine.shoubayi.moves.SMoves` behind :mod:`paizhuo_engine.moves`; this
independent implementation (written the other way round: one small generator per hand type on count
tuples, in the manner of DouZero's move generator, and ``can_beat`` by direct checks
without enumerating) cross-checks it on hands too big for brute force
(``tests/engine/test_moves.py``) and is the "before" of ``bench/moves_bench.py``.

A hand and a play are *rank multisets* (:data:`~paizhuo_engine.shoubayi.rules.Counts`:
15 counts by natural rank 0 = 3 … 12 = 2, 13 = 小王, 14 = 大王). Chain positions (S-2): A low 1,
2 low 2, 3 … K = 3 … 13, A high 14; 2 only low, never K A 2, no jokers. Chains are keyed
by their lowest position, a single 三带一 / 四带二 group by its natural rank — exactly as
:func:`~paizhuo_engine.shoubayi.rules.classify_counts`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from paizhuo_engine.cards import R2, RA, RBJ, RSJ
from paizhuo_engine.readings import Reading
from paizhuo_engine.shoubayi.rules import JOKER_PAIR_KEY, Counts, beats, classify_counts

Play = tuple[Counts, Reading]
"""A play: the rank multiset taken from the hand and the reading it is played as."""

_POS_RANK: tuple[int, ...] = (-1, RA, R2, *range(11), RA)
"""Natural rank at each chain position 1 … 14 (index 0 unused), S-2."""

_ANY_LENGTH = range(1, 15)


def _top(low: int) -> int:
    """Highest position a chain starting at ``low`` may reach: a chain through A low or
    2 low ends at K (never K A 2, S-2)."""
    return 13 if low <= 2 else 14


def _windows(hand: Counts, need: int, k: int, above: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    """``(key, ranks)`` of every ``k`` groups of ``need`` equal cards with a key above
    ``above``: one group keyed by its rank, ``k >= 2`` by the lowest chain position of
    ``k`` consecutive ranks (S-2 Decision, S-3.2/3)."""
    if k == 1:
        for r in range(max(0, above + 1), 13):
            if hand[r] >= need:
                yield r, (r,)
        return
    for low in range(max(1, above + 1), 16 - k):
        if low + k - 1 <= _top(low):
            ranks = _POS_RANK[low:low + k]
            if all(hand[r] >= need for r in ranks):
                yield low, ranks


def _with_kickers(base: list[int], avail: list[int], m: int) -> Iterator[Counts]:
    """``base`` plus every multiset of ``m`` cards drawn from ``avail`` (kickers are any
    cards, S-3.2/3), by rank."""
    ranks = [r for r in range(15) if avail[r]]
    room = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        room[i] = room[i + 1] + avail[ranks[i]]
    cur = base[:]

    def rec(i: int, left: int) -> Iterator[Counts]:
        if left == 0:
            yield tuple(cur)
            return
        if room[i] < left:
            return
        r = ranks[i]
        yield from rec(i + 1, left)
        most = min(avail[r], left)
        for c in range(1, most + 1):
            cur[r] += 1
            yield from rec(i + 1, left - c)
        cur[r] -= most

    return rec(0, m)


def singles(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.1 singles above natural rank ``above`` (jokers highest, S-2)."""
    for r in range(max(0, above + 1), 15):
        if hand[r]:
            yield _one(r, 1), Reading("single", 1, r)


def pairs(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.1 pairs above ``above``; 小王+大王 is the highest pair (S-2, key 15)."""
    for r in range(max(0, above + 1), 13):
        if hand[r] >= 2:
            yield _one(r, 2), Reading("pair", 2, r)
    if hand[RSJ] and hand[RBJ] and above < JOKER_PAIR_KEY:
        joker_pair = [0] * 15
        joker_pair[RSJ] = joker_pair[RBJ] = 1
        yield tuple(joker_pair), Reading("pair", 2, JOKER_PAIR_KEY)


def _chains(hand: Counts, width: int, kind: str, lengths: Collection[int],
            above: int) -> Iterator[Play]:
    """Chains of ``width`` cards per rank, ``lengths`` ranks long, keyed by the lowest
    position above ``above`` (S-2)."""
    if not lengths:
        return
    longest = max(lengths)
    for low in range(max(1, above + 1), 15):
        base = [0] * 15
        for pos in range(low, min(_top(low), low + longest - 1) + 1):
            r = _POS_RANK[pos]
            if hand[r] < width:
                break
            base[r] = width
            if pos - low + 1 in lengths:
                yield tuple(base), Reading(kind, (pos - low + 1) * width, low)


def straights(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.1 straights of 5+ singles."""
    return _chains(hand, 1, "straight", [n for n in lengths if n >= 5], above)


def pair_chains(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.1 pair chains (联对) of 3+ pairs."""
    return _chains(hand, 2, "pair_chain", [n for n in lengths if n >= 3], above)


def _groups(hand: Counts, need: int, carry: int, kind: str, lengths: Collection[int],
            above: int) -> Iterator[Play]:
    """``k`` groups of ``need`` cards (``k`` in ``lengths``), each carrying ``carry`` cards
    of any rank, keyed above ``above`` (S-3.2/3)."""
    total = sum(hand)
    for k in lengths:
        if k * (need + carry) > total:
            continue
        for key, ranks in _windows(hand, need, k, above):
            reading = Reading(kind, k * (need + carry), key)
            base = [0] * 15
            avail = list(hand)
            for r in ranks:
                base[r] = need
                avail[r] -= need
            for play in _with_kickers(base, avail, k * carry):
                yield play, reading


def triple_ones(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.2 三带一: ``k`` consecutive triples, each with one card (a joker, the fourth
    card of a triple's rank, …)."""
    return _groups(hand, 3, 1, "triple_one", lengths, above)


def four_twos(hand: Counts, lengths: Collection[int], above: int) -> Iterator[Play]:
    """S-3.3 四带二: ``k`` consecutive fours, each with two cards."""
    return _groups(hand, 4, 2, "four_two", lengths, above)


def bombs(hand: Counts, above: int) -> Iterator[Play]:
    """S-3.4 bombs (a four alone) above rank ``above``; never a lead."""
    for r in range(max(0, above + 1), 13):
        if hand[r] == 4:
            yield _one(r, 4), Reading("bomb", 4, r, bomb=True)


Generator = Callable[[Counts, Collection[int], int], Iterator[Play]]

KIND_GENERATORS: dict[str, tuple[Generator, int]] = {
    "single": (singles, 1),
    "pair": (pairs, 2),
    "straight": (straights, 1),
    "pair_chain": (pair_chains, 2),
    "triple_one": (triple_ones, 4),
    "four_two": (four_twos, 6),
}
"""Hand type id → (generator, cards per length unit); a reading of ``size`` cards has
length ``size // unit`` (chain length or number of groups)."""


def _one(r: int, n: int) -> Counts:
    out = [0] * 15
    out[r] = n
    return tuple(out)


def legal_plays(hand: Counts, to_beat: Reading | None = None) -> list[Play]:
    """Every distinct legal play of ``hand`` as ``(rank multiset, reading)`` (S-3, G-3).

    Leading (``to_beat`` is ``None``): every reading of every sub-multiset except bombs
    (S-3.4: a bomb may not lead; four equal cards lead as 三带一). Following: the readings
    that beat ``to_beat`` (:func:`~paizhuo_engine.shoubayi.rules.beats`; bombs beat non-bombs).
    A multiset with several legal readings (G-5) appears once per reading. Plays that
    would leave the player holding one joker are refused (S-3).
    """
    if to_beat is None:
        plays = [p for gen, _unit in KIND_GENERATORS.values() for p in gen(hand, _ANY_LENGTH, -1)]
    else:
        plays = list(bombs(hand, to_beat.key if to_beat.bomb else -1))
        if not to_beat.bomb and to_beat.kind in KIND_GENERATORS:
            gen, unit = KIND_GENERATORS[to_beat.kind]
            plays += gen(hand, (to_beat.size // unit,), to_beat.key)
    total = sum(hand)
    return [p for p in plays if not _leaves_lone_joker(hand, total, p)]


def _leaves_lone_joker(hand: Counts, total: int, play: Play) -> bool:
    """S-3: the play would leave exactly one card, and it is 小王 or 大王."""
    taken, reading = play
    return total - reading.size == 1 and hand[RSJ] + hand[RBJ] - taken[RSJ] - taken[RBJ] == 1


def can_beat(hand: Counts, to_beat: Reading) -> bool:
    """Whether ``hand`` holds a legal play beating ``to_beat`` (S-3; S-4 把一必拦), by
    direct checks: a higher bomb, a higher single or pair, a chain of the same length
    starting higher, or 三带一 / 四带二 groups with a higher key and enough other cards
    to carry. Equals ``bool(legal_plays(hand, to_beat))``, much faster.
    """
    total = sum(hand)
    # A play of total - 1 cards keeps one card, which must not be a joker (S-3): try
    # every non-joker card to keep and classify the rest.
    if total - 1 in (4, to_beat.size):
        for r in range(13):
            if hand[r]:
                rest = list(hand)
                rest[r] -= 1
                if any(beats(x, to_beat) for x in classify_counts(tuple(rest))):
                    return True
    bomb_above = to_beat.key if to_beat.bomb else -1
    if total != 5 and any(hand[r] == 4 for r in range(max(0, bomb_above + 1), 13)):
        return True
    if to_beat.bomb or to_beat.size > total or to_beat.size == total - 1:
        return False
    kind, size, key = to_beat.kind, to_beat.size, to_beat.key
    if kind == "single":
        return any(hand[r] for r in range(max(0, key + 1), 15))
    if kind == "pair":
        return (any(hand[r] >= 2 for r in range(max(0, key + 1), 13))
                or (key < JOKER_PAIR_KEY and hand[RSJ] > 0 and hand[RBJ] > 0))
    if kind in ("straight", "pair_chain"):
        gen, unit = KIND_GENERATORS[kind]
        return next(gen(hand, (size // unit,), key), None) is not None
    if kind == "triple_one":
        return next(_windows(hand, 3, size // 4, key), None) is not None
    if kind == "four_two":
        return next(_windows(hand, 4, size // 6, key), None) is not None
    return False


def has_play(hand: Counts, to_beat: Reading | None) -> bool:
    """Whether the player to act has any legal play: :func:`can_beat` when following;
    when leading, any non-empty hand does (a single, or the joker when the other card
    would be a lone joker, S-3)."""
    if to_beat is None:
        return sum(hand) > 0
    return can_beat(hand, to_beat)
