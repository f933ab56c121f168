"""A fake clock for the send scheduler's tests: time only moves when the test moves it."""

from __future__ import annotations

import asyncio
import heapq
import itertools


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


async def settle() -> None:
    for _ in range(30):
        await asyncio.sleep(0)
