"""Living beside other plugins: every command also works as ``/牌桌 <命令>`` (``/牌桌 帮助``,
``/牌桌 开始 …``), and ``PAIZHUO_BARE_COMMANDS`` says which command words the plugin
answers bare (``/帮助``). ``/牌桌`` alone still shows the table.

``PAIZHUO_BARE_COMMANDS``: words separated by commas or spaces; ``all`` (the default)
stands for every command word, ``none`` for none, and ``-词`` takes a word out — e.g.
``all,-帮助,-help,-设置,-开始,-结束`` leaves those words to the bot's other plugins.

A word given away is not put in NoneBot's command prefix table at all (the command modules
create their matchers with :func:`on_command` here, not NoneBot's): the table is shared
by every plugin, so a host plugin's own ``/帮助`` logs no ``Duplicated prefix rule`` and
nothing of this plugin is left behind for it. ``/牌桌 <命令>`` reads the command word
itself (:func:`command_state`), so it works whether the word is in the table or not. The
setting is read when the plugin loads (at start-up, from ``.env``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from nonebot import get_driver, on_message
from nonebot.adapters import Bot, Message
from nonebot.consts import (
    CMD_ARG_KEY,
    CMD_KEY,
    CMD_START_KEY,
    CMD_WHITESPACE_KEY,
    PREFIX_KEY,
    RAW_CMD_KEY,
)
from nonebot.exception import IgnoredException
from nonebot.matcher import Matcher
from nonebot.message import check_and_run_matcher, run_preprocessor
from nonebot.rule import CommandRule, Rule, command
from nonebot.typing import T_State

from ..config import plugin_config
from ..internals import dispatch
from ..port import AnyMessageEvent

NAMESPACE = "牌桌"
NAMESPACED = "paizhuo_namespaced"
"""State key set on a command that came in as ``/牌桌 <命令>``."""
_ours = dispatch.ours


def command_matchers() -> list[tuple[type[Matcher], set[str]]]:
    """This plugin's command matchers with their words, in priority order (the
    namespace itself left out)."""
    return [(matcher, words) for matcher in dispatch.OURS
            if (words := dispatch.command_words(matcher)) and NAMESPACE not in words]


_words: tuple[tuple[type[Matcher], ...], frozenset[str]] | None = None
_bare: tuple[str, frozenset[str], frozenset[str]] | None = None


def command_words() -> frozenset[str]:
    """Every command word of this plugin (``牌桌`` excepted); worked out again only when
    the plugin's matchers change (``dispatch.adopt``)."""
    global _words
    ours = tuple(dispatch.OURS)
    if _words is None or _words[0] != ours:
        _words = (ours, frozenset(w for _, words in command_matchers() for w in words))
    return _words[1]


def bare_words() -> frozenset[str]:
    """The command words answered without ``/牌桌`` under ``PAIZHUO_BARE_COMMANDS``
    (read for every command: parsed once per setting and set of command words)."""
    global _bare
    spec = str(plugin_config().paizhuo_bare_commands)
    words = command_words()
    if _bare is None or _bare[0] != spec or _bare[1] is not words:
        _bare = (spec, words, frozenset(_parse_bare(spec, words)))
    return _bare[2]


def _parse_bare(spec: str, words: frozenset[str]) -> set[str]:
    """:func:`bare_words` from the setting's text and every command word."""
    allowed: set[str] = set()
    for raw in re.split(r"[,，\s]+", unicodedata.normalize("NFKC", spec).strip()):
        if not raw:
            continue
        if raw.lower() in ("all", "*"):
            allowed |= words
        elif raw.lower() == "none":
            allowed.clear()
        elif raw.startswith("-"):
            allowed.discard(raw[1:])
        else:
            allowed.add(raw)
    return allowed


def is_bare(word: str) -> bool:
    """Whether ``word`` is answered without ``/牌桌`` under ``PAIZHUO_BARE_COMMANDS`` (decided
    for the one word, so it can be asked while the matchers are still being created);
    ``/牌桌`` itself always is."""
    return word == NAMESPACE or word in _parse_bare(str(plugin_config().paizhuo_bare_commands), frozenset({word}))


def on_command(cmd: str, aliases: set[str] | None = None, *, priority: int,
               block: bool = True) -> type[Matcher]:
    """NoneBot's ``on_command`` for this plugin's commands, but only the words answered
    bare (:func:`is_bare`) go into NoneBot's prefix table: a word given away leaves no
    prefix behind (no ``Duplicated prefix rule`` beside a host plugin with the same word).
    The matcher's command rule still holds every word, for ``/牌桌 <命令>``."""
    words = [cmd, *sorted((aliases or set()) - {cmd})]
    if bare := [word for word in words if is_bare(word)]:
        command(*bare)  # NoneBot's own: puts the prefixes in the table
    return on_message(Rule(CommandRule([(word,) for word in words])), priority=priority,
                      block=block, _depth=1)


@run_preprocessor
async def _bare_word_filter(matcher: Matcher, state: T_State) -> None:
    """Ignore this plugin's handling of a bare command word the owner left to others."""
    if not _ours(matcher) or state.get(NAMESPACED):
        return
    command = (state.get(PREFIX_KEY) or {}).get(CMD_KEY)
    if not command or len(command) != 1 or command[0] == NAMESPACE:
        return
    if command[0] in command_words() and command[0] not in bare_words():
        raise IgnoredException("command word not answered bare")


def split_subcommand(args: Message) -> tuple[str, Message] | None:
    """``/牌桌 <命令> <参数>`` → ``(命令, 参数)`` when the first word is one of this
    plugin's commands; ``None`` otherwise (``/牌桌`` alone shows the table)."""
    if not args or args[0].type != "text":
        return None
    text = unicodedata.normalize("NFKC", args[0].data.get("text", "")).lstrip()
    for word in sorted(command_words(), key=len, reverse=True):
        if text.startswith(word):
            rest = text[len(word):]
            if rest and not rest[0].isspace():
                continue
            kind = type(args)
            text_segment = kind.get_segment_class()
            tail = kind(text_segment.text(rest)) if rest.strip() else kind()  # type: ignore[attr-defined]
            return word, tail + kind(args[1:])
    return None


async def _has_subcommand(state: T_State) -> bool:
    """``/牌桌 <命令> …`` (the command word ``牌桌`` itself is registered by ``/牌桌``,
    which shows the table)."""
    prefix = state.get(PREFIX_KEY) or {}
    args = prefix.get(CMD_ARG_KEY)
    return prefix.get(CMD_KEY) == (NAMESPACE,) and bool(args) and split_subcommand(args) is not None


namespace_cmd = on_message(rule=Rule(_has_subcommand), priority=8, block=True)


@namespace_cmd.handle()
async def _(bot: Bot, event: AnyMessageEvent, state: T_State) -> None:
    parsed = split_subcommand(state[PREFIX_KEY][CMD_ARG_KEY])
    if parsed is None:
        return
    word, rest = parsed
    start = sorted(get_driver().config.command_start, key=len)[-1] if get_driver().config.command_start else ""
    inner = _with_message(event, type(rest)(type(rest).get_segment_class().text(  # type: ignore[attr-defined]
        f"{start}{word}" + (" " if rest else ""))) + rest)
    inner_state: T_State = {NAMESPACED: True, PREFIX_KEY: command_state(start, word, rest)}
    for matcher in dispatch.OURS:
        if matcher is namespace_cmd:
            continue
        if (await matcher.check_perm(bot, inner)
                and await matcher.check_rule(bot, inner, inner_state.copy())):
            await check_and_run_matcher(matcher, bot, inner, inner_state.copy())
            return


def _with_message(event: AnyMessageEvent, message: Message) -> AnyMessageEvent:
    """A copy of ``event`` whose message is ``message`` (how ``get_message`` reads it
    differs per side: OneBot's ``message``, Milky's ``message``, Satori's ``_message``)."""
    update: dict = {"original_message": message}
    for field in ("message", "_message", "raw_message"):
        if field == "raw_message" and hasattr(event, field):
            update[field] = str(message)
        elif field != "raw_message" and hasattr(event, field):
            current = getattr(event, field)
            if isinstance(current, Message):
                update[field] = message
    inner = event.model_copy(update=update)
    if inner.get_message() is not message and hasattr(inner, "_message"):
        object.__setattr__(inner, "_message", message)
    return inner


def command_state(start: str, word: str, rest: Message) -> dict[str, Any]:
    """NoneBot's parsed-command state (``state[PREFIX_KEY]``) of ``<start><word> <rest>``,
    as its prefix table would give it, made here: a word given away is not in the table."""
    arg = rest.copy()
    whitespace = " "
    if arg and arg[0].type == "text":
        text = arg[0].data.get("text", "")
        stripped = text.lstrip()
        whitespace += text[:len(text) - len(stripped)]
        if stripped:
            arg[0] = type(arg).get_segment_class().text(stripped)  # type: ignore[attr-defined]
        else:
            arg.pop(0)
    return {CMD_KEY: (word,), RAW_CMD_KEY: f"{start}{word}", CMD_START_KEY: start,
            CMD_ARG_KEY: arg, CMD_WHITESPACE_KEY: whitespace if arg else None}


def spelled(word: str) -> str:
    """How a user types command ``word`` under ``PAIZHUO_BARE_COMMANDS``: ``/帮助`` when
    the word is answered bare, else ``/牌桌 帮助``."""
    return f"/{word}" if word in bare_words() else f"/{NAMESPACE} {word}"


def usage_text() -> str:
    """The plugin's usage line (``PluginMetadata.usage``), with the command words as
    they are answered now (:func:`spelled`)."""
    return (f"{spelled('帮助')} 看全部命令和玩法；{spelled('开局')} 抓特务 / 挖坑 / 手把一 "
            f"开一桌，{spelled('加入')} 入座，{spelled('开始')} 发牌；/{NAMESPACE} 看本群的牌桌")
