"""手把一 legal-move generation on rank multisets (RULES.md S-2, S-3; G-3, G-5).

A hand and a play are *rank multisets* (:data:`~paizhuo_engine.shoubayi.rules.Counts`: 15 counts
by natural rank 0 = 3 … 12 = 2, 13 = 小王, 14 = 大王); plays that differ only in suits are
one play. Every hand type has one small generator (in the manner of DouZero's move
generator) yielding ``(play, reading)``; :func:`legal_plays` joins them for a lead or a
follow and drops the plays the lone-joker rule refuses (S-3). :func:`can_beat` answers
"is there any follow?" (S-4 把一必拦) with direct checks, without enumerating.

Chain positions (S-2): A low 1, 2 low 2, 3 … K = 3 … 13, A high 14; 2 only low, never
K A 2, no jokers. Chains are keyed by their lowest position, a single 三带一 / 四带二
group by its natural rank — exactly as :func:`~paizhuo_engine.shoubayi.rules.classify_counts`.

:class:`SMoves` is the same generator on packed multisets (:mod:`paizhuo_engine.movegen`) for the
common interface :mod:`paizhuo_engine.moves`; it is several times faster on big hands (kickers
are added as integers). :func:`legal_plays` keeps its shape and order for its callers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from itertools import repeat

from ..cards import R2, RA, RBJ, RSJ
from ..movegen import (
    SHIFTS,
    UNIT,
    MoveGenerator,
    chain_plays,
    chain_spec,
    kicker_sets,
    kickers_cheapest,
    ranks_with,
    reading,
    set_plays,
    set_table,
)
from ..movegen import Play as PackedPlay
from ..readings import Reading
from .rules import JOKER_PAIR_KEY, Counts, SRules, beats, classify_counts

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

GENERATORS: dict[str, tuple[Generator, int]] = {
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
        plays = [p for gen, _unit in GENERATORS.values() for p in gen(hand, _ANY_LENGTH, -1)]
    else:
        plays = list(bombs(hand, to_beat.key if to_beat.bomb else -1))
        if not to_beat.bomb and to_beat.kind in GENERATORS:
            gen, unit = GENERATORS[to_beat.kind]
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
        gen, unit = GENERATORS[kind]
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


# ---- the packed-multiset generator (engine.moves interface) -------------------------------------
_CHAIN_ORDER = (RA, R2, *range(RA + 1))
"""S-2 chain order A 2 3 … K A; index ``i`` is chain position ``i + 1``."""
_POSITIONS = tuple(range(1, 15))
_NATURAL = tuple(range(15))
_JOKERS = (UNIT[RSJ], UNIT[RBJ])
_JOKER_BITS = 7 * UNIT[RSJ] + 7 * UNIT[RBJ]


class SMoves(MoveGenerator):
    """The 手把一 generator (S-2, S-3) on packed rank multisets for
    :mod:`paizhuo_engine.moves`: the plays of :func:`legal_plays` as :class:`~paizhuo_engine.movegen.Play`,
    much faster (kickers are added as packed integers). Plays that would leave a lone
    joker (S-3) are dropped; a bomb never leads (S-3.4)."""

    has_bombs = True

    def __init__(self, rules: SRules | None = None) -> None:
        self.rules = rules
        self.straight = chain_spec("straight", 1, _CHAIN_ORDER, _POSITIONS, False, 5, wrap=True)
        self.pair_chain = chain_spec("pair_chain", 2, _CHAIN_ORDER, _POSITIONS, False, 3,
                                     wrap=True)
        self.groups = {"triple_one": (3, 1), "four_two": (4, 2)}
        self.windows = {need: chain_spec("", need, _CHAIN_ORDER, _POSITIONS, False, 2, wrap=True)
                        for need in (3, 4)}
        self.sets = {"single": set_table("single", 1, _NATURAL, _NATURAL),
                     "pair": set_table("pair", 2, range(13), _NATURAL),
                     "bomb": set_table("bomb", 4, range(13), _NATURAL, bomb=True)}

    def beats(self, new: Reading, old: Reading) -> bool:
        """S-3."""
        return beats(new, old)

    @staticmethod
    def _keep_no_lone_joker(plays: list[PackedPlay], hand: int, total: int) -> list[PackedPlay]:
        """S-3: drop the plays of ``total - 1`` cards whose one card left is a joker."""
        if total < 2 or not hand & _JOKER_BITS:
            return plays
        return [p for p in plays if p[1].size != total - 1 or hand - p[0] not in _JOKERS]

    def _pairs(self, counts: list[int], above: int) -> list[PackedPlay]:
        out = set_plays(counts, self.sets["pair"], above)
        if counts[RSJ] and counts[RBJ] and above < JOKER_PAIR_KEY:
            out.append((UNIT[RSJ] + UNIT[RBJ], reading("pair", 2, JOKER_PAIR_KEY)))
        return out

    def _bases(self, counts: list[int], need: int, k: int, kind: str, size: int,
               above: int) -> list[tuple[int, Reading]]:
        """``(packed base, reading)`` of ``k`` groups of ``need`` equal cards keyed above
        ``above``, ascending key: one group by its rank, several by the lowest chain
        position of ``k`` consecutive ranks (S-2 Decision)."""
        if k == 1:
            return [(need * UNIT[r], reading(kind, size, r)) for r in range(max(0, above + 1), 13)
                    if counts[r] >= need]
        return [(p[0], reading(kind, size, p[1].key))
                for p in chain_plays(counts, self.windows[need], k, above)]

    def _groups(self, hand: int, total: int, counts: list[int], kind: str, k: int,
                above: int, lazy: bool) -> Iterable[PackedPlay]:
        need, carry = self.groups[kind]
        size = k * (need + carry)
        if size > total:
            return []
        bases = self._bases(counts, need, k, kind, size, above)
        if lazy:
            return self._groups_lazy(hand, total, bases, k * carry)
        out: list[PackedPlay] = []
        m = k * carry
        for base, rd in bases:
            left = hand - base
            avail = [(left >> s) & 7 for s in SHIFTS]
            out += list(zip(kicker_sets(avail, m, _NATURAL, base), repeat(rd)))
        if size == total - 1:
            out = self._keep_no_lone_joker(out, hand, total)
        return out

    def _groups_lazy(self, hand: int, total: int, bases: list[tuple[int, Reading]],
                     m: int) -> Iterator[PackedPlay]:
        for base, rd in bases:
            left = hand - base
            avail = [(left >> s) & 7 for s in SHIFTS]
            check = rd.size == total - 1
            for x in kickers_cheapest(avail, m, _NATURAL):
                if check and left - x in _JOKERS:
                    continue
                yield (base + x, rd)

    def bombs(self, hand: int, total: int, counts: list[int], above: int) -> list[PackedPlay]:
        """S-3.4 bombs above ``above``, never leaving a lone joker."""
        if not ranks_with(hand, 4):
            return []
        out = set_plays(counts, self.sets["bomb"], above)
        return self._keep_no_lone_joker(out, hand, total) if total == 5 else out

    def family(self, hand: int, total: int, counts: list[int], kind: str, size: int,
               above: int, lazy: bool) -> Iterable[PackedPlay]:
        """S-3 plays of one type and size above ``above``, ascending key."""
        if kind == "single" and size == 1:
            out = set_plays(counts, self.sets["single"], above)
        elif kind == "pair" and size == 2:
            out = self._pairs(counts, above)
        elif kind == "straight" and size >= 5:
            out = chain_plays(counts, self.straight, size, above)
        elif kind == "pair_chain" and size % 2 == 0:
            out = chain_plays(counts, self.pair_chain, size // 2, above)
        elif kind in self.groups:
            need, carry = self.groups[kind]
            if size % (need + carry):
                return []
            return self._groups(hand, total, counts, kind, size // (need + carry), above, lazy)
        else:
            return []
        return self._keep_no_lone_joker(out, hand, total) if size == total - 1 else out

    def lead_families(self, total: int) -> list[tuple[int, str]]:
        """S-3 types that fit in ``total`` cards (never a bomb, S-3.4)."""
        out = [(n, k) for k, n in (("single", 1), ("pair", 2)) if n <= total]
        out += [(n, "straight") for n in range(5, min(total, 13) + 1)]
        out += [(2 * n, "pair_chain") for n in range(3, min(total // 2, 13) + 1)]
        out += [(4 * k, "triple_one") for k in range(1, min(total // 4, 13) + 1)]
        out += [(6 * k, "four_two") for k in range(1, min(total // 6, 13) + 1)]
        return out

    def leads(self, hand: int) -> list[PackedPlay]:
        """Every S-3 lead of ``hand`` (no bombs, no lone joker kept)."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        total = sum(counts)
        out = set_plays(counts, self.sets["single"])
        out += self._pairs(counts, -99)
        if total >= 5 and ranks_with(hand, 1) >= 5:
            out += chain_plays(counts, self.straight)
        if total >= 6 and ranks_with(hand, 2) >= 3:
            out += chain_plays(counts, self.pair_chain)
        if total - 1 in (1, 2) or total - 1 >= 5:
            out = self._keep_no_lone_joker(out, hand, total)
        for kind, (need, carry) in self.groups.items():
            group = need + carry
            if total < group or not ranks_with(hand, need):
                continue
            # one group keyed by its rank, runs of k >= 2 by their lowest position
            bases = [(need * UNIT[r], reading(kind, group, r)) for r in range(13)
                     if counts[r] >= need]
            if not bases:
                continue
            if total >= 2 * group and len(bases) >= 2 and ranks_with(hand, need) >= 2:
                bases += [(m, reading(kind, rd.size // need * group, rd.key))
                          for m, rd in chain_plays(counts, self.windows[need])
                          if rd.size // need * group <= total]
            lone = total - 1
            present = [UNIT[r] for r in _NATURAL if counts[r]]
            for base, rd in bases:
                left = hand - base
                m = rd.size // group * carry
                if m == 1:  # one 三带一: any card left, one per rank
                    plays = [(base + u, rd) for u in present if left & (7 * u)]
                else:
                    avail = [(left >> s) & 7 for s in SHIFTS]
                    plays = list(zip(kicker_sets(avail, m, _NATURAL, base), repeat(rd)))
                if rd.size == lone:
                    plays = self._keep_no_lone_joker(plays, hand, total)
                out += plays
        return out
