"""Save before effect: the pipeline every change of a table runs through.

Data flows one way: command → engine move → new state → saved → messages.

Every change runs through :func:`run_locked`. A change counts only once its save
committed; when the store raises, the table (and the registry's indexes) go back to the
last saved state (:func:`undo`), the change's messages are dropped, the actor is told
:data:`~.basics.NOT_APPLIED` and the cause is logged. A timer whose save failed
retries later (backoff). After an accepted move, :func:`_commit` runs the automatic
moves that follow, saves, and assembles the post; a finished game's record and end
message are written in one transaction, and the end message goes in the post of the
game's last move (it names ``/对局 N`` for the deal and every move); it is marked announced once sent
(any not sent is sent by :mod:`.announce` when a bot connects). :func:`says_to_outs`
turns an adapter's :class:`Say` list into messages.

Owns the pipeline; may call :mod:`.basics`, :mod:`.automatic` and
:func:`.deadlines.schedule`; the stages (seating, turns, announce) call it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

from nonebot import logger
from nonebot.adapters import Bot

from paizhuo_db.store import AccountLost

from .. import ordering
from ..games.base import Say, is_computer
from ..messaging import (
    Outgoing,
    connection,
    group,
    media_blocked,
    plain,
    private,
    submit,
)
from ..pictures import (
    later,
    pictures_on,
    settlement_picture,
    table_picture,
    take_later,
)
from ..port import room_of
from ..runs import assemble, dump_outs, in_tuoguan, load_outs
from ..tables import (
    REGISTRY,
    SaveFailed,
    Table,
    timer_now,
)
from .automatic import _automatic_move, _next_automatic
from .basics import _actor, log_event, numbered
from .deadlines import schedule


def says_to_outs(table: Table, says: list[Say]) -> list[Outgoing]:
    """An adapter's :class:`Say` list as messages to the group and the seated users
    (computer players get no private messages). Once no secret phase runs, its group
    messages release held failure notices (G-4). A private message that is just the
    seat's current hand is a hand update: a newer one replaces it while it waits. The
    private messages of a seat the game waits for are urgent (sent before the others)."""
    release = table.engine is None or not table.adapter.secret_phase(table.engine)
    acting = _acting_seats(table) if release else set()
    outs = []
    for s in says:
        if s.seat is None:
            out = group(table.group_id, s.message, release)
            out.prompt = s.prompt
            outs.append(out)
            continue
        if is_computer(table.seats[s.seat].user_id):
            continue
        out = private(table.seats[s.seat].user_id, s.message, table.group_id, s.secret)
        if s.update or out.message == plain(table.adapter.hand(table.engine, table.seats, s.seat)):
            out.coalesce = "hand"
        if s.update:
            out.hand_of = s.seat
        out.urgent = s.seat in acting
        outs.append(out)
    return outs


def acting_seats(table: Table) -> set[int]:
    """:func:`_acting_seats` outside a secret phase (none during one): the seats whose
    requested answers (/提示, /手牌, /记牌) are urgent too — they need them to act."""
    if table.engine is None or table.adapter.secret_phase(table.engine):
        return set()
    return _acting_seats(table)


def _acting_seats(table: Table) -> set[int]:
    """The seats the game waits for now: their private messages (a hand with the bottom,
    a hand after tribute, a question) go before other waiting messages. Empty during a
    secret phase, so the group's messages never wait on a hidden role's (G-4)."""
    if table.engine is None or table.adapter.is_over(table.engine):
        return set()
    return set(table.adapter.waiting_seats(table.engine))


RESTART_AFTER = timedelta(seconds=0.5)
"""A deadline set by an action restarts when the action's prompt was sent this much later."""


async def run_locked(bot: Bot | None, table: Table,
                     change: Callable[[], Awaitable[list[Outgoing]]],
                     failed: Outgoing | None = None) -> bool:
    """Apply ``change`` under the table's lock and queue its messages before releasing it
    (so one table's messages go out in command order); then wait for them to be sent.

    ``change`` saves what it changed before it returns. When it raises (a failed save,
    :class:`SaveFailed`, or anything else) the change does not count: the table goes
    back to its last saved state, its messages are dropped, ``failed`` (the actor's
    :data:`NOT_APPLIED` reply, ``None`` for a timer) is sent instead, the cause is logged
    and the table's timer is re-armed with a backoff. When the change set a new deadline
    (a turn, a private question), the full time counts from when its prompt was actually
    sent: the deadline is set again then (unless the table changed meanwhile). End
    messages the change produced are marked announced once sent. Returns whether the
    change counted."""
    async with table.lock:
        registered = REGISTRY.get(table.group_id) is table
        before = table.deadline
        take_later(table)
        try:
            outs = await change()
            ok = True
        except Exception as err:  # noqa: BLE001 - any failure: undo, tell, log
            undo(table, registered, err)
            # A process that does not hold the account (another one took it) says nothing.
            outs = [failed] if failed is not None and not fenced(err) else []
            ok = False
        announcing, table.announcing = table.announcing, []
        REGISTRY.claims.update(uid for uid, _ in announcing)
        armed = (table.deadline, table.remind_at)
        changed_at = timer_now()
        delivery = submit(bot, outs) if bot is not None else None
        if bot is None and outs:
            logger.warning(f"no bot connected: {len(outs)} message(s) for group {table.group_id} dropped")
        # The pictures after the texts: drawn (in the drawing thread) while the texts go
        # out, queued after them, still under the lock (the table's order holds).
        due = take_later(table)  # dropped with the change's texts when it failed
        if bot is not None:  # pictures remembered failing are left out: not even drawn
            due = [p for p in due if not media_blocked(bot, "image", "group", p.group_id)]
        drawn = submit(bot, [await p.outgoing() for p in due]) if due and ok and bot else None
    ordering.applied()  # the actor's next command may start; these messages are queued
    try:
        if delivery is not None:
            await delivery.prompt_sent()
            if (ok and armed[0] is not None and armed[0] != before
                    and timer_now() - changed_at >= RESTART_AFTER):
                await _restart_deadline(table, armed, changed_at)
            await delivery.sent()
        if drawn is not None:
            await drawn.sent()
    finally:
        for uid, out in announcing:
            if out.sent:
                await mark_announced(uid)
            REGISTRY.claims.discard(uid)
    return ok


async def _restart_deadline(table: Table, armed: tuple, changed_at) -> None:
    """The prompt of a change went out late: its deadline counts from now (saved; a
    failed save keeps the earlier deadline)."""
    async with table.lock:
        if REGISTRY.get(table.group_id) is not table or (table.deadline, table.remind_at) != armed:
            return
        table.rearm()
        try:
            await REGISTRY.save(table)
        except SaveFailed as err:
            logger.warning(f"event=deadline_from_send_not_saved group={table.group_id} cause={err!r}")
            table.revert()
            REGISTRY.reinstate(table, True)
        schedule(table)
        log_event(table, "deadline_from_send",
                  delay=round((timer_now() - changed_at).total_seconds(), 1))


def fenced(err: BaseException) -> bool:
    """Whether a change failed because this process does not hold its table's account
    (any more): another process took it, or is about to (``paizhuo_db.holds``)."""
    return isinstance(err, SaveFailed) and isinstance(err.__cause__, AccountLost)


def undo(table: Table, registered: bool, err: BaseException) -> None:
    """A change failed: back to the last saved state (caller holds the lock); log the
    cause; re-arm the timer after a backoff."""
    REGISTRY.claims.difference_update(uid for uid, _ in table.announcing)
    table.announcing = []
    if fenced(err):
        logger.warning(f"event=save_fenced group={table.group_id} game={table.game} "
                       f"table={table.uid or '-'} account={table.account}: this process does "
                       "not hold the account; the change was dropped")
    elif isinstance(err, SaveFailed):
        cause = err.__cause__ or err
        logger.error(f"event=save_failed group={table.group_id} game={table.game} "
                     f"table={table.uid or '-'} cause={cause!r}: the change was undone")
    else:
        logger.opt(exception=err).error(f"event=change_failed group={table.group_id} "
                                        f"game={table.game}: the change was undone")
    if table.saved is None:  # never saved (opening the table failed): it does not exist
        REGISTRY.reinstate(table, registered=False)
        return
    table.revert()
    REGISTRY.reinstate(table, registered)
    table.save_failed()
    schedule(table)


async def mark_announced(uid: str) -> None:
    """Best effort: a failed mark only means the end message is sent again later."""
    try:
        await REGISTRY.require_store().mark_announced(uid)
    except Exception as err:  # noqa: BLE001
        logger.warning(f"event=mark_announced_failed uid={uid} cause={err!r}")


RUN_LIMIT = 12
"""Most automatic moves in one post when nobody decides for a long time (only computer
players and players in 托管 left, or a person who went out): the run posts and pauses
again after this many."""


def _post(table: Table, last: list[Outgoing]) -> list[Outgoing]:
    """The run's messages kept with the table and ``last`` as one post (``runs.assemble``);
    the table keeps none any more."""
    earlier = load_outs(table.pending)
    table.pending = []
    names = {s.user_id: s.name for s in table.seats}
    # Every move leaves the prompt for the turn after it: the latest one is current while
    # the game waits for one seat's move, and none is when it waits for private answers
    # (扣底, 还贡, 明/暗) or is over.
    turn = (table.engine is not None and not table.adapter.is_over(table.engine)
            and table.adapter.acting_seat(table.engine) is not None)
    outs = assemble(earlier, last, _actor(table), names, prompt=turn)
    acting = table.adapter.acting_seat(table.engine) if turn else None
    if acting is not None and table.seats[acting].user_id in table.auto:
        for out in outs:  # the bot moves for them after a pause, not in the turn time
            if out.prompt:
                out.message = in_tuoguan(out.message)
    if table.engine is not None:
        # A hand update was written at its player's move; the post may report later moves
        # (the computers' after it): its counts are those after all of them.
        for out in outs:
            if out.hand_of is not None and table.engine.hands[out.hand_of]:
                out.message = plain(table.adapter.hand_update(table.engine, table.seats,
                                                              out.hand_of))
        if acting is not None and table.seats[acting].user_id not in table.auto:
            _private_turn(table, outs, acting)
    return outs


def _private_turn(table: Table, outs: list[Outgoing], seat: int) -> None:
    """On a side where players act in private chat (``Room.plays_privately``: the official
    bot), the person to play gets their hand with the turn and the plays worth making as
    choices (the hints, then 过 when passing is allowed), in the private message the post
    carries or a new one. Only the player to act gets it, when the group's prompt names
    them: it tells nothing the group does not see (G-4). A message that already ends
    with the seat's whole hand (the deal, 扣底 done) gets the turn under it, not the hand
    a second time."""
    user = table.seats[seat].user_id
    if is_computer(user) or table.engine is None:
        return
    bot = connection(table.account) if table.account is not None else None
    room = room_of(bot) if bot is not None else None
    if room is None or not room.plays_privately:
        return
    adapter, game = table.adapter, table.engine
    choices = adapter.turn_choices(game, seat)
    lines = adapter.hand_update(game, table.seats, seat)
    if getattr(game, "phase", "play") != "play" and choices:
        lines += "\n轮到你：" + " / ".join(choices)
    text = plain(lines)
    turn_line, whole = lines.rsplit("\n", 1)[-1], adapter.hand(game, table.seats, seat)
    for out in outs:
        if out.kind == "private" and out.target == user and out.hand_of == seat:
            out.message, out.choices, out.urgent = text, choices, True
            return
        if (out.kind == "private" and out.target == user and turn_line.startswith("轮到你")
                and out.message.extract_plain_text().endswith(whole)):
            out.message = out.message + plain("\n" + turn_line)
            out.choices, out.urgent = choices, True
            return
    out = private(user, text, table.group_id)
    out.coalesce, out.hand_of, out.urgent, out.choices = "hand", seat, True, choices
    outs.append(out)


async def _commit(table: Table, outs: list[Outgoing], keep_deadline: bool = False,
                  paused: bool = False) -> list[Outgoing]:
    """After an accepted change: run the automatic moves that follow, save, and return the
    messages to post (with the end message when the game is over).

    Automatic moves (:func:`_next_automatic`) continue the change's run: 要不起自动过 at
    once, in the same save as the change; a computer player or a player in 托管 only after
    the pause (``paused``: this change is that pause's timer, or a timeout): before it,
    the messages are kept with the table (``Table.pending``) and the timer is armed. A
    paused run saves each move before the next (save before effect) and posts once, after
    its last save, when a person must decide (or the game is over, or after
    :data:`RUN_LIMIT` moves, or before a move for a player in 托管 other than its first:
    each round of a player in 托管 is a post of its own, with the pause before the next,
    in which ``/托管`` or a play cancels it): one post with every move in order, ending
    with the prompt
    that @-mentions only that person. ``keep_deadline``: the change happened within a
    secret phase, whose time limit must not move (G-4: it would tell that someone
    answered)."""
    adapter = table.adapter
    moves = 0
    while (kind := _next_automatic(table)) is not None:
        if not paused and kind != "pass":
            table.pending += dump_outs(outs)  # the pause comes first: the post waits for the run
            table.rearm()
            await REGISTRY.save(table)
            schedule(table)
            return []
        if moves >= RUN_LIMIT or (kind == "auto" and moves):
            # A long run, or back at a player in 托管: post what it has, pause again.
            outs = _post(table, outs)
            table.rearm()
            await REGISTRY.save(table)
            schedule(table)
            return outs
        table.pending += dump_outs(outs)
        if paused:  # each move of the run is saved before the next one is made
            table.rearm()
            await REGISTRY.save(table)
        outs = says_to_outs(table, await _automatic_move(table, kind))
        moves += 1
    if table.playing and adapter.is_over(table.engine):
        outs = _post(table, outs)
        uid = table.uid or ""
        REGISTRY.claims.add(uid)  # claimed before the record (and its end message) is written
        try:
            record, message, number = await REGISTRY.record_finished(table)
        except BaseException:
            REGISTRY.claims.discard(uid)
            raise
        log_event(table, "finished", number=number)
        # The end message rides in the last move's post (one post for the last decision);
        # what the group could not see (every hand as dealt, the bottom, ...) and every
        # move are one command away: its last line names /对局 N, no card of its own.
        end = group(table.group_id, numbered(message, number))
        outs.append(end)
        table.announcing.append((record.uid, end))
        if pictures_on() and (settled := settlement_picture(
                adapter, table.engine, table.seats, table.group_id, number)) is not None:
            later(table, settled)  # the settlement picture, after the end message
        if REGISTRY.get(table.group_id) is not table:  # closed: only computer players were left
            schedule(table)
            return outs
    else:
        outs = _post(table, outs)
        if not keep_deadline:
            table.rearm()
        await REGISTRY.save(table)
        told = any(o.kind == "group" and o.target == table.group_id for o in outs)
        if told and table.setting("picture_table") and pictures_on():
            # Only after what the group is told: a picture after a private answer alone
            # would tell that someone answered (G-4).
            later(table, table_picture(adapter, table.engine, table.seats, table.group_id))
    schedule(table)
    return outs
