"""Numbers typed in chat: the one parser every command uses for a count, a game number, a
bid or a setting's value.

Only ASCII digits count. ``str.isdigit`` also accepts characters ``int`` refuses (``፩``,
``²``) and ``int`` accepts digits of other scripts (``٣``) and spaces or underscores
(``1_0``); a command that mixed the two crashed or took a number nobody typed.
"""

from __future__ import annotations

import re

_UNSIGNED = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"[+-]?[0-9]+")


def parse_int(text: str, *, signed: bool = False, max_digits: int = 9) -> int | None:
    """``text`` as an integer, or ``None`` when it is not one.

    ``text`` must be ASCII digits only (surrounding whitespace is ignored), at most
    ``max_digits`` of them; with ``signed`` one leading ``+`` or ``-`` is allowed (``--5``,
    ``+-5`` and a lone sign are not numbers). The caller checks the range and answers
    ``None`` with its usage.
    """
    t = text.strip()
    if not (_SIGNED if signed else _UNSIGNED).fullmatch(t):
        return None
    if len(t.lstrip("+-")) > max_digits:
        return None
    return int(t)
