"""Exact legal-move generation for every game — the one interface (RULES.md G-3, G-5;
抓特务 Z-3/Z-4, 挖坑 W-4/W-7, 手把一 S-2/S-3).

Shapes
------
* A *hand* is either card ids (any iterable of ``int`` 0..53, G-1) or a *packed* rank
  multiset (``int``, see :mod:`paizhuo_engine.movegen`: 3 bits per natural rank,
  :func:`~paizhuo_engine.movegen.pack_cards` makes one). Suits never change what a play is.
* *rules* is the game's rule object — :class:`~paizhuo_engine.zhuatewu.rules.ZRules`,
  :class:`~paizhuo_engine.wakeng.rules.WRules` or :class:`~paizhuo_engine.shoubayi.rules.SRules` — and
  selects the game and every setting (连牌规则, 连对最少, 带3, 大小王成对, 挖坑规则 …).
* A *play* is a plain tuple ``(packed, reading)`` (:data:`~paizhuo_engine.movegen.Play`): the
  rank multiset taken from the hand and the :class:`~paizhuo_engine.readings.Reading` it is
  played as (``kind``, ``size``, ``key``, ``bomb``). A multiset with several readings
  (G-5) gives one play per reading, so the meant type is never lost: apply a play with
  :meth:`~paizhuo_engine.climbing.ClimbingGame.play_reading` (it does not classify again), after
  picking its concrete cards with :func:`cards_for`.

Exactness
---------
:func:`legal_leads` is every ``(multiset, reading)`` the game's own classifier accepts
for a sub-multiset of the hand that may lead (手把一: never a bomb, S-3.4; never keeping a
lone joker, S-3); :func:`legal_follows` is every one whose reading beats ``to_beat`` by
the game's comparison (bombs included where the game has them). No play is missing,
none is extra, none appears twice (property tests against brute force:
``tests/engine/test_moves.py``).

Cheapest first
--------------
:func:`iter_plays` with ``cheapest_first=True`` yields lazily: leading — fewer cards
first, then by type (:data:`~paizhuo_engine.movegen.KIND_ORDER`), then ascending key, then the
cheapest kickers; following — the same type by ascending key, then bombs by ascending
key. So "the lowest single" and "is there any play that beats X" (:func:`any_beating`)
stop at the first play instead of enumerating everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from .movegen import BITS, Play, pack_cards
from .movegen import MoveGenerator as MoveGenerator
from .readings import Reading
from .shoubayi.moves import SMoves
from .shoubayi.rules import SRules
from .wakeng.moves import WMoves
from .wakeng.rules import WRules
from .zhuatewu.moves import ZMoves
from .zhuatewu.rules import ZRules

Hand = int | Iterable[int]
"""Card ids (G-1) or a packed rank multiset."""


GENERATORS: dict[type, type[MoveGenerator]] = {ZRules: ZMoves, WRules: WMoves, SRules: SMoves}
"""Each game's rule class → its one move generator (``paizhuo_engine.<game>.moves``)."""


@lru_cache(maxsize=64)
def generator(rules: Any) -> MoveGenerator:
    """The generator of the game ``rules`` belongs to, under those settings (cached;
    rule objects are frozen). Raises ``TypeError`` for an unknown rule object."""
    for cls in type(rules).__mro__:
        if cls in GENERATORS:
            return GENERATORS[cls](rules)
    raise TypeError(f"no move generator for {type(rules).__name__}")


def _packed(hand: Hand) -> int:
    return hand if isinstance(hand, int) else pack_cards(hand)


def legal_leads(hand: Hand, rules: Any) -> list[Play]:
    """Every legal lead of ``hand`` (G-3: a leader plays any legal hand type of the
    game), each once, in no particular order. ``[]`` for an empty hand."""
    return generator(rules).leads(_packed(hand))


def legal_follows(hand: Hand, rules: Any, to_beat: Reading) -> list[Play]:
    """Every legal play of ``hand`` that beats ``to_beat`` (G-3; Z-4, W-4, S-3), each
    once: same type and size with a higher key, and bombs where the game has them."""
    return generator(rules).follows(_packed(hand), to_beat)


def legal_plays(hand: Hand, rules: Any, to_beat: Reading | None = None) -> list[Play]:
    """:func:`legal_leads` when ``to_beat`` is ``None``, else :func:`legal_follows`."""
    gen = generator(rules)
    packed = _packed(hand)
    return gen.leads(packed) if to_beat is None else gen.follows(packed, to_beat)


def iter_plays(hand: Hand, rules: Any, to_beat: Reading | None = None,
               cheapest_first: bool = True) -> Iterator[Play]:
    """The plays of :func:`legal_plays`, lazily. With ``cheapest_first`` (the default)
    in the order described in the module doc, computing only as much as is consumed;
    otherwise in the eager order."""
    gen = generator(rules)
    packed = _packed(hand)
    if to_beat is None:
        return gen.iter_leads(packed) if cheapest_first else iter(gen.leads(packed))
    return gen.iter_follows(packed, to_beat, lazy=cheapest_first)


def any_beating(hand: Hand, rules: Any, to_beat: Reading) -> Play | None:
    """The cheapest play of ``hand`` that beats ``to_beat`` (the lowest of its type,
    else the lowest bomb), or ``None`` when there is none — without enumerating."""
    return next(generator(rules).iter_follows(_packed(hand), to_beat), None)


def lowest_single(hand: Hand, rules: Any) -> Play | None:
    """The lowest single the hand may play by the game's ranking (Z-3, W-4/W-7, S-2;
    手把一: not one that would keep a lone joker, S-3), ``None`` if none may."""
    for play in generator(rules).iter_leads(_packed(hand)):
        return play if play[1].kind == "single" else None
    return None


def turn_plays(game: Any, cheapest_first: bool = False) -> list[Play]:
    """Every legal play of the seat whose turn it is in ``game`` (a
    :class:`~paizhuo_engine.climbing.ClimbingGame` in its play phase): leads when it leads, else
    follows of the play on the table. Passing is not a play (G-3: always allowed when
    following, except where a game forbids it — S-4 把一必拦, see ``check_pass``)."""
    hand = game.hands[game.turn]
    to_beat = game.lead_reading()
    if cheapest_first:
        return list(iter_plays(hand, game.rules, to_beat))
    return legal_plays(hand, game.rules, to_beat)


def cards_for(play: Play | int, hand: Sequence[int], protected: Iterable[int] = ()) -> list[int]:
    """Concrete card ids of ``hand`` (sorted card ids) for a play (or a packed
    multiset), chosen as a rank-only ``出`` would choose them (G-1): never a
    ``protected`` card (a spy card, Z-2) while another card of that rank is left, else
    the lowest suit in ♦ ♣ ♥ ♠ order. Returns them ascending.

    Raises ``ValueError`` when the hand lacks the cards.
    """
    packed = play if isinstance(play, int) else play[0]
    need = [(packed >> (BITS * r)) & 7 for r in range(15)]
    guard = set(protected)
    out: list[int] = []
    later: list[int] = []
    for c in reversed(hand):  # within a rank: ♦ ♣ ♥ ♠
        r = c // 4 if c < 52 else c - 39
        if need[r]:
            if c in guard:
                later.append(c)
                continue
            need[r] -= 1
            out.append(c)
    for c in later:
        r = c // 4 if c < 52 else c - 39
        if need[r]:
            need[r] -= 1
            out.append(c)
    if any(need):
        raise ValueError("the hand does not hold the play")
    out.sort()
    return out
