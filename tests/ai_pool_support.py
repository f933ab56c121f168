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


def answer_pass(state: dict, seat: int, seed: int, budget_ms: int):
    """A search that answers at once with 过 (普通 would play a card in the tests)."""
    from paizhuo_engine.ai.simple import PASS

    return PASS


def lowest_single(state: dict, seat: int, seed: int, budget_ms: int):
    """A search whose answer names the state it searched: the seat's lowest card id, as a
    single, in the hands of ``state``."""
    from paizhuo_engine.ai.simple import Action

    return Action("play", (min(state["hands"][seat]),))


def slow_pass(state: dict, seat: int, seed: int, budget_ms: int):
    """A search that takes a second of real time, then answers 过."""
    from paizhuo_engine.ai.simple import PASS

    time.sleep(1.0)
    return PASS


def bid_three_bury_highest(state: dict, seat: int, seed: int, budget_ms: int):
    """A search for 挖坑's decisions before play (W-2, W-3) that 普通 would not take: bid 3,
    bury the seat's four highest card ids; in play, 普通 decides (no action)."""
    if state.get("phase") == "bid":
        return 3
    if state.get("phase") == "bury":
        return tuple(sorted(state["hands"][seat])[-4:])
    return None


def raise_error(state: dict, seat: int, seed: int, budget_ms: int):
    """A search with a bug: it raises (the worker process itself is fine)."""
    raise ValueError("a search bug")


def slow_quick(state: dict, seat: int, seed: int, budget_ms: int):
    """The real search with two sampled deals, after half a second of real time."""
    time.sleep(0.5)
    return quick(state, seat, seed, budget_ms)


def slow_hidden(state: dict, seat: int, seed: int, budget_ms: int):
    """A search for 抓特务's 明 / 暗 (Z-9) that takes a second of real time, then answers
    暗; in play it answers at once with nothing (普通 decides)."""
    if state.get("phase") != "declare":
        return None
    time.sleep(1.0)
    return "暗"
