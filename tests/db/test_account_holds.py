"""What the store does when PostgreSQL goes away under it, against real servers: a
server restarted under a running store costs no write (its pooled connections are
checked before use)."""

from __future__ import annotations

import asyncio

from pg_support import own_server

from paizhuo_db import Store


async def test_a_restarted_server_costs_no_write() -> None:
    """The pool holds connections the server ended when it restarted: the first write
    after the restart (and every one after it) goes through, none fails."""
    async with own_server() as server:
        store = Store(server.url)
        try:
            await store.migrate()
            # Several connections in the pool, each used once.
            await asyncio.gather(*(store.save_live(f"g{i}", "抓特务", {"n": i}, account="10001")
                                   for i in range(4)))
            await server.restart()
            for i in range(4):
                await store.save_live(f"g{i}", "抓特务", {"n": i + 10}, account="10001")
            live = await store.load_live(account="10001")
            assert {g: state["n"] for g, (_game, state) in live.items()} == {
                f"g{i}": i + 10 for i in range(4)}
        finally:
            await store.close()
