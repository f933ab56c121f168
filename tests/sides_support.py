"""The real bot against any simulated protocol side: the same test runs on OneBot v11,
Milky and Satori (``SIDES``), the side's fake dialled or dialling as the real one is
(``tools/onebot_sim.py``, ``tools/milky_sim.py``, ``tools/satori_sim.py``)."""

from __future__ import annotations

import asyncio
import re
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


def sender(entry: dict) -> int | None:
    """The QQ number of who sent a message the fake keeps in ``sim.messages`` (OneBot
    ``user_id``, Milky ``sender_id``, Satori ``user.id``)."""
    if "user_id" in entry:
        return int(entry["user_id"])
    if "sender_id" in entry:
        return int(entry["sender_id"])
    user = entry.get("user") or {}
    return int(user["id"]) if str(user.get("id", "")).isdigit() else None


def said_by(sim: ChatSim, people: set[int], besides: set) -> list:
    """The keys of the messages in ``sim.messages`` that ``people`` sent, not in
    ``besides`` (the keys seen before)."""
    return [key for key, entry in sim.messages.items()
            if key not in besides and sender(entry) in people]


async def reconnect(sim: ChatSim, bot: BotProcess, *, malformed: bool = False) -> None:
    """The connection breaks and comes back, the bot still running: OneBot's side closes
    its WebSocket and dials again; on Milky and Satori the stream drops (or, with
    ``malformed``, the side sends a frame that is not JSON, on which the adapter drops the
    stream itself) and the bot redials."""
    if not hasattr(sim, "drop"):  # OneBot: the side dials the bot
        if malformed:
            await sim.send_raw("{not json")  # the guarded adapter skips it: no drop
            return
        await sim.close()
        await sim.connect(bot.url, TOKEN)
        return
    before = sim.connections  # type: ignore[attr-defined]
    if malformed:
        await sim.send_raw("{not json")
    else:
        await sim.drop()  # type: ignore[attr-defined]
    for _ in range(200):
        if sim.connections > before and sim.connected:  # type: ignore[attr-defined]
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"the bot did not dial {sim.side} again")


def cards_accounted(sim: ChatSim, group: int, end_text: str, since: int = 0) -> dict[int, int]:
    """How many of each rank (0 = 3 … 14 = 大王) were played in ``group`` from message
    ``since`` on plus shown left in the end message: one deck when nothing was lost or
    played twice."""
    from tools.players import RANKS, ranks_of

    counts = {r: 0 for r in range(len(RANKS))}
    for sent in sim.sent[since:]:
        if sent.kind == "group" and sent.target == group:
            for line in sent.text.splitlines():
                m = re.match(r"^\S+ 出 (.+?)（[^）]+）(?:［.+］)?$", line)
                if m:
                    for r in ranks_of(m.group(1)):
                        counts[r] += 1
    for line in end_text.splitlines():
        if " 剩牌：" in line:
            for r in ranks_of(line.split("剩牌：", 1)[1]):
                counts[r] += 1
    return counts


DECK = {**{r: 4 for r in range(13)}, 13: 1, 14: 1}
"""One deck of 54, by rank."""


def is_picture(sent) -> bool:
    """Whether the bot sent a picture (OneBot / Milky ``image`` segment, Satori ``<img>``),
    also inside a merged forward."""

    def walk(items) -> bool:
        for item in items or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") in {"image", "img"}:
                return True
            data = item.get("data") or {}
            nested = (item.get("children") or data.get("messages") or
                      ([data["content"]] if isinstance(data.get("content"), list) else []))
            for node in nested:
                if walk(node.get("segments") if isinstance(node, dict) and "segments" in node
                        else node if isinstance(node, list) else [node]):
                    return True
        return False

    return walk(sent.segments)
