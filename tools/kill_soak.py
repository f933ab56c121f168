"""Kill -9 soak for the 牌桌 bot: ``python tools/kill_soak.py --kills N --seed S``.

Plays scripted sessions of 抓特务 (3 or 4 simulated players, several consecutive games
with tribute and declaring) against the **real** bot over a real reverse WebSocket and
SIGKILLs the bot at random points (modes): ``inflight`` — right after a command is sent,
after a delay scaled to the bot's measured reply time, so the kill lands while it is
being processed; ``reply`` — from inside the simulator the moment the bot sends its n-th
reply (saved, only partly announced); ``settled`` — after everything went quiet;
``double`` — inflight, then killed again while restarting (restoring tables). Points
(sites) fall during play, at a game's last move, between games (``/继续``), at the deal
and during the private 还贡 / 明-暗 phases. After every kill the bot is restarted on the
same port and database and the harness checks:

* the saved table is consistent — status is waiting / playing / finished, every one of the
  54 cards is in a hand or in the move log exactly once, a finished table has a result;
* the command that was cut off was either not applied at all or applied exactly once
  (the saved engine is the old one, or the old one with that move replayed on it), and a
  move the bot had already announced is never lost;
* a game in progress is re-posted by the bot on its own when the simulator reconnects,
  and that message and ``/牌桌`` name the player the saved state says is to act;
  ``/手牌`` gives every player their saved hand (and re-asks an open private question);
* every finished game has exactly one row in ``game_records`` (with one
  ``player_records`` row per seat, points summing to zero), no game has two;
* the session then resumes and plays every game to its end.

The same :class:`Session` drives ``tests/e2e/test_crash.py`` (fixed seeds, 30 kill
points). This script varies the seeds (sizes, number of games, deals, 明/暗 choices, kill
policy) and prints the figures at the end; ``--snapshot`` runs the bot from a copy of the
sources so that edits made during a long soak do not disturb it. Exit status 1 when any
inconsistency was found.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from paizhuo_engine.cards import parse_cards, rank_of, resolve  # noqa: E402
from paizhuo_engine.zhuatewu.game import ZGame  # noqa: E402
from tools.onebot_sim import BotProcess, OneBotSim, Sent  # noqa: E402
from tools.players import SimPlayer  # noqa: E402

TOKEN = "kill-soak"
GROUP = 40001
NAMES = ["甲", "乙", "丙", "丁"]
STATUSES = ("waiting", "playing", "finished")


# ---- reading the database (read-only, from outside the bot) ------------------------------
def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)


def read_live(db: Path, group: int) -> dict | None:
    """The saved table of ``group`` (the ``state`` JSON of ``live_tables``), or ``None``."""
    if not db.exists():
        return None
    with contextlib.closing(_connect(db)) as conn:
        row = conn.execute("select state from live_tables where group_id = ?",
                           (str(group),)).fetchone()
    if row is None:
        return None
    return row[0] if isinstance(row[0], dict) else json.loads(row[0])


def read_records(db: Path, group: int) -> list[tuple[str, int, int]]:
    """``(uid, player rows, sum of points)`` of every game recorded for ``group``."""
    if not db.exists():
        return []
    with contextlib.closing(_connect(db)) as conn:
        return conn.execute(
            "select g.uid, count(p.id), coalesce(sum(p.points), 0) from game_records g "
            "left join player_records p on p.game_id = g.id where g.group_id = ? "
            "group by g.id order by g.id", (str(group),)).fetchall()


def record_counts(db: Path) -> Counter:
    """``{uid: rows}`` over all of ``game_records`` (grouped by uid)."""
    if not db.exists():
        return Counter()
    with contextlib.closing(_connect(db)) as conn:
        return Counter(dict(conn.execute("select uid, count(*) from game_records group by uid")))


# ---- engine-level checks --------------------------------------------------------------------
def norm(value: Any) -> Any:
    """``value`` as it comes back from a JSON round trip (tuples → lists)."""
    return json.loads(json.dumps(value))


def card_problems(engine: dict) -> list[str]:
    """Every card of the 54 in exactly one place: a hand or the move log."""
    held = [c for hand in engine["hands"] for c in hand]
    logged = [c for _seat, cards in engine["log"] for c in cards]
    everything = sorted(held + logged)
    if everything == list(range(54)):
        return []
    counts = Counter(everything)
    dup = sorted(c for c, n in counts.items() if n > 1)
    missing = sorted(set(range(54)) - set(counts))
    return [f"cards not accounted for: {len(everything)} cards, duplicated {dup}, missing {missing}"]


def state_problems(state: dict | None, size: int) -> list[str]:
    """Consistency of one saved table."""
    if state is None:
        return []
    out = []
    status = state.get("status")
    if status not in STATUSES:
        out.append(f"status {status!r} is not one of {STATUSES}")
    seats = state.get("seats") or []
    if len(seats) > size or len({u for u, _ in seats}) != len(seats):
        out.append(f"bad seats {seats}")
    engine = state.get("engine")
    if status == "waiting":
        if engine is not None and state.get("games", 0) == 0:
            out.append("waiting table with a dealt game")
        return out
    if engine is None:
        return [*out, f"{status} table without a game"]
    if len(seats) != size:
        out.append(f"{status} table with {len(seats)} seats")
    out += card_problems(engine)
    if status == "playing" and engine.get("result") is not None:
        out.append("status playing but the game has a result")
    if status == "finished" and engine.get("result") is None:
        out.append("status finished but the game has no result")
    if status == "playing" and engine["phase"] == "play" and not engine["hands"][engine["turn"]]:
        out.append(f"seat {engine['turn']} to act holds no cards")
    return out


def replay(engine: dict, entries: list) -> dict:
    """``engine`` (saved JSON) with ``entries`` (``[seat, cards]``, ``[]`` = pass) applied
    one by one through :class:`ZGame`; raises ``MoveError`` if one is not legal."""
    game = ZGame.from_json(engine)
    for seat, cards in entries:
        if cards:
            game.play(seat, cards)
        else:
            game.pass_turn(seat)
    return norm(game.to_json())


def apply_text(engine: dict, seat: int, kind: str, text: str) -> dict:
    """``engine`` after ``seat`` sends ``text`` (``move``: ``出 …`` / ``过``; ``answer``:
    ``还 …`` / ``明`` / ``明牌`` / ``暗``), read the way the chat layer reads it."""
    game = ZGame.from_json(engine)
    t = unicodedata.normalize("NFKC", text).strip()
    if kind == "move":
        if t == "过":
            game.pass_turn(seat)
        else:
            game.play_text(seat, t.removeprefix("出").strip())
    elif t.startswith("还"):
        cards = resolve(parse_cards(t[1:].strip()), game.hands[seat], protected=game.spy_cards)
        game.return_tribute(seat, cards)
    else:
        game.declare(seat, t)
    return norm(game.to_json())


def hand_ranks(engine: dict, seat: int) -> list[int]:
    """Natural ranks (the SimPlayer's notation) of a saved hand, sorted."""
    return sorted(rank_of(c) for c in engine["hands"][seat])


# ---- the session ----------------------------------------------------------------------------
@dataclass
class Action:
    """One thing a simulated user sends: ``kind`` open / join / continue / move / answer
    (state-changing) or hand / table (read-only)."""

    kind: str
    player: SimPlayer
    text: str
    private: bool = False
    name: str = ""
    """The player's name at the table (as the bot shows it), when seated."""


@dataclass
class KillPoint:
    """One kill: where (``site``), how (``mode``: inflight / reply / settled), and what the
    cut-off command turned out to be after the restart (``outcome``)."""

    game: int
    site: str
    action: str
    mode: str
    detail: str
    outcome: str = ""
    announced: bool = False
    seconds: float = 0.0

    def __str__(self) -> str:
        note = " (announced)" if self.announced else ""
        return (f"game {self.game} {self.site:<8} {self.mode:<8} {self.detail:<12} "
                f"{self.action!r} → {self.outcome}{note} [{self.seconds:.1f}s]")


@dataclass
class KillPolicy:
    """How often to kill: a move-kill every ``move_gap`` moves (inclusive range); other
    sites with probability ``p[site]``; at most ``max_site[site]`` per site and
    ``max_kills`` in all; ``modes`` weights the three modes (``cycle_modes``: take them
    in turn instead)."""

    max_kills: int = 10
    max_site: dict[str, int] = field(default_factory=dict)
    move_gap: tuple[int, int] = (6, 14)
    p: dict[str, float] = field(default_factory=lambda: {
        "seating": 0.1, "deal": 0.6, "between": 0.5, "tribute": 0.6, "declare": 0.6, "end": 0.9})
    modes: dict[str, float] = field(default_factory=lambda: {
        "inflight": 0.4, "reply": 0.3, "settled": 0.2, "double": 0.1})
    cycle_modes: bool = False


class SessionError(AssertionError):
    """The session could not go on (the bot stopped answering, or stayed inconsistent)."""


class Session:
    """A table of ``size`` simulated players in ``workdir`` playing ``games`` consecutive
    games while the bot is killed at points chosen by ``policy`` (``rng``)."""

    def __init__(self, workdir: Path, *, size: int, games: int, rng: random.Random,
                 policy: KillPolicy | None = None, deal_seed: int | None = None,
                 declare: list[str] | None = None, group: int = GROUP,
                 timeout: float = 20.0, log: Callable[[str], None] | None = None,
                 root: Path | None = None) -> None:
        self.workdir = Path(workdir)
        self.db = self.workdir / "bot.db"
        self.size, self.games, self.rng, self.group = size, games, rng, group
        self.policy = policy or KillPolicy()
        self.timeout = timeout
        self.say = log or (lambda _msg: None)
        env = {"PAIZHUO_DEAL_SEED": str(deal_seed)} if deal_seed is not None else {}
        self.bot = BotProcess(self.workdir / "bot.log", access_token=TOKEN, env=env, root=root,
                              database_url=f"sqlite+aiosqlite:///{self.db}")
        self.sim = OneBotSim(self_id=10001)
        choices = declare or ["暗"] * size
        self.players = [SimPlayer(2001 + i, NAMES[i], declare=choices[i]) for i in range(size)]
        self.by_id = {p.user_id: p for p in self.players}
        for p in self.players:
            self.sim.add_member(group, p.user_id, p.name)
            self.sim.add_friend(p.user_id, p.name)
        self.sim.listeners.append(self._on_sent)
        self.questions: dict[int, Sent] = {}
        self.kills: list[KillPoint] = []
        self.problems: list[str] = []
        self.restarts = 0
        self.uids_finished: set[str] = set()
        self.moves_to_kill = self._gap()
        self.latency: list[float] = []
        self.refusals: list[str] = []
        self._refused: Counter = Counter()
        self._decided: set[tuple] = set()
        self._trigger: tuple[int, Callable[[Sent], bool]] | None = None
        self._triggered = False

    # ---- plumbing ----------------------------------------------------------------------------
    def _gap(self) -> int:
        return self.rng.randint(*self.policy.move_gap)

    def _on_sent(self, sent: Sent) -> None:
        if sent.kind == "private" and sent.target in self.by_id and sent.ok:
            self.by_id[sent.target].learn(sent)
            if "请还给" in sent.text or "请选择，私聊回复" in sent.text or "没有明/暗可选" in sent.text:
                self.questions[sent.target] = sent
        if sent.kind == "group" and "开局！" in sent.text:
            self.questions.clear()
        if self._trigger is not None:
            since, pred = self._trigger
            if len(self.sim.sent) - 1 >= since and pred(sent):
                self._trigger = None
                self._triggered = True
                self.bot.kill()  # SIGKILL from inside the simulator: mid-delivery

    def state(self) -> dict | None:
        """The saved table of this session's group."""
        return read_live(self.db, self.group)

    def problem(self, text: str) -> None:
        """Record an inconsistency (with where the session is)."""
        where = f"[after {len(self.kills)} kill(s), {len(self.sim.sent)} messages] "
        self.problems.append(where + text)
        self.say("PROBLEM " + where + text)

    def log_tail(self, lines: int = 60) -> str:
        """The bot's log, last lines."""
        return "\n".join(self.bot.log_text().splitlines()[-lines:])

    async def start_bot(self) -> None:
        """Start the bot; fail at once if it could not load its plugin."""
        mark = len(self.bot.log_text())
        await self.bot.start()
        await asyncio.sleep(0.05)
        if 'Failed to import "nonebot_plugin_paizhuo"' in self.bot.log_text()[mark:]:
            raise SessionError("the bot could not load nonebot_plugin_paizhuo (is its source being "
                               "edited?):\n" + self.log_tail(25))

    async def start(self) -> None:
        """Start the bot and connect the simulator."""
        await self.start_bot()
        await self.sim.connect(self.bot.url, TOKEN)

    async def close(self) -> None:
        """Disconnect and stop the bot."""
        await self.sim.close()
        await self.bot.stop()

    async def send(self, action: Action) -> None:
        if action.private:
            await self.sim.private_message(action.player.user_id, action.text)
        else:
            await self.sim.group_message(self.group, action.player.user_id, action.text)

    def _answer_pred(self, action: Action) -> Callable[[Sent], bool]:
        if action.private:
            return lambda s: s.kind == "private" and s.target == action.player.user_id
        return lambda s: s.kind == "group" and s.target == self.group

    async def exchange(self, action: Action, quiet: float = 0.08) -> int:
        """Send ``action``, wait for the bot's reply and for it to go quiet; returns the
        mark taken before sending."""
        mark = self.sim.mark()
        sent_at = time.monotonic()
        await self.send(action)
        await self.sim.wait_for(self._answer_pred(action), timeout=self.timeout, since=mark)
        if action.kind not in ("hand", "table"):
            self.latency.append(time.monotonic() - sent_at)
        await self.sim.wait_idle(quiet=quiet, timeout=self.timeout)
        return mark

    def latest_prompt(self) -> Sent | None:
        for sent in reversed(self.sim.sent):
            if sent.kind == "group" and sent.target == self.group and "轮到 @" in sent.text:
                return sent
        return None

    # ---- what to do next ----------------------------------------------------------------------
    def next_action(self, st: dict | None) -> Action | None:
        """The next command of the script for the saved state ``st`` (``None``: done)."""
        p0 = self.players[0]
        if st is None:
            return Action("open", p0, f"/开局 抓特务 {self.size}人")
        seats = [u for u, _ in st["seats"]]
        if st["status"] == "waiting":
            return Action("join", next(p for p in self.players if str(p.user_id) not in seats),
                          "/加入")
        if st["status"] == "finished":
            if st["games"] >= self.games:
                return None
            return Action("continue", next(p for p in self.players
                                           if str(p.user_id) not in st["ready"]), "/继续")
        eng = st["engine"]
        by_seat = [self.by_id[int(u)] for u in seats]
        if eng["phase"] == "tribute":
            ex = next(e for e in eng["exchanges"] if e["returned"] is None)
            p = by_seat[ex["receiver"]]
            want = f"请还给 {st['seats'][ex['giver']][1]} {ex['count']} 张牌"
            q = self.questions.get(p.user_id)
            if q is None or want not in q.text:
                return Action("hand", p, "/手牌", private=True)
            return Action("answer", p, p.respond(q) or "", private=True,
                          name=st["seats"][ex["receiver"]][1])
        if eng["phase"] == "declare":
            answered = eng.get("answered") or [False] * self.size
            seat = next(s for s in range(self.size)
                        if (eng["roles"][s] == "spy" and eng["declared"][s] is None)
                        or (eng.get("everyone_answers") and not answered[s]))
            p = by_seat[seat]
            q = self.questions.get(p.user_id)
            spy = eng["roles"][seat] == "spy"
            if q is None or ("请选择，私聊回复" if spy else "没有明/暗可选") not in q.text:
                return Action("hand", p, "/手牌", private=True)
            return Action("answer", p, p.declare if spy else "暗", private=True,
                          name=st["seats"][seat][1])
        seat = eng["turn"]
        p = by_seat[seat]
        if sorted(p.hand) != hand_ranks(eng, seat):
            self.problem(f"{st['seats'][seat][1]}'s hand as last sent privately {sorted(p.hand)} differs from "
                         f"the saved hand {hand_ranks(eng, seat)}")
            return Action("hand", p, "/手牌", private=True)
        prompt = self.latest_prompt()
        if prompt is None or prompt.at != [p.user_id]:
            self.problem(f"the latest 轮到 in the group ({prompt.text if prompt else None!r}) "
                         f"does not name {st['seats'][seat][1]}, the saved seat to act")
            return Action("table", p0, "/牌桌")
        # The strategy's first choice, or the next one after each refusal (like
        # tools.players.continue_table).
        candidates = p.candidates(prompt.text)
        tried = self._refused[self.move_position(st)]
        if tried >= len(candidates):
            raise SessionError(f"every command of {p.name} was refused: {candidates}")
        return Action("move", p, candidates[tried], name=st["seats"][seat][1])

    @staticmethod
    def move_position(st: dict) -> tuple:
        return (st["games"], len(st["engine"]["log"]), st["engine"]["turn"])

    def site_of(self, action: Action, st: dict | None) -> str:
        if action.kind == "answer":
            return st["engine"]["phase"]
        if action.kind == "move":
            eng = st["engine"]
            try:
                after = apply_text(eng, eng["turn"], "move", action.text)
            except Exception:  # noqa: BLE001 - a refused move is still a move
                return "play"
            return "end" if after["result"] is not None else "play"
        if action.kind == "join":
            return "deal" if len(st["seats"]) == self.size - 1 else "seating"
        if action.kind == "continue":
            return "deal" if len(st["ready"]) == self.size - 1 else "between"
        return "seating"

    @staticmethod
    def position(st: dict | None, action: Action) -> tuple:
        """Where in the script ``action`` is: the same for a command sent again after a
        kill lost it, so kill decisions (and the random numbers they use) follow the
        script, not the timing."""
        if st is None:
            return (action.kind,)
        eng = st["engine"] or {}
        returned = sum(1 for e in eng.get("exchanges", []) if e["returned"] is not None)
        return (action.kind, action.player.user_id, st["games"], st["status"], len(st["seats"]),
                len(st["ready"]), len(eng.get("log", [])), eng.get("phase"),
                tuple(eng.get("declared", [])), returned)

    def plan_kill(self, action: Action, site: str, st: dict | None) -> tuple[str, str, Any] | None:
        """``(mode, detail, param)`` when this action gets a kill point."""
        if action.kind in ("hand", "table") or len(self.kills) >= self.policy.max_kills:
            return None
        key = self.position(st, action)
        if key in self._decided:
            return None
        self._decided.add(key)
        quota = self.policy.max_site.get(site)
        if quota is not None and sum(1 for k in self.kills if k.site == site) >= quota:
            return None
        if site == "play":
            self.moves_to_kill -= 1
            if self.moves_to_kill > 0:
                return None
            self.moves_to_kill = self._gap()
        elif self.rng.random() >= self.policy.p.get(site, 0.0):
            return None
        modes = self.policy.modes
        mode = self.rng.choices(list(modes), weights=list(modes.values()))[0]
        if self.policy.cycle_modes:
            mode = list(modes)[len(self.kills) % len(modes)]
        # Inflight delays scale with how long the bot takes to answer (measured): mostly
        # within that time, so the kill lands while the command is being processed.
        lat = sorted(self.latency[-30:])[len(self.latency[-30:]) // 2] if self.latency else 0.02
        where, frac = self.rng.random(), self.rng.random()
        delay = 0.0 if where < 0.15 else lat * (1.2 * frac if where < 0.85 else 1 + 2 * frac)
        if mode == "inflight":
            return mode, f"+{delay * 1000:.0f}ms", delay
        if mode == "double":  # inflight, then killed again while it restarts (restoring)
            again = 0.2 + 1.3 * self.rng.random()
            return mode, f"+{delay * 1000:.0f}ms,{again:.1f}s", (delay, again)
        if mode == "reply":
            if site == "end" and self.rng.random() < 0.7:
                return mode, "on 本局结束", lambda s: "本局结束" in s.text
            top = {"deal": self.size + 1, "end": 3, "tribute": 3, "declare": 3}.get(site, 2)
            nth = self.rng.randint(1, top)
            count = [0]

            def pred(_s: Sent) -> bool:
                count[0] += 1
                return count[0] >= nth

            return mode, f"on reply {nth}", pred
        return mode, "", None

    # ---- running -------------------------------------------------------------------------------
    async def run(self) -> None:
        """Play the session to its end (all games), killing along the way."""
        await self.start()
        try:
            resends = 0
            while True:
                st = self.state()
                self.check_state(st)
                action = self.next_action(st)
                if action is None:
                    break
                if action.kind in ("hand", "table"):
                    resends += 1
                    if resends > 4:
                        raise SessionError(f"stuck asking {action.text!r}; state {st}")
                    await self.exchange(action)
                    continue
                resends = 0
                await self.perform(action, st)
            await self.final_check()
        finally:
            self._trigger = None
            await self.close()

    async def perform(self, action: Action, before: dict | None) -> None:
        site = self.site_of(action, before)
        plan = self.plan_kill(action, site, before)
        if action.kind == "answer":
            self.questions.pop(action.player.user_id, None)
        if plan is None:
            mark = await self.exchange(action)
            if action.kind == "move":
                reply = next(s for s in self.sim.sent[mark:] if self._answer_pred(action)(s))
                if reply.at == [action.player.user_id] and "轮到 @" not in reply.text:
                    self._refused[self.move_position(before)] += 1
                    self.refusals.append(f"{action.player.name}: {action.text} → {reply.text}")
                    self.say(f"refused: {self.refusals[-1]}")
            return
        mode, detail, param = plan
        games = before["games"] if before else 0
        kp = KillPoint(game=games, site=site, action=f"{action.player.name}: {action.text}",
                       mode=mode, detail=detail)
        mark = self.sim.mark()
        started = time.monotonic()
        pre_kill = None
        self._triggered = False
        if mode == "reply":
            self._trigger = (mark, param)
        await self.send(action)
        if mode in ("inflight", "double"):
            delay = param if mode == "inflight" else param[0]
            if delay:
                await asyncio.sleep(delay)
            self.bot.kill()
            if mode == "double":
                await self.kill_while_starting(param[1])
        elif mode == "reply":
            # The kill may come on a message before the reply to the action (the table's
            # group announcement before the player's private confirmation): then there is
            # no reply to wait for.
            answer = self._answer_pred(action)
            await self.sim.wait_for(lambda s: self._triggered or answer(s),
                                    timeout=self.timeout, since=mark)
            await self.sim.wait_idle(quiet=0.3, timeout=self.timeout)
            if not self._triggered:  # fewer replies than planned: kill once settled
                self._trigger = None
                kp.detail += " (settled)"
                pre_kill = self.state()
                self.bot.kill()
        else:
            await self.sim.wait_for(self._answer_pred(action), timeout=self.timeout, since=mark)
            await self.sim.wait_idle(quiet=0.1, timeout=self.timeout)
            pre_kill = self.state()
            self.bot.kill()
        self.kills.append(kp)
        kp.announced = self.announced(action, mark)
        await self.recover(action, before, pre_kill, kp)
        kp.seconds = time.monotonic() - started
        self.say(f"kill {len(self.kills)}: {kp}")

    def announced(self, action: Action, mark: int) -> bool:
        """Whether the bot said (before dying) that it accepted ``action``."""
        name = action.name or action.player.name
        for s in self.sim.sent[mark:]:
            if action.kind == "move" and s.kind == "group" and (
                    s.text.startswith(f"{name} 出 ") or s.text.startswith(f"{name} 过")):
                return True
            if action.kind == "continue" and ("准备好了" in s.text or "开局！" in s.text):
                return True
            if action.kind in ("join", "open") and ("入座" in s.text or "开了一桌" in s.text):
                return True
            if action.kind == "answer" and s.target == action.player.user_id and (
                    "你选择了" in s.text or "你已还给" in s.text):
                return True
        return False

    async def kill_while_starting(self, after: float) -> None:
        """Start the bot and SIGKILL it ``after`` seconds later, whatever it is doing
        (importing, migrating, restoring tables, serving)."""
        with contextlib.suppress(TimeoutError):
            await self.sim.wait_closed(timeout=5)
        await self.sim.close()
        t0 = time.monotonic()
        try:
            await asyncio.wait_for(self.bot.start(), after)
            await asyncio.sleep(max(0.0, after - (time.monotonic() - t0)))
        except TimeoutError:
            pass
        self.bot.kill()
        self.restarts += 1

    async def recover(self, action: Action, before: dict | None, pre_kill: dict | None,
                      kp: KillPoint) -> None:
        """Restart, check the saved state against what was cut off, resync the players."""
        with contextlib.suppress(TimeoutError):
            await self.sim.wait_closed(timeout=5)
        await self.sim.close()
        await self.start_bot()
        self.restarts += 1
        connected = self.sim.mark()
        await self.sim.connect(self.bot.url, TOKEN)
        after = self.state()
        kp.outcome = self.check_transition(action, before, after, pre_kill, kp)
        self.check_state(after)
        if after is not None and after["status"] == "playing":
            # The bot re-posts a resumed game on its own, naming the player to act.
            try:
                repost = await self.sim.wait_for(
                    lambda s: s.kind == "group" and s.target == self.group and "已重启" in s.text,
                    timeout=5, since=connected)
                self.check_table_reply(repost, after, "the re-post after the restart")
            except TimeoutError:
                self.problem(f"{kp}: no table re-posted after the restart")
        for p in self.players:  # every player asks for their hand (and open questions) again
            await self.exchange(Action("hand", p, "/手牌", private=True), quiet=0.02)
        mark = await self.exchange(Action("table", self.players[0], "/牌桌"))
        reply = next(s for s in self.sim.sent[mark:] if s.kind == "group" and s.target == self.group)
        self.check_table_reply(reply, self.state())
        self.check_hands(self.state())

    # ---- checks --------------------------------------------------------------------------------
    def check_state(self, st: dict | None) -> None:
        for text in state_problems(st, self.size):
            self.problem(text)
        if st is not None and st["status"] == "finished" and st.get("uid"):
            self.uids_finished.add(st["uid"])
        self.check_records(st)

    def check_records(self, st: dict | None) -> None:
        rows = read_records(self.db, self.group)
        uids = Counter(uid for uid, _n, _pts in rows)
        for uid, n in uids.items():
            if n > 1:
                self.problem(f"game {uid} recorded {n} times")
        for uid in self.uids_finished - set(uids):
            self.problem(f"finished game {uid} has no record")
        for uid, n, pts in rows:
            if n != self.size or pts != 0:
                self.problem(f"record {uid}: {n} player rows, points sum {pts}")
        if st is not None and st["engine"] is not None:
            expected = st["games"] - (0 if st["status"] == "finished" else 1)
            if len(rows) != expected:
                self.problem(f"{len(rows)} game records, expected {expected} "
                             f"(table has dealt {st['games']}, status {st['status']})")

    def check_transition(self, action: Action, before: dict | None, after: dict | None,
                         pre_kill: dict | None, kp: KillPoint) -> str:
        """How the cut-off command ended up: ``lost`` (not applied) or ``applied`` — and
        a problem for anything else."""
        if pre_kill is not None:
            if norm(after) != norm(pre_kill):
                self.problem(f"kill after the reply changed the saved table: {kp}")
                return "changed"
            return "applied" if norm(after) != norm(before) else "unchanged"
        if norm(after) == norm(before):
            if kp.announced:
                self.problem(f"{kp}: the bot announced it but the restart lost it")
            return "lost"
        outcome = "applied" + ("" if kp.announced else ", unannounced")
        uid = action.player.user_id
        if action.kind in ("move", "answer"):
            eng = before["engine"]
            seat = [u for u, _ in before["seats"]].index(str(uid))
            try:
                expected = apply_text(eng, seat, action.kind, action.text)
            except Exception as err:  # noqa: BLE001
                self.problem(f"{kp}: refused move changed the table ({err!r})")
                return "changed"
            got = after["engine"] if after else None
            if got != expected:
                self.problem(f"{kp}: saved engine is neither the old one nor the old one with "
                             f"the move applied once\n old log {eng['log'][-3:]}\n"
                             f" new log {got['log'][-3:] if got else None}")
                return "changed"
            want_status = "finished" if expected["result"] is not None else "playing"
            if after["status"] != want_status:
                self.problem(f"{kp}: status {after['status']}, expected {want_status}")
            return outcome
        if after is None:
            self.problem(f"{kp}: table vanished")
            return "changed"
        if action.kind == "open":
            ok = after["status"] == "waiting" and [u for u, _ in after["seats"]] == [str(uid)]
        elif action.kind == "join":
            seats = [u for u, _ in after["seats"]]
            ok = seats == [u for u, _ in before["seats"]] + [str(uid)]
            if len(seats) == self.size:
                ok = ok and after["status"] == "playing" and after["games"] == before["games"] + 1
        else:  # continue
            started = after["status"] == "playing" and after["games"] == before["games"] + 1
            readied = (after["status"] == "finished" and after["games"] == before["games"]
                       and after["ready"] == before["ready"] + [str(uid)])
            ok = readied or (started and len(before["ready"]) == self.size - 1)
            if started and after["engine"]["log"]:
                ok = False
        if not ok:
            self.problem(f"{kp}: unexpected table after the restart: status {after['status']}, "
                         f"seats {after['seats']}, ready {after['ready']}, games {after['games']}")
            return "changed"
        return outcome

    def check_table_reply(self, reply: Sent, st: dict | None, what: str = "/牌桌 after the restart") -> None:
        """``/牌桌`` agrees with the saved state (the same player to act)."""
        text = reply.text
        if st is None:
            ok = "还没有牌桌" in text
        elif st["status"] == "waiting":
            ok = "等人入座" in text
        elif st["status"] == "finished":
            ok = "本局已结束" in text
        else:
            eng = st["engine"]
            if eng["phase"] == "tribute":
                ok = "等待还贡" in text
            elif eng["phase"] == "declare":
                ok = "等待各位私聊回复 明 / 明牌 / 暗" in text
            else:
                turn_uid = int(st["seats"][eng["turn"]][0])
                ok = "轮到 @" in text and reply.at == [turn_uid]
        if not ok:
            self.problem(f"{what} disagrees with the saved table "
                         f"(status {st and st['status']}): {text!r}")

    def check_hands(self, st: dict | None) -> None:
        if st is None or st["engine"] is None or st["status"] == "waiting":
            return
        for seat, (uid, _name) in enumerate(st["seats"]):
            p = self.by_id[int(uid)]
            if sorted(p.hand) != hand_ranks(st["engine"], seat):
                self.problem(f"/手牌 after the restart gave {p.name} {sorted(p.hand)}, "
                             f"saved {hand_ranks(st['engine'], seat)}")

    async def final_check(self) -> None:
        """Every game over and recorded once — also after one more clean restart."""
        await self.sim.wait_idle(quiet=0.1, timeout=self.timeout)
        st = self.state()
        if st is None or st["status"] != "finished" or st["games"] != self.games:
            self.problem(f"session ended with table {st and (st['status'], st['games'])}")
        self.check_state(st)
        await self.close()
        await self.start_bot()
        await self.bot.stop()
        self.check_state(self.state())
        counts = record_counts(self.db)
        if sum(counts.values()) != self.games or any(n != 1 for n in counts.values()):
            self.problem(f"records by uid {dict(counts)}, expected {self.games} games once each")

    @property
    def games_completed(self) -> int:
        return len(read_records(self.db, self.group))


# ---- the soak --------------------------------------------------------------------------------
def snapshot(dest: Path) -> Path:
    """Copy the bot's sources (``bot.py``, ``plugins``, ``engine``, ``db``) to ``dest`` so
    that a long soak is not disturbed by edits to the working tree."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "bot.py", dest / "bot.py")
    for pkg in ("plugins", "engine", "db"):
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


async def soak(kills: int, seed: int, keep: Path | None, verbose: bool,
               root: Path | None = None) -> int:
    master = random.Random(seed)
    t0 = time.monotonic()
    done_kills: list[KillPoint] = []
    problems: list[str] = []
    games = sessions = hangs = restarts = 0
    dup = missing = 0
    while len(done_kills) < kills:
        sessions += 1
        size = master.choice([3, 4])
        n_games = master.randint(2, 3)
        deal_seed = master.choice([None, master.randrange(10**6)])
        declare = [master.choice(["明", "明牌", "暗"]) for _ in range(size)]
        budget = min(kills - len(done_kills), master.randint(6, 14))
        policy = KillPolicy(max_kills=budget, move_gap=(master.randint(3, 8), master.randint(12, 25)),
                            max_site={"play": max(2, budget // 2)})
        tmp = Path(tempfile.mkdtemp(prefix="kill_soak_", dir=keep))
        session = Session(tmp, size=size, games=n_games, rng=random.Random(master.random()),
                          policy=policy, deal_seed=deal_seed, declare=declare,
                          log=print if verbose else None, root=root)
        print(f"session {sessions}: {size} players, {n_games} games, PAIZHUO_DEAL_SEED={deal_seed}, "
              f"declare {declare}, up to {policy.max_kills} kills, dir {tmp}", flush=True)
        try:
            await session.run()
        except Exception as err:  # noqa: BLE001 - a hang or crash of the session is a finding
            hangs += 1
            session.problem(f"session aborted: {err!r}\n--- bot log tail ---\n{session.log_tail()}")
            with contextlib.suppress(Exception):
                await session.close()
        done_kills += session.kills
        restarts += session.restarts
        games += session.games_completed
        problems += session.problems
        dup += sum(1 for p in session.problems if "recorded" in p and "times" in p)
        missing += sum(1 for p in session.problems if "has no record" in p or "game records, expected" in p)
        for kp in session.kills:
            print(f"  {kp}", flush=True)
        for p in session.problems:
            print(f"  PROBLEM {p}", flush=True)
    elapsed = time.monotonic() - t0
    sites = Counter(k.site for k in done_kills)
    modes = Counter(k.mode for k in done_kills)
    print()
    outcomes_short = Counter(k.outcome for k in done_kills)
    print(f"seed: {seed}")
    print(f"sessions: {sessions}, bot restarts after kills: {restarts}")
    print(f"kill points tried: {len(done_kills)}")
    print(f"  by site: {dict(sites)}")
    print(f"  by mode: {dict(modes)}")
    print(f"  outcomes: {dict(outcomes_short)}")
    print(f"games completed: {games}")
    print(f"inconsistencies found: {len(problems)}")
    print(f"duplicate records: {dup}, missing records: {missing}")
    print(f"sessions aborted (hang/error): {hangs}")
    print(f"total time: {elapsed:.1f} s")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100, help="kill points to try (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="master seed (default: random)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="directory for the sessions' databases and logs (default: temp)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every kill and problem as it happens")
    parser.add_argument("--snapshot", action="store_true",
                        help="run the bot from a copy of the sources taken at the start")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    root = None
    if args.snapshot:
        root = snapshot(Path(tempfile.mkdtemp(prefix="kill_soak_src_")) / "src")
        print(f"bot sources copied to {root}")
    return asyncio.run(soak(args.kills, seed, args.keep, args.verbose, root))


if __name__ == "__main__":
    sys.exit(main())
