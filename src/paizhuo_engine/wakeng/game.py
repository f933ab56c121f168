"""The 挖坑 state machine (RULES.md W-1 … W-7; G-3).

:class:`WGame` deals 16 cards each and a 4-card bottom from a seed, runs the bidding
(``"bid"``), the digger's private bury (``"bury"``) and the play (``"play"``), ends at
the first player out and scores with the bid and the bottom multiplier. Plain data only;
:meth:`WGame.to_json` / :meth:`WGame.from_json` save and restore it exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cards import DECK_52, HEART, R4, card, rank_of
from ..climbing import ClimbingGame, shape_rule
from ..errors import MoveError, hand_error
from ..readings import WAKENG, WAKENG_SHAANXI, Reading, Vocabulary
from .rules import SCORE_RANKS, WRules, beats, bury_multiplier, classify, forced_three

DIGGER = "digger"
FARMER = "farmer"
ROLE_NAMES = {DIGGER: "挖坑者", FARMER: "农民"}
WIN, LOSS = "win", "loss"


@dataclass(slots=True, kw_only=True)
class WGame(ClimbingGame):
    """One game of 挖坑 for 3 seats.

    ``bottom`` the 4 face-down cards (W-1); ``bids[seat]`` ``None`` (not yet), ``0``
    (不叫) or 1–3; ``bidder`` the seat to bid; ``first`` the seat that bid first (W-2,
    W-7); ``digger`` and ``bid`` once bidding ends; ``buried`` the digger's 4 buried cards
    (W-3). ``phase`` runs ``"bid"`` → ``"bury"`` → ``"play"``. ``result`` when over:
    ``{"winner": "digger" | "farmer", "results": [...], "points": [...],
    "multiplier": int, "bid": int}``.
    """

    rules: WRules
    seed: int
    dealer: int
    bottom: list[int]
    first: int
    bidder: int | None = None
    bids: list[int | None] = field(default_factory=list)
    digger: int | None = None
    bid: int = 0
    buried: list[int] = field(default_factory=list)

    # ---- creation ------------------------------------------------------------------------
    @classmethod
    def deal(cls, rules: WRules, seed: int, first: int | None = None) -> WGame:
        """Shuffle with ``random.Random(seed)``, deal 16 each in seat order from the first
        bidder and leave 4 as the bottom (W-1).

        ``first`` — who bids first: the previous game's first player out (W-2); ``None``
        in a first game draws it from the seed. Under 陕西 the ♥4 holder (else the holder
        of the lowest heart dealt) always bids first (W-7).
        """
        rng = random.Random(seed)
        deck = list(DECK_52)
        rng.shuffle(deck)
        if first is None:
            first = rng.randrange(3)
        hands: list[list[int]] = [[] for _ in range(3)]
        for i, c in enumerate(deck[:48]):
            hands[(first + i) % 3].append(c)
        for h in hands:
            h.sort()
        if rules.shaanxi:
            first = cls._lowest_heart_holder(hands)
        game = cls(players=3, hands=hands, turn=first, rules=rules, seed=seed, dealer=first,
                   bottom=sorted(deck[48:]), first=first, bidder=first, bids=[None] * 3,
                   played=[False] * 3, phase="bid")
        return game

    @staticmethod
    def _lowest_heart_holder(hands: Sequence[Sequence[int]]) -> int:
        """W-7: the holder of ♥4, else of the lowest heart dealt (♥5, ♥6, …)."""
        for rank in range(R4, 13):
            c = card(rank, HEART)
            for seat, h in enumerate(hands):
                if c in h:
                    return seat
        return 0

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int]], bottom: Sequence[int] = (),
                   rules: WRules | None = None, digger: int = 0, bid: int = 1,
                   buried: Sequence[int] = ()) -> WGame:
        """A game in play from given hands (tests, puzzles): ``digger`` leads with ``bid``
        and ``buried`` as the buried cards."""
        return cls(players=3, hands=[sorted(h) for h in hands], turn=digger,
                   rules=rules or WRules(), seed=0, dealer=digger, bottom=sorted(bottom),
                   first=digger, bidder=None, bids=[None] * 3, digger=digger, bid=bid,
                   buried=sorted(buried), played=[False] * 3, phase="play")

    # ---- bidding (W-2, W-7) -----------------------------------------------------------------
    def bid_options(self, seat: int) -> list[int]:
        """What ``seat`` may say now, as everyone may know it: ``0`` (不叫) and the bids
        above the highest so far; W-2: the third must bid when the first two passed
        (标准). The W-7 forced 3 is not shown (it would reveal the hand): see
        :meth:`place_bid`."""
        high = max((b for b in self.bids if b), default=0)
        options = [b for b in (1, 2, 3) if b > high]
        done = [b for b in self.bids if b is not None]
        if not self.rules.shaanxi and len(done) == 2 and not any(done):
            return options
        return [0, *options]

    def place_bid(self, seat: int, amount: int) -> int:
        """``seat`` bids ``amount`` (0 = 不叫). Returns the amount. A bid of 3 ends the
        bidding at once; otherwise it ends when all three have spoken (W-2): the highest
        bidder digs; 陕西 all pass → the first bidder digs at 1 (W-7).

        Raises :class:`MoveError` — ``over``, ``not_bidding``, ``not_turn``, ``bid``.
        """
        if self.over:
            raise MoveError("over", "这局已经结束了")
        if self.phase != "bid":
            raise MoveError("not_bidding", "叫分已经结束了")
        if seat != self.bidder:
            raise MoveError("not_turn", "还没轮到你叫分")
        options = self.bid_options(seat)
        if amount not in options:
            raise MoveError("bid", "可以：" + "、".join("不叫" if b == 0 else f"叫 {b}" for b in options))
        if self.rules.shaanxi and forced_three(self.hands[seat]):
            amount = 3  # W-7: whatever they say, three 3s (or 33+22) bid 3 — nobody is told why
        self.bids[seat] = amount
        spoken = [b for b in self.bids if b is not None]
        if amount == 3 or len(spoken) == 3:
            self._end_bidding()
        else:
            self.bidder = (seat + 1) % 3
            self.turn = self.bidder
        return amount

    def _end_bidding(self) -> None:
        high = max((b or 0) for b in self.bids)
        if high == 0:  # only possible under 陕西 (W-7)
            self.digger, self.bid = self.first, 1
        else:
            order = [(self.first + i) % 3 for i in range(3)]
            self.digger = next(s for s in order if self.bids[s] == high)
            self.bid = high
        self.bidder = None
        self.phase = "bury"
        self.turn = self.digger

    def bid_timeout(self) -> int:
        """The bidder ran out of time: 不叫, or the lowest bid they must make (W-2, W-7)."""
        options = self.bid_options(self.bidder)
        return self.place_bid(self.bidder, options[0])

    # ---- burying (W-3) -------------------------------------------------------------------------
    def bury(self, seat: int, cards: Sequence[int]) -> list[int]:
        """The digger buries exactly 4 cards of their 16, then takes the bottom into hand
        (still 16, W-3). Returns the buried cards.

        Raises :class:`MoveError` — ``not_burying``, ``count``, ``not_held``.
        """
        if self.phase != "bury" or seat != self.digger:
            raise MoveError("not_burying", "现在不需要你扣底")
        cards = list(cards)
        if len(cards) != 4:
            raise MoveError("count", f"要扣 4 张牌，你写了 {len(cards)} 张")
        if len(set(cards)) != 4:
            raise hand_error("not_held", "同一张牌写了两次")
        if not set(cards) <= set(self.hands[seat]):
            raise hand_error("not_held", "你的手牌里没有这些牌")
        self.buried = sorted(cards)
        self.hands[seat] = sorted([c for c in self.hands[seat] if c not in self.buried] + self.bottom)
        self.phase = "play"
        self.turn = self.first if self.rules.shaanxi else seat  # W-5; W-7 ♥4 leads
        return self.buried

    def timeout_bury(self, seat: int) -> list[int]:
        """The 4 cards buried for ``seat`` when time runs out (W-3): the lowest by this
        rule set's ranking, without a 5, 10 or K while the hand has other cards — each of
        those doubles the stakes (W-6). 陕西 has no multiplier (W-7): the 4 lowest."""
        weight = self.rules.rank_order()
        scoring = () if self.rules.shaanxi else SCORE_RANKS
        return sorted(self.hands[seat], key=lambda c: (rank_of(c) in scoring, weight[rank_of(c)], c))[:4]

    def bury_timeout(self) -> list[int]:
        """The digger ran out of time: bury :meth:`timeout_bury`."""
        return self.bury(self.digger, self.timeout_bury(self.digger))

    # ---- the shared trick machinery ------------------------------------------------------------
    @property
    def vocabulary(self) -> Vocabulary:
        """挖坑's type names (W-4, G-5): 单顺 / 双顺 / 三顺 / 炸弹; 陕西 连牌 / 对子连牌 / 四条 (W-7)."""
        return WAKENG_SHAANXI if self.rules.shaanxi else WAKENG

    def classify(self, cards: Sequence[int]) -> list[Reading]:
        """W-4 / W-7 readings."""
        return classify(cards, self.rules)

    def shape_rule(self, cards: Sequence[int]) -> str | None:
        """W-4 / W-7: the rule a play of no legal type breaks (no kickers, chain lengths)."""
        if self.rules.shaanxi:
            return shape_rule(cards, vocabulary=self.vocabulary, min_straight=3, min_pairs=3,
                              min_triples=None, bare_triple=True, kickers=False,
                              chain_ends="连牌只能用 4 到 K")
        return shape_rule(cards, vocabulary=self.vocabulary, min_straight=5, min_pairs=3,
                          min_triples=2, bare_triple=True, kickers=False, chain_ends="2 不能连")

    def beats(self, new: Reading, old: Reading) -> bool:
        """W-4 comparison (bombs)."""
        return beats(new, old)

    def not_playing_reason(self) -> str:
        return "还在叫分或扣底，还没开始出牌"

    # ---- what every player's reasoning reads (see ClimbingGame) ----------------------------
    public_bids = True
    """W-2: the hands were bid on in public (叫分)."""
    game = "wakeng"

    def teams(self) -> list[int]:
        """W-5: the digger (1) against the two farmers (0)."""
        return [1 if s == self.digger else 0 for s in range(self.players)]

    def sides_known_to(self, seat: int) -> tuple[frozenset[int], frozenset[int]]:
        """W-2 / W-5: once the digger is known, the farmers play together against it."""
        if self.digger is None:
            return ClimbingGame.sides_known_to(self, seat)
        others = frozenset(set(range(self.players)) - {seat})
        if seat == self.digger:
            return frozenset(), others
        return others - {self.digger}, frozenset({self.digger})

    def out_of_play_seen(self, seat: int) -> list[int]:
        """W-3: the digger saw the cards it buried; a farmer sees them only at the end."""
        return list(self.buried) if seat == self.digger else []

    def refill_out_of_play(self, data: dict, seat: int, cards: list[int]) -> None:
        """W-3: a farmer has not seen the buried cards."""
        if seat != self.digger:
            data["buried"] = cards[:len(self.buried)]

    def on_out(self, seat: int) -> bool:
        """W-5: the first player out decides the game."""
        winner = DIGGER if seat == self.digger else FARMER
        mult = bury_multiplier(self.buried, self.rules)
        unit = self.bid * mult
        sign = 1 if winner == DIGGER else -1
        points = [2 * unit * sign if s == self.digger else -unit * sign for s in range(3)]
        results = [WIN if self.role(s) == winner else LOSS for s in range(3)]
        self.result = {"winner": winner, "results": results, "points": points,
                       "multiplier": mult, "bid": self.bid}
        return True

    # ---- queries -----------------------------------------------------------------------------------
    def role(self, seat: int) -> str:
        """``"digger"`` or ``"farmer"`` (after bidding)."""
        return DIGGER if seat == self.digger else FARMER

    def next_game_info(self) -> dict:
        """What the next game needs: the first player out bids first (W-2)."""
        return {"out": list(self.out)}

    # ---- the game as dealt (复盘) ----------------------------------------------------------
    def as_dealt(self) -> tuple[dict, list[list]]:
        """:meth:`ClimbingGame.as_dealt`: the state before bidding, the bottom still
        undealt, then every bid in bidding order (W-2) and the 扣底 (W-3)."""
        hands = self.hands_before_play()
        if self.buried:
            bottom = set(self.bottom)
            hands[self.digger] = sorted([c for c in hands[self.digger] if c not in bottom]
                                        + self.buried)
        order = [(self.first + i) % 3 for i in range(3)]
        events: list[list] = [["bid", s, self.bids[s]] for s in order if self.bids[s] is not None]
        if self.buried:
            events.append(["bury", self.digger, list(self.buried)])
        state = self.json_before_play()
        state.update(hands=hands, turn=self.first, phase="bid", bidder=self.first,
                     bids=[None] * 3, digger=None, bid=0, buried=[])
        return state, events

    # ---- persistence -----------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The whole state as plain JSON-able data."""
        return {**self.base_json(), "rules": self.rules.to_json(), "seed": self.seed,
                "dealer": self.dealer, "bottom": list(self.bottom), "first": self.first,
                "bidder": self.bidder, "bids": list(self.bids), "digger": self.digger,
                "bid": self.bid, "buried": list(self.buried)}

    @classmethod
    def from_json(cls, data: dict) -> WGame:
        """Inverse of :meth:`to_json`."""
        return cls(**cls.base_fields(data), rules=WRules.from_json(data["rules"]),
                   seed=int(data["seed"]), dealer=int(data["dealer"]), bottom=list(data["bottom"]),
                   first=int(data["first"]), bidder=data["bidder"], bids=list(data["bids"]),
                   digger=data["digger"], bid=int(data["bid"]), buried=list(data["buried"]))
