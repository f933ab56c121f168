"""The interface every game offers the chat layer.

A :class:`GameAdapter` turns a table's seats and settings into an engine game, applies
players' moves and private answers to it, and says what the group and each player see
(RULES.md G-4) as a list of :class:`Say`. The table, locking, timers, persistence and
sending are the same for every game and live in ``tables.py`` and the ``actions`` package.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from paizhuo_db.records import FinishedGame
from paizhuo_engine.readings import Vocabulary
from paizhuo_engine.settings import Schema

from ..port import Message
from ..render import SettlementView
from .choice import Choice

HOW_TO_PLAY = "出牌请在群里发：出 <牌>，例如 出 33；不要请发：过"
"""The hand's last line: how to play (a side where players act privately says it its own
way: ``port/qq.py``)."""


class UsageError(ValueError):
    """A command's arguments are wrong; ``str(err)`` is the Chinese reply."""


COMPUTER_PREFIX = "ai:"
"""User ids of computer players: ``ai:1`` is 电脑1 (never a QQ number)."""


def is_computer(user_id: str) -> bool:
    """Whether ``user_id`` is a computer player's seat."""
    return user_id.startswith(COMPUTER_PREFIX)


def computer_name(user_id: str) -> str:
    """``电脑1`` for ``ai:1``."""
    return "电脑" + user_id[len(COMPUTER_PREFIX):]


@dataclass(slots=True)
class SeatView:
    """A seated player as the renderers need them: ``user_id`` (string) and display ``name``."""

    user_id: str
    name: str


@dataclass(slots=True)
class SeatShown:
    """What the group may see of one seat beside its name (G-4), as ``/牌桌`` shows it:
    ``badges`` (declared roles, the digger and bid, a bid, a place), the ``count`` of cards
    left (``None`` where the game's rules hide it) and an ``open_hand`` (明牌)."""

    badges: list[str] = field(default_factory=list)
    count: int | None = None
    open_hand: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Say:
    """One message: to the group (``seat is None``) or privately to a seat. ``secret``
    marks a private message that only a hidden role gets (e.g. a spy's 明/暗 answer
    confirmed): if it cannot be delivered the group is not told whose it was, nor when
    (G-4). ``update`` marks a private hand update that a newer one may replace while it
    waits to be sent. ``prompt`` marks a group message that is only the turn prompt
    (``轮到 …``): when automatic moves follow at once, it is stale and left out of their
    common post."""

    message: Message | str
    seat: int | None = None
    secret: bool = False
    update: bool = False
    prompt: bool = False


class GameAdapter(ABC):
    """One game's chat-layer adapter. ``name`` is the Chinese game name used in commands
    (e.g. ``抓特务``); ``schema`` its group settings; engine objects are whatever the
    game's engine uses."""

    name: str = ""
    schema: Schema
    vocabularies: tuple[Vocabulary, ...] = ()
    """The game's hand-type names (G-5), one table per rule set, for /帮助 <游戏>."""

    def help(self) -> str:
        """``/帮助 <游戏>``: the game's type names, one short line per type."""
        if not self.vocabularies:
            return f"【{self.name}】"
        example = next(row.example for row in self.vocabularies[0].rows if row.kind == "pair_chain")
        lines = [f"【{self.name}】牌型名写在牌后，例如 {example}"]
        for vocabulary in self.vocabularies:
            if len(self.vocabularies) > 1:
                lines.append(f"〔{vocabulary.title}〕")
            for row in vocabulary.rows:
                also = f"（也可写 {'、'.join(row.names[1:])}）" if row.names[1:] else ""
                lines.append(f"{row.names[0]}{also}")
        return "\n".join(lines)

    def is_answer(self, text: str) -> bool:
        """Whether a private message is one of this game's answers (well-formed or not),
        so private chat can route it; chat that merely starts like one is not."""
        return False

    @abstractmethod
    def parse_size(self, arg: str) -> int:
        """Seat count from the ``/开局`` argument (e.g. ``四人``). Raises :class:`UsageError`."""

    def max_seats(self, settings: dict) -> int:
        """The most seats a table of this game may have when opened without a size."""
        return 0

    @abstractmethod
    def new_game(self, size: int, settings: dict, seed: int, previous: dict | None) -> Any:
        """Deal a new game for ``size`` seats (seat order = join order, G-2); ``previous``
        is :meth:`next_game_info` of the last game at the same table, if any."""

    @abstractmethod
    def next_game_info(self, game: Any) -> dict:
        """What the next game at the same table needs from this finished one."""

    @abstractmethod
    def dump(self, game: Any) -> dict:
        """The engine state as JSON-able data."""

    @abstractmethod
    def load(self, data: dict) -> Any:
        """Inverse of :meth:`dump`."""

    @abstractmethod
    def is_over(self, game: Any) -> bool:
        """Whether the game has a result."""

    @abstractmethod
    def prompt_seconds(self, game: Any) -> int | None:
        """Seconds to wait for private answers now, ``None`` when nobody is asked."""

    @abstractmethod
    def start(self, game: Any, seats: list[SeatView]) -> list[Say]:
        """Everything said when a game is dealt: table, hands, prompts."""

    @abstractmethod
    def parse_command(self, text: str) -> tuple[str, str | None] | None:
        """A group game command (prefix already removed) as ``(kind, argument)``, e.g.
        ``("play", "778899")``, ``("pass", None)``; ``None`` when ``text`` is none."""

    @abstractmethod
    def act(self, game: Any, seats: list[SeatView], seat: int, kind: str, arg: str | None) -> list[Say]:
        """Apply a parsed group command by ``seat``. Raises ``paizhuo_engine.errors.MoveError``
        and then changes nothing."""

    @abstractmethod
    def answer(self, game: Any, seats: list[SeatView], seat: int, text: str) -> list[Say] | None:
        """A private answer (e.g. ``还 <牌>``, ``明``). ``None`` when ``text`` is not an
        answer of this game; raises ``paizhuo_engine.errors.MoveError`` when it is refused."""

    @abstractmethod
    def timeout(self, game: Any, seats: list[SeatView]) -> list[Say]:
        """The private answers' time ran out: take every default (G-4)."""

    @abstractmethod
    def acting_seat(self, game: Any) -> int | None:
        """The seat whose move (出/过) the game waits for, ``None`` when it waits for none."""

    @abstractmethod
    def auto_move(self, game: Any, seats: list[SeatView], seat: int, why: str,
                  simple: bool = False, choice: Choice | None = None) -> list[Say]:
        """The bot moves for ``seat`` (time ran out, or 托管) with the computer players'
        strategy at ``choice`` (level and 困难's search, :mod:`.choice`; 普通 when
        ``None``), or the simple timeout rule when ``simple``; ``why`` is shown with the
        move (e.g. ``超时``)."""

    def timeout_words(self, game: Any, simple: bool) -> str:
        """What the bot does for the player to act when the turn time runs out (``代你…``),
        truthfully and from public information only (G-4)."""
        return "代你出牌"

    def cannot_beat(self, game: Any) -> bool:
        """The player to act is following and holds nothing that beats the table."""
        return False

    def pass_for(self, game: Any, seats: list[SeatView], seat: int, why: str) -> list[Say]:
        """Pass for ``seat`` (要不起自动过)."""
        raise NotImplementedError

    def hints(self, game: Any, seat: int) -> list[str]:
        """提示 lines for ``seat`` at its turn (``出 …``); ``[]`` when nothing beats."""
        return []

    def turn_choices(self, game: Any, seat: int) -> list[str]:
        """The commands worth sending at ``seat``'s turn, each ready to send (offered as
        buttons where the side has them): ``[]`` when the game offers none."""
        return []

    @abstractmethod
    def hand(self, game: Any, seats: list[SeatView], seat: int) -> str:
        """Private message: the seat's hand and role (G-1 notation)."""

    def waiting_seats(self, game: Any) -> list[int]:
        """Every seat whose move or private answer the game waits for now (the acting
        seat, or everyone still to answer a private question)."""
        seat = self.acting_seat(game)
        return [] if seat is None else [seat]

    @abstractmethod
    def computer_turn(self, game: Any, seats: list[SeatView], seat: int,
                      choice: Choice | None = None) -> list[Say]:
        """A computer player at ``seat`` does what the game waits from it now (play, bid,
        private answer), deciding only from what that seat may know (RULES.md G-6); the
        move goes through the same engine calls as a human's, with ``choice`` (the group's
        电脑难度 and 困难's search, :mod:`.choice`; 普通 when ``None``). Returns what is
        said (empty when the seat has nothing to do)."""

    def is_following(self, game: Any) -> bool:
        """Whether the player to act is answering a play (so a timeout passes)."""
        return False

    def secret_phase(self, game: Any) -> bool:
        """Whether only some hidden roles are asked now (抓特务 declaring, Z-9): group
        messages then must not depend on their answers, and a failed secret private
        message is reported only once this phase is over (G-4)."""
        return False

    @abstractmethod
    def reveal(self, game: Any, seats: list[SeatView]) -> str:
        """Everything hidden in a game that is ended before its result (/结束): every
        hand, and the game's hidden roles and cards; nothing is secret any more (G-4)."""

    def reminder(self, game: Any, seats: list[SeatView], seat: int) -> str:
        """The private question ``seat`` still has to answer (re-sent with ``/手牌``)."""
        return ""

    @abstractmethod
    def table(self, game: Any, seats: list[SeatView]) -> Message:
        """The public table for ``/牌桌``."""

    def shown_seats(self, game: Any, seats: list[SeatView]) -> list[SeatShown]:
        """What the group sees of each seat on the table picture: the same facts as
        :meth:`table` (never more, G-4); by default nothing beyond the names."""
        return [SeatShown() for _ in seats]

    def seat_roles(self, final: Any) -> list[str]:
        """Each seat's role as the end of game ``final`` shows it (特务 / 平民, 挖坑者 /
        农民), for replays and deal pictures; ``""`` where the game has none."""
        return [""] * final.players

    def seen_label(self) -> str:
        """What ``/记牌`` calls the cards a player has seen outside their hand and not yet
        played (挖坑: the bottom they buried)."""
        return "你见过、还没出的牌"

    def deal_notes(self, game: Any, seats: list[SeatView]) -> list[str]:
        """Lines after the dealt hands of a replay (``game`` as dealt): what else the deal
        decided, e.g. the dealer and spy cards, the bottom, the cards set aside; none by
        default."""
        return []

    @abstractmethod
    def end(self, game: Any, seats: list[SeatView]) -> Message:
        """Group message when the game is over: order, sides, result, points."""

    def settlement(self, game: Any, seats: list[SeatView]) -> SettlementView | None:
        """The settlement picture's content (结算) of a finished game: the same facts as
        :meth:`end` — the result, each seat's role, place, result, points and why, the cards
        it held at the end — with the title and footer left for the caller; ``None`` when
        the game has none."""
        return None

    @abstractmethod
    def record(self, game: Any, seats: list[SeatView], uid: str, group_id: str,
               started_at: datetime, ended_at: datetime) -> FinishedGame:
        """The finished-game record for the db."""
