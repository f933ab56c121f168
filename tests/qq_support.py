"""The real bot (``bot.py``) on the official QQ bot's side: the fake open platform
(``tools/qq_open_sim.py``) and people who play as a person would there — they link their
seat by messaging the bot privately and posting the code it gives them in the group, read
their hand and their turn in the private chat and tap its buttons, answer the private
questions by typing, and read the table in the group. Like ``tools/players.py`` they know
only what the bot says (their strategy: the first button the bot offers)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tools.onebot_sim import BotProcess
from tools.players import SimPlayer
from tools.qq_open_sim import QQOpenSim, Sent

GROUP = "g1"


def bot_for(sim: QQOpenSim, tmp: Path, env: dict[str, str] | None = None) -> BotProcess:
    """The real bot configured for the fake platform (not started): its database and its
    data directory (the seat links) under ``tmp``."""
    data = tmp / "data"
    return BotProcess(tmp / "bot.log", database_url=f"sqlite+aiosqlite:///{tmp / 'bot.db'}",
                      env={**sim.bot_env(), "PAIZHUO_COMPUTER_DELAY": "0.05",
                           "LOCALSTORE_PLUGIN_DATA_DIR": json.dumps(
                               {"nonebot_plugin_paizhuo": str(data)}),
                           **(env or {})})


@asynccontextmanager
async def running(sim: QQOpenSim, tmp: Path, env: dict[str, str] | None = None
                  ) -> AsyncIterator[BotProcess]:
    """The bot started and connected to the fake's gateway; stopped after (its log's tail
    printed)."""
    bot = bot_for(sim, tmp, env)
    await bot.start()
    try:
        await sim.wait_ready(timeout=30)
        yield bot
    finally:
        await bot.stop()
        print(bot.log_text()[-3000:])


@dataclass
class Person:
    """Someone in the group who plays through the private chat."""

    key: str
    sim: QQOpenSim
    me: SimPlayer = field(init=False)
    pressed: list[tuple[str, str]] = field(default_factory=list)
    """``(button label, the turn text it answered)`` of every press."""
    typed: list[str] = field(default_factory=list)
    active: bool = True
    """Taps and answers (cleared: the person reads but does nothing)."""
    _done: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.me = SimPlayer(0, self.key)
        self.sim.listeners.append(self._read)

    def _read(self, sent: Sent) -> None:
        if not (sent.ok and sent.kind == "c2c" and sent.target == self.key):
            return
        self.me.learn(sent)
        if not self.active:
            return
        answer = self.me.respond(sent)
        loop = asyncio.get_running_loop()
        if answer is not None:
            self.typed.append(answer)
            loop.create_task(self.sim.c2c_message(self.key, answer))
        elif "轮到你" in sent.text and sent.buttons() and id(sent) not in self._done:
            self._done.add(id(sent))
            loop.create_task(self._tap(sent))

    async def _tap(self, sent: Sent) -> None:
        await asyncio.sleep(0.02)
        if self.sim.sent[-1] is not sent and any(
                s.kind == "c2c" and s.target == self.key and s.ok and "轮到你" in s.text
                for s in self.sim.sent[self.sim.sent.index(sent) + 1:]):
            return  # a newer turn message came: tap that one
        label = sent.buttons()[0].label
        self.pressed.append((label, sent.text))
        await self.sim.press(self.key, sent, label)

    async def link(self, group: str = GROUP) -> None:
        """Message the bot privately, post the code it answers with in the group, and
        wait for the bot to confirm."""
        mark = self.sim.mark()
        await self.sim.c2c_message(self.key, "你好")
        code = await self.sim.wait_for(
            lambda s: s.kind == "c2c" and s.target == self.key and s.ok and "绑定" in s.text,
            since=mark, timeout=20)
        number = re.search(r"绑定 (\d{4})", code.text)
        assert number, code.text
        mark = self.sim.mark()
        await self.sim.group_message(group, self.key, f"绑定 {number.group(1)}")
        await self.sim.wait_for(lambda s: s.kind == "group" and "私聊已接上" in s.text
                                and self.key in s.at, since=mark, timeout=20)


def group_posts(sim: QQOpenSim, group: str = GROUP, since: int = 0) -> list[Sent]:
    """The bot's accepted posts in ``group`` from send ``since`` on."""
    return [s for s in sim.sent[since:] if s.kind == "group" and s.target == group and s.ok]


async def wait_end(sim: QQOpenSim, group: str = GROUP, since: int = 0,
                   timeout: float = 120.0) -> Sent:
    """The group post that ends the game."""
    return await sim.wait_for(lambda s: s.kind == "group" and s.target == group and s.ok
                              and "本局结束" in s.text, since=since, timeout=timeout)
