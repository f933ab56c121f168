"""Living beside other plugins: every command also works as ``/牌桌 <命令>`` (``/牌桌 帮助``,
``/牌桌 开始 …``), and ``PAIZHUO_BARE_COMMANDS`` says which command words the plugin
answers bare (``/帮助``). ``/牌桌`` alone still shows the table.

``PAIZHUO_BARE_COMMANDS``: words separated by commas or spaces; ``all`` (the default)
stands for every command word, ``none`` for none, and ``-词`` takes a word out — e.g.
``all,-帮助,-help,-设置,-开始,-结束`` leaves those words to the bot's other plugins.
"""

from __future__ import annotations

import re
import unicodedata

from nonebot import get_driver, on_message
from nonebot.adapters import Bot, Message
from nonebot.consts import CMD_ARG_KEY, CMD_KEY, PREFIX_KEY
from nonebot.exception import IgnoredException
from nonebot.matcher import Matcher
from nonebot.message import check_and_run_matcher, run_preprocessor
from nonebot.rule import Rule, TrieRule
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
    inner_state: T_State = {NAMESPACED: True}
    TrieRule.get_value(bot, inner, inner_state)
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


def spelled(word: str) -> str:
    """How a user types command ``word`` under ``PAIZHUO_BARE_COMMANDS``: ``/帮助`` when
    the word is answered bare, else ``/牌桌 帮助``."""
    return f"/{word}" if word in bare_words() else f"/{NAMESPACE} {word}"


def usage_text() -> str:
    """The plugin's usage line (``PluginMetadata.usage``), with the command words as
    they are answered now (:func:`spelled`)."""
    return (f"{spelled('帮助')} 看全部命令和玩法；{spelled('开局')} 抓特务 / 挖坑 / 手把一 "
            f"开一桌，{spelled('加入')} 入座，{spelled('开始')} 发牌；/{NAMESPACE} 看本群的牌桌")
