"""Errors the engines raise for refused moves. Every message is short Simplified Chinese,
fit to be shown to the player who made the move, and never reveals hidden information."""

from __future__ import annotations


class MoveError(Exception):
    """A refused move. ``str(err)`` is the reason for the player; the game state is
    unchanged. ``code`` is a stable English id for tests and logs.

    ``private`` marks a reason that depends on the player's hand (cards not held, how
    many of a rank they hold, a lone joker, a play that must block): it is told to the
    player alone, and the group only learns that the move was not accepted (G-4). The
    engines check everything public first (the turn, the notation, the type, beating the
    table), so a refusal is ``private`` only when every public check passed: what the
    group sees of a refusal is the same whatever the hand."""

    def __init__(self, code: str, message: str, *, private: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.private = private


def hand_error(code: str, message: str) -> MoveError:
    """A :class:`MoveError` whose reason describes the player's hand (``private``)."""
    return MoveError(code, message, private=True)
