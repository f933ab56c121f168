"""Decisions of a computer player outside the play of tricks: 挖坑 bids (叫分) and burying
(扣底), the 抓特务 spy's 明 / 明牌 / 暗 choice and tribute returns (还贡).

Every function decides from what the seat may know (RULES.md G-6): its own hand, the
options the table offers and the game's rules — never another hand, the bottom before it is
taken, or a hidden role. Pure functions, deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..cards import R2, R3, R5, R10, RA, RBJ, RK, RSJ, rank_of

SCORE_RANKS = frozenset({R5, R10, RK})
"""Ranks 5, 10 and K: W-6 doubles the stakes for each one buried."""


def hand_strength(hand: Sequence[int], top: Sequence[int]) -> float:
    """A rough strength of ``hand`` (card ids) for bidding and declaring: control cards count
    most (``top`` = the ranks that win tricks, highest first, e.g. 大王 小王 2 A), fours
    count as bombs, and many lone low cards count against it. Units: about one per sure
    trick; a 16-card 挖坑 hand worth bidding 3 scores 6 or more."""
    counts = Counter(rank_of(c) for c in hand)
    score = 0.0
    for i, rank in enumerate(top):
        score += counts[rank] * (1.5 - 0.25 * i)
    score += 2.0 * sum(1 for r, n in counts.items() if n == 4)
    lone_low = sum(1 for r, n in counts.items() if n == 1 and r not in top)
    return score - 0.3 * max(0, lone_low - 3)


def choose_bid(hand: Sequence[int], options: Sequence[int], shaanxi: bool) -> int:
    """挖坑 叫分 (W-2, W-7): the bid the hand is worth among ``options`` (0 = 不叫); the
    lowest bid allowed when 不叫 is not an option. Returns one of ``options``."""
    top = (R3, R2, RA) if shaanxi else (R2, RA, RK)
    strength = hand_strength(hand, top)
    want = 3 if strength >= 7 else 2 if strength >= 5.5 else 1 if strength >= 4.5 else 0
    allowed = [b for b in options if b <= want]
    return max(allowed) if allowed else min(options)


def choose_bury(hand: Sequence[int], order: Sequence[int], count: int = 4,
                avoid: frozenset[int] = SCORE_RANKS) -> list[int]:
    """挖坑 扣底 (W-3, W-6): ``count`` cards to bury from ``hand`` — lone low cards first,
    then the lowest cards, never a rank in ``avoid`` (5 / 10 / K double the stakes) while
    the hand allows. ``order`` is the rules' rank weight (``rank_order()``)."""
    counts = Counter(rank_of(c) for c in hand)

    def cost(c: int) -> tuple[int, int, int, int]:
        r = rank_of(c)
        return (r in avoid, counts[r] > 1, order[r], c)

    return sorted(sorted(hand, key=cost)[:count])


def choose_declare(hand: Sequence[int], choices: Sequence[str], three_high: bool) -> str:
    """抓特务 spy's choice (Z-9) among ``choices`` (``明`` / ``明牌`` / ``暗``): 明 with a
    strong hand (the doubled stake is worth it), 暗 otherwise; 明牌 is never chosen (an
    open hand helps the civilians more than the stake helps the spy)."""
    top = (RBJ, RSJ, R3, R2) if three_high else (RBJ, RSJ, R2, RA)
    if "明" in choices and hand_strength(hand, top) >= 7:
        return "明"
    return "暗" if "暗" in choices else choices[0]


def choose_return(allowed: Sequence[int], count: int) -> list[int]:
    """抓特务 还贡 (Z-8): the ``count`` cards that cost least to give back. ``allowed`` is
    what may be returned, highest first (``tribute_allowed``)."""
    return sorted(allowed[-count:])
