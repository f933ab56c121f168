"""What every climbing game shares (RULES.md G-1, G-3, G-5): hands, turns, tricks with pass
and 接风, finishing order, the move log, parsing a play against a hand, and JSON.

A game subclasses :class:`ClimbingGame` and supplies its classifier and comparison
(:meth:`classify`, :meth:`beats`), the cards a rank-only play must not reveal
(:meth:`protected`), extra checks on a play (:meth:`check_play`), whether a seat may pass
(:meth:`check_pass`), what a play announces (:meth:`report`) and what happens when a
player goes out (:meth:`on_out`). Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .cards import (
    DECK_52,
    DECK_54,
    RANK_NAMES,
    CardsNotHeld,
    CardSpec,
    CardWrittenTwice,
    NotationError,
    check_deck,
    parse_cards,
    rank_of,
    resolve,
    stand_ins,
)
from .errors import MoveError, hand_error
from .movegen import reading_of_json
from .readings import (
    COMMON,
    Hint,
    Reading,
    ReadingError,
    TypeName,
    Vocabulary,
    choose_follow,
    choose_lead,
)


def carried_seat(previous: dict, seat: int) -> int | None:
    """The seat now of the player who sat at ``seat`` in the previous game at this table.

    ``previous`` is a game's ``next_game_info()``; its optional ``"seat_map"`` (one entry per
    previous seat: the seat now, or ``None`` for a player who left between games) is set by
    the table when its players changed. Without a map the seats are the same. Used for what
    carries from one game to the next (tribute Z-8, who deals and leads Z-5 / W-2 / S-4): a
    player who left takes no part in it.
    """
    seat_map = previous.get("seat_map")
    return seat if seat_map is None else seat_map[seat]


def shape_rule(cards: Sequence[int], *, vocabulary: Vocabulary, min_straight: int,
               min_pairs: int, min_triples: int | None, bare_triple: bool,
               kickers: bool, chain_ends: str = "2 不能连") -> str | None:
    """The hand-type rule (Z-4, W-4, W-7, S-3) that cards of no legal type break, from
    their shape (how many cards of each rank): a bare triple where a triple must carry,
    a wrong kicker, a chain too short, ranks that do not run, a joker in a chain.
    ``min_triples`` is ``None`` when triples never chain on their own; ``kickers`` tells
    whether triples and fours may carry cards; ``chain_ends`` is the game's rule for 2 and
    A in chains, said when a chain of consecutive ranks holds one of them. ``None`` when
    no single rule explains it."""
    counts = Counter(rank_of(c) for c in cards)
    shape = sorted(counts.values(), reverse=True)
    groups = len(shape)
    name = vocabulary.shown
    if shape == [3] and not bare_triple:
        return f"三张必须带一张牌（{name('triple_one')}）"
    if shape[0] == 3 and groups > 1 and not kickers:
        return "三张不能带牌"
    if shape[0] == 4 and groups > 1 and not kickers:
        return "四张不能带牌"
    if shape[0] == 3 and shape.count(3) == 1 and groups > 1 and kickers:
        return f"三张只能带一张牌（{name('triple_one')}）"
    if shape[0] == 4 and kickers and groups > 1 and len(cards) != 6:
        return f"四张要带两张牌（{name('four_two')}）"
    if sorted(counts) == [13, 14] and groups == 2:
        return "小王和大王不算对子"
    if len(set(shape)) == 1:
        width = shape[0]
        if width == 1 and groups < min_straight:
            return f"不同的单牌要连成{name('straight')}，至少 {min_straight} 张"
        if width == 2 and groups < min_pairs:
            return f"{name('pair_chain')}至少 {min_pairs} 对"
        if width == 3 and min_triples is None:
            return f"三张必须各带一张牌（{name('triple_one')}）"
        if width == 3 and groups < min_triples:
            return f"{name('triple_chain')}至少 {min_triples} 个三张"
        if width <= 3 and groups > 1:
            if any(r >= 13 for r in counts):
                return "王不能连"
            high = sorted(counts)
            low = sorted({11: -2, 12: -1}.get(r, r) for r in counts)  # A and 2 below 3
            if any(order[-1] - order[0] == groups - 1 for order in (high, low)) and (
                    high[-1] >= 11 or high[0] == 0):
                return chain_ends  # the ranks run, but the game's rule for the ends refuses
            return "点数要相连"
    return None


@dataclass(slots=True)
class Move:
    """What one accepted move did, for the chat layer to announce.

    ``seat`` made the move; ``cards`` and ``reading`` are the play (empty / ``None`` for
    a pass). ``place`` is the finishing place (1-based) if the play emptied the hand;
    ``report`` is the number of cards left when the game announces it (Z-6 报牌, S-4
    把一); ``trick_won`` is set when the move closed a trick (the seat that won it) and
    ``jiefeng`` when the lead went to the finisher's 下家 (G-3 接风); ``next_seat`` is the
    seat to act now (``None`` when the game is over); ``over`` tells whether it ended.
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


@dataclass(slots=True, kw_only=True)
class ClimbingGame:
    """Trick state of a climbing game for ``players`` seats (seat order = play order, G-2).

    ``hands[seat]`` is a sorted card list; ``turn`` the seat to act; ``lead`` the play to
    beat in the current trick as ``[seat, cards, reading]`` (``None`` when the turn player
    leads); ``passes`` counts passes since that play; ``out`` is the finishing order;
    ``played`` marks seats that have played a card; ``log`` holds every accepted move as
    ``[seat, cards]`` (``[]`` = pass) and ``kinds`` beside it the reading kind each play
    took (``None`` for a pass), so a replay reads every play as it was read (G-5); ``phase`` is ``"play"`` once cards may be played;
    ``result`` is set when the game is over.
    """

    players: int
    hands: list[list[int]]
    turn: int
    lead: list | None = None
    passes: int = 0
    out: list[int] = field(default_factory=list)
    played: list[bool] = field(default_factory=list)
    log: list[list] = field(default_factory=list)
    kinds: list[str | None] = field(default_factory=list)
    phase: str = "play"
    result: dict | None = None

    # ---- what a game supplies ----------------------------------------------------------
    @property
    def vocabulary(self) -> Vocabulary:
        """The game's hand-type names (G-5): what a play may name and how types are shown."""
        return COMMON

    def classify(self, cards: Sequence[int]) -> list[Reading]:
        """Every legal reading of ``cards`` under this game's rules (G-5)."""
        raise NotImplementedError

    def beats(self, new: Reading, old: Reading) -> bool:
        """Whether ``new`` beats ``old`` under this game's rules."""
        raise NotImplementedError

    def protected(self) -> Sequence[int]:
        """Cards a rank-only play takes last (G-1: never reveal a spy card)."""
        return ()

    def lead_readings(self, readings: list[Reading]) -> list[Reading]:
        """The readings a lead may take (e.g. S-3.4: never a bomb)."""
        return readings

    def check_play(self, seat: int, cards: Sequence[int], reading: Reading) -> None:
        """Extra rules on an otherwise legal play; raise :class:`MoveError` to refuse."""

    def check_pass(self, seat: int) -> None:
        """Extra rules on passing (e.g. S-4 must block); raise :class:`MoveError` to refuse."""

    def report(self, seat: int, left: int) -> int | None:
        """The card count to announce after ``seat`` played and kept ``left`` cards."""
        return None

    def on_out(self, seat: int) -> bool:
        """``seat`` just went out; finish the game and return ``True`` if it is over."""
        raise NotImplementedError

    def not_playing_reason(self) -> str:
        """Why moves are refused before the play phase."""
        return "还没开始出牌"

    game: ClassVar[str] = ""
    """Which game a saved state is (``"zhuatewu"`` / ``"wakeng"`` / ``"shoubayi"``): the
    ``"game"`` field of :meth:`base_json`, read back by ``ai.search.game_from_json``."""

    # ---- what a game tells every player's reasoning (the computer player, 记牌器) ------
    pass_may_be_refused: ClassVar[bool] = False
    """:meth:`check_pass` may refuse a pass (S-4 把一必拦); otherwise a seat following
    may always pass (G-3)."""

    public_bids: ClassVar[bool] = False
    """The hands were bid on in public before play (叫分, W-2): ``first``, ``bids`` and
    ``digger`` say who bid what."""

    def deck(self) -> tuple[int, ...]:
        """Every card the game is played with (G-1): 54, or 52 when the rules have no
        jokers (W-1; 手把一 by its setting, S-1)."""
        return DECK_54 if self.rules.deck_jokers else DECK_52  # type: ignore[attr-defined]

    def teams(self) -> list[int]:
        """Each seat's side in a fully known deal: seats with the same number play
        together. Default: everyone for themselves (S-5)."""
        return list(range(self.players))

    def sides_known_to(self, seat: int) -> tuple[frozenset[int], frozenset[int]]:
        """``(partners, opponents)`` as ``seat`` knows them from its hand and the public
        record (G-6). Default: every other seat is an opponent (S-5)."""
        return frozenset(), frozenset(set(range(self.players)) - {seat})

    def open_seats(self) -> list[int]:
        """Seats playing with the hand shown to everyone (明牌, Z-9). Default: none."""
        return []

    def out_of_play_seen(self, seat: int) -> list[int]:
        """Cards out of play (in no hand, never played) that ``seat`` has seen: the
        digger's buried cards (W-3). Default: none (S-1: cards set aside are unseen)."""
        return []

    def seen_beyond_plays(self, seat: int) -> set[int]:
        """Cards ``seat`` has seen besides its own hand and the plays (G-6): at least
        :meth:`out_of_play_seen`; may include cards of its own hand or played ones (the
        caller removes those)."""
        return set(self.out_of_play_seen(seat))

    def known_holders(self, seat: int) -> tuple[list[int], frozenset[int]]:
        """``(seats, cards)``: every player knows that each of ``seats`` (never ``seat``)
        still holds one of ``cards`` (Z-9: a declared spy that has not played a spy card).
        Default: nothing known."""
        return [], frozenset()

    def card_places(self, seat: int) -> dict[int, frozenset[int]]:
        """What ``seat`` knows of where single cards are: ``{card: seats}``, the card is in
        the hand of one of ``seats`` (never ``seat``) if it is in no hand it holds and was
        not played. Cards not listed may be anywhere ``seat`` has not seen (G-6). Default:
        nothing known (抓特务's tribute exchanges tell, Z-8)."""
        return {}

    def refill_out_of_play(self, data: dict, seat: int, cards: list[int]) -> None:
        """Put ``cards`` (sorted, in no hand and never played) into the places out of play
        that ``seat`` has not seen, in ``data`` (this game's ``to_json`` for a sampled
        deal): a farmer's view of the buried cards (W-3), the cards set aside (S-1).
        Default: there are none."""

    def settle_sides(self) -> None:
        """Set each seat's side from the cards it holds or played (Z-2), after the hands
        were dealt anew for a sample. Default: sides do not depend on cards."""

    # ---- queries -----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True once the game has a result."""
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
        return reading_of_json(self.lead[2]) if self.lead else None

    # ---- moves ---------------------------------------------------------------------------
    def parse_text(self, text: str) -> tuple[list[CardSpec], TypeName | None]:
        """Read a play's text (G-1 notation, optional trailing type name, G-5) without
        reading any hand. Raises :class:`MoveError` (``no_type`` for another game's type
        name, ``notation`` naming the bad part, ``not_held`` for a card written twice)
        whose reason depends on the text alone (G-4)."""
        try:
            body, hint = self.vocabulary.split(text)
        except ReadingError as err:
            raise MoveError("no_type", str(err)) from None
        try:
            specs = parse_cards(body)
        except ValueError as err:
            raise MoveError("notation", str(err)) from None
        try:
            check_deck(specs)
        except CardWrittenTwice as err:
            raise MoveError("not_held", str(err)) from None
        except NotationError as err:
            raise MoveError("notation", str(err)) from None
        return specs, hint

    def parse_play(self, seat: int, text: str) -> tuple[list[int], TypeName | None]:
        """Read a play's text (:meth:`parse_text`) into the concrete cards of ``seat``'s
        hand; unnamed suits avoid :meth:`protected` cards while another card of that rank
        is left (G-1).

        Returns ``(cards, kind_hint)``. Raises :class:`MoveError` (``notation`` /
        ``not_held``, naming the bad part; every card the hand lacks) without changing
        anything.
        """
        specs, hint = self.parse_text(text)
        try:
            cards = resolve(specs, self.hands[seat], protected=self.protected())
        except CardsNotHeld as err:  # the hand lacks them: told to the player alone (G-4)
            raise hand_error("not_held", str(err)) from None
        return cards, hint

    def judge(self, cards: Sequence[int], kind_hint: Hint = None) -> Reading:
        """The reading ``cards`` take now, judged from the cards and the table alone (G-4,
        G-5): a legal type (the one named, when named), one a lead may take, beating the
        play on the table. Raises :class:`MoveError` (``no_type``, ``not_beat``)."""
        readings = self.classify(cards)
        to_beat = self.lead_reading()
        try:
            if to_beat is None:
                return choose_lead(self.lead_readings(readings), kind_hint, self.vocabulary)
            return choose_follow(readings, to_beat, self.beats, kind_hint, self.vocabulary)
        except ReadingError as err:
            code = "not_beat" if to_beat is not None and readings else "no_type"
            raise MoveError(code, self.type_reason(cards, readings, str(err))) from None

    def type_reason(self, cards: Sequence[int], readings: list[Reading], reason: str) -> str:
        """The reason a play's type was refused, as the player reads it: cards of no
        legal type are named in the order typed (``77889 不是合法牌型``) with the rule
        of the nearest type (:meth:`shape_rule`, e.g. S-3 ``三张必须带一张牌``)."""
        if readings:
            return reason
        shown = "".join(RANK_NAMES[rank_of(c)] for c in cards)  # as typed
        rule = self.shape_rule(cards)
        return f"{shown} 不是合法牌型" + (f"：{rule}" if rule else "")

    def shape_rule(self, cards: Sequence[int]) -> str | None:
        """The game's rule that the shape of ``cards`` (of no legal type) breaks, in a
        few words, or ``None``."""
        return None

    def check_turn(self, seat: int) -> None:
        """Raise :class:`MoveError` (``over``, ``not_playing``, ``not_turn``) unless it is
        ``seat``'s turn to play."""
        if self.over:
            raise MoveError("over", "这局已经结束了")
        if self.phase != "play":
            raise MoveError("not_playing", self.not_playing_reason())
        if seat != self.turn:
            raise MoveError("not_turn", "还没轮到你")

    def play(self, seat: int, cards: Sequence[int], kind_hint: Hint = None) -> Move:
        """``seat`` plays ``cards`` (card ids from their hand): a lead takes any legal
        reading, a follow must beat the play on the table (G-3, G-5).

        Raises :class:`MoveError` — ``over``, ``not_playing``, ``not_turn``, ``no_type``
        (no legal reading, or several types when leading), ``not_beat``, ``not_held``, or
        a game's own code — and then the state is unchanged. Everything the cards and the
        table show is judged before the hand (G-4).
        """
        self.check_turn(seat)
        cards = list(cards)
        hand = self.hands[seat]
        if len(set(cards)) != len(cards):
            raise MoveError("not_held", "同一张牌出了两次")
        reading = self.judge(cards, kind_hint)  # public first (G-4)
        if not set(cards) <= set(hand):
            raise hand_error("not_held", "你的手牌里没有这些牌")
        self.check_play(seat, cards, reading)
        return self.place_play(seat, cards, reading)

    def play_reading(self, seat: int, cards: Sequence[int], reading: Reading) -> Move:
        """The trusted path: ``seat`` plays ``cards`` as ``reading``, a play taken from
        the legal-move generator (:mod:`paizhuo_engine.moves`, with :func:`~paizhuo_engine.moves.cards_for`)
        whose reading is therefore known — the cards are not classified again and the
        meant reading is kept (G-5).

        The caller vouches that ``reading`` is a reading of ``cards``; everything else is
        still checked: the turn, that the seat holds the cards, that a lead may take the
        reading (e.g. S-3.4: no bomb) and a follow beats the play on the table (G-3), and
        the game's :meth:`check_play`. Raises :class:`MoveError` as :meth:`play` does,
        and then the state is unchanged.
        """
        self.check_turn(seat)
        cards = list(cards)
        chosen = set(cards)
        if len(chosen) != len(cards) or not chosen.issubset(self.hands[seat]):
            raise MoveError("not_held", "你的手牌里没有这些牌")
        to_beat = self.lead_reading()
        if to_beat is None:
            if not self.lead_readings([reading]):
                raise MoveError("no_type", "这手牌不能首出")
        elif not self.beats(reading, to_beat):
            raise MoveError("not_beat", "没有大过上家")
        self.check_play(seat, cards, reading)
        return self.place_play(seat, cards, reading)

    def place_play(self, seat: int, cards: Sequence[int], reading: Reading) -> Move:
        """Put an accepted play on the table (after every check): take the cards from the
        hand, record the trick and the log, finish the player or pass the turn on (G-3).
        Games that track more per play (S-4 包赔) extend this."""
        gone = set(cards)
        left = [c for c in self.hands[seat] if c not in gone]
        self.hands[seat] = left
        self.played[seat] = True
        ordered = sorted(cards)
        self.lead = [seat, ordered, reading.to_json()]
        self.passes = 0
        self.log.append([seat, list(ordered)])
        self.kinds.append(reading.kind)
        move = Move(seat=seat, cards=list(ordered), reading=reading)
        if not left:
            self.out.append(seat)
            move.place = len(self.out)
            if self.on_out(seat):
                self.lead = None
                self.passes = 0
                move.over = True
                return move
        else:
            move.report = self.report(seat, len(left))
        self.turn = self.next_active(seat)
        move.next_seat = self.turn
        return move

    def play_text(self, seat: int, text: str) -> Move:
        """A typed play, judged in the order of G-4: the turn, then what the text alone
        shows (notation, type, beating the table, checked on :func:`stand_ins` of the
        text), and only then the hand (every card it lacks, the game's hand rules).
        So the public part of a refusal is the same whatever the player holds."""
        self.check_turn(seat)
        specs, hint = self.parse_text(text)
        self.judge(stand_ins(specs), hint)
        cards, hint = self.parse_play(seat, text)
        return self.play(seat, cards, hint)

    def pass_turn(self, seat: int) -> Move:
        """``seat`` passes (过/不要), G-3: never when leading. When every other active
        player has passed in a row, the last play wins the trick; if its player is out,
        the lead goes to their 下家 (接风).

        Raises :class:`MoveError` (``over``, ``not_playing``, ``not_turn``, ``must_lead``,
        or a game's own code from :meth:`check_pass`).
        """
        self.check_turn(seat)
        if self.lead is None:
            raise MoveError("must_lead", "你是首出，不能过，请出牌")
        self.check_pass(seat)
        self.passes += 1
        self.log.append([seat, []])
        self.kinds.append(None)
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

    # ---- persistence ---------------------------------------------------------------------
    def base_json(self) -> dict[str, Any]:
        """The shared fields as plain JSON-able data, with ``"game"`` naming the game."""
        return {
            "game": self.game, "players": self.players, "hands": [list(h) for h in self.hands],
            "turn": self.turn,
            "lead": self.lead, "passes": self.passes, "out": list(self.out),
            "played": list(self.played), "log": [list(e) for e in self.log],
            "kinds": list(self.kinds), "phase": self.phase, "result": self.result,
        }

    @staticmethod
    def base_fields(data: dict) -> dict[str, Any]:
        """Constructor keywords of the shared fields from :meth:`base_json` data (a state
        saved before ``kinds`` existed gets ``None`` for each earlier move)."""
        log = [list(e) for e in data["log"]]
        kinds = list(data.get("kinds") or [])
        kinds = [None] * (len(log) - len(kinds)) + kinds
        return {
            "players": int(data["players"]), "hands": [list(h) for h in data["hands"]],
            "turn": int(data["turn"]), "lead": data["lead"], "passes": int(data["passes"]),
            "out": list(data["out"]), "played": list(data["played"]),
            "log": log, "kinds": kinds, "phase": str(data["phase"]),
            "result": data["result"],
        }

    # ---- the game as dealt (复盘) --------------------------------------------------------
    def as_dealt(self) -> tuple[dict, list[list]]:
        """The game as dealt, to replay it: ``(state, events)`` — the JSON state right
        after the deal and the decisions taken before the first play, in order, as replay
        events (``["return", seat, cards]`` 还贡, ``["declare", seat, choice]`` 明暗,
        ``["ready", seat]`` a civilian's answer to the declare question,
        ``["bid", seat, amount]`` 叫分, ``["bury", seat, cards]`` 扣底). Applying them and
        then every move of ``log`` to ``from_json(state)`` gives back this game. Each game
        supplies it (its own pre-play phases); raises ``NotImplementedError`` otherwise."""
        raise NotImplementedError(f"{type(self).__name__} cannot be replayed")

    def hands_before_play(self) -> list[list[int]]:
        """Each seat's hand before the first play: what it holds now plus what it played
        (sorted card ids)."""
        played: list[list[int]] = [[] for _ in range(self.players)]
        for seat, cards in self.log:
            played[seat] += cards
        return [sorted(h + p) for h, p in zip(self.hands, played, strict=True)]

    def json_before_play(self) -> dict:
        """:meth:`to_json` with the trick fields as before the first play (no lead, no
        passes, nobody out or played, empty log, no result); the hands are left as they
        are."""
        state = self.to_json()  # type: ignore[attr-defined]
        state.update(lead=None, passes=0, out=[], played=[False] * self.players, log=[],
                     kinds=[], result=None)
        return state
