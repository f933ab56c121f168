"""``/战绩``: a player's record in a group, per game type."""

from __future__ import annotations

from plugins.paizhuo.tables import REGISTRY


def signed(n: int) -> str:
    """``+3`` / ``-1`` / ``0``."""
    return f"{n:+d}" if n else "0"


async def render_stats(group_id: str, user_id: str, name: str) -> str:
    """``<name> 的战绩（本群）`` with games, W/D/L, win rate and points per game type."""
    store = REGISTRY.store
    stats = await store.player_stats(group_id, user_id) if store else []
    if not stats:
        return f"{name} 在本群还没有战绩。"
    lines = [f"{name} 的战绩（本群）："]
    for s in stats:
        lines.append(f"{s.game}：{s.games} 局，胜 {s.wins} 平 {s.draws} 负 {s.losses}，"
                     f"胜率 {s.win_rate:.0%}，积分 {signed(s.points)}")
    if len(stats) > 1:
        games = sum(s.games for s in stats)
        wins = sum(s.wins for s in stats)
        lines.append(f"合计：{games} 局，胜率 {wins / games:.0%}，积分 {signed(sum(s.points for s in stats))}")
    return "\n".join(lines)
