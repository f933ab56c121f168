"""Readings of a play and the G-5 choice between them (牌型解读), shared by all games.

A *reading* is one legal way to read a set of cards as a hand type of a game. Every
game's classifier returns all readings of the cards (RULES.md G-5); the functions here
choose among them when following and when leading, identically for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of a play.

    * ``kind`` — the hand type's id (e.g. ``"pair_chain"``); :data:`TYPE_NAMES` maps it to
      the Chinese name players type and see.
    * ``size`` — number of cards; two plays are of the same type only when both ``kind``
      and ``size`` agree, so a chain's length is part of its type (Z-4, W-4, S-3).
    * ``key`` — the main rank as an ordering number of the game (higher wins); kickers
      never count.
    * ``bomb`` — this reading is a bomb (W-4, S-3.4).
    """

    kind: str
    size: int
    key: int
    bomb: bool = False

    @property
    def name(self) -> str:
        """Chinese name of the type, e.g. ``连对``."""
        return TYPE_NAMES[self.kind]

    def to_json(self) -> list:
        """``[kind, size, key, bomb]``."""
        return [self.kind, self.size, self.key, self.bomb]

    @classmethod
    def from_json(cls, data: Sequence) -> Reading:
        """Inverse of :meth:`to_json`."""
        return cls(str(data[0]), int(data[1]), int(data[2]), bool(data[3]))


TYPE_NAMES: dict[str, str] = {
    "single": "单张",
    "pair": "对子",
    "triple": "三张",
    "four": "四张",
    "straight": "顺子",
    "pair_chain": "连对",
    "triple_chain": "三连",
    "triple_one": "三带一",
    "four_two": "四带二",
    "bomb": "炸弹",
}
"""Hand type id → Chinese name (RULES.md glossary)."""

TYPE_ALIASES: dict[str, str] = {
    **{v: k for k, v in TYPE_NAMES.items()},
    "单": "single", "单牌": "single", "对": "pair", "对牌": "pair", "三个": "triple",
    "四个": "four", "连子": "straight", "单顺": "straight", "单龙": "straight",
    "联对": "pair_chain", "双顺": "pair_chain", "姊妹对": "pair_chain", "连三": "triple_chain",
    "三顺": "triple_chain", "姊妹三": "triple_chain", "飞机": "triple_one",
}
"""Every Chinese type name a player may write after the cards (G-5) → type id."""

Beats = Callable[[Reading, Reading], bool]


class ReadingError(ValueError):
    """No acceptable reading; ``str(err)`` is the Chinese reason for the player."""


def choose_follow(readings: Sequence[Reading], to_beat: Reading, beats: Beats,
                  kind_hint: str | None = None) -> Reading:
    """G-5 following: the reading that beats ``to_beat`` — a bomb reading first, else one
    of the type and size being followed, the highest key if several beat it.

    ``beats(new, old)`` is the game's comparison. ``kind_hint`` (a type id the player
    named) restricts the readings. Raises :class:`ReadingError` when none beats.
    """
    pool = [r for r in readings if kind_hint is None or r.kind == kind_hint]
    if not pool:
        raise ReadingError(_not_a_type(readings, kind_hint))
    winners = [r for r in pool if beats(r, to_beat)]
    if not winners:
        if not any(r.kind == to_beat.kind and r.size == to_beat.size for r in pool) and not any(
            r.bomb for r in pool
        ):
            raise ReadingError(f"要跟{to_beat.size}张的{to_beat.name}")
        raise ReadingError("没有大过上家")
    bombs = [r for r in winners if r.bomb]
    return max(bombs or winners, key=lambda r: r.key)


def choose_lead(readings: Sequence[Reading], kind_hint: str | None = None) -> Reading:
    """G-5 leading: readings of one type → the highest key; of several types → refused
    with the readings listed, so the player names the type.

    Raises :class:`ReadingError` when there is no reading or the type must be named.
    """
    pool = [r for r in readings if kind_hint is None or r.kind == kind_hint]
    if not pool:
        raise ReadingError(_not_a_type(readings, kind_hint))
    kinds = {(r.kind, r.size) for r in pool}
    if len(kinds) > 1:
        names = "、".join(sorted({r.name for r in pool}))
        raise ReadingError(f"这手牌可以是{names}，请在牌后写明牌型，例如“出 … {pool[0].name}”")
    return max(pool, key=lambda r: r.key)


def _not_a_type(readings: Sequence[Reading], kind_hint: str | None) -> str:
    if not readings:
        return "不是合法牌型"
    names = "、".join(sorted({r.name for r in readings}))
    return f"这手牌不能当{TYPE_NAMES.get(kind_hint or '', kind_hint)}出，只能是{names}"


def split_type_hint(text: str) -> tuple[str, str | None]:
    """Split a trailing type name off a play's text (G-5): ``"333444 三连"`` →
    ``("333444", "triple_chain")``. Returns ``(text, None)`` when there is none."""
    stripped = text.rstrip()
    for alias in sorted(TYPE_ALIASES, key=len, reverse=True):
        if stripped.endswith(alias):
            return stripped[: -len(alias)].rstrip(), TYPE_ALIASES[alias]
    return text, None
