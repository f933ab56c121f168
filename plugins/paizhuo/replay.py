"""Game replays (复盘): what is saved with a game record to rebuild it, and the rebuild.

A replay is ``{"v": 1, "deal": <engine state as dealt>, "events": [...]}``. The deal is
the engine's JSON right after the deal (for 抓特务 with the tribute already given, Z-8);
the events are every later decision in order:

* ``["return", seat, cards]`` 还贡 (Z-8) · ``["declare", seat, "明" | "明牌" | "暗"]`` (Z-9)
* ``["bid", seat, amount]`` 叫分, 0 = 不叫 (W-2) · ``["bury", seat, cards]`` 扣底 (W-3)
* ``["play", seat, cards, kind]`` 出牌 with the reading kind it took (G-5) · ``["pass", seat]``

Both are derived from the game's own state at the end (the engines keep every hand, the
tribute, the bids and the move log), and a replay is only saved when re-running it from
the deal gives back exactly that state. Timeouts and 托管 moves are ordinary events: the
engine cannot tell them apart, and neither does the replay.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from nonebot import logger
from paizhuo_engine.climbing import ClimbingGame, Move
from paizhuo_engine.errors import MoveError
from paizhuo_engine.shoubayi.game import SGame
from paizhuo_engine.wakeng.game import WGame
from paizhuo_engine.zhuatewu.game import ZGame

from .games.base import GameAdapter

VERSION = 1


def _played_by(game: ClimbingGame) -> list[list[int]]:
    played: list[list[int]] = [[] for _ in range(game.players)]
    for seat, cards in game.log:
        played[seat] += cards
    return played


def _replayed_hands(game: ClimbingGame) -> list[list[int]]:
    """Each seat's hand before the first play: what it holds now plus what it played."""
    return [sorted(h + p) for h, p in zip(game.hands, _played_by(game), strict=True)]


def _trick_reset(state: dict, players: int) -> dict:
    state.update(lead=None, passes=0, out=[], played=[False] * players, log=[], kinds=[],
                 result=None)
    return state


def _zhuatewu_deal(game: ZGame) -> tuple[dict, list[list]]:
    hands = _replayed_hands(game)
    events: list[list] = []
    for e in game.exchanges:  # undo the returns (Z-8), in giving order
        if e["returned"] is not None:
            returned = set(e["returned"])
            hands[e["receiver"]] = sorted(hands[e["receiver"]] + e["returned"])
            hands[e["giver"]] = [c for c in hands[e["giver"]] if c not in returned]
            events.append(["return", e["receiver"], list(e["returned"])])
    events += [["declare", s, game.declared[s]] for s in game.spies()
               if game.declared[s] is not None]
    state = _trick_reset(game.to_json(), game.players)
    state.update(hands=hands, turn=game.dealer, phase="tribute", stakes=[1] * game.players,
                 declared=[None] * game.players,
                 exchanges=[{**e, "returned": None} for e in game.exchanges])
    dealt = ZGame.from_json(state)
    dealt._advance()  # noqa: SLF001 - the deal's own step from tribute to declare or play
    return dealt.to_json(), events


def _wakeng_deal(game: WGame) -> tuple[dict, list[list]]:
    hands = _replayed_hands(game)
    if game.buried:
        bottom = set(game.bottom)
        hands[game.digger] = sorted([c for c in hands[game.digger] if c not in bottom]
                                    + game.buried)
    order = [(game.first + i) % 3 for i in range(3)]
    events: list[list] = [["bid", s, game.bids[s]] for s in order if game.bids[s] is not None]
    if game.buried:
        events.append(["bury", game.digger, list(game.buried)])
    state = _trick_reset(game.to_json(), 3)
    state.update(hands=hands, turn=game.first, phase="bid", bidder=game.first,
                 bids=[None] * 3, digger=None, bid=0, buried=[])
    return state, events


def _shoubayi_deal(game: SGame) -> tuple[dict, list[list]]:
    state = _trick_reset(game.to_json(), game.players)
    leader = game.log[0][0] if game.log else game.turn
    state.update(hands=_replayed_hands(game), turn=leader, watch=None, baopei=None)
    return state, []


def capture(game: ClimbingGame) -> dict[str, Any] | None:
    """The replay of ``game`` (finished, or stopped part-way by /结束) as JSON-able data,
    or ``None`` (logged) when re-running it would not give back the same state."""
    try:
        if isinstance(game, ZGame):
            deal, events = _zhuatewu_deal(game)
        elif isinstance(game, WGame):
            deal, events = _wakeng_deal(game)
        elif isinstance(game, SGame):
            deal, events = _shoubayi_deal(game)
        else:
            return None
        kinds = game.kinds
        for i, (seat, cards) in enumerate(game.log):
            events.append(["play", seat, list(cards), kinds[i]] if cards else ["pass", seat])
        replay = {"v": VERSION, "deal": deal, "events": events}
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
