"""手把一 auto-play (托管 / timeout): pass when following unless 把一必拦 forbids it, then
the lowest play that beats; when leading, the lowest legal single (a lone joker may never be
left, S-3), else the lowest legal play. Built on the game's legal-move generator
(:mod:`paizhuo_engine.moves`); among plays equal in what it compares (kickers of one 三带一 /
四带二), the one whose rank counts sort first (the fewest low kickers)."""

from __future__ import annotations

from ..cards import rank_of
from ..errors import MoveError
from ..movegen import Play, unpack
from ..moves import legal_plays
from ..shoubayi.game import SGame
from .simple import PASS, Action


def _cards_for(game: SGame, seat: int, play: Play) -> tuple[int, ...]:
    """Concrete cards of ``seat`` for a play, the first of each rank in the hand (suits
    do not matter in 手把一)."""
    need = list(unpack(play[0]))
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
        hand = game.hands[seat]
        if to_beat is not None:
            if self.follow:
                answers = [p for p in legal_plays(hand, game.rules, to_beat) if not p[1].bomb]
                if answers:
                    best = min(answers, key=lambda p: (p[1].key, unpack(p[0])))
                    return Action("play", _cards_for(game, seat, best))
            try:
                game.check_pass(seat)
                return PASS
            except MoveError:
                pass
        plays = legal_plays(hand, game.rules, to_beat)
        if not plays:
            return PASS
        best = min(plays, key=lambda p: (p[1].bomb, p[1].size != 1, p[1].size, p[1].key,
                                         unpack(p[0])))
        return Action("play", _cards_for(game, seat, best))
