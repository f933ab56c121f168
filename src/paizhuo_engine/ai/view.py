"""What one seat may know (RULES.md G-6), as the computer player's only input.

:func:`view_of` reads a game and keeps only what the seat in question may see: its own
hand and role, every public move (the log), each seat's card count (dealt counts and the
public moves give them; the table shows them), the play to beat, who is out, roles that
are public (a declared 抓特务 spy, a spy card played, the 挖坑 digger) and what the seat
itself knows of its side (Z-9: a spy is told nothing of the other spy). Never another
hand, a hidden spy, buried cards or the cards still unseen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import MoveError
from ..movegen import pack_cards
from ..readings import Reading


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge at its turn.

    * ``seat`` / ``players`` — the seat deciding and the table size;
    * ``rules`` — the game's rule object (selects the generator, engine.moves);
    * ``hand`` — the seat's own card ids, sorted;
    * ``counts`` — every seat's number of cards;
    * ``lead`` — ``(owner seat, reading)`` of the play to beat, ``None`` when leading;
    * ``seen`` — packed rank multiset of every card played so far (public);
    * ``partners`` / ``opponents`` — seats known to be on this seat's side / the other
      side (unknown seats are in neither);
    * ``out`` — seats that went out, in order;
    * ``may_pass`` — passing is allowed now (S-4 把一必拦 may forbid it);
    * ``next_seat`` — the next seat to act after this one;
    * ``single_watch`` — S-4 包赔 applies to singles played now (the next seat to act
      holds one card and the setting is on);
    * ``known_out`` — packed rank multiset of cards the seat knows are out of play (the
      挖坑 digger's buried cards, W-3);
    * ``played`` — seats that have made a play in this game (public; S-6 doubles the loss
      of a player who never played);
    * ``secret`` — the cards in the seat's hand whose play would show a role the table does
      not know: a hidden (暗) 抓特务 spy's spy cards, until it declares or plays one (Z-2,
      Z-9); empty otherwise.
    """

    seat: int
    players: int
    rules: Any
    hand: tuple[int, ...]
    counts: tuple[int, ...]
    lead: tuple[int, Reading] | None
    seen: int
    partners: frozenset[int]
    opponents: frozenset[int]
    out: tuple[int, ...]
    may_pass: bool
    next_seat: int
    single_watch: bool = False
    known_out: int = 0
    played: frozenset[int] = frozenset()
    secret: tuple[int, ...] = ()


def _secret(game: Any, seat: int) -> tuple[int, ...]:
    """The spy cards ``seat`` holds while its being a spy is hidden (Z-2, Z-9: it did not
    declare and has played no spy card); ``()`` in the games without spies."""
    spy_cards = set(getattr(game, "spy_cards", ()))
    if not spy_cards or seat in game.declared_spies():
        return ()
    if any(spy_cards.intersection(cards) for s, cards in game.log if s == seat):
        return ()
    return tuple(c for c in game.hands[seat] if c in spy_cards)


def view_of(game: Any, seat: int) -> View:
    """The :class:`View` of ``seat`` in a climbing game in its play phase (any of the
    three games). Reads only what the seat may know (G-6)."""
    partners, opponents = game.sides_known_to(seat)
    lead = None
    if game.lead is not None:
        lead = (game.lead[0], game.lead_reading())
    may_pass = True
    if game.lead is not None:
        try:
            game.check_pass(seat)
        except MoveError:
            may_pass = False
    seen = pack_cards(c for _s, cards in game.log for c in cards)
    next_seat = game.next_active(seat) if any(game.hands) else seat
    watch = game.rules.last_card_liability and len(game.hands[next_seat]) == 1 \
        and next_seat != seat
    known_out = pack_cards(game.out_of_play_seen(seat))
    played = frozenset(s for s, cards in game.log if cards)
    return View(seat=seat, players=game.players, rules=game.rules,
                hand=tuple(game.hands[seat]), counts=tuple(len(h) for h in game.hands),
                lead=lead, seen=seen, partners=partners, opponents=opponents,
                out=tuple(game.out), may_pass=may_pass, next_seat=next_seat,
                single_watch=watch, known_out=known_out, played=played,
                secret=_secret(game, seat))


# ---- 记牌器: what a seat has not seen --------------------------------------------------------


def deck_of(game: Any) -> tuple[int, ...]:
    """Every card the game is played with (G-1): 54 in 抓特务, 52 in 挖坑 (W-1), 54 or 52
    in 手把一 by its setting (S-1) — the game's :meth:`~paizhuo_engine.climbing.ClimbingGame.deck`."""
    return game.deck()


def played_cards(game: Any) -> set[int]:
    """Every card played so far (the public log)."""
    return {c for _seat, cards in game.log for c in cards}


def seen_elsewhere(game: Any, seat: int) -> set[int]:
    """Cards out of ``seat``'s hand and not played that ``seat`` has nevertheless seen
    (G-6): in 挖坑 the digger's buried cards (W-3; a farmer sees them only at the end);
    in 抓特务 the tribute cards ``seat`` gave or received and the cards returned for them
    (Z-8, told only to the two seats of each exchange), and the open hand of a 明牌 spy
    once declaring is over (Z-9, shown to the group). Never another hand, the bottom
    before the digger takes it, or cards set aside (S-1)."""
    seen = game.seen_beyond_plays(seat)
    return seen - set(game.hands[seat]) - played_cards(game)


def unseen_cards(game: Any, seat: int) -> list[int]:
    """记牌器: the cards ``seat`` has not seen, sorted — the game's deck less its own
    hand, every card played and :func:`seen_elsewhere`. What it returns depends only on
    what the seat knows: moving cards between the other hands (and the bottom or the
    cards set aside) never changes it, as long as the seat's own knowledge stays."""
    known = set(game.hands[seat]) | played_cards(game) | seen_elsewhere(game, seat)
    return sorted(c for c in deck_of(game) if c not in known)
