"""Game history: numbered games per group, seat end times, the leaderboard index.

* ``game_records.group_seq``: the game's number in its group (第 N 局), unique per group;
  existing games are numbered in the order they ended.
* ``player_records.ended_at``: copied from the game, so leaderboards by period need no join.
* ``ix_player_records_board``: covers the leaderboard query (group, game, player, period);
* ``ix_player_records_group_id_user_id_ended_at``: a player's games newest first;
* ``ix_player_records_game_id``: the players of a game (/对局 loads them by game).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add and fill the two columns, then index them.

    The columns stay nullable in the schema (new rows always get them, see
    ``paizhuo_db.models``): making them NOT NULL would make SQLite rebuild ``game_records``, and
    dropping the old table would cascade-delete every ``player_records`` row.
    """
    with op.batch_alter_table("game_records") as batch:
        batch.add_column(sa.Column("group_seq", sa.Integer(), nullable=True))
    with op.batch_alter_table("player_records") as batch:
        batch.add_column(sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE game_records SET group_seq = (SELECT COUNT(*) FROM game_records AS g"
        " WHERE g.group_id = game_records.group_id AND (g.ended_at < game_records.ended_at"
        " OR (g.ended_at = game_records.ended_at AND g.id <= game_records.id)))"
    )
    op.execute(
        "UPDATE player_records SET ended_at = (SELECT g.ended_at FROM game_records AS g"
        " WHERE g.id = player_records.game_id)"
    )
    op.create_index(op.f("ix_game_records_group_id_group_seq"), "game_records",
                    ["group_id", "group_seq"], unique=True)
    op.create_index("ix_player_records_board", "player_records",
                    ["group_id", "game", "user_id", "ended_at", "result", "points"])
    op.create_index(op.f("ix_player_records_group_id_user_id_ended_at"), "player_records",
                    ["group_id", "user_id", "ended_at"])
    op.create_index(op.f("ix_player_records_game_id"), "player_records", ["game_id"])


def downgrade() -> None:
    """Drop the indexes and columns added by :func:`upgrade`."""
    op.drop_index(op.f("ix_player_records_game_id"), table_name="player_records")
    op.drop_index(op.f("ix_player_records_group_id_user_id_ended_at"), table_name="player_records")
    op.drop_index("ix_player_records_board", table_name="player_records")
    op.drop_index(op.f("ix_game_records_group_id_group_seq"), table_name="game_records")
    # A plain DROP COLUMN (SQLite 3.35+): a batch rebuild of game_records would
    # cascade-delete the players of every game.
    op.execute("ALTER TABLE player_records DROP COLUMN ended_at")
    op.execute("ALTER TABLE game_records DROP COLUMN group_seq")
