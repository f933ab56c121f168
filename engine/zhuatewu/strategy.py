"""The default 抓特务 auto-play (托管): pass when following, lead the lowest single when
leading (G-3: a leader must play). A spy card is led only when nothing else is left."""

from __future__ import annotations

from engine.cards import rank_of
from engine.strategy import PASS, Action
from engine.zhuatewu.game import ZGame


class LowestStrategy:
    """Pass when following; when leading, the single card lowest by Z-3 ranking."""

    def choose(self, game: ZGame, seat: int) -> Action:
        """Raises ``ValueError`` if ``seat`` has no cards (it cannot be their turn then)."""
        if game.lead is not None:
            return PASS
        hand = game.hands[seat]
        if not hand:
            raise ValueError("no cards to lead")
        weight = game.rules.rank_order()
        low = min(hand, key=lambda c: (c in game.spy_cards, weight[rank_of(c)], -(c % 4)))
        return Action("play", (low,))
