"""抓特务 in the chat: opening sizes, moves and every message the group and players see
(RULES.md Z, G-4). Hidden spies are never named before the end."""

from __future__ import annotations

from typing import Any

from nonebot.adapters.onebot.v11 import Message, MessageSegment

from db.records import FinishedGame, FinishedPlayer
from engine.cards import card_name, format_cards
from engine.zhuatewu.game import CIVILIAN, ROLE_NAMES, SPY, Move, ZGame
from engine.zhuatewu.rules import ZRules
from plugins.paizhuo.games.base import GameAdapter, SeatView, UsageError

SIZES = {"3": 3, "三": 3, "三人": 3, "3人": 3, "4": 4, "四": 4, "四人": 4, "4人": 4}
OUTCOME_TEXT = {SPY: "特务胜", CIVILIAN: "平民胜", "draw": "平局"}
RESULT_TEXT = {"win": "胜", "draw": "平", "loss": "负"}


def at(user_id: str) -> MessageSegment:
    """An @-mention of ``user_id``."""
    return MessageSegment.at(int(user_id))


def signed(n: int) -> str:
    """``+2`` / ``-1`` / ``0``."""
    return f"{n:+d}" if n else "0"


class ZhuatewuAdapter(GameAdapter):
    """抓特务 for 3 or 4 seats with the group's rule settings (Z)."""

    name = "抓特务"

    def parse_size(self, arg: str) -> int:
        """``三人`` / ``四人`` / ``3`` / ``4`` / ``3人`` / ``4人`` → 3 or 4 (Z-1)."""
        size = SIZES.get(arg.strip())
        if size is None:
            raise UsageError("请写明人数：/开局 抓特务 三人 或 /开局 抓特务 四人")
        return size

    def rules(self, settings: dict) -> ZRules:
        """The variant object for a table's settings."""
        return ZRules.from_json(settings)

    def new_game(self, size: int, settings: dict, seed: int) -> ZGame:
        return ZGame.deal(size, self.rules(settings), seed)

    def dump(self, game: ZGame) -> dict:
        return game.to_json()

    def load(self, data: dict) -> ZGame:
        return ZGame.from_json(data)

    def turn(self, game: ZGame) -> int | None:
        return None if game.over else game.turn

    def is_over(self, game: ZGame) -> bool:
        return game.over

    def play(self, game: ZGame, seat: int, text: str) -> Move:
        return game.play_text(seat, text)

    def pass_turn(self, game: ZGame, seat: int) -> Move:
        return game.pass_turn(seat)

    # ---- rendering ---------------------------------------------------------------------
    def _cards(self, game: ZGame, cards: list[int]) -> str:
        return format_cards(cards, game.rules.rank_order())

    def _prompt(self, game: ZGame, seats: list[SeatView]) -> Message:
        """``轮到 @X：…`` for the seat to act."""
        seat = game.turn
        msg = Message("轮到 ") + at(seats[seat].user_id)
        if game.lead is None:
            return msg + " 出牌（首出，不能过）"
        owner, cards, _ = game.lead
        reading = game.lead_reading()
        return msg + f" 出牌：要大过 {seats[owner].name} 的 {self._cards(game, cards)}（{reading.name}），或 过"

    def _counts(self, game: ZGame, seats: list[SeatView]) -> str:
        """Z-6 显示张数: every active seat's card count."""
        return "张数：" + "，".join(
            f"{seats[s].name} {len(game.hands[s])}" for s in range(game.players) if game.hands[s]
        )

    def render_start(self, game: ZGame, seats: list[SeatView]) -> Message:
        lone = "（4 人，特务牌：" + "、".join(card_name(c) for c in game.spy_cards) + "）" \
            if game.players == 4 else "（3 人，特务牌：♠A）"
        names = " → ".join(f"{i + 1}.{s.name}" for i, s in enumerate(seats))
        msg = Message(f"【抓特务】开局！{lone}\n座次：{names}\n庄家：{seats[game.dealer].name}。"
                      "手牌已私聊发出，发送 /手牌 可重发。\n")
        return msg + self._prompt(game, seats)

    def render_move(self, game: ZGame, seats: list[SeatView], move: Move) -> Message:
        name = seats[move.seat].name
        if move.reading is not None:
            lines = [f"{name} 出 {self._cards(game, move.cards)}（{move.reading.name}）"]
        else:
            lines = [f"{name} 过"]
        if move.place is not None:
            lines.append(f"{name} 出完了，第 {move.place} 名！")
        elif move.report is not None:
            lines.append(f"报牌：{name} 只剩 {move.report} 张！")
        if move.trick_won is not None:
            winner = seats[move.trick_won].name
            if move.jiefeng:
                lines.append(f"{winner} 的牌没人要，{seats[game.turn].name} 接风。")
            else:
                lines.append(f"没人要，{winner} 拿下这一轮。")
        if game.over:
            return Message("\n".join(lines))
        if game.rules.show_counts:
            lines.append(self._counts(game, seats))
        return Message("\n".join(lines) + "\n") + self._prompt(game, seats)

    def render_table(self, game: ZGame, seats: list[SeatView]) -> Message:
        lines = [f"【抓特务】{game.players} 人局"]
        for s, seat in enumerate(seats):
            status = ""
            if s in game.out:
                status = f"（第 {game.out.index(s) + 1} 名）"
            elif game.rules.show_counts or len(game.hands[s]) <= game.rules.report_at:
                status = f"（{len(game.hands[s])} 张）"
            lines.append(f"{s + 1}. {seat.name}{status}")
        if game.over:
            return Message("\n".join(lines))
        return Message("\n".join(lines) + "\n") + self._prompt(game, seats)

    def render_hand(self, game: ZGame, seats: list[SeatView], seat: int) -> str:
        hand = game.hands[seat]
        if game.roles[seat] == SPY:
            dealt = set(hand).union(*(cards for s, cards in game.log if s == seat))
            mine = "、".join(card_name(c) for c in game.spy_cards if c in dealt)
            if game.players == 3:
                role = f"你是特务（持 {mine}），另外两人都是平民。"
            elif game.lone_spy():
                role = f"你是特务，独自持有两张特务牌（{mine}），一人对抗三名平民（打独头）。"
            else:
                role = f"你是特务（持 {mine}）。另一名特务是谁，你并不知道。"
        else:
            role = "你是平民。找出特务，帮同伴先走！"
        if not hand:
            return f"【抓特务】{role}\n你的牌已出完。"
        return (f"【抓特务】{role}\n你的手牌（{len(hand)} 张）：\n{self._cards(game, hand)}\n"
                "出牌请在群里发：出 <牌>，例如 出 33；不要请发：过")

    def render_end(self, game: ZGame, seats: list[SeatView]) -> Message:
        result = game.result or {}
        spies = "、".join(seats[s].name for s in game.spies())
        civilians = "、".join(seats[s].name for s in range(game.players) if game.roles[s] == CIVILIAN)
        order = " ".join(f"{i + 1}.{seats[s].name}" for i, s in enumerate(game.out))
        lines = [f"【抓特务】本局结束：{OUTCOME_TEXT[result['outcome']]}！",
                 f"名次：{order}",
                 f"特务：{spies}；平民：{civilians}"]
        for s in range(game.players):
            if game.hands[s]:
                lines.append(f"{seats[s].name} 剩牌：{self._cards(game, game.hands[s])}")
        lines.append("积分：" + "，".join(
            f"{seats[s].name} {RESULT_TEXT[result['results'][s]]} {signed(result['points'][s])}"
            for s in range(game.players)))
        return Message("\n".join(lines))

    def record(self, game: ZGame, seats: list[SeatView], uid: str, group_id: str,
               started_at: Any, ended_at: Any, settings: dict) -> FinishedGame:
        result = game.result or {}
        players = [
            FinishedPlayer(user_id=seats[s].user_id, seat=s + 1, role=ROLE_NAMES[game.roles[s]],
                           place=game.out.index(s) + 1 if s in game.out else None,
                           result=result["results"][s], points=result["points"][s])
            for s in range(game.players)
        ]
        return FinishedGame(uid=uid, game=self.name, group_id=group_id, started_at=started_at,
                            ended_at=ended_at, settings=game.rules.to_json(),
                            summary={"outcome": result["outcome"], "out": list(game.out),
                                     "dealer": game.dealer, "seed": game.seed},
                            players=players)
