"""Read-side queries over finished games: leaderboards, a player's recent games, streaks,
and the numbered game records of a group (第 N 局) with their replays.

Every function takes the :class:`paizhuo_db.store.Store` and runs one short read transaction.
Only non-void games count: a void game (closed with /结束 while in play) has no player
rows, so it never reaches a leaderboard or a player's record.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from .models import QQ_SCOPE, GameRecord, PlayerRecord
from .records import COMPUTER_PREFIX, is_computer_id
from .store import Store

CHINA_TZ = timezone(timedelta(hours=8), "北京时间")
"""Periods (本周 / 本月) and dates are counted in China time (UTC+8, no daylight saving)."""

PERIODS: dict[str, str] = {"本周": "week", "本月": "month", "总": "all", "总榜": "all",
                           "全部": "all", "week": "week", "month": "month", "all": "all"}
"""Period words of ``/排行`` → period id."""


def period_start(period: str, now: datetime) -> datetime | None:
    """The first instant of ``period`` (``"week"``: Monday 00:00, ``"month"``: the 1st
    00:00, China time) containing ``now`` (aware), as aware UTC; ``None`` for ``"all"``.

    Raises ``ValueError`` for another period id.
    """
    local = now.astimezone(CHINA_TZ).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "all":
        return None
    if period == "week":
        start = local - timedelta(days=local.weekday())
    elif period == "month":
        start = local.replace(day=1)
    else:
        raise ValueError(f"unknown period {period!r}")
    return start.astimezone(UTC)


@dataclass(slots=True)
class BoardRow:
    """One player on a leaderboard: ``rank`` 1-based (``None`` when the player has fewer
    games than the minimum), ``games``, ``wins``, ``points`` (sum)."""

    rank: int | None
    user_id: str
    games: int
    wins: int
    points: int

    @property
    def win_rate(self) -> float:
        """``wins / games`` in ``[0, 1]``."""
        return self.wins / self.games if self.games else 0.0


@dataclass(slots=True)
class Board:
    """A leaderboard: ``top`` rows in rank order, ``caller`` the asking player's row (also
    when not ranked, ``None`` when they have no game in the period), ``ranked`` how many
    players qualify."""

    game: str
    period: str
    min_games: int
    top: list[BoardRow]
    caller: BoardRow | None
    ranked: int


async def leaderboard(store: Store, group_id: str, game: str, *, since: datetime | None,
                      min_games: int, caller: str, top: int = 10, period: str = "all",
                      scope: str = QQ_SCOPE) -> Board:
    """The group's leaderboard of ``game`` over games ended at or after ``since`` (all
    when ``None``), among players with at least ``min_games`` games, in one query on
    ``ix_player_records_board``.

    Order: points (high first), then win rate, then more games, then the QQ number (so
    ties are always broken the same way). ``caller``'s row is returned even outside the
    top ``top`` or below the minimum. Persons are (``scope``, user id): only the rows of
    ``scope`` count.
    """
    pr = PlayerRecord.__table__
    where = [pr.c.group_id == group_id, pr.c.game == game, pr.c.scope == scope]
    if since is not None:
        where.append(pr.c.ended_at >= since)
    wins = func.sum(case((pr.c.result == "win", 1), else_=0))
    agg = (select(pr.c.user_id, func.count().label("games"), wins.label("wins"),
                  func.sum(pr.c.points).label("points"))
           .where(*where).group_by(pr.c.user_id).cte("agg"))
    qualified = agg.c.games >= min_games
    order = (agg.c.points.desc(), (agg.c.wins * 1.0 / agg.c.games).desc(), agg.c.games.desc(),
             agg.c.user_id)
    ranked = select(
        agg,
        func.row_number().over(partition_by=qualified, order_by=order).label("position"),
        qualified.label("qualified"),
        func.sum(case((qualified, 1), else_=0)).over().label("ranked"),
    ).cte("ranked")
    query = (select(ranked)
             .where(or_(and_(ranked.c.qualified, ranked.c.position <= top),
                        ranked.c.user_id == caller))
             .order_by(ranked.c.qualified.desc(), ranked.c.position))
    async with store.engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    board = Board(game=game, period=period, min_games=min_games, top=[], caller=None, ranked=0)
    for row in rows:
        item = BoardRow(rank=int(row.position) if row.qualified else None, user_id=row.user_id,
                        games=int(row.games), wins=int(row.wins), points=int(row.points))
        board.ranked = int(row.ranked)
        if item.rank is not None and item.rank <= top:
            board.top.append(item)
        if row.user_id == caller:
            board.caller = item
    return board


async def most_played_game(store: Store, group_id: str) -> str | None:
    """The game played most in the group, counted in seats of finished (non-void) games
    (a 4-player game counts 4), on ``ix_player_records_board``; ties by name; ``None``
    when the group has none."""
    pr = PlayerRecord.__table__
    count = func.count()
    query = (select(pr.c.game).where(pr.c.group_id == group_id).group_by(pr.c.game)
             .order_by(count.desc(), pr.c.game).limit(1))
    async with store.engine.connect() as conn:
        return (await conn.execute(query)).scalar()


@dataclass(slots=True)
class PlayedGame:
    """One game of a player: ``number`` the game's 第 N 局, ``role`` / ``place`` /
    ``result`` / ``points`` of the player, ``ended_at`` aware UTC."""

    number: int
    game: str
    ended_at: datetime
    role: str
    place: int | None
    result: str
    points: int


@dataclass(slots=True)
class PlayerHistory:
    """A player's recent games (newest first), the current streak (``streak_result``
    ``"win"`` / ``"draw"`` / ``"loss"`` repeated ``streak`` times, counting back from
    the newest game) and the best and worst game by points (the newer one on a tie)."""

    recent: list[PlayedGame]
    streak: int
    streak_result: str | None
    best: PlayedGame | None
    worst: PlayedGame | None


def _played(row: Any) -> PlayedGame:
    return PlayedGame(number=int(row.group_seq), game=row.game, ended_at=row.ended_at,
                      role=row.role, place=row.place, result=row.result, points=int(row.points))


async def player_history(store: Store, group_id: str, user_id: str,
                         limit: int = 10, scope: str = QQ_SCOPE) -> PlayerHistory:
    """The person (``scope``, ``user_id``)'s last ``limit`` games in the group, streak,
    best and worst game."""
    pr, gr = PlayerRecord.__table__, GameRecord.__table__
    columns = (gr.c.group_seq, pr.c.game, pr.c.ended_at, pr.c.role, pr.c.place, pr.c.result,
               pr.c.points)
    mine = (pr.c.group_id == group_id, pr.c.user_id == user_id, pr.c.scope == scope)
    base = select(*columns).join(gr, gr.c.id == pr.c.game_id).where(*mine)
    newest = (pr.c.ended_at.desc(), pr.c.id.desc())
    async with store.engine.connect() as conn:
        recent = [_played(r) for r in (await conn.execute(base.order_by(*newest).limit(limit)))]
        if not recent:
            return PlayerHistory([], 0, None, None, None)
        best = _played((await conn.execute(
            base.order_by(pr.c.points.desc(), *newest).limit(1))).one())
        worst = _played((await conn.execute(
            base.order_by(pr.c.points.asc(), *newest).limit(1))).one())
        last = recent[0].result
        broken = (await conn.execute(
            select(pr.c.ended_at, pr.c.id).where(*mine, pr.c.result != last)
            .order_by(*newest).limit(1))).first()
        counted = select(func.count()).select_from(pr).where(*mine)
        if broken is not None:
            counted = counted.where(or_(pr.c.ended_at > broken.ended_at,
                                        and_(pr.c.ended_at == broken.ended_at,
                                             pr.c.id > broken.id)))
        streak = int((await conn.execute(counted)).scalar() or 0)
    return PlayerHistory(recent, streak, last, best, worst)


@dataclass(slots=True)
class SeatEntry:
    """One seat of a game record: ``seat`` 1-based, ``user_id`` (``ai:N`` for a computer
    player), ``name`` as seated then (``None`` when the record has none), ``computer``;
    ``role`` / ``place`` / ``result`` / ``points`` are ``None`` when the record does not
    say (a void game; a computer seat of a record written before every seat was kept —
    its replay still tells)."""

    seat: int
    user_id: str
    name: str | None
    computer: bool
    role: str | None = None
    place: int | None = None
    result: str | None = None
    points: int | None = None


def record_seats(summary: dict[str, Any],
                 players: list[tuple[str, int, str, int | None, str, int]]) -> list[SeatEntry]:
    """Every seat of a game record, in seat order: from ``summary["seats"]``, a person's
    result taken from their player row (what /战绩 and /排行 count). Records written
    before every seat was kept are read from what they have: the player rows, the seats'
    ``names``, the ``users`` of a void game and the 1-based ``computer_seats``."""
    rows = {seat: (user, role, place, result, points)
            for user, seat, role, place, result, points in players}
    saved = summary.get("seats")
    if isinstance(saved, list) and saved:
        seats = [SeatEntry(i + 1, str(s.get("user_id", "")), s.get("name"), bool(s.get("computer")),
                           s.get("role"), s.get("place"), s.get("result"), s.get("points"))
                 for i, s in enumerate(saved)]
    else:
        names = summary.get("names") or []
        users = summary.get("users") or []
        computers = {int(n) for n in summary.get("computer_seats") or []}
        count = max([len(names), len(users), *rows, *computers], default=0)
        seats = []
        for n in range(1, count + 1):
            name = names[n - 1] if n - 1 < len(names) else None
            user = users[n - 1] if n - 1 < len(users) else rows.get(n, ("",))[0]
            if not user and n in computers:
                digits = (name or "").removeprefix("电脑")
                user = COMPUTER_PREFIX + (digits if digits.isascii() and digits.isdigit() else str(n))
            seats.append(SeatEntry(n, user, name, n in computers or is_computer_id(user)))
    for s in seats:
        if s.seat in rows:
            s.user_id, s.role, s.place, s.result, s.points = rows[s.seat]
    return seats


@dataclass(slots=True)
class GameEntry:
    """A game record of a group: ``number`` (第 N 局), ``void``, the persons'
    ``players`` ``(user_id, seat, role, place, result, points)`` in seat order (their
    player rows), every seat in ``seats`` (:func:`record_seats`, computer players
    included), the ``settings`` and ``summary`` as saved."""

    number: int
    uid: str
    game: str
    started_at: datetime
    ended_at: datetime
    void: bool
    settings: dict[str, Any]
    summary: dict[str, Any]
    players: list[tuple[str, int, str, int | None, str, int]]
    seats: list[SeatEntry]


def _session(store: Store) -> AsyncSession:
    return AsyncSession(store.engine, expire_on_commit=False)


def _entry(row: GameRecord) -> GameEntry:
    players = [(p.user_id, p.seat, p.role, p.place, p.result, p.points) for p in row.players]
    summary = dict(row.summary)
    return GameEntry(
        number=row.group_seq, uid=row.uid, game=row.game, started_at=row.started_at,
        ended_at=row.ended_at, void=bool(summary.get("void")), settings=dict(row.settings),
        summary=summary, players=players, seats=record_seats(summary, players))


async def recent_games(store: Store, group_id: str, limit: int = 10) -> list[GameEntry]:
    """The group's last ``limit`` game records, newest first (void ones included)."""
    query = (select(GameRecord).where(GameRecord.group_id == group_id)
             .order_by(GameRecord.group_seq.desc()).limit(limit))
    async with _session(store) as session:
        return [_entry(r) for r in (await session.scalars(query)).all()]


async def game_by_number(store: Store, group_id: str, number: int) -> GameEntry | None:
    """The group's game 第 ``number`` 局, ``None`` when there is none."""
    query = select(GameRecord).where(GameRecord.group_id == group_id,
                                     GameRecord.group_seq == number)
    async with _session(store) as session:
        row = (await session.scalars(query)).first()
        return _entry(row) if row is not None else None


async def game_number(store: Store, uid: str) -> int | None:
    """The 第 N 局 number of the game archived as ``uid``, ``None`` when not archived."""
    async with store.engine.connect() as conn:
        return (await conn.execute(select(GameRecord.group_seq)
                                   .where(GameRecord.uid == uid))).scalar()


async def points_series(store: Store, group_id: str, user_id: str, limit: int = 30,
                        scope: str = QQ_SCOPE) -> list[int]:
    """The person (``scope``, ``user_id``)'s running points total over their last
    ``limit`` games in the group, oldest first, starting from the total before those games
    (for the /战绩 chart)."""
    pr = PlayerRecord.__table__
    mine = (pr.c.group_id == group_id, pr.c.user_id == user_id, pr.c.scope == scope)
    async with store.engine.connect() as conn:
        recent = [int(p) for p in (await conn.execute(
            select(pr.c.points).where(*mine).order_by(pr.c.ended_at.desc(), pr.c.id.desc())
            .limit(limit))).scalars()]
        total = int((await conn.execute(
            select(func.coalesce(func.sum(pr.c.points), 0)).where(*mine))).scalar() or 0)
    running = total - sum(recent)
    series = [running]
    for points in reversed(recent):
        running += points
        series.append(running)
    return series
