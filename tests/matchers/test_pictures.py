"""Pictures (Pillow): each one renders and decodes, with any font this machine has (Pillow's
own font on a machine without Chinese fonts); the matchers send them when pictures are on
and the text when the picture fails."""

from __future__ import annotations

import base64
import io
import random

import nonebot
import pytest
from chat_support import GROUP, A, Has, expect_group, gmsg, make_bot
from history_support import dealt_table, finish, last_play, play_out
from nonebot.adapters.onebot.v11 import ActionFailed, Message
from nonebug import App
from PIL import Image

from plugins.paizhuo import render
from plugins.paizhuo.config import reset_plugin_config
from plugins.paizhuo.games import GAMES
from plugins.paizhuo.games.base import SeatView
from plugins.paizhuo.pictures import details_text
from plugins.paizhuo.replay import capture
from plugins.paizhuo.tables import REGISTRY

SEATS = [SeatView(str(100 + i), f"玩家{i}") for i in range(6)]


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.verify()  # a complete, uncorrupted PNG
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image


def test_board_card_renders() -> None:
    lines = [f"{i}. 玩家{i} +{30 - i}（{i + 3} 局，胜率 50%）" for i in range(1, 11)]
    image = decode(render.card("【抓特务排行·总榜】（至少 3 局上榜）", lines + ["你：12. 我 +1"]))
    assert 360 <= image.width <= 1600 and 44 + 32 * 11 <= image.height <= 900


def test_stats_card_with_a_points_chart_is_taller() -> None:
    text = "我 的战绩（本群）：\n抓特务：9 局，胜 5 平 1 负 3\n当前：2 连胜"
    plain = decode(render.text_card(text))
    charted = decode(render.text_card(text, [0, 2, -1, 3, 7, 4]))
    assert charted.height >= plain.height + 150 and charted.width == plain.width


@pytest.mark.parametrize("name,size", [("抓特务", 4), ("挖坑", 3), ("手把一", 5)])
def test_end_summary_and_table_pictures_render(name: str, size: int) -> None:
    adapter = GAMES[name]
    game = adapter.new_game(size, adapter.schema.clean({}), 3, None)
    table_png = render.text_card(adapter.table(game, SEATS[:size]).extract_plain_text())
    assert decode(table_png).height >= 44 + 32 * size
    play_out(adapter, game, SEATS[:size], random.Random(3))
    end_text = adapter.end(game, SEATS[:size]).extract_plain_text()
    text = details_text(adapter, game, SEATS[:size], 7, end_text, capture(game))
    assert text is not None and text.startswith(f"【{name}】第 7 局详情") and "发牌：" in text
    assert all(f"{s + 1}.玩家{s}" in text for s in range(size))
    image = decode(render.text_card(text))
    assert image.height >= 32 * (size + 4)


def test_too_long_a_text_stays_text() -> None:
    with pytest.raises(ValueError):
        render.card("t", ["x"] * (render.MAX_LINES + 1))


def test_missing_font_is_logged_and_pictures_are_off(monkeypatch) -> None:
    monkeypatch.setattr(nonebot.get_driver().config, "paizhuo_font", "/nonexistent/font.ttc",
                        raising=False)
    reset_plugin_config()
    monkeypatch.setattr(render, "FONT_CANDIDATES", ())
    monkeypatch.setattr(render, "_fc_list_font", lambda: None)
    render.font_path.cache_clear()
    try:
        assert render.font_path() is None and not render.usable()
    finally:
        render.font_path.cache_clear()
        render._font.cache_clear()


# ---- through the matchers --------------------------------------------------------------------
class IsPicture:
    """Equals a message that is one PNG picture (base64) that decodes."""

    def __eq__(self, other: object) -> bool:
        msg = other if isinstance(other, Message) else Message(other)  # type: ignore[arg-type]
        if len(msg) != 1 or msg[0].type != "image":
            return False
        file = str(msg[0].data["file"])
        return file.startswith("base64://") and decode(base64.b64decode(file[9:])).width > 0


@pytest.fixture
def pictures(monkeypatch):
    config = nonebot.get_driver().config
    config.paizhuo_images = True
    reset_plugin_config()
    monkeypatch.setattr(render, "usable", lambda: True)
    yield
    config.paizhuo_images = False
    reset_plugin_config()


async def test_board_and_stats_as_pictures_with_text_fallback(app: App, pictures) -> None:
    await finish([(A, "win", 2), (102, "loss", -2)])
    await REGISTRY.require_store().set_settings(str(GROUP), "抓特务", {"board_min_games": 1})
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(A, "/排行"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 1})
        ctx.receive_event(bot, gmsg(A, "/排行"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()}, None,
                            exception=ActionFailed(status="failed", retcode=1200))
        expect_group(ctx, "【抓特务排行·总榜】", "1. 101 +2")
        ctx.receive_event(bot, gmsg(A, "/战绩"))
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 2})


async def test_picture_table_setting_and_end_summary(app: App, pictures) -> None:
    await REGISTRY.require_store().set_settings(str(GROUP), "手把一", {"picture_table": True})
    table, last = dealt_table("手把一", 4, 1)
    table.settings = GAMES["手把一"].schema.clean({"picture_table": True})
    await REGISTRY.save(table)
    seat = (table.engine.turn + 1) % 3  # not on turn: its 托管 acts only at its turn
    user = int(table.seats[seat].user_id)
    before = list(table.engine.hands[seat])
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, "/托管"))
        expect_group(ctx, "进入托管")
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 1})
    assert table.engine.hands[seat] == before and str(user) in table.auto
    user, command = last_play(table, last)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, command))
        expect_group(ctx, "本局结束", "本群第 1 局")
        ctx.should_call_api("send_private_msg", {"user_id": user, "message": Has("出完")},
                            {"message_id": 3})
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 2})
