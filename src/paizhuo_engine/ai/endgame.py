"""Sure ways out (必胜出法) from what one seat knows (RULES.md G-6), for every game.

A *sure line* is a sequence of plays from the seat's hand — each one a play that no
combination of the unseen cards can beat (bombs included, RULES.md W-4 / S-3.4), held by
any single other seat (a play needs at most as many cards as that seat holds) — followed by
the rest of the hand as one legal play. Once the seat plays the first of them, every other
seat must pass each trick in turn, so the seat goes out whatever the hidden hands are.

The unseen cards are the deck minus the cards played and the seat's own hand and the cards
the seat knows are out of play (:attr:`~paizhuo_engine.ai.view.View.known_out`: the 挖坑 digger's
buried cards). Pooling them over every other seat only overstates what the others can do,
so a line found here is sound. Pure functions; the search is bounded (:data:`NODE_LIMIT`).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from ..movegen import UNIT, Play, pack_cards, pack_counts, unpack
from ..moves import generator
from ..readings import Reading
from .view import View

NODE_LIMIT = 1_500
"""Plays examined per search at most (each hand looked at costs its number of leads); a
line not found within it counts as none."""

NODE_COST = 8
"""What looking at one hand costs against :data:`NODE_LIMIT` besides its leads."""


def deck_counts(rules: Any) -> tuple[int, ...]:
    """How many cards of each natural rank the game's deck holds (``rules.deck_jokers``:
    W-1 no jokers in 挖坑; 手把一 with or without jokers, S-1)."""
    jokers = rules.deck_jokers
    return (4,) * 13 + (jokers, jokers)


def unseen_counts(view: View) -> list[int]:
    """Cards of each rank the seat has not seen: not played, not in its hand, not known
    to be out of play."""
    deck = deck_counts(view.rules)
    seen = unpack(view.seen + view.known_out)
    mine = unpack(pack_cards(view.hand))
    return [max(0, deck[r] - seen[r] - mine[r]) for r in range(15)]


_LONE_JOKERS = (UNIT[13], UNIT[14])


class Oracle:
    """Answers "can any other seat beat this play?" for one view, cached by reading."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.gen = generator(view.rules)
        counts = unseen_counts(view)
        self.unseen = pack_counts(counts)
        others = [view.counts[s] for s in range(view.players)
                  if s != view.seat and view.counts[s]]
        self.most = max(others, default=0)
        self.lone_joker = view.rules.lone_joker_refused
        self._cache: dict[int, tuple[Reading, bool]] = {}  # by id: readings are shared
        self._ucounts = ucounts = [(self.unseen >> (3 * r)) & 7 for r in range(15)]
        self.unseen_bomb = self.gen.has_bombs and any(
            p[1].size <= self.most
            for p in self.gen.bombs(self.unseen, sum(ucounts), ucounts, -99))
        """Some other seat may hold a bomb: then only a bomb can be sure."""

    def beatable(self, reading: Reading) -> bool:
        """Whether some other seat could hold a play that beats ``reading``."""
        hit = self._cache.get(id(reading))
        if hit is None:
            hit = self._cache[id(reading)] = (reading, self._beatable(reading))
        return hit[1]

    def _beatable(self, reading: Reading) -> bool:
        gen, unseen = self.gen, self.unseen
        counts = self._ucounts
        total = sum(counts)
        if not reading.bomb and reading.size <= min(self.most, total):
            same = gen.family(unseen, total, counts, reading.kind, reading.size, reading.key,
                              True)
            if next(iter(same), None) is not None:
                return True
        if gen.has_bombs and (self.unseen_bomb or reading.bomb):
            above = reading.key if reading.bomb else -99
            return any(p[1].size <= self.most for p in gen.bombs(unseen, total, counts, above))
        return False

    def rest_legal(self, rest: int) -> bool:
        """S-3: a hand is never left with one joker alone where the rules refuse it."""
        return not (self.lone_joker and rest in _LONE_JOKERS)


def _whole(gen: Any, hand: int) -> Play | None:
    """The hand as one legal lead (a bomb too), or ``None``."""
    counts = [(hand >> (3 * r)) & 7 for r in range(15)]
    total = sum(counts)
    for size, kind in gen.lead_families(total):
        if size != total:
            continue
        for p in gen.family(hand, total, counts, kind, size, -99, True):
            if p[0] == hand:
                return p
    if gen.has_bombs:
        for p in gen.bombs(hand, total, counts, -99):
            if p[0] == hand:
                return p
    return None


def _solve(oracle: Oracle, hand: int, memo: dict[int, list[Play] | None],
           budget: list[int]) -> list[Play] | None:
    """A sure line for leading with ``hand`` (see the module doc), or ``None``."""
    if hand in memo:
        return memo[hand]
    budget[0] -= NODE_COST
    if budget[0] < 0:
        return None
    whole = _whole(oracle.gen, hand)
    if whole is not None:
        memo[hand] = [whole]
        return memo[hand]
    if budget[0] < 0:
        return None
    cands = []
    gen = oracle.gen
    if oracle.unseen_bomb:
        counts = [(hand >> (3 * r)) & 7 for r in range(15)]
        source = [p for p in gen.bombs(hand, sum(counts), counts, -99)
                  if p in gen.leads(p[0])]  # S-3.4: a 手把一 bomb may not lead
    else:
        # Lazily and at most what the budget has left: a big hand has thousands of leads.
        source = islice(gen.iter_leads(hand), max(0, budget[0]))
    beatable, rest_legal = oracle.beatable, oracle.rest_legal
    n = 0
    for p in source:
        n += 1
        if beatable(p[1]) or not rest_legal(hand - p[0]):
            continue
        cands.append(p)
    budget[0] -= n
    cands.sort(key=lambda p: (-p[1].size, p[1].bomb))
    for p in cands:
        rest = _solve(oracle, hand - p[0], memo, budget)
        if rest is not None:
            memo[hand] = [p, *rest]
            return memo[hand]
        if budget[0] < 0:
            return None
    memo[hand] = None
    return None


def sure_line(view: View, limit: int = NODE_LIMIT) -> list[Play] | None:
    """A sure line for the seat of ``view`` starting with the move it makes now, or
    ``None`` when none is found. Leading: the line's plays in order. Following: the first
    play beats the table (or is the whole hand), the rest as when leading."""
    oracle = Oracle(view)
    gen = oracle.gen
    hand = pack_cards(view.hand)
    memo: dict[int, list[Play] | None] = {}
    budget = [limit]
    if view.lead is None:
        return _solve(oracle, hand, memo, budget)
    to_beat = view.lead[1]
    follows = list(islice(gen.iter_follows(hand, to_beat), limit))
    for p in follows:
        if p[0] == hand:
            return [p]
    budget[0] -= len(follows)
    follows.sort(key=lambda p: (p[1].bomb, -p[1].size, p[1].key))
    for p in follows:
        if oracle.beatable(p[1]) or not oracle.rest_legal(hand - p[0]):
            continue
        rest = _solve(oracle, hand - p[0], memo, budget)
        if rest is not None:
            return [p, *rest]
        if budget[0] < 0:
            return None
    return None


def starts_sure_line(view: View, play: Play | None) -> bool:
    """Whether making ``play`` now (``None`` = pass) keeps a sure line: it empties the
    hand, or no other seat can beat it and a sure line is left after it."""
    if play is None:
        return False
    oracle = Oracle(view)
    hand = pack_cards(view.hand)
    if play[0] == hand:
        return True
    if oracle.beatable(play[1]) or not oracle.rest_legal(hand - play[0]):
        return False
    return _solve(oracle, hand - play[0], {}, [NODE_LIMIT]) is not None


HEADSUP_CARDS = 12
"""Heads-up look-ahead runs when the two hands hold at most this many cards together."""

HEADSUP_LIMIT = 800
"""Positions the heads-up look-ahead examines at most."""


class _OutOfBudget(Exception):
    pass


def headsup_move(view: View, limit: int = HEADSUP_LIMIT) -> tuple[bool, Play | None]:
    """Two seats left, on opposite sides, and the other hand known exactly (every unseen
    card is in it): look ahead to the end. Returns ``(True, play)`` (``None`` = pass) for a
    move after which this seat goes out first however the other plays, ``(False, None)``
    when there is none or the look-ahead does not apply (then the heuristics decide)."""
    others = [s for s in range(view.players) if s != view.seat and view.counts[s]]
    if len(others) != 1 or others[0] in view.partners:
        return False, None
    rival = others[0]
    oracle = Oracle(view)
    counts = unseen_counts(view)
    if sum(counts) != view.counts[rival]:
        return False, None
    mine, theirs = pack_cards(view.hand), oracle.unseen
    if len(view.hand) + view.counts[rival] > HEADSUP_CARDS:
        return False, None
    gen = oracle.gen
    must_block = view.rules.must_block_last_card
    memo: dict[tuple[int, int, Reading | None], bool] = {}
    budget = [limit]

    def moves(hand: int, to_beat: Reading | None) -> list[Play]:
        plays = gen.leads(hand) if to_beat is None else gen.follows(hand, to_beat)
        return [p for p in plays if p[0] == hand or oracle.rest_legal(hand - p[0])]

    def wins(mover: int, other: int, to_beat: Reading | None) -> bool:
        """The player to move (holding ``mover``) goes out first."""
        key = (mover, other, to_beat)
        hit = memo.get(key)
        if hit is not None:
            return hit
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        plays = moves(mover, to_beat)
        result = any(p[0] == mover for p in plays)
        if not result:
            result = any(not wins(other, mover - p[0], p[1]) for p in plays)
        if not result and to_beat is not None:
            blocked = must_block and plays and _count(other) == 1
            if not blocked:
                result = not wins(other, mover, None)
        memo[key] = result
        return result

    to_beat = view.lead[1] if view.lead is not None else None
    try:
        plays = moves(mine, to_beat)
        for p in sorted(plays, key=lambda p: (p[0] != mine, p[1].bomb, -p[1].size)):
            if p[0] == mine or not wins(theirs, mine - p[0], p[1]):
                return True, p
        if to_beat is not None and view.may_pass and not wins(theirs, mine, None):
            return True, None
    except _OutOfBudget:
        pass
    return False, None


def _count(packed: int) -> int:
    return sum((packed >> (3 * r)) & 7 for r in range(15))
