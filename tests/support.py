"""Test helpers: build card ids from notation without caring about suits."""

from __future__ import annotations

from paizhuo_engine.cards import card, parse_cards


def cards(text: str) -> list[int]:
    """Card ids for ``text``; rank-only cards get distinct suits in ♠♥♣♦ order."""
    used: dict[int, int] = {}
    out: list[int] = []
    for sp in parse_cards(text):
        if sp.rank >= 13:
            out.append(sp.rank + 39)
            continue
        if sp.suit is not None:
            out.append(card(sp.rank, sp.suit))
            continue
        n = used.get(sp.rank, 0)
        used[sp.rank] = n + 1
        out.append(card(sp.rank, n))
    return out
