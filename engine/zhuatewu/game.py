"""The 抓特务 state machine (RULES.md Z-1 … Z-7, Z-10; G-3).

:class:`ZGame` deals from a seed, fixes the sides, runs tricks with pass and 接风, reports
low hands (报牌), ends the game when one side is out and scores it. It holds only plain
data and serialises to JSON (:meth:`ZGame.to_json` / :meth:`ZGame.from_json`) so a game
can be saved after every move. It does no I/O and reads no clock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.cards import DECK_54, CardsNotHeld, parse_cards, resolve
from engine.errors import MoveError
from engine.readings import Reading, ReadingError, choose_follow, choose_lead, split_type_hint
from engine.zhuatewu.rules import ZRules, beats, classify

SPY = "spy"
CIVILIAN = "civilian"
ROLE_NAMES = {SPY: "特务", CIVILIAN: "平民"}

WIN, DRAW, LOSS = "win", "draw", "loss"


@dataclass(slots=True)
class Move:
    """What one accepted move did, for the chat layer to announce.

    ``seat`` made the move; ``cards`` and ``reading`` are the play (empty / ``None`` for
    a pass). ``place`` is the finishing place (1-based) if the play emptied the hand;
    ``report`` is the number of cards left when Z-6 报牌 applies; ``trick_won`` is set
    when the move closed a trick (the seat that won it) and ``jiefeng`` when the lead
    went to the finisher's 下家 (G-3 接风); ``next_seat`` is the seat to act now
    (``None`` when the game is over); ``over`` tells whether the game ended.
    """

    seat: int
    cards: list[int] = field(default_factory=list)
    reading: Reading | None = None
    place: int | None = None
    report: int | None = None
    trick_won: int | None = None
    jiefeng: bool = False
    next_seat: int | None = None
    over: bool = False


@dataclass(slots=True)
class ZGame:
    """One game of 抓特务 for 3 or 4 seats (seats ``0..n-1``; seat order is play order, G-2).

    Create with :meth:`deal`. Fields are plain data: ``hands[seat]`` is a sorted card list,
    ``roles[seat]`` is ``"spy"`` or ``"civilian"``, ``lead`` is the play to beat in the
    current trick as ``[seat, cards, reading]`` (``None`` when the turn player leads),
    ``passes`` counts passes since that play, ``out`` is the finishing order, ``stakes``
    the per-seat stake multiplier (明 ×2, 明牌 ×4; Z-9), ``played`` marks seats that have
    played a card, ``log`` every accepted move as ``[seat, cards]`` (``[]`` = pass).
    ``result`` is set when the game is over: ``{"outcome": "spy" | "civilian" | "draw",
    "results": [per seat "win" | "draw" | "loss"], "points": [per seat int]}``.
    """

    players: int
    rules: ZRules
    seed: int
    dealer: int
    hands: list[list[int]]
    spy_cards: list[int]
    roles: list[str]
    turn: int
    lead: list | None = None
    passes: int = 0
    out: list[int] = field(default_factory=list)
    stakes: list[int] = field(default_factory=list)
    played: list[bool] = field(default_factory=list)
    log: list[list] = field(default_factory=list)
    result: dict | None = None

    # ---- creation ----------------------------------------------------------------------
    @classmethod
    def deal(cls, players: int, rules: ZRules, seed: int, dealer: int | None = None,
             leader: int | None = None) -> ZGame:
        """Shuffle with ``random.Random(seed)`` and deal (Z-1); fix the sides (Z-2) and
        the first leader (Z-5).

        ``dealer`` — the previous game's first player out (Z-1); ``None`` in a first game
        draws it from the seed. ``leader`` — who leads (Z-5 later games: the previous
        game's first player out); ``None`` applies the first-game rule (♥3 / ♥4 under
        带3, or the dealer by setting). Raises ``ValueError`` for a player count other
        than 3 or 4.
        """
        if players not in (3, 4):
            raise ValueError("抓特务 needs 3 or 4 players")
        rng = random.Random(seed)
        deck = list(DECK_54)
        rng.shuffle(deck)
        if dealer is None:
            dealer = rng.randrange(players)
        hands: list[list[int]] = [[] for _ in range(players)]
        for i, c in enumerate(deck):
            hands[(dealer + i) % players].append(c)
        for h in hands:
            h.sort()
        spy_cards = list(rules.spy_cards_for(players))
        roles = [SPY if any(c in h for c in spy_cards) else CIVILIAN for h in hands]
        if leader is None:
            if rules.first_lead == "庄家":
                leader = dealer
            else:
                first = rules.first_lead_card()
                leader = next(s for s, h in enumerate(hands) if first in h)
        return cls(players=players, rules=rules, seed=seed, dealer=dealer, hands=hands,
                   spy_cards=spy_cards, roles=roles, turn=leader,
                   stakes=[1] * players, played=[False] * players)

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int]], rules: ZRules | None = None,
                   leader: int = 0, dealer: int = 0) -> ZGame:
        """A game set up from given hands (for tests, puzzles and replays): sides from the
        spy cards (Z-2), ``leader`` to lead. ``hands`` need not hold the whole deck."""
        rules = rules or ZRules()
        players = len(hands)
        spy_cards = list(rules.spy_cards_for(players))
        roles = [SPY if any(c in h for c in spy_cards) else CIVILIAN for h in hands]
        return cls(players=players, rules=rules, seed=0, dealer=dealer,
                   hands=[sorted(h) for h in hands], spy_cards=spy_cards, roles=roles,
                   turn=leader, stakes=[1] * players, played=[False] * players)

    # ---- queries -----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True once the game has a result (Z-7)."""
        return self.result is not None

    def active(self, seat: int) -> bool:
        """A seat still holding cards (G-3)."""
        return bool(self.hands[seat])

    def next_active(self, seat: int) -> int:
        """The first seat after ``seat`` in seat order that still holds cards."""
        for step in range(1, self.players + 1):
            s = (seat + step) % self.players
            if self.hands[s]:
                return s
        raise RuntimeError("no active seat")

    def lead_reading(self) -> Reading | None:
        """The reading to beat in the current trick, ``None`` if the turn player leads."""
        return Reading.from_json(self.lead[2]) if self.lead else None

    def spies(self) -> list[int]:
        """Seats holding a spy card (Z-2)."""
        return [s for s in range(self.players) if self.roles[s] == SPY]

    def lone_spy(self) -> bool:
        """4 players and one seat holds both spy cards (打独头, Z-2)."""
        return self.players == 4 and len(self.spies()) == 1

    # ---- moves ---------------------------------------------------------------------------
    def parse_play(self, seat: int, text: str) -> tuple[list[int], str | None]:
        """Read a play's text (G-1 notation, optional trailing type name, G-5) into the
        concrete cards of ``seat``'s hand, choosing unnamed suits so that a spy card is
        never shown while another card of that rank is left (G-1).

        Returns ``(cards, kind_hint)``. Raises :class:`MoveError` (``notation`` /
        ``not_held``) without changing anything.
        """
        body, hint = split_type_hint(text)
        try:
            specs = parse_cards(body)
        except ValueError as err:
            raise MoveError("notation", str(err)) from None
        try:
            cards = resolve(specs, self.hands[seat], protected=self.spy_cards)
        except CardsNotHeld:
            raise MoveError("not_held", "你的手牌里没有这些牌") from None
        return cards, hint

    def _check_turn(self, seat: int) -> None:
        if self.over:
            raise MoveError("over", "这局已经结束了")
        if seat != self.turn:
            raise MoveError("not_turn", "还没轮到你")

    def play(self, seat: int, cards: Sequence[int], kind_hint: str | None = None) -> Move:
        """``seat`` plays ``cards`` (card ids from their hand), Z-4 / G-3 / G-5.

        Raises :class:`MoveError` — ``over``, ``not_turn``, ``not_held``, ``no_type``
        (not a legal hand, or several types when leading), ``not_beat`` — and then the
        state is unchanged.
        """
        self._check_turn(seat)
        cards = list(cards)
        hand = self.hands[seat]
        if len(set(cards)) != len(cards) or not set(cards) <= set(hand):
            raise MoveError("not_held", "你的手牌里没有这些牌")
        readings = classify(cards, self.rules)
        to_beat = self.lead_reading()
        try:
            if to_beat is None:
                reading = choose_lead(readings, kind_hint)
            else:
                reading = choose_follow(readings, to_beat, beats, kind_hint)
        except ReadingError as err:
            code = "not_beat" if to_beat is not None and readings else "no_type"
            raise MoveError(code, str(err)) from None

        left = [c for c in hand if c not in set(cards)]
        self.hands[seat] = left
        self.played[seat] = True
        self.lead = [seat, sorted(cards), reading.to_json()]
        self.passes = 0
        self.log.append([seat, sorted(cards)])
        move = Move(seat=seat, cards=sorted(cards), reading=reading)
        if not left:
            self.out.append(seat)
            move.place = len(self.out)
            if self._side_done():
                self._finish()
                move.over = True
                return move
        elif self.rules.report_at and len(left) <= self.rules.report_at:
            move.report = len(left)
        self.turn = self.next_active(seat)
        move.next_seat = self.turn
        return move

    def play_text(self, seat: int, text: str) -> Move:
        """:meth:`parse_play` then :meth:`play`; the turn is checked first, so a player
        out of turn is told so whatever they typed."""
        self._check_turn(seat)
        cards, hint = self.parse_play(seat, text)
        return self.play(seat, cards, hint)

    def pass_turn(self, seat: int) -> Move:
        """``seat`` passes (过/不要), G-3 / Z-5: always allowed when following, never when
        leading. When every other active player has passed in a row, the last play wins
        the trick; if its player is out, the lead goes to their 下家 (接风).

        Raises :class:`MoveError` (``over``, ``not_turn``, ``must_lead``).
        """
        self._check_turn(seat)
        if self.lead is None:
            raise MoveError("must_lead", "你是首出，不能过，请出牌")
        self.passes += 1
        self.log.append([seat, []])
        move = Move(seat=seat)
        last = self.lead[0]
        needed = sum(1 for s in range(self.players) if self.hands[s] and s != last)
        if self.passes >= needed:
            move.trick_won = last
            if self.hands[last]:
                self.turn = last
            else:
                self.turn = self.next_active(last)
                move.jiefeng = True
            self.lead = None
            self.passes = 0
        else:
            self.turn = self.next_active(seat)
        move.next_seat = self.turn
        return move

    # ---- end and score -------------------------------------------------------------------
    def _side_done(self) -> bool:
        """Z-7: every player of one side is out."""
        spies = set(self.spies())
        gone = set(self.out)
        civilians = set(range(self.players)) - spies
        return spies <= gone or civilians <= gone

    def _outcome(self) -> str:
        """Z-7 result from the finishing order: ``"spy"``, ``"civilian"`` or ``"draw"``."""
        order = [self.roles[s] for s in self.out]
        first = order[0]
        if self.players == 3:
            if first == SPY:
                return SPY
            return CIVILIAN if order[:2] == [CIVILIAN, CIVILIAN] else "draw"
        if self.lone_spy():
            spy_place = order.index(SPY) + 1 if SPY in order else None
            if self.rules.lone_spy == "a":
                return SPY if spy_place == 1 else CIVILIAN
            if spy_place == 1:
                return SPY
            return CIVILIAN if spy_place is None else "draw"
        # 4 players, two spies: the first two out, or the three out when the ends differ.
        if order[:2] in ([SPY, SPY], [CIVILIAN, CIVILIAN]):
            return order[0]
        if len(order) >= 3 and order[0] == order[2]:
            return order[0]
        return "draw"

    def _finish(self) -> None:
        outcome = self._outcome()
        self.lead = None
        self.passes = 0
        results = [DRAW] * self.players
        if outcome != "draw":
            results = [WIN if self.roles[s] == outcome else LOSS for s in range(self.players)]
        self.result = {"outcome": outcome, "results": results,
                       "points": self._points(outcome)}

    def _points(self, outcome: str) -> list[int]:
        """Z-10: zero-sum points equal to the cards Z-8 would move; ×stake of a declared
        spy on that spy's exchanges (Z-9). A draw scores 0."""
        points = [0] * self.players
        if outcome == "draw":
            return points
        spies = self.spies()
        civilians = [s for s in range(self.players) if s not in spies]
        if len(spies) == 1:
            spy = spies[0]
            sign = 1 if outcome == SPY else -1
            for c in civilians:
                points[spy] += sign * self.stakes[spy]
                points[c] -= sign * self.stakes[spy]
            return points
        winners = [s for s in self.out if self.roles[s] == outcome]
        winners += [s for s in range(self.players) if self.roles[s] == outcome and s not in winners]
        losers = [s for s in range(self.players) if self.roles[s] != outcome]
        for w, lo in zip(winners, losers, strict=True):
            stake = max(self.stakes[w] if self.roles[w] == SPY else 1,
                        self.stakes[lo] if self.roles[lo] == SPY else 1)
            points[w] += stake
            points[lo] -= stake
        return points

    # ---- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The whole state as plain JSON-able data; :meth:`from_json` restores it exactly."""
        return {
            "players": self.players, "rules": self.rules.to_json(), "seed": self.seed,
            "dealer": self.dealer, "hands": [list(h) for h in self.hands],
            "spy_cards": list(self.spy_cards), "roles": list(self.roles), "turn": self.turn,
            "lead": self.lead, "passes": self.passes, "out": list(self.out),
            "stakes": list(self.stakes), "played": list(self.played),
            "log": [list(e) for e in self.log], "result": self.result,
        }

    @classmethod
    def from_json(cls, data: dict) -> ZGame:
        """Inverse of :meth:`to_json`. Raises ``KeyError``/``TypeError`` on malformed data."""
        return cls(
            players=int(data["players"]), rules=ZRules.from_json(data["rules"]),
            seed=int(data["seed"]), dealer=int(data["dealer"]),
            hands=[list(h) for h in data["hands"]], spy_cards=list(data["spy_cards"]),
            roles=list(data["roles"]), turn=int(data["turn"]), lead=data["lead"],
            passes=int(data["passes"]), out=list(data["out"]), stakes=list(data["stakes"]),
            played=list(data["played"]), log=[list(e) for e in data["log"]],
            result=data["result"],
        )
