"""Hand planning for computer players: split a hand into few plays (牌型规划).

A hand's *plan* is a list of :class:`Group` — chains, bombs and same-rank sets — found
greedily on rank counts: bombs kept whole where the game has them, then chains that use
up whole rank groups (longest first, triple chains before pair chains before straights),
then every remaining rank as one set; triples (and fours) take the lowest loose singles
as kickers where the game allows (三带一 / 四带二). ``len(plan)`` minus the kickers is
the number of plays the hand needs to go out: the strategy keeps it small.

Pure functions on 15 rank counts (natural ranks 0 = 3 … 12 = 2, 13 / 14 = jokers).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..movegen import ChainSpec, pack_counts
from ..moves import generator, legal_leads


@dataclass(frozen=True, slots=True)
class Group:
    """One planned play: ``kind`` (``single`` … ``four``, ``bomb``, or a chain kind),
    ``ranks`` (natural ranks, one per rank group), ``width`` cards of each rank, and
    ``kickers`` (natural ranks of carried singles)."""

    kind: str
    ranks: tuple[int, ...]
    width: int
    kickers: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.ranks) * self.width + len(self.kickers)

    def counts(self) -> list[int]:
        """The 15 rank counts of the group."""
        out = [0] * 15
        for r in self.ranks:
            out[r] += self.width
        for r in self.kickers:
            out[r] += 1
        return out


@dataclass(frozen=True, slots=True, eq=False)
class GameShape:
    """What the planner needs of one game's rules: chain families, rank weights, whether
    fours are bombs, and which sets carry kickers. Compared and hashed by identity
    (:func:`shape_of` makes one per rule object; plan caches key on it)."""

    chains: tuple[ChainSpec, ...]
    weight: tuple[int, ...]
    bombs: bool
    triple_kicker: bool
    bare_triple: bool
    four_kickers: bool
    planes: bool = False


_SET_KIND = {1: "single", 2: "pair", 3: "triple", 4: "four"}


@lru_cache(maxsize=64)
def shape_of(rules: Any) -> GameShape:
    """The :class:`GameShape` of a rule object (cached; rule objects are frozen)."""
    gen = generator(rules)
    chains = tuple(getattr(gen, "chains", ())) or tuple(
        s for s in (getattr(gen, "straight", None), getattr(gen, "pair_chain", None)) if s)
    weight = tuple(getattr(gen, "weight", range(15)))
    probe = legal_leads(pack_counts([3, 1] + [0] * 13), rules)
    kinds = {p[1].kind for p in probe}
    probe4 = legal_leads(pack_counts([4, 1, 1] + [0] * 12), rules)
    kinds4 = {p[1].kind for p in probe4}
    probe8 = legal_leads(pack_counts([3, 3, 1, 1] + [0] * 11), rules)
    planes = any(p[1].kind == "triple_one" and p[1].size == 8 for p in probe8)
    return GameShape(chains=tuple(sorted(chains, key=lambda s: -s.width)), weight=weight,
                     bombs=gen.has_bombs, triple_kicker="triple_one" in kinds,
                     bare_triple="triple" in kinds, four_kickers="four_two" in kinds4,
                     planes=planes)


def _windows(spec: ChainSpec, counts: list[int]) -> list[tuple[int, int]]:
    """``(start, length)`` of every chain window of ``spec`` the counts allow."""
    order, width, n = spec.order, spec.width, len(spec.order)
    out = []
    for i in range(n):
        j = i
        while j < n and counts[order[j]] >= width:
            j += 1
            length = j - i
            if length < spec.shortest or length > spec.longest:
                continue
            if spec.wrap and (i <= 1 and j == n):
                continue
            ranks = order[i:j]
            if len(set(ranks)) != length:
                continue
            out.append((i, length))
    return out


def plan_hand(counts: list[int] | tuple[int, ...], shape: GameShape) -> list[Group]:
    """A plan of the hand with rank ``counts`` (see the module doc)."""
    c = list(counts)
    groups: list[Group] = []
    if shape.bombs:
        for r in range(13):
            if c[r] == 4:
                groups.append(Group("bomb", (r,), 4))
                c[r] = 0
    for spec in shape.chains:
        while True:
            best = None
            for i, length in _windows(spec, c):
                ranks = spec.order[i:i + length]
                exact = sum(1 for r in ranks if c[r] == spec.width)
                broken = sum(1 for r in ranks if c[r] > spec.width)
                gain = exact - 1 - 0.5 * broken
                if gain <= 0:
                    continue
                score = (gain, length, -i)
                if best is None or score > best[0]:
                    best = (score, ranks)
            if best is None:
                break
            ranks = best[1]
            for r in ranks:
                c[r] -= spec.width
            groups.append(Group(spec.kind, tuple(ranks), spec.width))
    sets = [Group(_SET_KIND[c[r]], (r,), c[r]) for r in range(15) if c[r]]
    singles = sorted((g for g in sets if g.kind == "single"), key=lambda g: shape.weight[g.ranks[0]])
    carriers = [g for g in sets if g.kind == "triple" and (shape.triple_kicker or not shape.bare_triple)]
    carriers += [g for g in sets if g.kind == "four" and shape.four_kickers]
    carriers.sort(key=lambda g: shape.weight[g.ranks[0]])
    used: set[int] = set()
    out: list[Group] = []
    for g in carriers:
        need = 1 if g.kind == "triple" else 2
        take = [s for s in singles if s.ranks[0] not in used][:need]
        if len(take) == need:
            used.update(s.ranks[0] for s in take)
            out.append(Group("triple_one" if g.kind == "triple" else "four_two", g.ranks, g.width,
                             tuple(s.ranks[0] for s in take)))
        else:
            out.append(g)
    carried = {id(g) for g in carriers}
    for g in sets:
        if id(g) in carried or (g.kind == "single" and g.ranks[0] in used):
            continue
        out.append(g)
    if shape.planes:
        out = _planes(out)
    return groups + out


def _planes(groups: list[Group]) -> list[Group]:
    """Join 三带一 of consecutive ranks (3 … A) into one 飞机 (S-3: a chain of 三带一 is
    one play), so the plan counts it as one."""
    trips = sorted((g for g in groups if g.kind == "triple_one" and len(g.ranks) == 1),
                   key=lambda g: g.ranks[0])
    if len(trips) < 2:
        return groups
    runs: list[list[Group]] = [[trips[0]]]
    for g in trips[1:]:
        if g.ranks[0] == runs[-1][-1].ranks[0] + 1 and g.ranks[0] <= 11:
            runs[-1].append(g)
        else:
            runs.append([g])
    out = [g for g in groups if not (g.kind == "triple_one" and len(g.ranks) == 1)]
    for run in runs:
        if len(run) == 1:
            out.append(run[0])
            continue
        ranks = tuple(r for g in run for r in g.ranks)
        kickers = tuple(k for g in run for k in g.kickers)
        out.append(Group("triple_one", ranks, 3, kickers))
    return out
