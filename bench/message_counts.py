"""Messages and characters per game, for each game and table size (what a phone shows).

Plays whole games with the games' chat adapters — the very code that renders every group
and private message — and the bot's own strategies in every seat: each move goes through
the adapter like a player's (``出`` / ``过`` / 叫分), private questions (还贡, 明/暗, 扣底)
run to their timeout, games follow each other at the same table (tribute), and one
action's messages are merged per recipient as the send queue merges them. Prints, per
table, the mean number of group and private messages and of characters per game, and
checks that no message ends with a dangling separator.

``--chat`` measures what the bot itself posts instead: the plugin's own commands, timers,
runs of automatic moves and send queue, in process, on a throw-away SQLite file, with the
OneBot calls counted (``PAIZHUO_COMPUTER_DELAY=0``, no send pacing). People act as soon as it is
their turn, with the computer players' choices (the same say as a typed command or
private answer); computer players (电脑) act on their timer. Tables: one person and
computer players (抓特务 4 人 with 3 电脑, 挖坑 with 2 电脑), and all-person tables. Per game
(from the command that deals it to the end message and anything after it; the ``/继续``
replies before a deal that do not deal are counted apart): group posts, private messages,
moves (plays, passes, bids) and group posts per move, and the measure of 一个决定一条:

    group posts per decision = group posts per game ÷ decisions of people per game

where the decisions of people are their moves (a play, a pass, a bid typed by a person;
not a move made for them: 要不起自动过, 托管, a computer player's), their private answers
(还贡, 明/暗, 扣底) and the one command that deals the game (the ``/加入`` that fills the
table, ``/加电脑``, or the last ``/继续``). The posts count everything the group gets from
that command to the end of the game: the start post, every move's post, the end message
and anything sent after it (a separate details card counted too).

    python bench/message_counts.py [--games 30] [--seed 1] [--chat]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nonebot  # noqa: E402

try:
    nonebot.get_driver()
except ValueError:  # run as a script: the plugin needs an initialised NoneBot
    nonebot.init(paizhuo_computer_delay=0, paizhuo_send_rate=0, paizhuo_deal_seed=1, paizhuo_images=False,
                 log_level="WARNING")
    if "--chat" in sys.argv:
        from nonebot.adapters.onebot.v11 import Adapter

        nonebot.get_driver().register_adapter(Adapter)
        nonebot.load_plugin("nonebot_plugin_paizhuo")

from nonebot.adapters.onebot.v11 import Message  # noqa: E402

from nonebot_plugin_paizhuo.games import GAMES  # noqa: E402
from nonebot_plugin_paizhuo.games.base import Say, SeatView  # noqa: E402
from nonebot_plugin_paizhuo.games.choice import LeveledStrategy  # noqa: E402
from nonebot_plugin_paizhuo.messaging import Outgoing, merge, plain  # noqa: E402
from nonebot_plugin_paizhuo.tables import now_utc  # noqa: E402

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
    action = LeveledStrategy().choose(game, seat)
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


CHAT_TABLES = [("抓特务 四人", 4, 3, {}), ("抓特务 四人", 4, 3, {"picture_table": True}),
               ("挖坑", 3, 2, {}), ("抓特务 四人", 4, 0, {}), ("抓特务 四人", 4, 0, {"auto_pass": True}),
               ("抓特务 三人", 3, 0, {}), ("挖坑", 3, 0, {}), ("手把一 2人", 2, 0, {}),
               ("手把一 4人", 4, 0, {}), ("手把一 6人", 6, 0, {})]
"""``(/开局 arguments, seats, computer players, group settings)`` measured by ``--chat``.
With 图片桌面 (``picture_table``) the pictures are counted, not drawn — the table after every
move and the settlement after the end message; the other tables are texts only."""
SETTING_NAMES = {"picture_table": "图片桌面", "auto_pass": "要不起自动过"}


class Recorder:
    """Counts the bot's OneBot sends (in place of the connection)."""

    def __init__(self, friends: list[str]) -> None:
        self.group = self.private = self.cards = 0
        self.friends = friends

    async def __call__(self, bot, api: str, **data):
        if api == "get_friend_list":
            return [{"user_id": int(u), "nickname": "", "remark": ""} for u in self.friends]
        if api.startswith("send_group"):
            self.group += 1
            self.cards += api == "send_group_forward_msg"
        elif api.startswith("send_private"):
            self.private += 1
        return {"message_id": 1}


async def _settle(table) -> None:
    """Until the computer players' timer has nothing to do now (PAIZHUO_COMPUTER_DELAY=0)."""
    for _ in range(100000):
        task = table.timer
        due = table.computer_at is not None
        if not due and (task is None or task.done() or task is asyncio.current_task()):
            return
        if not due and table.deadline is not None and table.deadline > now_utc() + timedelta(seconds=5):
            return  # a person's turn timer
        await asyncio.sleep(0.001)
    raise RuntimeError("the table never settled")


async def _quiet(rec: Recorder, table) -> None:
    """Until no change of the table runs and the bot has sent nothing for a while (the end
    of a game, its details, still on their way)."""
    last, still = None, 0
    while still < 3:
        await asyncio.sleep(0.02)
        now = (rec.group, rec.private)
        still = still + 1 if now == last and not table.lock.locked() else 0
        last = now


def _moves_of(engine) -> int:
    """Plays, passes and bids so far."""
    return len(engine.log) + sum(1 for b in getattr(engine, "bids", []) or [] if b is not None)


async def _chat_table(index: int, args: str, seats: int, computers: int, settings: dict,
                      games: int, seed: int) -> dict[str, float]:
    from nonebot.adapters.onebot.v11 import Adapter, Bot

    from nonebot_plugin_paizhuo import accounts
    from nonebot_plugin_paizhuo.actions import commit, computer_seats, seating, turns
    from nonebot_plugin_paizhuo.games.base import is_computer
    from nonebot_plugin_paizhuo.messaging import private, refusal
    from nonebot_plugin_paizhuo.tables import PLAYING, REGISTRY

    group_id = str(70000 + 100 * seed + index)  # a group of its own
    humans = [f"{group_id}{i}" for i in range(seats - computers)]  # seated at no other table
    adapter_ = nonebot.get_adapter(Adapter)
    rec = Recorder(humans)
    adapter_._call_api = rec  # type: ignore[method-assign]
    bot = Bot(adapter_, self_id="10001")
    accounts.bot_for = lambda table: bot  # the timers speak through this bot
    if settings:
        game_name = args.split()[0]
        await REGISTRY.require_store().set_settings(group_id, game_name, settings)
    await seating.open_table(bot, group_id, humans[0], "玩家1", args)
    for i, uid in enumerate(humans[1:], 2):
        if i == len(humans) and not computers:
            break
        await seating.join_table(bot, group_id, uid, f"玩家{i}")
    totals = {"group": 0, "private": 0, "moves": 0, "answers": 0, "decisions": 0, "between": 0,
              "cards": 0}
    before = (rec.group, rec.private, rec.cards)
    if computers:
        await computer_seats.add_computers(bot, group_id, humans[0], str(computers), True)
    else:
        await seating.join_table(bot, group_id, humans[-1], f"玩家{len(humans)}")
    table = REGISTRY.get(group_id)
    if table is None:
        raise RuntimeError(f"no table for {args}: {REGISTRY.tables}")
    for game in range(games):
        answers = 0
        decisions = 1  # the command that dealt this game (the last /加入, /加电脑 or /继续)
        while table.status == PLAYING:
            await _settle(table)
            if table.status != PLAYING:
                break
            engine, ad = table.engine, table.adapter
            waiting = [s for s in ad.waiting_seats(engine) if not is_computer(table.seats[s].user_id)]
            if not waiting:
                await asyncio.sleep(0.001)
                continue
            seat = waiting[0]
            uid = table.seats[seat].user_id
            answers += bool(ad.prompt_seconds(engine))  # a private answer (还贡, 明/暗, 扣底)
            decisions += 1  # a person's move or private answer

            def act(_seat: int, seat: int = seat, ad=ad) -> list:
                return ad.computer_turn(table.engine, table.seats, seat)

            await commit.run_locked(bot, table, lambda uid=uid, act=act: turns._apply(
                table, uid, act, lambda msg, uid=uid: refusal(private(uid, msg), uid), "bench"))
        await _settle(table)
        await _quiet(rec, table)
        totals["moves"] += _moves_of(table.engine)
        totals["answers"] += answers
        totals["decisions"] += decisions
        totals["group"] += rec.group - before[0]
        totals["private"] += rec.private - before[1]
        totals["cards"] += rec.cards - before[2]
        if game == games - 1:
            break
        between = rec.group
        for uid in humans[:-1]:
            await seating.continue_table(bot, group_id, uid)
        await _quiet(rec, table)
        totals["between"] += rec.group - between
        before = (rec.group, rec.private, rec.cards)
        await seating.continue_table(bot, group_id, humans[-1])
    return {k: v / games for k, v in totals.items()}


async def _chat(games: int, seed: int) -> None:
    from nonebot_plugin_paizhuo.tables import REGISTRY
    from paizhuo_db.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite+aiosqlite:///{tmp}/bench.db")
        await store.migrate()
        REGISTRY.store = store
        print("| 桌 | 每局步数（出、过、叫分） | 人的私聊回答 | 人的决定（含开局命令） "
              "| 群消息（其中详情卡片） | 每步群消息 | **每个决定的群消息** | 私聊 | 两局之间群消息 |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        from nonebot_plugin_paizhuo.actions import commit
        from nonebot_plugin_paizhuo.messaging import Outgoing, plain

        class Counted:  # a table picture (图片桌面), counted instead of drawn
            def __init__(self, group_id: str) -> None:
                self.group_id = group_id

            async def outgoing(self) -> Outgoing:
                return Outgoing("group", self.group_id, plain("桌面"), image=b"png")

        commit.pictures_on = lambda: True  # only where the setting is on
        commit.table_picture = lambda adapter, game, seats, group_id: Counted(group_id)
        for index, (args, seats, computers, settings) in enumerate(CHAT_TABLES):
            # Pictures are on only for the 图片桌面 row: there the settlement picture after
            # the end message (结算) is counted too; the other rows are texts only.
            pictured = bool(settings.get("picture_table"))
            commit.settlement_picture = (
                (lambda adapter, game, seats, group_id, number: Counted(group_id)) if pictured
                else (lambda *args: None))
            r = await _chat_table(index, args, seats, computers, settings, games, seed)
            who = f"1 人 + {computers} 电脑" if computers else "全是人"
            who += "".join(f"，{SETTING_NAMES[k]}" for k in settings)
            print(f"| {args.split()[0]} {seats} 人，{who} | {r['moves']:.1f} | {r['answers']:.1f} | "
                  f"{r['decisions']:.1f} | {r['group']:.1f}（{r['cards']:.1f}） | "
                  f"{r['group'] / r['moves']:.3f} | **{r['group'] / r['decisions']:.3f}** | "
                  f"{r['private']:.1f} | {r['between']:.1f} |", flush=True)
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chat", action="store_true", help="count what the bot itself posts")
    args = parser.parse_args()
    if args.chat:
        asyncio.run(_chat(args.games, args.seed))
        return
    print("| 桌 | 每局步数 | 群消息 | 群消息字数 | 私聊 | 私聊字数 | 每局总字数 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, size in TABLES:
        r = play_table(name, size, args.games, args.seed)
        print(f"| {name} {size} 人 | {r['moves']:.0f} | {r['group']:.0f} | {r['group_chars']:.0f} | "
              f"{r['private']:.0f} | {r['private_chars']:.0f} | {r['group_chars'] + r['private_chars']:.0f} |")


if __name__ == "__main__":
    main()
