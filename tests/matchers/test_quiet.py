"""The quiet table: one group post per human decision. Automatic moves (computer
players, 托管, 要不起自动过, timeouts) between two decisions of people go out together,
every move in order, ending with the prompt that @-mentions only the person to act;
nobody in 托管 or passed for is @-mentioned; each move is still saved."""

from __future__ import annotations

import re
from datetime import timedelta

from chat_support import GROUP, A, B, C, gmsg, pmsg, recording_bot, seat_table
from nonebot.adapters.onebot.v11 import Message
from nonebug import App
from support import cards

from nonebot_plugin_paizhuo import accounts
from nonebot_plugin_paizhuo.actions import commit, deadlines
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.messaging import Outgoing, plain
from nonebot_plugin_paizhuo.tables import FINISHED, PLAYING, REGISTRY, Table, now_utc
from paizhuo_engine.zhuatewu.game import ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

MOVE_LINE = re.compile(r"^(\S+) (出 |过)", re.M)


def group_posts(sent) -> list[Message]:
    """Every group message the bot sent (a forward message as its nodes' text)."""
    posts = []
    for api, data in sent.calls:
        if api == "send_group_msg":
            posts.append(Message(data["message"]))
        elif api == "send_group_forward_msg":
            posts.append(Message("\n".join(Message(n.data["content"]).extract_plain_text()
                                           for n in data["messages"])))
    return posts


def ats(message: Message) -> list[int]:
    return [int(seg.data["qq"]) for seg in message if seg.type == "at"]


async def quiet_bot(monkeypatch):
    """A recording bot (``chat_support.recording_bot``) that the tables' timers speak
    through too."""
    bot, sent = await recording_bot(monkeypatch)
    monkeypatch.setattr(accounts, "bot_for", lambda table: bot)
    return bot, sent


async def run_timers(table: Table) -> None:
    """Let every automatic move's pause run out (computer players, 托管), as the timer
    would, until a person must decide or the game is over."""
    for _ in range(500):
        if REGISTRY.get(table.group_id) is not table or not table.playing:
            return
        seat = table.adapter.acting_seat(table.engine)
        user = table.seats[seat].user_id if seat is not None else None
        if table.computer_at is not None:
            table.computer_at = now_utc() - timedelta(seconds=1)
        elif user is not None and user in table.auto and table.deadline is not None:
            table.deadline = now_utc() - timedelta(seconds=1)
        else:
            return
        deadlines.schedule(table)
        await table.timer
    raise AssertionError("the automatic moves never stopped")


def computer_table(hands: list[list[int]], leader: int) -> Table:
    seats = [SeatView(str(A), "玩家101")] + [SeatView(f"ai:{i}", f"电脑{i}") for i in range(1, len(hands))]
    table = Table(group_id=str(GROUP), game="抓特务", size=len(hands), opener=str(A), seats=seats,
                  settings={}, created_at=now_utc(), started_at=now_utc(), uid="quiet-test",
                  engine=ZGame.from_hands(hands, rules=ZRules(), leader=leader), status=PLAYING,
                  account="10001")
    REGISTRY.add(table)
    return table


async def test_three_computers_answer_a_human_move_in_one_post(app: App, monkeypatch) -> None:
    """One person and three computer players: the person's play, the three computer moves
    and the prompt back to the person are one group post (today: four), and the person's
    private hand update is one message; every move was saved before the post."""
    hands = [cards("3 3 9 K"), cards("4 4 5 6"), cards("7 8 10 J"), cards("5 6 Q A")]
    table = computer_table(hands, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 9"))
    assert group_posts(sent) == []  # the computers' pause first: the post waits for them
    saved = await REGISTRY.store.load_live()
    assert saved[str(GROUP)][1]["pending"]  # the announcement is saved with the move
    await run_timers(table)
    posts = group_posts(sent)
    assert len(posts) == 1
    text = posts[0].extract_plain_text()
    moves = MOVE_LINE.findall(text)
    assert [name for name, _ in moves] == ["玩家101", "电脑1", "电脑2", "电脑3"]
    assert text.splitlines()[-1].startswith("轮到 ") and ats(posts[0]) == [A]
    assert text.count("轮到") == 1
    assert len([c for c in sent.calls if c[0] == "send_private_msg"]) == 1  # A's hand
    saved = await REGISTRY.store.load_live()
    state = saved[str(GROUP)][1]
    assert state["engine"]["log"] == table.engine.to_json()["log"] and not state["pending"]
    assert len(table.engine.log) == 4 and table.engine.turn == 0


async def test_auto_play_and_auto_pass_are_named_without_at(app: App, monkeypatch) -> None:
    """B in 托管 and C who cannot beat (要不起自动过): after A's play, one post names
    them without @; only A, who leads again, is @-mentioned."""
    table = await seat_table([cards("2 3 4"), cards("5 6 7"), cards("8 9 10")], leader=0)
    table.settings = {"auto_pass": True}
    table.auto = [str(B)]
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 2"))
    assert group_posts(sent) == []  # B's 托管 move comes after its pause
    await run_timers(table)
    posts = group_posts(sent)
    assert len(posts) == 1
    text = posts[0].extract_plain_text()
    assert "玩家102 过［托管］" in text and "玩家103 过［要不起，自动过］" in text
    assert ats(posts[0]) == [A] and text.count("轮到") == 1 and "首出" in text.splitlines()[-1]


async def test_auto_pass_between_people_is_not_at_mentioned(app: App, monkeypatch) -> None:
    """All people, 要不起自动过 on: B cannot beat A's K and is passed for in A's post,
    which @-mentions only C."""
    table = await seat_table([cards("K 3 4"), cards("5 6 7"), cards("8 9 A")], leader=0)
    table.settings = {"auto_pass": True}
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 K"))
    posts = group_posts(sent)
    assert len(posts) == 1
    assert "玩家102 过［要不起，自动过］" in posts[0].extract_plain_text()
    assert ats(posts[0]) == [C]


async def test_a_whole_game_with_three_computers_posts_once_per_decision(app: App, monkeypatch) -> None:
    """A dealt 4-seat 抓特务 game, one person and three computer players, played to the
    end: one group post per decision of the person (the end message in the last one),
    every move of the game in the group text in order, only the person @-mentioned."""
    table = computer_table([[], [], [], []], leader=0)
    table.engine = ZGame.deal(4, ZRules(), seed=11)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    decisions = 0
    per_decision = []
    await run_timers(table)
    while table.status == PLAYING:
        before, logged_before = len(group_posts(sent)), len(table.engine.log)
        engine = table.engine
        if engine.phase == "declare":
            await bot.handle_event(pmsg(A, "暗"))
        else:
            assert engine.turn == 0
            lines = table.adapter.hints(engine, 0)
            await bot.handle_event(gmsg(A, lines[0] if lines else "过"))
        decisions += 1
        await run_timers(table)
        per_decision.append(len(group_posts(sent)) - before)
        assert decisions < 200
    assert table.status == FINISHED
    posts = group_posts(sent)
    assert all(n == 1 for n in per_decision[:-1]), per_decision
    # The last decision's run: one post per RUN_LIMIT + 1 automatic moves when the person
    # went out early, the last with the end message (no details card after it).
    automatic = len(table.engine.log) - logged_before - 1
    assert per_decision[-1] == -(-automatic // (commit.RUN_LIMIT + 1)) if automatic else 1
    assert "本局结束" in posts[-1].extract_plain_text()
    assert posts[-1].extract_plain_text().endswith("每人发到的牌和每一手：/对局 1")
    shown = [(name, kind.strip()) for post in posts
             for name, kind in MOVE_LINE.findall(post.extract_plain_text())]
    names = [s.name for s in table.seats]
    logged = [(names[seat], "出" if played else "过") for seat, played in table.engine.log]
    assert shown == logged
    assert all(set(ats(p)) <= {A} for p in posts)


async def test_held_moves_survive_a_restart(app: App, monkeypatch) -> None:
    """The person's move waits for the computers' pause with the table; after a restart
    the computers move and the one post still starts with it."""
    hands = [cards("3 3 9 K"), cards("4 4 5 6"), cards("7 8 10 J"), cards("5 6 Q A")]
    table = computer_table(hands, leader=0)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 9"))
    assert group_posts(sent) == []
    deadlines.cancel_timers()
    REGISTRY.reset()
    (restored,) = await REGISTRY.restore("10001")
    assert restored.pending and restored.computer_at is not None
    await run_timers(restored)
    posts = group_posts(sent)
    assert len(posts) == 1
    text = posts[0].extract_plain_text()
    assert [n for n, _ in MOVE_LINE.findall(text)] == ["玩家101", "电脑1", "电脑2", "电脑3"]
    assert ats(posts[0]) == [A]


async def test_one_table_picture_per_post(app: App, monkeypatch) -> None:
    """图片桌面 on: the run of three computer moves brings one table picture, of the table
    the person now sees (today: one per computer move)."""
    drawn: list[str] = []

    class Drawn:  # a table picture, counted instead of drawn
        def __init__(self, group_id: str, text: str) -> None:
            self.group_id, self.text = group_id, text

        async def outgoing(self) -> Outgoing:
            return Outgoing("group", self.group_id, plain(self.text), image=b"png")

    def table_picture(adapter, game, seats, group_id: str) -> Drawn:
        drawn.append(adapter.table(game, seats).extract_plain_text())
        return Drawn(group_id, drawn[-1])

    monkeypatch.setattr(commit, "pictures_on", lambda: True)
    monkeypatch.setattr(commit, "table_picture", table_picture)
    hands = [cards("3 3 9 K"), cards("4 4 5 6"), cards("7 8 10 J"), cards("5 6 Q A")]
    table = computer_table(hands, leader=0)
    table.settings = {"picture_table": True}
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 9"))
    await run_timers(table)
    images = [p for p in group_posts(sent) if any(seg.type == "image" for seg in p)]
    assert len(images) == 1 and len(drawn) == 1
    assert len(group_posts(sent)) == 2  # the moves' text and the picture
    assert "要大过 电脑3 的" in drawn[0]  # the table after the last computer move


async def test_cancelling_auto_play_during_its_pause_posts_the_prompt(app: App, monkeypatch) -> None:
    """B in 托管 is next after A's play (the post waits for B's pause); B sends /托管 to
    take over: the post comes now, with A's play, the cancel and the prompt @-mentioning B."""
    table = await seat_table([cards("3 4 5"), cards("6 7 8"), cards("9 10 J")], leader=0)
    table.auto = [str(B)]
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "出 3"))
    assert group_posts(sent) == []
    await bot.handle_event(gmsg(B, "/托管"))
    posts = group_posts(sent)
    assert len(posts) == 1
    text = posts[0].extract_plain_text()
    assert "玩家101 出 ♠3" in text and "玩家102 取消托管" in text
    assert text.splitlines()[-1].startswith("轮到 ") and ats(posts[0]) == [B]
    assert table.auto == [] and table.deadline is not None


async def test_table_view_names_a_player_in_auto_play_without_at(app: App, monkeypatch) -> None:
    """/牌桌 while B (in 托管) is to play: B is named, not @-mentioned."""
    table = await seat_table([cards("3 4 5"), cards("6 7 8"), cards("9 10 J")], leader=1)
    table.auto = [str(B)]
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(C, "/牌桌"))
    (post,) = group_posts(sent)
    assert "轮到 玩家102" in post.extract_plain_text() and ats(post) == []


async def test_no_stale_prompt_when_the_bidding_ends_in_a_run(app: App, monkeypatch) -> None:
    """挖坑, one person and two computer players: the person bids first, both computers
    pass, the person digs: the post ends with the wait for the private bury, not with an
    old 叫分 prompt."""
    from nonebot_plugin_paizhuo.games import wakeng
    from paizhuo_engine.wakeng.game import WGame
    from paizhuo_engine.wakeng.rules import WRules

    monkeypatch.setattr(wakeng, "choose_bid", lambda hand, options, shaanxi: 0)
    seats = [SeatView(str(A), "玩家101"), SeatView("ai:1", "电脑1"), SeatView("ai:2", "电脑2")]
    table = Table(group_id=str(GROUP), game="挖坑", size=3, opener=str(A), seats=seats, settings={},
                  created_at=now_utc(), started_at=now_utc(), uid="quiet-wk",
                  engine=WGame.deal(WRules(), 5, first=0), status=PLAYING, account="10001")
    REGISTRY.add(table)
    table.rearm()
    await REGISTRY.save(table)
    bot, sent = await quiet_bot(monkeypatch)
    await bot.handle_event(gmsg(A, "叫 1"))
    await run_timers(table)
    (post,) = group_posts(sent)
    text = post.extract_plain_text()
    assert table.engine.phase == "bury" and table.engine.digger == 0
    assert "玩家101 叫 1 分\n电脑1 不叫\n电脑2 不叫" in text and "轮到" not in text
    assert ats(post) == []
