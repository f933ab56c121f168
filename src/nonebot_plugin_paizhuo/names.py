"""Players' names as the bot shows them: one sanitiser for every text that carries a name
(seat lists, /战绩, /排行, /对局 and its replay)."""

from __future__ import annotations

NAME_LIMIT = 20
"""The most characters of a name shown."""


def clean_name(raw: str | None, limit: int = NAME_LIMIT) -> str:
    """A display name from a group card or nickname: printable characters only (control
    and format characters such as U+202E, which would turn the rest of a line around,
    are dropped), square brackets made full-width (a name can never become a CQ code),
    at most ``limit`` characters, stripped; ``""`` when nothing is left (the caller
    falls back to the QQ number)."""
    name = "".join(ch for ch in (raw or "") if ch.isprintable()).strip()
    return name.replace("[", "［").replace("]", "］")[:limit].strip()
