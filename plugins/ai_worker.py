"""What runs in 困难's worker processes (:mod:`plugins.paizhuo.ai_turn`). Kept outside the
``plugins.paizhuo`` package: a spawned worker imports only this and the engine, never the
bot (whose import needs a running NoneBot)."""

from __future__ import annotations

import time

from engine.ai.search import search_decide
from engine.strategy import Action

SAMPLES_CAP = 64
"""困难 plays at most this many sampled deals per candidate, whatever the budget."""


def worker_search(state: dict, seat: int, seed: int, budget_ms: int) -> Action:
    """:func:`engine.ai.search.search_decide` on ``state`` until 80% of ``budget_ms`` is
    spent (the clock is read here, not in the engine)."""
    deadline = time.monotonic() + budget_ms * 0.8 / 1000

    def stop() -> bool:
        return time.monotonic() >= deadline

    try:
        return search_decide(state, seat, seed, SAMPLES_CAP, stop)
    except StopIteration as err:  # cannot cross into an asyncio future as it is
        raise RuntimeError("search failed") from err


def warm() -> int:
    """A no-op that makes a new worker import the engine before the first search."""
    return 0
