"""A few NoneBot matchers for the whole plugin (分发): an event costs one rule check per
priority the plugin uses (five), not one per command.

NoneBot checks every registered matcher of a priority for every event, each check
running dependency injection in its own task; with two dozen matchers that was most of
the bot's CPU time for each group message, chat included (``bench/load.py``). So the
plugin's matchers are written as usual (``on_command`` / ``on_message`` in the modules
beside this one) and then taken out of NoneBot's registry by :func:`adopt`. In their
place there is one dispatcher per priority they had (``DISPATCHERS``: 5, 6, 8, 9, 10), so
other plugins' matchers keep their places before, beside or after ours. The first
dispatcher to see an event picks in plain Python the few matchers of ours that can take
it — by the command word NoneBot already parsed, or by running a matcher's own simple
rule functions directly — once for the event, and each dispatcher runs those of its
priority in order: the commands with NoneBot's ``check_and_run_matcher``, so their rules,
permissions, arguments (``CommandArg``), ``finish`` and the run preprocessors behave
exactly as before; the moves and private answers (a rule the prefilter decides, one
``(bot, event)`` handler) by calling the handler.

The event goes on to other plugins' matchers unless one of ours handled it (each of ours
blocks), as before.

With ``PAIZHUO_FAST_DISPATCH=false`` (or NoneBot's internals changed, see
``internals/__init__.py``) :func:`adopt` is called with ``take_out=False``: the matchers
stay registered, NoneBot runs them as any plugin's, and only the per-sender command limit
is kept, by a run preprocessor (:func:`_command_limit_when_registered`).
"""

from __future__ import annotations

import inspect
import types as types_module
import typing
from collections.abc import Awaitable, Callable
from typing import Any

from nonebot import get_driver, logger, on_message
from nonebot.adapters import Event
from nonebot.consts import CMD_KEY, PREFIX_KEY
from nonebot.exception import IgnoredException, StopPropagation
from nonebot.matcher import Matcher, current_bot, current_event, current_matcher, matchers
from nonebot.message import check_and_run_matcher, event_preprocessor, run_preprocessor
from nonebot.rule import CommandRule, IsTypeRule, Rule, TrieRule
from nonebot.typing import T_State

from . import scope

PLUGIN_MODULE = "nonebot_plugin_paizhuo"
CANDIDATES = "paizhuo_candidates"
"""State key: the matchers a dispatcher found for the event at its priority, in order."""
HOLDER = "paizhuo_dispatch"
"""State key of the per-event holder of the candidates (see ``_fresh_holder``)."""

DISPATCHERS: dict[int, type[Matcher]] = {}
"""The NoneBot matchers of this plugin: one per priority its own matchers had."""

OURS: list[type[Matcher]] = []
"""The plugin's matchers (not registered with NoneBot), in priority order."""
_by_word: dict[str, list[type[Matcher]]] = {}
_plain: list[tuple[type[Matcher], Check | None]] = []
_rank: dict[type[Matcher], int] = {}
UNLIMITED: set[type[Matcher]] = set()
"""Matchers outside the per-sender command limit (moves and private answers: their
refusals are limited on their own, and an accepted one is the game going on)."""
_direct: dict[type[Matcher], tuple[type, Callable[..., Awaitable[Any]], bool]] = {}
"""Matchers run by calling their one handler ``(bot, event[, state])`` directly (see
:func:`adopt`), with the bot type the handler takes; ``state`` is where its rule left what
it worked out (the event's :data:`NOTES`)."""
NOTES = "paizhuo_notes"
"""Key of the per-event dict the prefilter's rules write into (as NoneBot rules write
into ``state``), handed to a directly run handler as its ``state``."""
ADOPTED = False
"""Whether the plugin's matchers were taken out of NoneBot's registry (fast dispatch)."""


def ours(matcher: type[Matcher] | Matcher) -> bool:
    """Whether ``matcher`` belongs to this plugin."""
    module = matcher.module_name or ""
    return module == PLUGIN_MODULE or module.startswith(PLUGIN_MODULE + ".")


def command_words(matcher: type[Matcher]) -> set[str]:
    """The one-word commands of a matcher (its name and aliases)."""
    words = set()
    for checker in matcher.rule.checkers:
        if isinstance(checker.call, CommandRule):
            words |= {cmd[0] for cmd in checker.call.cmds if len(cmd) == 1}
    return words


def _event_type(call: Callable[..., Any]) -> tuple[tuple[type, ...], bool] | None:
    """``(the annotated types of its event (a class or a union of them), whether it takes
    the state)`` of a rule
    function taking a typed ``event`` and, optionally, ``state`` (where it leaves what it
    worked out for the handler: a command's text is parsed once)."""
    try:
        params = list(inspect.signature(call).parameters.values())
        hints = typing.get_type_hints(call)
    except (TypeError, ValueError, NameError):
        return None
    names = [p.name for p in params]
    if names not in (["event"], ["event", "state"]):
        return None
    hint = hints.get("event")
    union = typing.get_origin(hint) in (typing.Union, types_module.UnionType)
    kinds = typing.get_args(hint) if union else (hint,)
    if not kinds or not all(isinstance(k, type) for k in kinds):
        return None
    return kinds, len(names) == 2


Check = Callable[[Event, T_State], Awaitable[bool]]


def _prefilter(matcher: type[Matcher]) -> Check | None:
    """The matcher's rule as a plain coroutine of the event and a state, when every
    checker is an event-type check or a coroutine function taking just a typed ``event``
    (and maybe the ``state``: all of this plugin's message rules); ``None`` when it must be
    checked by NoneBot."""
    steps: list[tuple[tuple[type, ...], Callable[..., Awaitable[bool]] | None, bool]] = []
    for checker in matcher.rule.checkers:
        call = checker.call
        if isinstance(call, IsTypeRule):
            steps.append((call.types, None, False))
            continue
        if not inspect.iscoroutinefunction(call) or (found := _event_type(call)) is None:
            return None
        steps.append((found[0], call, found[1]))
    if not steps:
        return None

    async def check(event: Event, state: T_State) -> bool:
        for types, call, takes_state in steps:
            if not isinstance(event, types):
                return False
            if call is not None and not await (call(event, state) if takes_state else call(event)):
                return False
        return True

    return check


def _direct_handler(matcher: type[Matcher]) -> tuple[type, Callable[..., Awaitable[Any]], bool] | None:
    """``(bot type, handler, takes the state)`` when the matcher needs nothing of NoneBot's
    per-run machinery: no permission, and one handler taking just ``bot`` and ``event``
    (typed) and maybe ``state`` (what its rule left there),
    so the dispatcher, having checked its rule already (the prefilter), may call it."""
    if matcher.permission.checkers or len(matcher.handlers) != 1:
        return None
    call = matcher.handlers[0].call
    if not inspect.iscoroutinefunction(call):
        return None
    try:
        params = list(inspect.signature(call).parameters)
        hints = typing.get_type_hints(call)
    except (TypeError, ValueError, NameError):
        return None
    bot_type = hints.get("bot")
    if params not in (["bot", "event"], ["bot", "event", "state"]) or not isinstance(bot_type, type):
        return None
    return bot_type, call, len(params) == 3


def adopt(extra_words: dict[type[Matcher], set[str]] | None = None,
          take_out: bool = True) -> None:
    """Take the plugin's matchers out of NoneBot's registry and index them: by command
    word (``extra_words`` adds words to a matcher that has no command rule of its own,
    e.g. the ``/牌桌 <命令>`` namespace), the others with their prefilter. A message
    matcher whose rule the prefilter decides exactly and whose one handler takes just
    ``(bot, event)`` — the moves and the private answers, most of the traffic — is run
    by calling that handler (the dispatcher itself went through NoneBot's run
    preprocessors); the others through NoneBot. Call once, after every matcher module
    is imported. ``take_out=False`` (fast dispatch off): only list them in ``OURS``
    (the namespace ``/牌桌 <命令>`` runs them from there), leaving them registered."""
    global ADOPTED
    extra = extra_words or {}
    found = []
    for priority in sorted(matchers):
        for matcher in list(matchers[priority]):
            if (ours(matcher) and matcher not in DISPATCHERS.values()
                    and matcher.type == "message" and not matcher.temp):
                if take_out:
                    matcher.destroy()
                found.append(matcher)
    OURS[:] = found
    ADOPTED = take_out
    if not take_out:
        return
    _rank.clear()
    _rank.update({m: i for i, m in enumerate(found)})
    _by_word.clear()
    _plain.clear()
    _direct.clear()
    for matcher in found:
        words = command_words(matcher) | extra.get(matcher, set())
        if words:
            for word in words:
                _by_word.setdefault(word, []).append(matcher)
        else:
            check = _prefilter(matcher)
            _plain.append((matcher, check))
            if check is not None and (direct := _direct_handler(matcher)) is not None:
                _direct[matcher] = direct
    for priority in sorted({m.priority for m in found} - set(DISPATCHERS)):
        dispatcher = on_message(rule=Rule(_candidates_at(priority)), priority=priority,
                                block=False)
        dispatcher.handle()(_run_candidates)
        DISPATCHERS[priority] = dispatcher
    if scope.provided:
        use_scopes()


@run_preprocessor
async def _command_limit_when_registered(state: T_State) -> None:
    """With the plugin's matchers registered (fast dispatch off): the per-sender command
    limit the dispatchers apply (:func:`_within_command_limit`), decided once per event by
    the first matcher of ours that runs; over the limit, each of ours ignores the event."""
    if ADOPTED:
        return
    matcher = current_matcher.get()
    if not ours(matcher):
        return
    holder = state.get(HOLDER)
    if holder is None:
        holder = state[HOLDER] = {}
    if "allowed" not in holder:
        holder["allowed"] = _within_command_limit(current_bot.get(), current_event.get(),
                                                  type(matcher))
    if not holder["allowed"]:
        raise IgnoredException("sender over the command limit")


def use_scopes(on: bool = True) -> None:
    """Give the dispatchers rules that take no parameters and read the event from its
    scope (``scope.py``): the bot's own adapter handles every event in one. Called at
    startup when that adapter is registered (or by :func:`adopt` when it already was);
    ``on=False`` gives back the rules that take ``event`` and ``state``."""
    for priority, dispatcher in DISPATCHERS.items():
        dispatcher.rule = Rule(_scoped_candidates_at(priority) if on else _candidates_at(priority))


@get_driver().on_startup
async def _scopes_at_startup() -> None:
    if scope.provided:
        use_scopes()


@event_preprocessor
async def _fresh_holder(state: T_State) -> None:
    """A place in the event's state, shared by every matcher's copy of it, where the
    first dispatcher leaves the event's candidates for the others."""
    state[HOLDER] = {}


async def _all_candidates(event: Event, state: T_State, notes: T_State) -> list[type[Matcher]]:
    """Every matcher of ours that may take the event, in priority order; the rules write
    what they worked out into ``notes``."""
    command = (state.get(PREFIX_KEY) or {}).get(CMD_KEY)
    found = list(_by_word.get(command[0], ())) if command and len(command) == 1 else []
    for matcher, check in _plain:
        try:
            fits = check is None or await check(event, notes)
        except Exception:  # noqa: BLE001 - as NoneBot does with a failing rule
            logger.exception(f"rule of {matcher} failed")
            fits = False
        if fits:
            found.append(matcher)
    found.sort(key=_rank.__getitem__)
    return found


def _candidates_at(priority: int) -> Callable[[Event, T_State], Awaitable[bool]]:
    """The rule of the dispatcher at ``priority``: whether a matcher of ours of that
    priority may take the event (the candidates are worked out once per event)."""

    async def candidates(event: Event, state: T_State) -> bool:
        holder = state.get(HOLDER)
        if holder is None:
            holder = state[HOLDER] = {}
        if "found" not in holder:
            holder[NOTES] = {}
            holder["found"] = await _all_candidates(event, state, holder[NOTES])
        here = [m for m in holder["found"] if m.priority == priority]
        state[CANDIDATES] = here
        return bool(here)

    return candidates


def _scoped_candidates_at(priority: int) -> Callable[[], Awaitable[bool]]:
    """:func:`_candidates_at` for events handled in a scope: no parameters to solve (the
    command word is parsed once more, as NoneBot did for the state); without a scope it
    passes, and the handler works the candidates out from the matcher's state."""

    async def candidates() -> bool:
        current = scope.CURRENT.get()
        if current is None:
            return True
        found = current.data.get(CANDIDATES)
        if found is None:
            parsed: T_State = {}
            TrieRule.get_value(current.bot, current.event, parsed)
            notes = current.data[NOTES] = {}
            found = current.data[CANDIDATES] = await _all_candidates(current.event, parsed, notes)
        return any(m.priority == priority for m in found)

    return candidates


def _within_command_limit(bot: Any, event: Event, first: type[Matcher]) -> bool:
    """Whether the sender of a command may have it handled now (and count it): every
    command of ours counts against the sender's limit (``PAIZHUO_COMMAND_LIMIT``), weighed by
    what it costs (``messaging.command_weight``), moves and private answers and the
    superusers' commands excepted. The command that goes over the limit gets the one
    notice (``messaging.notify_limited``); the next ones, nothing."""
    from ..messaging import NOTICE, OK, command_limiter, command_weight, notify_limited
    from ..port import where

    if first in UNLIMITED:
        return True
    try:
        user_id = where(event)[1]  # the sender, on any side
    except TypeError:  # not a person's message on a side with a room
        return True
    if str(user_id) in getattr(bot.config, "superusers", ()):
        return True
    verdict = command_limiter().check(str(user_id), command_weight(command_words(first)))
    if verdict == NOTICE:
        notify_limited(bot, event)  # type: ignore[arg-type]
    return verdict == OK


def _limit_once(state: T_State, bot: Any, event: Event, first: type[Matcher]) -> bool:
    """:func:`_within_command_limit`, decided once per event: the dispatchers of several
    priorities may each have a candidate for one command (``/牌桌`` is a command and the
    namespace's word), which must count once."""
    if first in UNLIMITED:
        return True
    holder = state.get(HOLDER)
    if holder is None:
        current = scope.CURRENT.get()
        holder = current.data if current is not None else {}
    if "allowed" not in holder:
        holder["allowed"] = _within_command_limit(bot, event, first)
    return holder["allowed"]


async def _run_candidates() -> None:
    """The dispatchers' handler (no parameters: the matcher, bot and event are the ones
    NoneBot set for the run): run this priority's candidates in order until one takes
    the event (each of ours blocks: the event then goes no further)."""
    matcher, bot, event = current_matcher.get(), current_bot.get(), current_event.get()
    state = matcher.state
    current = scope.CURRENT.get()
    found: list[type[Matcher]] | None = state.pop(CANDIDATES, None)
    notes = (current.data.get(NOTES) if current is not None else None) \
        or (state.get(HOLDER) or {}).get(NOTES)
    if found is None:
        every = current.data.get(CANDIDATES) if current is not None else None
        if every is None:
            notes = {}
            every = await _all_candidates(event, state, notes)
        found = [m for m in every if m.priority == matcher.priority]
    if notes is None:
        notes = {}
    if found and not _limit_once(state, bot, event, found[0]):
        matcher.stop_propagation()  # ours, over the sender's limit: ignored
        return
    for inner in found:
        direct = _direct.get(inner)
        if direct is not None and isinstance(bot, direct[0]):  # its rule passed: run it
            matcher.stop_propagation()  # handled, even if the handler fails
            if direct[2]:
                await direct[1](bot=bot, event=event, state=notes)
            else:
                await direct[1](bot=bot, event=event)
            return
        try:
            await check_and_run_matcher(inner, bot, event, dict(state))
        except StopPropagation:  # it ran (every matcher of ours blocks): stop here
            matcher.stop_propagation()
            return
