"""``/规则`` and ``/设置``: a group's settings of each game (read, explained one by one,
changed by the group's owner/admins; applied from the next game dealt).

Owns the group settings' texts and their saving; may call :mod:`.basics` only.
"""

from __future__ import annotations

import unicodedata

from nonebot import logger

from paizhuo_engine.settings import Setting, SettingError

from ..games import GAMES, GameAdapter, UsageError, find_game
from ..tables import (
    REGISTRY,
)
from .basics import NOT_APPLIED, group_settings

GAME_LIST = "、".join(GAMES)


RULES_USAGE = f"用法：/规则 [游戏] [项]，例如 /规则 抓特务、/规则 抓特务 带3。游戏：{GAME_LIST}"


SET_USAGE = (f"用法：/设置 <游戏> <项> <值>，例如 /设置 抓特务 带3 开；/设置 <游戏> 默认 恢复默认。"
             f"游戏：{GAME_LIST}；可设置的项：/规则 <游戏>")


def choices_text(setting: Setting) -> str:
    """The values a setting allows, compact: ``开/关``, ``0–600``, ``a/b/c``."""
    if setting.kind == "bool":
        return "开/关"
    if setting.kind == "int":
        return f"{setting.low}–{setting.high}"
    return "/".join(setting.choices)


def _game_for(group_id: str, name: str) -> GameAdapter:
    if name:
        return find_game(name)
    table = REGISTRY.get(group_id)
    return table.adapter if table is not None else next(iter(GAMES.values()))


def _rules_target(group_id: str, words: list[str]) -> tuple[GameAdapter, Setting | None]:
    """The game and (optional) setting that ``/规则`` arguments name. A setting named
    without a game belongs to the table's game, else to the first game that has it.
    Raises :class:`UsageError` with the reply."""
    if words and words[0] in GAMES:
        adapter, rest = GAMES[words[0]], words[1:]
    else:
        adapter, rest = _game_for(group_id, ""), words
        if rest and not any(rest[0] in (x.name, x.field) for x in adapter.schema.settings):
            adapter = next((a for a in GAMES.values()
                            if any(rest[0] in (x.name, x.field) for x in a.schema.settings)), adapter)
    if not rest:
        return adapter, None
    try:
        setting = adapter.schema.find(rest[0])
    except SettingError as err:
        if not words or words[0] not in GAMES:
            raise UsageError(RULES_USAGE) from None
        raise UsageError(f"{err}。{RULES_USAGE}") from None
    if len(rest) > 1:
        raise UsageError(f"用法：/规则 {adapter.name} {setting.name}（查看这一项）；"
                         f"改：/设置 {adapter.name} {setting.name} <值>")
    return adapter, setting


async def show_rules(group_id: str, args: str) -> str:
    """``/规则 [游戏]``: every setting of the game in this group, one short line each
    (``带3：关（开/关）``); ``/规则 [游戏] <项>``: one setting explained. Wrong arguments get
    the usage."""
    try:
        adapter, setting = _rules_target(group_id, unicodedata.normalize("NFKC", args).split())
    except UsageError as err:
        return str(err)
    values = await group_settings(group_id, adapter)
    if setting is not None:
        value = setting.show(values[setting.field])
        default = setting.show(setting.default)
        return "\n".join([
            f"【{adapter.name}】{setting.name}：{value}（可选 {choices_text(setting)}，默认 {default}）",
            setting.meaning,  # no rule codes in what players read
            f"改：/设置 {adapter.name} {setting.name} <值>（群主、管理员）",
        ])
    lines = [f"【{adapter.name}】本群规则"]
    for s in adapter.schema.settings:
        mark = "，已改" if values[s.field] != s.default else ""
        lines.append(f"{s.name}：{s.show(values[s.field])}（{choices_text(s)}{mark}）")
    lines.append(f"详解一项：/规则 {adapter.name} <项>；改：/设置 {adapter.name} <项> <值>")
    return "\n".join(lines)


async def change_setting(group_id: str, args: str, is_manager: bool) -> str:
    """``/设置 <游戏> <项> <值>`` or ``/设置 <游戏> 默认`` (owner, admins, SUPERUSERS).
    Applies from the next game dealt. Wrong, missing or extra arguments get the /设置
    usage naming what is wrong."""
    if not is_manager:
        return "只有群主、管理员可以修改规则。"
    parts = unicodedata.normalize("NFKC", args).split()
    if not parts or parts[0] not in GAMES:
        wrong = f"没有“{parts[0][:20]}”这个游戏。" if parts and not any(
            parts[0] in (x.name, x.field) for a in GAMES.values() for x in a.schema.settings) else ""
        return wrong + SET_USAGE
    adapter = GAMES[parts[0]]
    store = REGISTRY.require_store()
    if parts[1:] == ["默认"]:
        if not await _store_settings(group_id, adapter.name, {}):
            return NOT_APPLIED
        return f"{adapter.name} 已恢复默认规则，下一局生效。"
    if len(parts) == 1:
        names = "、".join(s.name for s in adapter.schema.settings)
        return f"用法：/设置 {adapter.name} <项> <值>，可设置：{names}（/规则 {adapter.name} 查看现值）"
    try:
        setting = adapter.schema.find(parts[1])
    except SettingError as err:
        return f"{err}。用法：/设置 {adapter.name} <项> <值>"
    try:
        if len(parts) != 3:
            return (f"用法：/设置 {adapter.name} {setting.name} <值>，"
                    f"可选 {choices_text(setting)}（/规则 {adapter.name} {setting.name}）")
        value = setting.parse(parts[2])
    except SettingError as err:
        return f"{err}。用法：/设置 {adapter.name} {setting.name} <值>"
    stored = await store.get_settings(group_id, adapter.name)
    stored = {k: v for k, v in adapter.schema.clean(stored).items()
              if v != next(s.default for s in adapter.schema.settings if s.field == k)}
    stored[setting.field] = value
    problem = adapter.schema.check(adapter.schema.clean(stored))
    if problem:
        return problem
    if value == setting.default:
        stored.pop(setting.field)
    if not await _store_settings(group_id, adapter.name, stored):
        return NOT_APPLIED
    logger.info(f"setting group={group_id} game={adapter.name} {setting.field}={value!r}")
    return f"{adapter.name} {setting.name} 已设为 {setting.show(value)}，下一局生效。"


async def _store_settings(group_id: str, game: str, values: dict) -> bool:
    """Save a group's settings; ``False`` (and the cause logged) when the store raised."""
    try:
        await REGISTRY.require_store().set_settings(group_id, game, values)
    except Exception as err:  # noqa: BLE001 - the store failed: the setting does not count
        logger.error(f"event=save_failed group={group_id} game={game} what=settings cause={err!r}")
        return False
    return True
