"""A randomized, stateful run of the whole bot where its features meet.

``python tools/combo.py --seed 1 --steps 400 [--side milky]`` (``--pg URL`` adds a second
process on a shared PostgreSQL database and moves the account between the two; OneBot
only).

It starts the real ``bot.py`` (:class:`~tools.onebot_sim.BotProcess`) and drives it through
a protocol side's simulator (``--side``: OneBot v11 over a real reverse WebSocket, or the
Milky / Satori fake the bot dials through its real adapter), as several groups of people would:
tables of every game opened, joined, filled with computer seats, played (with mistyped and
out-of-turn moves among the real ones), 托管, private answers (明/暗, 还贡, 扣底), history
(``/战绩`` ``/对局`` ``/对局 N`` ``/排行``), settings, help; and as an operator's world would:
picture and merged-forward calls that fail or hang, events delivered twice, kill -9 and
restart, and (with ``--pg``) the account moving from one process to another.

After every step it checks invariants (an :class:`Violation` names the first broken one):

* every command is answered (a group post or a private message to the sender, sent
  successfully), within :data:`ANSWER_TIMEOUT`, whatever media hang; a duplicated event
  changes nothing;
* no group message shows hidden information: no private hand line, no undeclared spy
  named before the end, and a refused move's group text depends only on the typed text and
  the public table (the same probe at the same prompt always gets the same group text);
* the saved state is the announced state: after a restart or a move of the account, no card
  the group saw played is back in its player's hand (``/手牌``);
* every finished game has exactly one end message and a working ``/对局 N``; its record
  exists once;
* the bot process does not grow: threads and open files after the run stay near their
  level after the first steps.

Only the standard library, ``websockets`` (through the simulator) and the simulated players
are used: the run judges the bot by what it says, as players would.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.milky_sim import MilkySim
from tools.onebot_sim import BotProcess, ConnectionRejected, OneBotSim, Sent
from tools.players import SimPlayer, hand_listener
from tools.satori_sim import SatoriSim
from tools.sim_base import ChatSim

TOKEN = "combo"
SUPERUSER = 7190
GROUPS = [71001, 71002, 71003]
USERS = {7101: "甲", 7102: "乙", 7103: "丙", 7104: "丁", 7105: "戊", 7106: "己"}
GAMES = ["抓特务 三人", "抓特务 四人", "挖坑", "挖坑 陕西", "手把一 2人", "手把一 3人", "手把一 4人"]
ANSWER_TIMEOUT = 15.0
"""Seconds a command may take to be answered, hung media included."""
QUIET = 0.25
"""Seconds of silence that count as "the bot is idle" (above the computers' delay)."""
CARD_RE = re.compile(r"[♠♥♣♦](?:10|[3-9JQKA2])|小王|大王")
MEMORY_KIB = 96 * 1024
"""Growth of the bot's resident memory a run may show (the picture font and the caches of
the first games load after the baseline is taken)."""
PROBES = ["出 梅花A 黑桃Q", "出 3", "出 黑桃3", "出 34", "出 大王小王", "出 黑桃A", "出 345",
          "出 33", "出 红桃3", "出 77889", "出 2", "过", "出 xyz"]
"""Moves a player types by mistake (or on purpose): some legal in some hands, some never."""
SETTINGS = ["/设置 抓特务 显示张数 1", "/设置 抓特务 出牌限时 90", "/设置 挖坑 图片桌面 开",
            "/设置 挖坑 图片桌面 关", "/设置 抓特务 出牌限时 --5", "/设置 手把一 出牌限时 ፩",
            "/设置 抓特务 图片桌面 开", "/设置", "/规则", "/规则 挖坑", "/规则 抓特务 显示张数",
            "/设置 挖坑 电脑难度 困难", "/设置 抓特务 电脑难度 困难", "/设置 手把一 电脑难度 困难",
            "/设置 抓特务 电脑难度 普通"]
SIDES: dict[str, type[ChatSim]] = {"onebot": OneBotSim, "milky": MilkySim, "satori": SatoriSim}
"""The protocol sides a run can drive the bot through."""
FAULTS = frozenset({"duplicate", "media", "restart"})
"""The operator's faults a run injects (all by default)."""
OTHER = ["/帮助", "/帮助 挖坑", "/战绩", "/排行", "/对局", "/对局 ፩", "/牌桌", "/手牌", "/提示",
         "/记牌", "/加机器人 ፩", "/托管", "hello everyone"]
"""Commands anyone may send at any time; each gets an answer (chat gets none)."""



def is_prompt(text: str) -> bool:
    """A post that says whose turn it is: a prompt (``轮到 @甲 …``, ``轮到 电脑1 …``),
    not a refusal that names the player to act (``@乙 还没轮到你，现在轮到 甲``)."""
    return "轮到" in text and "还没轮到你" not in text

class Violation(AssertionError):
    """An invariant broke; the message says which, at which step, with the evidence."""


@dataclass
class GroupState:
    """What the run knows of one group's table, from what the group was told."""

    game: str | None = None
    seated: list[int] = field(default_factory=list)
    playing: bool = False
    ended_numbers: list[int] = field(default_factory=list)
    played: dict[int, set[str]] = field(default_factory=dict)
    """Cards the group saw each person play in the current game."""


@dataclass
class Report:
    """Figures of a run."""

    steps: int = 0
    commands: int = 0
    moves: int = 0
    refusals: int = 0
    games_finished: int = 0
    restarts: int = 0
    moves_of_account: int = 0
    duplicates: int = 0
    media_faults: int = 0
    tasks: tuple[int, int] = (0, 0)
    threads: tuple[int, int] = (0, 0)
    fds: tuple[int, int] = (0, 0)
    rss_kib: tuple[int, int] = (0, 0)

    def lines(self) -> list[str]:
        return [f"{k}: {v}" for k, v in self.__dict__.items()]


def _proc_status(pid: int | None) -> tuple[int, int, int]:
    """(threads, open files, RSS KiB) of ``pid`` from /proc; zeros where unreadable."""
    if pid is None:
        return 0, 0, 0
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, AttributeError):
        return 0, 0, 0
    return threads, fds, rss


class Combo:
    """One run: ``await Combo(tmp, seed).run(steps)``."""

    def __init__(self, tmp: Path, seed: int, *, pg_url: str | None = None,
                 pictures: bool = True, faults: frozenset[str] = FAULTS,
                 side: str = "onebot") -> None:
        if pg_url and side != "onebot":
            raise ValueError("two processes on one account: OneBot only (both would dial one side)")
        self.side = side
        self.last_said: tuple[int | str, int] | None = None
        """The id and sender of the last message a person sent (for ``duplicate``)."""
        self.tmp = tmp
        self.seed = seed
        self.rng = random.Random(seed)
        self.faults = faults
        self.pg_url = pg_url
        self.report = Report()
        self.groups = {g: GroupState() for g in GROUPS}
        self.players = {u: SimPlayer(u, n, declare=self.rng.choice(["暗", "暗", "明", "明牌"]))
                        for u, n in USERS.items()}
        self.hands: dict[int, list[str]] = {}
        """Each person's hand as last sent privately, cards with suits."""
        self.spy: dict[int, bool] = {}
        """Who the bot told privately that they are a spy (抓特务), in their latest game."""
        self.declared: set[int] = set()
        """Spies the group has been told about (明 / 明牌)."""
        self.refusal_texts: dict[tuple[str, str], str] = {}
        self.step_no = 0
        self.problems: list[str] = []
        """Violations seen by the listener (raised after the step that caused them)."""
        self.sim = self._world()
        url = pg_url or f"sqlite+aiosqlite:///{tmp / 'bot.db'}"
        env = {"PAIZHUO_DEAL_SEED": str(seed), "PAIZHUO_COMPUTER_DELAY": "0.02",
               "PAIZHUO_IMAGES": "1" if pictures else "0",
               # Commands are paced by the run itself; the send pacing stays the bot's.
               "PAIZHUO_SEND_INTERVAL": "0.002", **self.sim.bot_env(TOKEN)}
        self.bots = [BotProcess(tmp / "bot1.log", access_token=TOKEN, superusers=[SUPERUSER],
                                database_url=url, env=env)]
        if pg_url:
            self.bots.append(BotProcess(tmp / "bot2.log", access_token=TOKEN,
                                        superusers=[SUPERUSER], database_url=url, env=env))
        self.serving = 0

    # ---- the world -------------------------------------------------------------------

    @property
    def media(self) -> dict[str, set[tuple[str, int]]]:
        """The chats whose pictures and merged forwards hang or fail (the side's knobs)."""
        return {"hang": self.sim.hang_media_to, "fail": self.sim.fail_media_to}

    def _world(self) -> ChatSim:
        sim = SIDES[self.side](self_id=10077)
        for g in GROUPS:
            sim.add_member(g, SUPERUSER, "管理", role="admin")
            for u, name in USERS.items():
                sim.add_member(g, u, name)
        for u, name in USERS.items():
            sim.add_friend(u, name)
        sim.add_friend(SUPERUSER, "管理")
        sim.listeners.append(hand_listener(list(self.players.values()), sim))
        sim.listeners.append(self._observe)
        return sim

    def _observe(self, sent: Sent) -> None:
        """Follow what the bot says: hands, seats, spies, plays, ends; check each group
        message for hidden information as it arrives."""
        if not sent.ok:
            return
        if sent.kind == "private":
            if sent.text.startswith("【抓特务】你是"):
                self.spy[sent.target] = sent.text.startswith("【抓特务】你是特务")
                self.declared.discard(sent.target)
            for line in sent.text.splitlines():
                if line.startswith("你的手牌") and "：" in line:
                    cards = CARD_RE.findall(line.split("：", 1)[1])
                    if cards:
                        self.hands[sent.target] = cards
                if "你的牌已出完" in line:
                    self.hands[sent.target] = []
            return
        state = self.groups.get(sent.target)
        if state is None:
            return
        text = sent.text
        if "你的手牌" in text:
            self.problems.append(f"a hand line was posted in group {sent.target}: {text!r}")
        ending = "本局结束" in text or "局详情" in text
        for user, name in USERS.items():
            if re.search(rf"{name}\s?(亮明|是特务)", text):
                self.declared.add(user)
        hidden = [USERS[u] for u in state.seated if self.spy.get(u) and u not in self.declared]
        for name in hidden if state.playing and not ending else []:
            if re.search(rf"{name}[^\n，。；]{{0,4}}特务|特务[:：][^\n]*{name}", text):
                self.problems.append(f"the undeclared spy {name} was named in group "
                                     f"{sent.target}: {text!r}")
        for line in text.splitlines():
            m = re.match(r"^(\S+) 出 (.+)$", line)
            if m:
                who = next((u for u, n in USERS.items() if n == m.group(1)), None)
                if who is not None:
                    state.played.setdefault(who, set()).update(CARD_RE.findall(m.group(2)))
        if "开局！" in text:
            state.playing = True
            state.played = {}
        if "本局结束" in text:
            state.playing = False
            self.report.games_finished += 1
            m = re.search(r"本群第 (\d+) 局", text)
            if m:
                state.ended_numbers.append(int(m.group(1)))
        if "牌桌已关闭" in text or "牌桌已结束" in text:
            state.game, state.seated, state.playing = None, [], False

    def _fail(self, what: str) -> None:
        raise Violation(f"seed {self.seed}, step {self.step_no}: {what}")

    # ---- sending commands ------------------------------------------------------------

    @property
    def bot(self) -> BotProcess:
        return self.bots[self.serving]

    async def _idle(self) -> None:
        # Computer seats may still be playing; the checks wait for what they need.
        with contextlib.suppress(TimeoutError):
            await self.sim.wait_idle(quiet=QUIET, timeout=ANSWER_TIMEOUT * 2)

    async def command(self, group_id: int | None, user: int, text: str, *,
                      answered: bool = True) -> list[Sent]:
        """Send ``text`` from ``user`` (in ``group_id``, or privately when ``None``); wait
        until the bot is quiet; return what it said. With ``answered`` the command must get
        a group post in that group or a private message to ``user``."""
        self.report.commands += 1
        mark = self.sim.mark()
        if group_id is None:
            said = await self.sim.private_message(user, text)
        else:
            said = await self.sim.group_message(group_id, user, text)
        self.last_said = (said, user)
        if answered:
            def answer(s: Sent) -> bool:
                return s.ok and ((s.kind == "group" and s.target == group_id) or (
                    s.kind == "private" and s.target == user))
            try:
                await self.sim.wait_for(answer, timeout=ANSWER_TIMEOUT, since=mark)
            except TimeoutError:
                faults = [k for k, v in self.media.items() if ("group", group_id) in v]
                self._fail(f"no answer to {text!r} from {user} in {group_id}"
                           + (f" (media calls there: {faults[0]})" if faults else ""))
        await self._idle()
        return self.sim.sent_since(mark)

    # ---- steps -----------------------------------------------------------------------

    def _prompted(self, group_id: int) -> int | None:
        """The person the group's latest prompt asks to act, if the table waits for one."""
        for s in reversed(self.sim.sent):
            if s.kind != "group" or s.target != group_id:
                continue
            if "本局结束" in s.text or "牌桌已关闭" in s.text:
                return None
            if is_prompt(s.text):
                ats = [u for u in s.at if u in USERS]
                return ats[-1] if ats else None
        return None

    def _prompt_key(self, group_id: int) -> str:
        """The public situation a move is typed in: the game, the prompt, and the play to
        beat (named in the prompt, or the last play of the post that prompts)."""
        for s in reversed(self.sim.sent):
            if s.kind == "group" and s.target == group_id and is_prompt(s.text):
                lines = s.text.splitlines()
                at = max(i for i, ln in enumerate(lines) if "轮到" in ln)
                prompt = re.sub(r"@\S+|（\d+ 秒）|\d+ 秒", "", lines[at])
                lead = ""
                if "要大过" not in prompt and "首出" not in prompt:
                    plays = [ln for ln in lines[:at] if " 出 " in ln]
                    lead = plays[-1] if plays else ""
                return f"{self.groups[group_id].game}|{prompt}|{lead}"
        return ""

    async def step(self) -> None:
        self.step_no += 1
        self.report.steps += 1
        g = self.rng.choice(GROUPS)
        state = self.groups[g]
        roll = self.rng.random()
        actor = self._prompted(g)
        if actor is not None and roll < 0.7:
            await self.play(g, actor)
        elif state.game is None and roll < 0.75:
            await self.open(g)
        elif state.game is not None and not state.playing and roll < 0.75:
            await self.fill(g)
        elif roll < 0.80:
            if "duplicate" in self.faults:
                await self.duplicate()
        elif roll < 0.84:
            if "media" in self.faults:
                await self.media_fault(g)
        elif roll < 0.87:
            if "restart" in self.faults:
                await self.restart()
        elif roll < 0.93:
            await self.command(g, self.rng.choice([*USERS, SUPERUSER]), self.rng.choice(SETTINGS))
        else:
            text = self.rng.choice(OTHER)
            await self.command(g, self.rng.choice(list(USERS)), text,
                               answered=not text.startswith("hello"))

    async def open(self, g: int) -> None:
        free = [u for u in USERS if not any(u in s.seated for s in self.groups.values())]
        if not free:
            return
        user = self.rng.choice(free)
        game = self.rng.choice(GAMES)
        out = await self.command(g, user, f"/开局 {game}")
        if any("开了一桌" in s.text for s in out if s.kind == "group"):
            self.groups[g].game, self.groups[g].seated = game, [user]

    async def fill(self, g: int) -> None:
        state = self.groups[g]
        free = [u for u in USERS if not any(u in s.seated for s in self.groups.values())]
        if free and self.rng.random() < 0.3:
            user = self.rng.choice(free)
            out = await self.command(g, user, self.rng.choice(["/加入", "/加入 我来了"]))
            if any("入座" in s.text for s in out if s.kind == "group"):
                state.seated.append(user)
        elif self.rng.random() < 0.15 and state.seated:
            user = self.rng.choice(state.seated)
            out = await self.command(g, user, "/退出")
            if any("退出" in s.text or "离座" in s.text for s in out if s.kind == "group"):
                state.seated = [u for u in state.seated if u != user]
        elif self.rng.random() < 0.5 and state.seated and self._ended(g):
            for user in list(state.seated):
                await self.command(g, user, "/继续")
        else:
            user = state.seated[0] if state.seated else SUPERUSER
            await self.command(g, user, f"/加机器人 {self.rng.choice(['', '1', '2'])}".strip())

    def _ended(self, g: int) -> bool:
        for s in reversed(self.sim.sent):
            if s.kind == "group" and s.target == g and ("本局结束" in s.text or "开局！" in s.text):
                return "本局结束" in s.text
        return False

    async def play(self, g: int, user: int) -> None:
        state = self.groups[g]
        player = self.players[user]
        prompt = next(s for s in reversed(self.sim.sent)
                      if s.kind == "group" and s.target == g and is_prompt(s.text))
        if self.rng.random() < 0.25:
            probe = self.rng.choice(PROBES)
            key = self._prompt_key(g)
            mover = user if self.rng.random() < 0.8 or not state.seated else self.rng.choice(
                state.seated)
            out = await self.command(g, mover, probe)
            self._check_refusal(g, mover, probe, key, out)
            return
        if self.rng.random() < 0.05:
            await self.command(g, user, "/托管")
            return
        for text in player.candidates(prompt.text):
            mark = self.sim.mark()
            out = await self.command(g, user, text)
            self.report.moves += 1
            if not self._refused(out, g, user):
                return
            self.report.refusals += 1
            if self.sim.mark() == mark:
                break
        del state

    def _refused(self, out: list[Sent], g: int, user: int) -> bool:
        group_posts = [s for s in out if s.kind == "group" and s.target == g]
        return bool(group_posts) and group_posts[0].at == [user] and "轮到 @" not in group_posts[0].text

    def _check_refusal(self, g: int, user: int, probe: str, key: str, out: list[Sent]) -> None:
        """A refused probe's group text must be a function of the typed text and the public
        prompt only (G-4): the same probe at the same prompt, whoever typed it and whatever
        they hold, gets the same group text."""
        if not self._refused(out, g, user):
            return
        self.report.refusals += 1
        acting = self._prompted(g) == user
        text = re.sub(r"\S+ ", "", next(s for s in out if s.kind == "group").text, count=1).strip()
        k = (f"{key}|{'acting' if acting else 'waiting'}", probe)
        seen = self.refusal_texts.setdefault(k, text)
        if seen != text:
            self._fail(f"refusal of {probe!r} at {k[0]!r} told the group {text!r} once and "
                       f"{seen!r} another time: the group learns something of the hand")

    async def duplicate(self) -> None:
        """Deliver the last person's message again (same id, as a side does after a
        reconnect): nothing may change."""
        if self.last_said is None or not self.sim.connected:
            return
        self.report.duplicates += 1
        said, user = self.last_said
        await self._idle()
        mark = self.sim.mark()
        await self.sim.resend(said)
        await self._idle()
        echoed = [s for s in self.sim.sent_since(mark)
                  if (s.kind == "private" and s.target == user) or user in s.at]
        if echoed:
            self._fail(f"a duplicated message ({said!r} of {user}) was applied again: "
                       f"{echoed[0].text!r}")

    async def media_fault(self, g: int) -> None:
        """Make picture and merged-forward sends to a group hang or fail (or heal them)."""
        self.report.media_faults += 1
        key = ("group", g)
        choice = self.rng.choice(["hang", "fail", "heal"])
        self.sim.hang_media_to.discard(key)
        self.sim.fail_media_to.discard(key)
        if choice != "heal":
            self.media[choice].add(key)

    async def restart(self) -> None:
        """kill -9 the serving process and start it again, or (two processes) move the
        account to the other one; then check that no announced play was lost."""
        self.report.restarts += 1
        await self.sim.close()
        if len(self.bots) > 1 and self.rng.random() < 0.6:
            self.report.moves_of_account += 1
            if self.rng.random() < 0.5:
                self.bot.kill()
            self.serving = 1 - self.serving
        else:
            self.bot.kill()
        for bot in self.bots:
            if not bot.running:
                await bot.start()
        await self.sim.connect(self.bot.url, TOKEN)
        await self._idle()
        if len(self.bots) > 1:
            other = OneBotSim(self_id=self.sim.self_id)
            try:
                await other.connect(self.bots[1 - self.serving].url, TOKEN)
            except ConnectionRejected:
                pass
            else:
                await other.close()
                self._fail("a second process accepted the account while the first served it")
        await self.check_saved()

    async def tasks(self) -> int:
        """The bot's live task count, from ``/牌桌 状态`` (0 when it does not say)."""
        await self._idle()
        out = await self.command(GROUPS[0], SUPERUSER, "/牌桌 状态")
        found = [int(m.group(1)) for s in out if (m := re.search(r"后台任务 (\d+) 个", s.text))]
        return found[-1] if found else 0

    async def check_saved(self) -> None:
        """No card the group saw a person play is back in that person's hand."""
        for g, state in self.groups.items():
            if not state.playing:
                continue
            for user in state.seated:
                if user not in state.played:
                    continue
                out = await self.command(None, user, "/手牌")
                hands = [s for s in out if s.kind == "private" and s.target == user]
                cards = [c for s in hands for line in s.text.splitlines()
                         if line.startswith("你的手牌") for c in CARD_RE.findall(line)]
                back = set(cards) & state.played[user]
                if back:
                    self._fail(f"after a restart {USERS[user]} holds {sorted(back)} again, which "
                               f"the group of {g} saw played")

    async def check_records(self) -> None:
        """Every finished game: one end message, a working /对局 N, and one record."""
        for g, state in self.groups.items():
            counts = Counter(state.ended_numbers)
            twice = [n for n, c in counts.items() if c > 1]
            if twice:
                self._fail(f"group {g} announced the end of game(s) {twice} more than once")
            for n in counts:
                out = await self.command(g, SUPERUSER, f"/对局 {n}")
                if not any(f"第 {n} 局" in s.text for s in out):
                    self._fail(f"/对局 {n} in {g} did not show the game: "
                               f"{[s.text[:80] for s in out]}")
        if self.pg_url is None:
            with sqlite3.connect(self.tmp / "bot.db") as conn:
                rows = conn.execute("select group_id, group_seq, summary from game_records"
                                    ).fetchall()
            for g, state in self.groups.items():
                recorded = {seq for gid, seq, summary in rows
                            if gid == str(g) and '"void": true' not in summary}
                if recorded != set(state.ended_numbers):
                    self._fail(f"group {g}: games recorded {sorted(recorded)}, end messages for "
                               f"{sorted(state.ended_numbers)}")

    # ---- the run ---------------------------------------------------------------------

    async def run(self, steps: int) -> Report:
        for bot in self.bots:
            await bot.start()
        try:
            await self.sim.connect(self.bot.url, TOKEN)
            await self._idle()
            base: tuple[int, int, int] | None = None
            tasks = 0
            for i in range(steps):
                await self.step()
                if self.problems:
                    self._fail(self.problems[0])
                if i == min(20, steps // 4):
                    base = _proc_status(self.bot.pid)
                    tasks = await self.tasks()
            for state in self.groups.values():
                if state.game is not None:
                    state.game = state.game  # tables stay open; their records are checked
            self.sim.hang_media_to.clear()
            self.sim.fail_media_to.clear()
            await self._idle()
            await self.check_records()
            end = _proc_status(self.bot.pid)
            end_tasks = await self.tasks()
            self.report.tasks = (tasks, end_tasks)
            if tasks and end_tasks > tasks + 12:
                self._fail(f"the bot's tasks grew from {tasks} to {end_tasks}")
            if base is not None and base[0]:
                self.report.threads = (base[0], end[0])
                self.report.fds = (base[1], end[1])
                self.report.rss_kib = (base[2], end[2])
                if end[0] > base[0] + 8 or end[1] > base[1] + 24 or end[2] > base[2] + MEMORY_KIB:
                    self._fail(f"the bot grew: threads {base[0]}→{end[0]}, files {base[1]}→{end[1]}, "
                               f"memory {base[2]}→{end[2]} KiB")
            return self.report
        finally:
            await (self.sim.stop() if hasattr(self.sim, "stop") else self.sim.close())
            for bot in self.bots:
                await bot.stop()


async def _blank_schema(url: str) -> None:
    """Empty the ``public`` schema of the PostgreSQL database at ``url`` (a run starts from
    a blank database)."""
    from sqlalchemy import pool, text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=1, help="run this many seeds from --seed")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--without", default="", help="faults left out, e.g. duplicate,media")
    parser.add_argument("--pg", default=os.environ.get("PAIZHUO_TEST_PG_URL"),
                        help="PostgreSQL URL: two processes share it and the account moves")
    parser.add_argument("--side", choices=sorted(SIDES), default="onebot",
                        help="the protocol side the bot is driven through")
    ns = parser.parse_args()
    failures = 0
    for seed in range(ns.seed, ns.seed + ns.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            if ns.pg:
                asyncio.run(_blank_schema(ns.pg))
            try:
                pg = ns.pg if ns.side == "onebot" else None
                report = asyncio.run(Combo(Path(tmp), seed, pg_url=pg or None,
                                              faults=FAULTS - set(ns.without.split(",")),
                                              side=ns.side).run(ns.steps))
            except Violation as err:
                failures += 1
                print(f"seed {seed}: VIOLATION {err}")
                continue
            print(f"seed {seed}: ok — " + ", ".join(report.lines()))
    print(f"{ns.seeds} run(s), {failures} with a violation")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
