"""PostgreSQL for the tests: the throw-away server ``.ci/run`` starts
(``tools/pg_test_server.sh``) is named by ``PAIZHUO_TEST_PG_URL``; without it the
PostgreSQL variants of the tests are skipped (CI always sets it)."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import make_url, pool, text
from sqlalchemy.ext.asyncio import create_async_engine

PG_ENV = "PAIZHUO_TEST_PG_URL"


def pg_url() -> str:
    """The test server's URL; skips the test when none is configured."""
    url = os.environ.get(PG_ENV, "")
    if not url:
        pytest.skip(f"{PG_ENV} is not set (tools/pg_test_server.sh starts a server)")
    return url


async def _worker_database(url: str) -> str:
    """Under pytest-xdist: a database of this worker's own on the test server (created on
    first use), so tests on different workers never reset each other's schema; the server
    URL itself otherwise."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker:
        return url
    base = make_url(url)
    name = f"{base.database or 'postgres'}_{worker}"
    engine = create_async_engine(url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            exists = await conn.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"),
                                       {"n": name})
            if not exists:
                await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await engine.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


async def fresh_pg_url() -> str:
    """The test server's URL (under pytest-xdist: this worker's database on it) with an
    empty ``public`` schema (no tables, no alembic version): every test starts from a
    blank database."""
    url = await _worker_database(pg_url())
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()
    return url
