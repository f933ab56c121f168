"""Decision time of the computer player: ``python bench/ai_bench.py``.

Times :func:`paizhuo_engine.ai.strategy.decide` (the whole decision: view, plan, candidates) on
the worst 手把一 hands (27 cards with several fours and jokers, leading and following
every type) and on every decision of self-play games of every game, and prints p50 /
p99 / max in milliseconds. The goal is p99 ≤ 20 ms. ``--wall`` times wall-clock instead
of the thread's CPU time (CPU time is the default: on a shared machine the wall time
mostly measures waiting for a core).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paizhuo_engine.ai.strategy import PlanStrategy, decide  # noqa: E402
from paizhuo_engine.ai.view import view_of  # noqa: E402
from paizhuo_engine.cards import (  # noqa: E402
    DECK_54,  # noqa: E402
    parse_cards,
    resolve,
)
from paizhuo_engine.readings import Reading  # noqa: E402
from paizhuo_engine.shoubayi.game import SGame  # noqa: E402
from paizhuo_engine.shoubayi.rules import SRules  # noqa: E402
from paizhuo_engine.wakeng.game import WGame  # noqa: E402
from paizhuo_engine.wakeng.rules import WRules  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules  # noqa: E402

CLOCK = time.thread_time
"""The timer: the deciding thread's CPU time (``--wall``: wall-clock)."""

WORST = {
    "4 fours + 11 singles": "3 4444 5555 6666 7777 8 9 10 J Q K A 2 小王 大王",
    "6 fours + jokers": "3333 4444 5555 6666 7777 8888 9 小王 大王",
    "9 triples": "333 444 555 666 777 888 999 101010 JJJ",
}
TO_BEAT = {
    "lead": None,
    "single 3": Reading("single", 1, 0),
    "pair 33": Reading("pair", 2, 0),
    "三带一 ×3": Reading("triple_one", 12, 1),
    "四带二": Reading("four_two", 6, 0),
    "straight A2345": Reading("straight", 5, 1),
    "bomb 3333": Reading("bomb", 4, 0, bomb=True),
}


def ms(samples: list[float]) -> str:
    s = sorted(samples)
    p99 = s[min(len(s) - 1, int(len(s) * 0.99))]
    return (f"p50 {statistics.median(s) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
            f"max {s[-1] * 1e3:.2f} ms ({len(s)} decisions)")


def worst_hands() -> list[float]:
    samples = []
    for name, text in WORST.items():
        hand = resolve(parse_cards(text), DECK_54)
        rest = [c for c in DECK_54 if c not in hand][:27]
        for target, reading in TO_BEAT.items():
            game = SGame.from_hands([hand, rest], SRules(), leader=0)
            if reading is not None:
                game.lead = [1, [], reading.to_json()]
                game.played = [True, True]
            times = []
            for _ in range(20):
                t = CLOCK()
                decide(view_of(game, 0))
                times.append(CLOCK() - t)
            samples += times
            print(f"  {name} / {target}: {ms(times)}")
    return samples


def selfplay(make, games: int) -> list[float]:
    strategy = PlanStrategy()
    samples = []
    for seed in range(games):
        game = make(seed)
        while not game.over:
            seat = game.turn
            t = CLOCK()
            action = strategy.choose(game, seat)
            samples.append(CLOCK() - t)
            if action.kind == "pass":
                game.pass_turn(seat)
            else:
                game.play_reading(seat, list(action.cards), action.reading)
    return samples


def zgame(players: int):
    def make(seed: int) -> ZGame:
        game = ZGame.deal(players, ZRules(), seed)
        game.declare_timeout()
        return game
    return make


def wgame(seed: int) -> WGame:
    game = WGame.deal(WRules(), seed)
    while game.phase == "bid":
        game.bid_timeout()
    game.bury_timeout()
    return game


def main() -> None:
    global CLOCK
    if "--wall" in sys.argv[1:]:
        CLOCK = time.perf_counter
    print(f"timer: {'wall-clock' if CLOCK is time.perf_counter else 'CPU time of the thread'}")
    print("worst 手把一 hands (27 cards):")
    everything = worst_hands()
    print(f"all worst-hand decisions: {ms(everything)}")
    for name, make in [("抓特务 3 人", zgame(3)), ("抓特务 4 人", zgame(4)), ("挖坑", wgame),
                       ("手把一 2 人", lambda s: SGame.deal(2, SRules(), s)),
                       ("手把一 4 人", lambda s: SGame.deal(4, SRules(), s))]:
        samples = selfplay(make, 100)
        everything += samples
        print(f"self-play {name}: {ms(samples)}")
    print(f"every decision: {ms(everything)}")


if __name__ == "__main__":
    main()
