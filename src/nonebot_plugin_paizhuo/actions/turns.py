"""Playing: a group move (``出 …``, ``过``, a bid), a private answer (还 <牌>, 明 / 暗),
``/托管``, ``/提示``, ``/手牌``, the reply to a refused move (G-4); and what a table's
timer does when it comes due (:func:`_on_time`): the reminder, the move for a player who
timed out or is in 托管, the computer players' turn after their pause, closing an idle
table. Installs that as the timers' action (:func:`.deadlines.on_due`).

Owns the moves of a game in progress; may call :mod:`.basics`, :mod:`.automatic`,
:mod:`.commit` (every change through :func:`.commit.run_locked`) and
:mod:`.deadlines`.
"""

from __future__ import annotations

from collections.abc import Callable

from nonebot import logger
from nonebot.adapters import Bot

from paizhuo_engine.errors import MoveError

from .. import accounts, ai_turn
from ..games.base import Say
from ..messaging import (
    Outgoing,
    deliver,
    group,
    private,
    refusal,
    unreached,
)
from ..port import room_of
from ..tables import (
    PLAYING,
    REGISTRY,
    WAITING,
    Table,
    timer_now,
)
from . import deadlines
from .automatic import _computer_moves
from .basics import NOT_APPLIED, log_event, reply
from .commit import _commit, acting_seats, run_locked, says_to_outs
from .deadlines import schedule

PRIVATE_REASON = "这步没有生效，原因已私聊发给你。"
AUTO_AFTER = 2
"""Timeouts in a row (a turn the player could not beat not counted) that put a player in
托管."""


def move_refusal(table: Table, user_id: str, err: MoveError, refuse: Callable[[str], Outgoing]) -> list[Outgoing]:
    """The reply to a refused move (G-4): a reason that describes the player's hand
    (``err.private``) goes to the player alone, and the group hears only that the move was
    not accepted; any other reason is replied where the move was made. ``还没轮到你``
    says whose turn it is (public: the turn prompt names them); to a player who went out
    it says their cards are gone (public: the group saw them go out), as no turn comes."""
    message = err.message
    seat = table.seat_of(user_id)
    hands = getattr(table.engine, "hands", None)
    if err.code == "not_turn" and seat is not None and hands is not None and not hands[seat]:
        message = "你的牌已出完，这局不用再出牌了"
    elif err.code == "not_turn" and table.engine is not None:
        acting = table.adapter.acting_seat(table.engine)  # public: the prompt @-mentions them
        if acting is not None:
            message = f"{message}，现在轮到 {table.seats[acting].name}"
    out = refuse(message)
    if not err.private or out.kind != "group":
        return [out]
    return [refuse(PRIVATE_REASON), private(user_id, err.message, table.group_id)]


async def _apply(table: Table, user_id: str, act: Callable[[int], list[Say] | None],
                 refuse: Callable[[str], Outgoing], what: str,
                 group_move: bool = False) -> list[Outgoing] | None:
    """Apply one player action under the lock: refusals change nothing — but a group move
    (``group_move``: 出, 过, a bid) of a player in 托管 ends the 托管 even when refused
    (the player is back; saved, said in the group); an accepted one ends the player's 托管
    and timeout count, and is saved (with the record when the game ends) before its
    messages are returned. ``None`` when ``act`` did not recognise it. Raises what the
    engine or the save raised (:func:`run_locked` undoes the change)."""
    seat = table.seat_of(user_id)
    if REGISTRY.get(table.group_id) is not table or not table.playing or seat is None:
        return [refuse("这桌牌局已经结束了。")]
    adapter = table.adapter
    secret = adapter.secret_phase(table.engine)
    try:
        says = act(seat)
    except MoveError as err:
        refused = move_refusal(table, user_id, err, refuse)
        if not (group_move and user_id in table.auto):
            return refused
        table.auto.remove(user_id)
        table.timeouts.pop(user_id, None)
        log_event(table, "auto_off", seat)
        if adapter.acting_seat(table.engine) == seat:
            table.rearm()  # their own turn time now, not 托管's pause
        await REGISTRY.save(table)
        schedule(table)
        return [group(table.group_id, f"{table.seats[seat].name} 取消托管。"), *refused]
    # Any other exception reaches run_locked: the table goes back to its saved state.
    if says is None:
        return None
    log_event(table, what, seat)
    table.timeouts.pop(user_id, None)
    if user_id in table.auto:
        table.auto.remove(user_id)
        says.append(Say(f"{table.seats[seat].name} 取消托管。"))
        log_event(table, "auto_off", seat)
    keep = secret and adapter.secret_phase(table.engine)  # same secret phase: same time limit
    return await _commit(table, says_to_outs(table, says), keep)


async def toggle_auto(bot: Bot, group_id: str, user_id: str) -> None:
    """``/托管``: the bot plays for the caller (or stops) until they send a game command."""
    table = REGISTRY.table_of_user(user_id)
    if table is None or not table.playing or table.group_id != group_id:
        await deliver(bot, [reply(group_id, user_id, "你不在本群进行中的牌局里。")])
        return

    async def change() -> list[Outgoing]:
        seat = table.seat_of(user_id)
        if REGISTRY.get(group_id) is not table or not table.playing or seat is None:
            return [reply(group_id, user_id, "你不在本群进行中的牌局里。")]
        name = table.seats[seat].name
        if user_id in table.auto:
            table.auto.remove(user_id)
            text = f"{name} 取消托管。"
        else:
            table.auto.append(user_id)
            text = f"{name} 进入托管：机器人代打，发送任意出牌命令或 /托管 取消。"
        table.timeouts.pop(user_id, None)
        log_event(table, "auto_toggle", seat, on=user_id in table.auto)
        return await _commit(table, [group(group_id, text)], table.adapter.secret_phase(table.engine))

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


async def move(bot: Bot, group_id: str, user_id: str, kind: str, arg: str | None,
               privately: bool = False) -> None:
    """A group game command (``出 <牌>``, ``过``, a bid …) at the group's table;
    ``privately``: sent in the player's private chat (where the side takes moves there,
    ``Room.plays_privately``), so a refusal is answered there, in full, and the group
    hears nothing of a move it never saw (G-4)."""
    table = REGISTRY.get(group_id)
    if table is None or not table.playing:
        return

    def answer(text: str) -> Outgoing:
        return private(user_id, text, group_id) if privately else reply(group_id, user_id, text)

    if table.seat_of(user_id) is None:
        await deliver(bot, [refusal(answer("你不在这桌牌局中。"), user_id)])
        return

    async def change() -> list[Outgoing]:
        outs = await _apply(
            table, user_id, lambda seat: table.adapter.act(table.engine, table.seats, seat, kind, arg),
            lambda msg: refusal(answer(msg), user_id), kind, group_move=True)
        return outs or []

    await run_locked(bot, table, change, answer(NOT_APPLIED))


async def answer(bot: Bot, user_id: str, text: str) -> bool:
    """A private answer (还 <牌>, 明 / 明牌 / 暗). Returns ``False`` when ``text`` is no
    answer at all (the caller may explain); replies privately otherwise."""
    table = REGISTRY.table_of_user(user_id)
    if table is None or not table.playing:
        return False
    handled = True

    async def change() -> list[Outgoing]:
        nonlocal handled
        outs = await _apply(
            table, user_id, lambda seat: table.adapter.answer(table.engine, table.seats, seat, text),
            lambda msg: refusal(private(user_id, msg), user_id), "answer")
        if outs is None:
            handled = False
            return []
        return outs

    await run_locked(bot, table, change, private(user_id, NOT_APPLIED, table.group_id))
    return handled


async def send_hints(bot: Bot, user_id: str) -> None:
    """``/提示`` (group or private): privately, the suggested play and up to four other
    legal plays as ready-to-send ``出 …`` lines, or 要不起; never in the group (G-6: from
    what the player may know — it is their own hand)."""
    table = REGISTRY.table_of_user(user_id)
    if table is None or not table.playing:
        await deliver(bot, [private(user_id, "你现在没有进行中的牌局。")])
        return
    async with table.lock:
        seat = table.seat_of(user_id)
        adapter = table.adapter
        urgent = seat in acting_seats(table)
        if seat is None or adapter.acting_seat(table.engine) != seat or table.engine.phase != "play":
            text = "还没轮到你出牌，轮到你时再发 /提示。"
        else:
            lines = adapter.hints(table.engine, seat)
            if lines:
                text = "提示（复制一行发到群里）：\n" + "\n".join(lines)
                if adapter.is_following(table.engine):
                    text += "\n或 过"
            else:
                text = "要不起：没有能大过桌面的牌，发送 过。"
    out = private(user_id, text, table.group_id)
    out.coalesce = "hint"  # a newer hint replaces one still waiting
    out.urgent = urgent  # the player to act asked for it to act: before others' waiting messages
    await deliver(bot, [out])


async def resend_hand(bot: Bot, user_id: str, group_id: str | None) -> None:
    """``/手牌``: the caller's hand again, privately."""
    table = REGISTRY.table_of_user(user_id)
    if table is None or table.engine is None or table.status == WAITING:
        text = "你现在没有进行中的牌局。"
        out = reply(group_id, user_id, text) if group_id else private(user_id, text)
        await deliver(bot, [out])
        return
    bot = accounts.bot_for(table) or bot  # the hand goes through the table's account
    async with table.lock:
        seat = table.seat_of(user_id)
        outs = []
        if seat is not None:
            text = table.adapter.hand(table.engine, table.seats, seat)
            if table.playing and (question := table.adapter.reminder(table.engine, table.seats, seat)):
                text += "\n" + question
            room = room_of(bot)
            acting = (room is not None and room.plays_privately and table.playing
                      and table.adapter.acting_seat(table.engine) == seat)
            choices = table.adapter.turn_choices(table.engine, seat) if acting else []
            if choices and "轮到你" not in text:
                text += "\n轮到你：" + " / ".join(choices)
            outs.append(private(user_id, text, table.group_id))
            outs[-1].coalesce = "hand-reply"  # a newer one replaces one still waiting
            outs[-1].urgent = seat in acting_seats(table)  # asked to act: goes first
            outs[-1].choices = choices or None  # buttons where the side has them
    await deliver(bot, outs)


# ---- when a table's timer comes due ----------------------------------------------------
async def _on_time(table: Table) -> list[Outgoing]:
    """What happens when a table's reminder or deadline comes (under the lock). A post
    of a timer is the table's one post after a restart: the table is no longer
    re-posted by :func:`.announce.announce_resumed`."""
    outs = await _due(table)
    if outs:
        REGISTRY.resumed.discard(table.group_id)
    return outs


async def _due(table: Table) -> list[Outgoing]:
    if REGISTRY.get(table.group_id) is not table:
        return []
    now = timer_now()
    if table.computer_at is not None and now >= table.computer_at and table.playing:
        return await _computers_act(table)
    if table.remind_at is not None and now >= table.remind_at and (
            table.deadline is None or now < table.deadline):
        table.remind_at = None
        await REGISTRY.save(table)
        schedule(table)
        seat = table.adapter.acting_seat(table.engine) if table.playing else None
        if seat is None:
            return []
        return [reply(table.group_id, table.seats[seat].user_id, warning_text(table, now))]
    if table.deadline is None or now < table.deadline:
        schedule(table)
        return []
    if table.status != PLAYING:
        minutes = table.setting("idle_minutes")
        async with REGISTRY.guard:
            await REGISTRY.close(table)
        log_event(table, "idle_close")
        what = "等人入座" if table.status == WAITING else "等待 /继续"
        return [group(table.group_id, f"牌桌{what}超过 {minutes} 分钟，已自动关闭。")]
    adapter = table.adapter
    if adapter.prompt_seconds(table.engine):
        log_event(table, "prompt_timeout")
        return await _commit(table, says_to_outs(table, adapter.timeout(table.engine, table.seats)),
                             paused=True)
    seat = adapter.acting_seat(table.engine)
    if seat is None:
        return []
    user = table.seats[seat].user_id
    says = []
    choice = await ai_turn.prepare(table, seat)
    if user in table.auto:
        says += adapter.auto_move(table.engine, table.seats, seat, "托管", choice=choice)
        table.mark_last_move("托管")
        log_event(table, "auto_move", seat)
    else:
        simple = table.setting("timeout_play") == "简单"
        # A turn the player could not have beaten (要不起) is no timeout towards 托管: there
        # was nothing to decide (G-3 **Decision**).
        # Nor is a turn of a player the bot could not reach privately (the group was told
        # to have them message the bot): they had no hand to play from.
        counts = not adapter.cannot_beat(table.engine) and not unreached(table.account, user)
        says += adapter.auto_move(table.engine, table.seats, seat, "超时", simple=simple,
                                  choice=choice)
        table.mark_last_move("超时")
        if counts:
            table.timeouts[user] = table.timeouts.get(user, 0) + 1
        log_event(table, "timeout_move", seat, in_a_row=table.timeouts.get(user, 0))
        if table.timeouts.get(user, 0) >= AUTO_AFTER:
            table.auto.append(user)
            says.append(Say(f"{table.seats[seat].name} 连续两次超时，进入托管：机器人代打，"
                            "发送任意出牌命令或 /托管 即可取消。"))
            log_event(table, "auto_on", seat)
    return await _commit(table, says_to_outs(table, says), paused=True)


def warning_text(table: Table, now) -> str:
    """The reminder before the turn time runs out: the seconds left and what the bot will
    then do, truthfully and the same whatever the hand (G-4): a player in 托管 is moved
    with the computer players' play, a timed-out one by the group's 超时代打 rule; before
    the timeout that would put the player in 托管, that it would, and how to cancel it."""
    left = max(1, int((table.deadline - now).total_seconds())) if table.deadline else 0
    seat = table.adapter.acting_seat(table.engine)
    user = table.seats[seat].user_id
    simple = user not in table.auto and table.setting("timeout_play") == "简单"
    text = f"还剩 {left} 秒，超时机器人将{table.adapter.timeout_words(table.engine, simple)}"
    if user not in table.auto and table.timeouts.get(user, 0) == AUTO_AFTER - 1 \
            and not unreached(table.account, user):
        text += "；再超时就进入托管（要不起的轮次不算），之后发任意出牌命令或 /托管 即可取消"
    return text + "。"


async def _computers_act(table: Table) -> list[Outgoing]:
    """The computer players' pause ran out (under the lock): they act, and the run goes
    on through every automatic move up to the next person's decision (see
    :func:`_commit`)."""
    adapter = table.adapter
    table.computer_at = None
    secret = adapter.secret_phase(table.engine)
    says = await _computer_moves(table, wait=not secret)
    keep = secret and adapter.secret_phase(table.engine)  # G-4: a secret phase keeps its time limit
    return await _commit(table, says_to_outs(table, says), keep, paused=True)


async def _timer_came_due(table: Table) -> None:
    """A table's timer came due (:mod:`.deadlines`): act under the table's lock, through
    the table's account; with that account away, wait until it connects."""
    bot = accounts.bot_for(table)
    if bot is None:
        # Nobody could be told: act when the table's account connects (bot_connected
        # re-arms the timers); no other account speaks for it.
        logger.info(f"event=timer_deferred group={table.group_id} account={table.account} "
                    "reason=no_bot")
        deadlines.defer(table)
        return
    try:
        await run_locked(bot, table, lambda: _on_time(table))
    except Exception:  # noqa: BLE001 - a timer must never die silently
        logger.exception(f"timer failed for group {table.group_id}")


deadlines.on_due(_timer_came_due)
