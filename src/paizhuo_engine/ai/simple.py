"""Moves the bot makes for a player who ran out of time or is in 托管 (auto-play).

A strategy is any object with ``choose(game, seat) -> Action``; the chat layer asks the
game's strategy and applies the action through the game's normal move functions, so a
smarter player can replace :class:`LowestStrategy` without touching anything else.

A strategy that searches should take its candidate plays from :mod:`paizhuo_engine.moves`
(every legal lead / follow of every game, each with its reading; cheapest first on
demand) and may apply them with ``game.play_reading`` so the reading is kept (G-5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..cards import rank_of
from ..errors import MoveError
from ..readings import Reading


@dataclass(frozen=True, slots=True)
class Action:
    """``kind`` ``"play"`` with ``cards`` (card ids), or ``"pass"``; ``reading`` the
    reading the play is meant as when it came from the move generator (applied through
    the trusted path, G-5), else ``None`` (the game reads the cards)."""

    kind: str
    cards: tuple[int, ...] = ()
    reading: Reading | None = None


PASS = Action("pass")


class Strategy(Protocol):
    """Chooses a legal action for ``seat`` in ``game`` (whose turn it is)."""

    def choose(self, game: Any, seat: int) -> Action:
        """The action to take; must be legal for the game."""
        ...


def forced_follow(game: Any, seat: int) -> Action | None:
    """When the game refuses a pass (S-4 把一必拦: a play that beats the table must be
    made), the cheapest legal follow; ``None`` when passing is allowed."""
    try:
        game.check_pass(seat)
        return None
    except MoveError:
        pass
    from ..moves import any_beating, cards_for

    play = any_beating(game.hands[seat], game.rules, game.lead_reading())
    if play is None:
        return None
    return Action("play", tuple(cards_for(play, game.hands[seat], game.protected())), play[1])


class LowestStrategy:
    """The default auto-play of every climbing game: pass when following; when leading
    (G-3: a leader must play), the single card lowest by the game's ranking, a protected
    card (a spy card, G-1) only when nothing else is left."""

    def choose(self, game: Any, seat: int) -> Action:
        """``game`` is a :class:`~paizhuo_engine.climbing.ClimbingGame` whose ``rules`` have
        ``rank_order()``. Raises ``ValueError`` if ``seat`` has no cards."""
        if game.lead is not None:
            return forced_follow(game, seat) or PASS
        hand = game.hands[seat]
        if not hand:
            raise ValueError("no cards to lead")
        weight = game.rules.rank_order()
        guard = set(game.protected())
        ordered = sorted(hand, key=lambda c: (c in guard, weight[rank_of(c)], -(c % 4)))
        for low in ordered:
            # A game may refuse a single (S-3: never keep a lone joker): take the next.
            try:
                game.check_play(seat, [low], game.classify([low])[0])
            except MoveError:
                continue
            return Action("play", (low,))
        # No single may lead (e.g. 小王 大王 left in 手把一): the cheapest legal lead.
        from ..moves import cards_for, iter_plays

        play = next(p for p in iter_plays(hand, game.rules) if not p[1].bomb)
        return Action("play", tuple(cards_for(play, hand, game.protected())), play[1])


class FollowingStrategy(LowestStrategy):
    """托管 auto-play: like :class:`LowestStrategy`, but when following a single, pair,
    triple or four it beats with the lowest set of one rank that can (a protected card
    last); it passes on chains and combinations."""

    def choose(self, game: Any, seat: int) -> Action:
        """``game`` as for :class:`LowestStrategy`."""
        to_beat = game.lead_reading()
        if to_beat is None or to_beat.kind not in ("single", "pair", "triple", "four"):
            return LowestStrategy.choose(self, game, seat)
        weight = game.rules.rank_order()
        guard = set(game.protected())
        groups: dict[int, list[int]] = {}
        for c in sorted(game.hands[seat], key=lambda c: (c in guard, -(c % 4))):
            groups.setdefault(rank_of(c), []).append(c)
        forced = forced_follow(game, seat)
        if forced is not None:
            return forced
        for rank in sorted(groups, key=lambda r: weight[r]):
            cards = groups[rank][: to_beat.size]
            if len(cards) < to_beat.size:
                continue
            if any(game.beats(r, to_beat) and not r.bomb for r in game.classify(cards)):
                try:
                    game.check_play(seat, cards, to_beat)
                except Exception:  # noqa: BLE001 - a game's own refusal (e.g. lone joker)
                    continue
                return Action("play", tuple(cards))
        return PASS
