"""Everything of the plugin that reaches into NoneBot's or the OneBot adapter's internals
(内部接口), in one place, with one switch.

* ``dispatch.py`` — fast dispatch: the plugin's matchers taken out of NoneBot's registry
  and run by a few dispatchers (reads ``Matcher.rule.checkers[*].call``,
  ``handlers[0].call``, ``CommandRule.cmds``, ``IsTypeRule.types``,
  ``TrieRule.get_value``, ``check_and_run_matcher``).
* ``scope.py`` — the event of the running task in a ContextVar, for the dispatchers'
  parameterless rules.
* ``adapter.py`` — ``GuardedAdapter``: overrides the adapter's private ``_handle_ws`` /
  ``_handle_http`` (the guards of ``guard.py``).

``PAIZHUO_FAST_DISPATCH`` (default true) switches dispatch and scope: off, the plugin's
matchers stay registered with NoneBot like any plugin's and events are handled without a
scope (slower per event, nothing else changes). On, the plugin first checks that the
internals it uses are there (:func:`dispatch_problems`) and, when one is missing, logs one
line and runs as if it were off. The adapter's overrides cannot be switched off (they are
the bot's guards): :func:`adapter_problems` makes ``guard.check_startup`` refuse to start.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from nonebot import logger

from ..config import plugin_config

_decided: bool | None = None


def _has(owner: object, *names: str) -> list[str]:
    """The names of ``names`` that ``owner`` lacks, as ``Owner.name``."""
    label = getattr(owner, "__name__", type(owner).__name__)
    return [f"{label}.{name}" for name in names if not hasattr(owner, name)]


def _params(call: Callable[..., object], label: str, *expected: str) -> list[str]:
    """``label(...)`` when ``call``'s first parameters are not ``expected`` (``*``: any
    name; called by position)."""
    try:
        params = list(inspect.signature(call).parameters)
    except (TypeError, ValueError):
        return [f"{label}()"]
    if len(params) < len(expected) or any(
            want not in ("*", got) for want, got in zip(expected, params, strict=False)):
        return [f"{label}({', '.join(expected)})"]
    return []


def dispatch_problems() -> list[str]:
    """The NoneBot internals fast dispatch uses that are missing or changed, one name
    each (``Matcher.destroy``, ``TrieRule.get_value(bot, event, state)`` …); empty: all
    there. Looked up now, so a test can take one away."""
    import nonebot.consts as consts
    import nonebot.matcher as matcher_module
    import nonebot.message as message
    import nonebot.rule as rule
    from nonebot.adapters import Event

    problems = _has(consts, "CMD_KEY", "PREFIX_KEY", "CMD_ARG_KEY")
    problems += _has(matcher_module, "matchers", "current_bot", "current_event",
                     "current_matcher")
    problems += _has(message, "check_and_run_matcher", "event_preprocessor",
                     "run_preprocessor")
    problems += _has(rule, "CommandRule", "IsTypeRule", "TrieRule", "Rule")
    if problems:
        return problems
    problems += _has(matcher_module.Matcher, "destroy", "rule", "permission", "handlers",
                     "temp", "type", "module_name", "priority",
                     "stop_propagation", "check_perm", "check_rule")
    if not all(hasattr(matcher_module.matchers, name) for name in ("__iter__", "__getitem__")):
        problems.append("nonebot.matcher.matchers[priority]")
    problems += _params(message.check_and_run_matcher, "check_and_run_matcher",
                        "*", "bot", "event", "state")
    problems += _has(rule.TrieRule, "get_value")
    if hasattr(rule.TrieRule, "get_value"):
        problems += _params(rule.TrieRule.get_value, "TrieRule.get_value", "bot", "event",
                            "state")
    try:
        command = rule.CommandRule([("x",)])
        type_rule = rule.IsTypeRule(Event)
        checker = next(iter(rule.Rule(_always).checkers))
    except Exception as err:  # noqa: BLE001 - any change of these constructors counts
        return [*problems, f"CommandRule / IsTypeRule / Rule ({type(err).__name__})"]
    problems += _has(command, "cmds") + _has(type_rule, "types") + _has(checker, "call")
    if not problems and (command.cmds != (("x",),) or type_rule.types != (Event,)
                         or checker.call is not _always):
        problems.append("CommandRule.cmds / IsTypeRule.types / Dependent.call")
    return problems


async def _always() -> bool:
    return True


def adapter_problems() -> list[str]:
    """The OneBot v11 adapter's private methods ``GuardedAdapter`` overrides or calls that
    are missing or changed (without them the guards would not run); empty: all there."""
    from nonebot.adapters.onebot.v11 import Adapter

    problems = _has(Adapter, "_handle_ws", "_handle_http", "_check_access_token",
                    "_check_signature", "json_to_event", "setup_http_server",
                    "bot_connect", "bot_disconnect")
    if not problems:
        problems += _params(Adapter._handle_ws, "Adapter._handle_ws", "self", "websocket")
        problems += _params(Adapter._handle_http, "Adapter._handle_http", "self", "request")
    return problems


def fast_dispatch() -> bool:
    """Whether the plugin's matchers run through its dispatchers (and events in scopes):
    ``PAIZHUO_FAST_DISPATCH`` and every internal of :func:`dispatch_problems` there.
    Decided on the first call (when the plugin loads) and kept: logs one line when the
    internals are missing."""
    global _decided
    if _decided is None:
        _decided = decide()
    return _decided


def decide() -> bool:
    """Work out :func:`fast_dispatch` now (logging one line when falling back)."""
    if not plugin_config().paizhuo_fast_dispatch:
        return False
    if missing := dispatch_problems():
        logger.warning(f"牌桌: NoneBot 内部接口变了（{'；'.join(missing)}），"
                       "快速分发关闭，命令照常由 NoneBot 逐个匹配（PAIZHUO_FAST_DISPATCH）")
        return False
    return True
