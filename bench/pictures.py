"""Pictures benchmark: ``python bench/pictures.py [--rounds 20] [--save DIR]``.

Draws every kind of picture the bot sends — the table (图片桌面) for 抓特务 4 人, 挖坑 and
手把一 6 人, the end-of-game details of each, the /战绩 card and the /排行 board — from
deterministic deals, with the font the bot would use (the packaged Noto Sans CJK unless
``PAIZHUO_FONT`` says otherwise). Prints, per kind: the wall and CPU milliseconds per
picture (median over ``--rounds``), the picture's size in pixels and bytes; then the
longest stall of an asyncio event loop (a 1 ms ticker) while pictures are drawn the way
the bot draws them (``pictures.draw``: in the drawing thread), against drawing them on the
loop itself. ``--save DIR`` writes one PNG per kind there to look at.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nonebot  # noqa: E402

nonebot.init(paizhuo_font=os.environ.get("PAIZHUO_FONT", ""), log_level="WARNING")

from nonebot_plugin_paizhuo import pictures, render  # noqa: E402
from nonebot_plugin_paizhuo.games import GAMES  # noqa: E402
from nonebot_plugin_paizhuo.games.base import SeatView  # noqa: E402
from nonebot_plugin_paizhuo.replay import capture  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402

NAMES = ["老王", "小李飞刀", "阿强🍀", "一个名字特别特别长的玩家", "电脑1", "Tom"]
SEATS = [SeatView(str(10000 + i), name) for i, name in enumerate(NAMES)]


def advance(adapter, game, seats, rng: random.Random, moves: int | None) -> None:
    """Play ``moves`` moves (every private answer by its default, every bid the highest),
    or to the end."""
    while not adapter.is_over(game) and (moves is None or moves > 0):
        if adapter.prompt_seconds(game):
            if getattr(game, "phase", "") == "declare":
                for seat in range(game.players):
                    with contextlib.suppress(MoveError):
                        adapter.answer(game, seats, seat, rng.choice(game.declare_choices()))
            if adapter.prompt_seconds(game):
                adapter.timeout(game, seats)
            continue
        seat = adapter.acting_seat(game)
        if getattr(game, "phase", "") == "bid":  # bid the most, so that someone digs
            adapter.act(game, seats, seat, "bid", str(max(game.bid_options(seat))))
            continue
        adapter.auto_move(game, seats, seat, "托管")
        if moves is not None:
            moves -= 1


def scenes() -> dict[str, tuple]:
    """``kind -> (drawer, argument)`` for every picture kind."""
    out: dict[str, tuple] = {}
    for name, size, seed, moves, chosen in (("抓特务", 4, 5, 9, {"show_counts": True}),
                                            ("挖坑", 3, 4, 7, {}), ("手把一", 6, 2, 8, {})):
        adapter = GAMES[name]
        settings = adapter.schema.clean(chosen)
        game = adapter.new_game(size, settings, seed, None)
        rng = random.Random(seed)
        advance(adapter, game, SEATS[:size], rng, moves)
        out[f"桌面 {name}{size}人"] = (render.draw_table,
                                     pictures.table_view(adapter, game, SEATS[:size]))
        advance(adapter, game, SEATS[:size], rng, None)
        end_text = adapter.end(game, SEATS[:size]).extract_plain_text()
        out[f"详情 {name}{size}人"] = (render.draw_details, pictures.details_view(
            adapter, game, SEATS[:size], 12, end_text, capture(game)))
    stats = ("老王 的战绩（本群）：\n抓特务：41 局，胜 22 平 3 负 16，积分 +17\n挖坑：12 局，胜 5 负 7，"
             "积分 -6\n手把一：8 局，胜 3 负 5，积分 +4\n当前：2 连胜；最长 6 连胜")
    out["战绩"] = (render.text_card, stats, [0, 2, 1, 3, -1, 2, 4, 7, 5, 9, 11, 10, 14, 17])
    board = ["【抓特务排行·总榜】（至少 3 局上榜）"] + [
        f"{i}. {NAMES[i % 6]}{i} {30 - 3 * i:+d}（{40 - i} 局，胜率 {60 - i}%）" for i in range(1, 11)]
    out["排行"] = (render.text_card, "\n".join(board + ["你：12. 老王 +1（9 局）"]))
    return out


def time_kinds(kinds: dict[str, tuple], rounds: int, save: Path | None) -> None:
    print("| 图片 | 墙钟 ms | CPU ms | 像素 | 字节 |")
    print("| --- | --- | --- | --- | --- |")
    for kind, (drawer, *args) in kinds.items():
        walls, cpus = [], []
        picture = drawer(*args)
        for _ in range(rounds):
            w0, c0 = time.perf_counter(), time.thread_time()
            picture = drawer(*args)
            cpus.append(time.thread_time() - c0)
            walls.append(time.perf_counter() - w0)
        print(f"| {kind} | {statistics.median(walls) * 1e3:.1f} | {statistics.median(cpus) * 1e3:.1f} | "
              f"{picture.size[0]}×{picture.size[1]} | {len(picture.data):,} |", flush=True)
        if save:
            (save / f"{kind.replace(' ', '_')}.png").write_bytes(picture.data)


_BLOCK = bytes(1 << 20)


def _burn(seconds: float) -> None:
    """Keep a core busy for ``seconds`` without the GIL (hashlib releases it)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        hashlib.sha256(_BLOCK).digest()


async def stall(kinds: dict[str, tuple], rounds: int, where: str) -> tuple[float, float, int]:
    """Longest and 99th-percentile lateness (ms) of a 1 ms ticker on the event loop, and
    its ticks, while every kind is drawn ``rounds`` times ``where``: ``thread`` (the
    drawing thread, as the bot does), ``loop`` (on the loop itself, as before), or
    ``none`` (nothing drawn for as long: what the machine alone costs the ticker), or
    ``burn`` (a thread as busy as the drawing thread in C code that never holds the GIL,
    hashing: what taking a core away from this process costs the ticker)."""
    late: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            late.append(time.perf_counter() - t - 0.001)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    for _ in range(rounds):
        for drawer, *args in kinds.values():
            if where == "thread":
                await pictures.draw(drawer, *args)
            elif where == "loop":
                drawer(*args)
                await asyncio.sleep(0)
            elif where == "burn":
                await asyncio.get_running_loop().run_in_executor(None, _burn, 0.03)
            else:
                await asyncio.sleep(0.03)
    stop.set()
    await task
    late.sort()
    return late[-1] * 1e3, late[int(len(late) * 0.99)] * 1e3, len(late)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="pictures drawn per kind")
    parser.add_argument("--save", type=Path, help="write one PNG per kind into this folder")
    ns = parser.parse_args()
    if not render.usable():
        sys.exit("no font: install the bot (pip install -e .) or set PAIZHUO_FONT")
    if ns.save:
        ns.save.mkdir(parents=True, exist_ok=True)
    print(f"font {render.font_path()}, {ns.rounds} pictures per kind")
    kinds = scenes()
    time_kinds(kinds, ns.rounds, ns.save)
    print("\n| 绘图在 | 事件循环最长停顿 | p99 停顿 | 1 ms 计时次数 |")
    print("| --- | --- | --- | --- |")
    for where, label in (("thread", "绘图线程（现在）"), ("none", "不绘图（本机底噪）"),
                         ("burn", "不持 GIL 的忙线程（占一核的代价）"), ("loop", "事件循环上（以前）")):
        worst, p99, ticks = asyncio.run(stall(kinds, max(1, ns.rounds // 4), where))
        print(f"| {label} | {worst:.1f} ms | {p99:.1f} ms | {ticks} |", flush=True)


if __name__ == "__main__":
    main()
