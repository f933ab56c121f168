"""End to end: the project installed into a host bot laid out as nb-cli lays one out
(``host_nbcli/``: a ``[tool.nonebot.plugins]`` table, its own ``plugins/`` folder with a
plugin of its own, and a ``db.py`` and an ``engine.py`` at its root), once as an editable
install and once from a built wheel, each into a venv of its own. The installed import
names (``nonebot_plugin_paizhuo``, ``paizhuo_engine``, ``paizhuo_db``,
``paizhuo_ai_worker``; pyproject.toml maps them onto the repository's folders) cannot
collide with the host's modules: both bots' plugins load exactly once, the host's own
``db`` and ``engine`` stay the host's, and both plugins answer over a real WebSocket.

The host keeps its own ``/帮助`` as the README says (``PAIZHUO_BARE_COMMANDS=all,-帮助,-help``):
no ``Duplicated prefix rule`` in its log, ``/帮助`` is the host's, ``/牌桌 帮助`` ours. Without
``PAIZHUO_DATABASE_URL`` the database is where NoneBot's plugins keep their files
(localstore's plugin data directory, here under a ``XDG_DATA_HOME`` of the test's), not in
the host's start directory — unless a database is at the old default place there
(``data/paizhuo.db``), which is then used, with a WARNING, never replaced.

The venvs get this environment's dependencies through a ``.pth`` line (no download, and
the project's own editable install here is not visible to them); the project is copied
first, so no build writes into the repository."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
from pathlib import Path

from install_support import copy_source, make_venv

from tools.onebot_sim import BotProcess, OneBotSim

REPO = Path(__file__).resolve().parents[2]
HOST = Path(__file__).resolve().parent / "host_nbcli"
GROUP, USER, TOKEN = 72001, 7201, "host"
PACKAGES = ["nonebot_plugin_paizhuo", "paizhuo_engine", "paizhuo_db", "paizhuo_ai_worker"]


def pip_install(python: Path, source: Path, *, editable: bool) -> subprocess.Popen[str]:
    """Start ``pip install --no-deps [-e] source`` into ``python``'s venv."""
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
               "--no-deps", *(["-e"] if editable else []), str(source)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def origin(python: Path, module: str, cwd: Path) -> str:
    """Where ``python`` run in ``cwd`` imports ``module`` from (without importing it)."""
    return subprocess.run([str(python), "-c", "import importlib.util, sys; "
                           f"print(importlib.util.find_spec({module!r}).origin)"],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


async def ask(sim: OneBotSim, text: str) -> str:
    """Post ``text`` in the group; the one group answer it gets."""
    mark = sim.mark()
    await sim.group_message(GROUP, USER, text)
    sent = await sim.wait_for(lambda s: s.kind == "group" and s.target == GROUP, since=mark,
                              timeout=20)
    await sim.wait_idle(quiet=0.5, timeout=20)
    answers = [s for s in sim.sent_since(mark) if s.kind == "group" and s.target == GROUP]
    assert len(answers) == 1, [s.text for s in answers]
    return sent.text


async def run_host(python: Path, host: Path, log: Path, data_home: Path) -> str:
    """Start the host bot with ``python`` (the database where the plugin puts it; user
    data under ``data_home``), talk to both plugins, stop it; its log."""
    bot = BotProcess(log, access_token=TOKEN, root=host, python=python,
                     env={"XDG_DATA_HOME": str(data_home),
                          "PAIZHUO_BARE_COMMANDS": "all,-帮助,-help"})
    sim = OneBotSim(self_id=10002)
    sim.add_member(GROUP, USER, "甲")
    sim.add_friend(USER, "甲")
    async with bot:
        await sim.connect(bot.url, TOKEN)
        try:
            assert await ask(sim, "/hello") == "你好 host-db host-engine"
            assert await ask(sim, "/帮助") == "宿主的帮助"
            assert "牌桌" in await ask(sim, "/牌桌 帮助")
            assert "开了一桌" in await ask(sim, "/开局 挖坑")
        finally:
            await sim.close()
    return bot.log_text()


async def test_a_host_bot_loads_this_plugin_and_its_own_each_once(tmp_path: Path) -> None:
    source = copy_source(tmp_path / "src")
    pythons = {kind: make_venv(tmp_path / f"venv-{kind}") for kind in ("editable", "wheel")}
    builds = {kind: pip_install(python, source, editable=kind == "editable")
              for kind, python in pythons.items()}
    for kind, build in builds.items():
        output, _ = await asyncio.to_thread(build.communicate)
        assert build.returncode == 0, f"pip install ({kind}) failed:\n{output}"

    for kind, python in pythons.items():
        host = tmp_path / f"host-{kind}"
        shutil.copytree(HOST, host, ignore=shutil.ignore_patterns("__pycache__"))
        # the installed names come from the install, the host's names from the host
        for package in PACKAGES:
            where = origin(python, package, host)
            assert where.startswith(str(source if kind == "editable" else tmp_path / f"venv-{kind}")), (
                kind, package, where)
        assert origin(python, "db", host) == str(host / "db.py")
        assert origin(python, "engine", host) == str(host / "engine.py")
        for name in ("plugins", "engine", "db"):  # nothing installed under the folder names
            site = subprocess.run([str(python), "-c", "import sysconfig; "
                                   "print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip()
            assert not Path(site, name).exists() and not Path(site, f"{name}.py").exists()

        data_home = tmp_path / f"data-home-{kind}"
        plugin_db = data_home / "nonebot2" / "nonebot_plugin_paizhuo" / "paizhuo.db"
        old_db = host / "data" / "paizhuo.db"
        if kind == "editable":  # a host that ran a version before 0.2.0: its database stays
            old_db.parent.mkdir()
            old_db.touch()
        log = await run_host(python, host, tmp_path / f"host-{kind}.log", data_home)
        loaded = re.findall(r'Succeeded to load plugin "(\w+)"', log)
        assert sorted(loaded) == ["greeter", "nonebot_plugin_localstore",
                                  "nonebot_plugin_paizhuo"], (kind, loaded)
        assert log.count("牌桌: 数据库已就绪") == 1, kind
        assert "greeter: host-db host-engine" in log
        assert "Duplicated prefix rule" not in log, kind
        assert "Failed to import" not in log and "ERROR" not in log, log[-3000:]
        if kind == "editable":
            assert f"使用旧位置的数据库 {old_db}" in log
            assert old_db.stat().st_size > 0 and not plugin_db.exists()  # migrated in place
        else:
            assert f"数据库在插件数据目录：{plugin_db}" in log
            assert plugin_db.stat().st_size > 0 and not (host / "data").exists()
