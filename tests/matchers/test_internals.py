"""The NoneBot internals the plugin uses (src/nonebot_plugin_paizhuo/internals): checked before use,
fast dispatch falls back to NoneBot's own matching when one is missing or the switch is
off, and the guarded adapter's overrides are checked at start-up."""

from __future__ import annotations

import nonebug_internals
import pytest
from nonebot.matcher import matchers

from nonebot_plugin_paizhuo import guard, internals
from nonebot_plugin_paizhuo.config import plugin_config
from nonebot_plugin_paizhuo.internals import dispatch


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch):
    """Set ``PAIZHUO_FAST_DISPATCH`` (whatever the run's own setting) for the test."""
    config = plugin_config()

    def set_to(on: bool) -> None:
        changed = config.model_copy(update={"paizhuo_fast_dispatch": on})
        monkeypatch.setattr(internals, "plugin_config", lambda: changed)

    return set_to


def test_the_internals_of_the_installed_versions_are_all_there() -> None:
    assert internals.dispatch_problems() == []
    assert internals.adapter_problems() == []
    assert nonebug_internals.problems() == []


@pytest.mark.parametrize(("module", "name", "named"), [
    ("nonebot.rule.TrieRule", "get_value", "TrieRule.get_value"),
    ("nonebot.matcher.Matcher", "destroy", "Matcher.destroy"),
    ("nonebot.message", "check_and_run_matcher", "check_and_run_matcher"),
    ("nonebot.rule.CommandRule", "__init__", "CommandRule"),
])
def test_a_missing_internal_is_named_and_fast_dispatch_falls_back(
        monkeypatch: pytest.MonkeyPatch, switch, module: str, name: str, named: str) -> None:
    switch(True)
    if name == "__init__":  # a constructor that takes other arguments now
        def init(self, *args, **kwargs):
            raise TypeError("changed")
        monkeypatch.setattr(module + "." + name, init)
    else:
        monkeypatch.delattr(module + "." + name)
    problems = internals.dispatch_problems()
    assert any(named in problem for problem in problems), problems
    warnings: list[str] = []
    monkeypatch.setattr(internals.logger, "warning", warnings.append)
    assert internals.decide() is False
    assert len(warnings) == 1 and named in warnings[0] and "PAIZHUO_FAST_DISPATCH" in warnings[0]


def test_a_changed_signature_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import nonebot.rule

    monkeypatch.setattr(nonebot.rule.TrieRule, "get_value",
                        classmethod(lambda cls, event, bot, state: None))
    assert "TrieRule.get_value(bot, event, state)" in internals.dispatch_problems()


def test_the_switch_off_means_no_fast_dispatch(monkeypatch: pytest.MonkeyPatch,
                                                switch) -> None:
    warnings: list[str] = []
    monkeypatch.setattr(internals.logger, "warning", warnings.append)
    switch(True)
    assert internals.decide() is True
    switch(False)
    assert internals.plugin_config().paizhuo_fast_dispatch is False
    assert internals.decide() is False
    assert warnings == []  # a choice, not a fault


def test_a_missing_adapter_internal_refuses_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from nonebot.adapters.onebot.v11 import Adapter

    monkeypatch.delattr(Adapter, "_check_access_token")
    assert internals.adapter_problems() == ["Adapter._check_access_token"]
    import nonebot

    with pytest.raises(SystemExit, match="_check_access_token"):
        guard.check_startup(nonebot.get_driver())


def test_a_missing_nonebug_internal_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from nonebug.mixin.call_api import ApiContext

    monkeypatch.delattr(ApiContext, "got_call_api")
    with pytest.raises(pytest.UsageError, match="ApiContext.got_call_api"):
        nonebug_internals.check()


def test_the_matchers_are_where_the_switch_says() -> None:
    """Fast dispatch: only the dispatchers are in NoneBot's registry; off: every matcher
    of ours is, and there are no dispatchers."""
    registered = {m for priority in matchers for m in matchers[priority] if dispatch.ours(m)}
    assert len(dispatch.OURS) >= 20
    if internals.fast_dispatch():
        assert dispatch.ADOPTED and registered == set(dispatch.DISPATCHERS.values())
    else:
        assert not dispatch.ADOPTED and not dispatch.DISPATCHERS
        assert set(dispatch.OURS) <= registered
