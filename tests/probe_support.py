"""The probe bot (``tests/e2e/probe_bot``) for the protocol fakes' tests: start it against
a fake, and read what it logged."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.onebot_sim import BotProcess
from tools.sim_base import ChatSim

PROBE_ROOT = Path(__file__).resolve().parent / "e2e" / "probe_bot"


class ProbeLog:
    """What the probe plugin wrote: one dict per line of ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> list[dict[str, Any]]:
        """Every entry so far."""
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def mark(self) -> int:
        """The number of entries so far: pass as ``since``."""
        return len(self.entries())

    async def wait(self, pred: Callable[[dict[str, Any]], bool], *, since: int = 0,
                   timeout: float = 10.0) -> dict[str, Any]:
        """The first entry at index ≥ ``since`` matching ``pred`` (polled)."""
        deadline = time.monotonic() + timeout
        while True:
            for entry in self.entries()[since:]:
                if pred(entry):
                    return entry
            if time.monotonic() > deadline:
                raise TimeoutError(f"no matching probe entry within {timeout}s; last ones: "
                                   f"{self.entries()[since:][-5:]}")
            await asyncio.sleep(0.05)

    async def sent(self, command: str, *, since: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        """The outcome of the probe's send for ``command``."""
        return await self.wait(lambda e: e["kind"] == "send" and e["cmd"] == command,
                               since=since, timeout=timeout)


def probe_process(sim: ChatSim, tmp: Path, *, token: str, env: dict[str, str] | None = None
                  ) -> tuple[BotProcess, ProbeLog]:
    """The probe bot configured to reach ``sim`` (not started) and its log."""
    log = ProbeLog(tmp / "probe.jsonl")
    proc = BotProcess(tmp / "probe.log", root=PROBE_ROOT, script="bot.py", log_level="INFO",
                      env={**sim.bot_env(token), "PROBE_ADAPTER": sim.side,
                           "PROBE_LOG": str(log.path), **(env or {})})
    return proc, log
