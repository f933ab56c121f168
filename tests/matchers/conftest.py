"""nonebug set-up: the real plugin, a real SQLite file per test session, a clean table
registry and database before every test."""

from __future__ import annotations

import tempfile
from pathlib import Path

import nonebug_internals
import pytest
from nonebug import NONEBOT_INIT_KWARGS

DB_DIR = Path(tempfile.mkdtemp(prefix="paizhuo-nonebug-"))


INIT = {
    "paizhuo_database_url": f"sqlite+aiosqlite:///{DB_DIR / 'test.db'}",
    "superusers": {"9999"},
    "command_start": {"/"},
    "driver": "~fastapi",
    "log_level": "WARNING",
    "paizhuo_send_interval": 0,
    "paizhuo_send_retries": 1,
    "paizhuo_command_limit": 0,  # a test of the per-sender limit sets its own
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
    nonebot.load_plugin("nonebot_plugin_paizhuo")
    from nonebot_plugin_paizhuo.internals import dispatch

    nonebug_internals.check()
    if dispatch.ADOPTED:
        nonebug_internals.mark_adopted_matchers(lambda: dispatch.OURS)


@pytest.fixture(autouse=True)
async def clean_state(nonebug_init: None):
    from sqlalchemy import text

    from nonebot_plugin_paizhuo import accounts, ordering
    from nonebot_plugin_paizhuo.actions.deadlines import cancel_timers
    from nonebot_plugin_paizhuo.config import reset_plugin_config
    from nonebot_plugin_paizhuo.messaging import reset_refusals, stop_queues
    from nonebot_plugin_paizhuo.tables import REGISTRY

    cancel_timers()
    await stop_queues()  # a fresh send scheduler: no back-off or slow-down of another test
    reset_plugin_config()  # the settings as NoneBot's config has them now
    ordering.GATE.reset()
    reset_refusals()
    REGISTRY.reset()
    accounts.reset()
    store = REGISTRY.store
    assert store is not None, "the plugin's startup hook should have opened the store"
    async with store.engine.begin() as conn:
        for table in ("player_records", "game_records", "live_tables", "group_settings",
                      "seen_events", "account_holds"):
            await conn.execute(text(f"DELETE FROM {table}"))
    store.forget_cached()  # the rows went behind the store's back
    yield
    cancel_timers()
    REGISTRY.reset()
    accounts.reset()
    reset_plugin_config()


@pytest.fixture(autouse=True)
def nonebug_mismatches_fail(monkeypatch):
    """nonebug reports an unexpected or mismatching API call with ``pytest.fail`` raised
    inside the call — inside the send queue or a timer task, where it would end that task
    and never reach the test. Record every such failure and fail the test with it."""
    failures = nonebug_internals.record_api_failures(monkeypatch)
    yield
    assert not failures, failures[0]


SEND_APIS = {"send_group_msg": "group", "send_group_forward_msg": "group",
             "send_private_msg": "private", "send_private_forward_msg": "private"}


def _conversation(api: str, data: dict) -> tuple[str, object] | None:
    kind = SEND_APIS.get(api)
    if kind is None:
        return None
    return kind, data.get("group_id") if kind == "group" else data.get("user_id")


@pytest.fixture(autouse=True)
def sends_ordered_per_conversation(monkeypatch):
    """The send scheduler keeps the order of messages within one conversation (a group, a
    private chat) but serves conversations by priority (groups before private chats), so a
    test's expected sends may arrive in another order across conversations. An expected
    send is therefore taken out of turn when every expectation before it is a send to
    another conversation; within a conversation, and for every other call, the order
    stays strict."""
    nonebug_internals.reorder_expected_sends(monkeypatch, _conversation)


@pytest.fixture
def unexpected_calls_fail(monkeypatch: pytest.MonkeyPatch):
    """A call that no test expects fails the test (nonebug raises it in the send worker,
    where it would otherwise vanish)."""
    from nonebug.mixin.call_api import ApiContext

    failures: list[str] = []
    original = ApiContext.got_call_api

    def checked(self, adapter, api, **data):
        try:
            return original(self, adapter, api, **data)
        except pytest.fail.Exception as err:
            failures.append(str(err))
            raise

    monkeypatch.setattr(ApiContext, "got_call_api", checked)
    yield
    assert not failures, failures


@pytest.fixture
def clock():
    """The tables' deadlines on a :class:`clock_support.SteppedClock` (``tables.use_clock``)
    for one test: time moves only when the test moves it."""
    from clock_support import SteppedClock

    from nonebot_plugin_paizhuo import tables  # after nonebug's init: the plugin needs it

    fake = SteppedClock()
    tables.use_clock(fake)
    yield fake
    tables.use_clock(tables.SystemClock())
