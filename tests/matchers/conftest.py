"""nonebug set-up: the real plugin, a real SQLite file per test session, a clean table
registry and database before every test."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from nonebug import NONEBOT_INIT_KWARGS

DB_DIR = Path(tempfile.mkdtemp(prefix="paizhuo-nonebug-"))


INIT = {
    "database_url": f"sqlite+aiosqlite:///{DB_DIR / 'test.db'}",
    "superusers": {"9999"},
    "command_start": {"/"},
    "driver": "~fastapi",
    "log_level": "WARNING",
    "send_interval": 0,
    "send_retries": 1,
    "paizhuo_images": False,  # texts, whatever fonts this machine has (tests turn it on)
    "paizhuo_font": "",
    "paizhuo_bare_commands": "all",
}


def pytest_configure(config: pytest.Config) -> None:
    # NoneBot is initialised here, before the test modules (which import the plugin) are
    # collected; nonebug's own init then finds it done and installs its provider.
    import nonebot
    from nonebot.adapters.onebot.v11 import Adapter

    config.stash[NONEBOT_INIT_KWARGS] = INIT
    nonebot.init(**INIT)
    nonebot.get_driver().register_adapter(Adapter)
    nonebot.load_plugin("plugins.paizhuo")


@pytest.fixture(autouse=True)
async def clean_state(nonebug_init: None):
    from sqlalchemy import text

    from plugins.paizhuo import accounts
    from plugins.paizhuo.actions import cancel_timers
    from plugins.paizhuo.tables import REGISTRY

    cancel_timers()
    REGISTRY.reset()
    accounts.reset()
    store = REGISTRY.store
    assert store is not None, "the plugin's startup hook should have opened the store"
    async with store.engine.begin() as conn:
        for table in ("player_records", "game_records", "live_tables", "group_settings"):
            await conn.execute(text(f"DELETE FROM {table}"))
    yield
    cancel_timers()
    REGISTRY.reset()
    accounts.reset()


@pytest.fixture(autouse=True)
def nonebug_mismatches_fail(monkeypatch):
    """nonebug reports an unexpected or mismatching API call with ``pytest.fail`` raised
    inside the call — inside the send queue or a timer task, where it would end that task
    and never reach the test. Record every such failure and fail the test with it."""
    import nonebug.mixin.call_api as call_api

    failures: list[str] = []
    original = call_api.pytest.fail

    def fail(reason: str = "", pytrace: bool = True) -> None:
        failures.append(reason)
        original(reason, pytrace=pytrace)

    monkeypatch.setattr(call_api.pytest, "fail", fail)
    yield
    assert not failures, failures[0]
