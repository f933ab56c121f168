"""The plugin's matchers, one module per group of commands."""

from plugins.paizhuo.matchers import info, play, table

__all__ = ["info", "play", "table"]
