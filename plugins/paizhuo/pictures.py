"""Which messages go out as pictures (``PAIZHUO_IMAGES`` and a font found at start-up),
and the pictures' contents: the end-of-game details with every hand as dealt, the
table after a move (图片桌面). Every picture carries its text as the fallback."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from typing import Any

from nonebot import get_driver, logger

from plugins.paizhuo import render
from plugins.paizhuo.config import plugin_config
from plugins.paizhuo.forward import forward
from plugins.paizhuo.games.base import GameAdapter, SeatView
from plugins.paizhuo.messaging import Outgoing, plain


@get_driver().on_startup
async def _find_font() -> None:
    """Look for the font once at start-up (in a thread: ``fc-list`` may take a while), so
    no game waits for it later; logs what was found or how to install one."""
    if plugin_config().paizhuo_images:
        await asyncio.to_thread(render.font_path)


def pictures_on() -> bool:
    """``PAIZHUO_IMAGES`` is on and a font that renders Chinese was found."""
    return bool(plugin_config().paizhuo_images) and render.usable()


def picture(kind: str, target: str, text: str, chart: Sequence[int] | None = None) -> Outgoing:
    """``text`` drawn as a picture (first line the title) to a group or user, with the text
    itself as the fallback; plain text when drawing fails."""
    try:
        image = render.text_card(text, chart)
    except Exception:  # noqa: BLE001 - a picture is never worth losing the message
        logger.exception("picture could not be drawn; sending text")
        return Outgoing(kind, target, plain(text))
    return Outgoing(kind, target, plain(text), image=image)


def details_text(adapter: GameAdapter, game: Any, seats: list[SeatView], number: int | None,
                 end_text: str, replay: dict | None) -> str | None:
    """The end-of-game details (本局详情): the result as the end message ``end_text`` says
    it, then every hand as dealt with each player's role, and the dealer, spy cards and
    tribute (抓特务, Z-8) or the bottom (挖坑, W-3) or the cards set aside (手把一) — what
    the group could not see while it played. The deal is the one the game's ``replay``
    (captured with its record) starts from; None without a replay (the details would
    only repeat the end message)."""
    from plugins.paizhuo.records import deal_lines

    if replay is None:
        return None
    dealt = type(game).from_json(copy.deepcopy(replay["deal"]))
    title = f"【{adapter.name}】第 {number} 局详情" if number else f"【{adapter.name}】本局详情"
    lines = [title, *end_text.splitlines()[1:], *deal_lines(adapter, dealt, game, seats)]
    if number:
        lines.append(f"每一手：/对局 {number}")
    return "\n".join(lines)


def end_details(adapter: GameAdapter, game: Any, seats: list[SeatView], group_id: str,
                number: int | None, end_text: str, replay: dict | None) -> Outgoing | None:
    """The end-of-game details (``details_text``) for the group, sent after the end
    message: a picture when pictures are on, otherwise one merged-forward message
    (合并转发); either way the plain text when the OneBot call fails. None when there
    are no details to add."""
    text = details_text(adapter, game, seats, number, end_text, replay)
    if text is None:
        return None
    if pictures_on():
        return picture("group", group_id, text)
    return forward("group", group_id, text)
