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
"""Hand type id → the common Chinese name (RULES.md glossary); a game shows its own name
(:attr:`Vocabulary.shown`)."""


@dataclass(frozen=True, slots=True)
class TypeName:
    """What a type name written after the cards asks for (G-5): readings of type ``kind``
    with at least ``min_size`` cards (手把一 飞机: 三带一 chains, 8 cards or more)."""

    kind: str
    min_size: int = 0

    def fits(self, reading: Reading) -> bool:
        """Whether ``reading`` is of the named type."""
        return reading.kind == self.kind and reading.size >= self.min_size


@dataclass(frozen=True, slots=True)
class TypeRow:
    """One row of a game's vocabulary: the names of one type (the first is the one the
    game shows), ``min_size`` as in :class:`TypeName`, and a short ``example`` play."""

    kind: str
    names: tuple[str, ...]
    example: str
    min_size: int = 0


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One game's hand-type names (RULES.md G-5 Decision): every name its RULES.md section
    and docs/commands.md use, and the common names of the types it has. ``title`` names the game
    (and rule set) in replies."""

    title: str
    rows: tuple[TypeRow, ...]

    def words(self) -> dict[str, TypeName]:
        """Every accepted name → what it asks for."""
        return {name: TypeName(row.kind, row.min_size) for row in self.rows for name in row.names}

    def shown(self, kind: str) -> str:
        """The name this game shows for type ``kind`` (e.g. 挖坑 陕西 ``连牌``)."""
        for row in self.rows:
            if row.kind == kind and not row.min_size:
                return row.names[0]
        return TYPE_NAMES.get(kind, kind)

    def describe(self, hint: TypeName) -> str:
        """The name of what ``hint`` asks for."""
        for row in self.rows:
            if (row.kind, row.min_size) == (hint.kind, hint.min_size):
                return row.names[0]
        return self.shown(hint.kind)

    def main_names(self) -> str:
        """``单张、对子、…``: the shown name of every row."""
        return "、".join(row.names[0] for row in self.rows)

    def split(self, text: str) -> tuple[str, TypeName | None]:
        """Split a trailing type name off a play's text: ``"333444 三连"`` →
        ``("333444", TypeName("triple_chain"))``; ``(text, None)`` when there is none.

        Raises :class:`ReadingError` when the text ends with a type name of another game
        that this game does not have (e.g. 炸弹 in 抓特务), naming this game's types.
        """
        word = trailing_type_word(text)
        if word is None:
            return text, None
        body = text.rstrip()[: -len(word)].rstrip()
        hint = self.words().get(word)
        if hint is None:
            raise ReadingError(f"{self.title}没有“{word}”这种牌型，可写：{self.main_names()}")
        return body, hint


def _rows(*rows: tuple) -> tuple[TypeRow, ...]:
    return tuple(TypeRow(*row) for row in rows)


SINGLE = ("single", ("单张", "单", "单牌"), "出 7 单张")
PAIR = ("pair", ("对子", "对", "对牌", "一对"), "出 77 对子")
TRIPLE = ("triple", ("三张", "三个", "三条"), "出 777 三张")

ZHUATEWU = Vocabulary("抓特务", _rows(
    SINGLE, PAIR, TRIPLE,
    ("four", ("四张", "四个", "四条"), "出 7777 四张"),
    ("straight", ("顺子", "单顺", "连子", "单龙", "连牌", "顺"), "出 34567 顺子"),
    ("pair_chain", ("连对", "联对", "双顺", "姊妹对", "对子连牌"), "出 778899 连对"),
    ("triple_chain", ("三连", "飞机", "三顺", "连三", "姊妹三"), "出 999 101010 JJJ 三连"),
    ("triple_one", ("三带一", "三带"), "出 7775 三带一"),
    ("four_two", ("四带二", "四带两"), "出 777756 四带二"),
))
"""抓特务 (Z-4): 飞机 is 三连; no bombs."""

WAKENG = Vocabulary("挖坑", _rows(
    SINGLE, PAIR, TRIPLE,
    ("bomb", ("炸弹", "炸"), "出 7777 炸弹"),
    ("straight", ("单顺", "顺子", "连子", "单龙", "连牌", "顺"), "出 34567 单顺"),
    ("pair_chain", ("双顺", "连对", "联对", "姊妹对", "对子连牌"), "出 778899 双顺"),
    ("triple_chain", ("三顺", "飞机", "三连", "连三", "姊妹三"), "出 777888 三顺"),
))
"""挖坑 标准 (W-4): 单顺、双顺、三顺 and bombs; 飞机 is 三顺; no kickers."""

WAKENG_SHAANXI = Vocabulary("挖坑（陕西）", _rows(
    SINGLE, PAIR, TRIPLE,
    ("four", ("四条", "四张", "四个"), "出 7777 四条"),
    ("straight", ("连牌", "顺子", "单顺", "连子", "单龙", "顺"), "出 456 连牌"),
    ("pair_chain", ("对子连牌", "连对", "双顺", "联对", "姊妹对"), "出 445566 对子连牌"),
))
"""挖坑 陕西 (W-7): 连牌、对子连牌、四条; no triple chains, no bombs."""

SHOUBAYI = Vocabulary("手把一", _rows(
    SINGLE, PAIR,
    ("pair_chain", ("联对", "连对", "双顺", "姊妹对", "对子连牌"), "出 778899 联对"),
    ("straight", ("顺子", "单顺", "连子", "单龙", "连牌", "顺"), "出 34567 顺子"),
    ("triple_one", ("三带一", "三带"), "出 7775 三带一"),
    ("triple_one", ("飞机", "连三带一"), "出 777888 56 飞机", 8),
    ("four_two", ("四带二", "四带两"), "出 777756 四带二"),
    ("bomb", ("炸弹", "炸"), "跟 7777 炸弹"),
))
"""手把一 (S-3): 联对, 三带一 (飞机 = a chain of 三带一), 四带二, bombs; no bare triple."""

COMMON = Vocabulary("", _rows(*((kind, (name,), "") for kind, name in TYPE_NAMES.items())))
"""The common names only (for games without a vocabulary of their own)."""

VOCABULARIES: tuple[Vocabulary, ...] = (ZHUATEWU, WAKENG, WAKENG_SHAANXI, SHOUBAYI)
"""Every game's vocabulary (docs/commands.md, /帮助)."""

ALL_TYPE_WORDS: frozenset[str] = frozenset(
    name for vocabulary in (*VOCABULARIES, COMMON) for name in vocabulary.words())
"""Every type name of any game: text ending with one is a play with a type name."""


_LONGEST_FIRST: tuple[str, ...] = tuple(sorted(ALL_TYPE_WORDS, key=len, reverse=True))


def trailing_type_word(text: str) -> str | None:
    """The type name (of any game) that ``text`` ends with, the longest one, or ``None``."""
    stripped = text.rstrip()
    for word in _LONGEST_FIRST:
        if stripped.endswith(word):
            return word
    return None

Beats = Callable[[Reading, Reading], bool]


class ReadingError(ValueError):
    """No acceptable reading; ``str(err)`` is the Chinese reason for the player."""


Hint = str | TypeName | None
"""A type a player named: a type id, a :class:`TypeName`, or ``None``."""


def _as_name(hint: Hint) -> TypeName | None:
    return TypeName(hint) if isinstance(hint, str) else hint


def choose_follow(readings: Sequence[Reading], to_beat: Reading, beats: Beats,
                  kind_hint: Hint = None, vocabulary: Vocabulary = COMMON) -> Reading:
    """G-5 following: the reading that beats ``to_beat`` — a bomb reading first, else one
    of the type and size being followed, the highest key if several beat it.

    ``beats(new, old)`` is the game's comparison. ``kind_hint`` (the type the player
    named) restricts the readings; ``vocabulary`` names the types in the reasons. Raises
    :class:`ReadingError` when none beats.
    """
    hint = _as_name(kind_hint)
    pool = [r for r in readings if hint is None or hint.fits(r)]
    if not pool:
        raise ReadingError(_not_a_type(readings, hint, vocabulary))
    winners = [r for r in pool if beats(r, to_beat)]
    if not winners:
        if not any(r.kind == to_beat.kind and r.size == to_beat.size for r in pool) and not any(
            r.bomb for r in pool
        ):
            played = "或".join(dict.fromkeys(_sized(r, vocabulary) for r in pool))
            raise ReadingError(f"要跟同样的牌型：桌上是{_sized(to_beat, vocabulary)}，你出的是{played}")
        raise ReadingError("没有大过上家")
    bombs = [r for r in winners if r.bomb]
    return max(bombs or winners, key=lambda r: r.key)


FIXED_SIZE_KINDS = frozenset({"single", "pair", "triple", "four", "bomb"})
"""Types whose name says how many cards they are."""


def _sized(reading: Reading, vocabulary: Vocabulary) -> str:
    """A reading's type as a refusal names it: ``对子``, ``3 张的连牌`` (a chain or a type
    with kickers: its size is part of its type, Z-4, W-4, S-3)."""
    name = vocabulary.shown(reading.kind)
    return name if reading.kind in FIXED_SIZE_KINDS else f" {reading.size} 张的{name}"


def choose_lead(readings: Sequence[Reading], kind_hint: Hint = None,
                vocabulary: Vocabulary = COMMON) -> Reading:
    """G-5 leading: readings of one type → the highest key; of several types → refused
    with the readings listed, so the player names the type.

    Raises :class:`ReadingError` when there is no reading or the type must be named.
    """
    hint = _as_name(kind_hint)
    pool = [r for r in readings if hint is None or hint.fits(r)]
    if not pool:
        raise ReadingError(_not_a_type(readings, hint, vocabulary))
    kinds = {(r.kind, r.size) for r in pool}
    if len(kinds) > 1:
        names = sorted({vocabulary.shown(r.kind) for r in pool})
        raise ReadingError(f"这手牌可以是{'、'.join(names)}，请在牌后写明牌型，例如“出 … {names[0]}”")
    return max(pool, key=lambda r: r.key)


def _not_a_type(readings: Sequence[Reading], hint: TypeName | None, vocabulary: Vocabulary) -> str:
    if not readings:
        return "不是合法牌型"
    names = "、".join(sorted({vocabulary.shown(r.kind) for r in readings}))
    wanted = vocabulary.describe(hint) if hint is not None else ""
    return f"这手牌不能当{wanted}出，只能是{names}"


def split_type_hint(text: str, vocabulary: Vocabulary = ZHUATEWU) -> tuple[str, str | None]:
    """Split a trailing type name off a play's text (G-5) with ``vocabulary``:
    ``"333444 三连"`` → ``("333444", "triple_chain")``. Returns ``(text, None)`` when
    there is none; raises :class:`ReadingError` for another game's type name. (A game's
    engine uses :meth:`Vocabulary.split`, which keeps a chain name's least size.)"""
    body, hint = vocabulary.split(text)
    return body, hint.kind if hint is not None else None
