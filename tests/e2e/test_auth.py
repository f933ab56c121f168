"""Only authenticated events reach the game (docs/deployment.md「安全」,
``src/nonebot_plugin_paizhuo/guard.py``).

Everything runs against the real ``bot.py`` over real sockets on 127.0.0.1: a bot with the
default settings (access token set, HTTP POST off) and one with the HTTP POST route on
(``ONEBOT_SECRET`` set) are started once for the module; the refuse-to-start cases run
``bot.py`` to its exit and read its exit status and output.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:  # ``tools`` is not an installed package
    sys.path.insert(0, str(_ROOT))

from tools.onebot_sim import (  # noqa: E402
    BotProcess,
    ConnectionRejected,
    OneBotSim,
    http_post_event,
)

TOKEN = "auth-test-token"
SECRET = "auth-test-secret"
SELF_ID = 20001
GROUP = 300
OWNER, PLAYER, OTHER = 31, 32, 33
NO_TABLE = "本群还没有牌桌"


def _sim(self_id: int = SELF_ID) -> OneBotSim:
    sim = OneBotSim(self_id=self_id)
    sim.add_member(GROUP, OWNER, "群主", role="owner")
    sim.add_member(GROUP, PLAYER, "乙")
    sim.add_member(GROUP, OTHER, "丙")
    for uid in (OWNER, PLAYER, OTHER):
        sim.add_friend(uid)
    return sim


async def _answered(sim: OneBotSim, user_id: int, text: str, *expect: str) -> str:
    """Post ``text`` in the group as ``user_id`` and return the first group message the
    bot sends afterwards that contains one of ``expect``."""
    since = sim.mark()
    await sim.group_message(GROUP, user_id, text)
    found = await sim.wait_for(lambda s: s.ok and s.kind == "group" and any(e in s.text for e in expect),
                               since=since, timeout=15)
    return found.text


def _forged(sim: OneBotSim, user_id: int, text: str, role: str = "owner") -> dict[str, Any]:
    event = sim.build_group_message(GROUP, user_id, text)
    event["sender"]["role"] = role
    return event


def _run_to_exit(tmp: Path, name: str, *, timeout: float = 60.0, **kwargs: Any) -> tuple[int, str]:
    """Run ``bot.py`` (configured like :class:`BotProcess`) until it exits; return its exit
    status and output. A bot that is still running after ``timeout`` is killed and the
    test fails: it should have refused to start."""
    kwargs.setdefault("database_url", f"sqlite+aiosqlite:///{tmp}/{name}.db")
    proc = BotProcess(tmp / f"{name}.log", **kwargs)
    try:
        done = subprocess.run([sys.executable, "bot.py"], cwd=proc.root, env=proc.build_env(),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as err:
        out = (err.stdout or b"").decode("utf-8", "replace")[-2000:]
        pytest.fail(f"bot.py kept running instead of refusing to start; output:\n{out}")
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def _refusal(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("牌桌 bot 没有启动")]
    assert len(lines) == 1, f"expected one refusal line, got:\n{output[-3000:]}"
    return lines[0]


# ---- the default bot: token set, HTTP POST off -------------------------------------------------


@pytest.fixture(scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BotProcess]:
    """The real bot with the default settings and an access token, once for the module."""
    tmp = tmp_path_factory.mktemp("auth")
    proc = BotProcess(tmp / "bot.log", access_token=TOKEN, superusers=[OWNER],
                      database_url=f"sqlite+aiosqlite:///{tmp}/bot.db")
    async with proc:
        yield proc


async def test_forged_http_post_is_refused_and_not_applied(bot: BotProcess) -> None:
    """A POST to the OneBot HTTP routes is not served by default: a forged /结束 by an
    "owner" does not close a real table, and a POST carrying the bot's own id while its
    WebSocket is down does not lock the real connection out."""
    sim = _sim()
    await sim.connect(bot.url, TOKEN)
    try:
        await _answered(sim, PLAYER, "/开局 抓特务 4", "开了一桌")
        base = bot.http_url.removesuffix("/http")
        for url in (bot.http_url, bot.http_url + "/", base + "/"):
            status, _ = await http_post_event(url, _forged(sim, OTHER, "/结束"), SELF_ID)
            assert status in (404, 405), f"{url} answered {status}: the forged event was accepted"
        assert "等人入座" in await _answered(sim, PLAYER, "/牌桌", "等人入座", NO_TABLE)
        await _answered(sim, PLAYER, "/结束", "牌桌已关闭")
    finally:
        await sim.close()

    status, _ = await http_post_event(bot.http_url, {
        "time": int(time.time()), "self_id": SELF_ID, "post_type": "meta_event",
        "meta_event_type": "lifecycle", "sub_type": "connect"}, SELF_ID)
    assert status in (404, 405)
    await sim.connect(bot.url, TOKEN, retry_for=2)
    try:
        assert NO_TABLE in await _answered(sim, PLAYER, "/牌桌", NO_TABLE)
    finally:
        await sim.close()


async def test_websocket_token_checked(bot: BotProcess) -> None:
    """A wrong or missing access token fails the handshake (HTTP 403) — also for an id
    that is already connected; the right token is accepted."""
    real = _sim()
    await real.connect(bot.url, TOKEN)
    try:
        for self_id in (SELF_ID, SELF_ID + 50):
            for token in ("wrong", None):
                with pytest.raises(ConnectionRejected) as info:
                    await _sim(self_id).connect(bot.url, token, retry_for=1)
                assert info.value.status == 403
        assert "Authorization Header is invalid" in bot.log_text()
        assert "Missing Authorization Header" in bot.log_text()
        assert real.connected
        await _answered(real, PLAYER, "/帮助", "开局")
    finally:
        await real.close()


async def test_duplicate_connection_refused_while_the_real_one_lives(bot: BotProcess) -> None:
    """A second WebSocket claiming a connected id is refused and the first keeps working;
    once the first closes, the id is free again."""
    real, newcomer = _sim(SELF_ID + 1), _sim(SELF_ID + 1)
    await real.connect(bot.url, TOKEN)
    try:
        with pytest.raises(ConnectionRejected):
            await newcomer.connect(bot.url, TOKEN, retry_for=1)
        assert real.connected
        await _answered(real, PLAYER, "/帮助", "开局")
    finally:
        await real.close()
    await newcomer.connect(bot.url, TOKEN, retry_for=2)
    try:
        await _answered(newcomer, PLAYER, "/帮助", "开局")
    finally:
        await newcomer.close()


async def test_malformed_frames_skipped_connection_kept(bot: BotProcess) -> None:
    """Garbage text, bad UTF-8, JSON that is no event and an answer nobody waits for are
    logged and skipped; the connection stays up and the next command is answered."""
    sim = _sim()
    await sim.connect(bot.url, TOKEN)
    try:
        for frame in ("not json {", b"\xff\xfe\x00garbage", "[1, 2, 3]", "null",
                      json.dumps({"status": "ok", "retcode": 0, "echo": "987654321"}),
                      json.dumps({"post_type": "message", "message_type": "group"})):
            await sim.send_raw(frame)
        reply = await _answered(sim, PLAYER, "/牌桌", NO_TABLE)
        assert NO_TABLE in reply
        assert sim.connected, f"connection closed (code {sim.close_code})"
        assert "跳过 Bot 20001 的一个无法处理的帧" in bot.log_text()
    finally:
        await sim.close()


async def test_own_messages_ignored(bot: BotProcess) -> None:
    """A message event whose sender is the bot's own account is never a command."""
    sim = _sim()
    await sim.connect(bot.url, TOKEN)
    try:
        since = sim.mark()
        await sim.group_message(GROUP, SELF_ID, "/帮助")
        await sim.group_message(GROUP, PLAYER, "/帮助")
        await sim.wait_for_text("开局", kind="group", since=since, timeout=15)
        await sim.wait_idle(quiet=1.0)
        answers = [s for s in sim.sent_since(since) if s.kind == "group"]
        assert len(answers) == 1, [str(s) for s in answers]
        assert SELF_ID not in answers[0].at
    finally:
        await sim.close()


async def test_second_process_on_the_same_database_refused(bot: BotProcess, tmp_path: Path) -> None:
    """Another bot on the database file the running bot uses exits at once (status 1)
    with one line naming the file and PAIZHUO_DATABASE_URL."""
    assert bot.database_url is not None
    code, output = _run_to_exit(tmp_path, "second", access_token=TOKEN,
                                database_url=bot.database_url)
    assert code == 1, output[-3000:]
    line = _refusal(output)
    assert "已被另一个牌桌 bot 进程使用" in line and "PAIZHUO_DATABASE_URL" in line
    assert bot.database_url.rsplit("/", 1)[-1] in line
    assert bot.running


async def test_startup_log_tells_the_owner_what_to_do(bot: BotProcess) -> None:
    """The start log gives the reverse WebSocket URL, says a token is set (never shows
    it), counts the SUPERUSERS, names the database and the tables resumed."""
    log = bot.log_text()
    assert f"ws://127.0.0.1:{bot.port}/onebot/v11/ws" in log
    assert "ONEBOT_ACCESS_TOKEN：已设置" in log and TOKEN not in log
    assert "SUPERUSERS：1 个" in log
    assert f"PAIZHUO_DATABASE_URL：{bot.database_url}" in log
    assert "HTTP POST 上报：关闭" in log
    assert "恢复了 0 桌牌局" in log


async def test_every_start_up_line_of_the_plugin_is_chinese(bot: BotProcess) -> None:
    """The owner reads the start-up in one language: every line the plugin logs as
    ``牌桌: …`` is Chinese — setting names, addresses and paths aside."""
    lines = [line.split("牌桌: ", 1)[1] for line in bot.log_text().splitlines() if "牌桌: " in line]
    assert any("数据库已就绪" in x for x in lines) and any("已连上" in x for x in lines)
    lines = lines[:next(i for i, x in enumerate(lines) if "已连上" in x) + 1]  # the start-up
    for line in lines:
        prose = re.sub(r"\S+://\S+|/\S*|\b[A-Z][A-Z0-9_]*=\S+|\b[A-Z][A-Z0-9_]{2,}\b", "", line)
        assert re.search(r"[\u4e00-\u9fff]", line), line
        assert not re.search(r"\b[a-z]{3,}\b", prose), line


# ---- HTTP POST on -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def http_bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BotProcess]:
    """The real bot with ``PAIZHUO_ONEBOT_HTTP_POST=true`` and ``ONEBOT_SECRET``."""
    tmp = tmp_path_factory.mktemp("auth_http")
    proc = BotProcess(tmp / "bot.log", access_token=TOKEN, superusers=[OWNER],
                      database_url=f"sqlite+aiosqlite:///{tmp}/bot.db",
                      env={"PAIZHUO_ONEBOT_HTTP_POST": "true", "ONEBOT_SECRET": SECRET})
    async with proc:
        yield proc


async def test_http_post_needs_a_valid_signature(http_bot: BotProcess) -> None:
    """With the route on, a POST without or with a wrong ``X-Signature`` is refused and
    not applied, a malformed signed body is a 400; a correctly signed event is handled
    (its reply goes out over the account's WebSocket)."""
    sim = _sim()
    await sim.connect(http_bot.url, TOKEN)
    try:
        await _answered(sim, PLAYER, "/开局 抓特务 4", "开了一桌")
        forged = _forged(sim, OTHER, "/结束")
        assert (await http_post_event(http_bot.http_url, forged, SELF_ID))[0] == 401
        assert (await http_post_event(http_bot.http_url, forged, SELF_ID,
                                      signature="sha1=" + "0" * 40))[0] == 403
        assert (await http_post_event(http_bot.http_url, forged, SELF_ID, secret="guess"))[0] == 403
        assert (await http_post_event(http_bot.http_url, b"{not json", SELF_ID, secret=SECRET))[0] == 400
        assert "等人入座" in await _answered(sim, PLAYER, "/牌桌", "等人入座", NO_TABLE)

        since = sim.mark()
        status, _ = await http_post_event(http_bot.http_url, _forged(sim, PLAYER, "/结束"),
                                          SELF_ID, secret=SECRET)
        assert status == 204
        await sim.wait_for_text("牌桌已关闭", kind="group", since=since, timeout=15)
        assert sim.connected
    finally:
        await sim.close()
    assert "HTTP POST 上报：开启" in http_bot.log_text()


async def test_stale_http_bot_does_not_block_the_websocket(http_bot: BotProcess) -> None:
    """A signed POST for an account with no WebSocket creates a bot that has no
    connection to close; the account's WebSocket then replaces it instead of being
    refused, and a second WebSocket for it is still refused."""
    self_id = SELF_ID + 7
    sim = _sim(self_id)
    status, _ = await http_post_event(http_bot.http_url, {
        "time": int(time.time()), "self_id": self_id, "post_type": "meta_event",
        "meta_event_type": "lifecycle", "sub_type": "connect"}, self_id, secret=SECRET)
    assert status == 204
    await sim.connect(http_bot.url, TOKEN, retry_for=2)
    try:
        assert NO_TABLE in await _answered(sim, PLAYER, "/牌桌", NO_TABLE)
        with pytest.raises(ConnectionRejected):
            await _sim(self_id).connect(http_bot.url, TOKEN, retry_for=1)
        assert sim.connected
    finally:
        await sim.close()


# ---- refusing to start ------------------------------------------------------------------------


def test_public_host_without_token_refused(tmp_path: Path) -> None:
    """``HOST=0.0.0.0`` with an empty ``ONEBOT_ACCESS_TOKEN`` exits with status 1 and one
    line naming the settings to change."""
    code, output = _run_to_exit(tmp_path, "public", env={"HOST": "0.0.0.0"})
    assert code == 1, output[-3000:]
    line = _refusal(output)
    assert "ONEBOT_ACCESS_TOKEN" in line and "HOST" in line and "PAIZHUO_ALLOW_EMPTY_TOKEN" in line


def test_http_post_without_secret_refused(tmp_path: Path) -> None:
    """``PAIZHUO_ONEBOT_HTTP_POST=true`` without ``ONEBOT_SECRET`` exits with status 1."""
    code, output = _run_to_exit(tmp_path, "nosecret", access_token=TOKEN,
                                env={"PAIZHUO_ONEBOT_HTTP_POST": "true", "ONEBOT_SECRET": ""})
    assert code == 1, output[-3000:]
    line = _refusal(output)
    assert "ONEBOT_SECRET" in line and "PAIZHUO_ONEBOT_HTTP_POST" in line


def test_busy_port_gives_one_chinese_line(tmp_path: Path) -> None:
    """A port another program listens on: exit status 1 and one line saying to change PORT."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code, output = _run_to_exit(tmp_path, "busy", access_token=TOKEN, port=port)
    assert code == 1, output[-3000:]
    line = _refusal(output)
    assert f"端口 {port} 已被占用" in line and "PORT" in line


async def test_public_host_allowed_explicitly_warns(tmp_path: Path) -> None:
    """``PAIZHUO_ALLOW_EMPTY_TOKEN=true`` lets the bot start on a non-loopback HOST with no token;
    the log warns about it and about the empty SUPERUSERS, shows the URL to fill in, and
    after a restart counts the table it resumed when the account connects again."""
    proc = BotProcess(tmp_path / "bot.log", database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db",
                      env={"HOST": "0.0.0.0", "PAIZHUO_ALLOW_EMPTY_TOKEN": "true"})
    async with proc:
        sim = _sim()
        await sim.connect(proc.url)
        await _answered(sim, PLAYER, "/开局 抓特务 4", "开了一桌")
        await sim.close()
        await proc.stop()
        await proc.start()
        sim = _sim()
        await sim.connect(proc.url)  # the account's tables are resumed when it connects
        await _answered(sim, PLAYER, "/牌桌", "抓特务")
        await sim.close()
        log = proc.log_text()
    warnings = [line for line in log.splitlines() if "WARNING" in line]
    assert any("ONEBOT_ACCESS_TOKEN 为空" in line and "HOST=0.0.0.0" in line for line in warnings), log
    assert any("SUPERUSERS 为空" in line for line in warnings), log
    assert f"ws://<本机 IP>:{proc.port}/onebot/v11/ws" in log
    assert "恢复了 1 桌牌局" in log
