"""Make ``import db`` resolve to the project's ``db`` package inside these tests.

``pyproject.toml`` sets ``pythonpath = ["tests"]``, so ``tests/`` is on ``sys.path`` and
this folder (``tests/db``, no ``__init__.py``) is a *namespace package* candidate named
``db``. When the project root is not on ``sys.path`` (plain ``.venv/bin/pytest``; the
editable install's finder runs after the path finder) that namespace package would win
over the real ``db`` package. Putting the project root on ``sys.path`` fixes the lookup:
a regular package anywhere on the path beats a namespace portion.
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])

if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

_db = sys.modules.get("db")
if _db is not None and getattr(_db, "__file__", None) is None:  # stale namespace package
    for _name in [n for n in sys.modules if n == "db" or n.startswith("db.")]:
        del sys.modules[_name]


import pytest  # noqa: E402
from pg_support import fresh_pg_url  # noqa: E402

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A blank database of each backend: a new SQLite file, and the test PostgreSQL
    server with an empty schema (skipped when ``PAIZHUO_TEST_PG_URL`` is unset)."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'paizhuo.db'}"
    return await fresh_pg_url()
