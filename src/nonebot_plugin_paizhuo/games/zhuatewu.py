"""抓特务 in the chat: opening sizes, moves, tribute returns, declaring, and every message
the group and players see (RULES.md Z, G-4). A hidden spy is never named before the end:
not in a group message, a reply, a prompt, or by who is waited on — nor by how long the
declare phase lasts: every player answers it (a civilian ``暗``), so it ends when the last
person answers whoever holds the spy cards (G-4)."""

from __future__ import annotations

import unicodedata
from datetime import datetime

from paizhuo_db.records import FinishedGame, FinishedPlayer
from paizhuo_engine.ai.decisions import choose_declare, choose_return
from paizhuo_engine.cards import (
    RA,
    CardWrittenTwice,
    NotationError,
    card,
    card_name,
    check_deck,
    format_cards,
    missing,
    parse_cards,
    resolve,
)
from paizhuo_engine.climbing import Move
from paizhuo_engine.errors import MoveError
from paizhuo_engine.readings import ZHUATEWU
from paizhuo_engine.zhuatewu.game import CIVILIAN, ROLE_NAMES, SPY, ZGame
from paizhuo_engine.zhuatewu.rules import SCHEMA, ZRules

from ..messaging import plain
from ..port import Message
from ..render import SettlementView, SettleRow
from ..shared_settings import with_shared
from .base import HOW_TO_PLAY, Say, SeatShown, SeatView, UsageError
from .choice import Choice, searched_setup
from .climbing import ClimbingAdapter, is_card_text, signed

SIZES = {"3": 3, "三": 3, "三人": 3, "3人": 3, "4": 4, "四": 4, "四人": 4, "4人": 4}
OUTCOME_TEXT = {SPY: "特务胜", CIVILIAN: "平民胜", "draw": "平局"}
RESULT_TEXT = {"win": "胜", "draw": "平", "loss": "负"}
STAKE_TEXT = {"明": "明特务", "明牌": "明牌", "暗": "暗特务"}
DECLARE_TEXT = {"明": "明特务（积分 ×2）", "明牌": "明牌（手牌公开，积分 ×4）", "暗": "暗特务（不亮身份）"}


class ZhuatewuAdapter(ClimbingAdapter):
    """抓特务 for 3 or 4 seats with the group's rule settings (Z)."""

    name = "抓特务"
    schema = with_shared(SCHEMA)
    vocabularies = (ZHUATEWU,)
    engine_type = ZGame

    def is_answer(self, text: str) -> bool:
        """``还 <牌>`` (Z-8), also mistyped; ``明`` / ``明牌`` / ``暗`` (Z-9) with at most two
        stray characters (``明！``, ``暗吧``). Not chat that merely starts with 还."""
        t = unicodedata.normalize("NFKC", text).strip()
        if t.startswith("还"):
            return is_card_text(t[1:])
        return t[:1] in ("明", "暗") and len(t) <= 3 and not any(ch.isspace() for ch in t)

    def parse_size(self, arg: str) -> int:
        """``三人`` / ``四人`` / ``3`` / ``4`` / ``3人`` / ``4人`` → 3 or 4 (Z-1)."""
        size = SIZES.get(unicodedata.normalize("NFKC", arg).strip())
        if size is None:
            raise UsageError("抓特务 3 或 4 人：/开局 抓特务 三人 或 /开局 抓特务 四人")
        return size

    def new_game(self, size: int, settings: dict, seed: int, previous: dict | None) -> ZGame:
        """Dealt with ``everyone_answers`` (G-4): the declare phase waits for every seat."""
        return ZGame.deal(size, ZRules.from_json(settings), seed, previous=previous,
                          everyone_answers=True)

    def prompt_seconds(self, game: ZGame) -> int | None:
        if game.over or game.phase == "play":
            return None
        return game.rules.prompt_seconds

    def _seconds(self, game: ZGame) -> int:
        return game.rules.prompt_seconds

    # ---- text helpers ----------------------------------------------------------------------
    def _role_line(self, game: ZGame, seat: int) -> str:
        if game.roles[seat] != SPY:
            return "你是平民。找出特务，帮同伴先走！"
        dealt = set(game.hands[seat]).union(*(cards for s, cards in game.log if s == seat))
        dealt |= {c for e in game.exchanges if e["receiver"] == seat for c in e["given"]}
        mine = "、".join(card_name(c) for c in game.spy_cards if c in dealt)
        if game.players == 3:
            return f"你是特务（持 {mine}），另外两人都是平民。"
        if game.lone_spy():
            return f"你是特务，独自持有两张特务牌（{mine}），一人对抗三名平民（打独头）。"
        partner = [s for s in game.declared_spies() if s != seat]
        if partner:
            return f"你是特务（持 {mine}），另一名特务已亮明身份。"
        return f"你是特务（持 {mine}）。另一名特务是谁，你并不知道。"

    def hand(self, game: ZGame, seats: list[SeatView], seat: int) -> str:
        return self.hand_text(game, "抓特务", self._role_line(game, seat), seat,
                              HOW_TO_PLAY)

    def reminder(self, game: ZGame, seats: list[SeatView], seat: int) -> str:
        if game.phase == "tribute" and game.next_return(seat):
            return self._return_prompt(game, seats, seat)
        if game.phase == "declare" and (seat in game.awaiting_answer() or (
                not game.everyone_answers and game.roles[seat] != SPY)):
            return self._declare_prompt(game, seat)
        return ""

    def _return_prompt(self, game: ZGame, seats: list[SeatView], seat: int) -> str:
        exchange = game.next_return(seat)
        if exchange is None:
            return ""
        return (f"请还给 {seats[exchange['giver']].name} {exchange['count']} 张牌：私聊回复 还 <牌>"
                f"（不能还 A 和特务牌；{self._seconds(game)} 秒内不回复，自动还最小的牌）")

    def _declare_prompt(self, game: ZGame, seat: int) -> str:
        """The declare question (Z-9) as this seat gets it: every seat is asked at the same
        moment and answers (G-4); a civilian's only answer is 暗."""
        if game.roles[seat] != SPY and game.everyone_answers:
            return ("你是平民，没有明/暗可选：请私聊回复 暗，表示看好了牌"
                    f"（大家都回复了就开始；{self._seconds(game)} 秒内不回复也会开始）。")
        if game.roles[seat] != SPY:
            return "你是平民，请稍等：特务正在选择明/暗。"
        options = "；".join(f"{c}：{DECLARE_TEXT[c]}" for c in game.declare_choices())
        return (f"请选择，私聊回复 {' / '.join(game.declare_choices())}（{options}）。"
                f"{self._seconds(game)} 秒内不回复视为暗。")

    def _waiting_line(self, game: ZGame) -> str:
        if game.phase == "tribute":
            return f"等待还贡：收到贡牌的人私聊回复 还 <牌>（限时 {self._seconds(game)} 秒）。"
        if not game.everyone_answers:
            return f"等待特务私聊选择 明 / 明牌 / 暗（限时 {self._seconds(game)} 秒）。"
        return (f"请各位私聊回复 明 / 明牌 / 暗（限时 {self._seconds(game)} 秒，"
                "都回复了就开始）。")

    def _lead_line(self, game: ZGame, seats: list[SeatView]) -> str:
        """Who leads the first trick and why (Z-5)."""
        name = seats[game.turn].name
        if game.lead_by == "card":
            return f"{card_name(game.rules.first_lead_card())} 在 {name} 手里，{name} 先出。"
        if game.lead_by == "dealer":
            return f"庄家 {name} 先出。"
        if game.lead_by == "first_out":
            return f"上局头游 {name} 先出。"
        return f"{name} 先出。"

    def _play_start(self, game: ZGame, seats: list[SeatView]) -> Message:
        """Declared spies announced together (Z-9, G-4), who leads and why (Z-5), then the
        first prompt."""
        return plain(self._play_start_lines(game, seats) + "\n") + self.prompt(game, seats)

    def _play_start_lines(self, game: ZGame, seats: list[SeatView]) -> str:
        """:meth:`_play_start` without the prompt."""
        lines = []
        for s in game.declared_spies():
            if game.declared[s] == "明牌":
                lines.append(f"{seats[s].name} 是特务，明牌！手牌：{self.cards(game, game.hands[s])}")
            else:
                lines.append(f"{seats[s].name} 亮明：我是特务！")
        lines.append(self._lead_line(game, seats))
        return "\n".join(lines)

    def secret_phase(self, game: ZGame) -> bool:
        """Z-9: while spies choose 明/暗, only spies get answers (G-4)."""
        return game.phase == "declare" and not game.over

    def _phase_says(self, game: ZGame, seats: list[SeatView]) -> list[Say]:
        """What the group and players are told when a phase begins after another."""
        if game.phase == "play":
            return [Say(self._play_start_lines(game, seats)), Say(self.prompt(game, seats), prompt=True)]
        if game.phase == "declare":
            return [Say(self._waiting_line(game)),
                    *(Say(f"【抓特务】{self._declare_prompt(game, s)}", s)
                      for s in game.awaiting_answer())]
        return [Say(self._waiting_line(game))]

    # ---- flows ------------------------------------------------------------------------------
    def start(self, game: ZGame, seats: list[SeatView]) -> list[Say]:
        spy = "、".join(card_name(c) for c in game.spy_cards)
        names = " → ".join(f"{i + 1}.{s.name}" for i, s in enumerate(seats))
        lines = [f"【抓特务】开局！（{game.players} 人，特务牌：{spy}）", f"座次：{names}",
                 f"庄家：{seats[game.dealer].name}。手牌已私聊发出，发送 /手牌 可重发。"]
        for e in game.exchanges:
            lines.append(f"进贡：{seats[e['giver']].name} → {seats[e['receiver']].name} {e['count']} 张")
        head = "\n".join(lines) + "\n"
        if game.phase == "play":
            says = [Say(plain(head) + self._play_start(game, seats))]
        else:
            says = [Say(head + self._waiting_line(game))]
        for s in range(game.players):
            parts = [self.hand(game, seats, s)]
            for e in game.exchanges:
                if e["giver"] == s:
                    parts.append(f"你进贡给 {seats[e['receiver']].name}：{self.cards(game, e['given'])}")
                if e["receiver"] == s:
                    parts.append(f"{seats[e['giver']].name} 进贡给你：{self.cards(game, e['given'])}")
            if game.phase == "tribute" and game.next_return(s):
                parts.append(self._return_prompt(game, seats, s))
            if game.phase == "declare":
                parts.append(self._declare_prompt(game, s))
            says.append(Say("\n".join(parts), s))
        return says

    def move_extras(self, game: ZGame, seats: list[SeatView], move: Move) -> list[str]:
        """Z-9 明牌: the open hand after each play of that spy."""
        if move.cards and move.seat in game.open_seats() and game.hands[move.seat]:
            return [f"{seats[move.seat].name}（明牌）手牌：{self.cards(game, game.hands[move.seat])}"]
        return []

    def shows_counts(self, game: ZGame) -> bool:
        """Z-6 显示张数."""
        return game.rules.show_counts

    def counts_line(self, game: ZGame, seats: list[SeatView]) -> str | None:
        """Z-6 显示张数."""
        if not game.rules.show_counts:
            return None
        return "张数：" + "，".join(
            f"{seats[s].name} {len(game.hands[s])}" for s in range(game.players) if game.hands[s])

    def waiting_seats(self, game: ZGame) -> list[int]:
        if game.over:
            return []
        if game.phase == "tribute":
            return sorted({e["receiver"] for e in game.pending_returns()})
        if game.phase == "declare":
            return list(game.awaiting_answer())
        return super().waiting_seats(game)

    def computer_turn(self, game: ZGame, seats: list[SeatView], seat: int,
                      choice: Choice | None = None) -> list[Say]:
        """Z-8 还贡 with the cheapest cards, Z-9 明 / 暗 by hand strength (困难: searched,
        ``choice``, :func:`.choice.searched_setup`), else play."""
        if game.phase == "tribute":
            exchange = game.next_return(seat)
            if exchange is None:
                return []
            cards = choose_return(game.tribute_allowed(seat), exchange["count"])
            return self.answer(game, seats, seat, "还 " + format_cards(cards)) or []
        if game.phase == "declare":
            if seat not in game.awaiting_answer():
                return []
            if game.roles[seat] != SPY:  # a civilian answers too (G-4)
                return self.answer(game, seats, seat, "暗") or []
            declared = choose_declare(game.hands[seat], game.declare_choices(), game.rules.three_high)
            declared = str(searched_setup(game, seat, declared, choice))
            return self.answer(game, seats, seat, declared) or []
        return super().computer_turn(game, seats, seat, choice)

    def answer(self, game: ZGame, seats: list[SeatView], seat: int, text: str) -> list[Say] | None:
        t = unicodedata.normalize("NFKC", text).strip()
        if t in ("明", "明牌", "暗", "明特务", "暗特务"):
            choice = {"明特务": "明", "暗特务": "暗"}.get(t, t)
            game.declare(seat, choice)
            said = (f"你选择了：{DECLARE_TEXT[choice]}。" if game.roles[seat] == SPY
                    else "收到。")
            if game.phase == "declare":
                said += "等大家都回复了就开始。"
            says = [Say(said, seat, secret=True)]
            if game.phase == "play":
                says += self._phase_says(game, seats)
            return says
        if t.startswith("还"):
            return self._return(game, seats, seat, t[1:].strip())
        if t[:1] in ("明", "暗") and seat in game.awaiting_answer():
            choices = game.declare_choices() if game.roles[seat] == SPY else ("暗",)
            raise MoveError("choice", "请回复：" + " / ".join(choices))
        return None

    def _return(self, game: ZGame, seats: list[SeatView], seat: int, body: str) -> list[Say]:
        """``还 <牌>`` (Z-8). A refusal gives every reason that applies at once (it is
        private): the count, an A or a spy card named, the cards the hand lacks."""
        exchange = game.next_return(seat) if game.phase == "tribute" else None
        if exchange is None:
            raise MoveError("not_tribute", "你现在不需要还贡")
        try:
            specs = parse_cards(body)
            check_deck(specs)
        except (NotationError, CardWrittenTwice) as err:
            raise MoveError("notation", f"{err}。请回复：还 <牌>，例如 还 3") from None
        count = exchange["count"]
        reasons = []
        if len(specs) != count:
            reasons.append(f"要还 {count} 张牌，你写了 {len(specs)} 张")
        if any(sp.rank == RA for sp in specs):
            reasons.append("A 不能还")
        named_spies = [c for c in game.spy_cards
                       if any(sp.suit is not None and card(sp.rank, sp.suit) == c for sp in specs)]
        if named_spies:
            reasons.append(f"特务牌 {'、'.join(card_name(c) for c in named_spies)} 不能还")
        lacking = missing(specs, game.hands[seat])
        if lacking:
            reasons.append("你没有 " + "、".join(lacking))
        if not reasons:
            cards = resolve(specs, game.hands[seat], protected=game.spy_cards)
            if any(c in game.spy_cards for c in cards):
                reasons.append("特务牌不能还")
        if reasons:
            raise MoveError("return", "；".join(reasons) + f"。请回复：还 <{count} 张牌>，不能还 A 和特务牌",
                            private=bool(lacking))
        exchange = game.return_tribute(seat, cards)
        return self._returned(game, seats, [exchange], auto=False)

    def _returned(self, game: ZGame, seats: list[SeatView], exchanges: list[dict],
                  auto: bool) -> list[Say]:
        """The returns settled: each side gets the cards moved and its hand after them —
        the short hand line; the role and how to play came with the deal — and the group
        who returned to whom (not the cards)."""
        says: list[Say] = []
        for e in exchanges:
            giver, receiver = e["giver"], e["receiver"]
            cards = self.cards(game, e["returned"])
            note = "（超时自动）" if auto else ""
            says.append(Say(f"你已还给 {seats[giver].name}：{cards}{note}\n"
                            f"{self.hand_update(game, seats, receiver)}"
                            + ("\n" + self._return_prompt(game, seats, receiver)
                               if game.next_return(receiver) else ""), receiver))
            says.append(Say(f"{seats[receiver].name} 还给你：{cards}\n"
                            f"{self.hand_update(game, seats, giver)}", giver))
            says.append(Say(f"{seats[receiver].name} 已还贡给 {seats[giver].name}{note}。"))
        if game.phase != "tribute":
            says += self._phase_says(game, seats)
        return says

    def timeout(self, game: ZGame, seats: list[SeatView]) -> list[Say]:
        if game.phase == "tribute":
            return self._returned(game, seats, game.tribute_timeout(), auto=True)
        if game.phase == "declare":
            game.declare_timeout()
            return [Say("回复时间到（没回复的按 暗）。"), *self._phase_says(game, seats)]
        return []

    def table(self, game: ZGame, seats: list[SeatView]) -> Message:
        lines = [f"【抓特务】{game.players} 人局"]
        declared = game.declared_spies()  # none until every spy has answered (G-4)
        for s, seat in enumerate(seats):
            status = []
            if s in declared:
                status.append("明特务" if game.declared[s] == "明" else "明牌特务")
            if s in game.out:
                status.append(f"第 {game.out.index(s) + 1} 名")
            elif game.rules.show_counts or len(game.hands[s]) <= game.rules.report_at:
                status.append(f"{len(game.hands[s])} 张")
            line = f"{s + 1}. {seat.name}" + (f"（{'，'.join(status)}）" if status else "")
            if s in game.open_seats() and game.hands[s]:
                line += f" 手牌：{self.cards(game, game.hands[s])}"
            lines.append(line)
        if game.over:
            return plain("\n".join(lines))
        if game.phase == "tribute":
            return plain("\n".join([*lines, "等待还贡。"]))
        if game.phase == "declare":
            return plain("\n".join([*lines, "等待各位私聊回复 明 / 明牌 / 暗。"]))
        return plain("\n".join(lines) + "\n") + self.prompt(game, seats)

    def shown_seats(self, game: ZGame, seats: list[SeatView]) -> list[SeatShown]:
        """As :meth:`table`: declared spies (once every spy has answered, G-4), places,
        card counts only with 显示张数 or at 报牌 (Z-6), and 明牌 hands (Z-9)."""
        declared = game.declared_spies()
        shown = []
        for s in range(len(seats)):
            item = SeatShown()
            if s in declared:
                item.badges.append("明特务" if game.declared[s] == "明" else "明牌特务")
            if s in game.out:
                item.badges.append(f"第 {game.out.index(s) + 1} 名")
            elif game.rules.show_counts or len(game.hands[s]) <= game.rules.report_at:
                item.count = len(game.hands[s])
            if s in game.open_seats() and game.hands[s]:
                item.open_hand = list(game.hands[s])
            shown.append(item)
        return shown

    def seat_roles(self, final: ZGame) -> list[str]:
        return ["特务" if final.roles[s] == "spy" else "平民" for s in range(final.players)]

    def deal_notes(self, game: ZGame, seats: list[SeatView]) -> list[str]:
        """The dealer, the spy cards and each tribute given (Z-8)."""
        lines = [f"庄家：{seats[game.dealer].name}；特务牌："
                 + "、".join(card_name(c) for c in game.spy_cards)]
        for e in game.exchanges:
            lines.append(f"进贡：{seats[e['giver']].name} → {seats[e['receiver']].name} "
                         f"{self.cards(game, e['given'])}")
        return lines

    def reveal(self, game: ZGame, seats: list[SeatView]) -> str:
        """/结束 before the result: the sides, hidden spies included, and every hand (G-4)."""
        spies = "、".join(seats[s].name for s in game.spies())
        civilians = "、".join(seats[s].name for s in range(game.players) if game.roles[s] == CIVILIAN)
        return f"特务：{spies}；平民：{civilians}\n" + super().reveal(game, seats)

    def end(self, game: ZGame, seats: list[SeatView]) -> Message:
        result = game.result or {}
        spies = "、".join(seats[s].name + (f"（{game.declared[s]}）" if game.declared[s] in ("明", "明牌")
                                           else "") for s in game.spies())
        civilians = "、".join(seats[s].name for s in range(game.players) if game.roles[s] == CIVILIAN)
        order = " ".join(f"{i + 1}.{seats[s].name}" for i, s in enumerate(game.out))
        lines = [f"【抓特务】本局结束：{OUTCOME_TEXT[result['outcome']]}！",
                 f"名次：{order}",
                 f"特务：{spies}；平民：{civilians}"]
        if result["outcome"] == "draw":
            lines.append(self.draw_reason(game))
        lines.append("倍数：" + "，".join(
            f"{seats[s].name}（{STAKE_TEXT[game.declared[s] or '暗']}）×{game.stakes[s]}"
            for s in game.spies()))
        for s in range(game.players):
            if game.hands[s]:
                lines.append(f"{seats[s].name} 剩牌：{self.cards(game, game.hands[s])}")
        why = self.score_reasons(game, seats)
        lines.append("积分：" + "，".join(
            f"{seats[s].name} {RESULT_TEXT[result['results'][s]]} {signed(result['points'][s])}"
            + (f"（{why[s]}）" if why[s] else "") for s in range(game.players)))
        return plain("\n".join(lines))

    def score_reasons(self, game: ZGame, seats: list[SeatView]) -> list[str]:
        """Why each seat scored what it did (Z-10), in a few words: with one spy, the spy
        against each civilian; with two, who each was paired with (the winners and the
        losers in finishing order, one to one) and a declared spy's stake (Z-9); nothing
        for a draw."""
        result = game.result or {}
        outcome = result.get("outcome")
        why = [""] * game.players
        if outcome not in (SPY, CIVILIAN):
            return why
        spies = game.spies()
        if len(spies) == 1:
            spy = spies[0]
            stake = game.stakes[spy]
            declared = f"{STAKE_TEXT[game.declared[spy]]} ×{stake}" if stake > 1 else ""
            civilians = game.players - 1
            why[spy] = f"对 {civilians} 名平民各 {stake}" + (f"，{declared}" if declared else "")
            for s in range(game.players):
                if s != spy and declared:  # else plain: each civilian ±1 against the spy
                    why[s] = f"对 {seats[spy].name}，{declared}"
            return why
        for w, lo, stake in game.score_pairs(outcome):
            spy = next(s for s in (w, lo) if game.roles[s] == SPY)
            declared = f"，{STAKE_TEXT[game.declared[spy]]} ×{stake}" if stake > 1 else ""
            why[w] = f"对 {seats[lo].name}{declared}"
            why[lo] = f"对 {seats[w].name}{declared}"
        return why

    def settlement(self, game: ZGame, seats: list[SeatView]) -> SettlementView:
        """The result, each seat's side and place, and why it scored so (Z-7, Z-10)."""
        result = game.result or {}
        why = self.score_reasons(game, seats)
        rows = []
        for s in range(game.players):
            role = ROLE_NAMES[game.roles[s]]
            if game.declared[s] in ("明", "明牌"):
                role = {"明": "明特务", "明牌": "明牌特务"}[game.declared[s]]
            place = f"第 {game.out.index(s) + 1} 名" if s in game.out else ""
            rows.append(SettleRow(f"{s + 1}. {seats[s].name}", role, place,
                                  RESULT_TEXT[result["results"][s]], result["points"][s],
                                  list(game.hands[s]), why[s]))
        notes = [self.draw_reason(game)] if result["outcome"] == "draw" else []
        if game.score_pairs(result["outcome"]):
            notes.append("两个特务：胜方和负方各按出完的顺序一对一计分。")
        notes.append("倍数：" + "，".join(
            f"{seats[s].name}（{STAKE_TEXT[game.declared[s] or '暗']}）×{game.stakes[s]}"
            for s in game.spies()))
        return SettlementView("", f"{OUTCOME_TEXT[result['outcome']]}！", rows, notes)

    def draw_reason(self, game: ZGame) -> str:
        """Why the finishing order is a draw (Z-7), in the players' words."""
        roles = [game.roles[s] for s in game.out]
        roles += [game.roles[s] for s in range(game.players) if s not in game.out]
        order = "".join("特" if r == SPY else "民" for r in roles)
        if game.players == 3:
            return ("平局：平民第一个出完，特务第二个——特务没拿第一，平民也没两人都走在特务前面，"
                    "不计分。")
        if game.lone_spy():
            place = roles.index(SPY) + 1
            return (f"平局：特务（打独头）第 {place} 个出完，既不是第一也不是最后"
                    "（独头规则 b），不计分。")
        return f"平局：出完顺序 {order}，双方各有一人先走、一人垫底，不计分。"

    def record(self, game: ZGame, seats: list[SeatView], uid: str, group_id: str,
               started_at: datetime, ended_at: datetime) -> FinishedGame:
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
                                     "dealer": game.dealer, "seed": game.seed,
                                     "declared": list(game.declared), "stakes": list(game.stakes),
                                     "exchanges": game.exchanges},
                            players=players)
