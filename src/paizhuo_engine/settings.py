"""Validated rule-setting schemas (house rules a group chooses), shared by every game.

A :class:`Schema` lists a game's :class:`Setting` s: the Chinese name players type (as
RULES.md writes it), the field of the game's rule object it sets, the allowed values, the
default and a one-line meaning. Values are stored by field name (stable English ids) and
shown and typed by their Chinese names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Self

from .numbers import parse_int

ON_WORDS = ("开", "开启", "是", "on", "true", "1", "允许", "有")
OFF_WORDS = ("关", "关闭", "否", "off", "false", "0", "不允许", "无")


class SettingError(ValueError):
    """An unknown setting name or a value it does not allow; ``str(err)`` is a Chinese
    reply that lists the valid choices."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting.

    * ``name`` — Chinese name (e.g. ``连牌规则``); ``field`` — the rule object's field.
    * ``choices`` — allowed values (strings) for a choice; for ``kind="bool"`` the value
      is ``True``/``False`` shown as 开/关; for ``kind="int"`` ``low..high`` inclusive.
    * ``default`` — the spec's default; ``meaning`` — one line for ``/规则``;
      ``section`` — the RULES.md section.
    """

    name: str
    field: str
    kind: str
    default: object
    meaning: str
    section: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0

    def parse(self, text: str) -> object:
        """The value for ``text``. Raises :class:`SettingError` listing the choices."""
        t = text.strip()
        if self.kind == "bool":
            if t.lower() in ON_WORDS:
                return True
            if t.lower() in OFF_WORDS:
                return False
        elif self.kind == "int":
            number = parse_int(t, signed=True)
            if number is not None and self.low <= number <= self.high:
                return number
        else:
            for c in self.choices:
                if t.lower() == c.lower():
                    return c
        raise SettingError(f"{self.name} 不能设为“{t[:20]}”，可选：{self.allowed()}")

    def allowed(self) -> str:
        """The allowed values as players type them."""
        if self.kind == "bool":
            return "开 / 关"
        if self.kind == "int":
            return f"{self.low}–{self.high}"
        return " / ".join(self.choices)

    def show(self, value: object) -> str:
        """A value as shown to players."""
        if self.kind == "bool":
            return "开" if value else "关"
        return str(value)

    def valid(self, value: object) -> bool:
        """Whether a stored value is allowed (stored data may be stale or tampered)."""
        if self.kind == "bool":
            return isinstance(value, bool)
        if self.kind == "int":
            return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high
        return value in self.choices


@dataclass(frozen=True, slots=True)
class Schema:
    """A game's settings, in display order; ``check`` (optional) returns a Chinese
    reason when a combination of values is not allowed (e.g. a minimum above a maximum)."""

    game: str
    settings: Sequence[Setting]
    rule: Callable[[dict], str | None] | None = None

    def check(self, values: dict) -> str | None:
        """The reason ``values`` (cleaned) may not be stored together, ``None`` when fine."""
        return self.rule(values) if self.rule else None

    def find(self, name: str) -> Setting:
        """The setting called ``name`` (Chinese name or field). Raises :class:`SettingError`."""
        for s in self.settings:
            if name.strip() in (s.name, s.field):
                return s
        names = "、".join(s.name for s in self.settings)
        raise SettingError(f"{self.game} 没有“{name.strip()[:20]}”这一项，可设置：{names}")

    def defaults(self) -> dict[str, object]:
        """Every field at its default."""
        return {s.field: s.default for s in self.settings}

    def clean(self, stored: dict) -> dict[str, object]:
        """Defaults overlaid with the valid stored values (invalid or unknown ones dropped)."""
        out = self.defaults()
        for s in self.settings:
            if s.field in stored and s.valid(stored[s.field]):
                out[s.field] = stored[s.field]
        return out


class RuleSet:
    """JSON for a game's frozen rule dataclass (its variant switches): every switch by
    field name; unknown keys ignored and missing ones defaulted when read back, so stored
    settings survive new switches."""

    __slots__ = ()

    # What a game's rules change for every player's reasoning (the computer player reads
    # these instead of asking which game it is); each game's rules override its own.

    deck_jokers: ClassVar[int] = 1
    """How many of each joker (小王, 大王) the deck holds: 1 in a 54-card deck (G-1, Z-1),
    0 without jokers (W-1; 手把一 by its setting, S-1)."""

    lone_joker_refused: ClassVar[bool] = False
    """A play that would leave exactly one joker in hand is refused (S-3)."""

    held_jokers_double: ClassVar[bool] = False
    """A joker still in hand at the end multiplies the loss (S-6 ×2 per joker), so jokers
    are cards to spend rather than to keep back."""

    unplayed_doubles: ClassVar[bool] = False
    """A player who never played a card pays double at the end (S-6)."""

    @property
    def must_block_last_card(self) -> bool:
        """A pass is refused to the last seat before a player down to one card who can beat
        that player's play (把一必拦, S-4)."""
        return False

    @property
    def last_card_liability(self) -> bool:
        """包赔 (S-4): a seat that plays a single, not its highest, while the next player
        holds one card pays every loser's penalty if that player then goes out."""
        return False

    def to_json(self) -> dict[str, Any]:
        """Plain dict of every switch."""
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_json(cls, data: dict) -> Self:
        """Inverse of :meth:`to_json`."""
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in names})
