"""The plugin's matchers, one module per group of commands, run through one NoneBot
matcher (``internals/dispatch.py``: one rule check per event instead of one per command)
unless ``PAIZHUO_FAST_DISPATCH=false``."""

from ..internals import dispatch, fast_dispatch
from . import history, info, namespace, play, private, table

dispatch.adopt({namespace.namespace_cmd: {namespace.NAMESPACE}}, take_out=fast_dispatch())

__all__ = ["history", "info", "namespace", "play", "private", "table"]
