"""Simulated players for a table, driven only by what the bot says, on any simulated side
(``tools/onebot_sim.py``, ``tools/milky_sim.py``, ``tools/satori_sim.py``: the players use
only the interface of :class:`~tools.sim_base.ChatSim`).

Each :class:`SimPlayer` learns its hand from the bot's private messages and acts when a
group message @-mentions it with ``轮到``. The strategy is simple and needs no project
code: lead the whole lowest rank group (a single, pair, triple or four); follow a set of
the same size with the lowest rank that beats it; otherwise pass. Like the simulator, this
module imports nothing from the project.

:func:`play_table` seats a group of players, opens a table and plays it to the end.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from tools.sim_base import ChatSim, Sent

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]
CARD_RE = re.compile(r"(?:[♠♥♣♦](10|[3-9JQKA2]))|(小王|大王)")
SET_SIZES = {"单张": 1, "对子": 2, "三张": 3, "四张": 4}
"""Follows the simulated players know: the same number of one rank."""
FOLLOW_RE = re.compile(r"要大过 .+? 的 ([^（，\n]+)(?:（(.+?)）)?")
"""The play to beat in a ``轮到`` prompt (the type is named unless the cards say it)."""
PLAYED_RE = re.compile(r"^.+? 出 ([^（［\n]+)(?:（(.+?)）)?", re.M)
"""A play line; a prompt that says only ``跟牌或过`` follows the play above it."""


def ranks_of(text: str) -> list[int]:
    """Rank indices (0 = 3 … 14 = 大王) of every card written in ``text``."""
    return [RANKS.index(m.group(1) or m.group(2)) for m in CARD_RE.finditer(text)]


@dataclass
class SimPlayer:
    """One simulated QQ user at a table."""

    user_id: int
    name: str
    hand: list[int] = field(default_factory=list)
    role_text: str = ""
    moves: int = 0
    declare: str = "暗"
    answers: list[str] = field(default_factory=list)
    bombs: bool = True
    """Whether a four of a kind may beat a play of another size: cleared once the bot
    refuses one (抓特务 has no bombs, Z-3), so the player stops spending refusals on it."""

    def learn(self, sent: Sent) -> None:
        """Read a private message from the bot: role line and hand line."""
        lines = sent.text.splitlines()
        if lines and lines[0].startswith("【"):
            self.role_text = lines[0]
        for i, line in enumerate(lines):
            if line.startswith("你的手牌"):
                same_line = line.split("：", 1)[1] if "：" in line else ""
                source = same_line if ranks_of(same_line) else (lines[i + 1] if i + 1 < len(lines) else "")
                self.hand = sorted(ranks_of(source))
            if "你的牌已出完" in line:
                self.hand = []

    def respond(self, sent: Sent) -> str | None:
        """The private answer to a question from the bot, if it asks one: ``明``/``明牌``
        /``暗`` when asked to declare (a civilian ``暗``), ``还 <lowest cards>`` when asked
        to return tribute."""
        if "请选择，私聊回复" in sent.text:
            return self.declare
        if "没有明/暗可选" in sent.text:
            return "暗"
        if "请扣 4 张牌" in sent.text:
            return "扣 " + "".join(RANKS[r] for r in self.hand[:4])
        m = re.search(r"请还给 \S+ (\d+) 张牌", sent.text)
        if m:
            need = int(m.group(1))
            ok = [r for r in self.hand if RANKS[r] != "A"]
            return "还 " + "".join(RANKS[r] for r in ok[:need])
        return None

    def decide(self, prompt: str) -> str:
        """The first command :meth:`candidates` proposes."""
        return self.candidates(prompt)[0]

    def candidates(self, prompt: str) -> list[str]:
        """Commands to try, in order, for a ``轮到`` prompt (the next one is tried when the
        bot refuses one). Bidding: players with an even QQ number pass when they may, the
        others bid the least they can. Leading: the whole lowest rank group, then each
        single from the lowest. Following a single / pair / triple / four: the lowest rank
        that beats it, then a four of a kind (a bomb in the games that have them), then
        pass, then the singles and pairs that might be a must-block answer."""
        bid = re.search(r"叫分：(.+?)（", prompt)
        if bid:
            options = [o.strip() for o in bid.group(1).split("/")]
            if "不叫" in options and self.user_id % 2 == 0:
                return ["不叫"]
            return [next(o for o in options if o != "不叫")]
        counts: dict[int, int] = {}
        for r in self.hand:
            counts[r] = counts.get(r, 0) + 1
        singles = ["出 " + RANKS[r] for r in sorted(counts)]
        follow = FOLLOW_RE.search(prompt)
        if follow is None and "跟牌或过" in prompt:
            follow = ([None, *PLAYED_RE.finditer(prompt)])[-1]
        if follow is None:
            low = min(counts)
            return ["出 " + RANKS[low] * counts[low], *singles]
        table_ranks = ranks_of(follow.group(1))
        size = SET_SIZES.get(follow.group(2) or "")
        if follow.group(2) is None and table_ranks and len(set(table_ranks)) == 1:
            size = len(table_ranks)
        out = []
        if size is not None and table_ranks:
            out += ["出 " + RANKS[r] * size for r in sorted(counts)
                    if r > table_ranks[0] and counts[r] >= size]
        if self.bombs and size != 4:
            out += ["出 " + RANKS[r] * 4 for r in sorted(counts) if counts[r] == 4]
        tries = [*out, "过", *singles, *("出 " + RANKS[r] * 2 for r in sorted(counts) if counts[r] >= 2)]
        return list(dict.fromkeys(tries))  # a command refused once is not sent again

    def refused(self, command: str, prompt: str) -> None:
        """The bot refused ``command`` (tried for ``prompt``): a four of a kind refused
        against a play of another size means the game has no bombs."""
        following = FOLLOW_RE.search(prompt) is not None or "跟牌或过" in prompt
        if following and command in {"出 " + rank * 4 for rank in RANKS[:13]}:
            self.bombs = False


async def play_table(sim: ChatSim, group_id: int, players: list[SimPlayer],
                     game_args: str = "抓特务 三人", *, timeout: float = 120.0,
                     max_moves: int = 2000, stop_after: int | None = None) -> Sent | None:
    """Open a table with ``players[0]``, seat the rest and play until the bot posts the end
    (returned). With ``stop_after`` moves, returns ``None`` after that many moves instead.

    Raises ``TimeoutError`` if the bot stops answering.
    """
    attach(sim, players)
    since = sim.mark()
    await sim.group_message(group_id, players[0].user_id, f"/开局 {game_args}")
    await sim.wait_for_text("开了一桌", kind="group", target=group_id, since=since, timeout=timeout)
    for p in players[1:]:
        since = sim.mark()
        await sim.group_message(group_id, p.user_id, "/加入")
        await sim.wait_for_text("入座", kind="group", target=group_id, since=since, timeout=timeout)
    return await continue_table(sim, group_id, players, since=since, timeout=timeout,
                                max_moves=max_moves, stop_after=stop_after)


async def next_game(sim: ChatSim, group_id: int, players: list[SimPlayer], *,
                    timeout: float = 120.0) -> Sent | None:
    """Every player sends ``/继续``; the next game (with tribute and declaring) is played
    to its end, which is returned."""
    attach(sim, players)
    since = sim.mark()
    for p in players:
        await sim.group_message(group_id, p.user_id, "/继续")
    await sim.wait_for_text("开局", kind="group", target=group_id, since=since, timeout=timeout)
    return await continue_table(sim, group_id, players, since=since, timeout=timeout)


_attached: dict[int, set[int]] = {}


def attach(sim: ChatSim, players: list[SimPlayer]) -> None:
    """Feed ``players`` their private messages from ``sim`` and let them answer the bot's
    private questions, from now on (once per simulator and player). A player attached
    after its hand was sent (a table that deals as the last computer sits down) first
    reads the private messages it already got."""
    seen = _attached.setdefault(id(sim), set())
    new = [p for p in players if p.user_id not in seen]
    if new:
        by_id = {p.user_id: p for p in new}
        for sent in list(sim.sent):
            if sent.kind == "private" and sent.target in by_id and sent.ok:
                by_id[sent.target].learn(sent)
        sim.listeners.append(hand_listener(new, sim))
        seen.update(p.user_id for p in new)


def hand_listener(players: list[SimPlayer], sim: ChatSim | None = None):
    """A simulator listener that feeds each player the private messages sent to them and,
    with ``sim``, sends their private answers to the bot's questions. A player the group
    is told has gone out (``<名字> 出完了``) holds nothing (the bot sends no private
    message for it)."""
    by_id = {p.user_id: p for p in players}

    def on_sent(sent: Sent) -> None:
        if sent.kind == "group" and sent.ok and "出完了" in sent.text:
            for p in players:
                if re.search(rf"^{re.escape(p.name)} 出完了", sent.text, re.M):
                    p.hand = []
        if sent.kind == "private" and sent.target in by_id and sent.ok:
            player = by_id[sent.target]
            player.learn(sent)
            answer = player.respond(sent) if sim is not None else None
            if answer is not None:
                player.answers.append(answer)
                task = asyncio.get_running_loop().create_task(sim.private_message(player.user_id, answer))
                _pending.add(task)
                task.add_done_callback(_pending.discard)

    return on_sent


_pending: set[asyncio.Task] = set()


async def continue_table(sim: ChatSim, group_id: int, players: list[SimPlayer], *,
                         since: int = 0, timeout: float = 120.0, max_moves: int = 2000,
                         stop_after: int | None = None) -> Sent | None:
    """Play on from the first ``轮到`` prompt at or after ``since`` until the end message."""
    attach(sim, players)
    return await _play_on(sim, group_id, players, since, timeout, max_moves, stop_after)


def hand_to(user_id: int):
    """A check of a sent message: the hand sent privately to ``user_id``."""
    return lambda s: s.kind == "private" and s.target == user_id and s.ok and "你的手牌" in s.text


def is_prompt(sent: Sent) -> bool:
    """A turn prompt: ``轮到 @名字`` (a refusal may say whose turn it is, ``现在轮到 乙``,
    without the @)."""
    return sent.kind == "group" and "轮到 @" in sent.text


async def _play_on(sim: ChatSim, group_id: int, players: list[SimPlayer], since: int,
                   timeout: float, max_moves: int, stop_after: int | None) -> Sent | None:
    by_id = {p.user_id: p for p in players}
    moves = 0

    def is_prompt_or_end(s: Sent) -> bool:
        return s.kind == "group" and s.target == group_id and (
            "本局结束" in s.text or (is_prompt(s) and any(u in by_id for u in s.at)))

    cursor = since
    while moves < max_moves:
        sent = await sim.wait_for(is_prompt_or_end, timeout=timeout, since=cursor)
        await sim.wait_idle(quiet=0.05, timeout=timeout)
        # A prompt re-posted (after a restart) before a move answered it is stale: act on
        # the newest prompt only.
        sent = [s for s in sim.sent[sim.sent.index(sent):] if is_prompt_or_end(s)
                or (s.kind == "group" and s.target == group_id and is_prompt(s))][-1]
        if not is_prompt_or_end(sent):
            cursor = sim.sent.index(sent) + 1
            continue  # a person of another simulation (or a computer seat) acts now
        cursor = sim.sent.index(sent) + 1
        if "本局结束" in sent.text:
            return sent
        if stop_after is not None and moves >= stop_after:
            return None
        player = by_id[next(u for u in sent.at if u in by_id)]
        await asyncio.sleep(0)  # let the private hand message land first
        await sim.wait_idle(quiet=0.05, timeout=timeout)
        if not player.hand:  # prompted with nothing known in hand: the hand is on its way
            # (sent beside the prompt, it can land a little later, e.g. when the bot's
            # process pauses for a full garbage collection between the two sends)
            await sim.wait_for(hand_to(player.user_id), since=sim.sent.index(sent),
                               timeout=timeout)
        for command in player.candidates(sent.text):
            mark = sim.mark()
            await sim.group_message(group_id, player.user_id, command)
            answer = await sim.wait_for(
                lambda s: s.kind == "group" and s.target == group_id, since=mark, timeout=timeout)
            if not (answer.at == [player.user_id] and not is_prompt(answer)):
                break  # accepted (a refusal is a short reply @-mentioning only the player)
            player.refused(command, sent.text)
        player.moves += 1
        moves += 1
    raise RuntimeError("game did not end")
