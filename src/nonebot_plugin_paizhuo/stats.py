"""``/战绩``: a player's record in a group — totals per game type, the current streak, the
best and worst game and the last 10 games."""

from __future__ import annotations

from paizhuo_db.history import player_history

from .history_texts import history_lines, signed
from .names import clean_name
from .port import QQ_SCOPE
from .tables import REGISTRY

__all__ = ["render_stats", "signed"]


async def render_stats(group_id: str, user_id: str, name: str, scope: str = QQ_SCOPE) -> str:
    """``<name> 的战绩（本群）`` (the name cleaned as in seat lists) with games, W/D/L, win rate and points per game type, then
    the streak, best / worst game and the last 10 games (date, game, role, place, result,
    points). The person is (``scope``, ``user_id``)."""
    name = clean_name(name) or user_id
    store = REGISTRY.store
    stats = await store.player_stats(group_id, user_id, scope) if store else []
    if not stats or store is None:
        return f"{name} 在本群还没有战绩。"
    lines = [f"{name} 的战绩（本群）："]
    for s in stats:
        lines.append(f"{s.game}：{s.games} 局，胜 {s.wins} 平 {s.draws} 负 {s.losses}，"
                     f"胜率 {s.win_rate:.0%}，积分 {signed(s.points)}")
    if len(stats) > 1:
        games = sum(s.games for s in stats)
        wins = sum(s.wins for s in stats)
        lines.append(f"合计：{games} 局，胜率 {wins / games:.0%}，积分 {signed(sum(s.points for s in stats))}")
    lines += history_lines(await player_history(store, group_id, user_id, scope=scope))
    return "\n".join(lines)
