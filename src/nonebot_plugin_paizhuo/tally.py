"""``/记牌`` (记牌器): a seated player privately gets the cards they have not seen yet —
the deck less their own hand, the cards played and what their seat legitimately saw
(``paizhuo_engine.ai.view.unseen_cards``; RULES.md G-4 记牌器, G-6) — in the hand's notation, with the
count per rank. A group turns it off with the setting 记牌器 (``shared_settings.py``).

Nothing in the reply depends on another hand: the same public moves and own knowledge
give the same text whatever the other hands hold. Where it goes depends only on what
everyone can see (whether the asker sits at a game, the group's setting).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from nonebot.adapters import Bot

from paizhuo_engine.ai.view import seen_elsewhere, unseen_cards
from paizhuo_engine.cards import RANK_NAMES, rank_of

from . import accounts
from .actions.basics import reply
from .actions.commit import acting_seats
from .messaging import Outgoing, deliver, private
from .tables import REGISTRY, Table

NO_GAME = "你现在没有进行中的牌局。"
TURNED_OFF = "本群关闭了记牌器（/规则 {game} 记牌器）。"


def tally_text(table: Table, seat: int) -> str:
    """The private 记牌 answer of ``seat`` at ``table`` (its game in progress)."""
    game: Any = table.engine
    adapter = table.adapter
    unseen = unseen_cards(game, seat)
    if not unseen:
        lines = ["记牌：别人手里的牌你都见过了。"]
    else:
        counts = Counter(rank_of(c) for c in unseen)
        order = game.rules.rank_order()
        per_rank = " ".join(f"{RANK_NAMES[r]}×{n}" for r, n in
                            sorted(counts.items(), key=lambda item: order[item[0]]))
        lines = [f"记牌：你还没见过的牌（{len(unseen)} 张）：",
                 adapter.cards(game, unseen),
                 f"各点数：{per_rank}"]
    seen = sorted(seen_elsewhere(game, seat))
    if seen:
        lines.append(f"{adapter.seen_label()}：{adapter.cards(game, seen)}")
    return "\n".join(lines)


async def send_tally(bot: Bot, user_id: str, group_id: str | None) -> None:
    """``/记牌`` in a group (``group_id``) or privately (``None``): the answer goes
    privately to a seated player of a game in progress; anyone else, or a group that
    turned the 记牌器 off, is told so where they asked."""
    table = REGISTRY.table_of_user(user_id)
    text: str | None = None
    if table is None or table.engine is None or not table.playing or table.seat_of(user_id) is None:
        text = NO_GAME
    elif not table.setting("card_counter"):
        text = TURNED_OFF.format(game=table.game)
    if text is not None:
        out = reply(group_id, user_id, text) if group_id else private(user_id, text)
        await deliver(bot, [out])
        return
    assert table is not None
    bot = accounts.bot_for(table) or bot  # like the hand: through the table's account
    outs: list[Outgoing] = []
    async with table.lock:
        seat = table.seat_of(user_id)
        if seat is not None and table.playing and table.engine is not None:
            outs.append(private(user_id, tally_text(table, seat), table.group_id))
            outs[-1].coalesce = "tally"  # a newer count replaces one still waiting
            outs[-1].urgent = seat in acting_seats(table)  # asked to act: goes first
        else:
            outs.append(reply(group_id, user_id, NO_GAME) if group_id else private(user_id, NO_GAME))
    await deliver(bot, outs)
