"""Where a play's time goes: ``python bench/stages.py [--tables 20] [--think 0]
[--moves 600] [--loop auto|asyncio]``.

Runs ``bench/load.py``'s measurement (the real bot over the simulator's reverse WebSocket,
K tables of simulated players, the echo floor interleaved) with the probed bot
``bench/stages_bot.py``, then prints, for the plays and for the echo commands, the p50
and mean of each stage inside the bot: frame parsed → NoneBot's ``handle_event`` → event
preprocessors done → the plugin's first dispatcher rule (plays) / the echo's matcher run
→ the move handler → the save → the hand-over to the send scheduler → the
``send_group_msg`` call. With ``--loop asyncio`` (asyncio's own loop instead of uvloop:
slower, but countable) it also counts the event loop iterations from the frame to the
send call, best read on a quiet bot (``--tables 1 --think 0.2``): under load every task
switch waits behind the other tables' work, so the fewer iterations a play needs, the
less it waits. Figures go in docs/benchmarks.md (多桌负载).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import load  # noqa: E402

MOVE_STAGES = [("收到帧 → handle_event", "rx", "he"), ("→ 事件预处理完", "he", "pre1"),
               ("→ 本插件的规则", "pre1", "cand"), ("→ 出牌处理函数", "cand", "move"),
               ("→ 存档开始", "move", "save0"), ("存档", "save0", "save1"),
               ("→ 交给发送调度器", "save1", "submit"), ("→ 调 send_group_msg", "submit", "send")]
ECHO_STAGES = [("收到帧 → handle_event", "rx", "he"), ("→ 事件预处理完", "he", "pre1"),
               ("→ echo 开始运行", "pre1", "run"), ("→ 调 send_msg", "run", "call")]


def analyse(data: dict) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[int]]]:
    """Stage durations (seconds) of the plays and of the echo commands, and loop iterations
    from the frame to the send (``--loop asyncio`` only)."""
    sent: dict[object, list[tuple[float, int]]] = defaultdict(list)
    for when, api, target, it in data["sends"]:
        if api in ("send_group_msg", "send_msg"):
            sent[target].append((when, it))
    for times in sent.values():
        times.sort()
    moves: dict[str, list[float]] = defaultdict(list)
    echoes: dict[str, list[float]] = defaultdict(list)
    iters: dict[str, list[int]] = defaultdict(list)
    for rec in data["records"]:
        times = sent.get(rec.get("group"), [])
        i = bisect.bisect_left(times, (rec["rx"], -1))
        if i == len(times):
            continue
        rec["send"], rec["send_iter"] = times[i]
        if "/echo" in rec["text"]:
            stages, into, kind = ECHO_STAGES, echoes, "echo"
        elif "move" in rec and "save1" in rec:
            stages, into, kind = MOVE_STAGES, moves, "play"
        else:
            continue
        if not all(a in rec and b in rec for _, a, b in stages):
            continue
        for name, a, b in stages:
            into[name].append(rec[b] - rec[a])
        into["合计"].append(rec["send"] - rec["rx"])
        if rec.get("iters"):
            iters[kind].append(rec["send_iter"] - rec["rx_iter"])
    return moves, echoes, iters


def ms(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values) * 1e3:.2f} / {statistics.mean(values) * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--loop", choices=["auto", "asyncio"], default="auto")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stages.json"
        result = asyncio.run(load.run(ns.tables, max(ns.moves, 3 * ns.tables), False, ns.think,
                                      script="bench/stages_bot.py",
                                      extra_env={"PAIZHUO_STAGES_OUT": str(out),
                                                 "PAIZHUO_STAGES_LOOP": ns.loop,
                                                 # the probes time the fast dispatcher
                                                 "PAIZHUO_FAST_DISPATCH": "true"}))
        data = json.loads(out.read_text())
    moves, echoes, iters = analyse(data)
    print(f"{ns.tables} 桌，思考 {ns.think} 秒，循环 {ns.loop}；播报 p50 {result['p50'] * 1e3:.1f} ms，"
          f"地板 p50 {result['floor_p50'] * 1e3:.1f} ms；出牌 {len(moves['合计'])} 步，echo "
          f"{len(echoes['合计'])} 次")
    print("| 出牌的一段 | p50 / 平均 | | echo 的一段 | p50 / 平均 |")
    print("| --- | --- | --- | --- | --- |")
    rows = max(len(MOVE_STAGES), len(ECHO_STAGES)) + 1
    move_names = [n for n, _, _ in MOVE_STAGES] + ["合计"]
    echo_names = [n for n, _, _ in ECHO_STAGES] + ["合计"]
    for i in range(rows):
        left = move_names[i] if i < len(move_names) else ""
        right = echo_names[i] if i < len(echo_names) - 1 else ("合计" if i == rows - 1 else "")
        print(f"| {left} | {ms(moves[left]) if left else ''} | | {right} | "
              f"{ms(echoes[right]) if right else ''} |")
    if iters:
        for kind in ("play", "echo"):
            values = iters.get(kind, [])
            if values:
                print(f"{'出牌' if kind == 'play' else 'echo'}：从收到帧到调发送，事件循环 "
                      f"p50 {statistics.median(values):.0f} 轮（最少 {min(values)}，最多 {max(values)}）")


if __name__ == "__main__":
    main()
