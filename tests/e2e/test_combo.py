"""Where features meet: a randomized, stateful run of the real bot over its simulator
(``tools/combo.py``) — several groups and people, every game, computer seats, history,
settings, pictures, media calls that fail or hang, duplicated events, kill -9 and restarts,
and on PostgreSQL an account moving between two processes — checking after every step that
every command is answered, nothing hidden reaches a group (G-4), what was announced was
saved, and every finished game has one record and a working ``/对局 N``.

A fixed-seed slice runs here on every protocol side; ``python tools/combo.py --seeds 20
--steps 400 [--side milky|satori]`` (or ``pytest -m soak``) runs longer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.combo import Combo

pytestmark = pytest.mark.once
"""The slices run in one pass of .ci/run: each kind of command they send is also tested,
shorter, on both NoneBot versions and both ways of dispatching; their own subject, the
features behind the dispatch meeting (the plugin, the store, restarts), is the same on
either."""


@pytest.mark.parametrize("side", ["onebot", "milky", "satori"])
@pytest.mark.parametrize("seed", [12])
async def test_features_meet_sqlite(tmp_path: Path, seed: int, side: str) -> None:
    """The same slice on every protocol side (OneBot v11, Milky, Satori): duplicated
    deliveries, hung and failing pictures and forwards, a kill -9 and restart."""
    report = await Combo(tmp_path, seed, side=side).run(70)
    assert report.steps == 70
    assert report.commands >= 35 and report.moves >= 10
    assert report.duplicates >= 1 and report.restarts >= 1 and report.media_faults >= 1


async def test_features_meet_postgres_account_moves(tmp_path: Path) -> None:
    from pg_support import fresh_pg_url

    url = await fresh_pg_url()
    report = await Combo(tmp_path, 24, pg_url=url).run(60)
    assert report.steps == 60
    assert report.commands >= 30 and report.restarts >= 1 and report.moves_of_account >= 1


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(100, 110))
async def test_features_meet_long(tmp_path: Path, seed: int) -> None:
    report = await Combo(tmp_path, seed).run(400)
    assert report.games_finished >= 1
