"""Persistence layer of the 牌桌 bot (SQLAlchemy 2 async + alembic; no NoneBot here).

Typical use::

    store = Store("sqlite+aiosqlite:///data/paizhuo.db")
    await store.migrate()
    ...
    await store.close()
"""

from .records import FinishedGame, FinishedPlayer, GameStats
from .store import (
    AccountLost,
    LiveTableTaken,
    PendingAnnouncement,
    Store,
    alembic_config,
    encode_state,
)

__all__ = ["AccountLost", "FinishedGame", "FinishedPlayer", "GameStats", "LiveTableTaken",
           "PendingAnnouncement", "Store",
           "alembic_config", "encode_state"]
