"""Pictures that hang, against the same game without pictures:
``python bench/media_hang.py [--moves 60] [--think 1] [--checkout DIR]``.

Starts the real bot (``bot.py``, a fresh SQLite file, the shipped send pacing: 1 message a
second, bursts of 3) and the OneBot simulator over the real reverse WebSocket, and plays
one 3-player 抓特务 table with simulated players (the same deals from the same seed, the
same moves) three times:

* ``off`` — pictures off (``PAIZHUO_IMAGES=false``);
* ``hang`` — pictures on with 图片桌面 (a table picture after every move) while the OneBot
  side never answers a picture or a merged-forward message (``hang_media``);
* ``on`` — the same pictures, answered (for reference).

For every accepted move it measures the time from the player's message to the group post
announcing it, and prints p50 / p90 / mean per run and each run's ratio to ``off``, with
the media calls that hung and the pictures sent. ``--think`` is the players' think time
before each move (seconds), ``--rate`` another pacing (messages a second).
``--checkout DIR`` runs the bot from another source tree
(its ``bot.py`` and ``src/``, e.g. an older commit exported with ``git archive``), side
by side in the same run."""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.onebot_sim import BotProcess, OneBotSim, Sent  # noqa: E402
from tools.players import SimPlayer, attach  # noqa: E402

TOKEN = "media-hang"
GROUP = 640_001
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
"""A font file to draw with when the one installed with the bot is not found (any font
makes the bot draw; the Chinese may come out as boxes)."""


class Inbox:
    """Every group post with its arrival time; pictures counted."""

    def __init__(self) -> None:
        self.posts: asyncio.Queue[tuple[float, Sent]] = asyncio.Queue()
        self.pictures = 0

    def __call__(self, sent: Sent) -> None:
        if any(seg.get("type") == "image" for seg in sent.segments):
            self.pictures += 1
        elif sent.kind == "group" and sent.target == GROUP:
            self.posts.put_nowait((time.perf_counter(), sent))


def announces(post: Sent, player: SimPlayer) -> bool:
    """Whether ``post`` announces a move of ``player`` (a line ``<name> 出 …`` / ``<name> 过``)."""
    return re.search(rf"^{re.escape(player.name)} (出 |过)", post.text, re.M) is not None


def refuses(post: Sent, player: SimPlayer) -> bool:
    return post.at == [player.user_id] and "轮到 @" not in post.text


async def play(sim: OneBotSim, inbox: Inbox, players: list[SimPlayer], moves: int,
               think: float, timeout: float) -> list[float]:
    """Open the table, play until ``moves`` moves were announced (games in a row); the
    latency of each."""
    ids = {p.user_id: p for p in players}
    for p, command in zip(players, ["/开局 抓特务 三人", "/加入", "/加入"], strict=True):
        since = sim.mark()
        await sim.group_message(GROUP, p.user_id, command)
        await sim.wait_for_text("开了一桌" if p is players[0] else "入座", kind="group",
                                since=since, timeout=timeout)
    latencies: list[float] = []
    prompt: Sent | None = None
    while len(latencies) < moves:
        if prompt is None:
            _, post = await asyncio.wait_for(inbox.posts.get(), timeout)
            if "本局结束" in post.text:
                for p in players:
                    await sim.group_message(GROUP, p.user_id, "/继续")
                continue
            if "轮到 @" not in post.text or not [u for u in post.at if u in ids]:
                continue
            prompt = post
        player = ids[[u for u in prompt.at if u in ids][-1]]
        text, prompt = prompt.text, None
        await asyncio.sleep(think)
        for _ in range(int(timeout / 0.05)):  # its hand (a private message, paced) first
            if player.hand:
                break
            await asyncio.sleep(0.05)
        for command in player.candidates(text):
            t0 = time.perf_counter()
            await sim.group_message(GROUP, player.user_id, command)
            while True:  # the table's text after an earlier move may come first
                t1, post = await asyncio.wait_for(inbox.posts.get(), timeout)
                if announces(post, player) or refuses(post, player):
                    break
            if refuses(post, player):
                continue
            latencies.append(t1 - t0)
            if "本局结束" in post.text:
                for p in players:
                    await sim.group_message(GROUP, p.user_id, "/继续")
            elif "轮到 @" in post.text:
                prompt = post
            break
    return latencies


async def run(mode: str, moves: int, think: float, checkout: Path | None,
              rate: float | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"LOG_LEVEL": "WARNING", "PAIZHUO_DEAL_SEED": "11",
               "PAIZHUO_IMAGES": "false" if mode == "off" else "true"}
        if mode != "off" and FONT.is_file():
            env["PAIZHUO_FONT"] = str(FONT)
        if rate is not None:
            env["PAIZHUO_SEND_RATE"] = f"{rate:g}"
        root = checkout or ROOT
        if checkout is not None:
            env["PYTHONPATH"] = f"{checkout / 'src'}:{checkout}"
        bot = BotProcess(Path(tmp) / "bot.log", access_token=TOKEN, env=env, root=root,
                         database_url=f"sqlite+aiosqlite:///{tmp}/bench.db")
        # BotProcess lowers the pacing for tests; measure the bot's own default.
        base = bot.build_env
        bot.build_env = lambda: {k: v for k, v in base().items()  # type: ignore[method-assign]
                                 if k != "PAIZHUO_SEND_INTERVAL"
                                 and (k != "PAIZHUO_SEND_RATE" or rate is not None)}
        async with bot:
            sim = OneBotSim(self_id=10001)
            inbox = Inbox()
            sim.listeners.append(inbox)
            players = [SimPlayer(6_400_001 + i, f"玩家{i}") for i in range(3)]
            for p in players:
                sim.add_member(GROUP, p.user_id, p.name,
                               role="admin" if p is players[0] else "member")
                sim.add_friend(p.user_id, p.name)
            attach(sim, players)
            await sim.connect(bot.url, TOKEN)
            if mode != "off":
                await sim.group_message(GROUP, players[0].user_id, "/设置 抓特务 图片桌面 开")
                await asyncio.wait_for(inbox.posts.get(), 30)
            sim.hang_media = mode == "hang"
            latencies = await play(sim, inbox, players, moves, think, timeout=60)
            hung = len(sim.hung)
            await sim.close()
    return {"moves": len(latencies), "p50": statistics.median(latencies),
            "p90": sorted(latencies)[int(0.9 * (len(latencies) - 1))],
            "mean": statistics.fmean(latencies), "max": max(latencies), "hung": hung,
            "pictures": inbox.pictures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=60, help="announced moves per run")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each move")
    parser.add_argument("--checkout", type=Path, default=None,
                        help="also run 'hang' with the bot from this source tree")
    parser.add_argument("--modes", nargs="+", default=["off", "hang", "on"])
    parser.add_argument("--rate", type=float, default=None,
                        help="messages a second (PAIZHUO_SEND_RATE); default: the shipped pacing")
    ns = parser.parse_args()
    pacing = "shipped pacing (1/s, burst 3)" if ns.rate is None else f"{ns.rate:g} messages/s"
    print(f"{ns.moves} moves per run, think {ns.think} s, {pacing}, call timeout 5 s")
    print("| 运行 | 步数 | p50 | p90 | 平均 | 最长 | p50 / off | 平均 / off | 挂住的调用 | 图片 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    runs = [(mode, None) for mode in ns.modes]
    if ns.checkout is not None:
        runs.append(("hang", ns.checkout))
    off: dict | None = None
    for mode, checkout in runs:
        r = asyncio.run(run(mode, ns.moves, ns.think, checkout, ns.rate))
        if mode == "off" and checkout is None:
            off = r
        label = mode if checkout is None else f"{mode}（{checkout.name}）"
        ratio = f"{r['p50'] / off['p50']:.2f}×" if off else "—"
        mean_ratio = f"{r['mean'] / off['mean']:.2f}×" if off else "—"
        print(f"| {label} | {r['moves']} | {r['p50']:.2f} s | {r['p90']:.2f} s | "
              f"{r['mean']:.2f} s | {r['max']:.2f} s | {ratio} | {mean_ratio} | {r['hung']} | "
              f"{r['pictures']} |", flush=True)


if __name__ == "__main__":
    main()
