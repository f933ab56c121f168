"""The plugin's version, the one place it is written: ``pyproject.toml`` reads it at build
time (``[tool.setuptools.dynamic]``), the start-up log and ``/牌桌 状态`` show it, and
``CHANGELOG.md`` has a section for each. This module imports nothing, so a build can read
it without NoneBot installed."""

__version__ = "0.2.0"
