"""The plugin's matchers, one module per group of commands."""

from plugins.paizhuo.matchers import history, info, namespace, play, private, table

__all__ = ["history", "info", "namespace", "play", "private", "table"]
