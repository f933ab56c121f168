"""Bot account of each live table: live_tables.account (+ index).

A table belongs to the bot account (QQ number, ``self_id``) in whose group it was opened;
a process loads and writes only the rows of the accounts connected to it. Rows saved
before this revision have no account (NULL) and are claimed by the first account that
connects and is in that group (see ``Store.claim_live``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the nullable account column and its index (a plain ``ALTER TABLE``, no table
    rebuild)."""
    op.add_column("live_tables", sa.Column("account", sa.String(32), nullable=True))
    op.create_index(op.f("ix_live_tables_account"), "live_tables", ["account"])


def downgrade() -> None:
    """Drop the account column and its index (SQLite 3.35+ drops a column in place)."""
    op.drop_index(op.f("ix_live_tables_account"), table_name="live_tables")
    op.drop_column("live_tables", "account")
