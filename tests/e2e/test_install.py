"""Every way of installing the plugin ends in a plugin NoneBot loads, and the built wheel
passes what NoneBot's plugin store checks before it lists a plugin.

The ways (each into a venv of its own):
- a ZIP archive of the repository (``git archive --format=zip``: the shape of GitHub's
  "Download ZIP"), ``pip install pz.zip``;
- a tarball of it (``git archive --format=tar.gz``: GitHub's "Download tar.gz");
- a clone made with ``core.symlinks=false`` (Git for Windows' default), installed the way
  the README does (``pip install -e .``) and loaded from another directory;
- the built wheel, alone with its dependencies.

Then each venv runs the store's load test as the store runs it (nonebot/noneflow,
``src/providers/docker_test``): a fresh project directory whose ``.env`` holds only
``DRIVER=fake``, a fake driver module beside it, ``nonebot.init()`` and
``load_plugin("nonebot_plugin_paizhuo")``; a plugin that does not load, has no metadata
(the store refuses "插件无法获取到元数据") or a config that is not a pydantic model fails.
For the wheel, the venv sees only the wheel's declared dependencies (resolved in this
environment, markers and extras included, and linked into a folder of their own), so an
undeclared import fails here as it would in the store's venv.

The archives and the clone are of the commit checked out (``HEAD``: CI's fresh clone);
the wheel is built from a copy of the working tree. Nothing is downloaded but the build
backend pip fetches for each build (as test_host_install's builds do), and no build writes
into the repository. Skipped where the repository is not a git checkout (the git ways
only)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from install_support import copy_source, make_venv
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
MODULE = "nonebot_plugin_paizhuo"
DISTRIBUTION = "nonebot-plugin-paizhuo"
STORE_TYPES = {"application", "library"}
"""The plugin types the store accepts (noneflow's PLUGIN_VALID_TYPE)."""
NAME_MAX = 50
"""The store's longest plugin name (noneflow's NAME_MAX_LENGTH)."""

FAKE_DRIVER = '''
"""A driver that serves nothing, as the store's load test uses (DRIVER=fake)."""
from nonebot import logger
from nonebot.drivers import ASGIMixin, HTTPClientMixin, WebSocketClientMixin
from nonebot.drivers import Driver as BaseDriver


class Driver(BaseDriver, ASGIMixin, HTTPClientMixin, WebSocketClientMixin):
    @property
    def type(self) -> str:
        return "fake"

    @property
    def logger(self):
        return logger

    def run(self, *args, **kwargs):
        super().run(*args, **kwargs)


def _not_served(*args, **kwargs):
    raise NotImplementedError


for _name in Driver.__abstractmethods__:  # the server and client methods (by version)
    setattr(Driver, _name, _not_served)
Driver.__abstractmethods__ = frozenset()
'''

RUNNER = '''
"""The store's load test: init(), load_plugin(), the metadata written out, the config
checked to be a pydantic model."""
import json
import sys

from nonebot import init, load_plugin, logger
from pydantic import BaseModel

init()
plugin = load_plugin(sys.argv[1])
if not plugin:
    sys.exit(1)
meta = plugin.metadata
if meta:
    found = {"name": meta.name, "desc": meta.description, "usage": meta.usage,
             "type": meta.type, "homepage": meta.homepage,
             "supported_adapters": sorted(meta.supported_adapters)
             if meta.supported_adapters is not None else None,
             "module_file": plugin.module.__file__}
    with open("metadata.json", "w", encoding="utf-8") as f:
        json.dump(found, f, ensure_ascii=False)
    if meta.config and not issubclass(meta.config, BaseModel):
        logger.error("插件配置项不是 Pydantic BaseModel 的子类")
        sys.exit(1)
'''


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def is_git_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    try:
        return git("rev-parse", "--is-inside-work-tree") == "true"
    except subprocess.CalledProcessError:
        return False


def load_test(python: Path, project: Path, module: str = MODULE,
              env: dict[str, str] | None = None) -> tuple[int, str, dict | None]:
    """Run the store's load test of ``module`` with ``python`` in a fresh ``project``
    directory: exit status, output, and the metadata it wrote (``None``: none)."""
    project.mkdir(parents=True, exist_ok=True)
    (project / ".env").write_text("DRIVER=fake\n", encoding="utf-8")
    (project / "fake.py").write_text(FAKE_DRIVER, encoding="utf-8")
    (project / "runner.py").write_text(RUNNER, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("PAIZHUO_", "LOCALSTORE_")) and k not in ("DRIVER", "PYTHONPATH")}
    home = project / "home"  # localstore's directories, if anything asked for them
    clean.update({"HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
                  "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache")})
    clean.update(env or {})
    done = subprocess.run([str(python), "runner.py", module], cwd=project, env=clean,
                          capture_output=True, text=True, timeout=180)
    written = project / "metadata.json"
    found = json.loads(written.read_text("utf-8")) if written.exists() else None
    return done.returncode, done.stdout + done.stderr, found


def assert_store_accepts(status: int, output: str, found: dict | None) -> None:
    """What the store checks of a load test's result (noneflow's validation): it loaded,
    it has metadata, a valid type and name, adapters that exist."""
    assert status == 0, output[-3000:]
    assert found is not None, "插件无法获取到元数据\n" + output[-3000:]
    assert found["type"] in STORE_TYPES
    assert found["name"] and len(found["name"]) <= NAME_MAX
    assert found["desc"] and found["usage"]
    assert found["supported_adapters"] == ["~milky", "~onebot.v11", "~qq", "~satori"]  # the sides tested
    assert found["homepage"] is None  # the project has no public page yet (README says so)
    assert "ERROR" not in output, output[-3000:]


def requirement_closure(requirements: list[Requirement]) -> list[metadata.Distribution]:
    """The installed distributions ``requirements`` need, transitively (markers evaluated
    here, extras followed), as this environment has them."""
    found: dict[str, tuple[metadata.Distribution, set[str]]] = {}
    todo = list(requirements)
    while todo:
        requirement = todo.pop()
        key = requirement.name.lower().replace("_", "-").replace(".", "-")
        dist, extras = found.get(key) or (metadata.distribution(requirement.name), set())
        if key in found and requirement.extras <= extras:
            continue
        extras |= requirement.extras
        found[key] = (dist, extras)
        for line in dist.requires or []:
            child = Requirement(line)
            if child.marker is None or any(child.marker.evaluate({"extra": extra})
                                           for extra in {"", *extras}):
                todo.append(child)
    return [dist for dist, _ in found.values()]


def only_dependencies_venv(path: Path, wheel: Path) -> Path:
    """A venv whose python sees only the wheel's declared dependencies: each one's
    top-level files and folders (from its RECORD) linked into one folder named by a
    ``.pth`` line. (A namespace folder two distributions share, ``nonebot/``, comes
    whole: both are dependencies.) Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    with zipfile.ZipFile(wheel) as archive:
        meta_name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        meta_text = archive.read(meta_name).decode("utf-8")
    requires = [Requirement(line.split(":", 1)[1].strip()) for line in meta_text.splitlines()
                if line.startswith("Requires-Dist:")]
    # the project's own extras (test, postgres) are not installed by the store
    requires = [r for r in requires if r.marker is None or r.marker.evaluate({"extra": ""})]
    deps = path / "dependencies"
    deps.mkdir()
    for dist in requirement_closure(requires):
        site = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or []
                if not str(f).startswith("..") and Path(str(f)).parts}
        for top in tops - {"__pycache__"}:
            if (site / top).exists() and not (deps / top).exists() and not top.endswith(".pth"):
                (deps / top).symlink_to(site / top)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "dependencies.pth").write_text(f"{deps}\n")
    return python


async def pip(python: Path, *args: str) -> None:
    """``pip install --no-deps args`` into ``python``'s venv (pip of this environment)."""
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
               "--no-deps", *args]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}{done.stderr}"


def site_of(python: Path) -> Path:
    return Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())


@pytest.mark.skipif(not is_git_checkout(), reason="not a git checkout: no archive or clone to make")
async def test_zip_tarball_and_a_clone_without_symlinks_each_install_a_loadable_plugin(
        tmp_path: Path) -> None:
    head = git("rev-parse", "HEAD")
    zip_file, tarball = tmp_path / "pz.zip", tmp_path / "pz.tar.gz"
    git("archive", "--format=zip", f"--prefix=paizhuo-{head[:7]}/", "-o", str(zip_file), head)
    git("archive", "--format=tar.gz", f"--prefix=paizhuo-{head[:7]}/", "-o", str(tarball), head)
    clone = tmp_path / "clone"
    git("clone", "-q", "-c", "core.symlinks=false", "--no-checkout", str(REPO), str(clone),
        cwd=tmp_path)
    git("checkout", "-q", head, cwd=clone)
    assert git("config", "core.symlinks", cwd=clone) == "false"
    for package in ("nonebot_plugin_paizhuo", "paizhuo_engine", "paizhuo_db", "paizhuo_ai_worker"):
        assert (clone / "src" / package / "__init__.py").is_file(), package

    ways = ("zip", "tar", "clone")
    made = await asyncio.gather(*(asyncio.to_thread(make_venv, tmp_path / f"venv-{way}")
                                  for way in ways))
    pythons = dict(zip(ways, made, strict=True))
    await asyncio.gather(pip(pythons["zip"], str(zip_file)), pip(pythons["tar"], str(tarball)),
                         pip(pythons["clone"], "-e", str(clone)))

    results = await asyncio.gather(*(asyncio.to_thread(load_test, pythons[way],
                                                       tmp_path / f"project-{way}")
                                     for way in ways))
    for way, (status, output, found) in zip(ways, results, strict=True):
        python = pythons[way]
        assert_store_accepts(status, output, found)
        home = clone / "src" if way == "clone" else site_of(python)
        assert Path(found["module_file"]) == home / MODULE / "__init__.py", (way, found)
        files = sorted(p.relative_to(home).as_posix() for p in (home / MODULE).rglob("*.py"))
        assert len(files) > 40 and "nonebot_plugin_paizhuo/matchers/table.py" in files, way
        # the migrations ship too: a store opened from this install can make its tables
        versions = home / "paizhuo_db" / "migrations" / "versions"
        assert len(list(versions.glob("0*.py"))) >= 5, way


async def test_the_wheel_alone_with_its_dependencies_passes_the_stores_load_test(
        tmp_path: Path) -> None:
    source = copy_source(tmp_path / "source")
    wheels = tmp_path / "wheels"
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                         str(wheels), str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    [wheel] = wheels.glob("*.whl")
    assert wheel.name.startswith("nonebot_plugin_paizhuo-")
    python = only_dependencies_venv(tmp_path / "venv", wheel)
    await pip(python, str(wheel))

    # nothing of the test environment leaks in: no pytest, no nonebug, no project source
    probe = subprocess.run([str(python), "-c", "import importlib.util as u; print("
                            "[m for m in ('pytest', 'nonebug', 'asyncpg', 'nonebot_plugin_paizhuo') "
                            "if u.find_spec(m)])"], capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "['nonebot_plugin_paizhuo']"

    status, output, found = load_test(python, tmp_path / "project")
    assert_store_accepts(status, output, found)
    assert Path(found["module_file"]).is_relative_to(site_of(python))
    # loading made no files: the database and logs are made at start-up, where NoneBot's
    # plugins keep theirs (localstore), not when a plugin is merely loaded
    assert sorted(p.name for p in (tmp_path / "project").iterdir()) == [
        ".env", "fake.py", "metadata.json", "runner.py"]

    # the installed metadata names the licence and the version the code reports
    info = subprocess.run([str(python), "-c", textwrap.dedent(f"""
        from importlib import metadata
        meta = metadata.metadata({DISTRIBUTION!r})
        files = [str(f) for f in metadata.files({DISTRIBUTION!r}) if 'LICENSE' in str(f)]
        print(meta['Version'], meta['License-Expression'], files)
        """)], capture_output=True, text=True, check=True).stdout.split()
    version = re.search(r'__version__ = "(.+)"', (REPO / "src" / MODULE / "version.py").read_text())
    assert version is not None and info[0] == version.group(1)
    assert info[1] == "MIT" and "LICENSE" in info[2]

    # the same checks fail where the store's would: a plugin without metadata, and one
    # whose config is not a pydantic model
    (tmp_path / "controls").mkdir()
    (tmp_path / "controls" / "bare_plugin.py").write_text(
        "from nonebot import on_command\nping = on_command('ping')\n", "utf-8")
    (tmp_path / "controls" / "plain_config.py").write_text(textwrap.dedent("""
        from nonebot.plugin import PluginMetadata
        class Config:  # not a pydantic model
            pass
        __plugin_meta__ = PluginMetadata(name="x", description="x", usage="x",
                                         type="application", config=Config)
        """), "utf-8")
    env = {"PYTHONPATH": str(tmp_path / "controls")}
    status, output, found = load_test(python, tmp_path / "bare", "bare_plugin", env)
    assert status == 0 and found is None
    with pytest.raises(AssertionError, match="元数据"):
        assert_store_accepts(status, output, found)
    status, output, found = load_test(python, tmp_path / "plain", "plain_config", env)
    assert status == 1 and "不是 Pydantic BaseModel" in output
