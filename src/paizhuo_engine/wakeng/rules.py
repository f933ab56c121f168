"""挖坑 rule sets, ranking and hand classification (RULES.md W-4, W-7; G-5).

:class:`WRules` holds the group's choice of rule set (标准 / 陕西) as data; the classifier
and the comparison read it, so the regional set is a value, not a code path of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from ..cards import R2, R3, R4, R5, R10, RA, RK, rank_of
from ..readings import Reading
from ..settings import RuleSet, Schema, Setting

SCORE_RANKS = (R5, R10, RK)
"""W-6: each buried 5, 10 or K doubles the score."""


@dataclass(frozen=True, slots=True)
class WRules(RuleSet):
    """The 挖坑 switches. ``ruleset`` — W-7 挖坑规则 ``"标准"`` (W-1…W-6) or ``"陕西"``;
    ``prompt_seconds`` — the time limit of the private bury (W-3; the chat layer keeps the
    clock)."""

    ruleset: str = "标准"
    prompt_seconds: int = 45
    turn_seconds: int = 60
    """The turn time limit (出牌限时, a shared setting), carried for the chat layer's
    prompts; the engine never reads a clock."""

    deck_jokers: ClassVar[int] = 0
    """W-1: 52 cards, no jokers."""

    @property
    def shaanxi(self) -> bool:
        """The 陕西 rule set (W-7)."""
        return self.ruleset == "陕西"

    def rank_order(self) -> tuple[int, ...]:
        """Sort weight of each natural rank 0..14: 标准 3 < … < A < 2 (W-4); 陕西
        4 < … < A < 2 < 3 (W-7). Jokers are not in the deck."""
        if self.shaanxi:
            return (13,) + tuple(range(1, 13)) + (14, 15)
        return tuple(range(15))


def classify(cards: Iterable[int], rules: WRules) -> list[Reading]:
    """Every legal 挖坑 reading of ``cards`` (W-4 / W-7), order of cards ignored.

    标准: single, pair, triple, bomb (four of a kind); straight of 5+ singles, pair chain
    of 3+ pairs, triple chain of 2+ triples, all within 3 … A. 陕西: single, pair, triple,
    四条 (a four, no bomb); 连牌 of 3+ singles and 对子连牌 of 3+ pairs within 4 … K; no
    triple chains. Keys: sets by the rank weight, chains by their top card. No kickers.
    """
    cs = list(cards)
    if not cs:
        return []
    weight = rules.rank_order()
    counts = Counter(rank_of(c) for c in cs)
    n = len(cs)
    widths = set(counts.values())
    if len(counts) == 1:
        (r,) = counts
        if n == 4:
            return [Reading("four", 4, weight[r])] if rules.shaanxi else [Reading("bomb", 4, weight[r], bomb=True)]
        return [Reading(("single", "pair", "triple")[n - 1], n, weight[r])]
    if len(widths) != 1:
        return []
    (width,) = widths
    ranks = sorted(counts)
    if ranks[-1] - ranks[0] != len(ranks) - 1:
        return []
    if rules.shaanxi:
        low, high = R4, RK
        minimum = {1: 3, 2: 3}.get(width)
    else:
        low, high = R3, RA
        minimum = {1: 5, 2: 3, 3: 2}.get(width)
    if minimum is None or len(ranks) < minimum or ranks[0] < low or ranks[-1] > high:
        return []
    kind = {1: "straight", 2: "pair_chain", 3: "triple_chain"}[width]
    return [Reading(kind, n, ranks[-1])]


def beats(new: Reading, old: Reading) -> bool:
    """W-4: a bomb beats any non-bomb, bombs compare by rank; otherwise the same type and
    size with a higher key."""
    if new.bomb:
        return not old.bomb or new.key > old.key
    return not old.bomb and new.kind == old.kind and new.size == old.size and new.key > old.key


def bury_multiplier(buried: Iterable[int], rules: WRules) -> int:
    """W-6: 2 to the power of the 5s, 10s and Ks among the buried cards; 陕西: 1 (W-7)."""
    if rules.shaanxi:
        return 1
    return 2 ** sum(1 for c in buried if rank_of(c) in SCORE_RANKS)


def forced_three(hand: Iterable[int]) -> bool:
    """W-7 陕西: three 3s, or two 3s and two 2s, must bid 3."""
    counts = Counter(rank_of(c) for c in hand)
    return counts[R3] >= 3 or (counts[R3] >= 2 and counts[R2] >= 2)


SCHEMA = Schema("挖坑", (
    Setting("挖坑规则", "ruleset", "choice", "标准",
            "标准：2 最大、有炸弹、底牌 5/10/K 翻倍；陕西：3 最大、连牌只用 4…K、无炸弹和三顺、♥4 先叫先出、无翻倍",
            "W-7", choices=("标准", "陕西")),
    Setting("私聊限时", "prompt_seconds", "int", 45, "挖坑者私聊扣底的秒数，超时自动扣最小的 4 张（尽量不扣 5、10、K）", "W-3",
            low=10, high=600),
))
"""The group settings of 挖坑 (RULES.md W), as ``/规则`` and ``/设置`` show them."""
