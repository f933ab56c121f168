"""What passes and bids say about the hidden hands (困难's sampling, RULES.md G-6).

A seat that passed on a single (pair, triple) it could have beaten with a loose card of
its hand — not a top card, not breaking a set — most likely did not hold one; against a
player about to go out (1–2 cards) a seat beats with anything it can. A 挖坑 bid (叫分,
W-2) says roughly how strong the bidder's hand was. :class:`Evidence` reads these facts
from the public log and bids only (plus the seat's own hand: nothing else), and
:meth:`Evidence.weight` scores a guess at the other hands by how well it explains them:
a product of factors in (0, 1], 1 when nothing speaks against it. 困难 keeps a sampled
deal with that probability (:func:`paizhuo_engine.ai.search.sample_world`), so samples that fit
the table's behaviour are the ones played out.

A pass may be a choice (a partner's trick, keeping a hand together), so a pass never
rules a holding out — it makes it less likely (:data:`PASS_FACTOR`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards import cards_of_rank, rank_of
from .plan import shape_of

PASS_FACTOR = 0.3
"""Likelihood of passing while holding a loose card (or set) that beats the table."""

URGENT_PASS_FACTOR = 0.1
"""The same when the player of the table was about to go out (1–2 cards left)."""

BID_FACTOR = 0.4
"""Likelihood of a 挖坑 bid other than the one the hand (as guessed) is worth."""

SET_KINDS = {"single": 1, "pair": 2, "triple": 3}


@dataclass(frozen=True, slots=True)
class PassFact:
    """``seat`` passed on a set of ``width`` cards of key ``key``; ``later`` counts the
    cards of each rank it played after that (so its hand then = now + later);
    ``urgent``: the table's player held 1–2 cards."""

    seat: int
    width: int
    key: int
    later: tuple[int, ...]
    urgent: bool


@dataclass(frozen=True, slots=True)
class BidFact:
    """``seat`` bid ``bid`` (0 = 不叫) with ``options`` open; ``played`` counts the cards
    of each rank it has played since (its hand at the bid ≈ now + played); ``digger``:
    it became the digger (its hand also changed with the bottom)."""

    seat: int
    bid: int
    options: tuple[int, ...]
    played: tuple[int, ...]
    digger: bool


def _counts(cards: Any) -> list[int]:
    out = [0] * 15
    for c in cards:
        out[rank_of(c)] += 1
    return out


class Evidence:
    """The public facts about the hands of the seats other than ``seat`` in ``game`` (a
    climbing game in its play phase), read from the log and the bids only."""

    def __init__(self, game: Any, seat: int) -> None:
        self.weight_of_rank = shape_of(game.rules).weight
        order = sorted(range(15), key=lambda r: self.weight_of_rank[r])
        self.top = frozenset(order[-2:])
        self.passes: list[PassFact] = []
        self.bids: list[BidFact] = []
        self._read_passes(game, seat)
        if game.public_bids:
            self._read_bids(game, seat)

    def _read_passes(self, game: Any, seat: int) -> None:
        players = game.players
        log = game.log
        kinds = list(getattr(game, "kinds", None) or [None] * len(log))
        left = [len(h) for h in game.hands]
        for s, cards in log:
            left[s] += len(cards)
        later = [[0] * 15 for _ in range(players)]
        raw: list[tuple[int, int, int, int, int]] = []  # (index, seat, width, key, urgent)
        lead: tuple[int, str | None, list[int]] | None = None
        passes = 0
        for i, (s, cards) in enumerate(log):
            if cards:
                lead = (s, kinds[i], cards)
                left[s] -= len(cards)
                passes = 0
                continue
            if lead is None:
                continue
            owner, kind, lead_cards = lead
            width = SET_KINDS.get(kind or "")
            if width and len(lead_cards) == width and s != seat:
                key = self.weight_of_rank[rank_of(lead_cards[0])]
                raw.append((i, s, width, key, int(0 < left[owner] <= 2)))
            passes += 1
            needed = sum(1 for t in range(players) if left[t] and t != owner)
            if passes >= needed:
                lead, passes = None, 0
        # Cards each seat played after each pass: walk the log backwards.
        marks = {i for i, *_ in raw}
        after: dict[int, tuple[int, ...]] = {}
        for i in range(len(log) - 1, -1, -1):
            if i in marks:
                after[i] = tuple(later[log[i][0]])
            s, cards = log[i]
            for c in cards:
                later[s][rank_of(c)] += 1
        self.passes = [PassFact(s, w, k, after[i], bool(u)) for i, s, w, k, u in raw]

    def _read_bids(self, game: Any, seat: int) -> None:
        if game.first is None:
            return
        played = [[0] * 15 for _ in range(game.players)]
        for s, cards in game.log:
            for c in cards:
                played[s][rank_of(c)] += 1
        high = 0
        for step in range(game.players):
            s = (game.first + step) % game.players
            bid = game.bids[s] if s < len(game.bids) else None
            if bid is None:
                continue
            options = (0,) + tuple(b for b in (1, 2, 3) if b > high)
            if s != seat:
                self.bids.append(BidFact(s, int(bid), options, tuple(played[s]),
                                         s == game.digger))
            high = max(high, bid or 0)

    def empty(self) -> bool:
        """Nothing to weigh."""
        return not self.passes and not self.bids

    def weight(self, hands: dict[int, list[int]], rules: Any) -> float:
        """How well the guessed ``hands`` (seat → card ids, the seats other than this
        one whose cards are hidden) explain the passes and bids: a product of factors in
        (0, 1]."""
        w = 1.0
        counts = {s: _counts(h) for s, h in hands.items()}
        weight = self.weight_of_rank
        for fact in self.passes:
            now = counts.get(fact.seat)
            if now is None:
                continue
            for r in range(15):
                n = now[r] + fact.later[r]
                if weight[r] <= fact.key or n < fact.width:
                    continue
                if fact.urgent or (n == fact.width and r not in self.top):
                    w *= URGENT_PASS_FACTOR if fact.urgent else PASS_FACTOR
                    break
        if self.bids:
            from .decisions import choose_bid

            for bid in self.bids:
                now = counts.get(bid.seat)
                if now is None:
                    continue
                cards = [c for r in range(15)
                         for c in cards_of_rank(r)[:now[r] + bid.played[r]]]
                want = choose_bid(cards, bid.options, rules.shaanxi)
                fits = want >= bid.bid if bid.digger else want == bid.bid
                if not fits:
                    w *= BID_FACTOR
        return w
