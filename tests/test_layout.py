"""The installed import names are the folders under ``src/`` (pyproject.toml): four real
folders, no links, so every file has one path and a checkout without symlinks installs
the same files. Nothing imports the short names a host bot may have too (``engine``,
``db``, ``plugins``), and the plugin and the engine import themselves relatively, so each
is one module tree under one name (docs/deployment.md「装在别的机器人里」)."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("nonebot_plugin_paizhuo", "paizhuo_engine", "paizhuo_db", "paizhuo_ai_worker")
FOLDER_IMPORT = re.compile(r"^\s*(?:from|import)\s+(engine|db|plugins)(?:\.|\s)", re.M)
SELF_IMPORT = re.compile(r"^\s*(?:from|import)\s+(nonebot_plugin_paizhuo|paizhuo_engine)\b",
                         re.M)
HOST_FIXTURES = REPO / "tests" / "e2e" / "host_nbcli"  # a host's own db.py / engine.py


def sources() -> list[Path]:
    skip = {".git", ".venv", ".venv-lowest", "__pycache__"}
    return [p for p in REPO.rglob("*.py")
            if not skip.intersection(p.relative_to(REPO).parts)
            and not p.is_relative_to(HOST_FIXTURES)]


def test_src_holds_one_real_folder_per_installed_package() -> None:
    folders = {p.name: p for p in (REPO / "src").iterdir()
               if not p.name.endswith(".egg-info") and p.name != "__pycache__"}
    assert set(folders) == set(PACKAGES)
    for name, folder in folders.items():
        assert folder.is_dir() and not folder.is_symlink(), name
        assert (folder / "__init__.py").is_file(), name
    for short in ("engine", "db", "plugins"):  # one path per file: no second home
        assert not (REPO / short).exists(), short
    links = []
    for top, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in {".git", ".venv", ".venv-lowest"}]
        links += [os.path.join(top, n) for n in dirs + files
                  if os.path.islink(os.path.join(top, n))]
    assert links == []


def test_nothing_imports_a_folder_by_its_repository_name() -> None:
    found = [f"{p.relative_to(REPO)}: {m.group(0).strip()}" for p in sources()
             for m in FOLDER_IMPORT.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
    assert len(sources()) > 200  # the scan saw the code


def test_the_plugin_and_the_engine_import_themselves_relatively() -> None:
    found = []
    for package, folder in (("nonebot_plugin_paizhuo", "src/nonebot_plugin_paizhuo"),
                            ("paizhuo_engine", "src/paizhuo_engine")):
        for p in (REPO / folder).rglob("*.py"):
            for m in SELF_IMPORT.finditer(p.read_text(encoding="utf-8")):
                if m.group(1) == package:
                    found.append(f"{p.relative_to(REPO)}: {m.group(0).strip()}")
    assert found == []


def test_the_engine_and_the_store_do_not_import_nonebot() -> None:
    """engine ← plugins → db: the engine imports neither NoneBot nor the database
    libraries, the store not NoneBot — so the tests of these two folders do not depend
    on the NoneBot and adapter versions (.ci/run runs the rest on the lowest ones)."""
    banned = {"src/paizhuo_engine": ("nonebot", "sqlalchemy", "alembic", "aiosqlite",
                                     "asyncpg"),
              "src/paizhuo_db": ("nonebot",)}
    found = []
    for folder, names in banned.items():
        pattern = re.compile(r"^\s*(?:from|import)\s+(" + "|".join(names) + r")\b", re.M)
        for p in (REPO / folder).rglob("*.py"):
            found += [f"{p.relative_to(REPO)}: {m.group(0).strip()}"
                      for m in pattern.finditer(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_game_adapters_do_not_import_the_computer_turns() -> None:
    """``games/`` (what each game says and does) never imports ``ai_turn`` (when and how a
    computer decides): 困难's choice is an argument of the adapter's computer move, the
    imports go one way (ai_turn → games), and no context variable carries a decision."""
    games = REPO / "src" / "nonebot_plugin_paizhuo" / "games"
    found = [p.name for p in games.rglob("*.py") if "ai_turn" in re.sub(
        r'""".*?"""', "", p.read_text(encoding="utf-8"), flags=re.S)]
    assert found == []
    turn = (REPO / "src" / "nonebot_plugin_paizhuo" / "ai_turn.py").read_text(encoding="utf-8")
    assert "ContextVar" not in turn and "from .games" in turn


PROTOCOL_IMPORT = re.compile(r"^\s*(?:from|import)\s+nonebot\.adapters\.(onebot|milky|satori|qq)\b",
                             re.M)


def test_only_the_port_imports_a_protocols_types() -> None:
    """The table, the games, the records, the sending and the commands speak to "a group",
    "a person", "a private message" … (``port/``); a protocol's types are imported only in
    its room (``port/<side>.py``) and, for OneBot's guarded adapter, in ``internals/``
    (NoneBot's and the adapter's internals, in one place)."""
    plugin = REPO / "src" / "nonebot_plugin_paizhuo"
    allowed = {plugin / "port", plugin / "internals"}
    found = [f"{p.relative_to(REPO)}: {m.group(0).strip()}" for p in plugin.rglob("*.py")
             if not any(p.is_relative_to(a) for a in allowed)
             for m in PROTOCOL_IMPORT.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
    rooms = {p.stem for p in (plugin / "port").glob("*.py")}
    assert {"onebot", "milky", "satori"} <= rooms
