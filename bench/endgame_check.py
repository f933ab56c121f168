"""Won positions the computer player leaves: ``python bench/endgame_check.py [--games N]``.

Plays self-play games of every game with the computer player in every seat and, at every
decision, looks for a sure way out from what the seat knows
(:func:`paizhuo_engine.ai.endgame.sure_line`: plays no unseen cards can beat, then the rest of the
hand). Counts the decisions that had one, how many of them the player's move kept
(:func:`paizhuo_engine.ai.endgame.starts_sure_line`), and the games thrown away that way: a seat
left such a line and, replayed from there taking it (the others playing as before), would
have scored more. ``--level`` picks 普通 (default), 困难, 简单 (which looks for no sure way
out: it passes when following and leads its lowest single) or ``old`` (the planner
without the endgame rules). Goals: ≥ 99% kept, ≤ 0.5% of games thrown away.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tournament import CONFIGS, apply, deal_to_play  # noqa: E402
from paizhuo_engine.ai.endgame import starts_sure_line, sure_line  # noqa: E402
from paizhuo_engine.ai.levels import choose_action  # noqa: E402
from paizhuo_engine.ai.search import game_from_json  # noqa: E402
from paizhuo_engine.ai.simple import Action  # noqa: E402
from paizhuo_engine.ai.strategy import PlanStrategy  # noqa: E402
from paizhuo_engine.ai.view import view_of  # noqa: E402
from paizhuo_engine.moves import cards_for  # noqa: E402

OLD = PlanStrategy(sound=False)
NORMAL = PlanStrategy()


def _policy(game, seat: int, level: str, seed: int):
    if level == "old":
        return OLD.choose(game, seat)
    return choose_action(game, seat, level, seed=seed)


def _taking_the_line(game, seat: int, line, level: str, seed: int) -> float:
    """The seat's points had it played ``line``'s first move and then gone on at 普通
    (which takes sure ways out first), the others as before."""
    world = game_from_json(game.to_json())
    play = line[0]
    apply(world, seat, Action("play", tuple(cards_for(play, world.hands[seat],
                                                        world.protected())), play[1]))
    moves = 0
    while not world.over:
        s = world.turn
        action = NORMAL.choose(world, s) if s == seat else _policy(world, s, level,
                                                                       seed + 500 + moves)
        apply(world, s, action)
        moves += 1
    return world.result["points"][seat]


def one_game(args: tuple[str, str, int]) -> tuple[int, int, int]:
    """(decisions with a sure line, of them kept, 1 if a seat threw the game away: taking
    a line it left would have scored it more)."""
    name, level, seed = args
    kind, players, rules = CONFIGS[name]
    game = deal_to_play(kind, players, rules, seed)
    found = kept = 0
    better: dict[int, float] = {}
    moves = 0
    while not game.over:
        seat = game.turn
        view = view_of(game, seat)
        action = _policy(game, seat, level, seed * 1000 + moves)
        line = sure_line(view, limit=200_000)
        if line:
            found += 1
            play = None if action.kind == "pass" else _as_play(game, action)
            if starts_sure_line(view, play):
                kept += 1
            elif seat not in better:
                better[seat] = _taking_the_line(game, seat, line, level, seed * 1000 + moves)
        apply(game, seat, action)
        moves += 1
    thrown = any(points > game.result["points"][s] for s, points in better.items())
    return found, kept, int(thrown)


def _as_play(game, action):
    """The action as a packed play; an action without a reading (简单 plays cards as a
    person does) gets the one the game would judge them as."""
    from paizhuo_engine.movegen import pack_cards

    reading = action.reading if action.reading is not None else game.judge(list(action.cards))
    return (pack_cards(action.cards), reading)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--level", default="普通")
    parser.add_argument("--only", nargs="*", default=list(CONFIGS))
    ns = parser.parse_args()
    print(f"{ns.games} self-play games per game, level {ns.level}")
    print("| 游戏 | 有必胜出法的决定 | 走了必胜出法 | 因此输掉的局 |")
    print("| --- | --- | --- | --- |")
    with ProcessPoolExecutor(ns.jobs) as pool:
        for name in ns.only:
            t = time.perf_counter()
            rows = list(pool.map(one_game, [(name, ns.level, s) for s in range(ns.games)],
                                 chunksize=10))
            found = sum(r[0] for r in rows)
            kept = sum(r[1] for r in rows)
            thrown = sum(r[2] for r in rows)
            share = kept / found if found else 1.0
            print(f"| {name} | {found} | {kept} ({share:.1%}) | {thrown} / {ns.games} "
                  f"({thrown / ns.games:.1%}) |  ({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
