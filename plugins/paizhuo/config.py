"""Plugin settings, read by NoneBot from the environment and ``.env`` (see ``.env.example``)."""

from __future__ import annotations

from typing import ClassVar

from nonebot import get_plugin_config
from pydantic import BaseModel, field_validator


class Config(BaseModel):
    """``DATABASE_URL`` — any SQLAlchemy async URL; default a SQLite file under ``data/``.
    ``DEAL_SEED`` — empty (default): every deal is random; a number: deals are derived
    from it, the group and the game number, so a session can be replayed (demos, tests).
    ``COMPUTER_DELAY`` — seconds a computer player (电脑) waits before it
    acts, so people can follow the table: once per run of automatic moves, which goes
    out as one post (``runs.py``).
    ``ONEBOT_HTTP_POST`` — serve the OneBot HTTP POST route (``/onebot/v11/http``);
    off by default, needs ``ONEBOT_SECRET`` when on. ``ALLOW_EMPTY_TOKEN`` — let the bot
    start with an empty ``ONEBOT_ACCESS_TOKEN`` on a non-loopback ``HOST`` (see
    ``plugins/paizhuo/guard.py``).
    ``PAIZHUO_BARE_COMMANDS`` — which command words are answered without the
    ``/牌桌`` namespace (``all`` by default; e.g. ``all,-帮助,-help``; see
    ``matchers/namespace.py``). ``PAIZHUO_IMAGES`` — send /排行, /战绩 and the
    end-of-game summary as pictures when a font that renders Chinese is found (default
    true; ``PAIZHUO_FONT`` names the font file).
    ``PAIZHUO_FAST_DISPATCH`` — run the plugin's matchers through its own dispatchers
    (default true; false: registered with NoneBot like any plugin's; see
    ``plugins/paizhuo/internals``). ``DATABASE_BUSY_TIMEOUT`` — seconds a SQLite write waits for another
    process's write lock before the change fails (and is undone).

    Sending (发送, QQ rate limits / 风控): ``SEND_RATE`` — messages per second the account
    may send on average (default 1, as go-cqhttp's own limiter; ``0``: no pacing);
    ``SEND_BURST`` — how many may go at once after a quiet spell (default 3: one move's
    group message and hand); ``SEND_INTERVAL`` — older setting, used when
    ``SEND_RATE`` is not given: least seconds between two messages (rate ``1/interval``);
    ``ONEBOT_CALL_TIMEOUT`` — seconds one OneBot call may take before it counts as failed
    (default 5); ``SEND_RETRIES`` — tries of a failed group message; ``SEND_BACKOFF_MAX``
    — longest pause, in seconds, of a conversation (group or private chat) whose sends
    keep failing (muted, kicked). ``SEND_THROTTLE_CONVERSATIONS`` conversations failing
    within ``SEND_THROTTLE_WINDOW`` seconds slow the whole account down (halved, one step
    back each ``SEND_RECOVER_AFTER`` quiet seconds). Commands: more than
    ``COMMAND_LIMIT`` commands of one sender (moves and private answers excepted) in
    ``COMMAND_WINDOW`` seconds and that sender's commands are ignored for
    ``COMMAND_SILENCE`` seconds (``COMMAND_LIMIT=0``: no limit). Refusals: more than ``REFUSAL_LIMIT`` refusals of one
    user's moves or answers in ``REFUSAL_WINDOW`` seconds and that user's further refusals
    are dropped silently for ``REFUSAL_SILENCE`` seconds (``REFUSAL_LIMIT=0``: no limit).
    ``AI_WORKERS`` — worker processes for 电脑难度 困难's search (default 1);
    ``AI_SEARCHES`` — searches running at once at most; more fall back to 普通 (default 2)."""

    DEFAULT_SEND_RATE: ClassVar[float] = 1.0

    database_url: str = "sqlite+aiosqlite:///data/paizhuo.db"
    database_busy_timeout: float = 30.0
    deal_seed: int | None = None
    send_rate: float | None = None
    send_burst: int = 3
    send_interval: float | None = None
    onebot_call_timeout: float = 5.0
    send_retries: int = 3
    onebot_http_post: bool = False
    allow_empty_token: bool = False
    computer_delay: float = 1.0
    paizhuo_bare_commands: str = "all"
    paizhuo_images: bool = True
    paizhuo_font: str = ""
    paizhuo_fast_dispatch: bool = True
    send_backoff_max: float = 30.0
    refusal_limit: int = 5
    refusal_window: float = 30.0
    refusal_silence: float = 60.0
    send_throttle_conversations: int = 3
    send_throttle_window: float = 30.0
    send_recover_after: float = 60.0
    command_limit: int = 10
    command_window: float = 60.0
    command_silence: float = 60.0
    ai_workers: int = 1
    ai_searches: int = 2

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
            raise ValueError("ONEBOT_CALL_TIMEOUT must be positive")
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
