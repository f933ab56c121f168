"""Messages and characters per game, for each game and table size (what a phone shows).

Plays whole games with the games' chat adapters — the very code that renders every group
and private message — and the bot's own strategies in every seat: each move goes through
the adapter like a player's (``出`` / ``过`` / 叫分), private questions (还贡, 明/暗, 扣底)
run to their timeout, games follow each other at the same table (tribute), and one
action's messages are merged per recipient as the send queue merges them. Prints, per
table, the mean number of group and private messages and of characters per game, and
checks that no message ends with a dangling separator.

    python bench/message_counts.py [--games 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nonebot  # noqa: E402

try:
    nonebot.get_driver()
except ValueError:  # run as a script: the plugin needs an initialised NoneBot
    nonebot.init()

from nonebot.adapters.onebot.v11 import Message  # noqa: E402

from plugins.paizhuo.games import GAMES  # noqa: E402
from plugins.paizhuo.games.base import Say, SeatView  # noqa: E402
from plugins.paizhuo.messaging import Outgoing, merge, plain  # noqa: E402

TABLES = [("抓特务", 3), ("抓特务", 4), ("挖坑", 3), ("手把一", 2), ("手把一", 4), ("手把一", 6)]
DANGLING = ("，", "、", "；", "：", ",", ";", ":", "|", "｜", "/", "\n", " ")


def text_of(message: Message | str) -> str:
    """What the reader sees: the text, an @-mention as ``@`` and the name's length."""
    msg = plain(message)
    return "".join(seg.data["text"] if seg.type == "text" else "@某某" for seg in msg)


def outs_of(says: list[Say], seats: list[SeatView]) -> list[Outgoing]:
    return merge([Outgoing("group", "g", plain(s.message)) if s.seat is None
                  else Outgoing("private", seats[s.seat].user_id, plain(s.message)) for s in says])


def move(adapter, game, seats: list[SeatView], seat: int) -> list[Say]:
    """The move a player in 托管 would make, said as if the player had typed it."""
    if getattr(game, "phase", "play") != "play":
        return adapter.auto_move(game, seats, seat, "")  # 挖坑 bidding
    action = adapter.strategy.choose(game, seat)
    if action.kind == "pass":
        done = game.pass_turn(seat)
    elif action.reading is not None:
        done = game.play_reading(seat, list(action.cards), action.reading)
    else:
        done = game.play(seat, list(action.cards))
    return adapter._after_move(game, seats, done)


def play_table(name: str, size: int, games: int, seed: int) -> dict[str, float]:
    """Play ``games`` games at one table; mean messages / characters per game."""
    adapter = GAMES[name]
    seats = [SeatView(str(1000 + i), f"玩家{i + 1}") for i in range(size)]
    rng = random.Random(seed)
    totals = {"group": 0, "private": 0, "group_chars": 0, "private_chars": 0, "moves": 0}
    bad: list[str] = []
    previous = None
    for _ in range(games):
        game = adapter.new_game(size, adapter.schema.clean({}), rng.randrange(2**62), previous)
        actions = [adapter.start(game, seats)]
        while not adapter.is_over(game):
            if adapter.prompt_seconds(game):
                actions.append(adapter.timeout(game, seats))
                continue
            seat = adapter.acting_seat(game)
            if seat is None:
                break
            actions.append(move(adapter, game, seats, seat))
            totals["moves"] += 1
        actions[-1] = [*actions[-1], Say(adapter.end(game, seats) + "\n发送 /继续 开下一局（全员发送后开始），/退出 离桌。")]
        for says in actions:
            for out in outs_of(says, seats):
                text = text_of(out.message)
                totals[out.kind] += 1
                totals[f"{out.kind}_chars"] += len(text)
                if text.endswith(DANGLING) or not text.strip():
                    bad.append(text[-30:])
        previous = adapter.next_game_info(game)
    result = {k: v / games for k, v in totals.items()}
    result["dangling"] = len(bad)
    if bad:
        print(f"  {name} {size}: messages ending with a separator, e.g. {bad[0]!r}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| 桌 | 每局步数 | 群消息 | 群消息字数 | 私聊 | 私聊字数 | 每局总字数 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, size in TABLES:
        r = play_table(name, size, args.games, args.seed)
        print(f"| {name} {size} 人 | {r['moves']:.0f} | {r['group']:.0f} | {r['group_chars']:.0f} | "
              f"{r['private']:.0f} | {r['private_chars']:.0f} | {r['group_chars'] + r['private_chars']:.0f} |")


if __name__ == "__main__":
    main()
