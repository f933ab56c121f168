"""``PAIZHUO_BARE_COMMANDS`` leaves nothing behind for a word it gives away: NoneBot's
command prefix table (one for every plugin of a bot) gets only the words the plugin answers
bare, so a host plugin with its own ``/帮助`` logs no ``Duplicated prefix rule``
(matchers/namespace.py). Each case loads NoneBot afresh in a subprocess (the table is
filled when a plugin is imported): a host plugin of its own with ``/帮助`` and ``/help``,
then this plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HOST_PLUGIN = '''
from nonebot import on_command
help_cmd = on_command("帮助", aliases={"help"}, priority=10, block=True)
'''

RUN = '''
import json, sys
import nonebot
from nonebot.rule import TrieRule
nonebot.init()
if sys.argv[1] == "host":
    nonebot.load_plugins("plugins")
before = set(TrieRule.prefix.keys())
assert nonebot.load_plugin("nonebot_plugin_paizhuo") is not None
from nonebot_plugin_paizhuo.matchers import namespace
added = sorted(set(TrieRule.prefix.keys()) - before)
print("RESULT " + json.dumps({"added": added, "words": sorted(namespace.command_words())},
                             ensure_ascii=False))
'''


def load(tmp_path: Path, bare: str, *, host: bool) -> tuple[str, dict]:
    """Load the plugin (after the host plugin when ``host``) with ``PAIZHUO_BARE_COMMANDS=bare``;
    NoneBot's log, and the prefixes this plugin added and its command words."""
    (tmp_path / "plugins" / "hosthelp").mkdir(parents=True, exist_ok=True)
    (tmp_path / "plugins" / "hosthelp" / "__init__.py").write_text(HOST_PLUGIN, "utf-8")
    env = {**os.environ, "DRIVER": "~none", "COMMAND_START": '["/"]', "LOG_LEVEL": "INFO",
           "PAIZHUO_BARE_COMMANDS": bare, "PAIZHUO_LOG_FILE": "",
           "PAIZHUO_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/unused.db"}
    done = subprocess.run([sys.executable, "-c", RUN, "host" if host else "alone"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    result = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return log, json.loads(result.removeprefix("RESULT "))


def test_a_word_given_away_logs_no_duplicate_beside_a_host_plugin(tmp_path: Path) -> None:
    log, found = load(tmp_path, "all,-帮助,-help", host=True)
    assert "Duplicated prefix rule" not in log, log
    assert "/帮助" not in found["added"] and "/help" not in found["added"]
    assert {"/开局", "/排行", "/牌桌", "/牌桌帮助"} <= set(found["added"])
    # the control: answered bare, the same words clash with the host's (the warning is
    # NoneBot's to give; the README says to give such words away)
    log, _ = load(tmp_path, "all", host=True)
    assert 'Duplicated prefix rule "/帮助"' in log and 'Duplicated prefix rule "/help"' in log


def test_only_bare_words_are_in_the_prefix_table(tmp_path: Path) -> None:
    _, none = load(tmp_path, "none", host=False)
    assert none["added"] == ["/牌桌"]  # the namespace itself is always answered
    _, every = load(tmp_path, "all", host=False)
    assert every["added"] == sorted(f"/{word}" for word in every["words"] + ["牌桌"])
    assert len(every["words"]) > 30  # every command module made its words this way
    _, some = load(tmp_path, "开局 加入", host=False)
    assert some["added"] == ["/加入", "/开局", "/牌桌"]
