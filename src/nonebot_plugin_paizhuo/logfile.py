"""Logs to a rotating file as well as the terminal (``PAIZHUO_LOG_FILE``).

``PAIZHUO_LOG_FILE`` names the file (a relative path counts from the directory the bot was
started in); empty: terminal only. ``bot.py`` gives it ``logs/paizhuo.log`` beside itself
when the setting is not there at all, so the standalone bot keeps its logs by default; in
a host bot it is off unless set (the host decides about its logs). The file gets what the
terminal gets (every plugin's lines, at ``LOG_LEVEL``), without colours; it is rotated
when it reaches ``PAIZHUO_LOG_ROTATION`` (default ``10 MB``; loguru's syntax: a size such
as ``5 MB``, or a time such as ``00:00`` or ``1 week``), and ``PAIZHUO_LOG_RETENTION`` old
files are kept (default 10), each named with the time it was rotated.
"""

from __future__ import annotations

from pathlib import Path

from nonebot import get_driver, logger

from .config import plugin_config

FORMAT = "{time:YYYY-MM-DD HH:mm:ss.SSS} [{level}] {name} | {message}"
"""The file's lines: the terminal's, with the year (the file outlives the session)."""

_sink: tuple[int, Path] | None = None


def start() -> Path | None:
    """Add the file of ``PAIZHUO_LOG_FILE`` to the logger once per process (later calls
    return the same file): its path, or ``None`` when the setting is empty or not set, or
    the file cannot be used (:func:`add_file`)."""
    global _sink
    if _sink is not None:
        return _sink[1]
    config = plugin_config()
    if not (config.paizhuo_log_file or "").strip():
        return None
    path = Path(config.paizhuo_log_file.strip()).expanduser().resolve()
    sink = add_file(path, get_driver().config.log_level, config.paizhuo_log_rotation,
                    config.paizhuo_log_retention)
    if sink is None:
        return None
    _sink = (sink, path)
    return path


def add_file(path: Path, level: str | int, rotation: str, retention: int) -> int | None:
    """Log to ``path`` too, at ``level``: rotated at ``rotation`` (loguru's size or time),
    ``retention`` old files kept. Returns the logger's sink id (``logger.remove`` takes it
    away), or ``None`` after one ERROR line when the logger refuses the rotation or the
    file cannot be opened (the bot goes on logging to the terminal only)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = logger.add(path, level=level, format=FORMAT, colorize=False, diagnose=False,
                          encoding="utf-8", rotation=rotation, retention=retention)
    except (OSError, ValueError, TypeError) as err:
        logger.error(f"牌桌: 日志文件 {path} 用不了（{err}），日志只输出到终端；"
                     "请检查 PAIZHUO_LOG_FILE / PAIZHUO_LOG_ROTATION / PAIZHUO_LOG_RETENTION")
        return None
    logger.info(f"牌桌: 日志同时写入 {path}（到 {rotation} 换新文件，保留 {retention} 个旧文件）")
    return sink
