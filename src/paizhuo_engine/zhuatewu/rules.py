"""抓特务 rule variants, ranking and hand classification (RULES.md Z-2, Z-3, Z-4, G-5).

:class:`ZRules` holds every variant switch of section Z as data; the classifier and the
comparison read it, so a variant is a value, never a code path of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..cards import (
    BIG_JOKER,
    CLUB,
    HEART,
    R2,
    R3,
    R4,
    RA,
    RBJ,
    RK,
    RSJ,
    SMALL_JOKER,
    SPADE,
    card,
    rank_of,
)
from ..readings import Reading
from ..settings import RuleSet, Schema, Setting

SPY_CARD_SETS: dict[str, tuple[int, ...]] = {
    "双黑": (card(RA, SPADE), card(RA, CLUB)),
    "双桃": (card(RA, SPADE), card(RA, HEART)),
    "黑KA": (card(RA, SPADE), card(RK, SPADE)),
}
"""Z-2: the 4-player spy-card settings (the 3-player game always uses ♠A alone)."""


@dataclass(frozen=True, slots=True)
class ZRules(RuleSet):
    """The 抓特务 variant switches (RULES.md Z). Defaults are the spec's defaults.

    * ``spy_cards`` — Z-2, 4 players: ``"双黑"`` / ``"双桃"`` / ``"黑KA"``.
    * ``three_high`` — Z-3 带3: 3 ranks above 2 (and ♥4 leads, Z-5).
    * ``joker_pair`` — Z-3 大小王成对: 小王+大王 is the highest pair.
    * ``chain_ends`` — Z-4 连牌规则 ``"a"`` / ``"b"`` / ``"c"``.
    * ``min_pair_chain`` — Z-4 连对最少 2 or 3 pairs.
    * ``first_lead`` — Z-5 first game: ``"红桃3"`` (♥3, or ♥4 under 带3) or ``"庄家"`` (dealer).
    * ``later_lead`` — Z-5 later games: ``"上局头游"`` (previous first out), ``"红桃3"`` or ``"庄家"``.
    * ``report_at`` — Z-6 报牌张数 N (0 = off).
    * ``show_counts`` — Z-6 显示张数.
    * ``lone_spy`` — Z-7 独头规则 ``"a"`` / ``"b"``.
    * ``allow_declare`` / ``allow_open_hand`` — Z-9 明特务 / 明牌 allowed.
    * ``prompt_seconds`` — the time limit of private answers (还贡 Z-8, 明/暗 Z-9); the
      engine only carries it, the chat layer keeps the clock.
    """

    spy_cards: str = "双黑"
    three_high: bool = False
    joker_pair: bool = False
    chain_ends: str = "a"
    min_pair_chain: int = 2
    first_lead: str = "红桃3"
    later_lead: str = "上局头游"
    report_at: int = 1
    show_counts: bool = False
    lone_spy: str = "a"
    allow_declare: bool = True
    allow_open_hand: bool = True
    prompt_seconds: int = 45
    turn_seconds: int = 60
    """The turn time limit (出牌限时, a shared setting), carried for the chat layer's
    prompts; the engine never reads a clock."""


    # ---- Z-2 -------------------------------------------------------------------------
    def spy_cards_for(self, players: int) -> tuple[int, ...]:
        """Spy cards (特务牌) for a table of ``players`` (3 → ♠A; 4 → the setting), Z-2."""
        return (card(RA, SPADE),) if players == 3 else SPY_CARD_SETS[self.spy_cards]

    # ---- Z-3 -------------------------------------------------------------------------
    def rank_order(self) -> tuple[int, ...]:
        """Sort weight of each natural rank 0..14 under Z-3 (higher beats lower)."""
        if self.three_high:
            # 4 … A, 2, 3, 小王, 大王
            return (13,) + tuple(range(1, 13)) + (14, 15)
        return tuple(range(15))

    def first_lead_card(self) -> int:
        """Z-5: ♥3, or ♥4 under 带3."""
        return card(R4 if self.three_high else R3, HEART)


def _chain_positions(ranks: list[int], allow_low: bool) -> list[int] | None:
    """Chain-order positions of the distinct natural ``ranks`` if they are consecutive,
    as the top position; ``None`` otherwise. High order 3 … K A = 0 … 11; with
    ``allow_low`` also the low order A 2 3 … K = -2 … 10. Returns the tops of each order
    in which the ranks are consecutive (Z-4 连牌规则)."""
    tops: list[int] = []
    if any(r >= RSJ for r in ranks):
        return tops
    if R2 not in ranks:
        hi = sorted(ranks)
        if hi[-1] - hi[0] == len(hi) - 1:
            tops.append(hi[-1])
    if allow_low:
        low = sorted(-2 if r == RA else (-1 if r == R2 else r) for r in ranks)
        if low[0] < 0 and low[-1] - low[0] == len(low) - 1:
            tops.append(low[-1])
    return tops


def classify(cards: Iterable[int], rules: ZRules) -> list[Reading]:
    """Every legal 抓特务 reading of ``cards`` (Z-4; G-5), order of cards ignored.

    Keys: sets (single … four, 三带一, 四带二) use the Z-3 rank weight of the main rank;
    chains use the top card's position in chain order (an A played low counts below 3).
    Returns ``[]`` when the cards are no legal hand.
    """
    cs = list(cards)
    n = len(cs)
    if n == 0:
        return []
    weight = rules.rank_order()
    counts = Counter(rank_of(c) for c in cs)
    by_size: dict[int, list[int]] = {}
    for r, k in counts.items():
        by_size.setdefault(k, []).append(r)
    out: list[Reading] = []
    distinct = len(counts)

    # Z-4.1 sets; Z-3 joker pair.
    if distinct == 1:
        (r,) = counts
        out.append(Reading(("single", "pair", "triple", "four")[n - 1], n, weight[r]))
    elif n == 2 and rules.joker_pair and set(cs) == {SMALL_JOKER, BIG_JOKER}:
        out.append(Reading("pair", 2, weight[RBJ] + 1))

    # Z-4.5 三带一: a triple and exactly one other card.
    if n == 4 and sorted(counts.values()) == [1, 3]:
        out.append(Reading("triple_one", 4, weight[by_size[3][0]]))

    # Z-4.6 四带二: a four plus two singles or one pair (never two pairs).
    if n == 6 and 4 in by_size and distinct in (2, 3):
        out.append(Reading("four_two", 6, weight[by_size[4][0]]))

    # Z-4.2-4 chains: every rank the same count, consecutive in chain order.
    if len(by_size) == 1:
        (width,) = by_size
        ranks = by_size[width]
        kind, minimum = {1: ("straight", 5), 2: ("pair_chain", rules.min_pair_chain),
                         3: ("triple_chain", 3)}.get(width, ("", 0))
        if kind and len(ranks) >= minimum:
            ends = rules.chain_ends
            if ends == "a" or (ends == "c" and width > 1):
                if R2 in ranks or (ends == "c" and RA in ranks):
                    tops = []
                else:
                    tops = _chain_positions(ranks, allow_low=False)
            else:
                tops = _chain_positions(ranks, allow_low=True)
            for top in tops:
                out.append(Reading(kind, n, top))
    return out


def beats(new: Reading, old: Reading) -> bool:
    """Z-4: same type and same number of cards, strictly higher key (no bombs in 抓特务)."""
    return new.kind == old.kind and new.size == old.size and new.key > old.key


SCHEMA = Schema("抓特务", (
    Setting("特务牌", "spy_cards", "choice", "双黑", "四人局的两张特务牌：双黑 ♠A♣A / 双桃 ♠A♥A / 黑KA ♠A♠K",
            "Z-2", choices=tuple(SPY_CARD_SETS)),
    Setting("带3", "three_high", "bool", False, "3 最大（大王>小王>3>2>A…），首局 ♥4 先出", "Z-3"),
    Setting("大小王成对", "joker_pair", "bool", False, "小王+大王算最大的对子", "Z-3"),
    Setting("连牌规则", "chain_ends", "choice", "a",
            "a：2 不能连、A 只接 K 后；b：2 可接 3 前、A 两头都可连；c：同 b 但只限顺子", "Z-4",
            choices=("a", "b", "c")),
    Setting("连对最少", "min_pair_chain", "int", 2, "连对至少几对", "Z-4", low=2, high=3),
    Setting("首出", "first_lead", "choice", "红桃3", "第一局谁先出：红桃3（带3 时 ♥4）/ 庄家", "Z-5",
            choices=("红桃3", "庄家")),
    Setting("后续首出", "later_lead", "choice", "上局头游", "之后各局谁先出：上局头游 / 红桃3 / 庄家", "Z-5",
            choices=("上局头游", "红桃3", "庄家")),
    Setting("报牌张数", "report_at", "int", 1, "手牌剩几张及以下时群里报张数（0 = 不报）", "Z-6", low=0, high=5),
    Setting("显示张数", "show_counts", "bool", False, "每步后群里显示每人剩余张数", "Z-6"),
    Setting("独头规则", "lone_spy", "choice", "a", "一人持两张特务牌：a 头游才赢；b 头游胜、末游负、其余平局",
            "Z-7", choices=("a", "b")),
    Setting("明特务", "allow_declare", "bool", True, "特务可以亮明身份（积分 ×2）", "Z-9"),
    Setting("明牌", "allow_open_hand", "bool", True, "特务可以明牌打（手牌公开，积分 ×4）", "Z-9"),
    Setting("私聊限时", "prompt_seconds", "int", 45, "还贡、明/暗 私聊应答的秒数，超时按默认处理", "G-4",
            low=10, high=600),
))
"""The group settings of 抓特务 (RULES.md Z), as ``/规则`` and ``/设置`` show them."""
