"""手把一 move-generation benchmark: ``python bench/shoubayi_moves.py``.

Times the full enumeration (:func:`paizhuo_engine.moves.legal_plays`) and the S-4 把一必拦
question "can anything beat it?" (:func:`paizhuo_engine.moves.any_beating`, the cheapest follow
or none — what :meth:`SGame.can_beat` asks) of the game's one generator, each beside the
reference generator on rank counts kept for tests (``tests/shoubayi_reference.py``:
``legal_plays``, and ``can_beat`` by direct checks) in the same run — leading, and
following a single, a pair, a 三带一 chain of three, a 四带二, a straight and a bomb, each
the lowest of its type so that as much as possible answers it, and 大王 which only a
bomb answers — on the worst hands of a 2-player deal (27 cards) that we could construct.
Prints the number of plays found and the mean time over repeated runs, one plain line
each. Figures: docs/benchmarks.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import shoubayi_reference as reference  # noqa: E402

from paizhuo_engine.cards import parse_cards  # noqa: E402
from paizhuo_engine.movegen import pack_counts  # noqa: E402
from paizhuo_engine.moves import any_beating, legal_plays  # noqa: E402
from paizhuo_engine.readings import Reading  # noqa: E402
from paizhuo_engine.shoubayi.rules import Counts, SRules  # noqa: E402

HANDS: dict[str, str] = {
    # Found by hill-climbing the number of leads over 27-card hands: four consecutive
    # fours (四带二 / 三带一 chains) and every other rank once (kickers, straights).
    "4 fours + 11 singles": "3 4444 5555 6666 7777 8 9 10 J Q K A 2 小王 大王",
    "6 fours + jokers": "3333 4444 5555 6666 7777 8888 9 小王 大王",
    "9 triples": "333 444 555 666 777 888 999 101010 JJJ",
}

TARGETS: dict[str, Reading | None] = {
    "lead": None,
    "single 3": Reading("single", 1, 0),
    "single BJ": Reading("single", 1, 14),
    "pair 33": Reading("pair", 2, 0),
    "triple_one x3 AAA222333": Reading("triple_one", 12, 1),
    "four_two 3333+2": Reading("four_two", 6, 0),
    "straight A2345": Reading("straight", 5, 1),
    "bomb 3333": Reading("bomb", 4, 0, bomb=True),
}


def counts(text: str) -> Counts:
    out = [0] * 15
    for spec in parse_cards(text):
        out[spec.rank] += 1
    return tuple(out)


def mean_seconds(fn: Callable[[], object], budget: float = 0.3) -> tuple[float, int]:
    """Mean time of ``fn`` over as many runs as fit in about ``budget`` seconds (≥ 5)."""
    runs = 0
    start = time.perf_counter()
    while runs < 5 or time.perf_counter() - start < budget:
        fn()
        runs += 1
    return (time.perf_counter() - start) / runs, runs


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:8.2f} µs"


def main() -> None:
    print(f"Python {sys.version.split()[0]}; the game's generator (reference on rank counts)")
    rules = SRules()
    for name, text in HANDS.items():
        hand = counts(text)
        packed = pack_counts(hand)
        print(f"hand {name} ({sum(hand)} cards): {text}")
        for label, target in TARGETS.items():
            plays = legal_plays(packed, rules, target)
            t_all, n_all = mean_seconds(lambda p=packed, t=target: legal_plays(p, rules, t))
            t_ref, _ = mean_seconds(lambda h=hand, t=target: reference.legal_plays(h, t))
            line = (f"  {label:24} legal_plays {len(plays):5} plays {fmt(t_all)} "
                    f"(reference {fmt(t_ref).strip()}; mean of {n_all})")
            if target is not None:
                found = any_beating(packed, rules, target) is not None
                assert found == reference.can_beat(hand, target) == bool(plays)
                t_can, n_can = mean_seconds(lambda p=packed, t=target: any_beating(p, rules, t))
                t_rcan, _ = mean_seconds(lambda h=hand, t=target: reference.can_beat(h, t))
                line += (f" | can beat {found!s:5} any_beating {fmt(t_can)} "
                         f"(reference can_beat {fmt(t_rcan).strip()}; mean of {n_can})")
            print(line)


if __name__ == "__main__":
    main()
