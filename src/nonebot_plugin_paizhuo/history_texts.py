"""Texts of the group's history: ``/排行`` (leaderboard), the richer ``/战绩`` lines, and
the list of numbered games (``/对局``). Every text is short, plain and copy-paste
friendly; names come from the group's member list (one OneBot call), else QQ numbers."""

from __future__ import annotations

import copy
import unicodedata
from datetime import datetime
from typing import Any

from nonebot import logger
from nonebot.adapters import Bot

from paizhuo_db.history import (
    CHINA_TZ,
    PERIODS,
    Board,
    GameEntry,
    PlayedGame,
    PlayerHistory,
    SeatEntry,
    leaderboard,
    most_played_game,
    period_start,
)
from paizhuo_db.store import Store

from .games import GAMES, GameAdapter, find_game
from .games.base import SeatView, UsageError, computer_name, is_computer
from .messaging import timed
from .names import clean_name
from .port import QQ_SCOPE, room_of
from .replay import Rebuilt, Step, engine_of, run
from .tables import now_utc

PERIOD_TEXT = {"all": "总榜", "week": "本周", "month": "本月"}
RESULT_TEXT = {"win": "胜", "draw": "平", "loss": "负"}
STREAK_TEXT = {"win": "连胜", "draw": "连平", "loss": "连败"}
BOARD_USAGE = "用法：/排行 [游戏] [本周|本月|总]，例如 /排行 挖坑 本周。游戏：" + "、".join(GAMES)


def signed(n: int) -> str:
    """``+3`` / ``-1`` / ``0``."""
    return f"{n:+d}" if n else "0"


async def member_names(bot: Bot | None, group_id: str) -> dict[str, str]:
    """``{user_id: group card or nickname}`` of the group; ``{}`` when the call fails."""
    room = room_of(bot) if bot is not None else None
    if bot is None or room is None:
        return {}
    try:
        members = await timed(room.member_names(bot, group_id))
    except Exception as err:  # noqa: BLE001 - names are a nicety; QQ numbers will do
        logger.warning(f"member list failed for group {group_id}: {err!r}")
        return {}
    names = {}
    for user, raw in members.items():
        name = clean_name(raw)
        if name:
            names[user] = name
    return names


def parse_board_args(text: str) -> tuple[str | None, str]:
    """``/排行`` arguments in any order → ``(game or None, period id)``. Raises
    :class:`UsageError` for a word that is neither."""
    game, period = None, "all"
    for word in unicodedata.normalize("NFKC", text).split():
        if word in PERIODS:
            period = PERIODS[word]
        else:
            try:
                game = find_game(word).name
            except UsageError:
                raise UsageError(BOARD_USAGE) from None
    return game, period


async def board_for(store: Store, group_id: str, args: str, caller: str,
                    min_games_of: dict[str, int], scope: str = QQ_SCOPE) -> Board | str:
    """The leaderboard ``/排行 <args>`` asks for, or the Chinese reply when there is none.
    ``min_games_of`` maps each game to the group's 上榜局数."""
    try:
        game, period = parse_board_args(args)
    except UsageError as err:
        return str(err)
    if game is None:
        game = await most_played_game(store, group_id)
        if game is None:
            return "本群还没有打完的牌局，打完一局再来看排行吧。"
    return await leaderboard(store, group_id, game, since=period_start(period, now_utc()),
                             min_games=min_games_of[game], caller=caller, period=period,
                             scope=scope)


def board_text(board: Board, names: dict[str, str], caller: str) -> str:
    """The leaderboard as text: rank, name, points, games, win rate; the caller's own
    line below the top 10 (or how many games they still need)."""
    head = f"【{board.game}排行·{PERIOD_TEXT[board.period]}】（至少 {board.min_games} 局上榜）"
    if not board.top:
        lines = [head, "还没有人上榜。"]
    else:
        lines = [head] + [row_text(r, names) for r in board.top]
        if board.ranked > len(board.top):
            lines.append(f"……共 {board.ranked} 人上榜")
    me = board.caller
    if me is not None and (me.rank is None or me.rank > len(board.top)):
        if me.rank is None:
            lines.append(f"你：{me.games} 局，积分 {signed(me.points)}，"
                         f"再打 {board.min_games - me.games} 局上榜")
        else:
            lines.append("你：" + row_text(me, names))
    elif me is None:
        lines.append("你在这段时间还没有打过这个游戏。")
    return "\n".join(lines)


def row_text(row, names: dict[str, str]) -> str:
    """``3. 张三 +12（20 局，胜率 45%）``."""
    name = names.get(row.user_id, row.user_id)
    return f"{row.rank}. {name} {signed(row.points)}（{row.games} 局，胜率 {row.win_rate:.0%}）"


def local_date(when: datetime) -> str:
    """``11-30 21:05`` in China time."""
    return when.astimezone(CHINA_TZ).strftime("%m-%d %H:%M")


def played_text(g: PlayedGame) -> str:
    """``第 37 局 11-30 21:05 抓特务 特务 第1名 胜 +2``; a 手把一 loser who held one card
    pays nothing (S-6): ``手把一 把一 不赔 0``."""
    place = f" 第{g.place}名" if g.place else ""
    result = RESULT_TEXT.get(g.result, g.result)
    if g.role == "把一" and g.result == "loss" and not g.points:
        result = "不赔"
    return (f"第 {g.number} 局 {local_date(g.ended_at)} {g.game} {g.role}{place} "
            f"{result} {signed(g.points)}")


def history_lines(h: PlayerHistory) -> list[str]:
    """The /战绩 additions: streak, best and worst game, the last games."""
    if not h.recent:
        return []
    lines = []
    if h.streak_result is not None:
        lines.append(f"当前：{h.streak} {STREAK_TEXT[h.streak_result]}")
    if h.best is not None and h.worst is not None:
        lines.append(f"最好一局：第 {h.best.number} 局 {h.best.game} {signed(h.best.points)}；"
                     f"最差一局：第 {h.worst.number} 局 {h.worst.game} {signed(h.worst.points)}")
    lines.append(f"最近 {len(h.recent)} 局：")
    lines += [played_text(g) for g in h.recent]
    return lines


def games_list_text(entries: list[GameEntry], names: dict[str, str]) -> str:
    """``/对局``: the group's recent games, one line each: every seat counted (``3 人（电脑
    1）``), the winners named, computer players among them (so a person's 负 here is
    their 负 on /战绩)."""
    if not entries:
        return "本群还没有对局记录。"
    lines = ["【本群最近的对局】（/对局 <编号> 查看复盘）"]
    for e in entries:
        if e.void:
            lines.append(f"第 {e.number} 局 {local_date(e.ended_at)} {e.game}（作废，不计分）")
            continue
        seats = known_seats(e)
        views = entry_seats(e, names)
        winners = [views[i].name for i, s in enumerate(seats) if s.result == "win"]
        if winners:
            outcome = "胜：" + "、".join(winners)
        elif all(s.result is not None for s in seats):
            outcome = "平局"
        else:
            outcome = "结果没有记录"
        computers = sum(s.computer for s in seats)
        count = f"{len(seats)} 人" + (f"（电脑 {computers}）" if computers else "")
        lines.append(f"第 {e.number} 局 {local_date(e.ended_at)} {e.game} {count}，{outcome}")
    return "\n".join(lines)


# ---- /对局 N: one game's record and replay (复盘) ---------------------------------------------
def entry_seats(entry: GameEntry, names: dict[str, str]) -> list[SeatView]:
    """Every seat of a game record, computer players included, with the name it had then
    (else the group's current name, else 电脑N or the QQ number), cleaned."""
    views = []
    for s in entry.seats:
        name = clean_name(s.name) or names.get(s.user_id) or (
            computer_name(s.user_id) if is_computer(s.user_id) else s.user_id)
        views.append(SeatView(s.user_id, name))
    return views


def known_seats(entry: GameEntry) -> list[SeatEntry]:
    """``entry.seats`` with what the record does not say about a seat (the computer
    seats of a record written before every seat was kept) taken from its replay, re-run
    to its end; seats the replay cannot tell keep ``None``."""
    seats = [copy.copy(s) for s in entry.seats]
    adapter = GAMES.get(entry.game)
    if entry.void or adapter is None or all(s.result is not None for s in seats):
        return seats
    rebuilt = _rebuilt(entry, adapter, steps=False)
    if rebuilt is None or not adapter.is_over(rebuilt.final):
        return seats
    views = [SeatView(s.user_id, s.name or "") for s in seats]
    if len(views) != rebuilt.final.players:
        return seats
    try:
        record = adapter.record(rebuilt.final, views, uid=entry.uid, group_id="",
                                started_at=entry.started_at, ended_at=entry.ended_at)
    except Exception as err:  # noqa: BLE001 - the list still shows what the record says
        logger.warning(f"game {entry.uid}: results cannot be read from its replay: {err!r}")
        return seats
    for s, p in zip(seats, record.players, strict=True):
        if s.result is None:
            s.role, s.place, s.result, s.points = p.role, p.place, p.result, p.points
    return seats


def _rebuilt(entry: GameEntry, adapter: GameAdapter, steps: bool = True) -> Rebuilt | None:
    """The game's replay re-run (each step, or with ``steps=False`` only its end), ``None``
    when it has none or it cannot be re-run (logged)."""
    replay = entry.summary.get("replay")
    if not replay:
        return None
    try:
        return run(engine_of(adapter), replay, steps=steps)
    except Exception as err:  # noqa: BLE001 - an unreadable replay still shows the result
        logger.warning(f"replay of game {entry.uid} cannot be re-run: {err!r}")
        return None


def changed_settings(adapter: GameAdapter, settings: dict) -> list[str]:
    """``名称 值`` of every setting the game was played with that differs from its default."""
    return [f"{s.name} {s.show(settings[s.field])}" for s in adapter.schema.settings
            if s.field in settings and settings[s.field] != s.default]


def dealt_hands(game: Any) -> list[list[int]]:
    """Each hand as dealt (抓特务: before the tribute was given, Z-8)."""
    hands = [list(h) for h in game.hands]
    for e in getattr(game, "exchanges", []):
        given = set(e["given"])
        hands[e["receiver"]] = [c for c in hands[e["receiver"]] if c not in given]
        hands[e["giver"]] = sorted(hands[e["giver"]] + e["given"])
    return hands


def deal_roles(adapter: GameAdapter, final: Any) -> list[str]:
    """Each seat's role as the end shows it (特务 / 平民, 挖坑者 / 农民), ``""`` where the
    game has none (手把一)."""
    return adapter.seat_roles(final)


def deal_lines(adapter: GameAdapter, game: Any, final: Any, seats: list[SeatView]) -> list[str]:
    """``发牌：`` then ``1.名字（身份）：牌`` per seat of ``game`` as dealt (roles from the
    ``final`` game), then the dealer, spy cards and tribute (Z-8), the bottom (W-3) or
    the cards set aside (手把一)."""
    lines = ["发牌："]
    roles = deal_roles(adapter, final)
    for s, hand in enumerate(dealt_hands(game)):
        role = f"（{roles[s]}）" if roles[s] else ""
        lines.append(f"{s + 1}.{seats[s].name}{role}：{adapter.cards(game, hand)}")
    lines += adapter.deal_notes(game, seats)
    return lines


def _event_lines(adapter: GameAdapter, steps: list[Step], seats: list[SeatView],
                 marks: dict[str, str] | None = None) -> list[str]:
    """Every decision of a replay in order, the plays and passes trick by trick, a move
    the bot made for a person marked as the group saw it (``［超时］``, ``［托管］``)."""
    lines: list[str] = []
    trick: list[str] = []
    tricks = 0
    moves = 0
    marks = marks or {}
    for step in steps:
        kind, seat = step.event[0], int(step.event[1])
        name = seats[seat].name
        before = step.before
        if kind == "return":
            exchange = before.next_return(seat)
            giver = seats[exchange["giver"]].name if exchange else "?"
            lines.append(f"还贡：{name} → {giver} {adapter.cards(before, step.event[2])}")
        elif kind == "declare":
            lines.append(f"{name} 选择：{step.event[2]}")
        elif kind == "bid":
            amount = int(step.event[2])
            lines.append(f"{name} {'不叫' if amount == 0 else f'叫 {amount} 分'}")
        elif kind == "bury":
            lines.append(f"{name} 扣底：{adapter.cards(before, step.event[2])}")
        elif step.move is not None:
            move = step.move
            why = marks.get(str(moves))
            moves += 1
            note = f"［{why}］" if why else ""
            if move.reading is not None:
                part = f"{name} {adapter.play_cards(before, move.cards, move.reading)}{note}"
                if move.place is not None:
                    part += f"（第 {move.place} 名）"
            else:
                part = f"{name} 过{note}"
            trick.append(part)
            if move.trick_won is not None or move.over:
                tricks += 1
                end = ""
                if move.trick_won is not None:
                    end = f" → {seats[move.trick_won].name} 拿下" + ("，下家接风" if move.jiefeng else "")
                lines.append(f"第 {tricks} 轮：" + "｜".join(trick) + end)
                trick = []
    if trick:
        lines.append(f"第 {tricks + 1} 轮：" + "｜".join(trick) + "（未打完）")
    return lines


def replayed_end(entry: GameEntry, names: dict[str, str]) -> tuple[GameAdapter, Any, list[SeatView]] | None:
    """``(adapter, engine at the end, seats)`` of a finished, scored game whose replay
    re-runs to its end (what its details picture is drawn from); ``None`` otherwise."""
    adapter = GAMES.get(entry.game)
    if adapter is None or entry.void:
        return None
    rebuilt = _rebuilt(entry, adapter, steps=False)
    seats = entry_seats(entry, names)
    if rebuilt is None or rebuilt.final.players != len(seats) or not adapter.is_over(rebuilt.final):
        return None
    return adapter, rebuilt.final, seats


def replay_text(entry: GameEntry, names: dict[str, str]) -> str:
    """``/对局 N``: the players, the settings that differed from the defaults, every hand
    as dealt, the bottom / buried cards / tribute, every move in order, then the result.
    Only archived games are shown, so nothing hidden remains (a void one is marked)."""
    adapter = GAMES.get(entry.game)
    seats = entry_seats(entry, names)
    void = "（作废：牌局中途 /结束，不计分）" if entry.void else ""
    lines = [f"【第 {entry.number} 局】{entry.game} {len(seats)} 人 · {local_date(entry.ended_at)}{void}",
             "座次：" + " ".join(f"{i + 1}.{s.name}" for i, s in enumerate(seats))]
    if adapter is None:
        return "\n".join([*lines, "这个游戏现在不能复盘。"])
    changed = changed_settings(adapter, entry.settings)
    lines.append("规则：" + ("，".join(changed) + "（其余默认）" if changed else "默认"))
    rebuilt = _rebuilt(entry, adapter)
    if rebuilt is not None and rebuilt.final.players != len(seats):
        logger.warning(f"game {entry.uid}: {len(seats)} seats recorded, "
                       f"{rebuilt.final.players} in its replay")
        rebuilt = None
    if rebuilt is None:
        lines.append("这局的记录没有保存发牌和出牌（较早的记录），只有结果：")
        lines += [f"{seats[s.seat - 1].name} {s.role or ''}".rstrip()
                  + (f" 第{s.place}名" if s.place else "")
                  + (f" {RESULT_TEXT.get(s.result, s.result)} {signed(s.points or 0)}"
                     if s.result is not None else " 结果没有记录")
                  for s in entry.seats]
        return "\n".join(lines)
    lines += deal_lines(adapter, rebuilt.dealt, rebuilt.final, seats)
    lines.append("过程：")
    lines += _event_lines(adapter, rebuilt.steps, seats, entry.summary["replay"].get("marks"))
    if entry.void or not adapter.is_over(rebuilt.final):
        lines.append("结果：作废，不计分。")
    else:
        lines.append(adapter.end(rebuilt.final, seats).extract_plain_text())
    return "\n".join(lines)
