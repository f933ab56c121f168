"""What every climbing game shows and does the same way in the chat: ``出`` / ``过``
commands, the turn prompt, the group message after a play or pass (G-4), auto-play on
timeout or in 托管, and the card notation of hands (G-1)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from nonebot.adapters.onebot.v11 import Message, MessageSegment

from engine.cards import format_cards, format_sequence, rank_of
from engine.climbing import ClimbingGame, Move
from engine.strategy import FollowingStrategy, LowestStrategy, Strategy
from plugins.paizhuo.games.base import GameAdapter, Say, SeatView
from plugins.paizhuo.messaging import plain

PLAY_RE = re.compile(r"^出(?:牌)?\s*(.*)$", re.S)
PASS_WORDS = {"过", "不要", "要不起", "pass", "过牌"}


def at(user_id: str) -> MessageSegment:
    """An @-mention of ``user_id``."""
    return MessageSegment.at(int(user_id))


def signed(n: int) -> str:
    """``+2`` / ``-1`` / ``0``."""
    return f"{n:+d}" if n else "0"


CHAINS = ("straight", "pair_chain", "triple_chain")
GROUPS = {"triple_one": (3, 1), "four_two": (4, 2)}


def _low_order(rank: int) -> int:
    """Chain position of a natural rank when A and 2 stand low (A 2 3 …)."""
    return {11: -2, 12: -1}.get(rank, rank)


def order_play(cards: list[int], kind: str, key: int, size: int) -> list[list[int]]:
    """``cards`` split into display groups: ``[[whole chain in chain order]]`` for chains,
    ``[main cards, carried cards]`` for 三带一 / 四带二 (RULES.md S-3, Z-4), else
    ``[cards]``. Chains stand low when they hold a 2 (… A 2 3 …)."""
    ranks = [rank_of(c) for c in cards]
    if kind in CHAINS:
        low = 12 in ranks
        return [[c for _, c in sorted(zip(ranks, cards, strict=True),
                                      key=lambda rc: (_low_order(rc[0]) if low else rc[0], rc[1]))]]
    if kind in GROUPS:
        width, per = GROUPS[kind]
        k = size // (width + per)
        counts = {r: ranks.count(r) for r in set(ranks)}
        if k == 1:
            mains = [max(counts, key=lambda r: (counts[r], r))]
        else:  # 手把一 chains are keyed by their lowest chain position (S-2)
            by_pos = {1: 11, 2: 12, 14: 11} | {p: p - 3 for p in range(3, 14)}
            mains = [by_pos[key + i] for i in range(k)]
        pool = sorted(cards)
        main = []
        for r in mains:  # in chain order
            picked = [c for c in pool if rank_of(c) == r][:width]
            main += picked
            pool = [c for c in pool if c not in picked]
        return [main, pool]
    return [list(cards)]


class ClimbingAdapter(GameAdapter):
    """Shared chat behaviour of the climbing games; a game adds its phases and texts."""

    strategy: Strategy = LowestStrategy()
    """Moves for a player whose time ran out (issue spec: pass following, lowest lead)."""
    auto_strategy: Strategy = FollowingStrategy()
    """Moves for a player in 托管 (plays on when it can)."""
    engine_type: type[ClimbingGame]
    """The game's engine class (``to_json`` / ``from_json`` / ``next_game_info``)."""

    def dump(self, game: Any) -> dict:
        return game.to_json()

    def load(self, data: dict) -> Any:
        return self.engine_type.from_json(data)

    def next_game_info(self, game: Any) -> dict:
        return game.next_game_info()

    # ---- commands --------------------------------------------------------------------------
    def parse_command(self, text: str) -> tuple[str, str | None] | None:
        """``("play", cards)`` / ``("pass", None)`` for ``出 …`` / ``过``; ``None`` otherwise."""
        t = unicodedata.normalize("NFKC", text).strip()
        if t.lower() in PASS_WORDS:
            return ("pass", None)
        m = PLAY_RE.match(t)
        return ("play", m.group(1).strip()) if m else None

    def act(self, game: Any, seats: list[SeatView], seat: int, kind: str, arg: str | None) -> list[Say]:
        """Apply a parsed group command; raises ``MoveError`` and then changes nothing."""
        move = game.pass_turn(seat) if kind == "pass" else game.play_text(seat, arg or "")
        return self._after_move(game, seats, move)

    def acting_seat(self, game: ClimbingGame) -> int | None:
        return game.turn if game.phase == "play" and not game.over else None

    def auto_move(self, game: ClimbingGame, seats: list[SeatView], seat: int, why: str) -> list[Say]:
        strategy = self.auto_strategy if why == "托管" else self.strategy
        action = strategy.choose(game, seat)
        move = game.pass_turn(seat) if action.kind == "pass" else game.play(seat, list(action.cards))
        return self._after_move(game, seats, move, why)

    def is_over(self, game: ClimbingGame) -> bool:
        return game.over

    def is_following(self, game: ClimbingGame) -> bool:
        return game.phase == "play" and game.lead is not None

    # ---- texts -----------------------------------------------------------------------------
    def reveal(self, game: ClimbingGame, seats: list[SeatView]) -> str:
        """Every hand left (G-4), for a game ended before its result."""
        return "\n".join(f"{seats[s].name} 手牌：{self.cards(game, h)}"
                         for s, h in enumerate(game.hands) if h)

    def cards(self, game: Any, cards: list[int]) -> str:
        """Cards in G-1 notation, grouped in the game's rank order."""
        return format_cards(cards, game.rules.rank_order())

    def prompt(self, game: ClimbingGame, seats: list[SeatView]) -> Message:
        """``轮到 @X：…`` for the seat to play."""
        msg = plain("轮到 ") + at(seats[game.turn].user_id)
        if game.lead is None:
            return msg + MessageSegment.text(f" 出牌（首出，不能过）{self.prompt_warning(game)}")
        owner, cards, _ = game.lead
        reading = game.lead_reading()
        return msg + MessageSegment.text(
            f" 出牌：要大过 {seats[owner].name} 的 {self.cards(game, cards)}（{reading.name}）"
            f"{self.pass_hint(game)}{self.prompt_warning(game)}")

    def pass_hint(self, game: Any) -> str:
        """How the turn prompt offers passing to a follower (``，或 过``)."""
        return "，或 过"

    def prompt_warning(self, game: Any) -> str:
        """A rule that may cost the player to act (e.g. S-4 包赔), told before they play."""
        return ""

    def play_cards(self, game: Any, cards: list[int], reading: Any) -> str:
        """A play as the group sees it, in reading order: chains from their low end (A and
        2 first when they stand low, e.g. ``A2345``), a 三带一 / 四带二 with its triples or
        fours before the carried cards (G-5: the taken reading is visible)."""
        groups = order_play(cards, reading.kind, reading.key, reading.size)
        if len(groups) == 1 and reading.kind not in CHAINS:
            return self.cards(game, cards)
        return " ".join(format_sequence(g) if i == 0 else self.cards(game, g)
                        for i, g in enumerate(groups) if g)

    def report_line(self, name: str, left: int) -> str:
        """The announcement of a low hand (Z-6 报牌)."""
        return f"报牌：{name} 只剩 {left} 张！"

    def move_extras(self, game: Any, seats: list[SeatView], move: Move) -> list[str]:
        """Game-specific lines after a move (e.g. an open hand)."""
        return []

    def counts_line(self, game: Any, seats: list[SeatView]) -> str | None:
        """Every active player's card count, when the game shows it."""
        return None

    def _after_move(self, game: ClimbingGame, seats: list[SeatView], move: Move, why: str = "") -> list[Say]:
        says = [Say(self.render_move(game, seats, move, why))]
        if move.cards:
            says.append(Say(self.hand(game, seats, move.seat), move.seat))
        return says

    def render_move(self, game: ClimbingGame, seats: list[SeatView], move: Move, why: str = "") -> Message:
        """The group message after an accepted move (G-4): the play or pass, going out or
        a low hand, the end of a trick or 接风, then the next prompt."""
        name = seats[move.seat].name
        note = f"［{why}］" if why else ""
        if move.reading is not None:
            lines = [f"{name} 出 {self.play_cards(game, move.cards, move.reading)}（{move.reading.name}）{note}"]
        else:
            lines = [f"{name} 过{note}"]
        if move.place is not None:
            lines.append(f"{name} 出完了，第 {move.place} 名！")
        elif move.report is not None:
            lines.append(self.report_line(name, move.report))
        lines += self.move_extras(game, seats, move)
        if move.trick_won is not None:
            winner = seats[move.trick_won].name
            if move.jiefeng:
                lines.append(f"{winner} 的牌没人要，{seats[game.turn].name} 接风。")
            else:
                lines.append(f"没人要，{winner} 拿下这一轮。")
        if game.over:
            return plain("\n".join(lines))
        counts = self.counts_line(game, seats)
        if counts:
            lines.append(counts)
        return plain("\n".join(lines) + "\n") + self.prompt(game, seats)

    def hand_text(self, game: Any, title: str, head: str, seat: int, how: str) -> str:
        """``【游戏】<head>`` then the hand (G-1) and how to play."""
        hand = game.hands[seat]
        if not hand:
            return f"【{title}】{head}\n你的牌已出完。"
        return f"【{title}】{head}\n你的手牌（{len(hand)} 张）：\n{self.cards(game, hand)}\n{how}"
