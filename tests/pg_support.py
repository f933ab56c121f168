"""PostgreSQL for the tests: the throw-away server ``.ci/run`` starts
(``tools/pg_test_server.sh``) is named by ``PAIZHUO_TEST_PG_URL``; without it the
PostgreSQL variants of the tests are skipped (CI always sets it)."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import pool, text
from sqlalchemy.ext.asyncio import create_async_engine

PG_ENV = "PAIZHUO_TEST_PG_URL"


def pg_url() -> str:
    """The test server's URL; skips the test when none is configured."""
    url = os.environ.get(PG_ENV, "")
    if not url:
        pytest.skip(f"{PG_ENV} is not set (tools/pg_test_server.sh starts a server)")
    return url


async def fresh_pg_url() -> str:
    """The test server's URL with an empty ``public`` schema (no tables, no alembic
    version): every test starts from a blank database."""
    url = pg_url()
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()
    return url
