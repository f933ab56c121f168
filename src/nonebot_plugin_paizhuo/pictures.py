"""Which messages go out as pictures (``PAIZHUO_IMAGES`` and a font found at start-up),
and the pictures' contents: the table after a move (图片桌面), the settlement after the end
message of a game (结算), a game's details with every hand as dealt (at the top of
``/对局 N``), the /战绩 card and the /排行 board. Every picture carries its text as the
fallback.

The contents are read from the game here, on the event loop (cheap: names, card ids,
lines of text); the drawing (:mod:`render`) runs in one drawing thread (:func:`draw`), so
no table waits while a picture is drawn, and a table's texts are queued before its
pictures are drawn (:class:`Pending`), so they do not wait either.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from nonebot import get_driver, logger

from paizhuo_engine.cards import rank_of

from . import render
from .config import plugin_config
from .games.base import GameAdapter, SeatView
from .games.climbing import order_play
from .messaging import Outgoing, plain
from .port import Message

DRAWING_THREAD = "paizhuo-draw"
"""Name of the one thread every picture is drawn in (a FreeType font is not shared
between threads, and one thread keeps drawing to one core)."""
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix=DRAWING_THREAD)
_T = TypeVar("_T")


async def draw(drawer: Callable[..., _T], *args: Any) -> _T:
    """``drawer(*args)`` run in the drawing thread; the event loop goes on meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(
        _EXECUTOR, functools.partial(drawer, *args))


def in_drawing_thread() -> bool:
    """Whether the caller runs in the drawing thread."""
    return threading.current_thread().name.startswith(DRAWING_THREAD)


@get_driver().on_startup
async def _find_font() -> None:
    """Look for the font once at start-up, in the drawing thread (``fc-list`` may take
    a while), and draw one card there so the font and card faces are loaded before the
    first game ends; logs what was found or how to get one."""
    if plugin_config().paizhuo_images:
        await draw(_warm_up)


def _warm_up() -> None:
    if render.usable():
        render.text_card("牌桌\n♠A ♥K ♣Q ♦J 大王 小王")


def pictures_on() -> bool:
    """``PAIZHUO_IMAGES`` is on and a font that renders Chinese was found."""
    return bool(plugin_config().paizhuo_images) and render.usable()


async def _as_picture(kind: str, target: str, text: str, drawer: Callable[..., render.Picture],
                      *args: Any, extra: bool = False) -> Outgoing:
    """``drawer(*args)`` as a picture to a group or user with ``text`` as the fallback;
    the text alone when drawing fails. ``extra``: ``Outgoing.extra``."""
    try:
        image = (await draw(drawer, *args)).data
    except Exception:  # noqa: BLE001 - a picture is never worth losing the message
        logger.exception("picture could not be drawn; sending text")
        return Outgoing(kind, target, plain(text))
    return Outgoing(kind, target, plain(text), image=image, extra=extra)


@dataclass(slots=True)
class Pending:
    """A picture whose content is read (``drawer`` and ``args``: plain data) but not
    drawn yet, for the group ``group_id`` with ``text`` as its fallback: drawn after the
    messages before it are queued (:func:`later`), so they need not wait for it."""

    group_id: str
    text: str
    drawer: Callable[..., render.Picture]
    args: tuple

    async def outgoing(self) -> Outgoing:
        """The drawn picture (the text when drawing fails); it only adds to the texts
        (``Outgoing.extra``)."""
        return await _as_picture("group", self.group_id, self.text, self.drawer, *self.args,
                                 extra=True)


def later(table: Any, pending: Pending) -> None:
    """Draw ``pending`` for ``table`` once the change's messages are queued (kept on the
    table, ``Table.later``; ``actions.commit.run_locked`` takes them with
    :func:`take_later`)."""
    table.later.append(pending)


def take_later(table: Any) -> list[Pending]:
    """The pictures :func:`later` set aside for ``table`` (and forget them)."""
    due = list(table.later)
    table.later.clear()
    return due


async def picture(kind: str, target: str, text: str, chart: Sequence[int] | None = None) -> Outgoing:
    """``text`` drawn as a card (first line the title; /排行, /战绩 with its ``chart``)
    to a group or user, with the text itself as the fallback."""
    return await _as_picture(kind, target, text, render.text_card, text,
                             list(chart) if chart else None)


# ---- the table (图片桌面) ---------------------------------------------------------------
def named_text(message: Message, seats: Sequence[SeatView]) -> str:
    """``message`` as plain text with each @-mention written as that player's name."""
    names = {seat.user_id: seat.name for seat in seats}
    parts = []
    for seg in message:
        if seg.user_id is not None:
            parts.append(names.get(seg.user_id, seg.user_id))
        elif seg.type == "text":
            parts.append(str(seg.data.get("text", "")))
    return "".join(parts)


def trick_moves(game: Any) -> tuple[list[int], bool]:
    """Indices into ``game.log`` of the moves of the trick on the table, and whether that
    trick is over (the next player leads and the last trick is shown instead). The
    tricks are found by replaying G-3 over the log: a trick ends when every other player
    still holding cards has passed after a play."""
    counts = [len(h) for h in game.hands]
    for seat, cards in game.log:
        counts[seat] += len(cards)
    trick: list[int] = []
    done: list[int] = []
    leader: int | None = None
    passes = 0
    for i, (seat, cards) in enumerate(game.log):
        trick.append(i)
        if cards:
            counts[seat] -= len(cards)
            leader, passes = seat, 0
            continue
        passes += 1
        needed = sum(1 for s in range(game.players) if counts[s] and s != leader)
        if passes >= needed:
            done, trick, leader, passes = trick, [], None, 0
    return (trick, False) if trick else (done, True)


def shown_play(game: Any, cards: list[int], kind: str | None) -> list[int]:
    """A play's cards in the order the group's text shows them (chains from their low
    end, a 三带一's triple before its card); rank order when its reading is unknown."""
    weight = game.rules.rank_order()
    ordered = sorted(cards, key=lambda c: (weight[rank_of(c)], c))
    if kind is None:
        return ordered
    try:
        readings = [r for r in game.classify(cards) if r.kind == kind]
    except Exception:  # noqa: BLE001 - the order is cosmetic
        readings = []
    if not readings:
        return ordered
    reading = max(readings, key=lambda r: r.key)
    return [c for group in order_play(cards, reading.kind, reading.key, reading.size) for c in group]


def table_view(adapter: GameAdapter, game: Any, seats: list[SeatView]) -> render.TableView:
    """The table picture's content: what :meth:`GameAdapter.table` says (the names
    written out where the text @-mentions), with each seat's move in the current trick
    (or the trick just won, faded) from the game's public move log."""
    text = named_text(adapter.table(game, seats), seats).splitlines()
    shown = adapter.shown_seats(game, seats)
    acting = adapter.acting_seat(game)
    moves: dict[int, render.MoveView] = {}
    log = getattr(game, "log", None)
    if log:
        indices, done = trick_moves(game)
        lead = getattr(game, "lead", None)
        kinds = getattr(game, "kinds", [])
        for i in indices:
            seat, cards = log[i]
            kind = kinds[i] if i < len(kinds) else None
            label = game.vocabulary.shown(kind) if kind else ""
            beat = (not done and bool(cards) and lead is not None and lead[0] == seat
                    and sorted(cards) == sorted(lead[1]))
            moves[seat] = render.MoveView(shown_play(game, list(cards), kind), label, beat, done)
    panels = []
    for s, seat in enumerate(seats):
        info = shown[s]
        low = info.count is not None and 0 < info.count <= 2
        panels.append(render.SeatPanel(s + 1, seat.name, list(info.badges), info.count,
                                       moves.get(s), s == acting,
                                       shown_play(game, info.open_hand, None), low))
    return render.TableView(text[0] if text else f"【{adapter.name}】", panels,
                            text[1 + len(seats):])


def table_picture(adapter: GameAdapter, game: Any, seats: list[SeatView],
                  group_id: str) -> Pending:
    """The table after a move (图片桌面) for the group, its text as the fallback: read
    now, drawn later."""
    view = table_view(adapter, game, seats)
    fallback = named_text(adapter.table(game, seats), seats)
    return Pending(group_id, fallback, render.draw_table, (view,))


# ---- the settlement (结算) -------------------------------------------------------------------
def settlement_view(adapter: GameAdapter, game: Any, seats: list[SeatView],
                    number: int | None) -> render.SettlementView | None:
    """The settlement picture's content of a finished game (:meth:`GameAdapter.settlement`)
    with its title (第 N 局) and the footer pointing at every move (``/对局 N``); ``None``
    when the game has none."""
    view = adapter.settlement(game, seats)
    if view is None:
        return None
    view.title = f"【{adapter.name}】第 {number} 局 结算" if number else f"【{adapter.name}】结算"
    view.footer = f"每人发到的牌和每一手：/对局 {number}" if number else ""
    return view


def settlement_text(view: render.SettlementView) -> str:
    """The settlement as text (the picture's fallback)."""
    lines = [view.title, view.headline]
    for row in view.rows:
        bits = [b for b in (row.role, row.place, row.result) if b]
        note = f"（{row.note}）" if row.note else ""
        lines.append(f"{row.head} {' '.join(bits)} {row.points:+d}{note}" if row.points
                     else f"{row.head} {' '.join(bits)} 0{note}")
    return "\n".join([*lines, *view.notes])


def settlement_picture(adapter: GameAdapter, game: Any, seats: list[SeatView], group_id: str,
                       number: int | None) -> Pending | None:
    """The settlement at the end of a game (结算) for the group, drawn after the end
    message: the result, every seat's cards left, multipliers and points, in one picture
    people would post; ``None`` for a game without one."""
    view = settlement_view(adapter, game, seats, number)
    if view is None:
        return None
    return Pending(group_id, settlement_text(view), render.draw_settlement, (view,))


# ---- the end-of-game details ---------------------------------------------------------------
def details_text(adapter: GameAdapter, game: Any, seats: list[SeatView], number: int | None,
                 end_text: str, replay: dict | None) -> str | None:
    """The end-of-game details (本局详情): the result as the end message ``end_text`` says
    it, then every hand as dealt with each player's role, and the dealer, spy cards and
    tribute (抓特务, Z-8) or the bottom (挖坑, W-3) or the cards set aside (手把一) — what
    the group could not see while it played. The deal is the one the game's ``replay``
    (captured with its record) starts from; None without a replay (the details would
    only repeat the end message)."""
    from .history_texts import deal_lines

    if replay is None:
        return None
    dealt = type(game).from_json(copy.deepcopy(replay["deal"]))
    lines = [_details_title(adapter, number), *end_text.splitlines()[1:],
             *deal_lines(adapter, dealt, game, seats)]
    if number:
        lines.append(f"每一手：/对局 {number}")
    return "\n".join(lines)


def _details_title(adapter: GameAdapter, number: int | None) -> str:
    return f"【{adapter.name}】第 {number} 局详情" if number else f"【{adapter.name}】本局详情"


def details_view(adapter: GameAdapter, game: Any, seats: list[SeatView], number: int | None,
                 end_text: str, replay: dict | None) -> render.DetailsView | None:
    """The details picture's content: the same facts as :func:`details_text`, each
    hand as cards."""
    from .history_texts import deal_lines, deal_roles, dealt_hands

    if replay is None:
        return None
    dealt = type(game).from_json(copy.deepcopy(replay["deal"]))
    roles = deal_roles(adapter, game)
    hands = [render.HandRow(f"{s + 1}. {seat.name}", roles[s], shown_play(dealt, hand, None))
             for s, (seat, hand) in enumerate(zip(seats, dealt_hands(dealt), strict=True))]
    notes = deal_lines(adapter, dealt, game, seats)[1 + len(seats):]
    head, *lines = end_text.splitlines() or [""]
    if "本局结束：" in head:  # the outcome (the text has it in the end message just before)
        lines.insert(0, "结果：" + head.split("本局结束：", 1)[1])
    return render.DetailsView(_details_title(adapter, number), lines, hands, notes,
                              f"每一手：/对局 {number}" if number else "")


async def replay_picture(adapter: GameAdapter, final: Any, seats: list[SeatView],
                         number: int, replay: dict) -> bytes | None:
    """The end-of-game details of an archived game (第 ``number`` 局: ``final`` its
    engine at the end, ``replay`` its record's replay) drawn as one picture (PNG: a node of
    a merged forward; every
    hand as dealt, roles, the dealer, spy cards and tribute / the bottom / the cards set
    aside, the result), for the top of ``/对局 N``'s answer; ``None`` when it cannot be
    drawn (logged)."""
    try:
        end_text = adapter.end(final, seats).extract_plain_text()
        view = details_view(adapter, final, seats, number, end_text, replay)
        if view is None:
            return None
        image = (await draw(render.draw_details, view)).data
    except Exception:  # noqa: BLE001 - the replay's text is sent all the same
        logger.exception("details picture could not be drawn; sending the text alone")
        return None
    return image
