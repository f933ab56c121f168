"""Game replays (复盘): what is saved with a game record to rebuild it, and the rebuild.

A replay is ``{"v": 1, "deal": <engine state as dealt>, "events": [...], "marks": {...}}``. The deal is
the engine's JSON right after the deal (for 抓特务 with the tribute already given, Z-8);
the events are every later decision in order:

* ``["return", seat, cards]`` 还贡 (Z-8) · ``["declare", seat, "明" | "明牌" | "暗"]`` (Z-9)
  · ``["ready", seat]`` a civilian's answer to the same question (G-4)
* ``["bid", seat, amount]`` 叫分, 0 = 不叫 (W-2) · ``["bury", seat, cards]`` 扣底 (W-3)
* ``["play", seat, cards, kind]`` 出牌 with the reading kind it took (G-5) · ``["pass", seat]``

Both are derived from the game's own state at the end (the engines keep every hand, the
tribute, the bids and the move log): each game rebuilds its deal and the decisions before
the first play (:meth:`~paizhuo_engine.climbing.ClimbingGame.as_dealt`), this module adds the
plays. A replay is only saved when re-running it from the deal gives back exactly that
state. Timeouts and 托管 moves are ordinary events for the engine; ``marks`` (optional)
says which moves the bot made for a person, by their index among the plays and passes:
``{"12": "超时", "15": "托管"}`` (the chat layer notes them, ``Table.marks``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from nonebot import logger

from paizhuo_engine.climbing import ClimbingGame, Move
from paizhuo_engine.errors import MoveError

from .games.base import GameAdapter

VERSION = 1


def capture(game: ClimbingGame, marks: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The replay of ``game`` (finished, or stopped part-way by /结束) as JSON-able data,
    with ``marks`` (the moves the bot made for a person, see the module doc), or ``None``
    (logged) when re-running it would not give back the same state."""
    try:
        deal, events = game.as_dealt()
        kinds = game.kinds
        for i, (seat, cards) in enumerate(game.log):
            events.append(["play", seat, list(cards), kinds[i]] if cards else ["pass", seat])
        replay = {"v": VERSION, "deal": deal, "events": events}
        if marks:
            replay["marks"] = {k: v for k, v in marks.items() if int(k) < len(game.log)}
        rebuilt = run(type(game), replay)
        if rebuilt.final.to_json() != game.to_json():
            logger.warning("replay: re-running the game gave another state; not saved")
            return None
        return copy.deepcopy(replay)
    except Exception:  # noqa: BLE001 - a replay must never stop a game from being recorded
        logger.exception("replay: cannot capture the game")
        return None


@dataclass(slots=True)
class Step:
    """One event re-run: ``event`` as saved, ``move`` what a play or pass did (``None``
    for other events), ``before`` the engine state just before it (a copy)."""

    event: list
    move: Move | None
    before: ClimbingGame


@dataclass(slots=True)
class Rebuilt:
    """A replay re-run: the game as ``dealt``, every ``steps`` and the ``final`` game."""

    dealt: ClimbingGame
    steps: list[Step]
    final: ClimbingGame


def _apply(game: Any, event: list) -> Move | None:
    kind, seat = event[0], int(event[1])
    if kind == "return":
        game.return_tribute(seat, event[2])
    elif kind == "declare":
        game.declare(seat, event[2])
    elif kind == "ready":
        game.declare(seat, "暗")
    elif kind == "bid":
        game.place_bid(seat, int(event[2]))
    elif kind == "bury":
        game.bury(seat, event[2])
    elif kind == "pass":
        return game.pass_turn(seat)
    elif kind == "play":
        hint = event[3] if len(event) > 3 else None
        if hint is not None:
            return game.play(seat, event[2], hint)
        try:
            return game.play(seat, event[2])
        except MoveError:  # a lead with several readings and no saved kind: the first that fits
            for reading in game.classify(event[2]):
                try:
                    return game.play(seat, event[2], reading.kind)
                except MoveError:
                    continue
            raise
    else:
        raise ValueError(f"unknown replay event {kind!r}")
    return None


def run(engine_type: type[ClimbingGame], replay: dict, *, steps: bool = True) -> Rebuilt:
    """Re-run a saved replay with the engine; with ``steps=False`` only to its end
    (``Rebuilt.steps`` empty, no copy of the game before each event). Raises
    ``ValueError`` for an unknown version or event and :class:`MoveError` when an event is
    not legal any more."""
    if replay.get("v") != VERSION:
        raise ValueError(f"unknown replay version {replay.get('v')!r}")
    dealt = engine_type.from_json(copy.deepcopy(replay["deal"]))  # type: ignore[attr-defined]
    game = engine_type.from_json(copy.deepcopy(replay["deal"]))  # type: ignore[attr-defined]
    done = []
    for event in replay["events"]:
        if not steps:
            _apply(game, event)
            continue
        before = engine_type.from_json(game.to_json())  # type: ignore[attr-defined]
        done.append(Step(list(event), _apply(game, event), before))
    return Rebuilt(dealt, done, game)


def engine_of(adapter: GameAdapter) -> type[ClimbingGame]:
    """The engine class of a game adapter."""
    return adapter.engine_type  # type: ignore[attr-defined]
