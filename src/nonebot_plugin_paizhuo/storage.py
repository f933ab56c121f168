"""Where the plugin keeps its files: the database (and the ``<file>.lock`` beside a SQLite
file) in the plugin data directory of ``nonebot-plugin-localstore``, where NoneBot's
plugins keep theirs, unless ``PAIZHUO_DATABASE_URL`` names a database.

- In a host bot that directory is localstore's (``~/.local/share/nonebot2/
  nonebot_plugin_paizhuo/`` by default; ``LOCALSTORE_DATA_DIR``,
  ``LOCALSTORE_PLUGIN_DATA_DIR`` or ``LOCALSTORE_USE_CWD`` move it), so the database no
  longer depends on the directory the host was started in.
- The standalone ``bot.py`` sets that directory to ``data/`` beside itself: its database
  stays ``data/paizhuo.db``, where it always was.
- A database at the old default place (``data/paizhuo.db`` under the directory the bot was
  started in: versions before 0.2.0 put it there when ``PAIZHUO_DATABASE_URL`` was not
  set) is found and kept: it is used, with a WARNING saying how to move it, and never
  replaced by a new empty one.

The choice is made once (the first :func:`database` call, at start-up) and kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nonebot import logger, require

require("nonebot_plugin_localstore")

import nonebot_plugin_localstore as localstore  # noqa: E402

from .config import plugin_config  # noqa: E402

DATABASE_FILE = "paizhuo.db"
OLD_PLACE = Path("data") / DATABASE_FILE
"""The default database before 0.2.0, relative to the directory the bot was started in."""


@dataclass(frozen=True)
class Database:
    """The database the plugin uses: ``url`` (a SQLAlchemy async URL), ``source`` —
    ``"setting"`` (``PAIZHUO_DATABASE_URL``), ``"data_dir"`` (the plugin data directory)
    or ``"old_place"`` (an existing ``data/paizhuo.db`` under the start directory) — and
    ``note``: a WARNING to log, or empty."""

    url: str
    source: str
    note: str = ""


def choose(setting: str, data_dir: Path, start_dir: Path) -> Database:
    """Pick the database: ``setting`` (``PAIZHUO_DATABASE_URL``) when not empty; else the
    old default place ``start_dir/data/paizhuo.db`` when a file is there and it is not
    the data directory's own file; else ``data_dir/paizhuo.db``. Pure (reads only whether
    the two files exist); paths in the URL are absolute."""
    if setting.strip():
        return Database(setting.strip(), "setting")
    new = (data_dir / DATABASE_FILE).resolve()
    old = (start_dir / OLD_PLACE).resolve()
    if old != new and old.is_file():
        both = (f"；{new} 也有一个数据库，没有使用它" if new.exists() else "")
        note = (f"牌桌: 使用旧位置的数据库 {old}（以前的版本默认放在启动目录的 data/ 下）{both}。"
                f"要搬到插件数据目录：停掉机器人，把 {old.name}（和旁边的 -wal、-shm 文件）移到 "
                f"{new.parent}/，再启动；或者在 .env 里写 PAIZHUO_DATABASE_URL=sqlite+aiosqlite:///{old}")
        return Database(f"sqlite+aiosqlite:///{old}", "old_place", note)
    return Database(f"sqlite+aiosqlite:///{new}", "data_dir")


_chosen: Database | None = None


def database() -> Database:
    """The database of this process, chosen on the first call (:func:`choose` with the
    plugin's setting, localstore's plugin data directory, created when it is used, and the
    current directory) and kept; logs the choice's WARNING once."""
    global _chosen
    if _chosen is None:
        setting = plugin_config().database_url
        data_dir = Path() if setting.strip() else localstore.get_plugin_data_dir()
        _chosen = choose(setting, data_dir, Path.cwd())
        if _chosen.note:
            logger.warning(_chosen.note)
        elif _chosen.source == "data_dir":
            logger.info(f"牌桌: 数据库在插件数据目录：{_chosen.url.split(':///', 1)[1]}")
    return _chosen


def forget() -> None:
    """Choose again on the next :func:`database` call (tests that change the settings)."""
    global _chosen
    _chosen = None
