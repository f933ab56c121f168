"""The 手把一 state machine (RULES.md S-1 … S-6; G-3).

:class:`SGame` deals for 2–6 players (with the 2-player set-aside), runs tricks with the
lone-joker rule, 把一 announcements, must-block (把一必拦) and 包赔, ends at the first
player out (or plays on to the 大拉 with 打到底) and computes every penalty. Plain data
only; :meth:`SGame.to_json` / :meth:`SGame.from_json` save and restore it exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cards import BIG_JOKER, DECK_52, DECK_54, HEART, R5, SMALL_JOKER, card, rank_of
from ..climbing import ClimbingGame, Move, carried_seat, shape_rule
from ..errors import hand_error
from ..readings import SHOUBAYI, Reading, Vocabulary
from .rules import SRules, beats, classify

WIN, LOSS = "win", "loss"


def penalty(hand: Sequence[int], played: bool) -> tuple[int, int]:
    """S-6: ``(cards, multiplier)`` a loser pays: 1 point per card left; nothing with
    exactly one card (把一 is safe); ×2 if they never played; ×2 for 小王 or 大王 (×4 with
    both). The payment is ``cards * multiplier``."""
    n = len(hand)
    if n <= 1:
        return (0, 1)
    mult = 1 if played else 2
    mult *= 2 ** sum(1 for c in (SMALL_JOKER, BIG_JOKER) if c in hand)
    return (n, mult)


@dataclass(slots=True, kw_only=True)
class SGame(ClimbingGame):
    """One game of 手把一 for 2–6 seats.

    ``aside`` the cards set aside unseen (2 players, S-1); ``watch`` a pending 包赔 as
    ``[player, next_player]`` (S-4); ``baopei`` the seat that pays for everyone, once
    decided; ``lead_by`` why the first leader leads (S-4): ``"card"`` (♥5 or the lowest
    heart above it), ``"dealer"``, ``"winner"`` (the previous winner) or ``None`` (set up
    by hand). ``result`` when over: ``{"winner": seat, "places": [...], "payments":
    [...], "multipliers": [...], "points": [...], "results": [...], "baopei": seat|None,
    "dala": seat|None}``.
    """

    rules: SRules
    seed: int
    dealer: int
    aside: list[int] = field(default_factory=list)
    watch: list[int] | None = None
    baopei: int | None = None
    lead_by: str | None = None

    # ---- creation ---------------------------------------------------------------------------
    @classmethod
    def deal(cls, players: int, rules: SRules, seed: int, previous: dict | None = None) -> SGame:
        """Shuffle with ``random.Random(seed)``; with 2 players set a random number of
        cards aside first; deal the rest one at a time in seat order from the dealer, the
        extra cards going to the first seats (S-1). The previous winner deals and leads
        (S-4); a first game draws the dealer from the seed and ♥5 (or the lowest heart
        above it) leads, or the dealer by setting.

        Raises ``ValueError`` for fewer than 2 or more than 6 players.
        """
        if not 2 <= players <= 6:
            raise ValueError("手把一 needs 2 to 6 players")
        rng = random.Random(seed)
        deck = list(DECK_54 if rules.jokers else DECK_52)
        rng.shuffle(deck)
        aside: list[int] = []
        if players == 2:
            low, high = sorted((rules.aside_min, rules.aside_max))
            aside = sorted(deck[: rng.randint(low, high)])
            deck = deck[len(aside):]
        winner = previous.get("winner") if previous else None
        if winner is not None:
            winner = carried_seat(previous, winner)
        dealer = winner if winner is not None else rng.randrange(players)
        hands: list[list[int]] = [[] for _ in range(players)]
        for i, c in enumerate(deck):
            hands[(dealer + i) % players].append(c)
        for h in hands:
            h.sort()
        if winner is not None:
            leader, lead_by = dealer, "winner"
        elif rules.first_lead == "庄家":
            leader, lead_by = dealer, "dealer"
        else:
            leader, lead_by = cls._heart_five_holder(hands, dealer), "card"
        return cls(players=players, hands=hands, turn=leader, rules=rules, seed=seed,
                   dealer=dealer, aside=aside, played=[False] * players, lead_by=lead_by)

    @staticmethod
    def _heart_five_holder(hands: Sequence[Sequence[int]], dealer: int) -> int:
        """S-4: the holder of ♥5, else of the lowest heart above it; the dealer if none."""
        for rank in range(R5, 13):
            c = card(rank, HEART)
            for seat, h in enumerate(hands):
                if c in h:
                    return seat
        return dealer

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int]], rules: SRules | None = None,
                   leader: int = 0) -> SGame:
        """A game in play from given hands (tests, puzzles)."""
        return cls(players=len(hands), hands=[sorted(h) for h in hands], turn=leader,
                   rules=rules or SRules(), seed=0, dealer=leader, played=[False] * len(hands))

    # ---- the game's rules in the shared trick machinery ------------------------------------------
    @property
    def vocabulary(self) -> Vocabulary:
        """手把一's type names (S-3, G-5): 联对, 飞机 is a chain of 三带一."""
        return SHOUBAYI

    def classify(self, cards: Sequence[int]) -> list[Reading]:
        """S-3 readings."""
        return classify(cards)

    def beats(self, new: Reading, old: Reading) -> bool:
        """S-3 comparison (bombs)."""
        return beats(new, old)

    def shape_rule(self, cards: Sequence[int]) -> str | None:
        """S-3: the rule a play of no legal type breaks (a triple carries exactly one
        card, 联对 needs 3 pairs, …)."""
        return shape_rule(cards, vocabulary=self.vocabulary, min_straight=5, min_pairs=3,
                          min_triples=None, bare_triple=False, kickers=True,
                          chain_ends="2 只能连在最小的一头（A 2 3 …），不能接在 A 后")

    def lead_readings(self, readings: list[Reading]) -> list[Reading]:
        """S-3.4: a bomb may not lead (four equal cards led are a 三带一)."""
        return [r for r in readings if not r.bomb]

    def check_play(self, seat: int, cards: Sequence[int], reading: Reading) -> None:
        """S-3: never be left holding one card that is a joker."""
        hand = self.hands[seat]
        if len(hand) - len(cards) != 1:
            return
        gone = set(cards)
        left = [c for c in hand if c not in gone]
        if len(left) == 1 and left[0] >= SMALL_JOKER:
            raise hand_error("lone_joker", "不能只剩一张王（王不能当把一的牌），请换个出法")

    def check_pass(self, seat: int) -> None:
        """S-4 把一必拦: the last player before a 把一 player who just played may not pass
        while they hold a play that beats it."""
        if self.blocking_turn() and self.can_beat(seat):
            raise hand_error("must_block", "把一的人就等你这一家了，你能管就必须管（把一必拦）")

    def blocking_turn(self) -> bool:
        """S-4 把一必拦 applies to the player to act: the play on the table left its player
        with one card and everyone else after them has passed. Public (no hand is read):
        whether passing is refused then depends on :meth:`can_beat`."""
        if not self.rules.must_block or self.lead is None or self.over:
            return False
        last = self.lead[0]
        needed = sum(1 for s in range(self.players) if self.hands[s] and s != last)
        return len(self.hands[last]) == 1 and self.passes + 1 == needed

    def baopei_risk(self) -> bool:
        """S-4 包赔 may follow the next play: 包赔 is on, the player to act may play a
        single (leading, or following a single) other than the last card it holds (that
        one is its highest single) and the next player holds one card. Public (no hand is
        read: how many cards a 手把一 hand holds is shown)."""
        if not self.rules.baopei or self.over or len(self.hands[self.turn]) < 2:
            return False
        following = self.lead_reading()
        if following is not None and following.kind != "single":
            return False
        after = self.next_active(self.turn)
        return after != self.turn and len(self.hands[after]) == 1

    def can_beat(self, seat: int) -> bool:
        """Whether ``seat`` holds a legal play that beats the play on the table: the
        game's move generator finds the cheapest follow, or none (S-3, S-4)."""
        from ..moves import any_beating

        to_beat = self.lead_reading()
        return to_beat is not None and any_beating(self.hands[seat], self.rules,
                                                   to_beat) is not None

    def report(self, seat: int, left: int) -> int | None:
        """S-4: announce 把一 (one card left)."""
        return 1 if left == 1 else None

    def place_play(self, seat: int, cards: Sequence[int], reading: Reading) -> Move:
        """As :meth:`ClimbingGame.place_play`, tracking 包赔 (S-4): a single that is not
        the player's highest while the next player holds one card."""
        hand_before = list(self.hands[seat])
        trick_before = self.lead
        move = ClimbingGame.place_play(self, seat, cards, reading)
        if trick_before is None:
            self.watch = None  # a new trick began
        if self.over:
            return move
        if (self.rules.baopei and move.reading is not None and move.reading.kind == "single"
                and len(self.hands[self.turn]) == 1):
            highest = max(rank_of(c) for c in hand_before)
            if rank_of(move.cards[0]) < highest:
                self.watch = [seat, self.turn]
        return move

    pass_may_be_refused = True
    """S-4 把一必拦: :meth:`check_pass` refuses a pass that must block."""
    game = "shoubayi"

    def refill_out_of_play(self, data: dict, seat: int, cards: list[int]) -> None:
        """S-1: nobody has seen the cards set aside."""
        data["aside"] = cards[:len(self.aside)]

    def pass_turn(self, seat: int) -> Move:
        """As :meth:`ClimbingGame.pass_turn`; a finished trick clears a pending 包赔."""
        move = ClimbingGame.pass_turn(self, seat)
        if move.trick_won is not None:
            self.watch = None
        return move

    def on_out(self, seat: int) -> bool:
        """S-5: the first player out wins; with 打到底 play goes on until one player is
        left holding cards (the 大拉). S-4 包赔 is decided when the watched player goes
        out first."""
        if len(self.out) == 1 and self.watch is not None and self.watch[1] == seat:
            self.baopei = self.watch[0]
        active = [s for s in range(self.players) if self.hands[s]]
        if self.rules.to_the_end and len(active) > 1:
            return False
        self._finish(dala=active[0] if self.rules.to_the_end and active else None)
        return True

    def _finish(self, dala: int | None) -> None:
        """S-6 payments and points."""
        winner = self.out[0]
        n = self.players
        payments = [0] * n
        mults = [1] * n
        payers = [dala] if dala is not None else [s for s in range(n) if s != winner]
        for s in payers:
            cards, mult = penalty(self.hands[s], self.played[s])
            payments[s], mults[s] = cards * mult, mult
        if self.baopei is not None:
            total = sum(payments)
            payments = [0] * n
            payments[self.baopei] = total
        points = [-p for p in payments]
        points[winner] = sum(payments)
        places = list(self.out) + ([dala] if dala is not None else [])
        self.result = {"winner": winner, "places": places, "payments": payments,
                       "multipliers": mults, "points": points, "baopei": self.baopei,
                       "dala": dala,
                       "results": [WIN if s == winner else LOSS for s in range(n)]}
        self.watch = None

    # ---- queries ------------------------------------------------------------------------------------
    def next_game_info(self) -> dict:
        """The previous winner deals and leads the next game (S-4)."""
        return {"winner": self.out[0] if self.out else None}

    # ---- the game as dealt (复盘) ----------------------------------------------------------
    def as_dealt(self) -> tuple[dict, list[list]]:
        """:meth:`ClimbingGame.as_dealt`: the hands before the first play with the first
        leader to act (S-4), no 包赔 watch; no decision comes before the first play."""
        state = self.json_before_play()
        leader = self.log[0][0] if self.log else self.turn
        state.update(hands=self.hands_before_play(), turn=leader, watch=None, baopei=None)
        return state, []

    # ---- persistence ----------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The whole state as plain JSON-able data."""
        return {**self.base_json(), "rules": self.rules.to_json(), "seed": self.seed,
                "dealer": self.dealer, "aside": list(self.aside), "watch": self.watch,
                "baopei": self.baopei, "lead_by": self.lead_by}

    @classmethod
    def from_json(cls, data: dict) -> SGame:
        """Inverse of :meth:`to_json`."""
        return cls(**cls.base_fields(data), rules=SRules.from_json(data["rules"]),
                   seed=int(data["seed"]), dealer=int(data["dealer"]), aside=list(data["aside"]),
                   watch=data["watch"], baopei=data["baopei"], lead_by=data.get("lead_by"))
