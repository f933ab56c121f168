"""Plugin settings, read by NoneBot from the environment and ``.env`` (see ``.env.example``)."""

from __future__ import annotations

from pydantic import BaseModel, field_validator


class Config(BaseModel):
    """``DATABASE_URL`` — any SQLAlchemy async URL; default a SQLite file under ``data/``.
    ``DEAL_SEED`` — empty (default): every deal is random; a number: deals are derived
    from it, the group and the game number, so a session can be replayed (demos, tests).
    ``SEND_INTERVAL`` — least seconds between two messages of one bot account (QQ rate
    limits, 风控); ``SEND_RETRIES`` — tries of a failed group message before it is logged
    and dropped. ``COMPUTER_DELAY`` — seconds a computer player (电脑) waits before it
    acts, so people can follow the table.
    ``ONEBOT_HTTP_POST`` — serve the OneBot HTTP POST route (``/onebot/v11/http``);
    off by default, needs ``ONEBOT_SECRET`` when on. ``ALLOW_EMPTY_TOKEN`` — let the bot
    start with an empty ``ONEBOT_ACCESS_TOKEN`` on a non-loopback ``HOST`` (see
    ``plugins/paizhuo/guard.py``).
    ``PAIZHUO_BARE_COMMANDS`` — which command words are answered without the
    ``/牌桌`` namespace (``all`` by default; e.g. ``all,-帮助,-help``; see
    ``matchers/namespace.py``). ``PAIZHUO_IMAGES`` — send /排行, /战绩 and the
    end-of-game summary as pictures when a font that renders Chinese is found (default
    true; ``PAIZHUO_FONT`` names the font file).
    ``DATABASE_BUSY_TIMEOUT`` — seconds a SQLite write waits for another
    process's write lock before the change fails (and is undone)."""

    database_url: str = "sqlite+aiosqlite:///data/paizhuo.db"
    database_busy_timeout: float = 30.0
    deal_seed: int | None = None
    send_interval: float = 0.3
    send_retries: int = 3
    onebot_http_post: bool = False
    allow_empty_token: bool = False
    computer_delay: float = 1.0
    paizhuo_bare_commands: str = "all"
    paizhuo_images: bool = True
    paizhuo_font: str = ""

    @field_validator("deal_seed", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("onebot_http_post", "allow_empty_token", mode="before")
    @classmethod
    def _empty_is_false(cls, value: object) -> object:
        return False if value == "" else value
