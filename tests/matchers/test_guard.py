"""The pure start-up checks of ``src/nonebot_plugin_paizhuo/guard.py`` (安全): loopback hosts, which
settings are refused, password masking, SQLite files. The checks against the real bot
are in ``tests/e2e/test_auth.py``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nonebot_plugin_paizhuo.guard import (
    Settings,
    is_loopback,
    mask_url,
    settings_problems,
    sqlite_file,
)


def test_settings_checks_and_masking() -> None:
    """The pure checks: loopback hosts, which combinations are refused, password masking,
    SQLite files (in-memory has none)."""
    assert all(map(is_loopback, ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.5", "example.org"]))

    def problems(**changes: Any) -> list[str]:
        base: Mapping[str, Any] = dict(host="127.0.0.1", port=8080, access_token="", secret="",
                                       http_post=False, allow_empty_token=False,
                                       superusers=frozenset(), database_url="sqlite://")
        return settings_problems(Settings(**{**base, **changes}))

    assert problems() == []
    assert problems(host="0.0.0.0", access_token="t") == []
    assert problems(host="0.0.0.0", allow_empty_token=True) == []
    assert len(problems(host="0.0.0.0")) == 1
    assert len(problems(http_post=True)) == 1
    assert problems(http_post=True, secret="s") == []
    masked = mask_url("postgresql+asyncpg://paizhuo:hunter2@db.local/paizhuo")
    assert "hunter2" not in masked and "***" in masked and "db.local" in masked
    assert sqlite_file("sqlite+aiosqlite://") is None
    assert sqlite_file("sqlite+aiosqlite:///:memory:") is None
    assert sqlite_file("postgresql+asyncpg://u:p@h/d") is None
    assert sqlite_file("sqlite+aiosqlite:///data/x.db") == Path("data/x.db").resolve()
