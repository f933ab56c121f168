"""手把一 legal-move generation (RULES.md S-2, S-3; G-3, G-5): :class:`SMoves`, the game's
one move generator, on packed rank multisets (:mod:`paizhuo_engine.movegen`). Every
caller reaches it through :mod:`paizhuo_engine.moves` (``legal_plays``, ``iter_plays``,
``any_beating`` … with an :class:`~paizhuo_engine.shoubayi.rules.SRules`): the auto-play
(:mod:`paizhuo_engine.ai.shoubayi`), the S-4 把一必拦 check
(:meth:`paizhuo_engine.shoubayi.game.SGame.can_beat`, the cheapest follow or none) and
the computer players.

Plays that differ only in suits are one play. Chain positions (S-2): A low 1, 2 low 2,
3 … K = 3 … 13, A high 14; 2 only low, never K A 2, no jokers. Chains are keyed by their
lowest position, a single 三带一 / 四带二 group by its natural rank — exactly as
:func:`~paizhuo_engine.shoubayi.rules.classify_counts`. Plays that would leave the player
holding one joker are dropped (S-3); a bomb never leads (S-3.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat

from ..cards import R2, RA, RBJ, RSJ
from ..movegen import (
    SHIFTS,
    UNIT,
    MoveGenerator,
    Play,
    chain_plays,
    chain_spec,
    kicker_sets,
    kickers_cheapest,
    ranks_with,
    reading,
    set_plays,
    set_table,
)
from ..readings import Reading
from .rules import JOKER_PAIR_KEY, SRules, beats

_CHAIN_ORDER = (RA, R2, *range(RA + 1))
"""S-2 chain order A 2 3 … K A; index ``i`` is chain position ``i + 1``."""
_POSITIONS = tuple(range(1, 15))
_NATURAL = tuple(range(15))
_JOKERS = (UNIT[RSJ], UNIT[RBJ])
_JOKER_BITS = 7 * UNIT[RSJ] + 7 * UNIT[RBJ]


class SMoves(MoveGenerator):
    """The 手把一 generator (S-2, S-3) on packed rank multisets for
    :mod:`paizhuo_engine.moves` (kickers are added as packed integers). Plays that would leave a
    lone joker (S-3) are dropped; a bomb never leads (S-3.4)."""

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
    def _keep_no_lone_joker(plays: list[Play], hand: int, total: int) -> list[Play]:
        """S-3: drop the plays of ``total - 1`` cards whose one card left is a joker."""
        if total < 2 or not hand & _JOKER_BITS:
            return plays
        return [p for p in plays if p[1].size != total - 1 or hand - p[0] not in _JOKERS]

    def _pairs(self, counts: list[int], above: int) -> list[Play]:
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
                above: int, lazy: bool) -> Iterable[Play]:
        need, carry = self.groups[kind]
        size = k * (need + carry)
        if size > total:
            return []
        bases = self._bases(counts, need, k, kind, size, above)
        if lazy:
            return self._groups_lazy(hand, total, bases, k * carry)
        out: list[Play] = []
        m = k * carry
        for base, rd in bases:
            left = hand - base
            avail = [(left >> s) & 7 for s in SHIFTS]
            out += list(zip(kicker_sets(avail, m, _NATURAL, base), repeat(rd)))
        if size == total - 1:
            out = self._keep_no_lone_joker(out, hand, total)
        return out

    def _groups_lazy(self, hand: int, total: int, bases: list[tuple[int, Reading]],
                     m: int) -> Iterator[Play]:
        for base, rd in bases:
            left = hand - base
            avail = [(left >> s) & 7 for s in SHIFTS]
            check = rd.size == total - 1
            for x in kickers_cheapest(avail, m, _NATURAL):
                if check and left - x in _JOKERS:
                    continue
                yield (base + x, rd)

    def bombs(self, hand: int, total: int, counts: list[int], above: int) -> list[Play]:
        """S-3.4 bombs above ``above``, never leaving a lone joker."""
        if not ranks_with(hand, 4):
            return []
        out = set_plays(counts, self.sets["bomb"], above)
        return self._keep_no_lone_joker(out, hand, total) if total == 5 else out

    def family(self, hand: int, total: int, counts: list[int], kind: str, size: int,
               above: int, lazy: bool) -> Iterable[Play]:
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

    def leads(self, hand: int) -> list[Play]:
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
