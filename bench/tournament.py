"""Strength of the computer player, measured: ``python bench/tournament.py [--deals N]``.

For every game and table size, the computer player (:class:`paizhuo_engine.ai.strategy.PlanStrategy`
with the decisions of :mod:`paizhuo_engine.ai.decisions`) sits in one seat against a field of
baseline players — today's 托管 (``FollowingStrategy``, 不叫 / lowest bury / 暗 / lowest
return) or a random legal player — on duplicate deals: every deal is played once with
the computer player in each seat, so luck of the cards cancels out. Prints, per game and
opponent: the computer player's mean points per game with a 95% confidence interval
(normal approximation over per-deal means) and its win rate, against the same figures of
a baseline player in its place (0 by symmetry for points, the seat-average win rate).

Runs on both cores (``--jobs``); ``--deals 2000`` is the reported run (about 20–40
minutes on 2 cores), ``--deals 20`` a quick check.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paizhuo_engine.ai.decisions import choose_bid, choose_bury, choose_declare  # noqa: E402
from paizhuo_engine.ai.search import search_decide  # noqa: E402
from paizhuo_engine.ai.setup_search import search_setup  # noqa: E402
from paizhuo_engine.ai.shoubayi import BlockingStrategy  # noqa: E402
from paizhuo_engine.ai.simple import PASS, Action, FollowingStrategy  # noqa: E402
from paizhuo_engine.ai.strategy import PlanStrategy  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402
from paizhuo_engine.moves import cards_for, legal_plays  # noqa: E402
from paizhuo_engine.shoubayi.game import SGame  # noqa: E402
from paizhuo_engine.shoubayi.rules import SRules  # noqa: E402
from paizhuo_engine.wakeng.game import WGame  # noqa: E402
from paizhuo_engine.wakeng.rules import WRules  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from paizhuo_engine.zhuatewu.rules import ZRules  # noqa: E402

CONFIGS: dict[str, tuple[str, int, Any]] = {
    "抓特务 3 人": ("zhuatewu", 3, ZRules()),
    "抓特务 4 人": ("zhuatewu", 4, ZRules()),
    "挖坑 标准": ("wakeng", 3, WRules()),
    "挖坑 陕西": ("wakeng", 3, WRules(ruleset="陕西")),
    "手把一 2 人": ("shoubayi", 2, SRules()),
    "手把一 3 人": ("shoubayi", 3, SRules()),
    "手把一 4 人": ("shoubayi", 4, SRules()),
    "手把一 6 人": ("shoubayi", 6, SRules()),
}


class Player:
    """A seat's policy: plays and the decisions outside play."""

    def play(self, game: Any, seat: int) -> Action:
        raise NotImplementedError

    def bid(self, game: WGame, seat: int) -> int:
        raise NotImplementedError

    def bury(self, game: WGame, seat: int) -> list[int]:
        raise NotImplementedError

    def declare(self, game: ZGame, seat: int) -> str:
        raise NotImplementedError


class Computer(Player):
    """The computer player (电脑 seats, 托管, 提示) at 普通; ``cpu`` sums the seconds of
    its play decisions and ``decisions`` counts them."""

    strategy = PlanStrategy()

    def __init__(self) -> None:
        self.cpu = 0.0
        self.decisions = 0

    def play(self, game: Any, seat: int) -> Action:
        t = time.process_time()
        action = self.decide(game, seat)
        self.cpu += time.process_time() - t
        self.decisions += 1
        return action

    def decide(self, game: Any, seat: int) -> Action:
        return self.strategy.choose(game, seat)


    def bid(self, game: WGame, seat: int) -> int:
        return choose_bid(game.hands[seat], game.bid_options(seat), game.rules.shaanxi)

    def bury(self, game: WGame, seat: int) -> list[int]:
        avoid = frozenset() if game.rules.shaanxi else None
        if avoid is None:
            return choose_bury(game.hands[seat], game.rules.rank_order())
        return choose_bury(game.hands[seat], game.rules.rank_order(), avoid=avoid)

    def declare(self, game: ZGame, seat: int) -> str:
        return choose_declare(game.hands[seat], game.declare_choices(), game.rules.three_high)


class Old(Computer):
    """The computer player as it was before the endgame rules (sure ways out, partners,
    飞机 planning): ``PlanStrategy(sound=False)``."""

    strategy = PlanStrategy(sound=False)


class Hard(Computer):
    """困难: :func:`paizhuo_engine.ai.search.search_decide` with ``samples`` deals per candidate,
    and its bids, burials and 明 / 暗 by :func:`paizhuo_engine.ai.setup_search.search_setup`,
    seeded by the deal and move number."""

    samples = 16
    setup_samples = 16
    """Deals per option for the decisions before play (``--setup-samples``)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed
        self.moves = 0

    def decide(self, game: Any, seat: int) -> Action:
        self.moves += 1
        return search_decide(game.to_json(), seat, self.seed * 7919 + self.moves, self.samples)

    def _setup(self, game: Any, seat: int) -> Any:
        """困难's decision before play (:func:`paizhuo_engine.ai.setup_search.search_setup`),
        its CPU counted with the plays'."""
        t = time.process_time()
        self.moves += 1
        choice = search_setup(game.to_json(), seat, self.seed * 7919 + self.moves,
                              self.setup_samples)
        self.cpu += time.process_time() - t
        self.decisions += 1
        return choice

    def bid(self, game: WGame, seat: int) -> int:
        return int(self._setup(game, seat))

    def bury(self, game: WGame, seat: int) -> list[int]:
        return list(self._setup(game, seat))

    def declare(self, game: ZGame, seat: int) -> str:
        return str(self._setup(game, seat))

class HardSetup(Hard):
    """困难's decisions before play only (bids, burials, 明 / 暗), 普通's play: what the
    setup search adds, measured apart (``--hero 困难开局``)."""

    def decide(self, game: Any, seat: int) -> Action:
        return self.strategy.choose(game, seat)


class Today(Player):
    """The 托管 the bot had before the computer player: FollowingStrategy (手把一:
    BlockingStrategy with follow), the lowest bid it must make, the lowest 4 buried, 暗."""

    strategy = FollowingStrategy()
    blocking = BlockingStrategy(follow=True)

    def play(self, game: Any, seat: int) -> Action:
        if isinstance(game, SGame):
            return self.blocking.choose(game, seat)
        return self.strategy.choose(game, seat)

    def bid(self, game: WGame, seat: int) -> int:
        return game.bid_options(seat)[0]

    def bury(self, game: WGame, seat: int) -> list[int]:
        order = game.rules.rank_order()
        return sorted(game.hands[seat], key=lambda c: (order[c // 4], c))[:4]

    def declare(self, game: ZGame, seat: int) -> str:
        return "暗"


class Random(Player):
    """A random legal player (a random legal play, or a pass one time in three when
    following), random bids, burials and declarations; seeded per deal."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def play(self, game: Any, seat: int) -> Action:
        plays = legal_plays(game.hands[seat], game.rules, game.lead_reading())
        if game.lead is None:
            plays = [p for p in plays if not p[1].bomb] or plays
        if game.lead is not None and (not plays or self.rng.random() < 1 / 3):
            try:
                game.check_pass(seat)
                return PASS
            except MoveError:
                pass
        if not plays:
            return PASS
        p = self.rng.choice(plays)
        return Action("play", tuple(cards_for(p, game.hands[seat], game.protected())), p[1])

    def bid(self, game: WGame, seat: int) -> int:
        return self.rng.choice(game.bid_options(seat))

    def bury(self, game: WGame, seat: int) -> list[int]:
        return sorted(self.rng.sample(game.hands[seat], 4))

    def declare(self, game: ZGame, seat: int) -> str:
        return self.rng.choice(game.declare_choices())


def apply(game: Any, seat: int, action: Action) -> None:
    if action.kind == "pass":
        game.pass_turn(seat)
    elif action.reading is not None:
        game.play_reading(seat, list(action.cards), action.reading)
    else:
        game.play(seat, list(action.cards))


def deal_to_play(kind: str, players: int, rules: Any, seed: int,
                 seats: list[Player] | None = None) -> Any:
    """A dealt game in its play phase: declarations, bids and burial by ``seats``
    (the computer player's when ``None``)."""
    seats = seats or [Computer() for _ in range(players)]
    if kind == "zhuatewu":
        game = ZGame.deal(players, rules, seed)
        for s in list(game.awaiting_declare()):
            game.declare(s, seats[s].declare(game, s))
    elif kind == "wakeng":
        game = WGame.deal(rules, seed)
        while game.phase == "bid":
            game.place_bid(game.bidder, seats[game.bidder].bid(game, game.bidder))
        game.bury(game.digger, seats[game.digger].bury(game, game.digger))
    else:
        game = SGame.deal(players, rules, seed)
    return game


def play_deal(kind: str, players: int, rules: Any, seed: int, seats: list[Player]) -> dict:
    """One game of a deal with the given policies; returns the engine's result."""
    game = deal_to_play(kind, players, rules, seed, seats)
    moves = 0
    while not game.over:
        seat = game.turn
        apply(game, seat, seats[seat].play(game, seat))
        moves += 1
        if moves > 5000:
            raise RuntimeError(f"{kind} deal {seed} did not end")
    return game.result


def run_deal(args: tuple) -> tuple[float, float, float, float, float, int]:
    """:func:`duplicate_deal`, with any failure turned into a ``RuntimeError`` that names
    the deal (engine errors do not cross process boundaries)."""
    try:
        return duplicate_deal(*args)
    except Exception as err:  # noqa: BLE001
        import traceback

        raise RuntimeError(f"deal {args}: {err!r}\n{traceback.format_exc()}") from None


POLICIES = {"普通": Computer, "old": Old, "困难": Hard, "困难开局": HardSetup, "today": None,
            "random": None}
"""Players a table can be made of: 普通 (the computer player), old (before the endgame
rules), 困难 (search), 困难开局 (困难's decisions before play, 普通's play), today (the
托管 before the computer player), random."""


def make(policy: str, seed: int, i: int) -> Player:
    if policy == "today":
        return Today()
    if policy == "random":
        return Random(seed * 31 + i)
    if policy in ("困难", "困难开局"):
        return POLICIES[policy](seed * 31 + i)
    return POLICIES[policy]()


def duplicate_deal(name: str, field: str, seed: int, hero: str = "普通"
                   ) -> tuple[float, float, float, float, float, int]:
    """One duplicate deal: the ``hero`` player in each seat in turn against a ``field``
    of another player, then a field player in its place. Returns (hero mean points, hero
    win rate, baseline mean points, baseline win rate, hero CPU seconds, hero decisions)."""
    kind, players, rules = CONFIGS[name]
    ai_pts = ai_win = base_pts = base_win = cpu = 0.0
    decisions = 0
    for seat in range(players):
        seats = [make(field, seed, i) for i in range(players)]
        seats[seat] = player = make(hero, seed, seat)
        res = play_deal(kind, players, rules, seed, seats)
        ai_pts += res["points"][seat]
        ai_win += res["results"][seat] == "win"
        cpu += getattr(player, "cpu", 0.0)
        decisions += getattr(player, "decisions", 0)
        seats = [make(field, seed, i) for i in range(players)]
        res = play_deal(kind, players, rules, seed, seats)
        base_pts += res["points"][seat]
        base_win += res["results"][seat] == "win"
    return (ai_pts / players, ai_win / players, base_pts / players, base_win / players,
            cpu, decisions)


def mean_ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / max(1, n - 1)
    return m, 1.96 * math.sqrt(var / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--first", type=int, default=0,
                        help="seed of the first deal (extend an earlier run with new deals)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--games", nargs="*", default=list(CONFIGS), help="subset of the configs")
    parser.add_argument("--field", nargs="*", default=["today", "random"],
                        help="opponents: today, random, old, 普通, 困难")
    parser.add_argument("--hero", default="普通",
                        help="the player measured: 普通, 困难, 困难开局, old")
    parser.add_argument("--samples", type=int, default=Hard.samples,
                        help="困难: deals per candidate")
    parser.add_argument("--setup-samples", type=int, default=Hard.setup_samples,
                        help="困难: deals per option for bids, burials and 明/暗")
    parser.add_argument("--save", type=Path,
                        help="write each deal's figures here (JSON lines), e.g. to compare "
                             "two checkouts with --paired-with")
    parser.add_argument("--paired-with", type=Path,
                        help="a --save file of another run with the same field and deals: "
                             "print the hero's paired difference (this run − that one)")
    ns = parser.parse_args()
    Hard.samples = ns.samples
    Hard.setup_samples = ns.setup_samples
    print(f"{ns.deals} duplicate deals (seeds {ns.first}–{ns.first + ns.deals - 1}) per game and "
          f"opponent field; hero {ns.hero}; 95% CI")
    print("| 游戏 | 对手 | 电脑 积分/局 | 电脑 胜率 | 对照 积分/局 | 对照 胜率 | 差 | CPU/决定 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with ProcessPoolExecutor(ns.jobs) as pool:
        for name in ns.games:
            for field in ns.field:
                t = time.perf_counter()
                rows = list(pool.map(run_deal, [(name, field, s, ns.hero)
                                                for s in range(ns.first, ns.first + ns.deals)],
                                     chunksize=max(1, min(20, ns.deals // (2 * ns.jobs)))))
                ai_m, ai_ci = mean_ci([r[0] for r in rows])
                bs_m, bs_ci = mean_ci([r[2] for r in rows])
                ai_w = sum(r[1] for r in rows) / len(rows)
                bs_w = sum(r[3] for r in rows) / len(rows)
                diff_m, diff_ci = mean_ci([r[0] - r[2] for r in rows])
                cpu = sum(r[4] for r in rows) / max(1, sum(r[5] for r in rows))
                label = {"today": "今天的托管", "random": "随机合法"}.get(field, field)
                seeds = range(ns.first, ns.first + ns.deals)
                if ns.save:
                    with ns.save.open("a", encoding="utf-8") as out:
                        for seed, r in zip(seeds, rows, strict=True):
                            out.write(json.dumps({"game": name, "field": field, "seed": seed,
                                                  "hero": r[0], "base": r[2]},
                                                 ensure_ascii=False) + "\n")
                print(f"| {name} | {label} | {ai_m:+.2f} ± {ai_ci:.2f} | {ai_w:.0%} | "
                      f"{bs_m:+.2f} ± {bs_ci:.2f} | {bs_w:.0%} | {diff_m:+.2f} ± {diff_ci:.2f} | "
                      f"{cpu * 1e3:.2f} ms |  ({time.perf_counter() - t:.0f} s)", flush=True)
                if ns.paired_with:
                    other = {}
                    for line in ns.paired_with.read_text(encoding="utf-8").splitlines():
                        row = json.loads(line)
                        if (row["game"], row["field"]) == (name, field):
                            other[row["seed"]] = row["hero"]
                    pairs = [r[0] - other[seed] for seed, r in zip(seeds, rows, strict=True)
                             if seed in other]
                    if pairs:
                        m, ci = mean_ci(pairs)
                        print(f"  paired with {ns.paired_with.name}: {m:+.2f} ± {ci:.2f} "
                              f"({len(pairs)} deals, {sum(1 for x in pairs if x)} differ)",
                              flush=True)


if __name__ == "__main__":
    main()
