"""The plugin's settings carry the ``PAIZHUO_`` prefix (old names still read) and its
metadata describes it to a host bot."""

from __future__ import annotations

import re
from pathlib import Path

import nonebot
import pytest

from nonebot_plugin_paizhuo.config import (
    OLD_NAMES,
    PREFIX,
    Config,
    old_names_in,
    reset_plugin_config,
    warn_old_names,
)

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_is_read_by_its_prefixed_name() -> None:
    fields = Config.model_fields
    assert set(OLD_NAMES) == {name for name in fields if not name.startswith(PREFIX)}
    config = Config.model_validate({PREFIX + name: fields[name].default for name in OLD_NAMES}
                                   | {"paizhuo_send_rate": "2", "paizhuo_deal_seed": "7",
                                      "paizhuo_database_url": "sqlite+aiosqlite:///x.db"})
    assert (config.send_rate, config.deal_seed, config.database_url) == (
        2.0, 7, "sqlite+aiosqlite:///x.db")


def test_old_names_still_read_and_the_new_name_wins() -> None:
    config = Config.model_validate({"send_rate": "3", "command_limit": "4",
                                    "paizhuo_command_limit": "6", "deal_seed": ""})
    assert (config.send_rate, config.command_limit, config.deal_seed) == (3.0, 6, None)
    assert old_names_in({"send_rate": "3", "paizhuo_command_limit": "6", "command_limit": "4",
                         "host": "127.0.0.1", "command_start": ["/"]}) == [
        "COMMAND_LIMIT", "SEND_RATE"]


def test_the_environment_is_read_by_both_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """NoneBot reads a plugin's settings from the environment by field name and alias
    only (not by validation alias): ``PAIZHUO_<NAME>`` in the environment counts."""
    monkeypatch.setenv("PAIZHUO_SEND_BURST", "7")
    monkeypatch.setenv("SEND_BURST", "2")
    monkeypatch.setenv("COMPUTER_DELAY", "0.25")
    monkeypatch.setenv("PAIZHUO_AI_SEARCHES", "5")
    config = nonebot.get_plugin_config(Config)
    assert (config.send_burst, config.computer_delay, config.ai_searches) == (
        7, 0.25, 5)
    assert warn_old_names() == ["COMPUTER_DELAY", "SEND_BURST"]


def test_one_deprecation_line_names_the_old_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from nonebot.log import logger

    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="WARNING",
                      format="{message}")
    config = nonebot.get_driver().config
    try:
        assert warn_old_names() == [] and lines == []  # the suite sets the new names only
        monkeypatch.setattr(config, "computer_delay", 0.5, raising=False)
        monkeypatch.setattr(config, "send_burst", 2, raising=False)
        assert warn_old_names() == ["COMPUTER_DELAY", "SEND_BURST"]
    finally:
        logger.remove(sink)
    assert len(lines) == 1
    assert "COMPUTER_DELAY → PAIZHUO_COMPUTER_DELAY" in lines[0]
    assert "SEND_BURST → PAIZHUO_SEND_BURST" in lines[0]
    reset_plugin_config()


def _example_settings() -> dict[str, str]:
    text = (ROOT / ".env.example").read_text("utf-8")
    return dict(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=(.*)$", text, flags=re.M))


def test_env_example_lists_every_setting_by_its_new_name() -> None:
    example = _example_settings()
    for name in Config.model_fields:
        env = name.upper() if name.startswith(PREFIX) else (PREFIX + name).upper()
        assert env in example, env
    assert not set(example) & {name.upper() for name in OLD_NAMES}
    assert "ONEBOT_API_ROOTS" in example  # HTTP POST needs it to answer
    # the example's values are valid settings
    Config.model_validate({key.lower(): value for key, value in example.items()
                           if key.startswith("PAIZHUO_")})


def test_docs_name_only_settings_that_env_example_lists() -> None:
    example = _example_settings()
    named = set()
    for path in [*sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"\bPAIZHUO_[A-Z_]+[A-Z]\b", path.read_text("utf-8")))
    named -= {"PAIZHUO_TEST_PG_URL"}  # the test suite's, not the bot's
    assert named <= set(example), named - set(example)


def test_plugin_metadata_is_complete() -> None:
    from nonebot.plugin import get_plugin

    plugin = get_plugin("nonebot_plugin_paizhuo")
    assert plugin is not None and plugin.metadata is not None
    meta = plugin.metadata
    assert meta.name == "牌桌" and meta.type == "application"
    assert meta.config is Config
    assert meta.supported_adapters == {"~onebot.v11", "~milky", "~satori", "~qq"}
    assert meta.usage.startswith("/帮助 ")  # the suite answers every word bare


def test_every_installed_side_names_itself_for_the_status_line() -> None:
    """``/牌桌 状态`` says which side the account is on: every room has a title (the
    official QQ bot's included, when its adapter is installed)."""
    from nonebot_plugin_paizhuo.port import ROOMS

    titles = {room.name: room.title for room in ROOMS}
    assert {"onebot", "milky", "satori"} <= set(titles)
    assert all(isinstance(t, str) and t for t in titles.values()), titles
    if "qq" in titles:
        assert titles["qq"] == "QQ 官方机器人"


def test_usage_follows_the_bare_command_words() -> None:
    from nonebot_plugin_paizhuo.matchers.namespace import usage_text

    config = nonebot.get_driver().config
    assert "/帮助 " in usage_text() and "/开局 " in usage_text()
    config.paizhuo_bare_commands = "all,-帮助,-help"
    reset_plugin_config()
    try:
        text = usage_text()
        assert "/牌桌 帮助 " in text and "/帮助" not in text.replace("/牌桌 帮助", "")
        assert "/开局 " in text
        config.paizhuo_bare_commands = "none"
        reset_plugin_config()
        assert "/牌桌 开局 " in usage_text() and "/牌桌 帮助 " in usage_text()
    finally:
        config.paizhuo_bare_commands = "all"
        reset_plugin_config()
