"""抓特务 legal-move generation (RULES.md Z-3, Z-4; G-3, G-5), on packed rank multisets.

Every play :func:`~paizhuo_engine.zhuatewu.rules.classify` accepts is generated exactly once per
reading, under every setting: 带3 (set keys by the Z-3 weight), 大小王成对 (the joker pair,
the highest pair), 连牌规则 a / b / c and 连对最少 (which chains exist and how they are
keyed: top card in chain order, an A played low below 3). No bombs (Z-4).
Use it through :mod:`paizhuo_engine.moves`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import R2, RA, RBJ, RK, RSJ
from ..movegen import (
    SHIFTS,
    UNIT,
    MoveGenerator,
    Play,
    chain_plays,
    chain_spec,
    ranks_with,
    reading,
    set_plays,
    set_table,
)
from ..readings import Reading
from .rules import ZRules, beats

_HIGH = tuple(range(RA + 1))          # 3 … K A, positions 0 … 11
_NO_A = tuple(range(RK + 1))          # 3 … K (rule c, pair and triple chains)
_LOW = (RA, R2, *range(RA + 1))       # A 2 3 … K A, positions -2 … 11
_SETS = (("single", 1), ("pair", 2), ("triple", 3), ("four", 4))


class ZMoves(MoveGenerator):
    """The 抓特务 generator for one :class:`~paizhuo_engine.zhuatewu.rules.ZRules`."""

    def __init__(self, rules: ZRules) -> None:
        self.rules = rules
        self.weight = rules.rank_order()
        self.by_weight = tuple(sorted(range(15), key=lambda r: self.weight[r]))
        self.suited = tuple(r for r in self.by_weight if r < RSJ)
        self.joker_pair_key = self.weight[RBJ] + 1
        self.sets = {kind: set_table(kind, n, self.by_weight if n == 1 else self.suited,
                                     self.weight) for kind, n in _SETS}
        ends = rules.chain_ends
        self.chains = []
        for kind, width, shortest in (("straight", 1, 5),
                                      ("pair_chain", 2, rules.min_pair_chain),
                                      ("triple_chain", 3, 3)):
            if ends == "a":
                spec = chain_spec(kind, width, _HIGH, range(12), True, shortest)
            elif ends == "c" and width > 1:
                spec = chain_spec(kind, width, _NO_A, range(11), True, shortest)
            else:
                spec = chain_spec(kind, width, _LOW, range(-2, 12), True, shortest, wrap=True)
            self.chains.append(spec)
        self.chain_of = {s.kind: s for s in self.chains}

    def beats(self, new: Reading, old: Reading) -> bool:
        """Z-4."""
        return beats(new, old)

    # ---- families ------------------------------------------------------------------------
    def _pairs(self, counts: list[int], above: int) -> list[Play]:
        out = set_plays(counts, self.sets["pair"], above)
        if (self.rules.joker_pair and counts[RSJ] and counts[RBJ]
                and self.joker_pair_key > above):
            out.append((UNIT[RSJ] + UNIT[RBJ], reading("pair", 2, self.joker_pair_key)))
        return out

    def _triple_ones(self, counts: list[int], above: int) -> list[Play]:
        """Z-4.5: a triple and one card of another rank."""
        out = []
        w = self.weight
        kick = [r for r in self.by_weight if counts[r]]
        for r in self.suited:
            if counts[r] >= 3 and w[r] > above:
                rd = reading("triple_one", 4, w[r])
                base = 3 * UNIT[r]
                out += [(base + UNIT[s], rd) for s in kick if s != r]
        return out

    def _four_twos(self, counts: list[int], above: int) -> list[Play]:
        """Z-4.6: a four and two singles of two other ranks, or one pair of another rank."""
        out = []
        w = self.weight
        for r in self.suited:
            if counts[r] == 4 and w[r] > above:
                rd = reading("four_two", 6, w[r])
                base = 4 * UNIT[r]
                kick = [s for s in self.by_weight if counts[s] and s != r]
                for i, s in enumerate(kick):
                    if counts[s] >= 2:
                        out.append((base + 2 * UNIT[s], rd))
                    us = base + UNIT[s]
                    out += [(us + UNIT[t], rd) for t in kick[i + 1:]]
        return out

    def family(self, hand: int, total: int, counts: list[int], kind: str, size: int,
               above: int, lazy: bool) -> Iterable[Play]:
        """Z-4 plays of one type and size above ``above``, ascending key."""
        if kind == "single" and size == 1:
            return set_plays(counts, self.sets["single"], above)
        if kind == "pair" and size == 2:
            return self._pairs(counts, above)
        if kind == "triple" and size == 3:
            return set_plays(counts, self.sets["triple"], above)
        if kind == "four" and size == 4:
            return set_plays(counts, self.sets["four"], above)
        if kind == "triple_one" and size == 4:
            return self._triple_ones(counts, above)
        if kind == "four_two" and size == 6:
            return self._four_twos(counts, above)
        spec = self.chain_of.get(kind)
        if spec is not None and size % spec.width == 0:
            return chain_plays(counts, spec, size // spec.width, above)
        return []

    def lead_families(self, total: int) -> list[tuple[int, str]]:
        """Z-4 types that fit in ``total`` cards."""
        out = [(n, k) for k, n in _SETS if n <= total]
        out += [(n, k) for k, n in (("triple_one", 4), ("four_two", 6)) if n <= total]
        return out + self.chain_families(total)

    def leads(self, hand: int) -> list[Play]:
        """Every Z-4 lead of ``hand`` (no bombs; every type may lead)."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        out = set_plays(counts, self.sets["single"])
        out += self._pairs(counts, -99)
        out += set_plays(counts, self.sets["triple"])
        out += set_plays(counts, self.sets["four"])
        out += self._triple_ones(counts, -99)
        out += self._four_twos(counts, -99)
        for spec in self.chains:
            if ranks_with(hand, spec.width) >= spec.shortest:
                out += chain_plays(counts, spec)
        return out
