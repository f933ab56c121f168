"""Worker functions for the search pool tests: importable in a spawned process (no bot)."""

from __future__ import annotations

import time


def hang(state: dict, seat: int, seed: int, budget_ms: int):
    """A search that never answers in time (a hung worker)."""
    time.sleep(30)
    raise AssertionError("not reached")


def quick(state: dict, seat: int, seed: int, budget_ms: int):
    """The real search with two sampled deals (a cheap answer)."""
    from paizhuo_engine.ai.search import search_decide

    return search_decide(state, seat, seed, 2)
