"""PostgreSQL for the tests: the throw-away server ``.ci/run`` starts
(``tools/pg_test_server.sh``) is named by ``PAIZHUO_TEST_PG_URL``; without it the
PostgreSQL variants of the tests are skipped (CI always sets it)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

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


SERVER_SCRIPT = Path(__file__).resolve().parents[1] / "tools" / "pg_test_server.sh"


class OwnServer:
    """A PostgreSQL server of a test's own (``tools/pg_test_server.sh`` in ``directory``),
    for the tests that stop and start the server under a running bot; skipped where the
    PostgreSQL tests are (``PAIZHUO_TEST_PG_URL`` unset: no server binaries to count on).
    ``url`` once :meth:`start` returned."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.url = ""

    async def _run(self, command: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            "bash", str(SERVER_SCRIPT), command, str(self.directory),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        if proc.returncode:
            raise RuntimeError(f"pg_test_server.sh {command} failed: {err.decode()[-2000:]}")
        return out.decode()

    async def start(self) -> str:
        """Start the server; returns its URL (``postgresql+asyncpg://…``)."""
        pg_url()  # skips without the PostgreSQL tests
        out = await self._run("start")
        self.url = out.strip().split("=", 1)[1].strip("'\"")
        return self.url

    async def down(self) -> None:
        """Stop the server (fast shutdown: every session is ended); its data stays."""
        await self._run("down")

    async def up(self) -> None:
        """Start the stopped server again (same port, same data)."""
        await self._run("up")

    async def restart(self) -> None:
        """:meth:`down`, then :meth:`up`."""
        await self.down()
        await self.up()

    async def stop(self) -> None:
        """Stop the server and remove its directory."""
        await self._run("stop")


@contextlib.asynccontextmanager
async def own_server() -> AsyncIterator[OwnServer]:
    """A started :class:`OwnServer` in a fresh directory under the temporary directory
    (the server's user must reach it), stopped and removed afterwards."""
    server = OwnServer(Path(tempfile.mkdtemp(prefix="paizhuo-pg-own-")))
    try:
        await server.start()
        yield server
    finally:
        await server.stop()
