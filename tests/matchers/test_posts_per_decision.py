"""One group post per decision of a person at an all-person table, start and end
included, over consecutive games (the second and third dealt by the last ``/继续``):
measured in process by ``bench/message_counts.py --chat``'s own table runner, seeded
deals, every OneBot call counted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nonebot
import pytest
from nonebot.adapters.onebot.v11 import Adapter

from nonebot_plugin_paizhuo import accounts
from nonebot_plugin_paizhuo.config import reset_plugin_config


def bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "message_counts.py"
    spec = importlib.util.spec_from_file_location("message_counts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("args", "seats"), [("手把一 2人", 2), ("挖坑", 3), ("抓特务 三人", 3)])
async def test_all_person_games_post_at_most_once_per_decision(monkeypatch, args: str,
                                                               seats: int) -> None:
    """Three games in a row: the group posts of each game (from the command that deals
    it to its end message) are no more than the decisions of people in it (moves, private
    answers, the dealing command) — so ≤ 1.05 per decision, the goal. Before, every game
    cost one more (its 第 N 局详情 card)."""
    config = nonebot.get_driver().config
    monkeypatch.setattr(config, "paizhuo_deal_seed", 1, raising=False)
    reset_plugin_config()
    adapter = nonebot.get_adapter(Adapter)
    monkeypatch.setattr(adapter, "_call_api", adapter._call_api)  # the runner replaces them
    monkeypatch.setattr(accounts, "bot_for", accounts.bot_for)
    result = await bench()._chat_table(0, args, seats, 0, {}, games=3, seed=1)
    assert result["decisions"] > 10
    assert result["group"] <= result["decisions"], result
    assert result["group"] / result["decisions"] <= 1.05
    assert result["cards"] == 0  # no merged-forward card after a game


async def test_the_last_continue_is_the_start_post(monkeypatch) -> None:
    """Between games each ``/继续`` gets its one reply; the last one, which deals, is
    answered by the start post itself (no 准备好了 reply before it): the deal and the first
    prompt, which @-mentions the person to act and nobody else."""
    from chat_support import GROUP, gmsg, recording_bot
    from history_support import dealt_table, last_play
    from nonebot.adapters.onebot.v11 import Message

    from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY

    table, last = dealt_table("挖坑", 11, 1)
    await REGISTRY.save(table)
    bot, sent = await recording_bot(monkeypatch)
    user, command = last_play(table, last)
    await bot.handle_event(gmsg(user, command))
    assert table.status == FINISHED
    users = [int(s.user_id) for s in table.seats]
    for u in users[:-1]:
        await bot.handle_event(gmsg(u, "/继续"))
    mark = len(sent.calls)
    await bot.handle_event(gmsg(users[-1], "/继续"))
    assert table.status == PLAYING
    posts = [Message(d["message"]) for api, d in sent.calls[mark:]
             if api.startswith("send_group") and d["group_id"] == GROUP]
    assert len(posts) == 1
    text = posts[0].extract_plain_text()
    assert "开局！" in text and "轮到 " in text and "准备好了" not in text
    acting = table.seats[table.adapter.acting_seat(table.engine)].user_id
    assert [str(seg.data["qq"]) for seg in posts[0] if seg.type == "at"] == [acting]
