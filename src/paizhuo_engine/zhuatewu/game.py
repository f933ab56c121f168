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

from ..cards import DECK_54, RA, rank_of
from ..climbing import ClimbingGame, carried_seat, shape_rule
from ..errors import MoveError, hand_error
from ..readings import ZHUATEWU, Reading, Vocabulary
from .rules import ZRules, beats, classify

SPY = "spy"
CIVILIAN = "civilian"
ROLE_NAMES = {SPY: "特务", CIVILIAN: "平民"}

WIN, DRAW, LOSS = "win", "draw", "loss"


CHAIN_ENDS_TEXT = {
    "a": "2 不能连，A 只能接在 K 后（连牌规则 a）",
    "b": "2 只能接在 3 前，A 可在两头，不能 K A 2 相连（连牌规则 b）",
    "c": "顺子中 2 只能接在 3 前、A 可在两头；连对、三连不能有 2 和 A（连牌规则 c）",
}
"""Z-4 连牌规则, in the players' words, for a refused chain."""


@dataclass(slots=True, kw_only=True)
class ZGame(ClimbingGame):
    """One game of 抓特务 for 3 or 4 seats (seats ``0..n-1``; seat order is play order, G-2).

    Create with :meth:`deal`. Fields are plain data: ``hands[seat]`` is a sorted card list,
    ``roles[seat]`` is ``"spy"`` or ``"civilian"``, ``lead`` is the play to beat in the
    current trick as ``[seat, cards, reading]`` (``None`` when the turn player leads),
    ``passes`` counts passes since that play, ``out`` is the finishing order, ``stakes``
    the per-seat stake multiplier (明 ×2, 明牌 ×4; Z-9), ``played`` marks seats that have
    played a card, ``log`` every accepted move as ``[seat, cards]`` (``[]`` = pass).
    ``result`` is set when the game is over: ``{"outcome": "spy" | "civilian" | "draw",
    "results": [per seat "win" | "draw" | "loss"], "points": [per seat int]}``.

    ``phase`` runs ``"tribute"`` (Z-8: returns pending) → ``"declare"`` (Z-9: spies
    choosing 明 / 明牌 / 暗; with ``everyone_answers``, G-4, every seat answering, a
    civilian ``暗``) → ``"play"``. ``exchanges`` are the tribute's
    ``{"giver", "receiver", "count", "given": [cards], "returned": [cards] | None}``;
    ``declared[seat]`` is ``"明"``, ``"明牌"``, ``"暗"`` or ``None`` (undecided, or not a
    spy); ``leader`` is the seat that leads when play starts (``None``: the holder of the
    first-lead card at that moment, Z-5). ``everyone_answers`` (G-4 **Decision**): the
    declare phase waits for an answer from every seat, not only from the spies, so that
    its length tells nothing of who holds a spy card; ``answered[seat]`` marks the seats
    that answered (or timed out).
    """

    rules: ZRules
    seed: int
    dealer: int
    spy_cards: list[int]
    roles: list[str]
    stakes: list[int] = field(default_factory=list)
    exchanges: list[dict] = field(default_factory=list)
    declared: list[str | None] = field(default_factory=list)
    leader: int | None = None
    lead_by: str | None = None
    everyone_answers: bool = False
    answered: list[bool] = field(default_factory=list)
    game = "zhuatewu"

    # ---- creation ----------------------------------------------------------------------
    @classmethod
    def deal(cls, players: int, rules: ZRules, seed: int, dealer: int | None = None,
             leader: int | None = None, previous: dict | None = None,
             everyone_answers: bool = False) -> ZGame:
        """Shuffle with ``random.Random(seed)`` and deal (Z-1); fix the sides (Z-2); give
        the tribute of the previous game (Z-8); open declaring (Z-9) or play (Z-5).

        ``previous`` — :meth:`next_game_info` of the previous game at this table (same
        seats): its first player out deals (Z-1) and, by the 后续首出 setting, leads (Z-5);
        its result decides the tribute. ``previous["seat_map"]`` (optional) maps each seat
        of the previous game to its seat now, ``None`` for a player who left: tribute then
        moves only between players who played both games, and a player who left neither
        deals nor leads. ``dealer`` / ``leader`` override those choices (``None``: a first
        game draws the dealer from the seed and applies 首出). ``everyone_answers``: the
        declare phase waits for every seat (G-4, see the class doc). Raises ``ValueError``
        for a player count other than 3 or 4.
        """
        if players not in (3, 4):
            raise ValueError("抓特务 needs 3 or 4 players")
        rng = random.Random(seed)
        deck = list(DECK_54)
        rng.shuffle(deck)
        first_out = carried_seat(previous, previous["out"][0]) if previous and previous.get("out") else None
        if dealer is None:
            dealer = first_out if first_out is not None else rng.randrange(players)
        hands: list[list[int]] = [[] for _ in range(players)]
        for i, c in enumerate(deck):
            hands[(dealer + i) % players].append(c)
        for h in hands:
            h.sort()
        spy_cards = list(rules.spy_cards_for(players))
        roles = [SPY if any(c in h for c in spy_cards) else CIVILIAN for h in hands]
        lead_rule = rules.later_lead if previous else rules.first_lead
        lead_by = None
        if leader is None:
            lead_by = "card"
            if lead_rule == "庄家":
                leader, lead_by = dealer, "dealer"
            elif lead_rule == "上局头游" and first_out is not None:
                leader, lead_by = first_out, "first_out"
        game = cls(players=players, rules=rules, seed=seed, dealer=dealer, hands=hands,
                   spy_cards=spy_cards, roles=roles, turn=dealer, stakes=[1] * players,
                   played=[False] * players, declared=[None] * players, leader=leader,
                   lead_by=lead_by, everyone_answers=everyone_answers,
                   answered=[False] * players)
        game._give_tribute(previous)
        game.phase = "tribute"
        game._advance()
        return game

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
                   turn=leader, stakes=[1] * players, played=[False] * players,
                   declared=[None] * players, leader=leader, answered=[False] * players)

    # ---- queries -----------------------------------------------------------------------
    def spies(self) -> list[int]:
        """Seats holding a spy card (Z-2)."""
        return [s for s in range(self.players) if self.roles[s] == SPY]

    def lone_spy(self) -> bool:
        """4 players and one seat holds both spy cards (打独头, Z-2)."""
        return self.players == 4 and len(self.spies()) == 1

    # ---- the game's rules in the shared trick machinery (Z-4, Z-6, Z-7) --------------------
    @property
    def vocabulary(self) -> Vocabulary:
        """抓特务's type names (Z-4, G-5): 飞机 is 三连."""
        return ZHUATEWU

    def classify(self, cards: Sequence[int]) -> list[Reading]:
        """Z-4 readings."""
        return classify(cards, self.rules)

    def beats(self, new: Reading, old: Reading) -> bool:
        """Z-4 comparison."""
        return beats(new, old)

    def shape_rule(self, cards: Sequence[int]) -> str | None:
        """Z-4: the rule a play of no legal type breaks."""
        return shape_rule(cards, vocabulary=self.vocabulary, min_straight=5,
                          min_pairs=self.rules.min_pair_chain, min_triples=3,
                          bare_triple=True, kickers=True,
                          chain_ends=CHAIN_ENDS_TEXT.get(self.rules.chain_ends, "2 不能连"))

    def protected(self) -> Sequence[int]:
        """G-1: spy cards are taken last by rank-only plays."""
        return self.spy_cards

    def report(self, seat: int, left: int) -> int | None:
        """Z-6 报牌: announce ``left`` when it is at most 报牌张数."""
        return left if self.rules.report_at and left <= self.rules.report_at else None

    def on_out(self, seat: int) -> bool:
        """Z-7: the game ends when every player of one side is out."""
        if self._side_done():
            self._finish()
            return True
        return False

    def not_playing_reason(self) -> str:
        return "还没开始出牌，请等还贡和特务选择结束"

    # ---- tribute (Z-8) and declaring (Z-9) -----------------------------------------------
    def tribute_allowed(self, seat: int) -> list[int]:
        """Cards of ``seat`` that may be given or returned as tribute: never an A, never a
        spy card (Z-8), highest first by Z-3 ranking."""
        weight = self.rules.rank_order()
        ok = [c for c in self.hands[seat] if rank_of(c) != RA and c not in self.spy_cards]
        return sorted(ok, key=lambda c: (weight[rank_of(c)], c), reverse=True)

    def _plan_tribute(self, previous: dict) -> list[tuple[int, int, int]]:
        """Z-8: ``(giver, receiver, count)`` in giving order from the previous game's
        roles, finishing order, outcome and stakes. Empty after a draw."""
        roles, out, outcome = previous["roles"], list(previous["out"]), previous["outcome"]
        stakes = previous.get("stakes") or [1] * len(roles)
        if outcome not in (SPY, CIVILIAN):
            return []
        order = out + [s for s in range(len(roles)) if s not in out]  # finishing order
        spies = [s for s in order if roles[s] == SPY]
        civilians = [s for s in order if roles[s] == CIVILIAN]
        if len(spies) == 1:
            spy = spies[0]
            k = stakes[spy]
            if outcome == SPY:
                return [(c, spy, k) for c in civilians]
            takers = civilians if self.players == 4 else civilians[:2]
            return [(spy, c, k) for c in takers]
        winners = [s for s in order if roles[s] == outcome]
        losers = [s for s in order if roles[s] != outcome]
        weight = self.rules.rank_order()

        def top(seat: int) -> int:
            now = carried_seat(previous, seat)
            allowed = self.tribute_allowed(now) if now is not None else []
            return weight[rank_of(allowed[0])] if allowed else -1

        losers.sort(key=top, reverse=True)  # stable: ties keep finishing order
        plan = []
        for w, lo in zip(winners, losers, strict=True):
            spy = w if roles[w] == SPY else lo
            plan.append((lo, w, stakes[spy]))
        return plan

    def _give_tribute(self, previous: dict | None) -> None:
        if not previous:
            return
        for old_giver, old_receiver, count in self._plan_tribute(previous):
            giver, receiver = carried_seat(previous, old_giver), carried_seat(previous, old_receiver)
            if giver is None or receiver is None:
                continue  # a player who left neither pays nor receives
            given = self.tribute_allowed(giver)[:count]
            self._move_cards(giver, receiver, given)
            self.exchanges.append({"giver": giver, "receiver": receiver, "count": len(given),
                                   "given": sorted(given), "returned": None})

    def _move_cards(self, src: int, dst: int, cards: Sequence[int]) -> None:
        moving = set(cards)
        self.hands[src] = [c for c in self.hands[src] if c not in moving]
        self.hands[dst] = sorted(self.hands[dst] + list(cards))

    def pending_returns(self) -> list[dict]:
        """Exchanges whose receiver has not returned yet, in giving order."""
        return [e for e in self.exchanges if e["returned"] is None]

    def next_return(self, seat: int) -> dict | None:
        """The exchange ``seat`` must return cards for next (Z-8), if any."""
        return next((e for e in self.pending_returns() if e["receiver"] == seat), None)

    def return_tribute(self, seat: int, cards: Sequence[int]) -> dict:
        """``seat`` returns ``cards`` (还贡) for their first pending exchange (Z-8).

        Returns the settled exchange. Raises :class:`MoveError` — ``not_tribute`` (nothing
        to return), ``count``, ``not_held``, ``not_allowed`` (an A or a spy card) — and
        then nothing changes.
        """
        exchange = self.next_return(seat) if self.phase == "tribute" else None
        if exchange is None:
            raise MoveError("not_tribute", "你现在不需要还贡")
        cards = list(cards)
        if len(cards) != exchange["count"]:
            raise MoveError("count", f"要还 {exchange['count']} 张牌")
        if len(set(cards)) != len(cards) or not set(cards) <= set(self.hands[seat]):
            raise hand_error("not_held", "你的手牌里没有这些牌")
        allowed = set(self.tribute_allowed(seat))
        if not set(cards) <= allowed:
            raise hand_error("not_allowed", "不能还 A，也不能还特务牌")
        self._settle(exchange, cards)
        self._advance()
        return exchange

    def _settle(self, exchange: dict, cards: Sequence[int]) -> None:
        self._move_cards(exchange["receiver"], exchange["giver"], cards)
        exchange["returned"] = sorted(cards)

    def tribute_timeout(self) -> list[dict]:
        """The time limit ran out: every pending return gives the receiver's lowest
        allowed cards (Z-8). Returns the exchanges settled this way."""
        settled = []
        if self.phase != "tribute":
            return settled
        for exchange in self.pending_returns():
            lowest = self.tribute_allowed(exchange["receiver"])[::-1][: exchange["count"]]
            self._settle(exchange, lowest)
            settled.append(exchange)
        self._advance()
        return settled

    def declare_choices(self) -> tuple[str, ...]:
        """What a spy may answer under the settings (Z-9): always ``暗``."""
        out = []
        if self.rules.allow_declare:
            out.append("明")
        if self.rules.allow_open_hand:
            out.append("明牌")
        return (*out, "暗")

    def awaiting_declare(self) -> list[int]:
        """Spies who have not chosen yet (phase ``declare``)."""
        if self.phase != "declare":
            return []
        return [s for s in self.spies() if self.declared[s] is None]

    def awaiting_answer(self) -> list[int]:
        """Every seat the declare phase still waits for: the spies who have not chosen
        and, with ``everyone_answers`` (G-4), every seat that has not answered."""
        if self.phase != "declare":
            return []
        if not self.everyone_answers:
            return self.awaiting_declare()
        return [s for s in range(self.players)
                if not self.answered[s] or (self.roles[s] == SPY and self.declared[s] is None)]

    def declare(self, seat: int, choice: str) -> str:
        """Seat ``seat`` answers the declare question (Z-9): a spy ``明`` / ``明牌`` /
        ``暗`` (明 ×2, 明牌 ×4 stake); with ``everyone_answers`` (G-4) a civilian ``暗``
        (nothing to declare: the answer only says it has seen its hand).

        Returns the choice. Raises :class:`MoveError` — ``not_declaring`` (not the time,
        or already answered, or a civilian without ``everyone_answers``), ``choice`` (not
        allowed by the settings), ``civilian`` (a civilian answering other than 暗).
        """
        if seat not in self.awaiting_answer():
            raise MoveError("not_declaring", "现在不需要你选择明/暗")
        if self.roles[seat] != SPY:
            if choice != "暗":
                raise MoveError("civilian", "你是平民，没有明/暗可选：回复 暗 即可")
            self.answered[seat] = True
            self._advance()
            return choice
        if choice not in self.declare_choices():
            raise MoveError("choice", "请回复：" + " / ".join(self.declare_choices()))
        self._set_declared(seat, choice)
        self._advance()
        return choice

    def _set_declared(self, seat: int, choice: str) -> None:
        self.declared[seat] = choice
        self.stakes[seat] = {"明": 2, "明牌": 4}.get(choice, 1)
        if self.answered:
            self.answered[seat] = True

    def declare_timeout(self) -> list[int]:
        """The time limit ran out: every undecided spy stays hidden (暗, Z-9) and every
        seat counts as answered. Returns the spies who had not chosen."""
        seats = self.awaiting_declare()
        for s in seats:
            self._set_declared(s, "暗")
        if self.phase == "declare" and self.answered:
            self.answered = [True] * self.players
        self._advance()
        return seats

    def _advance(self) -> None:
        """Move on from tribute to declaring to play when each is complete."""
        if self.phase == "play":
            return
        if self.pending_returns():
            self.phase = "tribute"
            return
        can_declare = self.rules.allow_declare or self.rules.allow_open_hand
        waiting = any(self.declared[s] is None for s in self.spies()) or (
            self.everyone_answers and not all(self.answered))
        if can_declare and waiting:
            self.phase = "declare"
            return
        self.phase = "play"
        if self.leader is not None:
            self.turn = self.leader
        else:
            first = self.rules.first_lead_card()
            self.turn = next(s for s, h in enumerate(self.hands) if first in h)

    def declarations_public(self) -> bool:
        """G-4 / Z-9: the answers are revealed together, once every spy has answered or
        timed out (the declare phase is over); until then none of them is public."""
        return self.phase == "play" or self.over

    def open_seats(self) -> list[int]:
        """Spies playing with the hand shown (明牌, Z-9); none while declaring."""
        if not self.declarations_public():
            return []
        return [s for s in range(self.players) if self.declared[s] == "明牌"]

    def declared_spies(self) -> list[int]:
        """Spies who declared (明 or 明牌) — public knowledge once declaring is over
        (G-4); none while declaring."""
        if not self.declarations_public():
            return []
        return [s for s in range(self.players) if self.declared[s] in ("明", "明牌")]

    # ---- what every player's reasoning reads (see ClimbingGame) ----------------------------
    def teams(self) -> list[int]:
        """Z-2: the spies (1) against the civilians (0)."""
        return [1 if r == SPY else 0 for r in self.roles]

    def sides_known_to(self, seat: int) -> tuple[frozenset[int], frozenset[int]]:
        """Sides as ``seat`` knows them (Z-2, Z-9): its own role; spies that declared or
        played a spy card are public; a spy knows it is alone in 3-player games and when
        it holds both spy cards."""
        everyone = set(range(self.players)) - {seat}
        public_spies = set(self.declared_spies())
        spy_cards = set(self.spy_cards)
        for s, cards in self.log:
            if spy_cards.intersection(cards):
                public_spies.add(s)
        mine = spy_cards.intersection(self.hands[seat]) | {
            c for s, cards in self.log if s == seat for c in cards if c in spy_cards}
        if self.roles[seat] == SPY:
            public_spies.discard(seat)
            if self.players == 3 or len(mine) == len(spy_cards):
                return frozenset(), frozenset(everyone)
            partners = public_spies
            opponents = everyone - partners if partners else set()
            return frozenset(partners), frozenset(opponents)
        spies_left = len(spy_cards) if self.players == 4 else 1
        known = public_spies
        if self.players == 4 and len(known) == 1 and known:
            # A public spy who has played both spy cards is alone (打独头).
            spy = next(iter(known))
            played = {c for s, cards in self.log if s == spy for c in cards}
            if spy_cards <= played:
                spies_left = 1
        if len(known) >= spies_left:
            return frozenset(everyone - known), frozenset(known)
        return frozenset(), frozenset(known)

    def seen_beyond_plays(self, seat: int) -> set[int]:
        """The tribute cards ``seat`` gave or received and the cards returned for them
        (Z-8, told only to the two seats of each exchange), and the open hand of a 明牌
        spy once declaring is over (Z-9, shown to the group)."""
        seen: set[int] = set()
        for exchange in self.exchanges:
            if seat in (exchange["giver"], exchange["receiver"]):
                seen.update(exchange["given"])
                seen.update(exchange["returned"] or ())
        for open_seat in self.open_seats():
            if open_seat != seat:
                seen.update(self.hands[open_seat])
        return seen

    def card_places(self, seat: int) -> dict[int, frozenset[int]]:
        """Z-8: where the tribute told ``seat`` single cards are (``{card: seats}``, see
        :meth:`ClimbingGame.card_places`). Read only from ``seat``'s own exchanges (their
        cards are told to the two seats of each) and the public ones' givers, receivers
        and whether they were returned (the group sees 进贡 A → B and 已还贡):

        - cards ``seat`` returned are in the giver's hand (a giver never receives again);
        - cards ``seat`` gave and did not get back are in the receiver's hand, or in that
          of another giver the receiver has returned to (it may pass them on);
        - a giver gave its highest allowed cards (no A, no spy card), so it holds no
          allowed card ranked above the lowest of them that ``seat`` received — unless
          another receiver, whose return ``seat`` did not see, has returned to it.
        """
        everyone = frozenset(range(self.players)) - {seat}
        weight = self.rules.rank_order()
        places: dict[int, frozenset[int]] = {}
        for e in self.exchanges:
            giver, receiver = e["giver"], e["receiver"]
            if seat == receiver:
                returned = set(e["returned"] or ())
                unseen_returns = any(o["giver"] == giver and o["receiver"] != seat
                                     and o["returned"] is not None for o in self.exchanges)
                if e["given"] and not unseen_returns:
                    floor = min((weight[rank_of(c)], c) for c in e["given"])
                    for c in self.deck():
                        if (c not in returned and rank_of(c) != RA and c not in self.spy_cards
                                and (weight[rank_of(c)], c) > floor):
                            places[c] = places.get(c, everyone) - {giver}
                for c in returned:
                    places[c] = frozenset({giver})
            elif seat == giver:
                back = set(e["returned"] or ())
                passed_on = {o["giver"] for o in self.exchanges
                             if o["receiver"] == receiver and o is not e
                             and o["returned"] is not None and o["giver"] != seat}
                for c in e["given"]:
                    if c not in back:
                        places[c] = frozenset({receiver} | passed_on)
        return places

    def known_holders(self, seat: int) -> tuple[list[int], frozenset[int]]:
        """Seats known to every player as spies that have not played every spy card they
        could hold: they must hold one (明 / 明牌, Z-9)."""
        out = []
        for s in self.declared_spies():
            if s == seat:
                continue
            played = {c for p, cs in self.log if p == s for c in cs}
            if not played.intersection(self.spy_cards):
                out.append(s)
        return out, frozenset(self.spy_cards)

    def settle_sides(self) -> None:
        """Z-2: a seat is a spy when it holds or played a spy card."""
        spy_cards = set(self.spy_cards)
        for s in range(self.players):
            held = set(self.hands[s]) | {c for p, cs in self.log if p == s for c in cs}
            self.roles[s] = SPY if spy_cards & held else CIVILIAN

    def next_game_info(self) -> dict:
        """What the next game at this table needs (``previous`` of :meth:`deal`)."""
        return {"roles": list(self.roles), "out": list(self.out),
                "outcome": (self.result or {}).get("outcome"), "stakes": list(self.stakes)}

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
        for w, lo, stake in self.score_pairs(outcome):
            points[w] += stake
            points[lo] -= stake
        return points

    def score_pairs(self, outcome: str) -> list[tuple[int, int, int]]:
        """Z-10 with two spies: ``(winner, loser, stake)`` — the winners and the losers
        each in finishing order, paired one to one (the first out of each side together),
        the stake of a declared spy in the pair (Z-9), else 1. Empty otherwise."""
        if outcome not in (SPY, CIVILIAN) or len(self.spies()) != 2:
            return []
        order = self.out + [s for s in range(self.players) if s not in self.out]
        winners = [s for s in order if self.roles[s] == outcome]
        losers = [s for s in order if self.roles[s] != outcome]
        return [(w, lo, max(self.stakes[w] if self.roles[w] == SPY else 1,
                            self.stakes[lo] if self.roles[lo] == SPY else 1))
                for w, lo in zip(winners, losers, strict=True)]

    # ---- the game as dealt (复盘) ----------------------------------------------------------
    def as_dealt(self) -> tuple[dict, list[list]]:
        """:meth:`ClimbingGame.as_dealt`: the state with the tribute given but not returned
        (Z-8; the deal's own step from tribute to declare or play taken), then every 还贡 in
        giving order and every spy's declaration (Z-9)."""
        hands = self.hands_before_play()
        events: list[list] = []
        for e in self.exchanges:  # undo the returns (Z-8), in giving order
            if e["returned"] is not None:
                returned = set(e["returned"])
                hands[e["receiver"]] = sorted(hands[e["receiver"]] + e["returned"])
                hands[e["giver"]] = [c for c in hands[e["giver"]] if c not in returned]
                events.append(["return", e["receiver"], list(e["returned"])])
        events += [["declare", s, self.declared[s]] for s in self.spies()
                   if self.declared[s] is not None]
        events += [["ready", s] for s in range(self.players)
                   if self.roles[s] != SPY and self.answered and self.answered[s]]
        state = self.json_before_play()
        state.update(hands=hands, turn=self.dealer, phase="tribute", stakes=[1] * self.players,
                     declared=[None] * self.players, answered=[False] * self.players,
                     exchanges=[{**e, "returned": None} for e in self.exchanges])
        dealt = type(self).from_json(state)
        dealt._advance()
        return dealt.to_json(), events

    # ---- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The whole state as plain JSON-able data; :meth:`from_json` restores it exactly."""
        return {
            **self.base_json(), "rules": self.rules.to_json(), "seed": self.seed,
            "dealer": self.dealer, "spy_cards": list(self.spy_cards), "roles": list(self.roles),
            "stakes": list(self.stakes), "exchanges": [dict(e) for e in self.exchanges],
            "declared": list(self.declared), "leader": self.leader, "lead_by": self.lead_by,
            "everyone_answers": self.everyone_answers, "answered": list(self.answered),
        }

    @classmethod
    def from_json(cls, data: dict) -> ZGame:
        """Inverse of :meth:`to_json`. Raises ``KeyError``/``TypeError`` on malformed data."""
        return cls(
            **cls.base_fields(data), rules=ZRules.from_json(data["rules"]),
            seed=int(data["seed"]), dealer=int(data["dealer"]),
            spy_cards=list(data["spy_cards"]), roles=list(data["roles"]),
            stakes=list(data["stakes"]), exchanges=[dict(e) for e in data["exchanges"]],
            declared=list(data["declared"]), leader=data["leader"],
            lead_by=data.get("lead_by"), everyone_answers=bool(data.get("everyone_answers")),
            answered=list(data.get("answered") or [d is not None for d in data["declared"]]),
        )
