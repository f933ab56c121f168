"""Cards and their notation (牌与记法), RULES.md G-1.

A card is an ``int`` in ``0..53``:

* ``0..51`` — ``rank * 4 + suit``; ``rank`` is the natural index ``0..12`` for
  ``3 4 5 6 7 8 9 10 J Q K A 2`` and ``suit`` is ``0..3`` for ♠ ♥ ♣ ♦.
* ``52`` — 小王 (small joker), ``53`` — 大王 (big joker).

The *natural rank* of a card (:func:`rank_of`) is ``0..12`` for the suited cards,
``13`` for 小王 and ``14`` for 大王. How ranks compare is decided by each game's rules;
this module only names and parses cards.

Input (:func:`parse_cards`) accepts every form of G-1: ranks ``3…10 J Q K A 2`` in any
case, ``T``/``0`` for 10, full-width characters and spaces anywhere, suits as ``♠♥♣♦``
(also ``♤♡♧♢``), ``黑桃 红桃 梅花 方块`` (also ``红心 草花 方片``) or ASCII ``s h c d``
written before the rank, and the jokers as ``小王``/``大王`` or the short forms
``小``/``大``. ``1`` alone is not a rank.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RANK_NAMES: tuple[str, ...] = (
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王",
)
SUIT_SYMBOLS: tuple[str, ...] = ("♠", "♥", "♣", "♦")
SUIT_NAMES: tuple[str, ...] = ("黑桃", "红桃", "梅花", "方块")

SMALL_JOKER = 52
BIG_JOKER = 53
DECK_54: tuple[int, ...] = tuple(range(54))
DECK_52: tuple[int, ...] = tuple(range(52))

# Natural rank indices, for readable rule code.
R3, R4, R5, R6, R7, R8, R9, R10, RJ, RQ, RK, RA, R2, RSJ, RBJ = range(15)
SPADE, HEART, CLUB, DIAMOND = range(4)


class NotationError(ValueError):
    """Text that is not valid card notation; ``str(err)`` is a short Chinese reason that
    names the bad part (G-1)."""


def card(rank: int, suit: int) -> int:
    """The card id of natural ``rank`` (0..12) and ``suit`` (0..3); jokers are 52/53."""
    return rank * 4 + suit


def rank_of(c: int) -> int:
    """Natural rank 0..14 of card ``c`` (13 = 小王, 14 = 大王)."""
    return c // 4 if c < 52 else c - 39


def suit_of(c: int) -> int | None:
    """Suit 0..3 (♠♥♣♦) of card ``c``, ``None`` for a joker."""
    return c % 4 if c < 52 else None


def cards_of_rank(rank: int) -> tuple[int, ...]:
    """All card ids of natural ``rank`` (four for 3..2, one for each joker)."""
    if rank >= 13:
        return (rank + 39,)
    return tuple(rank * 4 + s for s in range(4))


def card_name(c: int) -> str:
    """Display form of one card, e.g. ``♠A``, ``♥10``, ``小王``; :func:`parse_cards` reads it back."""
    if c >= 52:
        return RANK_NAMES[rank_of(c)]
    return SUIT_SYMBOLS[c % 4] + RANK_NAMES[c // 4]


def format_cards(cards: Iterable[int], order: Sequence[int] | None = None) -> str:
    """Cards grouped by rank in rank order (G-1), e.g. ``♠3♦3 ♥7 小王``.

    ``order`` maps natural rank (0..14) to a sort weight (a game's ranking); by default
    the natural order 3 … 2, 小王, 大王. Within a rank, suits go ♠ ♥ ♣ ♦. Groups are
    separated by one space; the result parses back to the same cards.
    """
    weight = order or range(15)
    groups: dict[int, list[int]] = {}
    for c in sorted(cards):
        groups.setdefault(rank_of(c), []).append(c)
    parts = ["".join(card_name(c) for c in groups[r]) for r in sorted(groups, key=lambda r: weight[r])]
    return " ".join(parts)


def format_sequence(cards: Sequence[int]) -> str:
    """Cards in the given order, adjacent cards of one rank written together, e.g.
    ``♠A ♥2 ♦3♣3`` (a chain shown from its low end); parses back to the same cards."""
    out: list[str] = []
    for i, c in enumerate(cards):
        if i and rank_of(c) != rank_of(cards[i - 1]):
            out.append(" ")
        out.append(card_name(c))
    return "".join(out)


def format_ranks(cards: Iterable[int], order: Sequence[int] | None = None) -> str:
    """Ranks only, grouped in rank order, e.g. ``33 777 小王`` (for public play summaries)."""
    weight = order or range(15)
    ranks = sorted((rank_of(c) for c in cards), key=lambda r: (weight[r], r))
    out: list[str] = []
    for i, r in enumerate(ranks):
        if i and r != ranks[i - 1]:
            out.append(" ")
        out.append(RANK_NAMES[r])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One parsed card: ``rank`` (natural 0..14) and ``suit`` (0..3) or ``None`` when the
    player named only the rank."""

    rank: int
    suit: int | None = None


_SUIT_WORDS: tuple[tuple[str, int], ...] = (
    ("黑桃", SPADE), ("红桃", HEART), ("红心", HEART), ("梅花", CLUB), ("草花", CLUB),
    ("方块", DIAMOND), ("方片", DIAMOND),
    ("♠", SPADE), ("♤", SPADE), ("♥", HEART), ("♡", HEART), ("♣", CLUB), ("♧", CLUB),
    ("♦", DIAMOND), ("♢", DIAMOND),
    ("s", SPADE), ("h", HEART), ("c", CLUB), ("d", DIAMOND),
)
_RANK_WORDS: tuple[tuple[str, int], ...] = (
    ("小王", RSJ), ("大王", RBJ), ("小", RSJ), ("大", RBJ),
    ("10", R10), ("t", R10), ("0", R10),
    ("3", R3), ("4", R4), ("5", R5), ("6", R6), ("7", R7), ("8", R8), ("9", R9),
    ("j", RJ), ("q", RQ), ("k", RK), ("a", RA), ("2", R2),
)


SEPARATORS = frozenset(",，、;；/|")
"""Characters players put between cards; ignored like spaces."""


def normalize_text(text: str) -> str:
    """NFKC-fold (full-width → ASCII), drop whitespace, separators (``, ， 、`` …), emoji
    variation selectors and zero-width characters, lower-case ASCII letters."""
    folded = unicodedata.normalize("NFKC", text)
    kept = [
        ch for ch in folded
        if not ch.isspace() and ch not in SEPARATORS
        and unicodedata.category(ch) not in ("Mn", "Cf", "Cc")
    ]
    return "".join(kept).lower()


def _match(text: str, i: int, words: tuple[tuple[str, int], ...]) -> tuple[str, int] | None:
    for word, value in words:
        if text.startswith(word, i):
            return word, value
    return None


def parse_cards(text: str) -> list[CardSpec]:
    """Parse a card list in G-1 notation.

    Returns one :class:`CardSpec` per card, in input order. Raises
    :class:`NotationError` naming the first bad part (e.g. ``"1" 不是牌点``) when the text
    is empty or holds anything that is not a card.
    """
    s = normalize_text(text)
    if not s:
        raise NotationError("没有写牌")
    out: list[CardSpec] = []
    i = 0
    while i < len(s):
        suit_hit = _match(s, i, _SUIT_WORDS)
        suit: int | None = None
        start = i
        if suit_hit is not None:
            # ASCII suit letters only count when a rank follows (so "d" alone is an error).
            nxt = _match(s, i + len(suit_hit[0]), _RANK_WORDS)
            if nxt is not None:
                suit = suit_hit[1]
                i += len(suit_hit[0])
            elif not suit_hit[0].isascii():
                raise NotationError(f"“{suit_hit[0]}”后面缺少牌点")
        rank_hit = _match(s, i, _RANK_WORDS)
        if rank_hit is None:
            bad = s[i]
            if bad == "1":
                raise NotationError("“1”不是牌点（10 写作 10、T 或 0）")
            raise NotationError(f"“{s[start:i + 1]}”不是牌")
        word, rank = rank_hit
        if suit is not None and rank >= 13:
            raise NotationError(f"“{s[start:i + len(word)]}”不是牌：王没有花色")
        out.append(CardSpec(rank, suit))
        i += len(word)
    return out


def scan_notation(text: str) -> tuple[int, str]:
    """How much of ``text`` is card notation (G-1), to tell a mistyped play from chat:
    the number of cards named and the characters that belong to no card (after
    :func:`normalize_text`; a suit word without a rank counts as notation). Never raises.
    """
    s = normalize_text(text)
    count, stray, i = 0, [], 0
    while i < len(s):
        suit_hit = _match(s, i, _SUIT_WORDS)
        if suit_hit is not None:
            rank_hit = _match(s, i + len(suit_hit[0]), _RANK_WORDS)
            if rank_hit is not None:
                count += 1
                i += len(suit_hit[0]) + len(rank_hit[0])
                continue
            if not suit_hit[0].isascii():
                i += len(suit_hit[0])
                continue
        rank_hit = _match(s, i, _RANK_WORDS)
        if rank_hit is not None:
            count += 1
            i += len(rank_hit[0])
            continue
        stray.append(s[i])
        i += 1
    return count, "".join(stray)


class CardsNotHeld(ValueError):
    """The named cards are not all in the hand; ``str(err)`` says which (Chinese)."""


class CardWrittenTwice(CardsNotHeld):
    """The same suited card was named twice — a fault of the text alone, not of the hand."""


def check_deck(specs: Sequence[CardSpec]) -> None:
    """Raise :class:`NotationError` when ``specs`` name a card that no single deck can
    give: the same suited card twice, or more cards of a rank than the deck holds (four,
    one joker each). A fault of the text alone, the same whatever the hand (G-4)."""
    named: set[int] = set()
    for sp in specs:
        if sp.suit is not None:
            c = card(sp.rank, sp.suit)
            if c in named:
                raise CardWrittenTwice(f"{card_name(c)} 写了两次")
            named.add(c)
    for rank in sorted({sp.rank for sp in specs}):
        count = sum(1 for sp in specs if sp.rank == rank)
        if count > len(cards_of_rank(rank)):
            raise NotationError(f"一副牌只有 {len(cards_of_rank(rank))} 张 {RANK_NAMES[rank]}，"
                                f"你写了 {count} 张")


def stand_ins(specs: Sequence[CardSpec]) -> list[int]:
    """Concrete cards as the text alone names them (no hand read): a suited spec is that
    card, a rank-only spec any other card of its rank. Hand types never depend on suits,
    so these classify exactly as the cards the hand would give (G-4: the type and whether
    it beats the table are judged before the hand). Call :func:`check_deck` first."""
    taken = {card(sp.rank, sp.suit) for sp in specs if sp.suit is not None}
    out = []
    for sp in specs:
        if sp.suit is not None:
            out.append(card(sp.rank, sp.suit))
            continue
        c = next(c for c in cards_of_rank(sp.rank) if c not in taken)
        taken.add(c)
        out.append(c)
    return out


def missing(specs: Sequence[CardSpec], hand: Iterable[int]) -> list[str]:
    """Every card ``specs`` name that ``hand`` lacks, in one short phrase each: ``♠A``
    for a suited card, ``2 张 7`` for rank-only cards (all the cards of that rank the
    text names, suited ones included). Empty when the hand holds them all."""
    held = set(hand)
    out: list[str] = []
    suited = [card(sp.rank, sp.suit) for sp in specs if sp.suit is not None]
    out += [card_name(c) for c in suited if c not in held]
    for rank in dict.fromkeys(sp.rank for sp in specs if sp.suit is None):
        free = [c for c in cards_of_rank(rank) if c in held and c not in suited]
        wanted = sum(1 for sp in specs if sp.rank == rank and sp.suit is None)
        if wanted > len(free):
            need = sum(1 for sp in specs if sp.rank == rank)
            out.append(f"{need} 张 {RANK_NAMES[rank]}")
    return out


def resolve(specs: Sequence[CardSpec], hand: Iterable[int], protected: Iterable[int] = ()) -> list[int]:
    """Pick the concrete cards of ``hand`` that ``specs`` name (G-1).

    Cards named with a suit are taken first; a rank-only spec then takes the least
    revealing card of that rank: never one of ``protected`` (e.g. spy cards, Z-2) while
    another card of that rank is available, otherwise the lowest suit in ♦ ♣ ♥ ♠ order.
    Returns the chosen card ids in spec order. Raises :class:`CardsNotHeld` when the hand
    lacks a card (the message names everything missing, :func:`missing`), or
    :class:`CardWrittenTwice`.
    """
    left = set(hand)
    suited = [card(sp.rank, sp.suit) for sp in specs if sp.suit is not None]
    twice = next((c for i, c in enumerate(suited) if c in suited[:i]), None)
    if twice is not None:
        raise CardWrittenTwice(f"{card_name(twice)} 写了两次")
    lacking = missing(specs, left)
    if lacking:
        raise CardsNotHeld("你没有 " + "、".join(lacking))
    guard = set(protected)
    chosen: list[int | None] = [None] * len(specs)
    for idx, sp in enumerate(specs):
        if sp.suit is not None:
            c = card(sp.rank, sp.suit)
            if c in chosen:
                raise CardWrittenTwice(f"{card_name(c)} 写了两次")
            if c not in left:
                raise CardsNotHeld(f"你没有 {card_name(c)}")
            left.remove(c)
            chosen[idx] = c
    for idx, sp in enumerate(specs):
        if sp.suit is None:
            options = [c for c in cards_of_rank(sp.rank) if c in left]
            if not options:
                need = sum(1 for s in specs if s.rank == sp.rank)
                raise CardsNotHeld(f"你没有 {need} 张 {RANK_NAMES[sp.rank]}")
            options.sort(key=lambda c: (c in guard, -(c % 4) if c < 52 else 0))
            c = options[0]
            left.remove(c)
            chosen[idx] = c
    return [c for c in chosen if c is not None]
