"""Test-wide settings: hypothesis runs derandomized (the same examples on every run, so a
green CI is repeatable); the long random runs are the soak scripts under tools/, which
select the ``soak`` profile (``HYPOTHESIS_PROFILE=soak``)."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("soak", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
