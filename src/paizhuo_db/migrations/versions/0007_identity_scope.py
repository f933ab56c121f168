"""A person is (scope, user id): game_records.scope and player_records.scope (+ index).

The bot serves QQ over OneBot v11, Milky and Satori, where a person's id is the QQ number
(the ``QQClient`` scope, as nonebot-plugin-uninfo names it), and will serve sides whose ids
are of another kind (the official QQ bot's openids). Every record carries the scope its ids
belong to; every row written before this revision is a QQ number of the ``QQClient``
scope, and gets it here, so every record and every leaderboard is kept and a group that
moves from NapCat to LLBot (Milky or Satori) keeps its /战绩 and /排行.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QQ_SCOPE = "QQClient"


def upgrade() -> None:
    """Add ``scope`` (NOT NULL, ``QQClient`` for every existing row: a plain ``ALTER TABLE
    … ADD COLUMN … DEFAULT``, no table rebuild) and the index of a person's rows."""
    for table in ("game_records", "player_records"):
        op.add_column(table, sa.Column("scope", sa.String(32), nullable=False,
                                       server_default=QQ_SCOPE))
    op.create_index("ix_player_records_scope_group_id_user_id", "player_records",
                    ["scope", "group_id", "user_id"])


def downgrade() -> None:
    """Drop the index and the columns (SQLite 3.35+ drops a column in place); rows of
    another scope than ``QQClient`` lose what told them apart."""
    op.drop_index("ix_player_records_scope_group_id_user_id", table_name="player_records")
    for table in ("player_records", "game_records"):
        op.drop_column(table, "scope")
