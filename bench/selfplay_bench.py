"""Random self-play benchmark: ``python bench/selfplay_bench.py [seconds per row]``.

Plays whole random games of every game and table size — each move chosen uniformly among
the seat's legal plays from :mod:`paizhuo_engine.moves` (plus 过 when following and allowed) — and
prints moves/s (plays and passes; dealing, 明/暗, 叫分 and 扣底 included in the time).
Two apply paths are measured: ``trusted`` (:meth:`~paizhuo_engine.climbing.ClimbingGame.play_reading`,
the generated reading is kept) and ``classify`` (:meth:`~paizhuo_engine.climbing.ClimbingGame.play`
with the type named, which classifies the cards again, G-5).

When RLCard is installed (an optional comparison, never a dependency), RLCard's 斗地主
random self-play runs in the same process: its game core (``DoudizhuGame``: deal, bid,
legal actions, step) with a uniform random choice among ``state["actions"]``, and the
ratio of every row to it is printed. Without RLCard: "RLCard not installed".
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paizhuo_engine.climbing import ClimbingGame  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402
from paizhuo_engine.movegen import pack_cards  # noqa: E402
from paizhuo_engine.moves import cards_for, generator  # noqa: E402
from paizhuo_engine.shoubayi.game import SGame  # noqa: E402
from paizhuo_engine.shoubayi.rules import SRules  # noqa: E402
from paizhuo_engine.wakeng.game import WGame  # noqa: E402
from paizhuo_engine.wakeng.rules import WRules  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules  # noqa: E402


def deal_z(players: int, rules: ZRules) -> Callable[[int], ClimbingGame]:
    def deal(seed: int) -> ClimbingGame:
        g = ZGame.deal(players, rules, seed)
        g.declare_timeout()
        return g
    return deal


def deal_w(rules: WRules) -> Callable[[int], ClimbingGame]:
    def deal(seed: int) -> ClimbingGame:
        g = WGame.deal(rules, seed)
        while g.phase == "bid":
            g.bid_timeout()
        if g.phase == "bury":
            g.bury_timeout()
        return g
    return deal


def deal_s(players: int) -> Callable[[int], ClimbingGame]:
    return lambda seed: SGame.deal(players, SRules(), seed)


def play_game(game: ClimbingGame, rnd: random.Random, trusted: bool) -> int:
    """Play ``game`` to the end with uniformly random legal moves; the number of moves."""
    gen = generator(game.rules)
    protected = game.protected()
    rand = rnd.random
    moves = 0
    while not game.over:
        seat = game.turn
        hand = game.hands[seat]
        to_beat = game.lead_reading()
        if to_beat is None:
            plays = gen.leads(pack_cards(hand))
            pick = int(rand() * len(plays))
        else:
            plays = gen.follows(pack_cards(hand), to_beat)
            pick = int(rand() * (len(plays) + 1))
            if pick == len(plays):
                try:
                    game.pass_turn(seat)
                    moves += 1
                    continue
                except MoveError:  # S-4 把一必拦: a play exists
                    pick = int(rand() * len(plays))
        packed, reading = plays[pick]
        cards = cards_for(packed, hand, protected)
        if trusted:
            game.play_reading(seat, cards, reading)
        else:
            try:
                game.play(seat, cards, reading.kind)
            except MoveError:  # G-5: the named type has several keys … take any reading
                game.play_reading(seat, cards, reading)
        moves += 1
    return moves


def measure(deal: Callable[[int], ClimbingGame], trusted: bool, budget: float) -> tuple[float, float]:
    """(moves/s, moves per game) over as many seeded games as fit in ``budget`` seconds."""
    rnd = random.Random(1)
    moves = games = 0
    start = time.process_time()
    while games < 3 or time.process_time() - start < budget:
        moves += play_game(deal(games), rnd, trusted)
        games += 1
    return moves / (time.process_time() - start), moves / games


def rlcard_doudizhu(budget: float) -> tuple[float, float] | None:
    """RLCard 斗地主 random self-play (game core), or ``None`` when RLCard is missing."""
    try:
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        return None
    game = DoudizhuGame()
    game.np_random.seed(1)
    rand = random.Random(1).random
    moves = games = 0
    start = time.process_time()
    while games < 3 or time.process_time() - start < budget:
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _ = game.step(actions[int(rand() * len(actions))])
            moves += 1
        games += 1
    return moves / (time.process_time() - start), moves / games


ROWS: list[tuple[str, Callable[[int], ClimbingGame]]] = [
    ("抓特务 3 players", deal_z(3, ZRules())),
    ("抓特务 4 players", deal_z(4, ZRules())),
    ("抓特务 4p b/带3/王对", deal_z(4, ZRules(chain_ends="b", three_high=True, joker_pair=True))),
    ("挖坑 标准", deal_w(WRules())),
    ("挖坑 陕西", deal_w(WRules(ruleset="陕西"))),
    *[(f"手把一 {n} players", deal_s(n)) for n in range(2, 7)],
]


def main() -> None:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    print(f"Python {sys.version.split()[0]}; {budget:g} s of CPU time per measurement")
    if rlcard_doudizhu(0.0) is None:
        print("RLCard not installed: no 斗地主 comparison")
        have_rlcard = False
    else:
        print("RLCard 斗地主 is measured again next to every row; the ratio uses that figure")
        have_rlcard = True
    base_rates = []
    for name, deal in ROWS:
        fast, per_game = measure(deal, True, budget)
        slow, _ = measure(deal, False, budget)
        line = (f"{name:20} trusted {fast:8,.0f} moves/s | classify {slow:8,.0f} moves/s "
                f"| {per_game:4.0f} moves per game")
        if have_rlcard:
            base = rlcard_doudizhu(budget)
            assert base is not None
            base_rates.append(base[0])
            line += f" | RLCard {base[0]:6,.0f} moves/s | {fast / base[0]:4.1f}× RLCard"
        print(line)
    if base_rates:
        print(f"RLCard 斗地主 random self-play: {min(base_rates):,.0f} … {max(base_rates):,.0f} "
              f"moves/s over the run")


if __name__ == "__main__":
    main()
