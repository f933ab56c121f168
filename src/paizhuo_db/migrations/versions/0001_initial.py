"""Initial schema: live_tables, game_records, player_records.

Revision ID: 0001
Revises:
Create Date: 2024-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the three tables and their indexes."""
    op.create_table(
        "live_tables",
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("group_id", name=op.f("pk_live_tables")),
    )
    op.create_table(
        "game_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("uid", sa.String(128), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_records")),
        sa.UniqueConstraint("uid", name=op.f("uq_game_records_uid")),
    )
    op.create_index(op.f("ix_game_records_group_id"), "game_records", ["group_id"])
    op.create_table(
        "player_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("result", sa.String(8), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_records")),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game_records.id"],
            name=op.f("fk_player_records_game_id_game_records"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint(
            "result IN ('win', 'draw', 'loss')", name=op.f("ck_player_records_result")
        ),
    )
    op.create_index(
        op.f("ix_player_records_group_id_user_id"), "player_records", ["group_id", "user_id"]
    )


def downgrade() -> None:
    """Drop everything created by :func:`upgrade`."""
    op.drop_index(op.f("ix_player_records_group_id_user_id"), table_name="player_records")
    op.drop_table("player_records")
    op.drop_index(op.f("ix_game_records_group_id"), table_name="game_records")
    op.drop_table("game_records")
    op.drop_table("live_tables")
