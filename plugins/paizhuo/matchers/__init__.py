"""The plugin's matchers, one module per group of commands."""

from plugins.paizhuo.matchers import info, play, private, table

__all__ = ["info", "play", "private", "table"]
