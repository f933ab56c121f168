"""Fake clocks: :class:`FakeClock` for the send scheduler's tests, :class:`SteppedClock` for the
tables' deadlines (``nonebot_plugin_paizhuo.tables.use_clock``); time only moves when the test
moves it."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import UTC, datetime, timedelta


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it; sleepers wake in order."""

    def __init__(self) -> None:
        self.t = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._n = itertools.count()

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.t + seconds, next(self._n), fut))
        await fut

    async def advance(self, seconds: float, step: float = 0.01) -> None:
        """Move time forward by ``seconds`` in ``step``s, letting every task run between."""
        end = self.t + seconds
        while True:
            await settle()
            if self._sleepers and self._sleepers[0][0] <= min(end, self.t + step):
                wake, _, fut = heapq.heappop(self._sleepers)
                self.t = max(self.t, wake)
                if not fut.done():
                    fut.set_result(None)
                continue
            if self.t >= end:
                break
            self.t = min(end, self.t + step)
        await settle()


async def settle(rounds: int = 30) -> None:
    """Let every ready task run ``rounds`` times."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class SteppedClock:
    """Monotonic time that stands still until :meth:`advance`; a wall clock that
    :meth:`advance` moves along and :meth:`step` moves alone."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.wall_at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._n = itertools.count()

    def wall(self) -> datetime:
        return self.wall_at

    def mono(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.t + max(0.0, seconds), next(self._n), fut))
        await fut

    def step(self, delta: timedelta) -> None:
        """The wall clock jumps; the monotonic clock does not."""
        self.wall_at += delta

    async def advance(self, seconds: float) -> None:
        """Both clocks move ``seconds`` forward; every sleeper due wakes, in order, and
        the tasks it starts run."""
        end = self.t + seconds
        while True:
            await settle(50)
            if self._sleepers and self._sleepers[0][0] <= end:
                wake, _, fut = heapq.heappop(self._sleepers)
                self.wall_at += timedelta(seconds=max(0.0, wake - self.t))
                self.t = max(self.t, wake)
                if not fut.done():
                    fut.set_result(None)
                continue
            break
        self.wall_at += timedelta(seconds=end - self.t)
        self.t = end
        await settle(50)

