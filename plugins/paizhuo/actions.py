"""What each command does to the tables: game-independent, chat-shaped (collects the
messages to send), with the table lock held while the state changes and released before
anything is sent. Also the private-answer deadlines (timers) of every table.

Data flows one way: command → engine move → new state → saved → messages.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from collections.abc import Awaitable, Callable

import nonebot
from nonebot import logger
from nonebot.adapters.onebot.v11 import Bot, MessageSegment

from db.store import LiveTableTaken
from engine.errors import MoveError
from engine.settings import SettingError
from plugins.paizhuo import accounts
from plugins.paizhuo.config import Config
from plugins.paizhuo.games import GAMES, GameAdapter, UsageError, find_game
from plugins.paizhuo.games.base import Say, SeatView
from plugins.paizhuo.messaging import Outgoing, deliver, group, plain, private
from plugins.paizhuo.tables import FINISHED, PLAYING, REGISTRY, WAITING, Table, now_utc

JOIN_HINT = "发送 /加入 入座"
NO_TABLE = "本群还没有牌桌，发送 /开局 <游戏> 开一桌（抓特务 / 挖坑 / 手把一，/帮助 查看用法）。"
OTHER_TABLE = "你已经在另一个群的牌桌上了，先在那边 /退出 或打完。"


def reply(group_id: str, user_id: str, text: str) -> Outgoing:
    """A short group reply that @-mentions the player."""
    return group(group_id, MessageSegment.at(int(user_id)) + MessageSegment.text(f" {text}"))


def says_to_outs(table: Table, says: list[Say]) -> list[Outgoing]:
    """An adapter's :class:`Say` list as messages to the group and the seated users."""
    return [group(table.group_id, s.message) if s.seat is None
            else private(table.seats[s.seat].user_id, s.message, table.group_id) for s in says]


async def run_locked(bot: Bot | None, table: Table,
                     change: Callable[[], Awaitable[list[Outgoing]]]) -> None:
    """Apply ``change`` under the table's lock, then send its messages in order without
    holding the lock (the send lock keeps one table's messages in command order)."""
    async with table.lock:
        outs = await change()
        await table.send_lock.acquire()
    try:
        if bot is not None:
            await deliver(bot, outs)
        elif outs:
            logger.warning(f"no bot connected: {len(outs)} message(s) for group {table.group_id} dropped")
    finally:
        table.send_lock.release()


async def can_message_privately(bot: Bot, user_id: str) -> bool:
    """Whether ``user_id`` is on the bot's friend list (hands go only by private message
    between friends, never through a group temp session)."""
    try:
        friends = await bot.get_friend_list()
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
    times = [t for t in (table.remind_at, table.deadline) if t is not None]
    if times and REGISTRY.get(table.group_id) is table:
        _timers[table.group_id] = asyncio.create_task(_fire(table, min(times)))


def cancel_timers() -> None:
    """Stop every timer (shutdown, tests)."""
    for task in _timers.values():
        task.cancel()
    _timers.clear()
    _deferred.clear()


async def _fire(table: Table, when) -> None:
    await asyncio.sleep(max(0.0, (when - now_utc()).total_seconds()))
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
    """What happens when a table's reminder or deadline comes (under the lock)."""
    if REGISTRY.get(table.group_id) is not table:
        return []
    now = now_utc()
    if table.remind_at is not None and now >= table.remind_at and (
            table.deadline is None or now < table.deadline):
        table.remind_at = None
        await REGISTRY.save(table)
        schedule(table)
        seat = table.adapter.acting_seat(table.engine) if table.playing else None
        if seat is None:
            return []
        left = int((table.deadline - now).total_seconds()) if table.deadline else 0
        what = "代你过" if table.adapter.is_following(table.engine) else "代你出牌"
        return [reply(table.group_id, table.seats[seat].user_id, f"还剩 {left} 秒，超时机器人将{what}。")]
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
        return await _commit(table, says_to_outs(table, adapter.timeout(table.engine, table.seats)))
    seat = adapter.acting_seat(table.engine)
    if seat is None:
        return []
    user = table.seats[seat].user_id
    says = []
    if user in table.auto:
        says += adapter.auto_move(table.engine, table.seats, seat, "托管")
        log_event(table, "auto_move", seat)
    else:
        says += adapter.auto_move(table.engine, table.seats, seat, "超时")
        table.timeouts[user] = table.timeouts.get(user, 0) + 1
        log_event(table, "timeout_move", seat, in_a_row=table.timeouts[user])
        if table.timeouts[user] >= 2:
            table.auto.append(user)
            says.append(Say(f"{table.seats[seat].name} 连续两次超时，进入托管：机器人代打，"
                            "发送任意出牌命令或 /托管 即可取消。"))
            log_event(table, "auto_on", seat)
    return await _commit(table, says_to_outs(table, says))


async def _commit(table: Table, outs: list[Outgoing]) -> list[Outgoing]:
    """After an accepted change: record the game if it is over, re-arm the timers, save
    (before anything is sent) and return the messages with the end message added."""
    adapter = table.adapter
    if table.playing and adapter.is_over(table.engine):
        await REGISTRY.record_finished(table)
        log_event(table, "finished")
        outs.append(group(table.group_id, adapter.end(table.engine, table.seats) + MessageSegment.text(
            "\n发送 /继续 开下一局（全员发送后开始），/退出 离桌。")))
    else:
        table.rearm()
        await REGISTRY.save(table)
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
    base = nonebot.get_plugin_config(Config).deal_seed
    if base is None:
        return secrets.randbits(62)
    digest = hashlib.sha256(f"{base}:{table.group_id}:{table.games}".encode()).hexdigest()
    return int(digest[:15], 16)


async def start_game(table: Table) -> list[Outgoing]:
    """Deal (seats full, or everyone sent /继续) with the group's current settings; returns
    the start messages, hands and prompts. Caller holds the table lock."""
    table.settings = await group_settings(table.group_id, table.adapter)
    table.engine = table.adapter.new_game(len(table.seats), table.settings, deal_seed(table),
                                          table.previous)
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
    async with table.lock:
        table.settings = settings
        table.rearm()
        try:
            await REGISTRY.save(table)
        except LiveTableTaken:
            # Another account (another process) opened a table here a moment ago.
            async with REGISTRY.guard:
                REGISTRY.remove(table)
            await deliver(bot, [reply(group_id, user_id, f"本群已有一桌，{JOIN_HINT}，或等这桌结束。")])
            return
        schedule(table)
    log_event(table, "open", 0, size=size)
    how = f"{size} 人" if size else f"2–{capacity(table)} 人，开局人发送 /开始 开打"
    await deliver(bot, [group(group_id, f"{name} 开了一桌{adapter.name}（{how}），"
                                        f"{JOIN_HINT}。\n座位：{seat_list(table)}")])


async def join_table(bot: Bot, group_id: str, user_id: str, name: str) -> None:
    """``/加入``: take a seat; the game starts by itself when the seats are full."""
    table = REGISTRY.get(group_id)
    if table is None:
        await deliver(bot, [reply(group_id, user_id, NO_TABLE)])
        return
    if table.seat_of(user_id) is not None:
        await deliver(bot, [reply(group_id, user_id, "你已经在这桌了。")])
        return
    if table.status != WAITING:
        await deliver(bot, [reply(group_id, user_id, "这桌已经开始了，等下一桌吧。")])
        return
    if not await can_message_privately(bot, user_id):
        await deliver(bot, [reply(group_id, user_id, not_friend_text())])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.status != WAITING:
            return [reply(group_id, user_id, "这桌已经开始了，等下一桌吧。")]
        if table.seat_of(user_id) is not None:
            return [reply(group_id, user_id, "你已经在这桌了。")]
        if len(table.seats) >= capacity(table):
            return [reply(group_id, user_id, "这桌已经坐满了。")]
        async with REGISTRY.guard:
            if REGISTRY.table_of_user(user_id) is not None:
                return [reply(group_id, user_id, OTHER_TABLE)]
            table.seats.append(SeatView(user_id, name))
            REGISTRY.by_user[user_id] = group_id
        outs = [group(group_id, f"{name} 入座。座位：{seat_list(table)}")]
        log_event(table, "join", len(table.seats) - 1)
        if len(table.seats) == capacity(table):
            outs += await start_game(table)
        else:
            table.rearm()
            await REGISTRY.save(table)
            schedule(table)
        return outs

    await run_locked(bot, table, change)


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

    await run_locked(bot, table, change)


async def continue_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/继续``: after a game, every seated player agrees to the next one (same seats)."""
    table = REGISTRY.get(group_id)
    if table is None or table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在本群的牌桌上。")])
        return

    async def change() -> list[Outgoing]:
        if REGISTRY.get(group_id) is not table or table.status != FINISHED:
            return [reply(group_id, user_id, "现在不是两局之间，不用 /继续。")]
        if user_id not in table.ready:
            table.ready.append(user_id)
        if len(table.ready) < len(table.seats):
            table.rearm()
            await REGISTRY.save(table)
            schedule(table)
            waiting = "、".join(s.name for s in table.seats if s.user_id not in table.ready)
            me = table.seats[table.seat_of(user_id) or 0].name
            return [group(group_id, f"{me} 准备好了（{len(table.ready)}/{len(table.seats)}），还等：{waiting}")]
        return await start_game(table)

    await run_locked(bot, table, change)


async def leave_table(bot: Bot, group_id: str, user_id: str) -> None:
    """``/退出``: leave before the start (the last one out closes the table), or between
    games (the table closes)."""
    table = REGISTRY.get(group_id)
    if table is None or table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在本群的牌桌上。")])
        return

    async def change() -> list[Outgoing]:
        seat = table.seat_of(user_id)
        if REGISTRY.get(group_id) is not table or seat is None:
            return [reply(group_id, user_id, "你不在本群的牌桌上。")]
        if table.playing:
            return [reply(group_id, user_id, "牌局进行中，不能退出；可请开局人或管理员发送 /结束。")]
        name = table.seats[seat].name
        if table.status == FINISHED:
            async with REGISTRY.guard:
                await REGISTRY.close(table)
            return [group(group_id, f"{name} 退出，牌桌已关闭。")]
        table.seats.pop(seat)
        async with REGISTRY.guard:
            REGISTRY.unseat(table, user_id)
        if not table.seats:
            await REGISTRY.close(table)
            return [group(group_id, f"{name} 退出，牌桌已关闭。")]
        if table.opener == user_id:
            table.opener = table.seats[0].user_id
        table.rearm()
        await REGISTRY.save(table)
        schedule(table)
        log_event(table, "leave", extra_user=user_id)
        return [group(group_id, f"{name} 退出。座位：{seat_list(table)}")]

    await run_locked(bot, table, change)


async def end_table(bot: Bot, group_id: str, user_id: str, is_manager: bool) -> None:
    """``/结束``: close the table; a game in progress is not scored (opener, group
    admin/owner, SUPERUSER)."""
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
        async with REGISTRY.guard:
            await REGISTRY.close(table)
        schedule(table)
        log_event(table, "end", by=user_id)
        note = "，本局不计分" if unscored else ""
        return [group(group_id, f"牌桌已关闭（{table.game}{note}）。")]

    await run_locked(bot, table, change)


# ---- playing ---------------------------------------------------------------------------------
async def _apply(table: Table, user_id: str, act: Callable[[int], list[Say] | None],
                 refuse: Callable[[str], Outgoing], what: str) -> list[Outgoing] | None:
    """Apply one player action under the lock: refusals change nothing; an accepted one
    ends the player's 托管 and timeout count, and is saved (with the record when the game
    ends) before its messages are returned. ``None`` when ``act`` did not recognise it."""
    seat = table.seat_of(user_id)
    if REGISTRY.get(table.group_id) is not table or not table.playing or seat is None:
        return [refuse("这桌牌局已经结束了。")]
    adapter = table.adapter
    snapshot = adapter.dump(table.engine)
    try:
        says = act(seat)
    except MoveError as err:
        return [refuse(err.message)]
    except Exception:
        table.engine = adapter.load(snapshot)
        logger.exception(f"{what} failed group={table.group_id} seat={seat}")
        return [refuse("出错了，这步没有生效，请重试。")]
    if says is None:
        return None
    log_event(table, what, seat)
    table.timeouts.pop(user_id, None)
    if user_id in table.auto:
        table.auto.remove(user_id)
        says.append(Say(f"{table.seats[seat].name} 取消托管。"))
        log_event(table, "auto_off", seat)
    return await _commit(table, says_to_outs(table, says))


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
        return await _commit(table, [group(group_id, text)])

    await run_locked(bot, table, change)


async def move(bot: Bot, group_id: str, user_id: str, kind: str, arg: str | None) -> None:
    """A group game command (``出 <牌>``, ``过``, a bid …) at the group's table."""
    table = REGISTRY.get(group_id)
    if table is None or not table.playing:
        return
    if table.seat_of(user_id) is None:
        await deliver(bot, [reply(group_id, user_id, "你不在这桌牌局中。")])
        return

    async def change() -> list[Outgoing]:
        outs = await _apply(
            table, user_id, lambda seat: table.adapter.act(table.engine, table.seats, seat, kind, arg),
            lambda msg: reply(group_id, user_id, msg), kind)
        return outs or []

    await run_locked(bot, table, change)


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
            lambda msg: private(user_id, msg), "answer")
        if outs is None:
            handled = False
            return []
        return outs

    await run_locked(bot, table, change)
    return handled


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
            msg = table.adapter.table(table.engine, table.seats)
            if table.status == FINISHED:
                waiting = "、".join(s.name for s in table.seats if s.user_id not in table.ready)
                msg += MessageSegment.text(f"\n本局已结束，等待 /继续：{waiting}")
    await deliver(bot, [group(group_id, msg)])


# ---- settings ------------------------------------------------------------------------------
def _game_for(group_id: str, name: str) -> GameAdapter:
    if name:
        return find_game(name)
    table = REGISTRY.get(group_id)
    return table.adapter if table is not None else next(iter(GAMES.values()))


async def show_rules(group_id: str, args: str) -> str:
    """``/规则 [游戏]``: every setting of the game in this group — value, choices, meaning."""
    try:
        adapter = _game_for(group_id, args.strip())
    except UsageError:
        return "用法：/规则 <游戏>，游戏：" + "、".join(GAMES)
    values = await group_settings(group_id, adapter)
    lines = [f"【{adapter.name}】本群规则（/设置 {adapter.name} <项> <值>，管理员可改）："]
    for s in adapter.schema.settings:
        mark = "" if values[s.field] == s.default else "（已改）"
        lines.append(f"{s.name}：{s.show(values[s.field])}{mark}｜可选 {s.allowed()}｜{s.meaning}")
    return "\n".join(lines)


async def change_setting(group_id: str, args: str, is_manager: bool) -> str:
    """``/设置 <游戏> <项> <值>`` or ``/设置 <游戏> 默认`` (owner, admins, SUPERUSERS).
    Applies from the next game dealt."""
    if not is_manager:
        return "只有群主、管理员可以修改规则。"
    parts = args.split()
    if not parts:
        return "用法：/设置 <游戏> <项> <值>，例如 /设置 抓特务 连牌规则 b；/设置 抓特务 默认 恢复默认。"
    try:
        adapter = find_game(parts[0])
        store = REGISTRY.require_store()
        if parts[1:] == ["默认"]:
            await store.set_settings(group_id, adapter.name, {})
            return f"{adapter.name} 已恢复默认规则，下一局生效。"
        if len(parts) != 3:
            names = "、".join(s.name for s in adapter.schema.settings)
            return f"用法：/设置 {adapter.name} <项> <值>。可设置：{names}"
        setting = adapter.schema.find(parts[1])
        value = setting.parse(parts[2])
    except (UsageError, SettingError) as err:
        return str(err)
    stored = await store.get_settings(group_id, adapter.name)
    stored = {k: v for k, v in adapter.schema.clean(stored).items()
              if v != next(s.default for s in adapter.schema.settings if s.field == k)}
    stored[setting.field] = value
    problem = adapter.schema.check(adapter.schema.clean(stored))
    if problem:
        return problem
    if value == setting.default:
        stored.pop(setting.field)
    await store.set_settings(group_id, adapter.name, stored)
    logger.info(f"setting group={group_id} game={adapter.name} {setting.field}={value!r}")
    return f"{adapter.name} {setting.name} 已设为 {setting.show(value)}，下一局生效。"


async def resume_timers() -> None:
    """After a restart: re-arm every restored table's saved deadline (an expired one acts
    at once, a running one continues)."""
    for table in list(REGISTRY.tables.values()):
        schedule(table)


async def announce_resumed(bot: Bot) -> None:
    """When a bot (re)connects after a restart: post each resumed game of its account's
    tables, so the player to act is @-mentioned again and nobody waits for a prompt that
    was lost. A table whose deadline passed meanwhile is not posted: its timer acts now
    and its message carries the next prompt."""
    now = now_utc()
    for group_id in sorted(REGISTRY.resumed):
        table = REGISTRY.get(group_id)
        if table is not None and accounts.bot_for(table) is not bot:
            continue  # another account's table: announced when that account connects
        REGISTRY.resumed.discard(group_id)
        if table is None or not table.playing:
            continue
        if table.deadline is not None and table.deadline <= now:
            continue
        async with table.lock:
            msg = plain("机器人已重启，牌局继续：\n") + table.adapter.table(table.engine, table.seats)
        await deliver(bot, [group(group_id, msg)])


async def bot_connected(bot: Bot) -> None:
    """A bot account connected: its saved tables are loaded (once), its timers that came
    due while it was away act now, with someone to tell; then its resumed tables are
    re-posted."""
    await accounts.ensure_restored(bot)
    for group_id in sorted(_deferred):
        table = REGISTRY.get(group_id)
        if table is None:
            _deferred.discard(group_id)
        elif accounts.bot_for(table) is bot:
            _deferred.discard(group_id)
            schedule(table)
    await announce_resumed(bot)
