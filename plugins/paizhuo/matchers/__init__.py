"""The plugin's matchers, one module per group of commands."""

from plugins.paizhuo.matchers import history, info, play, private, table

__all__ = ["history", "info", "play", "private", "table"]
