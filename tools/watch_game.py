"""Watch whole games without QQ: ``python tools/watch_game.py [人数] [--game 游戏] [--games N]
[--computers N] [--pictures 目录] [--turn-seconds N]``.

Starts the real bot (``bot.py``) on a free port with a throw-away database, connects the
simulated OneBot v11 implementation (``tools/onebot_sim.py``) over a real reverse
WebSocket, seats simulated players in a group and plays the game (抓特务 by default; 挖坑,
手把一) to the end, printing every message the group and each player received. Finally
asks ``/战绩`` for the first player. With ``--computers N``, the last N seats are computer
players (电脑, seated with ``/加机器人``) and the bot plays them. With ``--pictures DIR`` the
bot sends pictures (the settlement, /战绩 …) and each one is saved in DIR as a PNG, its path
printed where it came; ``--turn-seconds N`` sets the group's 出牌限时 first.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.onebot_sim import BotProcess, OneBotSim, Sent  # noqa: E402
from tools.players import SimPlayer, continue_table, next_game, play_table  # noqa: E402

GROUP = 20001
NAMES = ["甲", "乙", "丙", "丁", "戊", "己"]
DECLARE = ["明", "暗", "明牌", "暗", "暗", "暗"]
SIZES = {"抓特务": (3, 4), "挖坑": (3,), "手把一": (2, 3, 4, 5, 6)}
"""The table sizes each game allows (RULES.md Z-1, W-1, S-1)."""
DEFAULT_SIZE = {"抓特务": 4, "挖坑": 3, "手把一": 4}
"""The size played when none is given."""
FIXED_SIZE = {"挖坑": 3}
"""Games with one table size: opened by name alone (挖坑 is always three players)."""


def size_error(game: str, size: int) -> str | None:
    """Why ``size`` players cannot play ``game`` (in the words of ``/开局``), ``None``
    when they can: checked before the bot starts, so a wrong size costs nothing."""
    allowed = SIZES[game]
    if size in allowed:
        return None
    span = str(allowed[0]) if len(allowed) == 1 else f"{allowed[0]}–{allowed[-1]}"
    return f"{game}只能 {span} 人玩，不能 {size} 人"


def printer(sim: OneBotSim, names: dict[int, str], pictures: Path | None = None):
    """A listener printing each message as the group or a player saw it; a picture is
    saved in ``pictures`` (and its path printed)."""
    saved = [0]

    def show(sent: Sent) -> None:
        who = f"群 {sent.target}" if sent.kind == "group" else f"私聊 → {names.get(sent.target, sent.target)}"
        status = "" if sent.ok else "（发送失败）"
        text = sent.text
        images = [seg for seg in sent.segments if seg.get("type") == "image"]
        if images and pictures is not None:
            lines = []
            for seg in images:
                saved[0] += 1
                path = pictures / f"{saved[0]:03d}.png"
                path.write_bytes(base64.b64decode(str(seg["data"]["file"]).removeprefix("base64://")))
                lines.append(f"［图片：{path}］")
            text = "\n".join(lines)
        print(f"--- {who}{status}\n{text}\n", flush=True)

    return show


async def with_computers(sim: OneBotSim, players: list[SimPlayer], game_args: str,
                         computers: int) -> Sent | None:
    """Open the table with ``players``, fill it with ``computers`` computer players and
    play the game to its end (returned)."""
    since = sim.mark()
    await sim.group_message(GROUP, players[0].user_id, f"/开局 {game_args}")
    await sim.wait_for_text("开了一桌", kind="group", since=since)
    for p in players[1:]:
        since = sim.mark()
        await sim.group_message(GROUP, p.user_id, "/加入")
        await sim.wait_for_text("入座", kind="group", since=since)
    since = sim.mark()
    await sim.group_message(GROUP, players[0].user_id, f"/加机器人 {computers}")
    return await continue_table(sim, GROUP, players, since=since)


async def main(game: str, size: int, games: int, seed: int | None, computers: int = 0,
               pictures: Path | None = None, turn_seconds: int | None = None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PAIZHUO_DEAL_SEED": str(seed)} if seed is not None else {}
        if pictures is not None:
            pictures.mkdir(parents=True, exist_ok=True)
            env["PAIZHUO_IMAGES"] = "true"
        bot = BotProcess(Path(tmp) / "bot.log", access_token="watch",
                         database_url=f"sqlite+aiosqlite:///{tmp}/watch.db", log_level="WARNING",
                         env=env)
        await bot.start()
        sim = OneBotSim(self_id=10001)
        players = [SimPlayer(1001 + i, NAMES[i], declare=DECLARE[i]) for i in range(size - computers)]
        for p in players:
            sim.add_member(GROUP, p.user_id, p.name, role="admin" if p is players[0] else "member")
            sim.add_friend(p.user_id, p.name)
        sim.listeners.append(printer(sim, {p.user_id: p.name for p in players}, pictures))
        try:
            await sim.connect(bot.url, "watch")
            if turn_seconds is not None:
                since = sim.mark()
                await sim.group_message(GROUP, players[0].user_id, f"/设置 {game} 出牌限时 {turn_seconds}")
                await sim.wait_for_text("出牌限时", kind="group", since=since)
            who = f"，其中 {computers} 个电脑" if computers else ""
            print(f"=== {game} {size} 人局{who}，连打 {games} 局（模拟玩家）===\n")
            args = game if game in FIXED_SIZE else f"{game} {size}人"
            if computers:
                end = await with_computers(sim, players, args, computers)
            else:
                end = await play_table(sim, GROUP, players, args)
            for _ in range(games - 1):
                end = await next_game(sim, GROUP, players) if end is not None else None
            await sim.wait_idle(quiet=0.3)
            since = sim.mark()
            await sim.group_message(GROUP, players[0].user_id, "/战绩")
            await sim.wait_for(lambda s: s.kind == "group", since=since)  # text or picture
            group_msgs = sum(1 for s in sim.sent if s.kind == "group")
            private_msgs = sum(1 for s in sim.sent if s.kind == "private")
            moves = sum(p.moves for p in players)
            print(f"=== 完。{games} 局共 {moves} 步，群消息 {group_msgs} 条，私聊 {private_msgs} 条；"
                  f"平均每局 {moves / games:.0f} 步、群消息 {group_msgs / games:.0f} 条、"
                  f"私聊 {private_msgs / games:.0f} 条。===")
            return 0 if end is not None else 1
        finally:
            await sim.close()
            await bot.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("size", nargs="?", type=int, default=None,
                        help="人数：抓特务 3–4（默认 4），挖坑 3，手把一 2–6（默认 4）")
    parser.add_argument("--game", default="抓特务", choices=["抓特务", "挖坑", "手把一"])
    parser.add_argument("--games", type=int, default=1, help="连打几局（抓特务第二局起有进贡）")
    parser.add_argument("--seed", type=int, default=None, help="固定发牌种子（可复现）")
    parser.add_argument("--computers", type=int, default=0, help="其中几个座位是电脑玩家")
    parser.add_argument("--pictures", type=Path, default=None,
                        help="开图片，每张图存进这个目录（PNG），记录里写出路径")
    parser.add_argument("--turn-seconds", type=int, default=None, help="先把本群的出牌限时设成这么多秒")
    ns = parser.parse_args()
    size = DEFAULT_SIZE[ns.game] if ns.size is None else ns.size
    if (why := size_error(ns.game, size)) is not None:
        parser.error(why)
    if not 0 <= ns.computers < size:
        parser.error("--computers：至少留一个座位给人")
    sys.exit(asyncio.run(main(ns.game, size, ns.games, ns.seed, ns.computers, ns.pictures,
                              ns.turn_seconds)))
