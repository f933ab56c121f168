"""Legal-move generation benchmark: ``python bench/moves_bench.py``.

Prints, one plain line each, the mean CPU time (``time.process_time``, so other load on
the machine counts less) of:

* full lead enumeration of the worst 手把一 hands (27 cards, several fours and jokers):
  ``before`` — the reference generator on rank-count tuples kept for tests
  (``tests/shoubayi_reference.py``, once the game's second generator);
  ``after`` — the game's one generator, :func:`paizhuo_engine.moves.legal_leads` on packed
  multisets; and the ratio;
* lazy queries (:func:`paizhuo_engine.moves.any_beating`, :func:`paizhuo_engine.moves.lowest_single`)
  against full enumeration of the same follows;
* 抓特务 (every 连牌规则, 带3 + 大小王成对) and 挖坑 (标准, 陕西) lead enumeration on full hands
  (18 / 16 cards) and on hands built to have many plays.

Figures: docs/benchmarks.md.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from shoubayi_reference import legal_plays as counts_legal_plays  # noqa: E402

from paizhuo_engine.cards import parse_cards  # noqa: E402
from paizhuo_engine.movegen import pack_counts  # noqa: E402
from paizhuo_engine.moves import any_beating, legal_follows, legal_leads, lowest_single  # noqa: E402
from paizhuo_engine.readings import Reading  # noqa: E402
from paizhuo_engine.shoubayi.rules import SRules  # noqa: E402
from paizhuo_engine.wakeng.rules import WRules  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules  # noqa: E402

S_HANDS: dict[str, str] = {
    "4 fours + 11 singles": "3 4444 5555 6666 7777 8 9 10 J Q K A 2 小王 大王",
    "6 fours + jokers": "3333 4444 5555 6666 7777 8888 9 小王 大王",
    "9 triples": "333 444 555 666 777 888 999 101010 JJJ",
}

LAZY_TARGETS: dict[str, Reading] = {
    "single 3": Reading("single", 1, 0),
    "triple_one x3 AAA222333": Reading("triple_one", 12, 1),
    "four_two x2 (key 1)": Reading("four_two", 12, 1),
    "bomb 3333": Reading("bomb", 4, 0, bomb=True),
}

Z_RULES: dict[str, ZRules] = {
    "a": ZRules(), "b": ZRules(chain_ends="b"), "c": ZRules(chain_ends="c"),
    "b 带3 王对 连对3": ZRules(chain_ends="b", three_high=True, joker_pair=True, min_pair_chain=3),
}
W_RULES: dict[str, WRules] = {"标准": WRules(), "陕西": WRules(ruleset="陕西")}
RICH = {  # many chains and sets
    "抓特务": "3344556677 889910 JQKA 2 小王 大王",
    "挖坑": "33445566778899 10 J",
}


def counts(text: str) -> tuple[int, ...]:
    out = [0] * 15
    for spec in parse_cards(text):
        out[spec.rank] += 1
    return tuple(out)


def ids(text: str) -> list[int]:
    """Card ids for rank-only text (suits ♠ ♥ ♣ ♦ in turn)."""
    seen: dict[int, int] = {}
    out = []
    for spec in parse_cards(text):
        n = seen.get(spec.rank, 0)
        seen[spec.rank] = n + 1
        out.append(spec.rank * 4 + n if spec.rank < 13 else spec.rank + 39)
    return out


def mean_seconds(fn: Callable[[], object], budget: float = 0.3) -> float:
    """Mean CPU time of ``fn`` over as many runs as fit in about ``budget`` seconds (≥ 5)."""
    runs = 0
    start = time.process_time()
    while runs < 5 or time.process_time() - start < budget:
        fn()
        runs += 1
    return (time.process_time() - start) / runs


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:8.2f} µs"


def main() -> None:
    print(f"Python {sys.version.split()[0]}; CPU time per call")
    rules = SRules()
    print("手把一 full lead enumeration (before: reference counts generator, after: the game's)")
    for name, text in S_HANDS.items():
        hand = counts(text)
        packed = pack_counts(hand)
        n_before = len(counts_legal_plays(hand))
        n_after = len(legal_leads(packed, rules))
        before = mean_seconds(lambda h=hand: counts_legal_plays(h))
        after = mean_seconds(lambda p=packed: legal_leads(p, rules))
        print(f"  {name:22} before {n_before:5} plays {fmt(before)} | after {n_after:5} plays "
              f"{fmt(after)} | {before / after:4.1f}× faster")

    hand = pack_counts(counts(S_HANDS["4 fours + 11 singles"]))
    print("手把一 lazy queries on '4 fours + 11 singles'")
    t = mean_seconds(lambda: lowest_single(hand, rules))
    print(f"  lowest_single                       {fmt(t)}")
    for label, target in LAZY_TARGETS.items():
        n = len(legal_follows(hand, rules, target))
        full = mean_seconds(lambda t=target: legal_follows(hand, rules, t))
        lazy = mean_seconds(lambda t=target: any_beating(hand, rules, t))
        print(f"  {label:26} any_beating {fmt(lazy)} | full legal_follows {n:4} plays {fmt(full)}")

    rnd = random.Random(1)
    deals = []
    for _ in range(200):
        deck = list(range(54))
        rnd.shuffle(deck)
        deals.append(deck)
    print("抓特务 lead enumeration: 200 random 18-card hands (mean) and a rich hand")
    rich = ids(RICH["抓特务"])
    for name, zr in Z_RULES.items():
        hands = [d[:18] for d in deals]
        plays = sum(len(legal_leads(h, zr)) for h in hands) / len(hands)
        t = mean_seconds(lambda zr=zr, hs=hands: [legal_leads(h, zr) for h in hs]) / len(hands)
        n_rich = len(legal_leads(rich, zr))
        t_rich = mean_seconds(lambda zr=zr: legal_leads(rich, zr))
        print(f"  连牌规则 {name:16} {plays:6.1f} plays {fmt(t)} | rich {n_rich:4} plays {fmt(t_rich)}")
    print("挖坑 lead enumeration: 200 random 16-card hands (mean) and a rich hand")
    rich = ids(RICH["挖坑"])
    for name, wr in W_RULES.items():
        hands = [[c for c in d if c < 52][:16] for d in deals]
        plays = sum(len(legal_leads(h, wr)) for h in hands) / len(hands)
        t = mean_seconds(lambda wr=wr, hs=hands: [legal_leads(h, wr) for h in hs]) / len(hands)
        n_rich = len(legal_leads(rich, wr))
        t_rich = mean_seconds(lambda wr=wr: legal_leads(rich, wr))
        print(f"  {name:25} {plays:6.1f} plays {fmt(t)} | rich {n_rich:4} plays {fmt(t_rich)}")


if __name__ == "__main__":
    main()
