"""End to end: a bot configured with the settings' old names (no ``PAIZHUO_`` prefix)
still reads them and says so once at start-up; the prefixed name wins over the old one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tools.onebot_sim import BotProcess, OneBotSim

GROUP = 72001
TOKEN = "old"
A = 7201


async def test_old_names_still_work_with_one_deprecation_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAIZHUO_DEAL_SEED", raising=False)
    old_db, new_db = tmp_path / "old.db", tmp_path / "new.db"
    bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                     env={"DATABASE_URL": f"sqlite+aiosqlite:///{old_db}",
                          "DEAL_SEED": "5", "COMMAND_LIMIT": "0",
                          # both names set: the prefixed one is used
                          "SEND_INTERVAL": "0.005", "PAIZHUO_SEND_INTERVAL": "0.005",
                          "COMPUTER_DELAY": "100", "PAIZHUO_COMPUTER_DELAY": "0.01"})
    sim = OneBotSim(self_id=10001)
    sim.add_member(GROUP, A, "甲")
    sim.add_friend(A, "甲")
    async with bot:
        await sim.connect(bot.url, TOKEN)
        try:
            await sim.group_message(GROUP, A, "/开局 挖坑")
            await sim.wait_for_text("开了一桌", kind="group")
            since = sim.mark()
            await sim.group_message(GROUP, A, "/加机器人 2")
            # computer players wait PAIZHUO_COMPUTER_DELAY (0.01 s), not COMPUTER_DELAY
            # (100 s): their moves come while the test waits
            await sim.wait_for(lambda s: s.kind == "group" and "电脑" in s.text
                               and ("叫" in s.text or " 出 " in s.text), since=since, timeout=30)
        finally:
            await sim.close()
    assert old_db.exists() and not new_db.exists()
    with sqlite3.connect(old_db) as conn:  # DATABASE_URL was used
        assert conn.execute("select count(*) from live_tables").fetchone()[0] == 1
    lines = [line for line in bot.log_text().splitlines() if "已过时" in line]
    assert len(lines) == 1, lines
    for name in ("DATABASE_URL", "DEAL_SEED", "COMMAND_LIMIT", "SEND_INTERVAL",
                 "COMPUTER_DELAY"):
        assert f"{name} → PAIZHUO_{name}" in lines[0]
    assert "PAIZHUO_IMAGES →" not in lines[0] and "HOST →" not in lines[0]
