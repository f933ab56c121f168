"""Plugin settings, read by NoneBot from the environment and ``.env`` (see ``.env.example``)."""

from __future__ import annotations

from pydantic import BaseModel


class Config(BaseModel):
    """``DATABASE_URL`` — any SQLAlchemy async URL; default a SQLite file under ``data/``."""

    database_url: str = "sqlite+aiosqlite:///data/paizhuo.db"
