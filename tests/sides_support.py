"""The real bot against any simulated protocol side: the same test runs on OneBot v11,
Milky and Satori (``SIDES``), the side's fake dialled or dialling as the real one is
(``tools/onebot_sim.py``, ``tools/milky_sim.py``, ``tools/satori_sim.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tools.milky_sim import MilkySim
from tools.onebot_sim import BotProcess, OneBotSim
from tools.satori_sim import SatoriSim
from tools.sim_base import ChatSim

SIDES = ["onebot", "milky", "satori"]
"""Every protocol side the bot serves (the ids of the parametrized tests)."""
TOKEN = "sides-token"
SIMS: dict[str, type[ChatSim]] = {"onebot": OneBotSim, "milky": MilkySim, "satori": SatoriSim}


def make_sim(side: str, self_id: int = 10001) -> ChatSim:
    """A fake of ``side`` for the account ``self_id`` (not connected)."""
    return SIMS[side](self_id=self_id)


def bot_for(sim: ChatSim, tmp: Path, *, database_url: str | None = None,
            env: dict[str, str] | None = None, **kwargs) -> BotProcess:
    """The real bot configured to reach ``sim`` (not started)."""
    db = database_url or f"sqlite+aiosqlite:///{tmp / 'bot.db'}"
    return BotProcess(tmp / "bot.log", access_token=TOKEN, database_url=db,
                      env={**sim.bot_env(TOKEN), **(env or {})}, **kwargs)


@asynccontextmanager
async def running(sim: ChatSim, tmp: Path, **kwargs) -> AsyncIterator[BotProcess]:
    """The bot started for ``sim`` and connected to it; stopped (and the side stopped)
    after."""
    bot = bot_for(sim, tmp, **kwargs)
    async with bot:
        await sim.connect(bot.url, TOKEN)
        try:
            yield bot
        finally:
            if hasattr(sim, "stop"):
                await sim.stop()
            else:
                await sim.close()
