"""困难 against a plain PIMC search, on duplicate deals: ``python bench/pimc_baseline.py
[--games 抓特务 3 人 ...] [--deals 200] [--first 0] [--jobs 2] [--cache FILE]``.

**The baseline** (:class:`Baseline`) is plain perfect-information Monte Carlo: at every play
decision with more than one candidate it deals the cards its seat has not seen at random
to the other seats :data:`DETERMINIZATIONS` times — uniformly, keeping every count and the
hard public facts (a 明牌 hand, a declared spy's spy card, the tribute's places, the
digger's own burial: :meth:`~paizhuo_engine.climbing.ClimbingGame.card_places` and its kin) —
and plays each candidate out once on each deal with 普通 (:class:`~paizhuo_engine.ai.strategy.PlanStrategy`)
at every seat, taking the candidate with the best mean points. The candidates, at most
:data:`CANDIDATES`: 普通's choice, the pass when allowed, then the cheapest legal plays (at
most two of each type and size; leads without bombs while the hand is big). Its bids,
burials and 明 / 暗 are 普通's.

**The run**: every deal (seeds ``--first`` on) is played once for each seat with the
baseline in that seat and once with 困难 (``--samples`` deals per candidate, its decisions
before play searched with ``--setup-samples``) in it, 普通 at every other seat. Prints per
game 困难 − baseline (points per game, the mean over the deal's seats, 95% CI over deals),
each one's mean points and win rate, and each one's CPU per decision (its play decisions
and decisions before play; process time).

The baseline's games do not depend on 困难, so they are kept in ``--cache`` (JSON lines,
default ``bench/.pimc_cache.jsonl``, not in git) under a fingerprint of what they depend
on (this file's baseline and 普通's actions in a few self-play deals): a rerun, or a run with
more deals, plays only the baseline's missing games; a change to 普通 starts afresh. ``--save FILE`` writes 困难's
points per deal and seat, and ``--paired-with FILE`` prints the paired difference against
such a file (two versions of 困难 on the same deals). About 4 s of CPU per seat and deal
for the baseline (16 × up to 10 playouts by 普通 per decision), a tenth of that for 困难.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.tournament as T  # noqa: E402
from paizhuo_engine.ai.rollout import clone  # noqa: E402
from paizhuo_engine.ai.simple import PASS, Action  # noqa: E402
from paizhuo_engine.ai.strategy import PlanStrategy  # noqa: E402
from paizhuo_engine.ai.view import view_of  # noqa: E402
from paizhuo_engine.movegen import pack_cards  # noqa: E402
from paizhuo_engine.moves import cards_for, generator  # noqa: E402

DETERMINIZATIONS = 16
"""Sampled deals per decision."""

CANDIDATES = 10
"""Moves compared per decision at most."""

GAMES = ("抓特务 3 人", "抓特务 4 人", "挖坑 标准", "手把一 3 人", "手把一 4 人")
"""The cells measured by default."""

NORMAL = PlanStrategy()

FINGERPRINT_DEALS = 40
"""Self-play deals of each game whose 普通 actions make the cache's fingerprint."""


def determinize(game: Any, seat: int, rng: random.Random) -> Any:
    """A copy of ``game`` whose hands other than ``seat``'s (and the cards out of play it
    has not seen) are dealt uniformly at random from the cards ``seat`` has not seen,
    keeping every count, open hands, the places the seat knows cards to be in and the
    spy card of a declared spy (redrawn until it holds one)."""
    played = {c for _s, cs in game.log for c in cs}
    fixed = {s: list(game.hands[s]) for s in game.open_seats() if s != seat}
    taken = (played | set(game.hands[seat]) | set(game.out_of_play_seen(seat))
             | {c for h in fixed.values() for c in h})
    pool = sorted(c for c in game.deck() if c not in taken)
    counts = {s: len(game.hands[s]) for s in range(game.players)
              if s != seat and s not in fixed}
    spies, spy_cards = game.known_holders(seat)
    spies = [s for s in spies if s in counts]
    places = game.card_places(seat)
    hands: dict[int, list[int]] = {}
    for _ in range(200):
        rng.shuffle(pool)
        hands = _deal(pool, counts, places, rng)
        if all(spy_cards.intersection(hands[s]) for s in spies):
            break
    data = game.to_json()
    new_hands = [list(h) for h in data["hands"]]
    for s, h in (*hands.items(), *fixed.items()):
        new_hands[s] = h
    data["hands"] = new_hands
    used = {c for h in new_hands for c in h} | played
    game.refill_out_of_play(data, seat, sorted(c for c in game.deck() if c not in used))
    world = type(game).from_json(data)
    world.settle_sides()
    return world


def _deal(pool: list[int], counts: dict[int, int], places: dict[int, frozenset[int]],
          rng: random.Random) -> dict[int, list[int]]:
    """The shuffled ``pool`` dealt to the seats of ``counts``; a card of ``places`` to one
    of its seats, drawn by the room each has left."""
    hands: dict[int, list[int]] = {s: [] for s in counts}
    free = [c for c in pool if c not in places]
    for c in (c for c in pool if c in places):
        room = [(s, counts[s] - len(hands[s])) for s in counts if s in places[c]]
        room = [(s, r) for s, r in room if r > 0]
        if not room:
            free.append(c)
            continue
        pick = rng.randrange(sum(r for _s, r in room))
        for s, r in room:
            if pick < r:
                hands[s].append(c)
                break
            pick -= r
    for s in counts:
        need = counts[s] - len(hands[s])
        hands[s], free = sorted(hands[s] + free[:need]), free[need:]
    return hands


def candidates(game: Any, seat: int, first: Action) -> list[Action]:
    """普通's choice, the pass when allowed, then the cheapest legal plays (at most two per
    type and size; no bomb lead while the hand holds more than 4 cards), at most
    :data:`CANDIDATES`, each once."""
    view = view_of(game, seat)
    gen = generator(view.rules)
    hand = pack_cards(view.hand)
    protected = tuple(game.protected())
    out = [first]
    keys = {(first.kind, first.cards)}
    if view.lead is not None and view.may_pass and first.kind != "pass":
        out.append(PASS)
        keys.add(("pass", ()))
    source = gen.iter_leads(hand) if view.lead is None else gen.iter_follows(hand, view.lead[1])
    per_kind: dict[tuple[str, int], int] = {}
    for p in islice(source, 300):
        if len(out) >= CANDIDATES:
            break
        if view.lead is None and p[1].bomb and len(view.hand) > 4:
            continue
        k = (p[1].kind, p[1].size)
        if per_kind.get(k, 0) >= 2:
            continue
        cards = tuple(cards_for(p, list(view.hand), protected))
        if ("play", cards) in keys:
            continue
        try:
            game.check_play(seat, list(cards), p[1])
        except Exception:  # noqa: BLE001 - the game's own refusal (S-3 lone joker)
            continue
        per_kind[k] = per_kind.get(k, 0) + 1
        keys.add(("play", cards))
        out.append(Action("play", cards, p[1]))
    return out


def normal_playout(world: Any, seat: int, action: Action) -> float:
    """``seat``'s points once ``action`` is taken in ``world`` (changed in place) and 普通
    plays every seat to the end."""
    T.apply(world, seat, action)
    for _ in range(2000):
        if world.over:
            return float(world.result["points"][seat])
        s = world.turn
        T.apply(world, s, NORMAL.choose(world, s))
    return 0.0


def pimc_decide(game: Any, seat: int, seed: int,
                samples: int = DETERMINIZATIONS) -> Action:
    """The baseline's action for ``seat`` (whose turn it is in ``game``, in its play
    phase): see the module doc. Deterministic in ``seed``."""
    first = NORMAL.choose(game, seat)
    cands = candidates(game, seat, first)
    if len(cands) == 1:
        return first
    rng = random.Random(seed)
    totals = [0.0] * len(cands)
    for _ in range(samples):
        world = determinize(game, seat, random.Random(rng.getrandbits(32)))
        for i, action in enumerate(cands):
            totals[i] += normal_playout(clone(world), seat, action)
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    return cands[best]


class Baseline(T.Computer):
    """The plain PIMC player of the module doc (bids, burials, 明 / 暗 as 普通)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed
        self.moves = 0

    def decide(self, game: Any, seat: int) -> Action:
        self.moves += 1
        return pimc_decide(game, seat, self.seed * 7919 + self.moves)


def fingerprint() -> str:
    """A digest of what the baseline's games depend on: this file's baseline (its source)
    and 普通's play — every action of :data:`FINGERPRINT_DEALS` self-play deals of each game
    with 普通 at every seat (bids, burials and 明 / 暗 included), so that an edit that does
    not change 普通's play (a docstring, 困难's modules) keeps the cached games."""
    digest = hashlib.sha256()
    for part in (determinize, _deal, candidates, normal_playout, pimc_decide, Baseline, clone,
                 T.Computer, T.play_deal, T.deal_to_play, T.apply):
        digest.update(inspect.getsource(part).encode())
    digest.update(f"{DETERMINIZATIONS} {CANDIDATES}".encode())
    for name, (kind, players, rules) in T.CONFIGS.items():
        for seed in range(FINGERPRINT_DEALS):
            seats = [T.Computer() for _ in range(players)]
            game = T.deal_to_play(kind, players, rules, 90_000 + seed, seats)
            digest.update(repr((name, game.hands)).encode())
            while not game.over:
                action = seats[game.turn].play(game, game.turn)
                digest.update(repr((action.kind, action.cards)).encode())
                T.apply(game, game.turn, action)
    return digest.hexdigest()[:16]


def play_seat(job: tuple[str, str, int, int, int, int]) -> dict:
    """One game of deal ``seed`` of ``name`` with ``hero`` (``基线`` or a tournament
    player) at ``seat`` and 普通 elsewhere: its points, result, CPU and decisions."""
    name, hero, seed, seat, samples, setup_samples = job
    kind, players, rules = T.CONFIGS[name]
    T.Hard.samples, T.Hard.setup_samples = samples, setup_samples
    seats: list[Any] = [T.make("普通", seed, i) for i in range(players)]
    seats[seat] = player = Baseline(seed * 31 + seat) if hero == "基线" else T.make(hero, seed, seat)
    try:
        res = T.play_deal(kind, players, rules, seed, seats)
    except Exception as err:  # noqa: BLE001 - name the deal (errors cross processes badly)
        import traceback

        raise RuntimeError(f"{job}: {err!r}\n{traceback.format_exc()}") from None
    return {"game": name, "seed": seed, "seat": seat, "points": res["points"][seat],
            "win": res["results"][seat] == "win", "cpu": player.cpu,
            "decisions": player.decisions}


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / max(1, n - 1)
    return m, 1.96 * math.sqrt(var / n)


def load_cache(path: Path, fp: str) -> dict[tuple[str, int, int], dict]:
    out: dict[tuple[str, int, int], dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("fp") == fp:
                out[(row["game"], row["seed"], row["seat"])] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(T.CONFIGS))
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="seed of the first deal")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hero", default="困难", help="the player set against the baseline")
    parser.add_argument("--samples", type=int, default=16, help="困难: deals per candidate")
    parser.add_argument("--setup-samples", type=int, default=32,
                        help="困难: deals per option before play")
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".pimc_cache.jsonl")
    parser.add_argument("--baseline-only", action="store_true",
                        help="only play (and cache) the baseline's games")
    parser.add_argument("--hero-only", action="store_true",
                        help="only play the hero's games (with --save / --paired-with: two "
                             "versions of 困难 side by side, no baseline needed)")
    parser.add_argument("--save", type=Path, help="write the hero's games here (JSON lines)")
    parser.add_argument("--paired-with", type=Path,
                        help="the hero's games of another run: print the paired difference")
    ns = parser.parse_args()
    fp = fingerprint()
    cache = load_cache(ns.cache, fp)
    seeds = range(ns.first, ns.first + ns.deals)
    print(f"{ns.deals} duplicate deals per game (seeds {ns.first}–{ns.first + ns.deals - 1}); "
          f"{ns.hero} ({ns.samples} samples) against the plain PIMC baseline "
          f"({DETERMINIZATIONS} determinizations × ≤ {CANDIDATES} candidates, 普通 playouts); "
          f"95% CI; baseline cache {ns.cache} ({fp}, {len(cache)} games)")
    print(f"| 游戏 | 副数 | {ns.hero} − 基线 | {ns.hero} 积分/局 | 基线 积分/局 | {ns.hero} 胜率 | "
          f"基线 胜率 | CPU/决定 {ns.hero} vs 基线 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    other = load_cache(ns.paired_with, "hero") if ns.paired_with else {}
    with ProcessPoolExecutor(ns.jobs) as pool:
        for name in ns.games:
            t = time.perf_counter()
            players = T.CONFIGS[name][1]
            cache.update(load_cache(ns.cache, fp))  # another run may have added games
            missing = [] if ns.hero_only else [
                (name, "基线", s, seat, ns.samples, ns.setup_samples)
                for s in seeds for seat in range(players) if (name, s, seat) not in cache]
            with ns.cache.open("a", encoding="utf-8") as out:
                for row in pool.map(play_seat, missing, chunksize=1):
                    row["fp"] = fp
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                    cache[(name, row["seed"], row["seat"])] = row
            base = [] if ns.hero_only else [cache[(name, s, seat)] for s in seeds
                                            for seat in range(players)]
            if ns.baseline_only:
                cpu = sum(r["cpu"] for r in base) / max(1, sum(r["decisions"] for r in base))
                print(f"| {name} | {ns.deals} | — | — | "
                      f"{mean_ci([r['points'] for r in base])[0]:+.2f} | — | "
                      f"{sum(r['win'] for r in base) / len(base):.0%} | — vs {cpu * 1e3:.0f} ms |"
                      f"  ({time.perf_counter() - t:.0f} s)", flush=True)
                continue
            jobs = [(name, ns.hero, s, seat, ns.samples, ns.setup_samples)
                    for s in seeds for seat in range(players)]
            hero = list(pool.map(play_seat, jobs, chunksize=1))
            if ns.save:
                with ns.save.open("a", encoding="utf-8") as out:
                    for row in hero:
                        out.write(json.dumps({**row, "fp": "hero"}, ensure_ascii=False) + "\n")
            hero_cpu = sum(r["cpu"] for r in hero) / max(1, sum(r["decisions"] for r in hero))
            hero_win = sum(r["win"] for r in hero) / len(hero)
            took = f"({time.perf_counter() - t:.0f} s)"
            if ns.hero_only:
                print(f"| {name} | {ns.deals} | — | {mean_ci([h['points'] for h in hero])[0]:+.2f} | "
                      f"— | {hero_win:.0%} | — | {hero_cpu * 1e3:.0f} ms vs — |  {took}", flush=True)
            else:
                by_deal = [(sum(h["points"] for h in hero[i:i + players]) / players,
                            sum(b["points"] for b in base[i:i + players]) / players)
                           for i in range(0, len(hero), players)]
                diff = mean_ci([h - b for h, b in by_deal])
                base_cpu = sum(r["cpu"] for r in base) / max(1, sum(r["decisions"] for r in base))
                print(f"| {name} | {ns.deals} | {diff[0]:+.2f} ± {diff[1]:.2f} | "
                      f"{mean_ci([h for h, _b in by_deal])[0]:+.2f} | "
                      f"{mean_ci([b for _h, b in by_deal])[0]:+.2f} | {hero_win:.0%} | "
                      f"{sum(r['win'] for r in base) / len(base):.0%} | "
                      f"{hero_cpu * 1e3:.0f} vs {base_cpu * 1e3:.0f} ms |  {took}", flush=True)
            if other:
                pairs = [(h["points"], other[(name, h["seed"], h["seat"])]["points"])
                         for h in hero if (name, h["seed"], h["seat"]) in other]
                deals = [sum(a - b for a, b in pairs[i:i + players]) / players
                         for i in range(0, len(pairs), players)]
                if deals:
                    m, ci = mean_ci(deals)
                    print(f"  paired with {ns.paired_with.name}: {m:+.2f} ± {ci:.2f} over "
                          f"{len(deals)} deals", flush=True)


if __name__ == "__main__":
    main()
