"""Bot accounts' fencing epochs and recently handled events: account_holds, seen_events.

``account_holds`` keeps one epoch per bot account, raised by each process that takes the
account on a shared PostgreSQL database; every write of the account's tables carries the
epoch it was made under and is refused once another process raised it
(``paizhuo_db.holds``). ``seen_events`` keeps the ids of the events each account handled
recently, so that one delivered again (after a restart too) is not handled twice.
Both start empty.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create both tables (new, empty: no data to move)."""
    op.create_table(
        "account_holds",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("account", name=op.f("pk_account_holds")),
    )
    op.create_table(
        "seen_events",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("mark", sa.String(32), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("account", "event_id", name=op.f("pk_seen_events")),
    )
    op.create_index("ix_seen_events_account_seen_at", "seen_events", ["account", "seen_at"])


def downgrade() -> None:
    """Drop both tables."""
    op.drop_index("ix_seen_events_account_seen_at", table_name="seen_events")
    op.drop_table("seen_events")
    op.drop_table("account_holds")
