"""The plugin's matchers, one module per group of commands, run through one NoneBot
matcher (``dispatch``: one rule check per event instead of one per command)."""

from plugins.paizhuo.matchers import dispatch, history, info, namespace, play, private, table

dispatch.adopt({namespace.namespace_cmd: {namespace.NAMESPACE}})

__all__ = ["dispatch", "history", "info", "namespace", "play", "private", "table"]
