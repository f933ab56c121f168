"""Alembic environment for the 牌桌 bot database (async engines).

Two ways in:

* :meth:`paizhuo_db.store.Store.migrate` puts a live *sync* connection (obtained through
  ``AsyncConnection.run_sync``) into ``config.attributes["connection"]``; migrations run
  on it directly, so this works from inside a running event loop.
* Otherwise (e.g. ``alembic.command.upgrade(paizhuo_db.store.alembic_config(url), "head")`` from
  a thread without a running loop) an async engine is built from ``sqlalchemy.url``
  and driven with :func:`asyncio.run`.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection

from paizhuo_db.connection import make_engine
from paizhuo_db.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("alembic config has no sqlalchemy.url")
    return url


def run_migrations_offline() -> None:
    """Emit SQL to stdout instead of running it (``alembic upgrade --sql``)."""
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    """Run the migrations on an open sync connection."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    """Create a throw-away async engine from the config URL and migrate with it."""
    engine = make_engine(_url(), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    """Migrate on the connection handed in by the caller, or on a fresh engine."""
    connection = config.attributes.get("connection")
    if connection is None:
        asyncio.run(run_async_migrations())
    else:
        do_run_migrations(connection)


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
