"""End announcements: game_records.announcement and game_records.announced_at.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the end message of a finished game and when it was announced (both nullable).
    Plain ``ALTER TABLE`` (no table rebuild: on SQLite a rebuild of ``game_records`` would
    cascade-delete every ``player_records`` row)."""
    op.add_column("game_records", sa.Column("announcement", sa.JSON(), nullable=True))
    op.add_column("game_records", sa.Column("announced_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Drop the two columns (``ALTER TABLE … DROP COLUMN``, SQLite 3.35+; no rebuild)."""
    op.drop_column("game_records", "announced_at")
    op.drop_column("game_records", "announcement")
