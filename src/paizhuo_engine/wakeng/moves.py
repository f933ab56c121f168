"""挖坑 legal-move generation (RULES.md W-4, W-7; G-3), on packed rank multisets.

标准: single, pair, triple, bomb (four of a kind, beats every non-bomb), straights of 5+,
pair chains of 3+ and triple chains of 2+ within 3 … A. 陕西: ranking 3 > 2 > A > … > 4,
四条 (a four, no bomb), 连牌 of 3+ and 对子连牌 of 3+ within 4 … K, no triple chains.
Chains are keyed by their top rank, sets by the rank weight — exactly as
:func:`~paizhuo_engine.wakeng.rules.classify`. Use it through :mod:`paizhuo_engine.moves`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import R3, R4, RA, RK
from ..movegen import (
    SHIFTS,
    MoveGenerator,
    Play,
    chain_plays,
    chain_spec,
    ranks_with,
    set_plays,
    set_table,
)
from ..readings import Reading
from .rules import WRules, beats


class WMoves(MoveGenerator):
    """The 挖坑 generator for one :class:`~paizhuo_engine.wakeng.rules.WRules`."""

    def __init__(self, rules: WRules) -> None:
        self.rules = rules
        self.weight = rules.rank_order()
        # Jokers are not in the 挖坑 deck, but the classifier reads them as singles.
        self.by_weight = tuple(sorted(range(15), key=lambda r: self.weight[r]))
        self.suited = tuple(r for r in self.by_weight if r < 13)
        if rules.shaanxi:
            order = tuple(range(R4, RK + 1))
            self.chains = [chain_spec("straight", 1, order, order, True, 3),
                           chain_spec("pair_chain", 2, order, order, True, 3)]
            self.four_kind, self.has_bombs = "four", False
        else:
            order = tuple(range(R3, RA + 1))
            self.chains = [chain_spec("straight", 1, order, order, True, 5),
                           chain_spec("pair_chain", 2, order, order, True, 3),
                           chain_spec("triple_chain", 3, order, order, True, 2)]
            self.four_kind, self.has_bombs = "bomb", True
        self.chain_of = {s.kind: s for s in self.chains}
        self.sets = {"single": set_table("single", 1, self.by_weight, self.weight),
                     "pair": set_table("pair", 2, self.suited, self.weight),
                     "triple": set_table("triple", 3, self.suited, self.weight),
                     self.four_kind: set_table(self.four_kind, 4, self.suited, self.weight,
                                               bomb=self.has_bombs)}

    def beats(self, new: Reading, old: Reading) -> bool:
        """W-4."""
        return beats(new, old)

    def _fours(self, counts: list[int], above: int) -> list[Play]:
        return set_plays(counts, self.sets[self.four_kind], above)

    def bombs(self, hand: int, total: int, counts: list[int], above: int) -> list[Play]:
        """W-4 bombs above ``above`` (标准 only)."""
        return self._fours(counts, above) if self.has_bombs and ranks_with(hand, 4) else []

    def family(self, hand: int, total: int, counts: list[int], kind: str, size: int,
               above: int, lazy: bool) -> Iterable[Play]:
        """W-4 / W-7 plays of one type and size above ``above``, ascending key."""
        if kind == "single" and size == 1:
            return set_plays(counts, self.sets["single"], above)
        if kind == "pair" and size == 2:
            return set_plays(counts, self.sets["pair"], above)
        if kind == "triple" and size == 3:
            return set_plays(counts, self.sets["triple"], above)
        if kind == self.four_kind and size == 4:
            return self._fours(counts, above)
        spec = self.chain_of.get(kind)
        if spec is not None and size % spec.width == 0:
            return chain_plays(counts, spec, size // spec.width, above)
        return []

    def lead_families(self, total: int) -> list[tuple[int, str]]:
        """W-4 / W-7 types that fit in ``total`` cards (a bomb may lead)."""
        out = [(n, k) for k, n in (("single", 1), ("pair", 2), ("triple", 3),
                                   (self.four_kind, 4)) if n <= total]
        return out + self.chain_families(total)

    def leads(self, hand: int) -> list[Play]:
        """Every W-4 / W-7 lead of ``hand``."""
        counts = [(hand >> s) & 7 for s in SHIFTS]
        out = set_plays(counts, self.sets["single"])
        out += set_plays(counts, self.sets["pair"])
        out += set_plays(counts, self.sets["triple"])
        out += self._fours(counts, -99)
        for spec in self.chains:
            if ranks_with(hand, spec.width) >= spec.shortest:
                out += chain_plays(counts, spec)
        return out
