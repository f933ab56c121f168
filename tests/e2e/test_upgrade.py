"""An upgrade as an operator does it, over the real bot: the previous release runs from
its own folder with its defaults (database ``data/paizhuo.db`` beside ``bot.py``), a game
is half played, the bot is stopped, the folder is brought to this version (its code
replaced, the database and everything else kept) and started again: the saved game goes
on to its end and is recorded once, in the same database file — found where the previous
release left it, migrated on start-up, never replaced by a new one.

"The previous release": the project has not published releases; it is the code at the
commit CHANGELOG.md names for 0.1.0 (:data:`PREVIOUS_RELEASE`, the latest commit before
the 0.2.0 changes), taken from the git history. Its packages are put first on its
``PYTHONPATH``; this version runs from the installed packages, as after ``pip install``."""

from __future__ import annotations

import io
import random
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tools.kill_soak import KillPolicy, Session, record_counts

REPO = Path(__file__).resolve().parents[2]
PREVIOUS_RELEASE = "db23bcd"
"""0.1.0 (CHANGELOG.md): the latest commit before 0.2.0."""


def has_previous_release() -> bool:
    if shutil.which("git") is None:
        return False
    done = subprocess.run(["git", "cat-file", "-e", f"{PREVIOUS_RELEASE}^{{commit}}"],
                          cwd=REPO, capture_output=True)
    return done.returncode == 0


def changelog_names_the_previous_release() -> bool:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    return bool(re.search(rf"^## 0\.1\.0 — 提交 {PREVIOUS_RELEASE}$", text, re.M))


def test_the_changelog_names_the_previous_release() -> None:
    assert changelog_names_the_previous_release()


@pytest.mark.skipif(not has_previous_release(),
                    reason=f"no git history with {PREVIOUS_RELEASE} (the previous release)")
async def test_a_game_saved_by_the_previous_release_plays_on_after_the_upgrade(
        tmp_path: Path) -> None:
    install = tmp_path / "paizhuo-bot"  # the operator's folder: a checkout of the release
    archive = subprocess.run(["git", "archive", "--format=tar", PREVIOUS_RELEASE], cwd=REPO,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(install, filter="data")
    assert not (install / "src" / "nonebot_plugin_paizhuo" / "version.py").exists()  # 0.1.0

    session = Session(tmp_path, size=3, games=1, rng=random.Random(5), deal_seed=3,
                      declare=["暗", "暗", "暗"], policy=KillPolicy(max_kills=0), root=install)
    # the release's defaults: no PAIZHUO_DATABASE_URL, no log file setting
    session.bot.database_url = None
    session.db = install / "data" / "paizhuo.db"
    session.bot.extra_env.update({"PYTHONPATH": str(install / "src"), "PAIZHUO_LOG_FILE": None})
    await session.start()
    try:
        while True:
            st = session.state()
            if st and st["status"] == "playing" and len(st["engine"]["log"]) >= 6:
                break
            action = session.next_action(st)
            assert action is not None
            if action.kind in ("hand", "table"):
                await session.exchange(action)
            else:
                await session.perform(action, st)
    finally:
        await session.close()  # SIGTERM, as systemctl stop
    before = session.state()
    old_log = session.bot.log_text()
    assert "牌桌 0." not in old_log and "Succeeded to load plugin \"nonebot_plugin_paizhuo\"" in old_log
    assert record_counts(session.db) == {}
    size_before = session.db.stat().st_size

    # the upgrade: this version's code in the same folder (git pull, then pip install)
    shutil.rmtree(install / "src")
    shutil.copy2(REPO / "bot.py", install / "bot.py")
    session.bot.extra_env.pop("PYTHONPATH")
    mark = len(session.bot.log_text())
    await session.run()  # starts the bot, plays the saved game to its end, checks, stops

    log = session.bot.log_text()[mark:]
    assert re.search(r"牌桌 \d+\.\d+\.\d+（nonebot-plugin-paizhuo）", log)
    assert f"数据库在插件数据目录：{install / 'data' / 'paizhuo.db'}" in log
    assert "旧位置" not in log and "ERROR" not in log
    after = session.state()
    assert after["status"] == "finished"
    assert after["engine"]["log"][:len(before["engine"]["log"])] == before["engine"]["log"]
    assert list(record_counts(session.db).values()) == [1]
    assert session.db.stat().st_size >= size_before
    assert sorted(p.name for p in (install / "data").iterdir()
                  if not p.name.endswith(("-wal", "-shm"))) == ["paizhuo.db", "paizhuo.db.lock"]
    # bot.py's log file, by default beside it
    assert "牌桌: 数据库已就绪" in (install / "logs" / "paizhuo.log").read_text("utf-8")
