"""What a healthy send costs after many failed conversations:
``python bench/scheduler_state.py [--failed 10000] [--sends 2000]``.

A send scheduler with no pacing on the real event loop; ``--failed`` private chats whose
send fails (users who blocked the bot) are tried once each, then ``--sends`` messages to
healthy conversations go out one after another. Prints the conversations the scheduler
still holds and the mean time per healthy send (submit to sent), beside the same with
no failures before.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# The scheduler module alone (it needs nothing of NoneBot; the plugin package would).
_path = Path(__file__).resolve().parent.parent / "plugins" / "paizhuo" / "send_queue.py"
_spec = importlib.util.spec_from_file_location("paizhuo_scheduler", _path)
assert _spec is not None and _spec.loader is not None
scheduler = importlib.util.module_from_spec(_spec)
sys.modules["paizhuo_scheduler"] = scheduler
_spec.loader.exec_module(scheduler)
SendScheduler = scheduler.SendScheduler


@dataclass
class Msg:
    kind: str
    target: str
    coalesce: str | None = None


async def send(msg: Msg) -> None:
    if msg.target.startswith("blocked"):
        raise RuntimeError("ActionFailed retcode=1200")


async def measure(failed: int, sends: int) -> tuple[int, float]:
    sched = SendScheduler(send)
    for u in range(failed):
        await sched.submit(Msg("private", f"blocked{u}"))
    held = len(sched._convs) + len(getattr(sched, "_resting", ()))
    start = time.perf_counter()
    for i in range(sends):
        await sched.submit(Msg("group", f"g{i % 20}"))
    per_send = (time.perf_counter() - start) / sends
    await sched.stop()
    return held, per_send


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--failed", type=int, default=10_000)
    parser.add_argument("--sends", type=int, default=2000)
    ns = parser.parse_args()
    logging.getLogger("paizhuo_scheduler").setLevel(logging.ERROR)
    for failed in (0, ns.failed):
        held, per_send = asyncio.run(measure(failed, ns.sends))
        print(f"failed conversations before: {failed:>6}  held by the scheduler: {held:>6}  "
              f"per healthy send: {per_send * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
