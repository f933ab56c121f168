"""Plugin settings, read by NoneBot from the environment and ``.env`` (see ``.env.example``)."""

from __future__ import annotations

from pydantic import BaseModel, field_validator


class Config(BaseModel):
    """``DATABASE_URL`` — any SQLAlchemy async URL; default a SQLite file under ``data/``.
    ``DEAL_SEED`` — empty (default): every deal is random; a number: deals are derived
    from it, the group and the game number, so a session can be replayed (demos, tests).
    ``SEND_INTERVAL`` — least seconds between two messages of one bot account (QQ rate
    limits, 风控); ``SEND_RETRIES`` — tries of a failed group message before it is logged
    and dropped. ``DATABASE_BUSY_TIMEOUT`` — seconds a SQLite write waits for another
    process's write lock before the change fails (and is undone)."""

    database_url: str = "sqlite+aiosqlite:///data/paizhuo.db"
    database_busy_timeout: float = 30.0
    deal_seed: int | None = None
    send_interval: float = 0.3
    send_retries: int = 3

    @field_validator("deal_seed", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value
