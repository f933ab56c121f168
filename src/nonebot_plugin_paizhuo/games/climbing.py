"""What every climbing game shows and does the same way in the chat: ``出`` / ``过``
commands, the turn prompt, the group message after a play or pass (G-4), auto-play on
timeout or in 托管, and the card notation of hands (G-1)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from paizhuo_engine.ai.simple import LowestStrategy, Strategy
from paizhuo_engine.ai.strategy import suggestions
from paizhuo_engine.cards import format_cards, format_ranks, format_sequence, rank_of, scan_notation
from paizhuo_engine.climbing import ClimbingGame, Move
from paizhuo_engine.moves import any_beating
from paizhuo_engine.readings import trailing_type_word

from ..messaging import plain
from ..port import Message, MessageSegment
from .base import GameAdapter, Say, SeatView, computer_name, is_computer
from .choice import Choice, LeveledStrategy

PLAY_RE = re.compile(r"^出(?:牌)?\s*(.*)$", re.S)
PASS_WORDS = {"过", "不要", "要不起", "pass", "过牌"}


def is_card_text(body: str) -> bool:
    """Whether ``body`` — what follows a card command word (``出``, ``还``, ``扣``) — is
    card notation (G-1) with an optional type name of any game (G-5), possibly with a
    mistake in it (``77889``, ``７７ｘ8``, ``1``, ``xyz``), rather than chat (``去吃个饭``,
    ``来了``, ``什么好呢``).

    Chat: a letter of a script other than Latin (a CJK word) that is no card, suit or type
    name; or, without any card, nothing but punctuation and symbols (``!!!``).
    """
    word = trailing_type_word(body)
    if word is not None:
        body = body.rstrip()[: -len(word)]
    count, stray = scan_notation(body)
    if any(ch.isalpha() and not ch.isascii() for ch in stray):
        return False
    return count > 0 or not stray or any(ch.isascii() and ch.isalnum() for ch in stray)


def at(user_id: str) -> MessageSegment:
    """An @-mention of ``user_id`` (a computer player's name as plain text)."""
    if is_computer(user_id):
        return MessageSegment.text(computer_name(user_id))
    return MessageSegment.at(user_id)


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

    simple_strategy: Strategy = LowestStrategy()
    """The simple timeout rule a group may choose (超时代打 简单): pass when following
    (unless 把一必拦 forbids it), lead the lowest single."""
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
        """``("play", cards)`` / ``("pass", None)`` for ``出 <牌>`` / ``过``; ``None`` for
        anything else, chat that merely starts with 出 included (:func:`is_card_text`)."""
        t = unicodedata.normalize("NFKC", text).strip()
        if t.lower() in PASS_WORDS:
            return ("pass", None)
        m = PLAY_RE.match(t)
        if m is None or not is_card_text(m.group(1)):
            return None
        return ("play", m.group(1).strip())

    def act(self, game: Any, seats: list[SeatView], seat: int, kind: str, arg: str | None) -> list[Say]:
        """Apply a parsed group command; raises ``MoveError`` and then changes nothing."""
        move = game.pass_turn(seat) if kind == "pass" else game.play_text(seat, arg or "")
        return self._after_move(game, seats, move)

    def acting_seat(self, game: ClimbingGame) -> int | None:
        return game.turn if game.phase == "play" and not game.over else None

    def auto_move(self, game: ClimbingGame, seats: list[SeatView], seat: int, why: str,
                  simple: bool = False, choice: Choice | None = None) -> list[Say]:
        """The bot moves for ``seat`` (托管 or time ran out) with the computer players'
        strategy at ``choice`` (the group's 电脑难度, 困难's search), or the simple timeout
        rule when ``simple`` (超时代打 简单)."""
        strategy = self.simple_strategy if simple else LeveledStrategy(choice)
        return self._strategy_move(game, seats, seat, strategy, why)

    def _strategy_move(self, game: ClimbingGame, seats: list[SeatView], seat: int,
                       strategy: Strategy, why: str = "") -> list[Say]:
        action = strategy.choose(game, seat)
        if action.kind == "pass":
            move = game.pass_turn(seat)
        elif action.reading is not None:
            move = game.play_reading(seat, list(action.cards), action.reading)
        else:
            move = game.play(seat, list(action.cards))
        return self._after_move(game, seats, move, why)

    def computer_turn(self, game: ClimbingGame, seats: list[SeatView], seat: int,
                      choice: Choice | None = None) -> list[Say]:
        """A computer player's play or pass (G-3) at ``choice``."""
        if self.acting_seat(game) != seat:
            return []
        return self._strategy_move(game, seats, seat, LeveledStrategy(choice))

    def cannot_beat(self, game: ClimbingGame) -> bool:
        """The player to act follows and holds nothing that beats the table (G-3)."""
        if game.phase != "play" or self.acting_seat(game) is None or game.lead is None:
            return False
        return any_beating(game.hands[game.turn], game.rules, game.lead_reading()) is None

    def pass_for(self, game: ClimbingGame, seats: list[SeatView], seat: int, why: str) -> list[Say]:
        """Pass for ``seat`` (要不起自动过), announced with ``why``."""
        return self._after_move(game, seats, game.pass_turn(seat), why)

    def hints(self, game: ClimbingGame, seat: int) -> list[str]:
        """提示 for ``seat`` at its turn: the suggested play first, then up to four other
        legal plays, each a ready-to-send ``出 …`` line (cards and type name); ``[]`` when
        nothing beats the table."""
        best, others = suggestions(game, seat)
        lines = []
        for action in [best, *others]:
            if action.kind != "play":
                continue
            cards = format_ranks(action.cards, game.rules.rank_order())
            name = (f" {game.vocabulary.shown(action.reading.kind)}"  # the group's word for it
                    if action.reading and len(action.cards) > 1 else "")
            lines.append(f"出 {cards.replace(' ', '')}{name}")
        return lines

    def turn_choices(self, game: ClimbingGame, seat: int) -> list[str]:
        """At ``seat``'s turn to play: 提示's plays (the suggested one first), then ``过``
        when passing is allowed (following, and no rule forbids it: S-4 把一必拦)."""
        if game.phase != "play" or game.turn != seat:
            return []
        choices = self.hints(game, seat)
        if self.is_following(game) and self.pass_hint(game) is None:
            choices.append("过")
        return choices

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

    def prompt(self, game: ClimbingGame, seats: list[SeatView], just_shown: bool = False) -> Message:
        """``轮到 @X …`` for the seat to play: ``首出`` when leading; the play to beat (who
        made it, the cards, the type), or — when ``just_shown``, the play being the line
        above — only ``跟牌或过``."""
        msg = plain("轮到 ") + at(seats[game.turn].user_id)
        time = self.time_note(game, seats, game.turn)
        if game.lead is None:
            return msg + MessageSegment.text(f" 首出{self.prompt_warning(game)}{time}")
        hint = self.pass_hint(game)
        if just_shown:
            return msg + MessageSegment.text(
                f" 跟牌{'或过' if hint is None else hint}{self.prompt_warning(game)}{time}")
        return msg + MessageSegment.text(
            f" 出牌：要大过 {self.to_beat(game, seats)}{'，或 过' if hint is None else hint}"
            f"{self.prompt_warning(game)}{time}")

    def time_note(self, game: Any, seats: list[SeatView], seat: int) -> str:
        """``（60 秒）`` after a prompt to act: the turn time limit (出牌限时, G-3); nothing
        for a computer player or when the group set no limit."""
        seconds = getattr(game.rules, "turn_seconds", 0)
        if not seconds or is_computer(seats[seat].user_id):
            return ""
        return f"（{seconds} 秒）"

    def timeout_words(self, game: Any, simple: bool) -> str:
        """What the bot will do for the player to act when the turn time runs out, said
        truthfully and from what everyone can see (G-4: never the move itself, which
        would show the hand). ``simple``: the group's 超时代打 简单 rule."""
        if game.lead is None:
            return "代你首出" + ("（出最小的单张）" if simple else "")
        if simple:
            return self.simple_follow_words(game)
        return "代你跟牌或过（按电脑的打法）"

    def simple_follow_words(self, game: Any) -> str:
        """The simple timeout rule when following (超时代打 简单): pass."""
        return "代你过"

    def to_beat(self, game: ClimbingGame, seats: list[SeatView]) -> str:
        """``甲 的 ♠9（单张）``: the play to beat."""
        owner, cards, _ = game.lead
        reading = game.lead_reading()
        return f"{seats[owner].name} 的 {self.play_cards(game, cards, reading)}{self.type_note(game, reading)}"

    def type_note(self, game: Any, reading: Any) -> str:
        """``（连对）`` after a play: the type taken, in the game's own words (G-5)."""
        return f"（{game.vocabulary.shown(reading.kind)}）"

    def pass_hint(self, game: Any) -> str | None:
        """``None`` when the turn prompt offers passing as usual (``或过``); else what it
        says instead (S-4 把一必拦: passing is not offered)."""
        return None

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
        body, prompt = self.move_parts(game, seats, move, why)
        says = [Say(body)]
        if prompt is not None:
            says.append(Say(prompt, prompt=True))
        if move.cards and game.hands[move.seat]:  # gone out: the group post says so
            says.append(Say(self.hand_update(game, seats, move.seat), move.seat, update=True))
        return says

    def shows_counts(self, game: Any) -> bool:
        """Whether the public table shows every player's card count."""
        return True

    def hand_update(self, game: ClimbingGame, seats: list[SeatView], seat: int) -> str:
        """The short private message after a player's play (G-4): the hand in 出 notation,
        the others' card counts when the table shows them, and the play to beat when it is
        this player's turn. (The role and how to play are in the first hand of a game.)"""
        hand = game.hands[seat]
        if not hand:
            return "你的牌已出完。"
        lines = [f"你的手牌（{len(hand)} 张）：{self.cards(game, hand)}"]
        if self.shows_counts(game):
            others = [f"{seats[s].name} {len(game.hands[s])}" for s in range(game.players)
                      if s != seat and game.hands[s]]
            if others:
                lines.append("其他人：" + "，".join(others))
        if not game.over and game.turn == seat and game.phase == "play":
            lines.append(f"轮到你：要大过 {self.to_beat(game, seats)}" if game.lead else "轮到你首出")
        return "\n".join(lines)

    def render_move(self, game: ClimbingGame, seats: list[SeatView], move: Move, why: str = "") -> Message:
        """The group message after an accepted move (G-4): the play or pass, going out or
        a low hand, the end of a trick or 接风, then the next prompt."""
        body, prompt = self.move_parts(game, seats, move, why)
        return body if prompt is None else body + MessageSegment.text("\n") + prompt

    def move_parts(self, game: ClimbingGame, seats: list[SeatView], move: Move,
                   why: str = "") -> tuple[Message, Message | None]:
        """:meth:`render_move` as ``(the move's lines, the next prompt)``; the prompt is
        ``None`` once the game is over."""
        name = seats[move.seat].name
        note = f"［{why}］" if why else ""
        if move.reading is not None:
            shown = self.play_cards(game, move.cards, move.reading)
            lines = [f"{name} 出 {shown}{self.type_note(game, move.reading)}{note}"]
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
            return plain("\n".join(lines)), None
        # The card counts (显示张数) go with the prompt: a post of several moves keeps only
        # the latest prompt, so its counts are those after every move it reports.
        counts = self.counts_line(game, seats)
        just_shown = move.reading is not None and game.lead is not None and game.lead[0] == move.seat
        prompt = self.prompt(game, seats, just_shown and len(lines) == 1 and not counts)
        if counts:
            prompt = plain(counts + "\n") + prompt
        return plain("\n".join(lines)), prompt

    def hand_text(self, game: Any, title: str, head: str, seat: int, how: str) -> str:
        """``【游戏】<head>`` then the hand (G-1) and how to play."""
        hand = game.hands[seat]
        if not hand:
            return f"【{title}】{head}\n你的牌已出完。"
        return f"【{title}】{head}\n你的手牌（{len(hand)} 张）：\n{self.cards(game, hand)}\n{how}"
