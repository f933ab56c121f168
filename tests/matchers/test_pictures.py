"""Pictures (Pillow): each kind renders, decodes and shows what it must — the names, the
right cards (counted from what the drawer placed and checked in the pixels), card counts
only where the rules show them — with the font installed with the bot; drawing runs in
the drawing thread; the matchers send them when pictures are on and the text when the
picture fails."""

from __future__ import annotations

import base64
import contextlib
import io
import random
import re
import threading

import nonebot
import pytest
from chat_support import GROUP, A, B, C, D, Has, expect_group, expect_private, gmsg, make_bot, pmsg
from history_support import dealt_table, finish, last_play, play_out
from nonebot.adapters.onebot.v11 import ActionFailed, Message
from nonebug import App
from PIL import Image

from nonebot_plugin_paizhuo import render
from nonebot_plugin_paizhuo.config import reset_plugin_config
from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.history_texts import dealt_hands
from nonebot_plugin_paizhuo.pictures import (
    DRAWING_THREAD,
    details_text,
    details_view,
    table_view,
    trick_moves,
)
from nonebot_plugin_paizhuo.replay import capture
from nonebot_plugin_paizhuo.tables import REGISTRY
from paizhuo_engine.errors import MoveError

SEATS = [SeatView(str(100 + i), f"玩家{i}") for i in range(6)]
NAMED = [SeatView("101", "老王"), SeatView("102", "小李飞刀"), SeatView("103", "阿强🍀"),
         SeatView("104", "一个名字特别特别长的玩家"), SeatView("ai:1", "电脑1"), SeatView("106", "Tom")]
SHOWN = ["老王", "小李飞刀", "阿强", "一个名字特别特别长的玩家", "电脑1", "Tom"]
"""The names as drawn: the emoji the font has no glyph for is left out."""


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.verify()  # a complete, uncorrupted PNG
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "P"  # palette: small files
    return image


def advance(adapter, game, seats, moves: int) -> None:
    """``moves`` plays and passes by the computer strategy, every private answer and bid
    given (明 where a spy may, the highest bid)."""
    while not adapter.is_over(game) and moves > 0:
        if adapter.prompt_seconds(game):
            if getattr(game, "phase", "") == "declare":
                for seat in range(game.players):
                    with contextlib.suppress(MoveError):
                        adapter.answer(game, seats, seat, "明牌")
            if adapter.prompt_seconds(game):
                adapter.timeout(game, seats)
            continue
        seat = adapter.acting_seat(game)
        if adapter.name == "挖坑" and game.phase == "bid":
            adapter.act(game, seats, seat, "bid", str(max(game.bid_options(seat))))
            continue
        adapter.auto_move(game, seats, seat, "托管")
        moves -= 1


def check_cards_drawn(picture: render.Picture, skip_faded: bool = True) -> None:
    """Every card placed shows its white face at its left edge (the part a fan leaves
    visible), inside the picture."""
    image = decode(picture.data).convert("RGB")
    for item in picture.items:
        if item.kind != "card":
            continue
        left, top, right, bottom = item.box
        assert 0 <= left < right <= image.width and 0 <= top < bottom <= image.height
        pixel = image.getpixel((left + 4, bottom - 8))
        assert pixel == render.WHITE or (skip_faded and min(pixel) > 200), (item, pixel)


# ---- the table (图片桌面) ---------------------------------------------------------------
@pytest.mark.parametrize("name,size,seed,moves", [("抓特务", 4, 5, 9), ("挖坑", 3, 4, 7),
                                                  ("手把一", 6, 2, 8)])
def test_table_picture_shows_seats_moves_and_who_acts(name: str, size: int, seed: int,
                                                      moves: int) -> None:
    adapter = GAMES[name]
    settings = adapter.schema.clean({"show_counts": True} if name == "抓特务" else {})
    game = adapter.new_game(size, settings, seed, None)
    seats = NAMED[:size]
    advance(adapter, game, seats, moves)
    view = table_view(adapter, game, seats)
    picture = render.draw_table(view)
    image = decode(picture.data)
    assert image.width <= 1000 and len(picture.data) < 60_000
    names = picture.values("name")
    assert len(names) == size
    for drawn, full in zip(names, SHOWN[:size], strict=True):
        assert str(drawn).rstrip("…") and full.startswith(str(drawn).rstrip("…"))
    assert "阿强" in names or size < 3
    # the cards drawn are exactly each seat's move in the trick (and a 明牌 hand), seat by seat
    expected = [c for seat in view.seats
                for c in (seat.move.cards if seat.move else []) + seat.open_hand]
    assert picture.values("card") == expected and expected
    check_cards_drawn(picture)
    # the plays are the game's public log: the last play on the table is the one to beat
    if game.lead is not None:
        owner, cards, _ = game.lead
        beat = view.seats[owner].move
        assert beat is not None and beat.beat and sorted(beat.cards) == sorted(cards)
    # who acts, by name (no @ placeholder, no QQ number)
    acting = adapter.acting_seat(game)
    footer = "\n".join(map(str, picture.values("footer")))
    assert footer.startswith(f"轮到 {SHOWN[acting]}") and "  " not in footer
    assert view.seats[acting].acting and "轮到" in picture.values("badge")
    # the counts shown are those /牌桌 shows
    text = adapter.table(game, seats).extract_plain_text()
    assert picture.values("count") == re.findall(r"(\d+) 张", text)


def test_table_picture_hides_counts_unless_the_rules_show_them() -> None:
    """抓特务 without 显示张数 (Z-6): a count only at 报牌 (1 card), like /牌桌."""
    adapter = GAMES["抓特务"]
    game = adapter.new_game(3, adapter.schema.clean({}), 11, None)
    advance(adapter, game, SEATS[:3], 12)
    picture = render.draw_table(table_view(adapter, game, SEATS[:3]))
    assert picture.values("count") == []
    game.hands[1] = game.hands[1][:1]  # down to one card: 报牌
    view = table_view(adapter, game, SEATS[:3])
    assert [s.count for s in view.seats] == [None, 1, None]
    assert render.draw_table(view).values("count") == ["1"]


def test_a_won_trick_is_shown_faded_and_nobody_beats_it() -> None:
    adapter = GAMES["挖坑"]
    game = adapter.new_game(3, adapter.schema.clean({}), 4, None)
    seats = SEATS[:3]
    advance(adapter, game, seats, 1)
    while game.lead is not None:  # pass round until the trick is won
        adapter.act(game, seats, game.turn, "pass", None)
    view = table_view(adapter, game, seats)
    moves = [s.move for s in view.seats if s.move]
    assert moves and all(m.done and not m.beat for m in moves)
    assert view.footer[0].startswith("轮到 ") and "首出" in view.footer[0]
    check_cards_drawn(render.draw_table(view))


def test_trick_moves_replays_the_tricks_of_the_log() -> None:
    """Move by move: a play or pass within a trick adds to it; the pass that wins it
    closes it (shown as the trick just won); the next play starts a new one."""
    adapter = GAMES["手把一"]
    game = adapter.new_game(4, adapter.schema.clean({}), 7, None)
    seats = SEATS[:4]
    previous = trick_moves(game)
    assert previous == ([], True)
    tricks = 0
    while not adapter.is_over(game):
        adapter.auto_move(game, seats, game.turn, "托管")
        indices, done = trick_moves(game)
        last = len(game.log) - 1
        if game.over:
            break
        if done:  # the pass that won the trick
            tricks += 1
            assert game.lead is None and game.log[last][1] == [] and indices[-1] == last
        elif previous[1]:  # a new trick: its lead
            assert indices == [last] and game.log[last][1] == sorted(game.lead[1])
        else:
            assert indices == previous[0] + [last] and game.lead is not None
        previous = (indices, done)
    assert tricks >= 3


# ---- the end-of-game details --------------------------------------------------------------
@pytest.mark.parametrize("name,size", [("抓特务", 4), ("挖坑", 3), ("手把一", 6)])
def test_end_details_picture_draws_every_hand_as_dealt(name: str, size: int) -> None:
    adapter = GAMES[name]
    game = adapter.new_game(size, adapter.schema.clean({}), 3, None)
    seats = NAMED[:size]
    play_out(adapter, game, seats, random.Random(3))
    end_text = adapter.end(game, seats).extract_plain_text()
    replay = capture(game)
    text = details_text(adapter, game, seats, 7, end_text, replay)
    assert text is not None and text.startswith(f"【{name}】第 7 局详情") and "发牌：" in text
    view = details_view(adapter, game, seats, 7, end_text, replay)
    picture = render.draw_details(view)
    decode(picture.data)
    assert picture.values("title") == [f"【{name}】第 7 局详情"]
    outcome = end_text.splitlines()[0].split("本局结束：")[1]
    assert picture.values("text")[0] == f"结果：{outcome}"
    assert [str(n) for n in picture.values("name")] == [f"{s + 1}. {SHOWN[s]}" for s in range(size)]
    dealt = dealt_hands(type(game).from_json(replay["deal"]))
    assert sorted(picture.values("card")) == sorted(c for hand in dealt for c in hand)
    assert picture.values("count") == [f"{len(hand)} 张" for hand in dealt]
    check_cards_drawn(picture)
    assert "每一手：/对局 7" in picture.values("footer")


# ---- /排行 and /战绩 ---------------------------------------------------------------------
def test_board_card_renders() -> None:
    lines = [f"{i}. 玩家{i} +{30 - i}（{i + 3} 局，胜率 50%）" for i in range(1, 11)]
    picture = render.card("【抓特务排行·总榜】（至少 3 局上榜）", lines + ["你：12. 我 +1"])
    image = decode(picture.data)
    assert 420 <= image.width <= render.WIDTH and 64 + 36 * 11 <= image.height <= 900
    assert picture.values("text") == [*lines, "你：12. 我 +1"]


def test_stats_card_with_a_points_chart_is_taller() -> None:
    text = "我 的战绩（本群）：\n抓特务：9 局，胜 5 平 1 负 3\n当前：2 连胜"
    plain = decode(render.text_card(text).data)
    charted = decode(render.text_card(text, [0, 2, -1, 3, 7, 4]).data)
    assert charted.height >= plain.height + 150 and charted.width == plain.width


def test_too_long_a_text_stays_text() -> None:
    with pytest.raises(ValueError):
        render.card("t", ["x"] * (render.MAX_LINES + 1))


# ---- the font ----------------------------------------------------------------------------
def test_the_packaged_font_is_found_without_paizhuo_font() -> None:
    assert nonebot.get_driver().config.paizhuo_font == ""
    packaged = render.packaged_font()
    assert packaged is not None and "noto_cjk_sans_otc" in packaged
    assert render.find_font("") == packaged
    assert render.font_path() == packaged and render.usable()


def test_every_character_the_bot_draws_has_a_glyph() -> None:
    """The suits, jokers, star and every character of the pictures' fixed texts and of
    real game texts render with the packaged font; an emoji does not (and is left out)."""
    samples = ["♠♥♣♦大王小王★…", "轮到 出牌：要大过 的（单张），或 过 首出 跟牌或过 等待还贡。等待特务选择明/暗。",
               "明特务 明牌特务 挖坑者 3 分 叫 2 不叫 第 1 名 过 发牌 张 每一手：/对局 号位 积分走势 +-0123456789"]
    for name, size in (("抓特务", 4), ("挖坑", 3), ("手把一", 6)):
        adapter = GAMES[name]
        game = adapter.new_game(size, adapter.schema.clean({}), 3, None)
        samples.append(adapter.table(game, SEATS[:size]).extract_plain_text())
        samples.append(adapter.help())
        play_out(adapter, game, SEATS[:size], random.Random(3))
        samples.append(details_text(adapter, game, SEATS[:size], 7,
                                    adapter.end(game, SEATS[:size]).extract_plain_text(),
                                    capture(game)) or "")
    for vocabulary_text in samples:
        missing = {ch for ch in vocabulary_text if not render.has_glyph(ch)}
        assert not missing, missing
    assert not render.has_glyph("🍀") and render.drawable("阿强🍀") == "阿强"


def test_missing_font_is_logged_and_pictures_are_off(monkeypatch) -> None:
    monkeypatch.setattr(nonebot.get_driver().config, "paizhuo_font", "/nonexistent/font.ttc",
                        raising=False)
    reset_plugin_config()
    monkeypatch.setattr(render, "FONT_CANDIDATES", ())
    monkeypatch.setattr(render, "packaged_font", lambda: None)
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


class ForwardWithPicture:
    """Equals merged-forward nodes whose first node is one PNG picture (:class:`IsPicture`)
    and whose other nodes' text contains every part."""

    def __init__(self, *parts: str) -> None:
        self.has = Has(*parts)

    def __eq__(self, other: object) -> bool:
        nodes = list(other if isinstance(other, Message) else Message(other))  # type: ignore[arg-type]
        if not nodes or any(n.type != "node" for n in nodes):
            return False
        contents = [Message(n.data["content"]) for n in nodes]
        text = "\n".join(c.extract_plain_text() for c in contents[1:])
        return IsPicture() == contents[0] and self.has == Message(text)


@pytest.fixture
def pictures(monkeypatch):
    config = nonebot.get_driver().config
    config.paizhuo_images = True
    reset_plugin_config()
    monkeypatch.setattr(render, "usable", lambda: True)
    yield
    config.paizhuo_images = False
    reset_plugin_config()


@pytest.fixture
def drawn_in(monkeypatch) -> dict[str, set[threading.Thread]]:
    """Which threads each drawer ran in (``draw_table``, ``draw_details``, ``text_card``)."""
    threads: dict[str, set[threading.Thread]] = {}

    def spy(name: str):
        real = getattr(render, name)

        def drawer(*args):
            threads.setdefault(name, set()).add(threading.current_thread())
            return real(*args)
        return drawer

    for name in ("draw_table", "draw_details", "draw_settlement", "text_card"):
        monkeypatch.setattr(render, name, spy(name))
    return threads


def off_the_loop(threads: set[threading.Thread]) -> bool:
    """Every thread is the drawing thread, not this one (the event loop's)."""
    return bool(threads) and all(
        t is not threading.current_thread() and t.name.startswith(DRAWING_THREAD) for t in threads)


async def test_board_and_stats_as_pictures_with_text_fallback(app: App, pictures,
                                                              drawn_in) -> None:
    await finish([(A, "win", 2), (102, "loss", -2)])
    await finish([(103, "win", 1), (104, "loss", -1), (105, "loss", 0)])  # a board of 5 rows
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
        # The group's pictures failed a moment ago: its next one goes as text at once.
        ctx.receive_event(bot, gmsg(A, "/战绩"))
        expect_group(ctx, "的战绩（本群）", "抓特务：1 局")
    assert off_the_loop(drawn_in["text_card"])


async def test_picture_table_setting_and_end_summary(app: App, pictures, drawn_in) -> None:
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
        # The end rides in the last move's post, then the settlement picture (结算); the
        # details are where its last line points, /对局 1, the deal drawn on top of the replay.
        expect_group(ctx, "本局结束", "本群第 1 局", "/对局 1")
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 3})
        ctx.receive_event(bot, gmsg(A, "/对局 1"))
        ctx.should_call_api("get_group_member_list", {"group_id": GROUP}, [])
        ctx.should_call_api("send_group_forward_msg", {
            "group_id": GROUP, "messages": ForwardWithPicture("【第 1 局】手把一", "发牌：", "过程：")},
            {"message_id": 4})
    assert off_the_loop(drawn_in["draw_table"]) and off_the_loop(drawn_in["draw_details"])
    assert off_the_loop(drawn_in["draw_settlement"])


async def test_g4_a_private_answer_posts_no_table_picture(app: App, pictures,
                                                          unexpected_calls_fail) -> None:
    """With 图片桌面 on, a spy's private 明/暗 answer (Z-9) sends the group nothing — no
    table picture either, whose timing would tell that a spy answered; the picture
    follows the reveal, which the group is told."""
    from nonebot_plugin_paizhuo.tables import PLAYING, Table, now_utc
    from paizhuo_engine.zhuatewu.game import ZGame
    from paizhuo_engine.zhuatewu.rules import ZRules

    game = next(g for g in (ZGame.deal(4, ZRules(), seed) for seed in range(500))
                if g.phase == "declare" and len(g.spies()) == 2)
    users = (A, B, C, D)
    table = Table(group_id=str(GROUP), game="抓特务", size=4, opener=str(A),
                  seats=[SeatView(str(u), f"玩家{u}") for u in users],
                  settings=GAMES["抓特务"].schema.clean({"picture_table": True}),
                  created_at=now_utc(), started_at=now_utc(), uid="picture-secret", engine=game,
                  status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    first, second = game.spies()
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, pmsg(users[first], "明"))
        expect_private(ctx, users[first], "你选择了：明特务")
        ctx.receive_event(bot, pmsg(users[second], "暗"))
        expect_private(ctx, users[second], "你选择了：暗特务")
        expect_group(ctx, f"玩家{users[first]} 亮明：我是特务", "轮到")
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 1})
    assert game.phase == "play"


async def test_texts_are_queued_before_their_picture_is_drawn(app: App, pictures,
                                                              monkeypatch) -> None:
    """The announcement does not wait for the table picture: the change's texts are
    queued, then the picture is drawn and queued after them (under the table's lock)."""
    from nonebot_plugin_paizhuo.actions import commit

    events: list[tuple] = []
    real_submit, real_draw = commit.submit, render.draw_table

    def submit(bot, outs):
        events.append(("queued", [out.image is not None for out in outs]))
        return real_submit(bot, outs)

    def draw_table(view):
        events.append(("drawn",))
        return real_draw(view)

    monkeypatch.setattr(commit, "submit", submit)
    monkeypatch.setattr(render, "draw_table", draw_table)
    table, _ = dealt_table("手把一", 4, 1)
    table.settings = GAMES["手把一"].schema.clean({"picture_table": True})
    await REGISTRY.save(table)
    user = int(table.seats[(table.engine.turn + 1) % 3].user_id)
    async with app.test_matcher() as ctx:
        bot = make_bot(ctx)
        ctx.receive_event(bot, gmsg(user, "/托管"))
        expect_group(ctx, "进入托管")
        ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": IsPicture()},
                            {"message_id": 1})
    assert events == [("queued", [False]), ("drawn",), ("queued", [True])]


# ---- the settlement (结算) -------------------------------------------------------------------
@pytest.mark.parametrize("name,size,seed", [("抓特务", 4, 5), ("抓特务", 3, 11), ("挖坑", 3, 4),
                                            ("手把一", 5, 2)])
def test_settlement_picture_shows_result_cards_left_and_points(name: str, size: int,
                                                               seed: int) -> None:
    from nonebot_plugin_paizhuo.pictures import settlement_text, settlement_view

    adapter = GAMES[name]
    game = adapter.new_game(size, adapter.schema.clean({}), seed, None)
    seats = NAMED[:size]
    advance(adapter, game, seats, 10_000)
    assert adapter.is_over(game)
    view = settlement_view(adapter, game, seats, 7)
    picture = render.draw_settlement(view)
    image = decode(picture.data)
    assert image.width == render.WIDTH and len(picture.data) < 80_000
    assert picture.values("title") == [f"【{name}】第 7 局 结算"]
    names = [str(n).split(". ", 1)[1].rstrip("…") for n in picture.values("name")]
    assert len(names) == size and all(full.startswith(n) for n, full in zip(names, SHOWN, strict=False))
    points = game.result["points"]
    assert picture.values("points") == [f"{p:+d}" if p else "0" for p in points]
    assert sum(points) == 0
    # every seat's cards left, drawn in seat order, in the game's rank order
    weight = game.rules.rank_order()
    expected = [c for hand in game.hands for c in sorted(hand, key=lambda c: (weight[c // 4], c))]
    assert sorted(picture.values("card")) == sorted(expected) and picture.values("card")
    check_cards_drawn(picture, skip_faded=False)
    assert picture.values("footer") == ["每人发到的牌和每一手：/对局 7"]
    text = settlement_text(view)  # the fallback says the same
    assert all(f"{p:+d}" in text for p in points if p)
