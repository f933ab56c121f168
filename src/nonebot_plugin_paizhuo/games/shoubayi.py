"""手把一 in the chat: 2–6 players each for themselves (RULES.md S). ``/开局 手把一 N人``
starts when N sit; ``/开局 手把一`` starts when the opener sends ``/开始`` (2 or more
seated) or the seat limit is reached. The end message shows every player's cards left,
multipliers and points."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from paizhuo_db.records import FinishedGame, FinishedPlayer
from paizhuo_engine.ai.shoubayi import BlockingStrategy
from paizhuo_engine.readings import SHOUBAYI
from paizhuo_engine.shoubayi.game import SGame, penalty
from paizhuo_engine.shoubayi.rules import SCHEMA, SRules

from ..messaging import plain
from ..port import Message
from ..render import SettlementView, SettleRow
from ..shared_settings import with_shared
from .base import HOW_TO_PLAY, Say, SeatShown, SeatView, UsageError
from .climbing import ClimbingAdapter, signed

RESULT_TEXT = {"win": "胜", "draw": "平", "loss": "负"}

SIZE_RE = re.compile(r"^([2-6二三四五六两])\s*人?$")
CN = {"二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}


class ShoubayiAdapter(ClimbingAdapter):
    """手把一 for 2–6 seats with the group's settings (S)."""

    name = "手把一"
    schema = with_shared(SCHEMA)
    vocabularies = (SHOUBAYI,)
    engine_type = SGame
    simple_strategy = BlockingStrategy()

    def parse_size(self, arg: str) -> int:
        """``N人`` / ``N`` (2–6) → N; nothing → 0 (start with ``/开始``)."""
        t = unicodedata.normalize("NFKC", arg).strip()
        if not t:
            return 0
        m = SIZE_RE.match(t)
        if m is None:
            raise UsageError("手把一 2–6 人：/开局 手把一 4人（坐满开始），或 /开局 手把一 后由开局人 /开始")
        return CN.get(m.group(1)) or int(m.group(1))

    def max_seats(self, settings: dict) -> int:
        """S-1 人数上限."""
        return int(SCHEMA.clean(settings)["max_players"])

    def new_game(self, size: int, settings: dict, seed: int, previous: dict | None) -> SGame:
        return SGame.deal(size, SRules.from_json(settings), seed, previous=previous)

    def prompt_seconds(self, game: SGame) -> int | None:
        return None

    def pass_hint(self, game: SGame) -> str | None:
        """S-4 把一必拦: passing is not offered to the last player before a 把一 player."""
        if game.blocking_turn():
            return "；把一必拦：管得了就必须管，管不了才能过"
        return super().pass_hint(game)

    def simple_follow_words(self, game: SGame) -> str:
        """S-4 把一必拦: the simple rule beats when it can, else passes."""
        if game.blocking_turn():
            return "代你过；把一必拦：管得了就代你管"
        return super().simple_follow_words(game)

    def timeout_words(self, game: SGame, simple: bool) -> str:
        """手把一's simple rule leads the lowest legal single, not always the lowest card
        (S-3: never a lone joker)."""
        if game.lead is None and simple:
            return "代你首出（出最小的能出的牌）"
        return super().timeout_words(game, simple)

    def prompt_warning(self, game: SGame) -> str:
        """S-4 包赔, told before the player plays."""
        if game.baopei_risk():
            return "。下家把一：出单张就出你最大的单张，否则下家这轮走了由你包赔"
        return ""

    def _lead_line(self, game: SGame, seats: list[SeatView]) -> str:
        """Who leads the first trick and why (S-4). With cards set aside (2 players) the
        heart is not named: it could tell that ♥5 was set aside."""
        name = seats[game.turn].name
        if game.lead_by == "card":
            if game.aside:
                return f"{name} 先出（持 ♥5；♥5 被抽走时持最小的红桃）。"
            return f"♥5 在 {name} 手里，{name} 先出。"
        if game.lead_by == "dealer":
            return f"庄家 {name} 先出。"
        if game.lead_by == "winner":
            return f"上局赢家 {name} 先出。"
        return f"{name} 先出。"

    def deal_notes(self, game: SGame, seats: list[SeatView]) -> list[str]:
        """The cards set aside unseen, if any."""
        return [f"藏牌（不看）：{self.cards(game, game.aside)}"] if game.aside else []

    def reveal(self, game: SGame, seats: list[SeatView]) -> str:
        """/结束 before the result: every hand and the cards set aside (G-4)."""
        aside = f"抽出的牌：{self.cards(game, game.aside)}\n" if game.aside else ""
        return aside + super().reveal(game, seats)

    def report_line(self, name: str, left: int) -> str:
        return f"{name} 把一了！"

    def answer(self, game: SGame, seats: list[SeatView], seat: int, text: str) -> list[Say] | None:
        return None

    def timeout(self, game: SGame, seats: list[SeatView]) -> list[Say]:
        return []

    def hand(self, game: SGame, seats: list[SeatView], seat: int) -> str:
        return self.hand_text(game, "手把一", f"{game.players} 人，各自为战，先出完者胜。", seat, HOW_TO_PLAY)

    def start(self, game: SGame, seats: list[SeatView]) -> list[Say]:
        names = " → ".join(f"{i + 1}.{s.name}" for i, s in enumerate(seats))
        deck = "54 张（带王）" if game.rules.jokers else "52 张（不带王）"
        aside = f"，先抽出 {len(game.aside)} 张不看" if game.aside else ""
        rules = "，".join(name for name, on in (("把一必拦", game.rules.must_block),
                                               ("包赔", game.rules.baopei),
                                               ("打到底", game.rules.to_the_end)) if on)
        says = [Say(plain(f"【手把一】开局！{game.players} 人，{deck}{aside}。{rules or '无附加规则'}。\n"
                          f"座次：{names}\n手牌已私聊发出，发送 /手牌 可重发。\n{self._lead_line(game, seats)}\n")
                    + self.prompt(game, seats))]
        says += [Say(self.hand(game, seats, s), s) for s in range(game.players)]
        return says

    def table(self, game: SGame, seats: list[SeatView]) -> Message:
        lines = [f"【手把一】{game.players} 人局"]
        for s, seat in enumerate(seats):
            status = f"第 {game.out.index(s) + 1} 名" if s in game.out else f"{len(game.hands[s])} 张"
            lines.append(f"{s + 1}. {seat.name}（{status}）")
        if game.over:
            return plain("\n".join(lines))
        return plain("\n".join(lines) + "\n") + self.prompt(game, seats)

    def shown_seats(self, game: SGame, seats: list[SeatView]) -> list[SeatShown]:
        """As :meth:`table`: a place, else the card count (always shown in 手把一)."""
        return [SeatShown(badges=[f"第 {game.out.index(s) + 1} 名"]) if s in game.out
                else SeatShown(count=len(game.hands[s])) for s in range(len(seats))]

    def end(self, game: SGame, seats: list[SeatView]) -> Message:
        result = game.result or {}
        winner = seats[result["winner"]].name
        lines = [f"【手把一】本局结束：{winner} 先出完，胜！"]
        if result.get("dala") is not None:
            order = " ".join(f"{i + 1}.{seats[s].name}" for i, s in enumerate(result["places"]))
            lines.append(f"名次：{order}；大拉：{seats[result['dala']].name}（只有大拉赔）")
        for s in range(game.players):
            if s == result["winner"] or not game.hands[s]:
                continue
            cards, mult = penalty(game.hands[s], game.played[s])
            why = []
            if len(game.hands[s]) == 1:
                why.append("把一不赔")
            if not game.played[s] and len(game.hands[s]) > 1:
                why.append("一张没出 ×2")
            jokers = sum(1 for c in game.hands[s] if c >= 52)
            if jokers and len(game.hands[s]) > 1:
                why.append(f"手里有王 ×{2 ** jokers}")
            note = f"（{'，'.join(why)}）" if why else ""
            lines.append(f"{seats[s].name} 剩 {len(game.hands[s])} 张：{self.cards(game, game.hands[s])}"
                         f"{note}，应赔 {cards * mult}")
        if result.get("baopei") is not None:
            lines.append(self._baopei_line(game, seats, result))
        lines.append("积分：" + "，".join(f"{seats[s].name} {signed(result['points'][s])}"
                                          for s in range(game.players)))
        return plain("\n".join(lines))

    def settlement(self, game: SGame, seats: list[SeatView]) -> SettlementView:
        """Who went out first, each loser's cards left, multipliers and payment (S-6), the
        places with 打到底 and 包赔 (S-4)."""
        result = game.result or {}
        places = result.get("places") or []
        rows = []
        for s in range(game.players):
            hand = game.hands[s]
            why = []
            if s != result["winner"] and hand:
                cards, mult = penalty(hand, game.played[s])
                if not game.played[s] and len(hand) > 1:
                    why.append("一张没出 ×2")
                jokers = sum(1 for c in hand if c >= 52)
                if jokers and len(hand) > 1:
                    why.append(f"手里有王 ×{2 ** jokers}")
                if cards:
                    why.append(f"应赔 {cards * mult}")
            if result.get("baopei") == s:
                why.append("包赔：替所有输家赔")
            place = (f"第 {places.index(s) + 1} 名" if s in places
                     else "第 1 名" if s == result["winner"] else "")
            role = "大拉" if result.get("dala") == s else self._record_role(game, s)
            outcome = "胜" if s == result["winner"] else (
                "不赔" if role == "把一" else RESULT_TEXT.get(result["results"][s], ""))
            rows.append(SettleRow(f"{s + 1}. {seats[s].name}", "" if role == "玩家" else role,
                                  place, outcome, result["points"][s], list(hand),
                                  "，".join(why)))
        notes = [self._baopei_line(game, seats, result)] if result.get("baopei") is not None else []
        return SettlementView("", f"{seats[result['winner']].name} 先出完，胜！", rows, notes)

    def _baopei_line(self, game: SGame, seats: list[SeatView], result: dict) -> str:
        """S-4 包赔, in words that fit how many others it pays for (none with 2 players)."""
        payer = result["baopei"]
        others = [seats[s].name for s in range(game.players)
                  if s not in (payer, result["winner"]) and game.hands[s]]
        head = f"包赔：{seats[payer].name} 放走了把一的下家"
        if not others:
            return f"{head}（只有他一家输，照常自己赔）。"
        return f"{head}，替 {'、'.join(others)} 赔。"

    def _record_role(self, game: SGame, seat: int) -> str:
        """How /战绩 and /对局 name a seat's part in the result: ``包赔`` (S-4), ``把一``
        (a loser holding one card, who pays nothing, S-6), else ``玩家``."""
        result = game.result or {}
        if result.get("baopei") == seat:
            return "包赔"
        if seat != result.get("winner") and len(game.hands[seat]) == 1:
            return "把一"
        return "玩家"

    def record(self, game: SGame, seats: list[SeatView], uid: str, group_id: str,
               started_at: datetime, ended_at: datetime) -> FinishedGame:
        result = game.result or {}
        places = result.get("places") or []
        players = [
            FinishedPlayer(user_id=seats[s].user_id, seat=s + 1, role=self._record_role(game, s),
                           place=places.index(s) + 1 if s in places else None,
                           result=result["results"][s], points=result["points"][s])
            for s in range(game.players)
        ]
        return FinishedGame(uid=uid, game=self.name, group_id=group_id, started_at=started_at,
                            ended_at=ended_at, settings=game.rules.to_json(),
                            summary={"winner": result["winner"], "places": places,
                                     "payments": result["payments"], "baopei": result.get("baopei"),
                                     "dala": result.get("dala"), "seed": game.seed},
                            players=players)
