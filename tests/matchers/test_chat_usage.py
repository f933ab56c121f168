"""Every reply answers the command it was given: a command with wrong, missing or extra
arguments gets one reply that names that command's right form (``/命令 …``), never another
command's usage, and changes nothing."""

from __future__ import annotations

import json

import pytest
from chat_support import GROUP, A, gmsg, pmsg, recording_bot
from nonebot.adapters.onebot.v11 import Message, MessageSegment

from nonebot_plugin_paizhuo.tables import REGISTRY


async def saved() -> str:
    return json.dumps(await REGISTRY.require_store().load_live(), sort_keys=True, default=str)


# (the command as typed, the command whose form the reply must name, what else it must say)
WRONG = [
    # the examples
    ("/设置 斗地主 带3 开", "/设置", ("抓特务、挖坑、手把一", "/规则")),
    ("/设置 带3 开", "/设置", ("抓特务、挖坑、手把一",)),
    ("/开局 抓特务 五人", "/开局 抓特务", ("3 或 4 人",)),
    ("/战绩 乙", "/战绩", ("@",)),
    # missing arguments
    ("/开局", "/开局", ("抓特务、挖坑、手把一",)),
    ("/开局 抓特务", "/开局 抓特务", ("3 或 4 人",)),
    ("/设置", "/设置", ()),
    ("/设置 抓特务", "/设置 抓特务", ("带3",)),
    ("/设置 抓特务 带3", "/设置 抓特务 带3", ("开/关",)),
    # wrong arguments
    ("/开局 斗地主", "/开局", ("斗地主",)),
    ("/开局 挖坑 4人", "/开局 挖坑", ("3 人",)),
    ("/开局 手把一 7人", "/开局 手把一", ("2–6 人",)),
    ("/规则 斗地主", "/规则", ("抓特务、挖坑、手把一",)),
    ("/规则 抓特务 没这项", "/规则", ("没有“没这项”这一项",)),
    ("/设置 抓特务 没这项 开", "/设置", ("可设置",)),
    ("/帮助 斗地主", "/帮助", ("抓特务、挖坑、手把一",)),
    ("/战绩 @乙", "/战绩", ("@",)),
    # extra arguments
    ("/开局 抓特务 四人 快来", "/开局 抓特务", ("3 或 4 人",)),
    ("/设置 抓特务 带3 开 吧", "/设置 抓特务 带3", ("开/关",)),
    ("/规则 抓特务 带3 开", "/规则 抓特务 带3", ("/设置 抓特务 带3",)),
    ("/退出 不玩了", "/退出", ()),
    ("/结束 吧", "/结束", ()),
    ("/牌桌 看看", "/牌桌", ()),
    ("/继续 继续", "/继续", ()),
    ("/托管 一下", "/托管", ()),
    ("/开始 吧", "/开始", ()),
    ("/手牌 看看", "/手牌", ()),
    # numbers: ASCII digits only, one sign at most where a sign makes sense
    ("/设置 抓特务 出牌限时 --5", "/设置 抓特务 出牌限时", ("0–600",)),
    ("/设置 抓特务 出牌限时 ፩", "/设置 抓特务 出牌限时", ("0–600",)),
    ("/设置 抓特务 出牌限时 ٣٠", "/设置 抓特务 出牌限时", ("0–600",)),
    ("/设置 抓特务 出牌限时 1_0", "/设置 抓特务 出牌限时", ("0–600",)),
    ("/对局 ፩", "/对局", ()),
    ("/对局 ٣", "/对局", ()),
    ("/对局 -1", "/对局", ()),
    ("/战绩 ፩፪፫፬፭", "/战绩", ("@",)),
]


@pytest.mark.parametrize("text, form, also", WRONG)
async def test_wrong_arguments_get_the_commands_own_usage(monkeypatch, text: str, form: str,
                                                          also: tuple[str, ...]) -> None:
    before = await saved()
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, text, role="admin"))
    texts = sent.texts()
    assert len(texts) == 1, (text, sent.calls)
    assert form in texts[0], (text, texts[0])
    assert all(part in texts[0] for part in also), (text, texts[0])
    others = {"/开局", "/设置", "/规则", "/帮助", "/战绩"} - {form.split()[0]}
    assert not any(f"用法：{o}" in texts[0] for o in others), (text, texts[0])
    assert await saved() == before
    assert REGISTRY.get(str(GROUP)) is None


async def test_stats_by_a_real_at_or_a_number_still_work(monkeypatch) -> None:
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, Message([MessageSegment.text("/战绩 "), MessageSegment.at(102)])))
    await bot.handle_event(gmsg(A, "/战绩 102030"))
    await bot.handle_event(gmsg(A, "/战绩"))
    texts = sent.texts()
    assert len(texts) == 3 and not any("用法" in t for t in texts), texts


async def test_rules_explain_one_setting(monkeypatch) -> None:
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "/规则 抓特务 带3"))
    await bot.handle_event(gmsg(A, "/规则 带3"))  # the game is found from the setting
    first, second = sent.texts()
    assert first == second
    assert first.splitlines()[0] == "【抓特务】带3：关（可选 开/关，默认 关）"
    assert "3 最大" in first and "/设置 抓特务 带3" in first


async def test_rules_are_short_lines_without_table_separators(monkeypatch) -> None:
    bot, sent = await recording_bot(monkeypatch)
    for game in ("抓特务", "挖坑", "手把一"):
        await bot.handle_event(gmsg(A, f"/规则 {game}"))
    for text in sent.texts():
        lines = text.splitlines()
        assert "｜" not in text and "|" not in text
        assert all(len(line) <= 40 for line in lines), max(lines, key=len)
    assert "带3：关（开/关）" in sent.texts()[0].splitlines()


async def test_private_command_with_extra_words_gets_the_usage(monkeypatch) -> None:
    bot, sent = await recording_bot(monkeypatch)
    await bot.handle_event(pmsg(A, "/手牌 看看"))
    assert [(api, d.get("user_id")) for api, d in sent.calls] == [("send_private_msg", A)]
    assert "/手牌" in sent.texts()[0]
