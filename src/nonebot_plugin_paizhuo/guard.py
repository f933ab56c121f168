"""Who may talk to the bot (安全), and start-up checks.

Only authenticated OneBot events reach the game:

* The reverse WebSocket (``/onebot/v11/ws``) checks ``ONEBOT_ACCESS_TOKEN`` (the
  adapter's own check) *before* anything else about the connection.
* The HTTP POST route (``/onebot/v11/http``) is not served at all unless
  ``PAIZHUO_ONEBOT_HTTP_POST=true``; then every POST must carry a valid ``X-Signature``
  (HMAC-SHA1 of the body with ``ONEBOT_SECRET``), and the bot refuses to start without a
  secret.
* One connection per QQ account (``X-Self-ID``): while a WebSocket for an id is open, a
  second one claiming that id is refused (close 1008 before the handshake, HTTP 403);
  once the first closes the id is free again. A bot created by a signed HTTP POST (it
  has no connection to close) never blocks a WebSocket: the WebSocket replaces it.
* One process per QQ account: while another process on the same database serves the
  account, its WebSocket is refused the same way (``accounts.hold``, one log line).
* A malformed WebSocket frame (not JSON, bad UTF-8, an answer nobody waits for) is logged
  and skipped; the connection stays up.
* Message events whose sender is the bot's own account are ignored by the plugin
  (:func:`is_own_message`).
* A message delivered twice (same ``message_id``, as after a reconnect) is handled once,
  and one user's messages are handled in the order they arrived (``ordering.py``).

At start-up (:func:`check_startup`, called by ``bot.py``) the bot refuses to run, with one
Chinese line saying which setting to change, when: the WebSocket listens on a
non-loopback ``HOST`` with an empty ``ONEBOT_ACCESS_TOKEN`` (unless
``PAIZHUO_ALLOW_EMPTY_TOKEN=true``); ``PAIZHUO_ONEBOT_HTTP_POST=true`` without ``ONEBOT_SECRET``; another
process already uses the same SQLite database file; or ``PORT`` is taken. It then logs
what the owner needs: the reverse WebSocket URL, whether a token is set, the
SUPERUSERS, the database (password masked).
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from nonebot import logger
from nonebot.adapters import Bot as BaseBot
from nonebot.adapters import Event as BaseEvent
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from . import storage
from .config import plugin_config
from .internals import adapter_problems
from .internals.adapter import FRAME_PREVIEW, WS_PATH, GuardedAdapter
from .port import is_own
from .port.onebot import onebot_secrets

__all__ = ["FRAME_PREVIEW", "WS_PATH", "GuardedAdapter", "StartupRefused", "check_startup",
           "is_own_message"]


class StartupRefused(Exception):
    """The bot must not start; ``str(err)`` is one Chinese line naming the setting."""


# ---- settings checks -------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """True when ``host`` (an IP or ``localhost``) is reachable only from this machine."""
    if host.strip().lower() in {"localhost", "localhost.localdomain", "ip6-localhost"}:
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Settings:
    """The settings the checks look at (HOST/PORT from NoneBot, the rest from the adapter's
    and the plugin's config)."""

    host: str
    port: int
    access_token: str
    secret: str
    http_post: bool
    allow_empty_token: bool
    superusers: frozenset[str]
    database_url: str

    @classmethod
    def from_driver(cls, driver: Any) -> Settings:
        """Read them from a NoneBot driver's config (after ``nonebot.init()``)."""
        token, secret = onebot_secrets()
        plugin = plugin_config()
        return cls(
            host=str(driver.config.host),
            port=int(driver.config.port),
            access_token=token,
            secret=secret,
            http_post=plugin.onebot_http_post,
            allow_empty_token=plugin.allow_empty_token,
            superusers=frozenset(driver.config.superusers),
            database_url=storage.database().url,
        )


def settings_problems(settings: Settings) -> list[str]:
    """Unsafe combinations of settings, one Chinese line each (empty: safe to start)."""
    problems = []
    if settings.http_post and not settings.secret:
        problems.append(
            "PAIZHUO_ONEBOT_HTTP_POST=true 但 ONEBOT_SECRET 为空：任何人都能伪造 HTTP 上报的消息。"
            "请设置 ONEBOT_SECRET（与 OneBot 实现里的 secret 相同），或把 PAIZHUO_ONEBOT_HTTP_POST 改为 false。"
        )
    if not (settings.access_token or is_loopback(settings.host) or settings.allow_empty_token):
        problems.append(
            f"HOST={settings.host} 允许其他机器连接，但 ONEBOT_ACCESS_TOKEN 为空：任何人都能冒充 QQ 连上来。"
            "请设置 ONEBOT_ACCESS_TOKEN（NapCat / Lagrange 里填同一个 token），"
            "或把 HOST 改为 127.0.0.1；确实不需要时设 PAIZHUO_ALLOW_EMPTY_TOKEN=true。"
        )
    return problems


def mask_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for logs)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<无法解析的 PAIZHUO_DATABASE_URL>"


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL, or ``None`` (in-memory, other databases)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if parsed.query.get("uri") in ("true", "1") or database.startswith("file:"):
        database = database.removeprefix("file:").split("?", 1)[0]
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        return None
    return Path(database).resolve()


def lock_database(url: str) -> FileLock | None:
    """Take the one-process-per-database lock (a ``<file>.lock`` next to a SQLite file).

    The lock is an OS file lock, released when the process ends in any way (also
    ``kill -9``). Returns the held lock (keep a reference), ``None`` when the database
    is not a SQLite file. Raises :class:`StartupRefused` when another process holds it.
    """
    path = sqlite_file(url)
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(f"{path}.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise StartupRefused(
            f"数据库文件 {path} 已被另一个牌桌 bot 进程使用（同一个数据库只能运行一个 bot）。"
            "请先停止那个进程，或给这个 bot 设置另一个 PAIZHUO_DATABASE_URL。"
        ) from None
    return lock


def check_port(host: str, port: int) -> None:
    """Bind ``host:port`` once the way the server will (``SO_REUSEADDR``), then let go.

    Raises :class:`StartupRefused` naming ``PORT`` (or ``HOST``) when it cannot."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror:
        raise StartupRefused(f"HOST={host} 不是有效的地址，请在 .env 里改 HOST（例如 127.0.0.1）。") from None
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise StartupRefused(
                    f"端口 {port} 已被占用（可能另一个 bot 或程序在用）：请在 .env 里把 PORT 改成别的端口，"
                    "并把 NapCat / Lagrange 里的反向 WebSocket 地址改成同一个端口。"
                ) from None
            if err.errno == errno.EACCES:
                raise StartupRefused(
                    f"没有权限监听端口 {port}：请在 .env 里把 PORT 改成 1024 以上的端口。") from None
            if err.errno == errno.EADDRNOTAVAIL:
                raise StartupRefused(
                    f"HOST={host} 不是本机的地址：请在 .env 里把 HOST 改为 127.0.0.1 或 0.0.0.0。") from None
            raise StartupRefused(f"无法监听 {host}:{port}（{err.strerror}）：请检查 .env 里的 HOST 和 PORT。") from None


def ws_url(host: str, port: int) -> str:
    """The reverse WebSocket URL to give the OneBot implementation."""
    if host in ("0.0.0.0", "::", ""):
        host = "<本机 IP>"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"ws://{host}:{port}{WS_PATH}"


def startup_report(settings: Settings) -> list[tuple[str, str]]:
    """What the owner needs to see at start-up: ``(level, Chinese line)`` pairs."""
    lines = [("INFO", f"反向 WebSocket 地址（填到 NapCat / Lagrange 的反向 WebSocket 里）：{ws_url(settings.host, settings.port)}")]
    if settings.access_token:
        lines.append(("INFO", "访问令牌 ONEBOT_ACCESS_TOKEN：已设置（OneBot 实现里的访问令牌填同一个）"))
    elif is_loopback(settings.host):
        lines.append(("INFO", f"访问令牌 ONEBOT_ACCESS_TOKEN：未设置（HOST={settings.host} 只允许本机连接）"))
    else:
        lines.append(("WARNING", f"访问令牌 ONEBOT_ACCESS_TOKEN 为空，而 HOST={settings.host} 允许其他机器连接："
                                  "任何人都能冒充 QQ 发消息（PAIZHUO_ALLOW_EMPTY_TOKEN=true 放行了）"))
    if settings.http_post:
        lines.append(("INFO", "HTTP POST 上报：开启（/onebot/v11/http，需 X-Signature 签名，ONEBOT_SECRET 已设置）"))
    else:
        lines.append(("INFO", "HTTP POST 上报：关闭（只接受反向 WebSocket；要开启设 PAIZHUO_ONEBOT_HTTP_POST=true 和 ONEBOT_SECRET）"))
    if settings.superusers:
        lines.append(("INFO", f"超级用户 SUPERUSERS：{len(settings.superusers)} 个"))
    else:
        lines.append(("WARNING", "超级用户 SUPERUSERS 为空：只有开局人、群主和管理员能 /结束 牌局"))
    lines.append(("INFO", f"数据库 PAIZHUO_DATABASE_URL：{mask_url(settings.database_url)}"))
    return lines


_held_locks: list[FileLock] = []


def check_startup(driver: Any) -> None:
    """Refuse to start (``SystemExit`` with one Chinese line, exit status 1) on unsafe
    settings, a database file used by another process or a busy port; otherwise hold
    the database lock for the life of the process and log :func:`startup_report`."""
    settings = Settings.from_driver(driver)
    try:
        problems = settings_problems(settings)
        if missing := adapter_problems():  # the guards would be bypassed silently
            problems.append(
                f"OneBot 适配器的内部接口变了（{'；'.join(missing)}）：请安装 pyproject.toml "
                "写明的 nonebot2 / nonebot-adapter-onebot 版本。")
        if problems:
            raise StartupRefused("\n".join(problems))
        lock = lock_database(settings.database_url)
        if lock is not None:
            _held_locks.append(lock)
        check_port(settings.host, settings.port)
    except StartupRefused as err:
        raise SystemExit(f"牌桌 bot 没有启动：{err}") from None
    for level, line in startup_report(settings):
        logger.log(level, f"牌桌: {line}")


# ---- the adapter: src/nonebot_plugin_paizhuo/internals/adapter.py (GuardedAdapter) ----------------------


def is_own_message(bot: BaseBot, event: BaseEvent) -> bool:
    """Whether ``event`` is a message sent by the bot's own account (its own message
    echoed back, on any side: ``port.is_own``), never a command (the plugin's matchers
    ignore it; other plugins decide for themselves)."""
    return is_own(bot, event)
