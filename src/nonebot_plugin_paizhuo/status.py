"""``/牌桌 状态``: the account's sending state for the group's admins and the superusers —
the plugin's version, its live tables, the send rate in force (slowed down while throttled, 风控), the queue
and the recent failed or timed-out sends."""

from __future__ import annotations

import asyncio
import math

from .send_queue import SendScheduler
from .tables import REGISTRY
from .version import __version__

RECENT = 300.0
"""Failures of the last this many seconds are shown."""

DENIED = "只有群主、管理员和机器人主人可以查看 /牌桌 状态。"


def _rate(rate: float) -> str:
    return "不限" if math.isinf(rate) else f"每秒 {rate:.3g} 条"


def _tasks() -> int:
    """Tasks alive in this process's event loop (timers, sends, pauses): a number that
    must not keep growing while the bot runs."""
    try:
        return len(asyncio.all_tasks())
    except RuntimeError:  # no running loop
        return 0


def status_text(self_id: str, sched: SendScheduler | None) -> str:
    """The state of account ``self_id`` (``sched``: its scheduler, ``None`` when it has
    sent nothing yet), one short line per topic."""
    tables = [t for t in REGISTRY.tables.values() if t.account in (self_id, None)]
    playing = sum(1 for t in tables if t.playing)
    lines = [f"【牌桌】账号 {self_id} 状态（牌桌 {__version__}）",
             f"牌桌：{len(tables)} 桌（进行中 {playing} 桌），后台任务 {_tasks()} 个"]
    if sched is None:
        lines.append("发送：还没有发过消息")
        return "\n".join(lines)
    rate = sched.current_rate()
    line = f"发送速率：{_rate(rate)}，突发 {sched.burst} 条"
    if sched.slowdown:
        line += f"（发送受限，已从{_rate(sched.rate)}降速，逐步恢复中）"
    lines.append(line)
    lines.append(f"排队：{sched.waiting()} 条，发送中 {sched.in_flight()} 条")
    recent = sched.recent_failures(RECENT)
    timeouts = sum(1 for f in recent if "TimeoutError" in f.error)
    places = len({(f.kind, f.target) for f in recent})
    lines.append(f"最近 {RECENT / 60:g} 分钟失败：{len(recent)} 次（超时 {timeouts} 次，{places} 个会话）")
    names = {"image": "图片", "forward": "合并转发"}
    for media, wait in sorted(sched.media_down().items()):
        lines.append(f"{names.get(media, media)}：发送失败或挂住，暂时改发文字，{wait:.0f} 秒后再试")
    stats = sched.stats
    lines.append(f"累计：发出 {stats.sent} 条，失败 {stats.failed} 次，放弃 {stats.given_up} 条，"
                 f"改发文字 {stats.fallbacks} 次，降速 {stats.throttled} 次")
    return "\n".join(lines)
