"""Errors the engines raise for refused moves. Every message is short Simplified Chinese,
fit to be shown to the player who made the move, and never reveals hidden information."""

from __future__ import annotations


class MoveError(Exception):
    """A refused move. ``str(err)`` is the reason for the player; the game state is
    unchanged. ``code`` is a stable English id for tests and logs."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
