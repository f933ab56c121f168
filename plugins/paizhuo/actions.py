"""What each command does to the tables: game-independent, chat-shaped (collects the
messages to send), with the table lock held while the state changes and released before
anything is sent. Also the private-answer deadlines (timers) of every table.

Data flows one way: command → engine move → new state → saved → messages.

Save before effect: every change of a table runs through :func:`run_locked`. A change
counts only once its save committed; when the store raises, the table (and the registry's
indexes) go back to the last saved state, the change's messages are dropped, the actor is
told :data:`NOT_APPLIED` and the cause is logged. A timer whose save failed retries later
(backoff). A finished game's record and end message are written in one transaction; the
end message is marked announced once sent, and any not sent (a crash, no bot connected)
is sent when a bot connects.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from collections.abc import Awaitable, Callable
from datetime import timedelta

from nonebot import logger
from nonebot.adapters.onebot.v11 import Bot, Message, MessageSegment

from db.store import LiveTableTaken
from engine.errors import MoveError
from engine.numbers import parse_int
from engine.settings import Setting, SettingError
from plugins.paizhuo import accounts, ai_turn, ordering
from plugins.paizhuo import tables as _tables
from plugins.paizhuo.config import plugin_config
from plugins.paizhuo.games import GAMES, GameAdapter, UsageError, find_game
from plugins.paizhuo.games.base import COMPUTER_PREFIX, Say, SeatView, computer_name, is_computer
from plugins.paizhuo.messaging import (
    Outgoing,
    call_api,
    deliver,
    group,
    plain,
    private,
    refusal,
    submit,
)
from plugins.paizhuo.pictures import (
    Pending,
    end_details,
    later,
    pictures_on,
    table_picture,
    take_later,
)
from plugins.paizhuo.runs import assemble, dump_outs, load_outs, only_at
from plugins.paizhuo.tables import (
    FINISHED,
    PLAYING,
    REGISTRY,
    WAITING,
    SaveFailed,
    Table,
    message_from_json,
    now_utc,
    timer_now,
)

JOIN_HINT = "发送 /加入 入座"
NO_TABLE = "本群还没有牌桌，发送 /开局 <游戏> 开一桌（抓特务 / 挖坑 / 手把一，/帮助 查看用法）。"
OTHER_TABLE = "你已经在另一个群的牌桌上了，先在那边 /退出 或打完。"
NOT_APPLIED = "没有生效，请重试。"
"""Reply to a command whose change could not be saved."""
RESTART_PREFIX = "机器人重启前这局已结束：\n"
RECONNECT_PREFIX = "机器人掉线时这局已结束：\n"
_STARTED_AT = now_utc()
_in_flight: set[str] = set()
"""Games whose end message is being sent by the change that finished them."""


def reply(group_id: str, user_id: str, text: str) -> Outgoing:
    """A short group reply that @-mentions the player."""
    return group(group_id, MessageSegment.at(int(user_id)) + MessageSegment.text(f" {text}"))


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
        out.urgent = s.seat in acting
        outs.append(out)
    return outs


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
            outs = [failed] if failed is not None else []
            ok = False
        announcing, table.announcing = table.announcing, []
        _in_flight.update(uid for uid, _ in announcing)
        armed = (table.deadline, table.remind_at)
        changed_at = timer_now()
        delivery = submit(bot, outs) if bot is not None else None
        if bot is None and outs:
            logger.warning(f"no bot connected: {len(outs)} message(s) for group {table.group_id} dropped")
        # The pictures after the texts: drawn (in the drawing thread) while the texts go
        # out, queued after them, still under the lock (the table's order holds).
        due = take_later(table)  # dropped with the change's texts when it failed
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
            _in_flight.discard(uid)
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


def undo(table: Table, registered: bool, err: BaseException) -> None:
    """A change failed: back to the last saved state (caller holds the lock); log the
    cause; re-arm the timer after a backoff."""
    table.announcing = []
    if isinstance(err, SaveFailed):
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


async def can_message_privately(bot: Bot, user_id: str) -> bool:
    """Whether ``user_id`` is on the bot's friend list (hands go only by private message
    between friends, never through a group temp session)."""
    try:
        friends = await call_api(bot, "get_friend_list")
    except Exception as err:  # noqa: BLE001
        logger.warning(f"get_friend_list failed: {err!r}")
        return False
    return any(str(f.get("user_id")) == user_id for f in friends)


def not_friend_text() -> str:
    """Reply for a player the bot cannot message privately."""
    return "机器人需要私聊给你发牌：请先加机器人为好友，再来入座。"


def capacity(table: Table) -> int:
    """The seats of a table: its size, or the game's seat limit for an open-ended table
    (手把一 opened without a size starts on ``/开始``)."""
    return table.size or table.adapter.max_seats(table.settings)


def seat_list(table: Table) -> str:
    """``1.张三 2.李四（2/4）`` (``2/最多 6`` for an open-ended table)."""
    names = " ".join(f"{i + 1}.{s.name}" for i, s in enumerate(table.seats))
    limit = table.size or f"最多 {capacity(table)}"
    return f"{names}（{len(table.seats)}/{limit}）"


# ---- deadlines ---------------------------------------------------------------------------
_timers: dict[str, asyncio.Task] = {}
_deferred: set[str] = set()
"""Tables whose timer came due while no bot was connected."""


def log_event(table: Table, event: str, seat: int | None = None, **extra: object) -> None:
    """One structured INFO line per table event and accepted move."""
    fields = [f"event={event}", f"group={table.group_id}", f"game={table.game}",
              f"table={table.uid or '-'}"]
    if seat is not None:
        fields.append(f"seat={seat + 1} user={table.seats[seat].user_id}")
    fields += [f"{k}={v!r}" for k, v in extra.items()]
    logger.info(" ".join(fields))


def schedule(table: Table) -> None:
    """(Re)arm the table's timer for its saved reminder / deadline; an expired one fires
    at once. Without either, the table has no timer."""
    old = _timers.pop(table.group_id, None)
    if old is not None and old is not asyncio.current_task():
        old.cancel()
    times = [t for t in (table.remind_at, table.deadline, table.computer_at) if t is not None]
    if times and REGISTRY.get(table.group_id) is table:
        when = min(times)
        if table.retry_at is not None and table.retry_at > when:
            when = table.retry_at  # the last save failed: retry later, never spin
        _timers[table.group_id] = asyncio.create_task(_fire(table, when))


def cancel_timers() -> None:
    """Stop every timer (shutdown, tests)."""
    for task in _timers.values():
        task.cancel()
    _timers.clear()
    _deferred.clear()


async def _fire(table: Table, when) -> None:
    """The timer of a table: wait (on the monotonic clock, ``timer_now`` time) until
    ``when``, then act under the table's lock."""
    await _tables.CLOCK.sleep(max(0.0, (when - timer_now()).total_seconds()))
    bot = accounts.bot_for(table)
    if bot is None:
        # Nobody could be told: act when the table's account connects (bot_connected
        # re-arms the timers); no other account speaks for it.
        logger.info(f"event=timer_deferred group={table.group_id} account={table.account} "
                    "reason=no_bot")
        _deferred.add(table.group_id)
        return
    try:
        await run_locked(bot, table, lambda: _on_time(table))
    except Exception:  # noqa: BLE001 - a timer must never die silently
        logger.exception(f"timer failed for group {table.group_id}")


async def _on_time(table: Table) -> list[Outgoing]:
    """What happens when a table's reminder or deadline comes (under the lock). A post
    of a timer is the table's one post after a restart: the table is no longer
    re-posted by :func:`announce_resumed`."""
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
    if user in table.auto:
        with ai_turn.deciding(await ai_turn.prepare(table, seat)):
            says += adapter.auto_move(table.engine, table.seats, seat, "托管")
        log_event(table, "auto_move", seat)
    else:
        simple = table.setting("timeout_play") == "简单"
        with ai_turn.deciding(await ai_turn.prepare(table, seat)):
            says += adapter.auto_move(table.engine, table.seats, seat, "超时", simple=simple)
        table.timeouts[user] = table.timeouts.get(user, 0) + 1
        log_event(table, "timeout_move", seat, in_a_row=table.timeouts[user])
        if table.timeouts[user] >= 2:
            table.auto.append(user)
            says.append(Say(f"{table.seats[seat].name} 连续两次超时，进入托管：机器人代打，"
                            "发送任意出牌命令或 /托管 即可取消。"))
            log_event(table, "auto_on", seat)
    return await _commit(table, says_to_outs(table, says), paused=True)


def warning_text(table: Table, now) -> str:
    """The reminder before the turn time runs out: the seconds left and what the bot will
    then do, truthfully and the same whatever the hand (G-4): a player in 托管 is moved
    with the computer players' play, a timed-out one by the group's 超时代打 rule."""
    left = max(1, int((table.deadline - now).total_seconds())) if table.deadline else 0
    seat = table.adapter.acting_seat(table.engine)
    simple = (table.seats[seat].user_id not in table.auto
              and table.setting("timeout_play") == "简单")
    return f"还剩 {left} 秒，超时机器人将{table.adapter.timeout_words(table.engine, simple)}。"


RUN_LIMIT = 12
"""Most automatic moves in one post when nobody decides for a long time (only computer
players and players in 托管 left, or a person who went out): the run posts and pauses
again after this many."""


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
    if kind == "auto":
        log_event(table, "auto_move", seat)
        return adapter.auto_move(table.engine, table.seats, seat, "托管")
    log_event(table, "auto_pass", seat)
    return adapter.pass_for(table.engine, table.seats, seat, "要不起，自动过")


async def _computer_moves(table: Table) -> list[Say]:
    """Every computer player the game waits for acts, through the same engine calls as a
    human's move; a failing strategy falls back to the timeout rule (never stalls)."""
    adapter = table.adapter
    says: list[Say] = []
    for seat in adapter.waiting_seats(table.engine):
        if not is_computer(table.seats[seat].user_id) or adapter.is_over(table.engine):
            continue
        snapshot = adapter.dump(table.engine)
        choice = await ai_turn.prepare(table, seat)
        try:
            with ai_turn.deciding(choice):
                says += adapter.computer_turn(table.engine, table.seats, seat)
        except Exception:  # noqa: BLE001 - fall back to the timeout rule, never stall
            logger.exception(f"computer move failed group={table.group_id} seat={seat}")
            table.engine = adapter.load(snapshot)
            if adapter.prompt_seconds(table.engine):
                says += adapter.timeout(table.engine, table.seats)
            elif adapter.acting_seat(table.engine) == seat:
                says += adapter.auto_move(table.engine, table.seats, seat, "超时")
        log_event(table, "computer_move", seat)
    return says


async def _computers_act(table: Table) -> list[Outgoing]:
    """The computer players' pause ran out (under the lock): they act, and the run goes
    on through every automatic move up to the next person's decision (see
    :func:`_commit`)."""
    adapter = table.adapter
    table.computer_at = None
    secret = adapter.secret_phase(table.engine)
    says = await _computer_moves(table)
    keep = secret and adapter.secret_phase(table.engine)  # G-4: a secret phase keeps its time limit
    return await _commit(table, says_to_outs(table, says), keep, paused=True)


def numbered(message: Message, number: int | None) -> Message:
    """An end message with the game's number in its group (第 N 局) and how to replay it."""
    if not number:
        return message
    return message + MessageSegment.text(f"\n本群第 {number} 局，/对局 {number} 查看复盘。")


def _actor(table: Table) -> str | None:
    """The user who must decide now (the only one a post may @-mention), if any."""
    if not table.playing or table.adapter.is_over(table.engine):
        return None
    seat = table.adapter.acting_seat(table.engine)
    if seat is None:
        return None
    user = table.seats[seat].user_id
    return None if is_computer(user) or user in table.auto else user


def _at_actor_only(table: Table, message: Message) -> Message:
    """``message`` (the table with its prompt) @-mentioning only the user who must decide
    now: a player in 托管 is named, not @-mentioned."""
    return only_at(message, _actor(table), {s.user_id: s.name for s in table.seats})


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
    return assemble(earlier, last, _actor(table), names, prompt=turn)


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
    :data:`RUN_LIMIT` moves): one post with every move in order, ending with the prompt
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
        if moves >= RUN_LIMIT:
            outs = _post(table, outs)  # a long run: post what it has, pause again
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
        record, message, number = await REGISTRY.record_finished(table)
        log_event(table, "finished", number=number)
        end = group(table.group_id, numbered(message, number))
        outs.append(end)
        table.announcing.append((record.uid, end))
        details = end_details(adapter, table.engine, table.seats, table.group_id, number,
                              message.extract_plain_text(), record.summary.get("replay"))
        if isinstance(details, Pending):
            later(table, details)
        elif details is not None:
            outs.append(details)
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


# ---- table life ------------------------------------------------------------------------------
async def group_settings(group_id: str, adapter: GameAdapter) -> dict:
    """The group's settings for a game, defaults filled in, invalid values dropped."""
    stored = await REGISTRY.require_store().get_settings(group_id, adapter.name)
    return adapter.schema.clean(stored)


def deal_seed(table: Table) -> int:
    """A fresh random seed, or one derived from ``DEAL_SEED``, the group and the game
    number when that setting is given."""
    base = plugin_config().deal_seed
    if base is None:
        return secrets.randbits(62)
    digest = hashlib.sha256(f"{base}:{table.group_id}:{table.games}".encode()).hexdigest()
    return int(digest[:15], 16)


async def start_game(table: Table) -> list[Outgoing]:
    """Deal (seats full, or everyone sent /继续) with the group's current settings; returns
    the start messages, hands and prompts. Caller holds the table lock."""
    table.settings = await group_settings(table.group_id, table.adapter)
    table.engine = table.adapter.new_game(len(table.seats), table.settings, deal_seed(table),
                                          table.carried_previous())
    table.status = PLAYING
    table.ready = []
    table.games += 1
    table.started_at = now_utc()
    table.uid = f"{table.group_id}-{table.started_at:%Y%m%d%H%M%S%f}-{secrets.token_hex(4)}"
    table.auto, table.timeouts = [], {}
    table.rearm()
    await REGISTRY.save(table)
    schedule(table)
    log_event(table, "start", number=table.games, seed=table.engine.seed)
    return says_to_outs(table, table.adapter.start(table.engine, table.seats))


async def open_table(bot: Bot, group_id: str, user_id: str, name: str, args: str) -> None:
    """``/开局 <游戏> <人数>``: open a table in the group and seat the opener."""
    text = unicodedata.normalize("NFKC", args).strip()
    game_name = next((g for g in GAMES if text.startswith(g)), text.split()[0] if text.split() else "")
    try:
        adapter: GameAdapter = find_game(game_name)
        size = adapter.parse_size(text[len(game_name):].strip())
    except UsageError as err:
        await deliver(bot, [reply(group_id, user_id, str(err))])
        return
    settings = await group_settings(group_id, adapter)
    limit = adapter.max_seats(settings)
    if limit and size > limit:
        await deliver(bot, [reply(group_id, user_id, f"本群{adapter.name}最多 {limit} 人（/规则 {adapter.name} 人数上限）。")])
        return
    if not await can_message_privately(bot, user_id):
        await deliver(bot, [reply(group_id, user_id, not_friend_text())])
        return
    async with REGISTRY.guard:
        existing = REGISTRY.get(group_id)
        if existing is not None:
            out = reply(group_id, user_id, f"本群已有一桌{existing.game}，{JOIN_HINT}，或等这桌结束。")
        elif REGISTRY.table_of_user(user_id) is not None:
            out = reply(group_id, user_id, OTHER_TABLE)
        else:
            table = Table(group_id=group_id, game=adapter.name, size=size, opener=user_id,
                          seats=[SeatView(user_id, name)], created_at=now_utc(),
                          account=bot.self_id)
            REGISTRY.add(table)
            out = None
    if out is not None:
        await deliver(bot, [out])
        return

    async def change() -> list[Outgoing]:
        table.settings = settings
        table.rearm()
        try:
            await REGISTRY.save(table)
        except SaveFailed as err:
            if not isinstance(err.__cause__, LiveTableTaken):
                raise
            # Another account (another process) opened a table here a moment ago: this
            # one never existed (nothing was written).
            async with REGISTRY.guard:
                REGISTRY.remove(table)
            log_event(table, "open_refused", 0, owner=err.__cause__.account)
            return [reply(group_id, user_id, f"本群已有一桌，{JOIN_HINT}，或等这桌结束。")]
        schedule(table)
        log_event(table, "open", 0, size=size)
        how = f"{size} 人" if size else f"2–{capacity(table)} 人，开局人发送 /开始 开打"
        return [group(group_id, f"{name} 开了一桌{adapter.name}（{how}），"
                                f"{JOIN_HINT}。\n座位：{seat_list(table)}")]

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


def open_seats(table: Table) -> bool:
    """Whether a newcomer may sit down: before the first deal, or between games after a
    player left (a fixed-size table is then short of players) or in a computer player's
    seat."""
    if table.status == WAITING:
        return True
    return table.status == FINISHED and (
        len(table.seats) < capacity(table) or len(table.humans()) < len(table.seats))


def ready_to_deal(table: Table) -> bool:
    """Between games: every seated player sent ``/继续`` (a newcomer counts as ready) and
    the table is full again (an open-ended 手把一 table needs 2 or more)."""
    if any(s.user_id not in table.ready for s in table.seats):
        return False
    return len(table.seats) >= 2 if not table.size else len(table.seats) == table.size


def between_games_status(table: Table) -> str:
    """Who the table waits for between games: seats to fill and players to send /继续."""
    parts = []
    if table.size and len(table.seats) < table.size:
        parts.append(f"还差 {table.size - len(table.seats)} 人（{JOIN_HINT}）")
    waiting = "、".join(s.name for s in table.seats if s.user_id not in table.ready)
    if waiting:
        parts.append(f"等 /继续：{waiting}")
    return "；".join(parts)


async def join_table(bot: Bot, group_id: str, user_id: str, name: str) -> None:
    """``/加入``: take a seat; the game starts by itself when the seats are full. Between
    games a newcomer takes a seat left free (and counts as ready for the next game)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    if table.seat_of(user_id) is not None:
        await deliver(bot, [reply(group_id, user_id, "你已经在这桌了。")])
        return
    if not open_seats(table):
        await deliver(bot, [reply(group_id, user_id, full_text(table))])
        return
    if not await can_message_privately(bot, user_id):
        await deliver(bot, [reply(group_id, user_id, not_friend_text())])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or not open_seats(table):
            return [reply(group_id, user_id, full_text(table))]
        if table.seat_of(user_id) is not None:
            return [reply(group_id, user_id, "你已经在这桌了。")]
        replaced, joined = None, name
        if len(table.seats) >= capacity(table):
            computers = [i for i, s in enumerate(table.seats) if is_computer(s.user_id)]
            if table.status != FINISHED or not computers:
                return [reply(group_id, user_id, "这桌已经坐满了。")]
            replaced = computers[-1]
        async with REGISTRY.guard:
            if REGISTRY.table_of_user(user_id) is not None:
                return [reply(group_id, user_id, OTHER_TABLE)]
            if replaced is None:
                table.seats.append(SeatView(user_id, name))
            else:
                gone = table.seats[replaced].user_id
                table.ready = [u for u in table.ready if u != gone]
                table.seats[replaced] = SeatView(user_id, name)
                joined = f"{name} 替下 {computer_name(gone)}"
            REGISTRY.by_user[user_id] = group_id
        log_event(table, "join", table.seat_of(user_id))
        if table.status == FINISHED:
            table.ready.append(user_id)
            if ready_to_deal(table):
                return [group(group_id, f"{joined} 入座。")] + await start_game(table)
            outs = [group(group_id, f"{joined} 入座。座位：{seat_list(table)}\n"
                                    f"{between_games_status(table)}")]
        else:
            outs = [group(group_id, f"{joined} 入座。座位：{seat_list(table)}")]
            if len(table.seats) == capacity(table):
                return outs + await start_game(table)
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        return outs

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


def full_text(table: Table) -> str:
    """Why a newcomer cannot sit down now."""
    if table.playing:
        return "这桌正在打，等这局结束、有人 /退出 后再 /加入。"
    return "这桌已经坐满了。"


async def add_computers(bot: Bot, group_id: str, user_id: str, arg: str, is_manager: bool) -> None:
    """``/加机器人 [n]``: seat ``n`` (default 1) computer players 电脑1, 电脑2 … before the
    start or between games (the opener, a group admin/owner or a SUPERUSER); the game
    starts as usual when the seats are full."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    text = unicodedata.normalize("NFKC", arg).strip()
    count = CN_NUMBERS[text] if text in CN_NUMBERS else parse_int(text, max_digits=2)
    if count is None or count < 1:
        await deliver(bot, [reply(group_id, user_id, "用法：/加机器人 [人数]，例如 /加机器人 2。")])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以加机器人。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.playing:
            return [reply(group_id, user_id, "牌局进行中不能加机器人；等这局结束再加。")]
        free = capacity(table) - len(table.seats)
        if free <= 0:
            return [reply(group_id, user_id, "这桌已经坐满了。")]
        if count > free:
            return [reply(group_id, user_id, f"这桌只剩 {free} 个空位。")]
        taken = {s.user_id for s in table.seats}
        added = []
        n = 1
        while len(added) < count:
            uid = f"{COMPUTER_PREFIX}{n}"
            if uid not in taken:
                table.seats.append(SeatView(uid, computer_name(uid)))
                added.append(computer_name(uid))
                if table.status == FINISHED:
                    table.ready.append(uid)
            n += 1
        log_event(table, "computers_in", count=count)
        line = f"{'、'.join(added)} 入座（电脑玩家）。"
        if table.status == WAITING and len(table.seats) == capacity(table):
            return [group(group_id, line)] + await start_game(table)
        if table.status == FINISHED and ready_to_deal(table):
            return [group(group_id, line)] + await start_game(table)
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        status = between_games_status(table) if table.status == FINISHED else ""
        return [group(group_id, f"{line}座位：{seat_list(table)}" + (f"\n{status}" if status else ""))]

    await run_locked(bot, table, change)


async def remove_computers(bot: Bot, group_id: str, user_id: str, is_manager: bool) -> None:
    """``/踢机器人``: every computer player leaves (before the start or between games)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以请机器人离座。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.playing:
            return [reply(group_id, user_id, "牌局进行中不能请机器人离座；等这局结束。")]
        gone = [s for s in table.seats if is_computer(s.user_id)]
        if not gone:
            return [reply(group_id, user_id, "这桌没有电脑玩家。")]
        table.seats = [s for s in table.seats if not is_computer(s.user_id)]
        table.ready = [u for u in table.ready if not is_computer(u)]
        names = "、".join(s.name for s in gone)
        log_event(table, "computers_out", count=len(gone))
        if not table.seats:
            async with REGISTRY.guard:
                await REGISTRY.close(table)
            schedule(table)
            return [group(group_id, f"{names} 离座，牌桌已关闭。")]
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        status = between_games_status(table) if table.status == FINISHED else ""
        return [group(group_id, f"{names} 离座。座位：{seat_list(table)}" + (f"\n{status}" if status else ""))]

    await run_locked(bot, table, change)


CN_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "": 1}
"""``/加机器人`` counts written in Chinese (and no count = 1)."""


async def start_now(bot: Bot, group_id: str, user_id: str) -> None:
    """``/开始``: the opener starts an open-ended table (2 or more seated)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.status != WAITING:
            return [reply(group_id, user_id, "这桌已经开始了。")]
        if table.size:
            return [reply(group_id, user_id, f"这桌坐满 {table.size} 人自动开始，不用 /开始。")]
        if table.opener != user_id:
            return [reply(group_id, user_id, "只有开局人可以 /开始。")]
        if len(table.seats) < 2:
            return [reply(group_id, user_id, "至少 2 人才能开始。")]
        return await start_game(table)

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


async def continue_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/继续``: after a game, every seated player agrees to the next one; it is dealt
    when everyone has and the seats are full again (a player who left is replaced by a
    newcomer's ``/加入``)."""
    table = REGISTRY.get(group_id)
    if table is None or table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在本群的牌桌上。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.status != FINISHED:
            return [reply(group_id, user_id, "现在不是两局之间，不用 /继续。")]
        if user_id not in table.ready:
            table.ready.append(user_id)
        if ready_to_deal(table):
            return await start_game(table)
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        me = table.seats[table.seat_of(user_id) or 0].name
        ready = sum(1 for s in table.seats if s.user_id in table.ready)
        return [group(group_id, f"{me} 准备好了（{ready}/{table.size or len(table.seats)}），"
                                f"{between_games_status(table)}")]

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


async def leave_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/退出``: leave before the start or between games; only that seat is freed (the
    last one out closes the table). Not during a game."""
    table = REGISTRY.get(group_id)
    if table is None or table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在本群的牌桌上。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.seat_of(user_id) is None:
            return [reply(group_id, user_id, "你不在本群的牌桌上。")]
        if table.playing:
            return [reply(group_id, user_id, "牌局进行中，不能退出；可请开局人或管理员发送 /结束。")]
        return await _unseat(table, user_id, "退出")

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


async def kick_player(bot: Bot, group_id: str, user_id: str, target: str | None,
                      is_manager: bool) -> None:
    """``/踢 @某人``: the opener, a group admin/owner or a SUPERUSER frees an absent
    player's seat before the start or between games (never during a game)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, "本群没有牌桌。")])
        return
    if target is None:
        await deliver(bot, [reply(group_id, user_id, "用法：/踢 @某人（在消息里 @ 要请离的玩家）。")])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以请人离座。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.seat_of(target) is None:
            return [reply(group_id, user_id, "这个人不在本群的牌桌上。")]
        if table.playing:
            return [reply(group_id, user_id, "牌局进行中不能请人离座；等这局结束，或 /结束 牌局。")]
        return await _unseat(table, target, "被请离座位")

    await run_locked(bot, table, change)


async def _unseat(table: Table, user_id: str, how: str) -> list[Outgoing]:
    """Free ``user_id``'s seat (not during a game; caller holds the lock): the table waits
    for a newcomer with its idle timer, or closes when no person is left — before the
    first deal as between games, computer players alone keep no table open (nobody could
    leave one behind and open another elsewhere). The opener's rights pass to the first
    person still seated."""
    seat = table.seat_of(user_id)
    assert seat is not None
    name = table.seats[seat].name
    table.seats.pop(seat)
    if user_id in table.ready:
        table.ready.remove(user_id)
    async with REGISTRY.guard:
        REGISTRY.unseat(table, user_id)
        if not table.humans():
            await REGISTRY.close(table)
            schedule(table)
            log_event(table, "close", extra_user=user_id)
            return [group(table.group_id, f"{name} {how}，牌桌已关闭。")]
    if table.opener == user_id:
        table.opener = table.humans()[0]
    log_event(table, "leave", extra_user=user_id)
    if table.status == FINISHED and ready_to_deal(table):
        return [group(table.group_id, f"{name} {how}。")] + await start_game(table)
    table.rearm()
    await REGISTRY.save(table)
    schedule(table)
    text = f"{name} {how}。座位：{seat_list(table)}"
    if table.status == FINISHED:
        text += f"\n{between_games_status(table)}"
    return [group(table.group_id, text)]


async def end_table(bot: Bot, group_id: str, user_id: str, is_manager: bool) -> None:
    """``/结束``: close the table; a game in progress is not scored and everything it hid
    is shown (opener, group admin/owner, SUPERUSER)."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, "本群没有牌桌。")])
        return
    if not is_manager and table.opener != user_id:
        await deliver(bot, [reply(group_id, user_id, "只有开局人、群主、管理员或超级用户可以结束牌局。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table:
            return [reply(group_id, user_id, "本群没有牌桌。")]
        unscored = table.playing
        held = _post(table, []) if table.pending else []  # moves made but not yet posted
        number = None
        # a void game keeps no secret: hidden roles, hands and cards are shown (G-4)
        shown = table.adapter.reveal(table.engine, table.seats) if unscored else ""
        async with REGISTRY.guard:
            if unscored:
                number = await REGISTRY.record_void(table)
            else:
                await REGISTRY.close(table)
        schedule(table)
        log_event(table, "end", by=user_id, void_number=number)
        note = "，本局不计分" if unscored else ""
        if number:
            note += f"，记为第 {number} 局（作废），/对局 {number} 可复盘"
        return held + [group(group_id, f"牌桌已关闭（{table.game}{note}）。" + (f"\n{shown}" if shown else ""),
                             release=True)]

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


# ---- playing ---------------------------------------------------------------------------------
PRIVATE_REASON = "这步没有生效，原因已私聊发给你。"


def move_refusal(table: Table, user_id: str, err: MoveError, refuse: Callable[[str], Outgoing]) -> list[Outgoing]:
    """The reply to a refused move (G-4): a reason that describes the player's hand
    (``err.private``) goes to the player alone, and the group hears only that the move was
    not accepted; any other reason is replied where the move was made. ``还没轮到你``
    says whose turn it is (public: the turn prompt names them)."""
    message = err.message
    if err.code == "not_turn" and table.engine is not None:
        acting = table.adapter.acting_seat(table.engine)  # public: the prompt @-mentions them
        if acting is not None:
            message = f"{message}，现在轮到 {table.seats[acting].name}"
    out = refuse(message)
    if not err.private or out.kind != "group":
        return [out]
    return [refuse(PRIVATE_REASON), private(user_id, err.message, table.group_id)]


async def _apply(table: Table, user_id: str, act: Callable[[int], list[Say] | None],
                 refuse: Callable[[str], Outgoing], what: str) -> list[Outgoing] | None:
    """Apply one player action under the lock: refusals change nothing; an accepted one
    ends the player's 托管 and timeout count, and is saved (with the record when the game
    ends) before its messages are returned. ``None`` when ``act`` did not recognise it.
    Raises what the engine or the save raised (:func:`run_locked` undoes the change)."""
    seat = table.seat_of(user_id)
    if REGISTRY.get(table.group_id) is not table or not table.playing or seat is None:
        return [refuse("这桌牌局已经结束了。")]
    adapter = table.adapter
    secret = adapter.secret_phase(table.engine)
    try:
        says = act(seat)
    except MoveError as err:
        return move_refusal(table, user_id, err, refuse)
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


async def move(bot: Bot, group_id: str, user_id: str, kind: str, arg: str | None) -> None:
    """A group game command (``出 <牌>``, ``过``, a bid …) at the group's table."""
    table = REGISTRY.get(group_id)
    if table is None or not table.playing:
        return
    if table.seat_of(user_id) is None:
        await deliver(bot, [refusal(reply(group_id, user_id, "你不在这桌牌局中。"), user_id)])
        return

    async def change() -> list[Outgoing]:
        outs = await _apply(
            table, user_id, lambda seat: table.adapter.act(table.engine, table.seats, seat, kind, arg),
            lambda msg: refusal(reply(group_id, user_id, msg), user_id), kind)
        return outs or []

    await run_locked(bot, table, change, reply(group_id, user_id, NOT_APPLIED))


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
    await deliver(bot, [private(user_id, text, table.group_id)])


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
            outs.append(private(user_id, text, table.group_id))
    await deliver(bot, outs)


def with_time_left(table: Table, msg: Message) -> Message:
    """A re-posted table whose prompt shows the turn time still left (``（还剩 23 秒）``)
    instead of the full limit the prompt was first sent with (``（60 秒）``, G-3)."""
    turn = getattr(getattr(table.engine, "rules", None), "turn_seconds", 0)
    if (not table.playing or table.deadline is None or not turn
            or table.adapter.prompt_seconds(table.engine)):
        return msg
    left = max(1, int((table.deadline - timer_now()).total_seconds()))
    full = f"（{turn} 秒）"
    out = Message()
    for seg in msg:
        text = seg.data.get("text", "") if seg.type == "text" else ""
        if text.endswith(full):
            seg = MessageSegment.text(text[: -len(full)] + f"（还剩 {left} 秒）")
        out.append(seg)
    return out


async def show_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/牌桌``: re-post the public table."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    async with table.lock:
        if table.status == WAITING:
            msg = plain(f"【{table.game}】等人入座：{seat_list(table)}，{JOIN_HINT}。")
        else:
            msg = with_time_left(table, _at_actor_only(
                table, table.adapter.table(table.engine, table.seats)))
            if table.status == FINISHED:
                msg += MessageSegment.text(f"\n本局已结束：{between_games_status(table)}")
    await deliver(bot, [group(group_id, msg)])


# ---- settings ------------------------------------------------------------------------------
GAME_LIST = "、".join(GAMES)
RULES_USAGE = f"用法：/规则 [游戏] [项]，例如 /规则 抓特务、/规则 抓特务 带3。游戏：{GAME_LIST}"
SET_USAGE = (f"用法：/设置 <游戏> <项> <值>，例如 /设置 抓特务 带3 开；/设置 <游戏> 默认 恢复默认。"
             f"游戏：{GAME_LIST}；可设置的项：/规则 <游戏>")


def choices_text(setting: Setting) -> str:
    """The values a setting allows, compact: ``开/关``, ``0–600``, ``a/b/c``."""
    if setting.kind == "bool":
        return "开/关"
    if setting.kind == "int":
        return f"{setting.low}–{setting.high}"
    return "/".join(setting.choices)


def _game_for(group_id: str, name: str) -> GameAdapter:
    if name:
        return find_game(name)
    table = REGISTRY.get(group_id)
    return table.adapter if table is not None else next(iter(GAMES.values()))


def _rules_target(group_id: str, words: list[str]) -> tuple[GameAdapter, Setting | None]:
    """The game and (optional) setting that ``/规则`` arguments name. A setting named
    without a game belongs to the table's game, else to the first game that has it.
    Raises :class:`UsageError` with the reply."""
    if words and words[0] in GAMES:
        adapter, rest = GAMES[words[0]], words[1:]
    else:
        adapter, rest = _game_for(group_id, ""), words
        if rest and not any(rest[0] in (x.name, x.field) for x in adapter.schema.settings):
            adapter = next((a for a in GAMES.values()
                            if any(rest[0] in (x.name, x.field) for x in a.schema.settings)), adapter)
    if not rest:
        return adapter, None
    try:
        setting = adapter.schema.find(rest[0])
    except SettingError as err:
        if not words or words[0] not in GAMES:
            raise UsageError(RULES_USAGE) from None
        raise UsageError(f"{err}。{RULES_USAGE}") from None
    if len(rest) > 1:
        raise UsageError(f"用法：/规则 {adapter.name} {setting.name}（查看这一项）；"
                         f"改：/设置 {adapter.name} {setting.name} <值>")
    return adapter, setting


async def show_rules(group_id: str, args: str) -> str:
    """``/规则 [游戏]``: every setting of the game in this group, one short line each
    (``带3：关（开/关）``); ``/规则 [游戏] <项>``: one setting explained. Wrong arguments get
    the usage."""
    try:
        adapter, setting = _rules_target(group_id, unicodedata.normalize("NFKC", args).split())
    except UsageError as err:
        return str(err)
    values = await group_settings(group_id, adapter)
    if setting is not None:
        value = setting.show(values[setting.field])
        default = setting.show(setting.default)
        return "\n".join([
            f"【{adapter.name}】{setting.name}：{value}（可选 {choices_text(setting)}，默认 {default}）",
            setting.meaning,  # no rule codes in what players read
            f"改：/设置 {adapter.name} {setting.name} <值>（群主、管理员）",
        ])
    lines = [f"【{adapter.name}】本群规则"]
    for s in adapter.schema.settings:
        mark = "，已改" if values[s.field] != s.default else ""
        lines.append(f"{s.name}：{s.show(values[s.field])}（{choices_text(s)}{mark}）")
    lines.append(f"详解一项：/规则 {adapter.name} <项>；改：/设置 {adapter.name} <项> <值>")
    return "\n".join(lines)


async def change_setting(group_id: str, args: str, is_manager: bool) -> str:
    """``/设置 <游戏> <项> <值>`` or ``/设置 <游戏> 默认`` (owner, admins, SUPERUSERS).
    Applies from the next game dealt. Wrong, missing or extra arguments get the /设置
    usage naming what is wrong."""
    if not is_manager:
        return "只有群主、管理员可以修改规则。"
    parts = unicodedata.normalize("NFKC", args).split()
    if not parts or parts[0] not in GAMES:
        wrong = f"没有“{parts[0][:20]}”这个游戏。" if parts and not any(
            parts[0] in (x.name, x.field) for a in GAMES.values() for x in a.schema.settings) else ""
        return wrong + SET_USAGE
    adapter = GAMES[parts[0]]
    store = REGISTRY.require_store()
    if parts[1:] == ["默认"]:
        if not await _store_settings(group_id, adapter.name, {}):
            return NOT_APPLIED
        return f"{adapter.name} 已恢复默认规则，下一局生效。"
    if len(parts) == 1:
        names = "、".join(s.name for s in adapter.schema.settings)
        return f"用法：/设置 {adapter.name} <项> <值>，可设置：{names}（/规则 {adapter.name} 查看现值）"
    try:
        setting = adapter.schema.find(parts[1])
    except SettingError as err:
        return f"{err}。用法：/设置 {adapter.name} <项> <值>"
    try:
        if len(parts) != 3:
            return (f"用法：/设置 {adapter.name} {setting.name} <值>，"
                    f"可选 {choices_text(setting)}（/规则 {adapter.name} {setting.name}）")
        value = setting.parse(parts[2])
    except SettingError as err:
        return f"{err}。用法：/设置 {adapter.name} {setting.name} <值>"
    stored = await store.get_settings(group_id, adapter.name)
    stored = {k: v for k, v in adapter.schema.clean(stored).items()
              if v != next(s.default for s in adapter.schema.settings if s.field == k)}
    stored[setting.field] = value
    problem = adapter.schema.check(adapter.schema.clean(stored))
    if problem:
        return problem
    if value == setting.default:
        stored.pop(setting.field)
    if not await _store_settings(group_id, adapter.name, stored):
        return NOT_APPLIED
    logger.info(f"setting group={group_id} game={adapter.name} {setting.field}={value!r}")
    return f"{adapter.name} {setting.name} 已设为 {setting.show(value)}，下一局生效。"


async def _store_settings(group_id: str, game: str, values: dict) -> bool:
    """Save a group's settings; ``False`` (and the cause logged) when the store raised."""
    try:
        await REGISTRY.require_store().set_settings(group_id, game, values)
    except Exception as err:  # noqa: BLE001 - the store failed: the setting does not count
        logger.error(f"event=save_failed group={group_id} game={game} what=settings cause={err!r}")
        return False
    return True


async def resume_timers() -> None:
    """After a restart: re-arm every restored table's saved deadline (an expired one acts
    at once, a running one continues)."""
    for table in list(REGISTRY.tables.values()):
        schedule(table)


async def announce_resumed(bot: Bot) -> None:
    """When a bot (re)connects after a restart: post each resumed game of its account's
    tables, so the player to act is @-mentioned again and nobody waits for a prompt that
    was lost. One post per table: a table whose timer is due (a deadline that passed
    meanwhile, a reminder, computer players to move) or already posted is not re-posted:
    the timer's message carries the next prompt."""
    for group_id in sorted(REGISTRY.resumed):
        table = REGISTRY.get(group_id)
        if table is not None and accounts.bot_for(table) is not bot:
            continue  # another account's table: announced when that account connects
        if table is None:
            REGISTRY.resumed.discard(group_id)
            continue
        async with table.lock:
            if group_id not in REGISTRY.resumed:
                continue  # its timer posted meanwhile
            REGISTRY.resumed.discard(group_id)
            if not table.playing or _timer_due(table):
                continue
            msg = plain("机器人已重启，牌局继续：\n") + with_time_left(
                table, _at_actor_only(table, table.adapter.table(table.engine, table.seats)))
        await deliver(bot, [group(group_id, msg)])


def _timer_due(table: Table) -> bool:
    """Whether the table's reminder, deadline or computer players' time has come."""
    now = timer_now()
    return any(t is not None and t <= now
               for t in (table.remind_at, table.deadline, table.computer_at))


async def _announces(bot: Bot, group_id: str, owners: dict[str, str | None]) -> bool:
    """Whether ``bot``'s account sends the pending end message of ``group_id``: the
    account of the group's table (in memory, or saved by another process: ``owners``);
    for a group whose table is gone, the account that answers there (the lowest
    connected account in the group)."""
    table = REGISTRY.get(group_id)
    if table is not None:
        return accounts.bot_for(table) is bot
    owner = owners.get(group_id)
    if owner is not None:
        return owner == bot.self_id
    if len(accounts.connected()) <= 1:
        return True
    return (await accounts.in_group(bot, group_id)
            and await accounts.group_handler(group_id, bot) == bot.self_id)


async def announce_pending(bot: Bot) -> None:
    """Send every finished game's end message of ``bot``'s account's groups (see
    :func:`_announces`) that was never confirmed sent (the bot was killed or had no
    connection right after the game ended), oldest first, each marked announced once
    sent. A game that ended before this process started is prefixed with
    :data:`RESTART_PREFIX`."""
    try:
        pending = await REGISTRY.require_store().pending_announcements()
        owners = await REGISTRY.require_store().live_owners(item.group_id for item in pending)
    except Exception as err:  # noqa: BLE001 - try again on the next connect
        logger.error(f"event=pending_announcements_failed cause={err!r}")
        return
    for item in pending:
        if item.uid in _in_flight:
            continue  # its own end message is being sent right now
        if not await _announces(bot, item.group_id, owners):
            continue  # another account's group: it sends the message when it connects
        prefix = RESTART_PREFIX if item.ended_at < _STARTED_AT else RECONNECT_PREFIX
        number = await REGISTRY.game_number(item.uid)
        out = group(item.group_id, numbered(plain(prefix) + message_from_json(item.message), number))
        await deliver(bot, [out])
        if out.sent:
            logger.info(f"event=end_announced group={item.group_id} uid={item.uid} late=True")
            await mark_announced(item.uid)


async def bot_connected(bot: Bot) -> None:
    """A bot account connected: its saved tables are loaded (once); end messages of its
    groups never sent go out; its timers that came due while it was away act now, with
    someone to tell; then its resumed tables are re-posted."""
    await accounts.ensure_restored(bot)
    if bot.self_id in accounts.refused:
        return  # another process serves this account
    await announce_pending(bot)
    for group_id in sorted(_deferred):
        table = REGISTRY.get(group_id)
        if table is None:
            _deferred.discard(group_id)
        elif accounts.bot_for(table) is bot:
            _deferred.discard(group_id)
            task = _timers.get(group_id)
            if task is None or task.done():  # not re-armed by the restore already
                schedule(table)
    await announce_resumed(bot)
