"""手把一 auto-play (托管 / timeout): pass when following unless 把一必拦 forbids it, then
the lowest play that beats; when leading, the lowest legal single (a lone joker may never be
left, S-3), else the lowest legal play. Built on the exact legal-move generator."""

from __future__ import annotations

from ..cards import rank_of
from ..errors import MoveError
from ..shoubayi.game import SGame
from ..shoubayi.moves import legal_plays
from ..shoubayi.rules import counts_of
from .simple import PASS, Action


def _cards_for(game: SGame, seat: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """Concrete cards of ``seat`` for a rank multiset (suits do not matter in 手把一)."""
    need = list(counts)
    out = []
    for c in game.hands[seat]:
        r = rank_of(c)
        if need[r]:
            need[r] -= 1
            out.append(c)
    return tuple(out)


class BlockingStrategy:
    """The default 手把一 auto-play on timeout. With ``follow`` (托管) it also beats any
    play it can with its lowest non-bomb answer."""

    def __init__(self, follow: bool = False) -> None:
        self.follow = follow

    def choose(self, game: SGame, seat: int) -> Action:
        """An action legal in ``game`` for ``seat`` (whose turn it is)."""
        to_beat = game.lead_reading()
        hand = counts_of(game.hands[seat])
        if to_beat is not None:
            if self.follow:
                answers = [p for p in legal_plays(hand, to_beat) if not p[1].bomb]
                if answers:
                    counts, _ = min(answers, key=lambda p: p[1].key)
                    return Action("play", _cards_for(game, seat, counts))
            try:
                game.check_pass(seat)
                return PASS
            except MoveError:
                pass
        plays = legal_plays(hand, to_beat)
        if not plays:
            return PASS
        counts, _ = min(plays, key=lambda p: (p[1].bomb, p[1].size != 1, p[1].size, p[1].key))
        return Action("play", _cards_for(game, seat, counts))
