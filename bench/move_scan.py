"""Moves a player would laugh at, found in self-play: ``python bench/move_scan.py
[--games 100] [--levels 简单 普通 困难] [--only 抓特务 4 人 ...] [--examples 3]``.

Plays ``--games`` deals of each game (seeds 0 on) with one computer level at every seat (its
decisions before play too: 困难 searches them, 简单 / 普通 take 普通's rules) and counts,
per 100 games:

* **spy pair** — a hidden (暗) lone spy (打独头, RULES.md Z-2, Z-9) plays both spy cards
  at once, still hidden before the play and left with 6 or more cards: the group learns
  who the spy is and that it plays alone. Plays that start a sure way out (it wins) are
  counted apart (``sure``).
* **cover** — a seat plays over a known partner's play (抓特务 sides known to it, 挖坑
  farmers; the partner still holds cards) while no seat that may be an opponent holds 2
  cards or fewer. Follows that go out or start a sure way out are not counted.
* **long kept** — a farmer (挖坑) or civilian (抓特务) that had the lead while holding a
  chain of 5 or more cards (straight, pair chain, triple chain), never led a play of 5
  cards or more, and ended the game holding such a chain.

Also prints, for 挖坑 标准, how often the digger buries 5 / 10 / K (W-6), by its bid and
whether it won. ``--examples N`` prints the first N deals and moves found of each kind.
To measure another checkout's engine (e.g. before a change), run this script with
``PYTHONPATH=<that checkout>/src`` (its ``bench/tournament.py`` is not used: this one is).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import CONFIGS, Computer, Hard, apply, deal_to_play  # noqa: E402
from paizhuo_engine.ai.endgame import starts_sure_line  # noqa: E402
from paizhuo_engine.ai.levels import simple_strategy  # noqa: E402
from paizhuo_engine.ai.plan import _windows, shape_of  # noqa: E402
from paizhuo_engine.ai.setup_search import SCORE_RANKS  # noqa: E402
from paizhuo_engine.ai.simple import Action  # noqa: E402
from paizhuo_engine.ai.view import view_of  # noqa: E402
from paizhuo_engine.cards import format_cards, rank_of  # noqa: E402
from paizhuo_engine.movegen import pack_cards  # noqa: E402
from paizhuo_engine.wakeng.game import WGame  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402

GAMES = ("抓特务 3 人", "抓特务 4 人", "挖坑 标准", "挖坑 陕西")
"""The games with sides (手把一 is everyone for themselves: none of the moves applies)."""

LONG = 5
"""Cards of a long combination (a chain)."""

SHOWN_LEFT = 6
"""A hidden lone spy showing both spy cards counts when it is left with this many."""

ABOUT_TO_GO_OUT = 2
"""An opponent with this many cards or fewer is about to go out: covering is fine."""


class Simple(Computer):
    """简单: the game's simple rule (:func:`paizhuo_engine.ai.levels.simple_strategy`),
    普通's decisions before play."""

    def decide(self, game: Any, seat: int) -> Action:
        return simple_strategy(game).choose(game, seat)


def player(level: str, seed: int, seat: int) -> Computer:
    if level == "简单":
        return Simple()
    if level == "困难":
        return Hard(seed * 31 + seat)
    return Computer()


def long_chain(hand: list[int], rules: Any) -> bool:
    """Whether ``hand`` holds a chain of :data:`LONG` cards or more (any chain family of
    the game's rules)."""
    counts = [0] * 15
    for c in hand:
        counts[rank_of(c)] += 1
    return any(length * spec.width >= LONG for spec in shape_of(rules).chains
               for _i, length in _windows(spec, counts))


def _side_seats(game: Any) -> list[int]:
    """Farmers (挖坑) or civilians (抓特务): the seats the long-kept check looks at."""
    if isinstance(game, WGame):
        return [s for s in range(game.players) if s != game.digger]
    if isinstance(game, ZGame):
        return [s for s in range(game.players) if game.roles[s] != "spy"]
    return []


def _play_of(action: Action) -> tuple[int, Any]:
    return (pack_cards(action.cards), action.reading)


def scan_game(args: tuple[str, str, int, float]) -> dict:
    """One self-play game of ``name`` at ``level``: the moves found and the burial."""
    name, level, seed, samples = args
    kind, players, rules = CONFIGS[name]
    Hard.samples, Hard.setup_samples = int(samples), 32
    seats = [player(level, seed, s) for s in range(players)]
    game = deal_to_play(kind, players, rules, seed, seats)
    found: dict[str, list[str]] = {"spy pair": [], "sure": [], "cover": [], "long kept": []}
    side = set(_side_seats(game))
    had_long_lead = set()
    led_long = set()
    spy_cards = set(getattr(game, "spy_cards", ()))
    moves = 0
    while not game.over:
        seat = game.turn
        action = seats[seat].play(game, seat)
        hand = list(game.hands[seat])
        where = f"seed {seed} move {moves} seat {seat}"
        if action.kind == "play":
            cards = set(action.cards)
            left = len(hand) - len(cards)
            if (isinstance(game, ZGame) and game.lone_spy() and seat in game.spies()
                    and game.declared[seat] == "暗" and spy_cards <= cards
                    and not any(spy_cards & set(cs) for s, cs in game.log if s == seat)
                    and left >= SHOWN_LEFT):
                view = view_of(game, seat)
                key = "sure" if starts_sure_line(view, _play_of(action)) else "spy pair"
                found[key].append(f"{where}: {format_cards(hand)} → {format_cards(action.cards)}")
            if game.lead is not None and left > 0:
                owner = game.lead[0]
                view = view_of(game, seat)
                short = any(view.counts[s] <= ABOUT_TO_GO_OUT for s in range(players)
                            if s != seat and s not in view.partners and view.counts[s])
                if (owner in view.partners and view.counts[owner] and not short
                        and not starts_sure_line(view, _play_of(action))):
                    found["cover"].append(
                        f"{where}: {format_cards(game.lead[1])} of partner {owner} covered with "
                        f"{format_cards(action.cards)} (hand {format_cards(hand)}, counts "
                        f"{list(view.counts)})")
            if game.lead is None and seat in side:
                if long_chain(hand, game.rules):
                    had_long_lead.add(seat)
                if len(cards) >= LONG:
                    led_long.add(seat)
        apply(game, seat, action)
        moves += 1
    for s in sorted(side):
        if s in had_long_lead and s not in led_long and long_chain(game.hands[s], game.rules):
            found["long kept"].append(f"seed {seed} seat {s}: ended holding "
                                      f"{format_cards(game.hands[s])}")
    burial = None
    if isinstance(game, WGame) and not game.rules.shaanxi:
        buried = sum(1 for c in game.buried if rank_of(c) in SCORE_RANKS)
        burial = (game.bid, buried, game.result["results"][game.digger])
    return {"found": found, "burial": burial}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="seed of the first deal")
    parser.add_argument("--levels", nargs="*", default=["简单", "普通", "困难"])
    parser.add_argument("--only", nargs="*", default=list(GAMES), help="subset of the games")
    parser.add_argument("--samples", type=int, default=16, help="困难: deals per candidate")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, default=0)
    ns = parser.parse_args()
    print(f"{ns.games} self-play games per game and level (seeds {ns.first}–"
          f"{ns.first + ns.games - 1}); rates per 100 games")
    print("| 游戏 | 难度 | 暗的独头特务亮出两张特务牌 | （其中稳赢） | 压同伴 | 留着长牌型不出 |")
    print("| --- | --- | --- | --- | --- | --- |")
    burials: dict[str, Counter] = {}
    examples: list[str] = []
    with ProcessPoolExecutor(ns.jobs) as pool:
        for name in ns.only:
            for level in ns.levels:
                t = time.perf_counter()
                rows = list(pool.map(scan_game, [(name, level, s, ns.samples) for s in
                                                 range(ns.first, ns.first + ns.games)],
                                     chunksize=1 if level == "困难" else 10))
                per = {k: sum(len(r["found"][k]) for r in rows) * 100 / ns.games
                       for k in ("spy pair", "sure", "cover", "long kept")}
                print(f"| {name} | {level} | {per['spy pair']:.1f} | {per['sure']:.1f} | "
                      f"{per['cover']:.1f} | {per['long kept']:.1f} |  "
                      f"({time.perf_counter() - t:.0f} s)", flush=True)
                tally = burials.setdefault(level, Counter())
                for r in rows:
                    if r["burial"] is not None:
                        tally[r["burial"]] += 1
                for k in ("spy pair", "cover", "long kept"):
                    for line in [x for r in rows for x in r["found"][k]][:ns.examples]:
                        examples.append(f"{name} {level} {k}: {line}")
    if any(burials.values()):
        print()
        print("挖坑 标准: digger's burials by bid and result (games; buried 5 / 10 / K: 0, 1, 2+)")
        print("| 难度 | 叫分 | 结果 | 局数 | 扣 0 张 | 扣 1 张 | 扣 2 张以上 |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for level, tally in burials.items():
            for bid in (1, 2, 3):
                for result in ("win", "loss"):
                    n = [sum(v for (b, k, r), v in tally.items()
                             if b == bid and r == result and (k == j or (j == 2 and k >= 2)))
                         for j in (0, 1, 2)]
                    if sum(n):
                        print(f"| {level} | {bid} | {'赢' if result == 'win' else '输'} | "
                              f"{sum(n)} | {n[0]} | {n[1]} | {n[2]} |")
    for line in examples:
        print(line)


if __name__ == "__main__":
    main()
