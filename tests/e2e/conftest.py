"""End-to-end tests deal from a seed: every bot they start gets ``DEAL_SEED`` (the same
hands, moves and refusals on every run), unless the test passes its own."""

from __future__ import annotations

import pytest

DEAL_SEED = "1"
"""The seed of a bot whose test does not choose one (``env={"DEAL_SEED": …}`` wins)."""


@pytest.fixture(autouse=True)
def seeded_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """``BotProcess`` starts the bot with this process's environment, then the test's
    ``env``: a ``DEAL_SEED`` here seeds every deal the test does not seed itself."""
    monkeypatch.setenv("DEAL_SEED", DEAL_SEED)
