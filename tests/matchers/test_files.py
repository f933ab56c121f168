"""Where the plugin keeps its files (``storage.py``, ``logfile.py``): the database from
``PAIZHUO_DATABASE_URL``, else in the plugin data directory, except that a database at the
old default place (``data/paizhuo.db`` under the start directory) is found and kept; the log
file rotated at its size, keeping so many old files, and a setting the logger refuses
leaving the terminal log alone. (Over the real bot: ``tests/e2e/test_upgrade.py`` for
``bot.py``'s defaults, ``tests/e2e/test_host_install.py`` inside a host.)"""

from __future__ import annotations

from pathlib import Path

from nonebot import logger

from nonebot_plugin_paizhuo import logfile
from nonebot_plugin_paizhuo.storage import choose


def test_the_setting_wins(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "paizhuo.db").touch()  # even with a database at the old place
    chosen = choose(" postgresql+asyncpg://u:p@h/db ", tmp_path / "dir", tmp_path)
    assert (chosen.url, chosen.source, chosen.note) == ("postgresql+asyncpg://u:p@h/db", "setting", "")


def test_the_plugin_data_directory_by_default(tmp_path: Path) -> None:
    chosen = choose("", tmp_path / "store", tmp_path / "started-here")
    assert chosen.url == f"sqlite+aiosqlite:///{tmp_path / 'store' / 'paizhuo.db'}"
    assert chosen.source == "data_dir" and chosen.note == ""


def test_a_database_at_the_old_place_is_found_and_kept(tmp_path: Path) -> None:
    old = tmp_path / "host" / "data" / "paizhuo.db"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"SQLite format 3\0")
    chosen = choose("", tmp_path / "store", tmp_path / "host")
    assert chosen.url == f"sqlite+aiosqlite:///{old}" and chosen.source == "old_place"
    assert str(old) in chosen.note and str(tmp_path / "store") in chosen.note
    assert "也有一个数据库" not in chosen.note
    # a database in the data directory too: still the old one, and the note names both
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "paizhuo.db").touch()
    both = choose("", tmp_path / "store", tmp_path / "host")
    assert both.url == chosen.url and "也有一个数据库" in both.note
    assert old.read_bytes() == b"SQLite format 3\0"  # found, never touched


def test_bot_py_data_directory_is_the_old_place_itself(tmp_path: Path) -> None:
    """bot.py's data directory is data/ beside it: started there, the old place and the
    new one are one file, used without a warning."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "paizhuo.db").touch()
    chosen = choose("", tmp_path / "data", tmp_path)
    assert chosen.source == "data_dir" and chosen.note == ""
    assert chosen.url == f"sqlite+aiosqlite:///{tmp_path / 'data' / 'paizhuo.db'}"


def test_the_log_file_rotates_and_keeps_so_many_old_files(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "paizhuo.log"
    sink = logfile.add_file(path, "INFO", "2 KB", 2)
    assert sink is not None
    try:
        for n in range(200):
            logger.info(f"line {n:03d} " + "x" * 40)
    finally:
        logger.remove(sink)
    files = sorted(p.name for p in path.parent.iterdir())
    assert "paizhuo.log" in files and len(files) == 3, files  # the current one and 2 old
    assert all(p.stat().st_size < 4096 for p in path.parent.iterdir())
    text = path.read_text("utf-8")
    assert "line 199" in text and "[INFO]" in text and "\x1b[" not in text  # no colours
    assert text.startswith("20")  # the year leads each line


def test_a_rotation_the_logger_refuses_leaves_the_terminal_only(tmp_path: Path) -> None:
    lines: list[str] = []
    watch = logger.add(lines.append, level="ERROR", format="{message}")
    try:
        assert logfile.add_file(tmp_path / "x.log", "INFO", "every blue moon", 3) is None
    finally:
        logger.remove(watch)
    assert len(lines) == 1 and "PAIZHUO_LOG_ROTATION" in lines[0]
    assert not (tmp_path / "x.log").exists()
