"""Send isolation and pacing benchmark: the real bot, the OneBot simulator, tables playing.

Simulated players sit at 3-player 抓特务 tables in several groups; each waits for the group
message that @-mentions it with ``轮到``, thinks ``--think`` seconds, and sends its move.
An *announcement latency* is the time from the move being posted to the bot's group
message answering it (as the simulator records it). Scenarios:

* ``baseline`` — ``--tables`` tables, nothing faulty;
* ``muted`` — the same plus one more group where every send fails (retcode 1200) while
  its members keep sending commands there (two a second);
* ``hang`` — the same, but the faulty group's sends are never answered;
* ``load`` — 20 tables, 5 s think time, default pacing (``--quick``: a shorter window).

Pacing is the bot's default (``PAIZHUO_SEND_RATE`` / ``PAIZHUO_SEND_BURST`` unset) unless ``--env`` says
otherwise; each send takes ``--api-delay`` seconds at the simulator (a real implementation
is not instant). Prints p50 / p99 of the other groups' announcement latency per scenario.

    python bench/send_isolation.py                 # all scenarios, 90 s windows
    python bench/send_isolation.py --quick         # shorter windows, fewer tables
    python bench/send_isolation.py --scenario load --env PAIZHUO_SEND_RATE=5
    python bench/send_isolation.py --root /path/to/other/checkout   # compare another version
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.onebot_sim import BotProcess, OneBotSim, Sent  # noqa: E402
from tools.players import RANKS, SimPlayer, hand_listener, ranks_of  # noqa: E402

TOKEN = "bench"
FAULTY = 79999


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class TableRun:
    """One group's table driven by its three simulated players."""

    def __init__(self, sim: OneBotSim, group: int, think: float, rng: random.Random) -> None:
        self.sim, self.group, self.think, self.rng = sim, group, think, rng
        base = group * 10
        self.players = [SimPlayer(base + i, f"P{group % 1000}-{i}") for i in range(3)]
        self.by_id = {p.user_id: p for p in self.players}
        self.latencies: list[tuple[float, float]] = []  # (when posted, latency)
        self.moves = 0
        self.games = 0
        for p in self.players:
            sim.add_member(group, p.user_id, p.name)
            sim.add_friend(p.user_id, p.name)

    def _mine(self, s: Sent) -> bool:
        return s.kind == "group" and s.target == self.group and s.ok

    async def _reply(self, since: int, timeout: float = 20.0) -> Sent | None:
        try:
            return await self.sim.wait_for(self._mine, since=since, timeout=timeout)
        except TimeoutError:
            return None

    async def open(self) -> None:
        self.sim.listeners.append(hand_listener(self.players, self.sim))
        since = self.sim.mark()
        await self.sim.group_message(self.group, self.players[0].user_id, "/开局 抓特务 三人")
        await self.sim.wait_for_text("开了一桌", kind="group", target=self.group, since=since, timeout=60)
        for p in self.players[1:]:
            since = self.sim.mark()
            await self.sim.group_message(self.group, p.user_id, "/加入")
            await self.sim.wait_for_text("入座", kind="group", target=self.group, since=since, timeout=60)

    async def play(self, until: float) -> None:
        cursor = 0
        while time.monotonic() < until:
            try:
                sent = await self.sim.wait_for(
                    lambda s: self._mine(s) and ("本局结束" in s.text or (
                        "轮到" in s.text and any(u in self.by_id for u in s.at))),
                    since=cursor, timeout=max(0.1, until - time.monotonic()))
            except TimeoutError:
                return
            cursor = self.sim.sent.index(sent) + 1
            if "本局结束" in sent.text:
                self.games += 1
                since = self.sim.mark()
                for p in self.players:
                    await self.sim.group_message(self.group, p.user_id, "/继续")
                cursor = since
                continue
            player = self.by_id[next(u for u in sent.at if u in self.by_id)]
            await asyncio.sleep(self.think * self.rng.uniform(0.8, 1.2))
            for _ in range(100):  # a paced account may send the prompt before the hand
                if player.hand:
                    break
                await asyncio.sleep(0.1)
            for command in player.candidates(sent.text)[:4]:
                mark = self.sim.mark()
                posted = time.time()
                await self.sim.group_message(self.group, player.user_id, command)
                answer = await self._reply(mark)
                if answer is None:
                    break
                if answer.at == [player.user_id] and "轮到 @" not in answer.text:
                    continue  # refused (a stale hand): try the next candidate
                self.latencies.append((posted, answer.time - posted))
                self.moves += 1
                if command.startswith("出 "):
                    for r in ranks_of_plain(command[2:]):
                        if r in player.hand:
                            player.hand.remove(r)
                break


def ranks_of_plain(text: str) -> list[int]:
    """Ranks of a rank-only card string like ``7710`` (the players' own commands)."""
    out, i = [], 0
    while i < len(text):
        for name in sorted(RANKS, key=len, reverse=True):
            if text.startswith(name, i):
                out.append(RANKS.index(name))
                i += len(name)
                break
        else:
            i += 1
    return out or ranks_of(text)


async def faulty_traffic(sim: OneBotSim, until: float) -> None:
    """Members of the faulty group keep asking for the table (each gets a reply)."""
    members = [FAULTY * 10 + i for i in range(3)]
    for m in members:
        sim.add_member(FAULTY, m, f"F{m % 10}")
        sim.add_friend(m)
    i = 0
    while time.monotonic() < until:
        await sim.group_message(FAULTY, members[i % 3], "/牌桌")
        i += 1
        await asyncio.sleep(0.5)


async def scenario(name: str, tables: int, think: float, window: float, warmup: float,
                   fault: str | None, env: dict[str, str], root: Path, api_delay: float,
                   seed: int) -> dict[str, float]:
    """Run one scenario; returns its figures."""
    tmp = Path(tempfile.mkdtemp(prefix=f"send-bench-{name}-"))
    bot = BotProcess(tmp / "bot.log", access_token=TOKEN, root=root, log_level="WARNING",
                     database_url=f"sqlite+aiosqlite:///{tmp / 'bot.db'}",
                     env={"PAIZHUO_DEAL_SEED": str(seed), **env})
    rng = random.Random(seed)
    async with bot:
        sim = OneBotSim(self_id=10001, api_delay=api_delay)
        runs = [TableRun(sim, 70001 + i, think, rng) for i in range(tables)]
        await sim.connect(bot.url, TOKEN)
        try:
            await asyncio.gather(*(r.open() for r in runs))
            start = time.monotonic()
            until = start + warmup + window
            tasks = [asyncio.create_task(r.play(until)) for r in runs]
            if fault is not None:
                (sim.fail_group if fault == "muted" else sim.hang_group).add(FAULTY)
                tasks.append(asyncio.create_task(faulty_traffic(sim, until)))
            await asyncio.gather(*tasks)
        finally:
            await sim.close()
    begin = time.time() - window - 0.5  # measured: the window after the warm-up
    samples = [lat for r in runs for posted, lat in r.latencies if posted >= begin]
    sends = [s for s in sim.sent if s.ok and s.time >= begin]
    return {
        "samples": len(samples),
        "p50": percentile(samples, 0.5) if samples else float("nan"),
        "p99": percentile(samples, 0.99) if samples else float("nan"),
        "mean": statistics.fmean(samples) if samples else float("nan"),
        "sends_per_s": len(sends) / window,
        "faulty_tries": sum(1 for s in sim.sent if s.target == FAULTY),
        "faulty_hung": len(sim.hung),
        "games": sum(r.games for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=["all", "baseline", "muted", "hang", "load"],
                        default="all")
    parser.add_argument("--tables", type=int, default=8, help="tables besides the faulty group")
    parser.add_argument("--think", type=float, default=2.0, help="think time, seconds")
    parser.add_argument("--window", type=float, default=90.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--api-delay", type=float, default=0.05)
    parser.add_argument("--quick", action="store_true", help="30 s windows")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose bot.py runs")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the bot")
    args = parser.parse_args()
    if args.quick:
        args.window = 30.0
    env = {"PAIZHUO_SEND_INTERVAL": "", "PAIZHUO_SEND_RATE": ""}  # the bot's default pacing
    if args.root.resolve() != ROOT:
        env = {"PAIZHUO_SEND_INTERVAL": "0.3"}  # another version's own default pacing
    env.update(dict(e.split("=", 1) for e in args.env))
    plan = {
        "baseline": (args.tables, args.think, None),
        "muted": (args.tables, args.think, "muted"),
        "hang": (args.tables, args.think, "hang"),
        "load": (20, 5.0, None),
    }
    chosen = list(plan) if args.scenario == "all" else [args.scenario]
    print(f"root={args.root} env={env} window={args.window:g}s api_delay={args.api_delay:g}s")
    print(f"{'scenario':<10}{'tables':>7}{'think':>6}{'moves':>7}{'p50 s':>8}{'p99 s':>8}"
          f"{'sends/s':>9}{'faulty tries':>13}")
    for name in chosen:
        tables, think, fault = plan[name]
        r = asyncio.run(scenario(name, tables, think, args.window, args.warmup, fault, env,
                                 args.root, args.api_delay, args.seed))
        tries = f"{r['faulty_tries']}+{r['faulty_hung']} hung" if fault else "-"
        print(f"{name:<10}{tables:>7}{think:>6g}{r['samples']:>7}{r['p50']:>8.2f}{r['p99']:>8.2f}"
              f"{r['sends_per_s']:>9.1f}{tries:>13}", flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
