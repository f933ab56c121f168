"""Tests of the persistence layer against a real SQLite file (aiosqlite) and a real
PostgreSQL server (asyncpg; ``PAIZHUO_TEST_PG_URL``, started by ``.ci/run``): every test
that takes ``store`` runs on both."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, delete, func, inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import paizhuo_db.store as store_module
from paizhuo_db import (
    FinishedGame,
    FinishedPlayer,
    GameStats,
    LiveTableTaken,
    Store,
    alembic_config,
)
from paizhuo_db.models import Base, GameRecord, LiveTable, PlayerRecord, utcnow

CST = timezone(timedelta(hours=8))
APP_TABLES = {"live_tables", "game_records", "player_records"}


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def head_revision(url: str) -> str:
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    assert head is not None
    return head


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "paizhuo.db"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = Store(db_url)
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[Store]:
    store = Store(sqlite_url(db_path))
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()


def sessions(store: Store) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(store.engine, expire_on_commit=False)


async def table_names(store: Store) -> set[str]:
    async with store.engine.connect() as conn:
        return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))


async def alembic_versions(store: Store) -> list[str]:
    async with store.engine.connect() as conn:
        return list((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars())


async def count(store: Store, model: type[Base]) -> int:
    async with sessions(store)() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


def make_game(
    uid: str,
    *,
    game: str = "抓特务",
    group_id: str = "g1",
    players: list[FinishedPlayer] | None = None,
    started_at: datetime | None = None,
) -> FinishedGame:
    start = started_at or datetime(2024, 5, 1, 20, 0, tzinfo=CST)
    return FinishedGame(
        uid=uid,
        game=game,
        group_id=group_id,
        started_at=start,
        ended_at=start + timedelta(minutes=25),
        settings={"特务数": 1, "底分": 2},
        summary={"winner": "平民", "rounds": [1, 2, 3]},
        players=players
        if players is not None
        else [
            FinishedPlayer("u1", 0, "特务", None, "loss", -6),
            FinishedPlayer("u2", 1, "平民", 1, "win", 3),
            FinishedPlayer("u3", 2, "平民", 2, "win", 3),
        ],
    )


# --------------------------------------------------------------------------- migrations


async def test_migrate_creates_schema_at_head(store: Store) -> None:
    assert APP_TABLES | {"alembic_version"} <= await table_names(store)
    assert await alembic_versions(store) == [head_revision(store.url)]

    def describe(conn: Connection) -> dict[str, Any]:
        insp = inspect(conn)
        return {
            # PostgreSQL also lists the index behind a unique constraint: not an index of ours.
            "game_ix": {i["name"]: i["column_names"] for i in insp.get_indexes("game_records")
                        if not i.get("duplicates_constraint")},
            "game_uq": [u["column_names"] for u in insp.get_unique_constraints("game_records")],
            "player_ix": {i["name"]: i["column_names"] for i in insp.get_indexes("player_records")},
            "player_fk": insp.get_foreign_keys("player_records"),
            "live_pk": insp.get_pk_constraint("live_tables")["constrained_columns"],
        }

    async with store.engine.connect() as conn:
        schema = await conn.run_sync(describe)
    assert schema["game_ix"] == {"ix_game_records_group_id": ["group_id"],
                                 "ix_game_records_group_id_group_seq": ["group_id", "group_seq"]}
    assert schema["game_uq"] == [["uid"]]
    assert schema["player_ix"] == {
        "ix_player_records_group_id_user_id": ["group_id", "user_id"],
        "ix_player_records_board": ["group_id", "game", "user_id", "ended_at", "result", "points"],
        "ix_player_records_group_id_user_id_ended_at": ["group_id", "user_id", "ended_at"],
        "ix_player_records_game_id": ["game_id"],
        "ix_player_records_scope_group_id_user_id": ["scope", "group_id", "user_id"],
    }
    [fk] = schema["player_fk"]
    assert fk["referred_table"] == "game_records"
    assert fk["constrained_columns"] == ["game_id"]
    assert fk["options"].get("ondelete") == "CASCADE"
    assert schema["live_pk"] == ["group_id"]


async def test_migration_matches_models(store: Store) -> None:
    def diff(conn: Connection) -> list[Any]:
        return compare_metadata(MigrationContext.configure(conn), Base.metadata)

    async with store.engine.connect() as conn:
        assert await conn.run_sync(diff) == []


async def test_migrate_twice_is_harmless(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"turn": 3})
    await store.migrate()
    assert await alembic_versions(store) == [head_revision(store.url)]
    assert await store.load_live() == {"g1": ("抓特务", {"turn": 3})}

    again = Store(store.url)
    try:
        await again.migrate()
        assert await again.load_live() == {"g1": ("抓特务", {"turn": 3})}
    finally:
        await again.close()


async def test_migrate_creates_missing_parent_directory(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "bot.db"
    store = Store(sqlite_url(path))
    try:
        await store.migrate()
        assert path.is_file()
        assert await table_names(store) >= APP_TABLES
    finally:
        await store.close()


async def test_standalone_env_upgrade_and_downgrade_in_thread(db_path: Path) -> None:
    """The env.py path without a shared connection (asyncio.run in a worker thread)."""
    url = sqlite_url(db_path)
    await asyncio.to_thread(command.upgrade, alembic_config(url), "head")
    with sqlite3.connect(db_path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert names >= APP_TABLES
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (head_revision(url),)
        ]
    conn.close()

    await asyncio.to_thread(command.downgrade, alembic_config(url), "base")
    with sqlite3.connect(db_path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert not (APP_TABLES & names)
    conn.close()


async def test_sqlite_uses_wal_and_foreign_keys(sqlite_store: Store, db_path: Path) -> None:
    store = sqlite_store
    async with store.engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1

    # ON DELETE CASCADE only works when foreign keys are enabled on the connection.
    assert await store.finish_game(make_game("cascade")) is True
    assert await count(store, PlayerRecord) == 3
    async with sessions(store).begin() as session:
        await session.execute(delete(GameRecord).where(GameRecord.uid == "cascade"))
    assert await count(store, PlayerRecord) == 0

    with sqlite3.connect(db_path) as raw:  # WAL is persistent in the file itself
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    raw.close()


# --------------------------------------------------------------------------- live tables


async def test_live_save_load_update_delete(store: Store) -> None:
    assert await store.load_live() == {}

    await store.save_live("g1", "抓特务", {"turn": 1})
    await store.save_live("g2", "挖坑", {"turn": 7})
    assert await store.load_live() == {"g1": ("抓特务", {"turn": 1}), "g2": ("挖坑", {"turn": 7})}

    await store.save_live("g1", "手把一", {"turn": 2, "hands": [[1, 2], []]})
    assert await store.load_live() == {
        "g1": ("手把一", {"turn": 2, "hands": [[1, 2], []]}),
        "g2": ("挖坑", {"turn": 7}),
    }
    assert await count(store, LiveTable) == 2

    await store.delete_live("g1")
    assert await store.load_live() == {"g2": ("挖坑", {"turn": 7})}
    await store.delete_live("g1")  # deleting a missing row is a no-op
    await store.delete_live("nope")
    assert await store.load_live() == {"g2": ("挖坑", {"turn": 7})}


async def test_live_updated_at_is_aware_utc_and_refreshed(store: Store) -> None:
    column_default = LiveTable.__table__.c.updated_at.default
    assert column_default is not None and column_default.is_callable  # not an import-time value

    async def updated_at() -> datetime:
        async with sessions(store)() as session:
            value = await session.scalar(select(LiveTable.updated_at))
        assert value is not None
        return value

    before = utcnow()
    await store.save_live("g1", "抓特务", {})
    first = await updated_at()
    assert first.tzinfo is not None and first.utcoffset() == timedelta(0)
    assert before <= first <= utcnow()

    await asyncio.sleep(0.01)
    await store.save_live("g1", "抓特务", {"x": 1})
    second = await updated_at()
    assert second > first

    await asyncio.sleep(0.01)
    await store.save_live("g1", "抓特务", {"x": 1})  # identical state still refreshes
    assert await updated_at() > second


async def test_live_state_with_chinese_and_nested_lists_round_trips(store: Store) -> None:
    state: dict[str, Any] = {
        "游戏": "抓特务",
        "玩家": [
            {"昵称": "小明", "手牌": ["♠A", "♥10", "大王"], "分": -3},
            {"昵称": "老王 🀄", "手牌": [], "分": 0.5},
        ],
        "桌面": [[["♣3", "♣3"], ["♦K"]], []],
        "阶段": None,
        "明牌": True,
        "引号": '他说："出牌"\n换行\\反斜杠',
    }
    await store.save_live("群1", "抓特务", state)
    loaded = await store.load_live()
    assert loaded == {"群1": ("抓特务", state)}
    assert list(loaded["群1"][1]) == list(state)  # key order kept too

    async with store.engine.connect() as conn:  # stored readable, not as \uXXXX escapes
        stored = (await conn.execute(text("SELECT CAST(state AS TEXT) FROM live_tables"))).scalar()
    assert "小明" in stored


async def test_save_live_rejects_non_json_state(store: Store) -> None:
    with pytest.raises(TypeError, match="JSON"):
        await store.save_live("g1", "抓特务", {"cards": {1, 2}})
    assert await store.load_live() == {}


async def test_concurrent_first_saves_of_one_group_all_succeed(store: Store) -> None:
    """One upsert statement per save: saves racing to insert the same new group never
    fail on the primary key; one of them is the row left. On SQLite this process's saves
    take turns in call order, so the last one wins; PostgreSQL runs them on several
    connections at once, in no set order."""
    await asyncio.gather(*(store.save_live("g1", "抓特务", {"v": i}) for i in range(20)))
    live = await store.load_live()
    if store.engine.dialect.name == "sqlite":
        assert live == {"g1": ("抓特务", {"v": 19})}
    else:
        assert list(live) == ["g1"] and live["g1"][0] == "抓特务"
        assert live["g1"][1]["v"] in range(20)


# --------------------------------------------------------------------------- finished games


async def test_finish_game_writes_records_and_removes_live_row(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"turn": 9})
    await store.save_live("g2", "抓特务", {"turn": 1})
    record = make_game("game-1")

    assert await store.finish_game(record) is True

    assert await store.load_live() == {"g2": ("抓特务", {"turn": 1})}
    async with sessions(store)() as session:
        [game] = (await session.scalars(select(GameRecord))).all()
        players = (await session.scalars(select(PlayerRecord).order_by(PlayerRecord.seat))).all()
    assert (game.uid, game.game, game.group_id) == ("game-1", "抓特务", "g1")
    assert game.started_at == record.started_at
    assert game.started_at.tzinfo is UTC
    assert game.started_at.hour == 12  # 20:00 at UTC+8
    assert game.ended_at - game.started_at == timedelta(minutes=25)
    assert game.settings == {"特务数": 1, "底分": 2}
    assert game.summary == {"winner": "平民", "rounds": [1, 2, 3]}
    assert [
        (p.game_id, p.group_id, p.game, p.user_id, p.seat, p.role, p.place, p.result, p.points)
        for p in players
    ] == [
        (game.id, "g1", "抓特务", "u1", 0, "特务", None, "loss", -6),
        (game.id, "g1", "抓特务", "u2", 1, "平民", 1, "win", 3),
        (game.id, "g1", "抓特务", "u3", 2, "平民", 2, "win", 3),
    ]


async def test_finish_game_is_atomic(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"turn": 9})
    broken = make_game(
        "game-broken",
        players=[
            FinishedPlayer("u1", 0, "特务", None, "loss", -6),
            FinishedPlayer(None, 1, "平民", 1, "win", 3),  # type: ignore[arg-type]
        ],
    )
    with pytest.raises(IntegrityError):
        await store.finish_game(broken)

    assert await count(store, GameRecord) == 0
    assert await count(store, PlayerRecord) == 0
    assert await store.load_live() == {"g1": ("抓特务", {"turn": 9})}


async def test_finish_same_uid_twice_writes_once(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"turn": 9})
    assert await store.finish_game(make_game("dup")) is True

    await store.save_live("g1", "抓特务", {"turn": 10})
    changed = make_game("dup", players=[FinishedPlayer("u9", 0, "平民", 1, "win", 100)])
    assert await store.finish_game(changed) is False

    assert await count(store, GameRecord) == 1
    assert await count(store, PlayerRecord) == 3
    assert await store.player_stats("g1", "u9") == []
    assert await store.load_live() == {}  # the live row is still removed


async def test_finish_game_duplicate_detected_by_unique_constraint(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A concurrent writer got the uid in between our check and our insert."""
    assert await store.finish_game(make_game("race")) is True
    await store.save_live("g1", "抓特务", {"turn": 1})

    real_uid_exists = store_module._uid_exists
    calls = 0

    async def blind_first(session: AsyncSession, uid: str) -> bool:
        nonlocal calls
        calls += 1
        return False if calls == 1 else await real_uid_exists(session, uid)

    monkeypatch.setattr(store_module, "_uid_exists", blind_first)
    assert await store.finish_game(make_game("race")) is False
    assert calls == 2
    assert await count(store, GameRecord) == 1
    assert await count(store, PlayerRecord) == 3
    assert await store.load_live() == {}


@pytest.mark.parametrize(
    "record",
    [
        make_game("naive", started_at=datetime(2024, 5, 1, 20, 0)),
        make_game("bad-result", players=[FinishedPlayer("u1", 0, "平民", 1, "won", 1)]),  # type: ignore[arg-type]
    ],
    ids=["naive-datetime", "bad-result"],
)
async def test_finish_game_rejects_invalid_record(store: Store, record: FinishedGame) -> None:
    await store.save_live("g1", "抓特务", {"turn": 9})
    with pytest.raises(ValueError):
        await store.finish_game(record)
    assert await count(store, GameRecord) == 0
    assert await store.load_live() == {"g1": ("抓特务", {"turn": 9})}


# --------------------------------------------------------------------------- stats


async def test_player_stats_aggregates_per_game_type(store: Store) -> None:
    def p(user: str, seat: int, result: str, points: int) -> FinishedPlayer:
        return FinishedPlayer(user, seat, "平民", None, result, points)  # type: ignore[arg-type]

    games = [
        make_game("z1", players=[p("me", 0, "win", 4), p("other", 1, "loss", -4)]),
        make_game("z2", players=[p("me", 0, "loss", -2), p("other", 1, "win", 2)]),
        make_game("z3", players=[p("me", 1, "draw", 0), p("other", 0, "draw", 0)]),
        make_game("z4", players=[p("me", 2, "win", 6), p("other", 0, "loss", -6)]),
        make_game("w1", game="挖坑", players=[p("me", 0, "win", 3), p("other", 1, "loss", -3)]),
        make_game("w2", game="挖坑", players=[p("me", 0, "loss", -1), p("other", 1, "win", 1)]),
        # Same user in another group, and a game in this group without the user: ignored.
        make_game("x1", group_id="g2", players=[p("me", 0, "win", 50)]),
        make_game("x2", game="手把一", group_id="g2", players=[p("me", 0, "loss", -50)]),
        make_game("y1", game="手把一", players=[p("other", 0, "win", 9)]),
    ]
    for game in games:
        assert await store.finish_game(game) is True

    stats = await store.player_stats("g1", "me")
    assert stats == [
        GameStats(game="抓特务", games=4, wins=2, draws=1, losses=1, points=8),
        GameStats(game="挖坑", games=2, wins=1, draws=0, losses=1, points=2),
    ]
    assert [s.game for s in stats] == sorted(s.game for s in stats)
    assert stats[0].win_rate == pytest.approx(0.5)
    assert stats[1].win_rate == pytest.approx(0.5)

    assert await store.player_stats("g2", "me") == [
        GameStats(game="手把一", games=1, wins=0, draws=0, losses=1, points=-50),
        GameStats(game="抓特务", games=1, wins=1, draws=0, losses=0, points=50),
    ]
    assert await store.player_stats("g1", "nobody") == []


def test_win_rate_without_games_is_zero() -> None:
    assert GameStats("抓特务", 0, 0, 0, 0, 0).win_rate == 0.0
    assert GameStats("抓特务", 4, 3, 0, 1, 5).win_rate == 0.75


async def test_finish_game_can_keep_the_table_open_with_new_state(store: Store) -> None:
    """A table that stays open for the next game: record written and live state replaced
    in the same transaction."""
    await store.save_live("g1", "抓特务", {"phase": "playing"})
    record = make_game("keep-1", group_id="g1")
    assert await store.finish_game(record, live=("抓特务", {"phase": "finished"})) is True
    assert await store.load_live() == {"g1": ("抓特务", {"phase": "finished"})}
    assert await count(store, GameRecord) == 1
    assert await store.finish_game(record, live=("抓特务", {"phase": "finished", "n": 2})) is False
    assert await store.load_live() == {"g1": ("抓特务", {"phase": "finished", "n": 2})}
    assert await count(store, GameRecord) == 1


async def test_group_settings_store_update_and_reset(store: Store) -> None:
    assert await store.get_settings("g1", "抓特务") == {}
    await store.set_settings("g1", "抓特务", {"chain_ends": "b", "three_high": True})
    await store.set_settings("g2", "抓特务", {"chain_ends": "c"})
    assert await store.get_settings("g1", "抓特务") == {"chain_ends": "b", "three_high": True}
    await store.set_settings("g1", "抓特务", {"chain_ends": "a"})
    assert await store.get_settings("g1", "抓特务") == {"chain_ends": "a"}
    assert await store.get_settings("g1", "挖坑") == {}
    await store.set_settings("g1", "抓特务", {})
    assert await store.get_settings("g1", "抓特务") == {}
    assert await store.get_settings("g2", "抓特务") == {"chain_ends": "c"}


# --------------------------------------------------------------------------- bot accounts


async def test_live_rows_are_scoped_by_account(store: Store) -> None:
    """A table belongs to the account that opened it: that account loads and writes it,
    another account can neither overwrite nor delete it (nothing is written)."""
    await store.save_live("g1", "抓特务", {"v": 1}, account="10001")
    await store.save_live("g2", "挖坑", {"v": 2}, account="10002")
    assert await store.load_live(account="10001") == {"g1": ("抓特务", {"v": 1})}
    assert await store.load_live(account="10002") == {"g2": ("挖坑", {"v": 2})}
    assert await store.live_owners(["g1", "g2", "g3"]) == {"g1": "10001", "g2": "10002"}

    with pytest.raises(LiveTableTaken) as taken:
        await store.save_live("g1", "手把一", {"v": 9}, account="10002")
    assert (taken.value.group_id, taken.value.account) == ("g1", "10001")
    await store.delete_live("g1", account="10002")
    with pytest.raises(LiveTableTaken):
        await store.finish_game(make_game("other", group_id="g1"), account="10002")
    assert await count(store, GameRecord) == 0
    assert await store.load_live(account="10001") == {"g1": ("抓特务", {"v": 1})}

    await store.save_live("g1", "抓特务", {"v": 3}, account="10001")
    assert await store.finish_game(make_game("mine", group_id="g1"),
                                   live=("抓特务", {"v": 4}), account="10001") is True
    assert await store.load_live(account="10001") == {"g1": ("抓特务", {"v": 4})}
    await store.delete_live("g1", account="10001")
    assert await store.load_live() == {"g2": ("挖坑", {"v": 2})}


async def test_unscoped_save_keeps_the_rows_account(store: Store) -> None:
    await store.save_live("g1", "抓特务", {"v": 1}, account="10001")
    await store.save_live("g1", "抓特务", {"v": 2})
    assert await store.live_owners(["g1"]) == {"g1": "10001"}


async def test_rows_without_account_are_claimed_once(store: Store) -> None:
    """Rows saved before accounts were recorded: the first account to claim a group gets
    it, concurrent claims never both win, and an account only claims its own groups."""
    for group in ("g1", "g2", "g3"):
        await store.save_live(group, "抓特务", {"g": group})
    assert await store.live_owners(["g1", "g2", "g3"]) == {"g1": None, "g2": None, "g3": None}
    assert await store.load_live(account="10001") == {}

    first, second = await asyncio.gather(store.claim_live("10001", ["g1", "g2"]),
                                         store.claim_live("10002", ["g2", "g3"]))
    assert sorted(first + second) == ["g1", "g2", "g3"]
    assert "g1" in first and "g3" in second
    owners = await store.live_owners(["g1", "g2", "g3"])
    assert owners["g1"] == "10001" and owners["g3"] == "10002"
    assert owners["g2"] == ("10001" if "g2" in first else "10002")
    assert await store.claim_live("10003") == []
    # An unowned row is adopted by the first account that saves it.
    await store.save_live("g4", "挖坑", {})
    await store.save_live("g4", "挖坑", {"x": 1}, account="10003")
    assert await store.live_owners(["g4"]) == {"g4": "10003"}


async def test_migration_0005_keeps_old_rows_without_account(db_url: str) -> None:
    """Upgrading a database of the single-account version keeps its live tables, with no
    account until one claims them."""
    config = alembic_config(db_url)
    await asyncio.to_thread(command.upgrade, config, "0002")
    old = Store(db_url)
    try:
        async with old.engine.begin() as conn:
            await conn.execute(
                text("INSERT INTO live_tables (group_id, game, state, updated_at) "
                     "VALUES ('g1', '抓特务', '{\"turn\": 5}', :now)"),
                {"now": utcnow()},
            )
        await old.migrate()
        assert await old.live_owners(["g1"]) == {"g1": None}
        assert await old.claim_live("10001") == ["g1"]
        assert await old.load_live(account="10001") == {"g1": ("抓特务", {"turn": 5})}
    finally:
        await old.close()
    await asyncio.to_thread(command.downgrade, config, "0002")


async def test_processes_starting_at_once_migrate_once(db_url: str) -> None:
    """Two bot processes starting together on one blank database: one migrates, the
    other waits and finds the schema at head."""
    stores = [Store(db_url), Store(db_url)]
    try:
        await asyncio.gather(*(s.migrate() for s in stores))
        assert await alembic_versions(stores[0]) == [head_revision(db_url)]
        assert await table_names(stores[1]) >= APP_TABLES
    finally:
        for s in stores:
            await s.close()


# --------------------------------------------------------------------------- accounts


async def test_an_account_is_held_by_one_store_at_a_time(store: Store, db_url: str) -> None:
    """Two processes on one database: while one holds an account the other cannot take
    it (another account it can); once let go, the other takes it. SQLite needs no lock
    (the file is one process's alone): always held."""
    other = Store(db_url)
    try:
        assert await store.hold_account("10001") and await store.hold_account("10001")
        exclusive = store.engine.dialect.name == "sqlite"
        assert await other.hold_account("10001") is exclusive
        assert await other.hold_account("10002")
        await store.release_account("10001")
        assert await other.hold_account("10001")
        assert await store.hold_account("10001") is exclusive
        assert other.holds() == (set() if exclusive else {"10001", "10002"})
    finally:
        await other.close()
    assert await store.hold_account("10001")  # closing a store lets its accounts go


async def test_migration_0007_keeps_every_record_as_qq_numbers(db_url: str) -> None:
    """A person is (scope, user id): upgrading a database written before scopes keeps
    every game and player row as the ``QQClient`` scope (QQ numbers), so the group's
    /战绩 and /排行 read the same afterwards; a row of another scope is another person."""
    from paizhuo_db.history import leaderboard, player_history

    config = alembic_config(db_url)
    await asyncio.to_thread(command.upgrade, config, "0006")
    old = Store(db_url)
    try:
        ended = datetime(2026, 11, 1, tzinfo=UTC)
        async with old.engine.begin() as conn:
            await conn.execute(text(
                "INSERT INTO game_records (uid, game, group_id, started_at, ended_at, settings, "
                "summary, group_seq) VALUES ('u1', '挖坑', 'g1', :t, :t, '{}', '{}', 1)"),
                {"t": ended})
            game_id = (await conn.execute(text("SELECT id FROM game_records"))).scalar()
            for seat, (user, result, points) in enumerate([("101", "win", 4), ("102", "loss", -2)]):
                await conn.execute(text(
                    "INSERT INTO player_records (game_id, group_id, game, user_id, seat, role, "
                    "place, result, points, ended_at) VALUES (:g, 'g1', '挖坑', :u, :s, '农民', "
                    "NULL, :r, :p, :t)"),
                    {"g": game_id, "u": user, "s": seat, "r": result, "p": points, "t": ended})
        await old.migrate()
        async with old.engine.connect() as conn:
            scopes = (await conn.execute(text(
                "SELECT DISTINCT scope FROM player_records UNION SELECT scope FROM game_records"
            ))).scalars().all()
        assert scopes == ["QQClient"]
        [stats] = await old.player_stats("g1", "101")
        assert (stats.game, stats.games, stats.wins, stats.points) == ("挖坑", 1, 1, 4)
        assert await old.player_stats("g1", "101", scope="QQAPI") == []
        board = await leaderboard(old, "g1", "挖坑", since=None, min_games=1, caller="101")
        assert [row.user_id for row in board.top] == ["101", "102"]
        assert (await player_history(old, "g1", "101")).recent
        assert (await player_history(old, "g1", "101", scope="QQAPI")).recent == []
    finally:
        await old.close()
    await asyncio.to_thread(command.downgrade, config, "0005")
