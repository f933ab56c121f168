"""Moves nobody decides (under the table's lock): a computer player's, a player's in 托管
and 要不起自动过 (G-3). :func:`_next_automatic` says which comes next;
:mod:`.commit` runs them after each accepted change, :mod:`.turns` when the computer
players' pause runs out.

Owns the automatic moves only; may call :mod:`.basics`, the game adapter and
``ai_turn`` (never saves or sends).
"""

from __future__ import annotations

from nonebot import logger

from .. import ai_turn
from ..games.base import Say, is_computer
from ..tables import (
    Table,
)
from .basics import log_event


def _next_automatic(table: Table) -> str | None:
    """What the game waits for next when nobody has to decide: ``"computer"`` (a computer
    player plays, bids, or every seat asked a question outside a secret phase is a
    computer), ``"auto"`` (a player in 托管 to act), ``"pass"`` (要不起自动过: the person
    to act cannot beat the table, G-3); ``None`` when a person decides now, a secret
    phase waits (G-4) or the game is over."""
    adapter = table.adapter
    if not table.playing or adapter.is_over(table.engine):
        return None
    if adapter.prompt_seconds(table.engine):
        waiting = adapter.waiting_seats(table.engine)
        if (waiting and not adapter.secret_phase(table.engine)
                and all(is_computer(table.seats[s].user_id) for s in waiting)):
            return "computer"
        return None
    seat = adapter.acting_seat(table.engine)
    if seat is None:
        return None
    user = table.seats[seat].user_id
    if is_computer(user):
        return "computer"
    if user in table.auto:
        return "auto"
    if table.setting("auto_pass") and adapter.cannot_beat(table.engine):
        return "pass"
    return None


async def _automatic_move(table: Table, kind: str) -> list[Say]:
    """Make one automatic move of :func:`_next_automatic`'s ``kind`` (under the lock)."""
    adapter = table.adapter
    if kind == "computer":
        return await _computer_moves(table)
    seat = adapter.acting_seat(table.engine)
    if kind == "auto":  # at the group's 电脑难度, as a timer's 托管 move (G-6)
        log_event(table, "auto_move", seat)
        choice = await ai_turn.prepare(table, seat)
        says = adapter.auto_move(table.engine, table.seats, seat, "托管", choice=choice)
        table.mark_last_move("托管")
        return says
    log_event(table, "auto_pass", seat)
    says = adapter.pass_for(table.engine, table.seats, seat, "要不起，自动过")
    table.mark_last_move("要不起，自动过")
    return says


async def _computer_moves(table: Table, wait: bool = True) -> list[Say]:
    """Every computer player the game waits for acts, through the same engine calls as a
    human's move; a failing strategy falls back to the timeout rule (never stalls). At
    困难, ``ai_turn.prepare`` takes the search started when the pause began — a play, or
    a decision before play (叫分, 扣底, 明 / 暗) — or starts one, and the adapter is given
    its answer (``choice``); with ``wait=False`` (a secret phase, G-4) it takes only a
    search that is done."""
    adapter = table.adapter
    says: list[Say] = []
    for seat in adapter.waiting_seats(table.engine):
        if not is_computer(table.seats[seat].user_id) or adapter.is_over(table.engine):
            continue
        snapshot = adapter.dump(table.engine)
        choice = await ai_turn.prepare(table, seat, wait)
        try:
            says += adapter.computer_turn(table.engine, table.seats, seat, choice)
        except Exception:  # noqa: BLE001 - fall back to the timeout rule, never stall
            logger.exception(f"computer move failed group={table.group_id} seat={seat}")
            table.engine = adapter.load(snapshot)
            if adapter.prompt_seconds(table.engine):
                says += adapter.timeout(table.engine, table.seats)
            elif adapter.acting_seat(table.engine) == seat:
                says += adapter.auto_move(table.engine, table.seats, seat, "超时")
        searched = choice.searched()
        extra = {"search": searched} if searched else {}
        if searched and choice.phase is not None:
            extra["phase"] = choice.phase  # a decision before play: 叫分 / 扣底 / 明暗
        log_event(table, "computer_move", seat, **extra)
    return says
