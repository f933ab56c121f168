"""Leaderboards, a player's history and numbered game records on a real SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text

from paizhuo_db import FinishedGame, FinishedPlayer, Store, alembic_config
from paizhuo_db.history import (
    game_by_number,
    game_number,
    leaderboard,
    most_played_game,
    period_start,
    player_history,
    recent_games,
)

T0 = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)  # Monday 12:00 China time


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    s = Store(f"sqlite+aiosqlite:///{tmp_path / 'h.db'}")
    await s.migrate()
    yield s
    await s.close()


_uids = iter(range(10**6))


def game(players: list[tuple[str, str, int]], *, kind: str = "抓特务", group: str = "g1",
         ended: datetime = T0, summary: dict | None = None) -> FinishedGame:
    """``players``: (user, result, points)."""
    return FinishedGame(
        uid=f"u{next(_uids)}", game=kind, group_id=group, started_at=ended - timedelta(minutes=9),
        ended_at=ended, settings={}, summary=summary or {},
        players=[FinishedPlayer(u, i + 1, "平民", i + 1, r, p)  # type: ignore[arg-type]
                 for i, (u, r, p) in enumerate(players)])


async def board(store: Store, caller: str = "nobody", min_games: int = 1, since=None,
                kind: str = "抓特务", group: str = "g1"):
    return await leaderboard(store, group, kind, since=since, min_games=min_games, caller=caller)


async def test_board_ranks_by_points_with_games_and_win_rate(store: Store) -> None:
    await store.finish_game(game([("a", "win", 3), ("b", "loss", -1), ("c", "loss", -2)]))
    await store.finish_game(game([("a", "loss", -1), ("b", "win", 2), ("c", "loss", -1)]))
    await store.finish_game(game([("x", "win", 50)], group="g2"))  # another group
    await store.finish_game(game([("y", "win", 70)], kind="挖坑"))  # another game
    b = await board(store)
    assert [(r.rank, r.user_id, r.games, r.wins, r.points) for r in b.top] == [
        (1, "a", 2, 1, 2), (2, "b", 2, 1, 1), (3, "c", 2, 0, -3)]
    assert b.ranked == 3 and b.caller is None
    assert b.top[0].win_rate == 0.5


async def test_board_ties_broken_by_win_rate_then_games_then_number(store: Store) -> None:
    # p1 and p2: 2 points each; p1 2 wins of 3, p2 1 win of 1 → p2 first (win rate).
    await store.finish_game(game([("p1", "win", 1), ("z", "loss", -1)]))
    await store.finish_game(game([("p1", "win", 1), ("z", "loss", -1)]))
    await store.finish_game(game([("p1", "loss", 0), ("z", "win", 0)]))
    await store.finish_game(game([("p2", "win", 2), ("z", "loss", -2)]))
    # q1 and q2: identical records → the smaller QQ number (as text) first, every time.
    for u in ("q2", "q1"):
        await store.finish_game(game([(u, "draw", 0)]))
    # r1: 0 points from 2 draws outranks q1/q2 (same points and win rate, more games).
    await store.finish_game(game([("r1", "draw", 0)]))
    await store.finish_game(game([("r1", "draw", 0)]))
    order = [r.user_id for r in (await board(store)).top]
    assert order[:2] == ["p2", "p1"]
    assert order.index("r1") < order.index("q1") < order.index("q2")
    assert [r.user_id for r in (await board(store)).top] == order  # deterministic


async def test_board_minimum_games_and_caller_outside_top_ten(store: Store) -> None:
    for i in range(12):  # u00 … u11: i points over 2 games each
        await store.finish_game(game([(f"u{i:02d}", "win", i), ("sink", "loss", -i)]))
        await store.finish_game(game([(f"u{i:02d}", "draw", 0)]))
    await store.finish_game(game([("once", "win", 99)]))  # one game only
    b = await board(store, caller="u01", min_games=2)
    assert [r.user_id for r in b.top] == [f"u{i:02d}" for i in range(11, 1, -1)]
    assert "once" not in [r.user_id for r in b.top]
    assert b.caller is not None and b.caller.rank == 11 and b.caller.points == 1
    assert b.ranked == 13  # twelve players and the sink (12 games)
    below = await board(store, caller="once", min_games=2)
    assert below.caller is not None and below.caller.rank is None and below.caller.games == 1
    assert [r.user_id for r in below.top] == [r.user_id for r in b.top]


async def test_board_periods_count_from_monday_and_the_first_in_china_time(store: Store) -> None:
    now = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)  # Mon 30 Nov 12:00 in China
    week = period_start("week", now)
    month = period_start("month", now)
    assert week == datetime(2026, 11, 29, 16, 0, tzinfo=UTC)  # Mon 00:00 China time
    assert month == datetime(2026, 10, 31, 16, 0, tzinfo=UTC)  # 1 Nov 00:00 China time
    assert period_start("all", now) is None
    await store.finish_game(game([("w", "win", 5)], ended=week + timedelta(minutes=1)))
    await store.finish_game(game([("m", "win", 4)], ended=week - timedelta(minutes=1)))
    await store.finish_game(game([("old", "win", 9)], ended=month - timedelta(seconds=1)))
    assert [r.user_id for r in (await board(store, since=week)).top] == ["w"]
    assert [r.user_id for r in (await board(store, since=month)).top] == ["w", "m"]
    assert [r.user_id for r in (await board(store)).top] == ["old", "w", "m"]


async def test_most_played_game_ignores_void_games(store: Store) -> None:
    assert await most_played_game(store, "g1") is None
    await store.finish_game(game([("a", "win", 1)], kind="挖坑"))
    await store.finish_game(game([("a", "win", 1), ("b", "loss", -1)], kind="抓特务"))
    await store.finish_game(game([("a", "win", 1)], kind="抓特务"))
    for _ in range(3):
        await store.finish_game(FinishedGame(
            uid=f"void{next(_uids)}", game="挖坑", group_id="g1", started_at=T0, ended_at=T0,
            settings={}, summary={"void": True}, players=[]))
    assert await most_played_game(store, "g1") == "抓特务"


async def test_games_are_numbered_per_group_in_the_finishing_transaction(store: Store) -> None:
    first = game([("a", "win", 1)])
    await store.finish_game(first)
    await store.finish_game(game([("a", "win", 1)], group="g2"))
    second = game([("a", "loss", -1)])
    await store.finish_game(second)
    assert await store.finish_game(second) is False  # same game again: no new number
    assert await game_number(store, first.uid) == 1
    assert await game_number(store, second.uid) == 2
    assert [g.number for g in await recent_games(store, "g1")] == [2, 1]
    entry = await game_by_number(store, "g2", 1)
    assert entry is not None and entry.players[0][0] == "a" and not entry.void
    assert await game_by_number(store, "g2", 2) is None


async def test_a_record_knows_every_seat_computer_players_included(store: Store) -> None:
    """Computer players have no player rows (no /战绩, no /排行) but the record keeps their
    seats; a person's result is their player row's. Older records are read from their
    names, ``computer_seats`` and player rows; a void game's seats have no results."""
    from paizhuo_db.records import seats_summary

    everyone = [FinishedPlayer("a", 1, "挖坑者", 3, "loss", -6),
                FinishedPlayer("ai:1", 2, "农民", 1, "win", 3),
                FinishedPlayer("ai:2", 3, "农民", 2, "win", 3)]
    new = game([], kind="挖坑", summary={"seats": seats_summary(
        ["a", "ai:1", "ai:2"], ["甲", "电脑1", "电脑2"], everyone)})
    new.players = everyone[:1]
    old = game([], kind="挖坑", summary={"names": ["电脑1", "乙", "电脑3"], "computer_seats": [1, 3]})
    old.players = [FinishedPlayer("b", 2, "农民", 2, "loss", -3)]
    void = game([], kind="挖坑", summary={"void": True, "seats": seats_summary(
        ["a", "ai:1", "b"], ["甲", "电脑1", "乙"])})
    for record in (new, old, void):
        await store.finish_game(record)
    first, second, third = [await game_by_number(store, "g1", n) for n in (1, 2, 3)]
    assert [(s.seat, s.user_id, s.name, s.computer, s.result, s.points) for s in first.seats] == [
        (1, "a", "甲", False, "loss", -6), (2, "ai:1", "电脑1", True, "win", 3),
        (3, "ai:2", "电脑2", True, "win", 3)]
    assert first.players == [("a", 1, "挖坑者", 3, "loss", -6)]
    assert [(s.user_id, s.computer, s.result) for s in second.seats] == [
        ("ai:1", True, None), ("b", False, "loss"), ("ai:3", True, None)]
    assert [(s.user_id, s.name, s.result) for s in third.seats] == [
        ("a", "甲", None), ("ai:1", "电脑1", None), ("b", "乙", None)]
    assert {r.user_id for r in (await board(store, kind="挖坑")).top} == {"a", "b"}


async def test_player_history_recent_streak_best_and_worst(store: Store) -> None:
    results = [("win", 2), ("loss", -5), ("win", 7), ("loss", -1), ("win", 1), ("win", 3)]
    for i, (r, p) in enumerate(results):
        await store.finish_game(game([("me", r, p), ("you", "loss", -p)],
                                     ended=T0 + timedelta(minutes=i)))
    h = await player_history(store, "g1", "me", limit=4)
    assert [g.points for g in h.recent] == [3, 1, -1, 7]
    assert [g.number for g in h.recent] == [6, 5, 4, 3]
    assert (h.streak, h.streak_result) == (2, "win")
    assert h.best is not None and h.best.points == 7 and h.best.number == 3
    assert h.worst is not None and h.worst.points == -5 and h.worst.number == 2
    nobody = await player_history(store, "g1", "ghost")
    assert nobody.recent == [] and nobody.streak == 0 and nobody.best is None


async def test_upgrade_numbers_existing_games_and_copies_end_times(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    store = Store(url)

    def to_0002(conn) -> None:
        config = alembic_config(url)
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")

    async with store.engine.begin() as conn:
        await conn.run_sync(to_0002)
        for gid, group, ended in ((1, "g1", "2026-01-02 00:00:00"), (2, "g1", "2026-01-01 00:00:00"),
                                  (3, "g2", "2026-01-03 00:00:00")):
            await conn.execute(text(
                "INSERT INTO game_records (id, uid, game, group_id, started_at, ended_at, settings,"
                " summary) VALUES (:id, :uid, '抓特务', :g, :e, :e, '{}', '{}')"),
                {"id": gid, "uid": f"old{gid}", "g": group, "e": ended})
            await conn.execute(text(
                "INSERT INTO player_records (game_id, group_id, game, user_id, seat, role, place,"
                " result, points) VALUES (:id, :g, '抓特务', 'a', 1, '平民', 1, 'win', 1)"),
                {"id": gid, "g": group})
    await store.migrate()
    async with store.engine.connect() as conn:
        seqs = dict((await conn.execute(text("SELECT uid, group_seq FROM game_records"))).all())
        ends = (await conn.execute(text(
            "SELECT game_id, ended_at FROM player_records ORDER BY game_id"))).all()
    assert seqs == {"old2": 1, "old1": 2, "old3": 1}
    assert [e[1][:10] for e in ends] == ["2026-01-02", "2026-01-01", "2026-01-03"]
    await store.finish_game(game([("a", "win", 1)]))
    assert [g.number for g in await recent_games(store, "g1")] == [3, 2, 1]
    await store.close()


async def test_downgrade_keeps_every_game_and_player(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'down.db'}"
    store = Store(url)
    await store.migrate()
    await store.finish_game(game([("a", "win", 1), ("b", "loss", -1)]))

    def to_0002(conn) -> None:
        config = alembic_config(url)
        config.attributes["connection"] = conn
        command.downgrade(config, "0002")

    async with store.engine.begin() as conn:
        await conn.run_sync(to_0002)
    async with store.engine.connect() as conn:
        players = (await conn.execute(text("SELECT COUNT(*) FROM player_records"))).scalar()
        columns = [r[1] for r in (await conn.execute(text("PRAGMA table_info(game_records)")))]
    assert players == 2 and "group_seq" not in columns
    await store.close()
