"""The games the bot offers, by Chinese name."""

from __future__ import annotations

from .base import GameAdapter, UsageError
from .shoubayi import ShoubayiAdapter
from .wakeng import WakengAdapter
from .zhuatewu import ZhuatewuAdapter

GAMES: dict[str, GameAdapter] = {"抓特务": ZhuatewuAdapter(), "挖坑": WakengAdapter(),
                                 "手把一": ShoubayiAdapter()}
"""Playable games by name."""

PLANNED: tuple[str, ...] = ()
"""Games announced but not playable yet."""


def find_game(name: str) -> GameAdapter:
    """The adapter for ``name``. Raises :class:`UsageError` with the choices."""
    adapter = GAMES.get(name.strip())
    if adapter is not None:
        return adapter
    if name.strip() in PLANNED:
        raise UsageError(f"{name.strip()} 还在开发中，目前可以玩：" + "、".join(GAMES))
    unknown = f"没有“{name.strip()[:20]}”这个游戏。" if name.strip() else ""
    raise UsageError(f"{unknown}用法：/开局 抓特务 四人、/开局 挖坑、/开局 手把一 4人。可选游戏："
                     + "、".join(GAMES))


__all__ = ["GAMES", "GameAdapter", "UsageError", "find_game"]
