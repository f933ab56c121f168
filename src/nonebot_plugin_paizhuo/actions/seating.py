"""The table's life: ``/开局`` (open), ``/加入``, ``/退出``, ``/踢``, ``/开始``, ``/继续``
and ``/结束`` (computer players' seats: :mod:`.computer_seats`); dealing a game (:func:`start_game`, with the
group's settings and the deal seed) and who the table waits for between games.

Owns seats, readiness and opening/closing tables; may call :mod:`.basics`,
:mod:`.commit` (every change through :func:`.commit.run_locked`) and
:func:`.deadlines.schedule`.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from nonebot.adapters import Bot

from paizhuo_db.store import LiveTableTaken

from ..config import plugin_config
from ..games import GAMES, GameAdapter, UsageError, find_game
from ..games.base import SeatView, computer_name, is_computer
from ..messaging import (
    Outgoing,
    deliver,
    group,
)
from ..port import account_of, scope_of
from ..tables import (
    FINISHED,
    PLAYING,
    REGISTRY,
    WAITING,
    SaveFailed,
    Table,
    now_utc,
)
from .basics import (
    JOIN_HINT,
    NO_TABLE,
    NOT_APPLIED,
    OTHER_TABLE,
    can_message_privately,
    capacity,
    group_settings,
    log_event,
    not_friend_text,
    reply,
    seat_list,
)
from .commit import _post, _private_turn, run_locked, says_to_outs
from .deadlines import schedule


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
    table.auto, table.timeouts, table.marks = [], {}, {}
    table.rearm()
    await REGISTRY.save(table)
    schedule(table)
    log_event(table, "start", number=table.games, seed=table.engine.seed)
    outs = says_to_outs(table, table.adapter.start(table.engine, table.seats))
    acting = table.adapter.acting_seat(table.engine)
    if acting is not None:
        # A game that starts with a seat's move (挖坑's first bid, 手把一's lead): where
        # players act in private chat, that seat gets its turn there with its buttons.
        _private_turn(table, outs, acting)
    return outs


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
        await deliver(bot, [reply(group_id, user_id, not_friend_text(bot))])
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
                          account=account_of(bot), scope=scope_of(bot))
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
        await deliver(bot, [reply(group_id, user_id, not_friend_text(bot))])
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
