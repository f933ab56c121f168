"""挖坑 in the chat: bidding in the group (``叫 2`` / ``不叫``), the digger's private bury
(``扣 <4 张>``), play, and the end with the buried cards and the multiplier (RULES.md W).
The buried and bottom cards stay hidden until the end (W-3)."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from paizhuo_db.records import FinishedGame, FinishedPlayer
from paizhuo_engine.ai.decisions import SCORE_RANKS, choose_bid, choose_bury
from paizhuo_engine.cards import (
    CardWrittenTwice,
    NotationError,
    check_deck,
    format_cards,
    format_ranks,
    missing,
    parse_cards,
    rank_of,
    resolve,
)
from paizhuo_engine.climbing import carried_seat
from paizhuo_engine.errors import MoveError
from paizhuo_engine.numbers import parse_int
from paizhuo_engine.readings import WAKENG, WAKENG_SHAANXI
from paizhuo_engine.wakeng.game import DIGGER, ROLE_NAMES, WGame
from paizhuo_engine.wakeng.rules import SCHEMA, WRules

from ..messaging import plain
from ..port import Message, MessageSegment
from ..render import SettlementView, SettleRow
from ..shared_settings import with_shared
from .base import HOW_TO_PLAY, Say, SeatShown, SeatView, UsageError
from .choice import Choice, searched_setup
from .climbing import ClimbingAdapter, at, is_card_text, signed

BID_RE = re.compile(r"^叫\s*(?:分\s*)?(\d+|[一二两三四五])?\s*分?$")
NO_BID = {"不叫", "不叫了", "不叫分", "pass叫"}
CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
BID_USAGE = "叫分请写：叫 1 / 叫 2 / 叫 3 / 不叫"
RESULT_TEXT = {"win": "胜", "loss": "负"}


class WakengAdapter(ClimbingAdapter):
    """挖坑 for 3 seats with the group's rule set (W)."""

    name = "挖坑"
    schema = with_shared(SCHEMA)
    vocabularies = (WAKENG, WAKENG_SHAANXI)
    engine_type = WGame

    def parse_size(self, arg: str) -> int:
        """挖坑 is always 3 players (W-1); ``三人`` / ``3`` or nothing."""
        if unicodedata.normalize("NFKC", arg).strip() in ("", "3", "三", "三人", "3人"):
            return 3
        raise UsageError("挖坑固定 3 人：/开局 挖坑")

    def new_game(self, size: int, settings: dict, seed: int, previous: dict | None) -> WGame:
        first = carried_seat(previous, previous["out"][0]) if previous and previous.get("out") else None
        return WGame.deal(WRules.from_json(settings), seed, first=first)

    def prompt_seconds(self, game: WGame) -> int | None:
        return game.rules.prompt_seconds if game.phase == "bury" and not game.over else None

    # ---- commands ----------------------------------------------------------------------------
    def parse_command(self, text: str) -> tuple[str, str | None] | None:
        """``叫 2`` / ``叫2`` / ``叫二`` / ``叫2分`` / ``叫分 2`` / ``叫 两分`` → ``("bid", "2")``;
        ``不叫`` → ``("bid", "0")``; ``叫`` / ``叫分`` alone → ``("bid", "")`` (answered with
        the usage); ``扣 <牌>`` → ``("bury", None)`` (answered: privately); otherwise
        ``出`` / ``过``. Chat that merely starts with 叫 or 扣 is ``None``."""
        t = unicodedata.normalize("NFKC", text).strip()
        if t in NO_BID:
            return ("bid", "0")
        m = BID_RE.match(t)
        if m:
            amount = m.group(1) or ""
            return ("bid", str(CN_DIGITS.get(amount, amount)))
        if t.startswith("扣") and t[1:].strip() and is_card_text(t[1:]):
            return ("bury", None)
        return super().parse_command(t)

    def is_answer(self, text: str) -> bool:
        """``扣 <牌>`` (W-3), also mistyped; not chat that merely starts with 扣."""
        t = unicodedata.normalize("NFKC", text).strip()
        return t.startswith("扣") and is_card_text(t[1:])

    def act(self, game: WGame, seats: list[SeatView], seat: int, kind: str, arg: str | None) -> list[Say]:
        if kind == "bury":
            raise MoveError("bury_in_group", "扣底请私聊机器人发送 扣 <4 张牌>，不要在群里发。")
        if kind == "bid":
            if not arg:
                raise MoveError("bid_usage", BID_USAGE)
            amount = parse_int(arg, max_digits=3)
            if amount is None:
                raise MoveError("bid_usage", BID_USAGE)
            game.place_bid(seat, amount)
            return self._after_bid(game, seats, seat)
        if game.phase == "bid":
            raise MoveError("not_playing", "现在是叫分：叫 1 / 叫 2 / 叫 3 / 不叫")
        return super().act(game, seats, seat, kind, arg)

    def acting_seat(self, game: WGame) -> int | None:
        if game.over:
            return None
        if game.phase == "bid":
            return game.bidder
        return super().acting_seat(game)

    def waiting_seats(self, game: WGame) -> list[int]:
        if not game.over and game.phase == "bury":
            return [game.digger]
        return super().waiting_seats(game)

    def computer_turn(self, game: WGame, seats: list[SeatView], seat: int,
                      choice: Choice | None = None) -> list[Say]:
        """W-2 叫分 by hand strength, W-3 扣底 keeping 5 / 10 / K out of the bottom (困难:
        both searched, ``choice``, :func:`.choice.searched_setup`), else play."""
        if game.over:
            return []
        if game.phase == "bid":
            if seat != game.bidder:
                return []
            bid = choose_bid(game.hands[seat], game.bid_options(seat), game.rules.shaanxi)
            bid = int(searched_setup(game, seat, bid, choice))  # type: ignore[arg-type]
            return self.act(game, seats, seat, "bid", str(bid))
        if game.phase == "bury":
            if seat != game.digger:
                return []
            avoid = frozenset() if game.rules.shaanxi else SCORE_RANKS
            cards = choose_bury(game.hands[seat], game.rules.rank_order(), avoid=avoid)
            cards = list(searched_setup(game, seat, tuple(cards), choice))  # type: ignore[arg-type]
            return self.answer(game, seats, seat, "扣 " + format_cards(cards)) or []
        return super().computer_turn(game, seats, seat, choice)

    def auto_move(self, game: WGame, seats: list[SeatView], seat: int, why: str,
                  simple: bool = False, choice: Choice | None = None) -> list[Say]:
        if game.phase == "bid":
            game.bid_timeout()
            return self._after_bid(game, seats, seat, why)
        return super().auto_move(game, seats, seat, why, simple, choice)

    # ---- texts ---------------------------------------------------------------------------------
    def _bid_prompt(self, game: WGame, seats: list[SeatView]) -> Message:
        high = max((b or 0) for b in game.bids)
        options = " / ".join("不叫" if b == 0 else f"叫 {b}" for b in game.bid_options(game.bidder))
        current = f"当前最高 {high} 分" if high else "还没人叫"
        return plain("轮到 ") + at(seats[game.bidder].user_id) + MessageSegment.text(
            f" 叫分：{options}（{current}）{self.time_note(game, seats, game.bidder)}")

    def turn_choices(self, game: WGame, seat: int) -> list[str]:
        """W-2: the bidder's options (``叫 1`` … ``不叫``) while bidding; then as in play."""
        if game.phase == "bid":
            if game.bidder != seat:
                return []
            return ["不叫" if b == 0 else f"叫 {b}" for b in game.bid_options(seat)]
        return super().turn_choices(game, seat)

    def timeout_words(self, game: WGame, simple: bool) -> str:
        """W-2: a bidder who runs out of time does not bid, or bids the least they must."""
        if game.phase == "bid":
            low = game.bid_options(game.bidder)[0]
            return "代你不叫" if low == 0 else f"代你叫 {low} 分"
        return super().timeout_words(game, simple)

    def _after_bid(self, game: WGame, seats: list[SeatView], seat: int, why: str = "") -> list[Say]:
        amount = game.bids[seat]
        note = f"［{why}］" if why else ""
        line = f"{seats[seat].name} {'不叫' if amount == 0 else f'叫 {amount} 分'}{note}"
        if game.phase == "bid":
            return [Say(line), Say(self._bid_prompt(game, seats), prompt=True)]
        digger = seats[game.digger].name
        note = "（三家都不叫，先叫的人挖 1 分）" if not any(game.bids) else ""
        return [
            Say(f"{line}\n{digger} 当挖坑者，{game.bid} 分{note}。等 {digger} 私聊扣底"
                f"（限时 {game.rules.prompt_seconds} 秒）。"),
            Say(f"【挖坑】你是挖坑者（{game.bid} 分）。{self._bury_prompt(game)}\n"
                f"你的手牌：{self.cards(game, game.hands[game.digger])}", game.digger),
        ]

    def _bury_example(self, game: WGame) -> str:
        """``扣 …`` with the cards a timeout would bury: copy-paste ready, and never a
        5, 10 or K where the hand allows (W-6)."""
        return "扣 " + format_ranks(game.timeout_bury(game.digger), game.rules.rank_order())

    def _bury_prompt(self, game: WGame) -> str:
        """How to bury (W-3), what buried 5 / 10 / K cost (W-6), what a timeout does."""
        seconds = game.rules.prompt_seconds
        if game.rules.shaanxi:
            return (f"请扣 4 张牌：私聊回复 扣 <4张牌>，例如 {self._bury_example(game)}。"
                    f"扣完拿到 4 张底牌。{seconds} 秒内不回复自动扣最小的 4 张。")
        return (f"请扣 4 张牌：私聊回复 扣 <4张牌>，例如 {self._bury_example(game)}。"
                f"注意：扣下的 5、10、K 每张让输赢翻倍。扣完拿到 4 张底牌。"
                f"{seconds} 秒内不回复自动扣最小的 4 张（尽量不扣 5、10、K）。")

    def hand(self, game: WGame, seats: list[SeatView], seat: int) -> str:
        if game.digger is None:
            head = "叫分在群里发：叫 1 / 叫 2 / 叫 3 / 不叫。"
        elif seat == game.digger:
            head = f"你是挖坑者（{game.bid} 分）。"
        else:
            head = f"你是农民，挖坑者是 {seats[game.digger].name}（{game.bid} 分）。"
        return self.hand_text(game, "挖坑", head, seat, HOW_TO_PLAY)

    def reminder(self, game: WGame, seats: list[SeatView], seat: int) -> str:
        if game.phase == "bury" and seat == game.digger:
            return self._bury_prompt(game)
        return ""

    # ---- flows -----------------------------------------------------------------------------------
    def start(self, game: WGame, seats: list[SeatView]) -> list[Say]:
        names = " → ".join(f"{i + 1}.{s.name}" for i, s in enumerate(seats))
        rule = "陕西规则" if game.rules.shaanxi else "标准规则"
        first = "（持最小的红桃先叫先出）" if game.rules.shaanxi else ""
        says = [Say(plain(f"【挖坑】开局！（{rule}，每人 16 张，4 张底牌）\n座次：{names}\n"
                          f"{seats[game.first].name} 先叫{first}。手牌已私聊发出，发送 /手牌 可重发。\n")
                    + self._bid_prompt(game, seats))]
        says += [Say(self.hand(game, seats, s), s) for s in range(3)]
        return says

    def answer(self, game: WGame, seats: list[SeatView], seat: int, text: str) -> list[Say] | None:
        t = unicodedata.normalize("NFKC", text).strip()
        if not t.startswith("扣"):
            return None
        if game.phase != "bury" or seat != game.digger:
            raise MoveError("not_burying", "现在不需要你扣底")
        usage = f"请回复：扣 <4 张牌>，例如 {self._bury_example(game)}"
        try:
            specs = parse_cards(t[1:])
            check_deck(specs)
        except (NotationError, CardWrittenTwice) as err:
            raise MoveError("notation", f"{err}。{usage}") from None
        reasons = []  # W-3, every reason at once (the refusal is private)
        if len(specs) != 4:
            reasons.append(f"要扣 4 张牌，你写了 {len(specs)} 张")
        lacking = missing(specs, game.hands[seat])
        if lacking:
            reasons.append("你没有 " + "、".join(lacking))
        if reasons:
            raise MoveError("bury", "；".join(reasons) + f"。{usage}", private=bool(lacking))
        cards = resolve(specs, game.hands[seat])
        game.bury(seat, cards)
        return self._after_bury(game, seats, "")

    def _after_bury(self, game: WGame, seats: list[SeatView], why: str) -> list[Say]:
        digger = seats[game.digger].name
        note = f"［{why}］" if why else ""
        return [
            Say(f"你扣下：{self.cards(game, game.buried)}{note}；拿到底牌：{self.cards(game, game.bottom)}\n"
                + self.hand(game, seats, game.digger), game.digger),
            Say(f"{digger} 扣底完成{note}。{self._lead_line(game, seats)}"),
            Say(self.prompt(game, seats), prompt=True),
        ]

    def _lead_line(self, game: WGame, seats: list[SeatView]) -> str:
        """Who leads the first trick and why (W-5; W-7 without naming a card, which could
        tell that ♥4 lies in the bottom)."""
        if game.rules.shaanxi:
            return f"{seats[game.turn].name} 先叫先出（持最小的红桃）。"
        return f"挖坑者 {seats[game.turn].name} 先出。"

    def timeout(self, game: WGame, seats: list[SeatView]) -> list[Say]:
        if game.phase == "bury":
            game.bury_timeout()
            return self._after_bury(game, seats, "超时自动")
        return []

    def table(self, game: WGame, seats: list[SeatView]) -> Message:
        lines = [f"【挖坑】{'陕西' if game.rules.shaanxi else '标准'}规则"]
        for s, seat in enumerate(seats):
            status = []
            if game.digger == s:
                status.append(f"挖坑者 {game.bid} 分")
            if game.bids[s] is not None and game.phase == "bid":
                status.append("不叫" if game.bids[s] == 0 else f"叫 {game.bids[s]}")
            if game.phase == "play":
                status.append(f"{len(game.hands[s])} 张")
            lines.append(f"{s + 1}. {seat.name}" + (f"（{'，'.join(status)}）" if status else ""))
        if game.over:
            return plain("\n".join(lines))
        if game.phase == "bid":
            return plain("\n".join(lines) + "\n") + self._bid_prompt(game, seats)
        if game.phase == "bury":
            return plain("\n".join([*lines, "等待挖坑者扣底。"]))
        return plain("\n".join(lines) + "\n") + self.prompt(game, seats)

    def shown_seats(self, game: WGame, seats: list[SeatView]) -> list[SeatShown]:
        """As :meth:`table`: the digger and bid, each bid while bidding, card counts
        once play starts."""
        shown = []
        for s in range(len(seats)):
            item = SeatShown()
            if game.digger == s:
                item.badges.append(f"挖坑者 {game.bid} 分")
            if game.bids[s] is not None and game.phase == "bid":
                item.badges.append("不叫" if game.bids[s] == 0 else f"叫 {game.bids[s]}")
            if game.phase == "play":
                item.count = len(game.hands[s])
            shown.append(item)
        return shown

    def seen_label(self) -> str:
        return "你扣的底"

    def seat_roles(self, final: WGame) -> list[str]:
        if final.digger is None:
            return super().seat_roles(final)
        return ["挖坑者" if s == final.digger else "农民" for s in range(final.players)]

    def deal_notes(self, game: WGame, seats: list[SeatView]) -> list[str]:
        """The bottom (W-3)."""
        return [f"底牌：{self.cards(game, game.bottom)}"]

    def reveal(self, game: WGame, seats: list[SeatView]) -> str:
        """/结束 before the result: the digger, the buried cards and the bottom, and every
        hand (G-4)."""
        if game.digger is None or game.phase == "bury":
            head = f"底牌：{self.cards(game, game.bottom)}"
        else:
            head = (f"挖坑者：{seats[game.digger].name}（{game.bid} 分）；扣的底：{self.cards(game, game.buried)}\n"
                    f"原底牌：{self.cards(game, game.bottom)}")
        return head + "\n" + super().reveal(game, seats)

    def end(self, game: WGame, seats: list[SeatView]) -> Message:
        result = game.result or {}
        winner = "挖坑者胜" if result["winner"] == DIGGER else "农民胜"
        scoring = sum(1 for c in game.buried if rank_of(c) in SCORE_RANKS)
        mult = "" if game.rules.shaanxi else (
            f"，倍数 ×{result['multiplier']}（扣底有 {scoring} 张 5、10、K，每张翻倍）" if scoring
            else "，倍数 ×1（扣底没有 5、10、K）")
        lines = [f"【挖坑】本局结束：{winner}！",
                 f"挖坑者：{seats[game.digger].name}（{game.bid} 分）；扣的底：{self.cards(game, game.buried)}{mult}",
                 f"原底牌：{self.cards(game, game.bottom)}"]
        for s in range(3):
            if game.hands[s]:
                lines.append(f"{seats[s].name} 剩牌：{self.cards(game, game.hands[s])}")
        lines.append("积分：" + "，".join(
            f"{seats[s].name} {RESULT_TEXT[result['results'][s]]} {signed(result['points'][s])}"
            for s in range(3)))
        return plain("\n".join(lines))

    def settlement(self, game: WGame, seats: list[SeatView]) -> SettlementView:
        """The result, the digger and the bid, the multiplier the buried cards give (W-6),
        each seat's points and the cards it held; the buried cards and the bottom."""
        result = game.result or {}
        mult = result["multiplier"]
        each = game.bid * mult
        times = f"叫 {game.bid} 分" + (f" × 倍数 {mult}" if mult > 1 else "")
        rows = []
        for s in range(3):
            digger = s == game.digger
            note = f"{times}，两家农民各 {each}" if digger else f"挖坑者{times}"
            place = f"第 {game.out.index(s) + 1} 名" if s in game.out else ""
            rows.append(SettleRow(f"{s + 1}. {seats[s].name}", "挖坑者" if digger else "农民",
                                  place, RESULT_TEXT[result["results"][s]], result["points"][s],
                                  list(game.hands[s]), note))
        end = self.end(game, seats).extract_plain_text().splitlines()
        winner = "挖坑者胜" if result["winner"] == DIGGER else "农民胜"
        return SettlementView("", f"{winner}！", rows, end[1:3])

    def record(self, game: WGame, seats: list[SeatView], uid: str, group_id: str,
               started_at: datetime, ended_at: datetime) -> FinishedGame:
        result = game.result or {}
        players = [
            FinishedPlayer(user_id=seats[s].user_id, seat=s + 1, role=ROLE_NAMES[game.role(s)],
                           place=game.out.index(s) + 1 if s in game.out else None,
                           result=result["results"][s], points=result["points"][s])
            for s in range(3)
        ]
        return FinishedGame(uid=uid, game=self.name, group_id=group_id, started_at=started_at,
                            ended_at=ended_at, settings=game.rules.to_json(),
                            summary={"winner": result["winner"], "bid": game.bid,
                                     "multiplier": result["multiplier"], "buried": game.buried,
                                     "bottom": game.bottom, "digger": game.digger,
                                     "bids": game.bids, "seed": game.seed},
                            players=players)
