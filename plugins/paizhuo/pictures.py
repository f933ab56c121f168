"""Which messages go out as pictures (``PAIZHUO_IMAGES`` and a font found at start-up),
and the pictures' contents: the end-of-game summary with every hand as dealt, the
table after a move (图片桌面). Every picture carries its text as the fallback."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from nonebot import get_driver, get_plugin_config, logger

from plugins.paizhuo import render
from plugins.paizhuo.config import Config
from plugins.paizhuo.games.base import GameAdapter, SeatView
from plugins.paizhuo.messaging import Outgoing, plain
from plugins.paizhuo.replay import capture, run


@get_driver().on_startup
async def _find_font() -> None:
    """Look for the font once at start-up (in a thread: ``fc-list`` may take a while), so
    no game waits for it later; logs what was found or how to install one."""
    if get_plugin_config(Config).paizhuo_images:
        await asyncio.to_thread(render.font_path)


def pictures_on() -> bool:
    """``PAIZHUO_IMAGES`` is on and a font that renders Chinese was found."""
    return bool(get_plugin_config(Config).paizhuo_images) and render.usable()


def picture(kind: str, target: str, text: str, chart: Sequence[int] | None = None) -> Outgoing:
    """``text`` drawn as a picture (first line the title) to a group or user, with the text
    itself as the fallback; plain text when drawing fails."""
    try:
        image = render.text_card(text, chart)
    except Exception:  # noqa: BLE001 - a picture is never worth losing the message
        logger.exception("picture could not be drawn; sending text")
        return Outgoing(kind, target, plain(text))
    return Outgoing(kind, target, plain(text), image=image)


def dealt_lines(adapter: GameAdapter, game: Any, seats: list[SeatView]) -> list[str]:
    """``张三：♠3 ♥4 …`` — every hand as dealt (抓特务: before the tribute), from the
    game's replay; empty when it cannot be rebuilt."""
    from plugins.paizhuo.records import _dealt_hands

    replay = capture(game)
    if replay is None:
        return []
    dealt = run(type(game), replay).dealt
    return [f"{seats[s].name}：{adapter.cards(dealt, hand)}"
            for s, hand in enumerate(_dealt_hands(dealt))]


def end_summary(adapter: GameAdapter, game: Any, seats: list[SeatView], group_id: str,
                number: int | None) -> Outgoing:
    """The end-of-game summary picture: the result (as the end message says it) and
    every player's hand at the deal."""
    result = adapter.end(game, seats).extract_plain_text().splitlines()
    title = f"【{adapter.name}】第 {number} 局" if number else f"【{adapter.name}】本局"
    lines = [*result[1:], "发牌时的手牌：", *dealt_lines(adapter, game, seats)]
    return picture("group", group_id, "\n".join([title + " " + result[0].split("】", 1)[-1], *lines]))
