"""Building blocks of the legal-move generators (RULES.md G-3, G-5), shared by every game.

Plays are generated on *packed rank multisets*: an ``int`` holding one 3-bit count per
natural rank (bits ``3r … 3r+2`` count rank ``r``; 0 = 3 … 12 = 2, 13 = 小王, 14 = 大王).
Suits never change what a play is, so cards that differ only in suits make one play;
:func:`paizhuo_engine.moves.cards_for` picks the concrete cards afterwards. Adding two packed
multisets adds their counts, which makes building plays with kickers one integer addition.

A generated play is a :data:`Play` — a plain tuple ``(packed, reading)`` — that carries the
:class:`~paizhuo_engine.readings.Reading` it is played as (type, size, key, bomb), so applying it
never classifies the cards again and never loses the meant type (G-5).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import NamedTuple

from .readings import Reading

BITS = 3
"""Bits per rank count in a packed multiset."""

UNIT: tuple[int, ...] = tuple(1 << (BITS * r) for r in range(15))
"""``UNIT[r]`` is the packed multiset holding one card of natural rank ``r``."""

_MASK = (1 << BITS) - 1

SHIFTS: tuple[int, ...] = tuple(BITS * r for r in range(15))
"""Bit offset of each natural rank's count: ``[(packed >> s) & 7 for s in SHIFTS]``
are the 15 counts."""


_LOW_BITS = sum(1 << (BITS * r) for r in range(13))
"""The lowest bit of each suited rank's count (3 … 2)."""


def ranks_with(packed: int, width: int) -> int:
    """How many suited ranks (3 … 2, no jokers) the packed multiset holds at least
    ``width`` (1..4) of — a quick bound before looking for chains."""
    if width == 1:
        m = packed | packed >> 1 | packed >> 2
    elif width == 2:
        m = packed >> 1 | packed >> 2
    elif width == 3:
        m = (packed >> 1) & packed | packed >> 2
    else:
        m = packed >> 2
    return (m & _LOW_BITS).bit_count()


def pack_counts(counts: Sequence[int]) -> int:
    """The packed multiset of 15 rank counts (each 0..4)."""
    out = 0
    for r, n in enumerate(counts):
        out += n << (BITS * r)
    return out


CARD_UNIT: tuple[int, ...] = tuple(UNIT[c // 4 if c < 52 else c - 39] for c in range(54))
"""``CARD_UNIT[c]`` is the packed multiset of card id ``c`` alone."""


def pack_cards(cards: Iterable[int]) -> int:
    """The packed rank multiset of card ids (G-1 ids 0..53)."""
    return sum(map(CARD_UNIT.__getitem__, cards))


def unpack(packed: int) -> tuple[int, ...]:
    """The 15 rank counts (natural ranks 0..14) of a packed multiset."""
    return tuple((packed >> (BITS * r)) & _MASK for r in range(15))


def count_of(packed: int, rank: int) -> int:
    """How many cards of natural ``rank`` a packed multiset holds."""
    return (packed >> (BITS * rank)) & _MASK


Play = tuple[int, Reading]
"""One legal play: ``(packed, reading)`` — the rank multiset taken from the hand (a
packed int, see the module doc) and the reading it is played as (G-5). A plain tuple,
so equal plays compare and hash equal and building one costs almost nothing; a multiset
with two readings is two plays. :func:`play_counts` / :func:`play_ranks` read it."""


def play_counts(play: Play) -> tuple[int, ...]:
    """The 15 rank counts of a play."""
    return unpack(play[0])


def play_ranks(play: Play) -> list[int]:
    """The natural ranks of a play's cards, one entry per card, ascending."""
    p = play[0]
    return [r for r in range(15) for _ in range((p >> (BITS * r)) & _MASK)]


_READINGS: dict[tuple[str, int, int, bool], Reading] = {}


def reading_of_json(data: Sequence) -> Reading:
    """:meth:`Reading.from_json` through the shared readings (a stored trick's reading
    is read once per move)."""
    r = _READINGS.get(tuple(data))  # type: ignore[arg-type]
    if r is None:
        r = Reading.from_json(data)
        _READINGS[(r.kind, r.size, r.key, r.bomb)] = r
    return r


def reading(kind: str, size: int, key: int, bomb: bool = False) -> Reading:
    """The shared :class:`Reading` for these fields (readings are immutable, so plays of
    one type, size and key share one object)."""
    k = (kind, size, key, bomb)
    r = _READINGS.get(k)
    if r is None:
        r = _READINGS[k] = Reading(kind, size, key, bomb)
    return r


class ChainSpec(NamedTuple):
    """A chain family of one game (G-3: 顺子, 连对, 三连 …).

    * ``kind`` / ``width`` — the type id and cards per rank (1 straight, 2 pair chain …).
    * ``order`` — natural ranks in chain order, e.g. ``(A, 2, 3, …, K, A)`` when A may
      stand low and high; a window of consecutive entries is a chain.
    * ``keys`` — the key of a window ending (``top``) or starting (not ``top``) at each
      index, as the game's classifier keys chains.
    * ``shortest`` / ``longest`` — the lengths in ranks.
    * ``wrap`` — ``order`` starts with A, 2 and ends with A: a window from index 0 or 1
      to the last index is refused (A twice, or K A 2).
    * ``windows`` — ``windows[a][b]`` the play of the window ``a … b`` (any length;
      ``None`` when refused), built once.
    """

    kind: str
    width: int
    order: tuple[int, ...]
    keys: tuple[int, ...]
    top: bool
    shortest: int
    longest: int
    wrap: bool
    windows: tuple[tuple[Play | None, ...], ...]


def chain_spec(kind: str, width: int, order: Sequence[int], keys: Sequence[int], top: bool,
               shortest: int, wrap: bool = False) -> ChainSpec:
    """A :class:`ChainSpec`; the longest chain is the number of distinct ranks."""
    order, keys = tuple(order), tuple(keys)
    n = len(order)
    windows = []
    for a in range(n):
        row: list[Play | None] = [None] * n
        packed = 0
        for b in range(a, n):
            packed += UNIT[order[b]] * width
            if not (wrap and b == n - 1 and a <= 1):
                row[b] = (packed, reading(kind, (b - a + 1) * width, keys[b] if top else keys[a]))
        windows.append(tuple(row))
    return ChainSpec(kind, width, order, keys, top, shortest, len(set(order)), wrap,
                     tuple(windows))


def chain_plays(hand: Sequence[int], spec: ChainSpec, length: int | None = None,
                above: int = -99) -> list[Play]:
    """Chains of ``spec`` the rank counts ``hand`` can make, keyed above ``above``:
    every length from ``spec.shortest`` up, or only ``length`` ranks (then in ascending
    key order: keys grow along ``order``)."""
    order, width = spec.order, spec.width
    if length is None:
        lo_len, hi_len = spec.shortest, spec.longest
    elif spec.shortest <= length <= spec.longest:
        lo_len = hi_len = length
    else:
        return []
    n = len(order)
    out: list[Play] = []
    windows = spec.windows
    i = 0
    while i < n:
        if hand[order[i]] < width:
            i += 1
            continue
        end = i + 1  # the run of usable ranks is order[i:end]
        while end < n and hand[order[end]] >= width:
            end += 1
        if end - i >= lo_len:
            for a in range(i, end - lo_len + 1):
                row = windows[a]
                for b in range(a + lo_len - 1, min(end, a + hi_len)):
                    p = row[b]
                    if p is not None and p[1].key > above:
                        out.append(p)
        i = end
    return out


SetTable = tuple[tuple[int, int, int, Play], ...]
"""Precomputed sets of one type: ``(rank, cards needed, key, play)`` per rank."""


def set_table(kind: str, n: int, ranks: Iterable[int], weight: Sequence[int],
              bomb: bool = False) -> SetTable:
    """The plays of ``n`` cards of one rank (single, pair, triple, four, bomb) for each
    of ``ranks`` (in ascending weight), keyed by ``weight`` — built once per generator."""
    return tuple((r, n, weight[r], (UNIT[r] * n, reading(kind, n, weight[r], bomb)))
                 for r in ranks)


def set_plays(hand: Sequence[int], table: SetTable, above: int = -99) -> list[Play]:
    """The plays of ``table`` the rank counts ``hand`` can make, keyed above ``above``,
    in ascending key."""
    return [p for r, n, k, p in table if hand[r] >= n and k > above]


def kicker_sets(avail: Sequence[int], m: int, ranks: Iterable[int] = range(15),
                base: int = 0) -> list[int]:
    """``base`` plus every packed multiset of exactly ``m`` cards drawn from the counts
    ``avail`` (only ``ranks``), in no particular order; ``m == 0`` gives ``[base]``.

    Ranks with one card available are chosen with :func:`itertools.combinations` (summed
    in C); the few ranks with more cards are combined by a small table over counts.
    """
    singles: list[int] = []
    multi: list[int] = []
    for r in ranks:
        a = avail[r]
        if a == 1:
            singles.append(UNIT[r])
        elif a > 1:
            multi.append(r)
    layers: list[list[int]] = [[base]] + [[] for _ in range(m)]
    for r in multi:
        a = min(avail[r], m)
        u = UNIT[r]
        for j in range(m, 0, -1):  # downward: layers[j - c] are still the old ones
            grown = layers[j]
            for c in range(1, min(a, j) + 1):
                add = c * u
                grown.extend([x + add for x in layers[j - c]])
    out: list[int] = []
    ns = len(singles)
    for j in range(m + 1):
        t = m - j
        if t > ns or not layers[j]:
            continue
        if t == 0:
            out += layers[j]
            continue
        ys = list(map(sum, combinations(singles, t)))
        for x in layers[j]:
            out += map(x.__add__, ys)
    return out


def kickers_cheapest(avail: Sequence[int], m: int, order: Sequence[int]) -> Iterator[int]:
    """The multisets of :func:`kicker_sets`, lazily and cheapest first: as sorted rank
    sequences in ``order`` (lowest weight first), lexicographically ascending."""
    ranks = [r for r in order if avail[r]]
    room = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        room[i] = room[i + 1] + min(avail[ranks[i]], m)

    def rec(i: int, left: int, acc: int) -> Iterator[int]:
        if left == 0:
            yield acc
            return
        for t in range(i, len(ranks)):
            if room[t] < left:
                return
            r = ranks[t]
            for c in range(min(avail[r], left), 0, -1):
                yield from rec(t + 1, left - c, acc + c * UNIT[r])

    return rec(0, m, 0)


KIND_ORDER: dict[str, int] = {
    "single": 0, "pair": 1, "triple": 2, "triple_one": 3, "four": 4, "four_two": 5,
    "straight": 6, "pair_chain": 7, "triple_chain": 8, "bomb": 9,
}
"""Tie order of hand types of one size in the cheapest-first order."""


class MoveGenerator:
    """One game's exact legal-move generator under one rule set (see :mod:`paizhuo_engine.moves`
    for the interface every caller uses). A subclass supplies:

    * :meth:`leads` — every legal lead, eagerly (the fast path);
    * :meth:`family` — the plays of one type and size keyed above a key, in ascending
      key order (lazily when asked);
    * :meth:`lead_families` — the ``(size, kind)`` types a lead may take for a hand of
      ``total`` cards;
    * :meth:`bombs` — bombs above a key (games without bombs: none).

    A hand is a packed multiset (:func:`pack_cards`); plays are :class:`Play`.
    """

    has_bombs = False
    _lead_order: dict[int, list[tuple[int, str]]]

    def __new__(cls, *args: object, **kwargs: object) -> MoveGenerator:
        self = super().__new__(cls)
        self._lead_order = {}  # hand size → lead families in cheapest-first order
        return self

    def leads(self, hand: int) -> list[Play]:
        """Every legal lead of ``hand`` (G-3), once each, in no particular order."""
        raise NotImplementedError

    def family(self, hand: int, total: int, counts: list[int], kind: str, size: int,
               above: int, lazy: bool) -> Iterable[Play]:
        """Plays of type ``kind`` with ``size`` cards keyed above ``above``, ascending key
        (cheapest kickers first when ``lazy``)."""
        raise NotImplementedError

    def lead_families(self, total: int) -> list[tuple[int, str]]:
        """``(size, kind)`` of every type a lead of at most ``total`` cards may take."""
        raise NotImplementedError

    def chain_families(self, total: int) -> list[tuple[int, str]]:
        """``(size, kind)`` of every chain of this generator's ``chains`` (G-3 chain
        families) that fits in ``total`` cards."""
        return [(length * spec.width, spec.kind)
                for spec in getattr(self, "chains", ())
                for length in range(spec.shortest, spec.longest + 1)
                if length * spec.width <= total]

    def bombs(self, hand: int, total: int, counts: list[int], above: int) -> list[Play]:
        """Bombs keyed above ``above`` (ascending); ``[]`` in a game without bombs."""
        return []

    def beats(self, new: Reading, old: Reading) -> bool:
        """The game's comparison (G-3)."""
        raise NotImplementedError

    # ---- derived -----------------------------------------------------------------------
    def follows(self, hand: int, to_beat: Reading) -> list[Play]:
        """Every legal play of ``hand`` that beats ``to_beat``: the same type and size
        with a higher key, then the bombs that beat it."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        total = sum(counts)
        out: list[Play] = []
        if to_beat.size <= total and not to_beat.bomb:
            out += self.family(hand, total, counts, to_beat.kind, to_beat.size, to_beat.key,
                               False)
        if self.has_bombs:
            out += self.bombs(hand, total, counts, to_beat.key if to_beat.bomb else -99)
        return out

    def iter_follows(self, hand: int, to_beat: Reading, lazy: bool = True) -> Iterator[Play]:
        """The follows of :meth:`follows`, cheapest first: same type by ascending key,
        then bombs by ascending key."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        total = sum(counts)
        if to_beat.size <= total and not to_beat.bomb:
            yield from self.family(hand, total, counts, to_beat.kind, to_beat.size,
                                   to_beat.key, lazy)
        if self.has_bombs:
            yield from self.bombs(hand, total, counts, to_beat.key if to_beat.bomb else -99)

    def iter_leads(self, hand: int) -> Iterator[Play]:
        """The leads of :meth:`leads`, cheapest first: fewer cards first, then by type
        (:data:`KIND_ORDER`), then ascending key, then cheapest kickers."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        total = sum(counts)
        order = self._lead_order.get(total)
        if order is None:
            order = self._lead_order[total] = sorted(
                self.lead_families(total), key=lambda f: (f[0], KIND_ORDER[f[1]]))
        for size, kind in order:
            yield from self.family(hand, total, counts, kind, size, -99, True)
