"""End-to-end tests deal from a seed: every bot they start gets ``PAIZHUO_DEAL_SEED`` (the same
hands, moves and refusals on every run), unless the test passes its own."""

from __future__ import annotations

import pytest

PAIZHUO_DEAL_SEED = "1"
"""The seed of a bot whose test does not choose one (``env={"PAIZHUO_DEAL_SEED": …}`` wins)."""


@pytest.fixture(autouse=True)
def seeded_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """``BotProcess`` starts the bot with this process's environment, then the test's
    ``env``: a ``PAIZHUO_DEAL_SEED`` here seeds every deal the test does not seed itself."""
    monkeypatch.setenv("PAIZHUO_DEAL_SEED", PAIZHUO_DEAL_SEED)
