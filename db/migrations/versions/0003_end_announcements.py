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
    """Add the end message of a finished game and when it was announced (both nullable)."""
    with op.batch_alter_table("game_records") as batch:
        batch.add_column(sa.Column("announcement", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("announced_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Drop the two columns."""
    with op.batch_alter_table("game_records") as batch:
        batch.drop_column("announced_at")
        batch.drop_column("announcement")
