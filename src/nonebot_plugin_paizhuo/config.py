"""Plugin settings, read by NoneBot from the environment and ``.env`` (see ``.env.example``).

Every setting's name starts with ``PAIZHUO_``: NoneBot keeps all settings in one config
shared by every plugin of a host bot, where a bare ``DATABASE_URL`` or ``SEND_RATE``
could be another plugin's. The names without the prefix (``DATABASE_URL``, ``SEND_RATE``
...) are still read, the prefixed one wins when both are set, and the bot logs one
deprecation line at start-up naming the old ones it found (:func:`warn_old_names`).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from nonebot import get_driver, get_plugin_config, logger
from nonebot.compat import model_dump
from pydantic import AliasChoices, BaseModel, Field, field_validator

PREFIX = "paizhuo_"
"""Prefix of every setting's name (lower case, as NoneBot's config keys are)."""

OLD_NAMES: list[str] = []
"""The settings' former names without :data:`PREFIX` (lower case), still read."""


def _setting(default: Any, name: str) -> Any:
    """A field read from ``PAIZHUO_<NAME>`` or, failing that, its old name ``<NAME>``.

    NoneBot reads a plugin's settings from the environment by field name and by
    ``alias`` (the alias winning), and from ``.env`` and ``nonebot.init`` keyword
    arguments by any key: the alias makes the environment's ``PAIZHUO_<NAME>`` count,
    the validation alias takes either key of the rest, the prefixed one first."""
    OLD_NAMES.append(name)
    return Field(default, alias=PREFIX + name,
                 validation_alias=AliasChoices(PREFIX + name, name))


class Config(BaseModel):
    """``PAIZHUO_DATABASE_URL`` — any SQLAlchemy async URL; empty (default): ``paizhuo.db`` in the
    plugin data directory (``storage.py``: localstore's in a host, ``data/`` beside ``bot.py``).
    ``PAIZHUO_DEAL_SEED`` — empty (default): every deal is random; a number: deals are derived
    from it, the group and the game number, so a session can be replayed (demos, tests).
    ``PAIZHUO_COMPUTER_DELAY`` — seconds a computer player (电脑) waits before it
    acts, so people can follow the table: once per run of automatic moves, which goes
    out as one post (``runs.py``).
    ``PAIZHUO_ONEBOT_HTTP_POST`` — serve the OneBot HTTP POST route (``/onebot/v11/http``);
    off by default, needs ``ONEBOT_SECRET`` when on. ``PAIZHUO_ALLOW_EMPTY_TOKEN`` — let the bot
    start with an empty ``ONEBOT_ACCESS_TOKEN`` on a non-loopback ``HOST`` (see
    ``src/nonebot_plugin_paizhuo/guard.py``).
    ``PAIZHUO_BARE_COMMANDS`` — which command words are answered without the
    ``/牌桌`` namespace (``all`` by default; e.g. ``all,-帮助,-help``; see
    ``matchers/namespace.py``). ``PAIZHUO_IMAGES`` — send /排行, /战绩 and the
    game details of ``/对局 N`` as pictures when a font that renders Chinese is found (default
    true; ``PAIZHUO_FONT`` names the font file).
    ``PAIZHUO_FAST_DISPATCH`` — run the plugin's matchers through its own dispatchers
    (default true; false: registered with NoneBot like any plugin's; see
    ``src/nonebot_plugin_paizhuo/internals``).
    ``PAIZHUO_LOG_FILE`` — a file the logs also go to, rotated at ``PAIZHUO_LOG_ROTATION``,
    ``PAIZHUO_LOG_RETENTION`` old files kept (``logfile.py``; ``bot.py`` defaults it to
    ``logs/paizhuo.log``; empty: terminal only).
    ``PAIZHUO_DATABASE_BUSY_TIMEOUT`` — seconds a SQLite write waits for another
    process's write lock before the change fails (and is undone).

    Sending (发送, QQ rate limits / 风控): ``PAIZHUO_SEND_RATE`` — messages per second the account
    may send on average (default 1, as go-cqhttp's own limiter; ``0``: no pacing);
    ``PAIZHUO_SEND_BURST`` — how many may go at once after a quiet spell (default 3: one move's
    group message and hand); ``PAIZHUO_SEND_INTERVAL`` — older setting, used when
    ``PAIZHUO_SEND_RATE`` is not given: least seconds between two messages (rate ``1/interval``);
    ``PAIZHUO_ONEBOT_CALL_TIMEOUT`` — seconds one OneBot call may take before it counts as failed
    (default 5); ``PAIZHUO_SEND_RETRIES`` — tries of a failed group message; ``PAIZHUO_SEND_BACKOFF_MAX``
    — longest pause, in seconds, of a conversation (group or private chat) whose sends
    keep failing (muted, kicked). ``PAIZHUO_SEND_THROTTLE_CONVERSATIONS`` conversations failing
    within ``PAIZHUO_SEND_THROTTLE_WINDOW`` seconds slow the whole account down (halved, one step
    back each ``PAIZHUO_SEND_RECOVER_AFTER`` quiet seconds). A picture or merged-forward message
    that failed or hung is sent as text, without a call, for ``PAIZHUO_MEDIA_PROBE_AFTER``
    seconds (default 120; twice as long after each failed try, at most 30 minutes) in that
    group, or on the whole account when it hung. Commands: more than
    ``PAIZHUO_COMMAND_LIMIT`` of one sender's commands (moves and private answers excepted;
    each weighed by what its answer costs: a private one ¼, a picture or merged-forward one
    3, a short group reply 1) in ``PAIZHUO_COMMAND_WINDOW`` seconds, and the sender is told
    once, then that sender's commands are ignored for ``PAIZHUO_COMMAND_SILENCE`` seconds
    (``PAIZHUO_COMMAND_LIMIT=0``: no limit). Refusals: more than ``PAIZHUO_REFUSAL_LIMIT`` refusals of one
    user's moves or answers in ``PAIZHUO_REFUSAL_WINDOW`` seconds, and the user is told once,
    then further refusals are dropped for ``PAIZHUO_REFUSAL_SILENCE`` seconds (``PAIZHUO_REFUSAL_LIMIT=0``: no limit).
    ``PAIZHUO_AI_WORKERS`` — worker processes for 电脑难度 困难's search (default 1);
    ``PAIZHUO_AI_SEARCHES`` — searches running at once at most; more fall back to 普通 (default 2)."""

    DEFAULT_SEND_RATE: ClassVar[float] = 1.0

    database_url: str = _setting("", "database_url")
    database_busy_timeout: float = _setting(30.0, "database_busy_timeout")
    deal_seed: int | None = _setting(None, "deal_seed")
    send_rate: float | None = _setting(None, "send_rate")
    send_burst: int = _setting(3, "send_burst")
    send_interval: float | None = _setting(None, "send_interval")
    onebot_call_timeout: float = _setting(5.0, "onebot_call_timeout")
    send_retries: int = _setting(3, "send_retries")
    onebot_http_post: bool = _setting(False, "onebot_http_post")
    allow_empty_token: bool = _setting(False, "allow_empty_token")
    computer_delay: float = _setting(1.0, "computer_delay")
    paizhuo_bare_commands: str = "all"
    paizhuo_images: bool = True
    paizhuo_font: str = ""
    paizhuo_fast_dispatch: bool = True
    paizhuo_log_file: str | None = None
    paizhuo_log_rotation: str = "10 MB"
    paizhuo_log_retention: int = Field(10, ge=0)
    send_backoff_max: float = _setting(30.0, "send_backoff_max")
    refusal_limit: int = _setting(10, "refusal_limit")
    refusal_window: float = _setting(30.0, "refusal_window")
    refusal_silence: float = _setting(60.0, "refusal_silence")
    send_throttle_conversations: int = _setting(3, "send_throttle_conversations")
    send_throttle_window: float = _setting(30.0, "send_throttle_window")
    send_recover_after: float = _setting(60.0, "send_recover_after")
    paizhuo_media_probe_after: float = 120.0
    command_limit: float = _setting(30, "command_limit")
    command_window: float = _setting(60.0, "command_window")
    command_silence: float = _setting(60.0, "command_silence")
    ai_workers: int = _setting(1, "ai_workers")
    ai_searches: int = _setting(2, "ai_searches")

    @field_validator("deal_seed", "send_rate", "send_interval", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("onebot_http_post", "allow_empty_token", mode="before")
    @classmethod
    def _empty_is_false(cls, value: object) -> object:
        return False if value == "" else value

    @field_validator("onebot_call_timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("PAIZHUO_ONEBOT_CALL_TIMEOUT must be positive")
        return value


_current: Config | None = None


def plugin_config() -> Config:
    """The plugin's settings, read from NoneBot's config and validated on the first call
    and kept: the hot paths (every OneBot call, every command's bare-word check, timers,
    deals) read them often, and ``get_plugin_config`` validates the whole config again on
    each call (milliseconds). The settings come from the environment and ``.env`` at
    start-up and do not change while the bot runs; code that changes NoneBot's config
    afterwards (tests) calls :func:`reset_plugin_config`."""
    global _current
    if _current is None:
        _current = get_plugin_config(Config)
    return _current


def reset_plugin_config() -> None:
    """Forget the kept settings: the next :func:`plugin_config` reads NoneBot's config
    again (for tests that change it)."""
    global _current
    _current = None


def old_names_in(settings: dict[str, Any]) -> list[str]:
    """The old (unprefixed) setting names among ``settings``' keys (NoneBot's config,
    lower case), upper case and sorted, as a user writes them in ``.env``."""
    return sorted(name.upper() for name in OLD_NAMES if name in settings)


def warn_old_names() -> list[str]:
    """Log one WARNING line naming the old setting names given (none: nothing is logged)
    and return them: in NoneBot's config (``.env``, ``nonebot.init``) or the environment
    (which NoneBot's config keeps only for its own fields; plugins read it by name)."""
    given = set(model_dump(get_driver().config)) | {key.lower() for key in os.environ}
    old = old_names_in(dict.fromkeys(given))
    if old:
        logger.warning(
            "牌桌: 这些设置名已过时，请加上 PAIZHUO_ 前缀（两个都有时以带前缀的为准）："
            + ", ".join(f"{name} → PAIZHUO_{name}" for name in old)
        )
    return old
