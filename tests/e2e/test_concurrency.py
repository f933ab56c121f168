"""Concurrency over the real bot and WebSocket ("never hang, never lose", item 5).

A 4-player game (group A) and a 3-player game (group B) run in one bot. Repeatedly, every
player, a few strangers and the players of the other group send a *burst* of simultaneous
commands (``asyncio.gather``): the move their simulated strategy would make (sometimes
twice), ``过``, garbage, and moves aimed at the other group's table. After each burst the
bot is allowed to go idle and the saved tables are read from SQLite. For each table:

* the new engine is the old one with exactly the newly logged moves applied in log order
  (replayed through :class:`ZGame`), nothing else changed;
* every accepted move was announced by exactly one group message, in log order, and
  matches a distinct command that was sent *to that group* by the player of that seat
  (a command is never applied twice; the other group's traffic never touches the table);
* all 54 cards are in the hands or the log; each player's last private hand message is
  the saved hand; the latest ``轮到`` in the group names the saved player to act;
* a finished game has exactly one record.

The games are played to their ends this way.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
import unicodedata
from collections import Counter
from pathlib import Path

from paizhuo_engine.cards import rank_of
from tools.kill_soak import card_problems, norm, read_live, record_counts, replay
from tools.onebot_sim import BotProcess, OneBotSim, Sent
from tools.players import SimPlayer, hand_listener, ranks_of

TOKEN = "concurrency"
GROUP_A, GROUP_B = 51001, 51002
MOVE_RE = re.compile(r"^(\S+) (?:出 (.+?)（[^）]+）|过)(?:［.+］)?$")
GARBAGE = ["出", "出 ZZZ", "出 3333333", "出 大王大王", "出 ♠A♠A", "出 3 三连", "出　３", "过过",
           "/牌桌", "/手牌", "hello", "/加入", "/开局 抓特务 四人", "/继续", "/退出", "要不起",
           "不要", "/帮助", "[CQ:at,qq=all] 出 3", "出 1"]
STRANGER = ["出 3", "过", "/加入", "/结束", "/牌桌", "出 大王", "不要", "/继续", "/手牌", "出 33"]


class Table:
    """One group's table as the test sees it: players, and the commands sent to it."""

    def __init__(self, group: int, players: list[SimPlayer]) -> None:
        self.group = group
        self.players = players
        self.by_id = {p.user_id: p for p in players}

    def prompt(self, sim: OneBotSim) -> Sent | None:
        for sent in reversed(sim.sent):
            if sent.kind == "group" and sent.target == self.group and "轮到 @" in sent.text:
                return sent
        return None


def announced_moves(sim: OneBotSim, group: int, since: int) -> list[tuple[str, list[int] | None]]:
    """``(name, ranks or None for a pass)`` of every move line the group was shown."""
    out = []
    for sent in sim.sent[since:]:
        if sent.kind != "group" or sent.target != group:
            continue
        for line in sent.text.splitlines():
            m = MOVE_RE.match(line)
            if m:
                out.append((m.group(1), sorted(ranks_of(m.group(2))) if m.group(2) else None))
    return out


def command_key(text: str) -> tuple[str, tuple[int, ...]] | None:
    """What a group command would do as a move: ``("pass", ())`` / ``("play", ranks)``."""
    t = unicodedata.normalize("NFKC", text).strip()
    if t in ("过", "不要", "要不起"):
        return ("pass", ())
    if t.startswith("出 "):
        return ("play", tuple(sorted(ranks_of_any(t[2:]))))
    return None


def ranks_of_any(body: str) -> list[int]:
    """Ranks of an ``出`` command written the way the simulated players write it."""
    names = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]
    out, i = [], 0
    while i < len(body):
        for n in sorted(names, key=len, reverse=True):
            if body.startswith(n, i):
                out.append(names.index(n))
                i += len(n)
                break
        else:
            i += 1
    return out


def check_table(sim: OneBotSim, db: Path, table: Table, old: dict, since: int,
                sent: Counter) -> dict:
    """All the per-burst checks for one table; returns the new saved state."""
    new = read_live(db, table.group)
    assert new is not None, f"table of group {table.group} vanished"
    assert new["status"] in ("playing", "finished"), new["status"]
    assert new["uid"] == old["uid"], "a new game started during a burst"
    old_eng, new_eng = old["engine"], new["engine"]
    assert card_problems(new_eng) == []
    n = len(old_eng["log"])
    assert new_eng["log"][:n] == old_eng["log"], "the move log was rewritten"
    entries = new_eng["log"][n:]
    if old_eng["phase"] == "play":
        assert replay(old_eng, entries) == norm(new_eng), (
            f"group {table.group}: saved state is not the old one with the {len(entries)} "
            f"logged move(s) applied: {entries}")
    # The game's seats are the burst's first ones: a player may leave (/退出) once the game
    # has ended in the same burst, and the engine's seat numbers still count them.
    names = [name for _uid, name in old["seats"]]
    expected = [(names[s], sorted(rank_of(c) for c in cards) if cards else None)
                for s, cards in entries]
    shown = "\n".join(f"  {s}" for s in sim.sent[since:] if s.kind == "group" and s.target == table.group)
    assert announced_moves(sim, table.group, since) == expected, (
        f"group {table.group}: accepted moves and group announcements differ (a move applied "
        f"twice, lost, or announced out of order); the group was shown:\n{shown}")
    # Each accepted move matches a distinct command that seat sent to this group in this
    # burst (or late from the one before) that no other move used.
    seats = [int(uid) for uid, _ in old["seats"]]
    commands = sent.copy()
    for s, cards in entries:
        key = (table.group, seats[s], ("play", tuple(sorted(rank_of(c) for c in cards))) if cards
               else ("pass", ()))
        assert commands[key] > 0, f"accepted move {key} matches no command sent to the group"
        commands[key] -= 1
    for seat, uid in enumerate(seats):
        p = table.by_id[uid]
        assert sorted(p.hand) == sorted(rank_of(c) for c in new_eng["hands"][seat]), (
            f"{p.name}'s last private hand differs from the saved hand")
    if new["status"] == "playing" and new_eng["phase"] == "play":
        prompt = table.prompt(sim)
        assert prompt is not None and prompt.at == [seats[new_eng["turn"]]], (
            f"latest 轮到 {prompt and prompt.text!r} does not name the saved player to act")
    if new["status"] == "finished":
        assert record_counts(db)[new["uid"]] == 1
    sent.clear()  # every check passed: the matched commands are used up
    sent.update(+commands)
    return new


async def settled_check(sim: OneBotSim, db: Path, table: Table, old: dict, since: int,
                        sent: Counter, patience: float = 10.0) -> dict:
    """:func:`check_table` once the bot is idle; a machine under load may pause longer
    than the quiet period, so a failing check is retried (after more quiet) for up to
    ``patience`` seconds before it counts — a move saved but never announced still fails."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return check_table(sim, db, table, old, since, sent)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            await sim.wait_idle(quiet=0.5, timeout=20)


async def announced_snapshot(sim: OneBotSim, db: Path, tables: tuple[Table, ...],
                             patience: float = 10.0) -> dict[int, dict]:
    """The saved tables, read once every saved move has been announced in its group. A
    command of the last burst handled after that burst's check (a loaded machine pauses
    longer than the quiet period) is saved and then announced a moment later; a snapshot
    taken in between would count its announcement in the next burst. A move is announced
    only after it is saved, so the wait ends; after ``patience`` seconds the snapshot is
    taken as it is (and a move saved but never announced fails the next check)."""
    deadline = time.monotonic() + patience
    while True:
        old = {t.group: read_live(db, t.group) for t in tables}
        behind = [t for t in tables if old[t.group]["status"] == "playing"
                  and len(announced_moves(sim, t.group, 0)) < len(old[t.group]["engine"]["log"])]
        if not behind or time.monotonic() > deadline:
            return old
        await sim.wait_idle(quiet=0.5, timeout=20)


async def seat_table(sim: OneBotSim, table: Table, size: int) -> None:
    p0 = table.players[0]
    since = sim.mark()
    await sim.group_message(table.group, p0.user_id, f"/开局 抓特务 {size}人")
    await sim.wait_for_text("开了一桌", kind="group", target=table.group, since=since)
    for p in table.players[1:]:
        since = sim.mark()
        await sim.group_message(table.group, p.user_id, "/加入")
        await sim.wait_for_text("入座", kind="group", target=table.group, since=since)
    await sim.wait_idle(quiet=0.2)


async def declare_burst(sim: OneBotSim, db: Path, table: Table, rng: random.Random) -> None:
    """Every seat answers (some twice) — a spy its choice, a civilian 暗 (G-4) — and
    civilians try 明 too (refused), all at once."""
    old = read_live(db, table.group)
    eng = old["engine"]
    if eng["phase"] != "declare":
        return
    seats = [int(uid) for uid, _ in old["seats"]]
    msgs = []
    for seat, uid in enumerate(seats):
        p = table.by_id[uid]
        spy = eng["roles"][seat] == "spy"
        msgs += [(uid, p.declare if spy else "暗")] * (2 if rng.random() < 0.5 else 1)
        if not spy:
            msgs.append((uid, "明"))
    rng.shuffle(msgs)
    await asyncio.gather(*(sim.private_message(uid, text) for uid, text in msgs))
    await sim.wait_idle(quiet=0.3, timeout=20)
    new = read_live(db, table.group)
    for seat, uid in enumerate(seats):
        want = table.by_id[uid].declare if eng["roles"][seat] == "spy" else None
        assert new["engine"]["declared"][seat] == want
    assert new["engine"]["phase"] == "play"
    assert new["engine"]["hands"] == eng["hands"] and new["engine"]["log"] == []


async def test_bursts_of_simultaneous_commands(tmp_path: Path) -> None:
    rng = random.Random(20240605)
    db = tmp_path / "bot.db"
    bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN, env={"PAIZHUO_DEAL_SEED": "7"},
                     database_url=f"sqlite+aiosqlite:///{db}")
    sim = OneBotSim(self_id=10001)
    a = Table(GROUP_A, [SimPlayer(2001 + i, n, declare=d)
                        for i, (n, d) in enumerate(zip("甲乙丙丁", ["明", "暗", "明牌", "暗"], strict=True))])
    b = Table(GROUP_B, [SimPlayer(3001 + i, n, declare="暗") for i, n in enumerate("子丑寅")])
    strangers = [9001, 9002, 9003]
    for t in (a, b):
        for i, p in enumerate(t.players):
            sim.add_member(t.group, p.user_id, p.name, role="owner" if i == 0 else "member")
            sim.add_friend(p.user_id, p.name)
        for s in strangers:
            sim.add_member(t.group, s, f"路人{s % 10}")

    for t in (a, b):  # hands from the private messages; gone out as the group is told
        sim.listeners.append(hand_listener(t.players))
    started = time.monotonic()
    await bot.start()
    try:
        await sim.connect(bot.url, TOKEN)
        for t in (a, b):  # no turn timer: every move in this test comes from a message
            since = sim.mark()
            await sim.group_message(t.group, t.players[0].user_id, "/设置 抓特务 出牌限时 0")
            await sim.wait_for_text("已设为", kind="group", target=t.group, since=since)
        await seat_table(sim, a, 4)
        await seat_table(sim, b, 3)
        for t in (a, b):
            await declare_burst(sim, db, t, rng)

        bursts = fallbacks = accepted = 0
        sent_total = 0
        carried: Counter = Counter()
        """``(group, user, move)`` of the last burst's (and fallback's) commands that no
        accepted move used: a message of a burst may be handled after that burst's quiet
        period on a loaded machine; it still counts once, in the next burst."""
        while True:
            old = await announced_snapshot(sim, db, (a, b))
            live = [t for t in (a, b) if old[t.group]["status"] == "playing"]
            if a not in live:
                break
            msgs: list[tuple[int, int, str]] = []
            for t in live:
                prompt = t.prompt(sim)
                for p in t.players:
                    if p.hand:
                        msgs += [(t.group, p.user_id, p.decide(prompt.text))] * (
                            2 if rng.random() < 0.35 else 1)
                    if rng.random() < 0.5:
                        msgs.append((t.group, p.user_id, "过"))
                    if rng.random() < 0.4:
                        msgs.append((t.group, p.user_id, rng.choice(GARBAGE)))
                    other = b if t is a else a  # the same command aimed at the other table
                    if rng.random() < 0.3:
                        msgs.append((other.group, p.user_id, rng.choice(["过", "出 3", "出 44"])))
            for s in strangers:
                msgs.append((rng.choice([GROUP_A, GROUP_B]), s, rng.choice(STRANGER)))
            rng.shuffle(msgs)
            fresh: Counter = Counter()
            note_commands(fresh, msgs)
            unused = carried + fresh
            since = sim.mark()
            await asyncio.gather(*(sim.group_message(g, u, text) for g, u, text in msgs))
            await sim.wait_idle(quiet=0.25, timeout=20)
            bursts += 1
            sent_total += len(msgs)
            moved = 0
            for t in (a, b):
                if old[t.group]["status"] != "playing":
                    continue
                new = await settled_check(sim, db, t, old[t.group], since, unused)
                moved += len(new["engine"]["log"]) - len(old[t.group]["engine"]["log"])
            accepted += moved
            carried = unused & fresh
            if moved == 0:  # nothing accepted: one ordinary move by the player to act
                fallbacks += 1
                note_commands(carried, await plain_move(sim, db, a))
        end = read_live(db, GROUP_A)
        assert end["status"] == "finished"
        assert end["engine"]["result"] is not None
        counts = record_counts(db)
        assert counts[end["uid"]] == 1 and all(n == 1 for n in counts.values())
        assert bursts >= 10 and accepted >= bursts  # the game really went through bursts
        assert fallbacks <= bursts // 4
        print(f"\n{bursts} bursts, {sent_total} messages, {accepted} moves accepted, "
              f"{fallbacks} fallback moves, {time.monotonic() - started:.1f}s")
    finally:
        await sim.close()
        await bot.stop()


def note_commands(unused: Counter, msgs: list[tuple[int, int, str]]) -> None:
    """Add the moves among ``msgs`` (group, user, text) to the unused commands."""
    unused.update((g, u, key) for g, u, text in msgs if (key := command_key(text)) is not None)


async def plain_move(sim: OneBotSim, db: Path, t: Table) -> list[tuple[int, int, str]]:
    """Like ``tools.players.continue_table``: the player to act moves, or passes if
    refused. Returns the messages sent."""
    st = read_live(db, t.group)
    p = t.by_id[int(st["seats"][st["engine"]["turn"]][0])]
    sent: list[tuple[int, int, str]] = []
    for text in (p.decide(t.prompt(sim).text), "过", f"出 {min(p.hand)}" if p.hand else "过"):
        since = sim.mark()
        sent.append((t.group, p.user_id, text))
        await sim.group_message(t.group, p.user_id, text)
        reply = await sim.wait_for(lambda s: s.kind == "group" and s.target == t.group, since=since)
        await sim.wait_idle(quiet=0.1)
        if not (reply.at == [p.user_id] and "轮到 @" not in reply.text):
            return sent
    return sent
