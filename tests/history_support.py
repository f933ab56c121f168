"""Helpers of the history tests: archived games, games played to (nearly) their end."""

from __future__ import annotations

import contextlib
import random
from datetime import UTC, datetime, timedelta

from chat_support import GROUP

from nonebot_plugin_paizhuo.tables import REGISTRY
from paizhuo_db import FinishedGame, FinishedPlayer
from paizhuo_engine.errors import MoveError

_uids = iter(range(10**6))


async def finish(players: list[tuple[int, str, int]], game: str = "抓特务",
                 ended: datetime | None = None, group: int = GROUP) -> None:
    """Archive a game: ``players`` as (user, result, points)."""
    ended = ended or datetime.now(UTC)
    await REGISTRY.require_store().finish_game(FinishedGame(
        uid=f"t{next(_uids)}", game=game, group_id=str(group), started_at=ended - timedelta(minutes=5),
        ended_at=ended, settings={}, summary={},
        players=[FinishedPlayer(str(u), i + 1, "平民", i + 1, r, p)  # type: ignore[arg-type]
                 for i, (u, r, p) in enumerate(players)]))



def play_out(adapter, game, seats, rng: random.Random) -> None:
    """Play ``game`` to its end the way the chat would: private answers (some given, the
    rest by timeout), bids chosen at random, moves by the computer strategy or the simple
    timeout rule at random."""
    while not adapter.is_over(game):
        if adapter.prompt_seconds(game):
            for seat in range(game.players):
                if rng.random() < 0.5:
                    continue
                if getattr(game, "phase", "") == "declare":
                    choice = rng.choice(game.declare_choices())
                    with contextlib.suppress(MoveError):
                        adapter.answer(game, seats, seat, choice)
            if adapter.prompt_seconds(game):
                adapter.timeout(game, seats)
            continue
        seat = adapter.acting_seat(game)
        if adapter.name == "挖坑" and game.phase == "bid":
            options = game.bid_options(seat)
            adapter.act(game, seats, seat, "bid", str(rng.choice(options)))
            continue
        adapter.auto_move(game, seats, seat, rng.choice(("超时", "托管")), simple=rng.random() < 0.5)


def last_play(table, last) -> tuple[int, str]:
    """``(user id, command)`` of the game's last play in ``last`` (from :func:`dealt_table`
    with one move left): the move that ends the game."""
    seat, cards = last.log[-1]
    return int(table.seats[seat].user_id), f"出 {table.adapter.cards(last, cards)}"


def dealt_table(game_name: str, seed: int, moves_left: int, computers: int = 0) -> tuple:
    """A table whose game was really dealt and played (by the engine) until ``moves_left``
    plays and passes remain, or to the last move when ``moves_left`` is 1. The last
    ``computers`` seats are computer players (电脑1, 电脑2 …)."""
    import copy

    from chat_support import A, B, C

    from nonebot_plugin_paizhuo.games import GAMES
    from nonebot_plugin_paizhuo.games.base import SeatView
    from nonebot_plugin_paizhuo.tables import PLAYING, Table, now_utc

    adapter = GAMES[game_name]
    seats = [SeatView(str(u), f"玩家{u}") for u in (A, B, C)[:3 - computers]]
    seats += [SeatView(f"ai:{n}", f"电脑{n}") for n in range(1, computers + 1)]
    game = adapter.new_game(3, adapter.schema.clean({}), seed, None)
    played = 0
    while True:
        if adapter.prompt_seconds(game):
            adapter.timeout(game, seats)
            continue
        seat = adapter.acting_seat(game)
        if game_name == "挖坑" and game.phase == "bid":
            adapter.act(game, seats, seat, "bid", str(game.bid_options(seat)[-1]))
            continue
        trial = copy.deepcopy(game)
        adapter.auto_move(trial, seats, seat, "托管")
        played += 1
        if trial.over or (moves_left > 1 and played >= moves_left):
            break
        game = trial
    table = Table(group_id=str(GROUP), game=game_name, size=3, opener=str(A), seats=seats,
                  settings=adapter.schema.clean({}), created_at=now_utc(), started_at=now_utc(),
                  uid=f"real-{seed}", engine=game, status=PLAYING, account="10001")
    REGISTRY.add(table)
    return table, trial


