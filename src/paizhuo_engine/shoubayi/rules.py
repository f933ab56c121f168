"""手把一 settings, ranking and hand classification (RULES.md S-1 … S-4; G-5).

Plays are classified from their rank counts, so this module works on *rank multisets*:
a tuple of 15 counts indexed by natural rank (0 = 3 … 12 = 2, 13 = 小王, 14 = 大王).
:func:`classify` accepts card ids, :func:`classify_counts` the counts themselves (used by
the legal-move generator).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..cards import R2, RA, RBJ, RSJ, rank_of
from ..readings import Reading
from ..settings import RuleSet, Schema, Setting

Counts = tuple[int, ...]
"""15 rank counts (natural ranks 0..14)."""

JOKER_PAIR_KEY = 15
"""S-2: 小王+大王 is the highest pair (above a pair of 2s, key 12)."""


@dataclass(frozen=True, slots=True)
class SRules(RuleSet):
    """The 手把一 switches (RULES.md S). Defaults are the spec's defaults.

    * ``jokers`` — S-1 play with 54 cards (``True``) or 52.
    * ``aside_min`` / ``aside_max`` — S-1: with 2 players, that many cards (random in the
      range) are set aside unseen.
    * ``max_players`` — S-1 seat limit (2…6).
    * ``first_lead`` — S-4 first game: ``"红桃5"`` (♥5, else the lowest heart above it) or
      ``"庄家"``.
    * ``must_block`` — S-4 把一必拦; ``baopei`` — S-4 包赔; ``to_the_end`` — S-5 打到底.
    * ``prompt_seconds`` — carried for the chat layer (no private prompts in 手把一 yet).
    """

    jokers: bool = True
    aside_min: int = 10
    aside_max: int = 20
    max_players: int = 6
    first_lead: str = "红桃5"
    must_block: bool = True
    baopei: bool = True
    to_the_end: bool = False
    prompt_seconds: int = 45
    turn_seconds: int = 60
    """The turn time limit (出牌限时, a shared setting), carried for the chat layer's
    prompts; the engine never reads a clock."""

    lone_joker_refused: ClassVar[bool] = True
    """S-3: 王不能作为把一的牌 — a play leaving one joker alone in hand is refused."""

    held_jokers_double: ClassVar[bool] = True
    """S-6: a joker left in hand doubles the loss (×4 with both)."""

    unplayed_doubles: ClassVar[bool] = True
    """S-6: a player who never played a card pays ×2."""

    @property
    def deck_jokers(self) -> int:  # type: ignore[override]
        """One of each joker with the setting on (54 cards), none without (S-1)."""
        return int(self.jokers)

    @property
    def must_block_last_card(self) -> bool:
        """The 把一必拦 setting (S-4)."""
        return self.must_block

    @property
    def last_card_liability(self) -> bool:
        """The 包赔 setting (S-4)."""
        return self.baopei

    def rank_order(self) -> tuple[int, ...]:
        """Sort weight of each natural rank: 3 < … < A < 2 < 小王 < 大王 (S-2)."""
        return tuple(range(15))


def counts_of(cards: Iterable[int]) -> Counts:
    """The rank counts of ``cards``."""
    out = [0] * 15
    for c in cards:
        out[rank_of(c)] += 1
    return tuple(out)


def chain_positions(ranks: Sequence[int]) -> list[int]:
    """S-2: the lowest chain position of the distinct natural ``ranks`` for every way
    they are consecutive — A high (… K A = 13 14) or A low (A 2 3 … = 1 2 3); 2 only low;
    jokers never. Positions: A low 1, 2 low 2, 3 … K = 3 … 13, A high 14."""
    if not ranks or any(r >= RSJ for r in ranks):
        return []
    lows = []
    if R2 not in ranks:
        high = sorted(r + 3 for r in ranks)  # 3..K → 3..13, A → 14
        if high[-1] - high[0] == len(high) - 1:
            lows.append(high[0])
    if RA in ranks or R2 in ranks:
        low = sorted(1 if r == RA else 2 if r == R2 else r + 3 for r in ranks)
        if low[-1] - low[0] == len(low) - 1:
            lows.append(low[0])
    return lows


def _chain_readings(kind: str, counts: Counts, width: int, minimum: int, n: int) -> list[Reading]:
    """Readings of chains whose every rank appears exactly ``width`` times."""
    ranks = [r for r in range(15) if counts[r]]
    if len(ranks) < minimum or any(counts[r] != width for r in ranks):
        return []
    return [Reading(kind, n, low) for low in chain_positions(ranks)]


def _consecutive_windows(kind: str, candidates: list[int], k: int, n: int) -> list[Reading]:
    """Every set of ``k`` candidate ranks that forms a chain (A high or low, S-2)."""
    out = []
    positions: dict[int, int] = {}
    for r in candidates:
        if r != R2:
            positions[r + 3] = r
        if r in (RA, R2):
            positions[1 if r == RA else 2] = r
    for low in sorted(positions):
        window = [low + i for i in range(k)]
        if 14 in window and 2 in window:
            continue  # 2 stands only low, A then only low too: never … K A 2 (S-2)
        if all(p in positions for p in window):
            ranks = [positions[p] for p in window]
            if len(set(ranks)) == k:
                out.append(Reading(kind, n, low))
    return out


def _groups(kind: str, candidates: list[int], k: int, n: int) -> list[Reading]:
    """``k`` groups: one group keyed by its rank, several by the lowest chain position of
    every run of ``k`` consecutive candidate ranks (S-2 Decision)."""
    if k == 1:
        return [Reading(kind, n, r) for r in candidates]
    return _consecutive_windows(kind, candidates, k, n)


def classify_counts(counts: Counts) -> list[Reading]:
    """Every legal 手把一 reading of a rank multiset (S-3, G-5). A four alone reads both
    as a bomb and as 三带一 (S-3.4: a bomb may not lead; led, it is a 三带一)."""
    n = sum(counts)
    if n == 0:
        return []
    ranks = [r for r in range(15) if counts[r]]
    out: list[Reading] = []
    if len(ranks) == 1:
        (r,) = ranks
        c = counts[r]
        if c == 1:
            out.append(Reading("single", 1, r))
        elif c == 2:
            out.append(Reading("pair", 2, r))
        elif c == 4:
            out.append(Reading("bomb", 4, r, bomb=True))
    if n == 2 and counts[RSJ] == 1 and counts[RBJ] == 1:
        out.append(Reading("pair", 2, JOKER_PAIR_KEY))
    if n >= 5:
        out += _chain_readings("straight", counts, 1, 5, n)
    if n >= 6:
        out += _chain_readings("pair_chain", counts, 2, 3, n)
    # S-3.2 三带一: k triples on consecutive ranks, each carrying one card (n = 4k).
    triples = [r for r in range(13) if counts[r] >= 3]
    if n % 4 == 0:
        out += _groups("triple_one", triples, n // 4, n)
    # S-3.3 四带二: k fours on consecutive ranks, each carrying two cards (n = 6k).
    fours = [r for r in range(13) if counts[r] == 4]
    if n % 6 == 0:
        out += _groups("four_two", fours, n // 6, n)
    return out


def classify(cards: Iterable[int]) -> list[Reading]:
    """Every legal 手把一 reading of ``cards`` (S-3), order of cards ignored."""
    return classify_counts(counts_of(cards))


def beats(new: Reading, old: Reading) -> bool:
    """S-3: a bomb beats every non-bomb and bombs compare by rank; otherwise the same
    type and number of cards with a higher key (chains by their lowest card)."""
    if new.bomb:
        return not old.bomb or new.key > old.key
    return not old.bomb and new.kind == old.kind and new.size == old.size and new.key > old.key


SCHEMA = Schema("手把一", (
    Setting("大小王", "jokers", "bool", True, "带大小王（54 张）还是不带（52 张）", "S-1"),
    Setting("两人藏牌最少", "aside_min", "int", 10, "两人局先抽出不看的牌数下限", "S-1", low=0, high=20),
    Setting("两人藏牌最多", "aside_max", "int", 20, "两人局先抽出不看的牌数上限", "S-1", low=0, high=30),
    Setting("人数上限", "max_players", "int", 6, "一桌最多几人", "S-1", low=2, high=6),
    Setting("首出", "first_lead", "choice", "红桃5", "第一局谁先出：红桃5（没有则更大的最小红桃）/ 庄家",
            "S-4", choices=("红桃5", "庄家")),
    Setting("把一必拦", "must_block", "bool", True, "上家把一、其他人都过时，最后一家能管必须管", "S-4"),
    Setting("包赔", "baopei", "bool", True, "下家把一时出单张不出最大的，被他走掉就替所有输家赔", "S-4"),
    Setting("打到底", "to_the_end", "bool", False, "头游之后继续打出每个名次，只有大拉赔", "S-5"),
), rule=lambda v: "两人藏牌最少不能大于最多" if v["aside_min"] > v["aside_max"] else None)
"""The group settings of 手把一 (RULES.md S), as ``/规则`` and ``/设置`` show them."""
