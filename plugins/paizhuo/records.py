"""Texts of the group's history: ``/排行`` (leaderboard), the richer ``/战绩`` lines, and
the list of numbered games (``/对局``). Every text is short, plain and copy-paste
friendly; names come from the group's member list (one OneBot call), else QQ numbers."""

from __future__ import annotations

import unicodedata
from datetime import datetime

from nonebot import logger
from nonebot.adapters.onebot.v11 import Bot

from db.history import (
    CHINA_TZ,
    PERIODS,
    Board,
    GameEntry,
    PlayedGame,
    PlayerHistory,
    leaderboard,
    most_played_game,
    period_start,
)
from db.store import Store
from plugins.paizhuo.games import GAMES, find_game
from plugins.paizhuo.games.base import UsageError
from plugins.paizhuo.tables import now_utc

PERIOD_TEXT = {"all": "总榜", "week": "本周", "month": "本月"}
RESULT_TEXT = {"win": "胜", "draw": "平", "loss": "负"}
STREAK_TEXT = {"win": "连胜", "draw": "连平", "loss": "连败"}
BOARD_USAGE = "用法：/排行 [游戏] [本周|本月|总]，例如 /排行 挖坑 本周。游戏：" + "、".join(GAMES)


def signed(n: int) -> str:
    """``+3`` / ``-1`` / ``0``."""
    return f"{n:+d}" if n else "0"


def clean_name(raw: str) -> str:
    """A display name: printable characters only, brackets made full-width, at most 12
    characters (a name can never become a CQ code)."""
    name = "".join(ch for ch in raw if ch.isprintable()).strip()
    return name.replace("[", "［").replace("]", "］")[:12].strip()


async def member_names(bot: Bot | None, group_id: str) -> dict[str, str]:
    """``{user_id: group card or nickname}`` of the group; ``{}`` when the call fails."""
    if bot is None:
        return {}
    try:
        members = await bot.get_group_member_list(group_id=int(group_id))
    except Exception as err:  # noqa: BLE001 - names are a nicety; QQ numbers will do
        logger.warning(f"get_group_member_list failed for group {group_id}: {err!r}")
        return {}
    names = {}
    for m in members or []:
        name = clean_name(str(m.get("card") or m.get("nickname") or ""))
        if name:
            names[str(m.get("user_id"))] = name
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
                    min_games_of: dict[str, int]) -> Board | str:
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
                             min_games=min_games_of[game], caller=caller, period=period)


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
    """``第 37 局 11-30 21:05 抓特务 特务 第1名 胜 +2``."""
    place = f" 第{g.place}名" if g.place else ""
    return (f"第 {g.number} 局 {local_date(g.ended_at)} {g.game} {g.role}{place} "
            f"{RESULT_TEXT.get(g.result, g.result)} {signed(g.points)}")


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
    """``/对局``: the group's recent games, one line each."""
    if not entries:
        return "本群还没有对局记录。"
    lines = ["【本群最近的对局】（/对局 <编号> 查看复盘）"]
    for e in entries:
        if e.void:
            lines.append(f"第 {e.number} 局 {local_date(e.ended_at)} {e.game}（作废，不计分）")
            continue
        winners = [names.get(u, u) for u, _seat, _role, _place, result, _pts in e.players
                   if result == "win"]
        outcome = "胜：" + "、".join(winners) if winners else "平局"
        lines.append(f"第 {e.number} 局 {local_date(e.ended_at)} {e.game} {len(e.players)} 人，{outcome}")
    return "\n".join(lines)
