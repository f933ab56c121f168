"""The official QQ bot end to end: the real ``bot.py`` with the real nonebot-adapter-qq
against the fake open platform (``tools/qq_open_sim.py``), people playing as they would
there (``tests/qq_support.py``): each links their seat to their private chat once, gets
their hand and their turn with buttons privately and taps them, and the table goes to the
group within its reply windows (docs/platforms.md「官方 QQ 机器人」)."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from pathlib import Path

import pytest

pytest.importorskip("nonebot.adapters.qq", reason="nonebot-adapter-qq is not installed")
pytest.importorskip("httpx", reason="the QQ adapter's HTTP client driver needs httpx")

from qq_support import GROUP, Person, bot_for, group_posts, running, wait_end  # noqa: E402

from tools.players import RANKS, ranks_of  # noqa: E402
from tools.qq_open_sim import QQOpenSim, Sent  # noqa: E402

NAMES = ["甲", "乙", "丙", "丁"]
DECK = {**{r: 4 for r in range(13)}, 13: 1, 14: 1}


def world(sim: QQOpenSim, people: int, *, proactive: bool) -> list[Person]:
    sim.add_group(GROUP, allow_proactive=proactive)
    for i, name in enumerate(NAMES[:people]):
        sim.join(GROUP, name, "owner" if i == 0 else "member")
    return [Person(name, sim) for name in NAMES[:people]]


async def open_table(sim: QQOpenSim, people: list[Person], game: str, computers: int,
                     turn_seconds: int | None = None) -> int:
    """Link everyone, open ``game`` (its turn time set first, when given) and seat everyone
    (and ``computers``); the send index before the opening."""
    for p in people:
        await p.link()
    if turn_seconds is not None:
        since = sim.mark()
        await sim.group_message(GROUP, people[0].key,
                                f"/设置 {game.split()[0]} 出牌限时 {turn_seconds}")
        await sim.wait_for(lambda s: s.kind == "group" and s.ok, since=since, timeout=20)
    mark = sim.mark()
    await sim.group_message(GROUP, people[0].key, f"/开局 {game}")
    await sim.wait_for_text("开了一桌", group=GROUP, since=mark, timeout=20)
    for p in people[1:]:
        since = sim.mark()
        await sim.group_message(GROUP, p.key, "/加入")
        await sim.wait_for_text("入座", group=GROUP, since=since, timeout=20)
    if computers:
        await sim.group_message(GROUP, people[0].key, f"/加机器人 {computers}")
    return mark


def hand_lines(sim: QQOpenSim) -> dict[str, list[str]]:
    """Each person's hand lines as first dealt (the lines of six or more cards)."""
    dealt: dict[str, list[str]] = {}
    for s in sim.sent:
        if s.kind == "c2c" and s.ok and s.target not in dealt and "你的手牌" in s.text:
            # the hand says how this side plays: buttons in private, not "in the group"
            assert "出牌请在群里发" not in s.text and "按钮" in s.text, s.text
            dealt[s.target] = [ln for ln in s.text.splitlines() if len(ranks_of(ln)) >= 6]
    return dealt


def check_hidden(sim: QQOpenSim, end: Sent) -> None:
    """G-4 on the official bot: before the end no group post names a role or shows a hand
    as dealt; every button is in a private chat and only its owner may press it."""
    before = sim.sent[:sim.sent.index(end)]
    dealt = hand_lines(sim)
    for s in before:
        if s.kind == "group":
            assert "特务：" not in s.text and "平民" not in s.text, s.text
            assert not any(line in s.text for lines in dealt.values() for line in lines), s.text
            assert not s.buttons(), s.text
    for s in sim.sent:
        for b in s.buttons():
            assert s.kind == "c2c" and b.permission == 0, s
            assert b.specify_user_ids == [sim.user_openid(s.target)], s


def cards_accounted(sim: QQOpenSim, end: Sent, since: int) -> dict[int, int]:
    """Each rank played in the group (from send ``since``) plus shown left at the end: one
    deck when no post was lost or doubled."""
    counts = {r: 0 for r in range(len(RANKS))}
    for s in group_posts(sim, since=since):
        for line in s.text.splitlines():
            m = re.match(r"^\S+ 出 (.+?)（[^）]+）(?:［.+］)?$", line)
            if m:
                for r in ranks_of(m.group(1)):
                    counts[r] += 1
    for line in end.text.splitlines():
        # 剩牌 (手把一: 剩 N 张：); 挖坑: the buried cards are never played
        m = re.search(r"(?: 剩牌| 剩 \d+ 张|扣的底)：(.*)$", line)
        if m:
            for r in ranks_of(m.group(1)):
                counts[r] += 1
    return counts


def no_loss(sim: QQOpenSim) -> None:
    """Every send the bot made was accepted: none was refused for a spent or lapsed window."""
    refused = [s for s in sim.sent if not s.ok]
    assert not refused, "\n".join(str(s) for s in refused)


def report(sim: QQOpenSim, people: list[Person], label: str, since: int = 0,
           end: Sent | None = None) -> None:
    """Print the posts of the game (from send ``since`` to ``end``) per human decision, in
    the group and in each private chat."""
    game = sim.sent[since:sim.sent.index(end) + 1 if end is not None else len(sim.sent)]
    decisions = sum(len(p.pressed) + len(p.typed) for p in people)
    group = [s for s in game if s.kind == "group" and s.ok]
    private = {p.key: sum(1 for s in game if s.kind == "c2c" and s.target == p.key and s.ok)
               for p in people}
    print(f"\n[{label}] human decisions {decisions} (taps {[len(p.pressed) for p in people]}): "
          f"group posts {len(group)} ({len(group) / max(1, decisions):.2f} per decision, "
          f"{sum(1 for s in group if s.proactive)} unprompted), private {private} "
          f"({sum(private.values()) / max(1, decisions):.2f} per decision), "
          f"refused {sum(1 for s in game if not s.ok)}")


@pytest.mark.parametrize(("game", "computers"), [("抓特务 四人", 3), ("挖坑", 2), ("手把一 4人", 3)],
                         ids=["zhuatewu", "wakeng", "shoubayi"])
async def test_one_person_and_computers_play_a_whole_game(tmp_path: Path, game: str,
                                                          computers: int) -> None:
    """1 person + computers, the group owner letting the bot post unprompted: the person
    links, plays the whole game by tapping the buttons of their private turn messages (the
    plays worth making and 过), answers the private questions by typing; the group sees
    every move (one deck accounted for), never a hand, a role or a button; every send went
    through; /战绩 on the official bot counts the game under its own scope."""
    async with QQOpenSim() as sim:
        people = world(sim, 1, proactive=True)
        async with running(sim, tmp_path):
            mark = await open_table(sim, people, game, computers)
            end = await wait_end(sim, since=mark)
            deck = {**DECK, 13: 0, 14: 0} if game == "挖坑" else DECK  # W-1: no jokers
            assert cards_accounted(sim, end, mark) == deck
            check_hidden(sim, end)
            assert people[0].pressed, "the person played by tapping"
            assert all(label == "过" or label.startswith(("出 ", "叫 ", "不叫"))
                       for label, _ in people[0].pressed)
            since = sim.mark()
            await sim.group_message(GROUP, "甲", "/战绩")
            stats = await sim.wait_for(lambda s: s.kind == "group" and s.ok and "局" in s.text,
                                       since=since, timeout=20)
            assert re.search(r"1\s*局", stats.text), stats.text
        no_loss(sim)
        report(sim, people, game, mark, end)
    with sqlite3.connect(tmp_path / "bot.db") as db:
        scopes = {row[0] for row in db.execute("SELECT scope FROM player_records")}
        users = {row[0] for row in db.execute("SELECT user_id FROM player_records")
                 if not row[0].startswith("ai:")}
    assert scopes == {f"QQBot:{sim.app.appid}"}
    assert users == {sim.member_openid(GROUP, "甲")}  # the seat's id, never a QQ number


async def test_four_people_without_proactive_posts(tmp_path: Path) -> None:
    """4 people, 抓特务 四人, the owner allowing no unprompted posts: everyone plays in
    private by tapping; the group's posts wait while nobody speaks there and go out, merged
    and in order, with the replies to the next group message — nothing is lost (one deck
    accounted for), no post was refused, none went unprompted."""
    async with QQOpenSim() as sim:
        people = world(sim, 4, proactive=False)
        async with running(sim, tmp_path):
            mark = await open_table(sim, people, "抓特务 四人", 0)
            end = None
            for _ in range(60):
                await sim.wait_idle(quiet=0.7, timeout=60)
                found = [s for s in group_posts(sim, since=mark) if "本局结束" in s.text]
                if found:
                    end = found[0]
                    break
                await sim.group_message(GROUP, "乙", "桌面呢？", at_bot=False)  # chat opens a window
            assert end is not None
            check_hidden(sim, end)
            assert cards_accounted(sim, end, mark) == DECK
            assert all(p.pressed for p in people)
        no_loss(sim)
        assert not any(s.proactive for s in sim.sent if s.kind == "group")
        report(sim, people, "抓特务 四人, no proactive posts", mark, end)


async def test_a_window_lapsing_and_the_gateway_dropping_mid_game(tmp_path: Path) -> None:
    """抓特务 四人, 1 person + 3 computers. Mid-game the gateway drops (the adapter resumes)
    and the table goes on; then the person stops reading and their private window lapses
    (the platform's clock moves 61 minutes): the bot's next private message is refused, the
    group is told once — naming the person, saying nothing of what was to be sent — and
    the turns the bot plays for them meanwhile do not put them in 托管; they message the
    bot, get their hand and turn back and finish the game."""
    async with QQOpenSim() as sim:
        people = world(sim, 1, proactive=True)
        jia = people[0]
        async with running(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": "3"}):
            mark = await open_table(sim, people, "抓特务 四人", 3, turn_seconds=3)
            await sim.wait_until(lambda: len(jia.pressed) >= 2, 60, "two taps")
            resumes = sim.gateway_count("resume")
            await sim.drop_connection()
            await sim.wait_until(lambda: sim.gateway_count("resume") > resumes, 30, "resume")
            await sim.wait_until(lambda: len(jia.pressed) >= 3, 60, "a tap after the resume")
            jia.active = False
            await sim.wait_idle(quiet=0.5, timeout=30)
            sim.clock.advance(61 * 60)
            since = sim.mark()
            await sim.group_message(GROUP, "甲", "/牌桌")  # a group window, as people chat
            told = await sim.wait_for(lambda s: s.kind == "group" and s.ok and "私聊发不出去" in s.text,
                                      since=since, timeout=60)
            assert told.at == ["甲"] and "手牌" in told.text
            assert not any(line in told.text for line in hand_lines(sim)["甲"])
            def timed_out() -> int:  # plays made for 甲: turns that count as timeouts (G-3)
                return sum(len(re.findall(r"^甲 出 .+［超时］", s.text, re.M))
                           for s in group_posts(sim, since=since))
            def tuoguan_started() -> bool:
                return any("进入托管" in s.text for s in group_posts(sim, since=since))
            await sim.wait_until(lambda: timed_out() >= 2 or tuoguan_started(), 90,
                                 "two of 甲's plays timed out")
            tuoguan = [s for s in group_posts(sim, since=since) if "进入托管" in s.text]
            assert not tuoguan, tuoguan[0].text
            notices = [s for s in sim.sent[since:] if s.kind == "group" and "私聊发不出去" in s.text]
            assert len(notices) == 1
            jia.active = True
            await sim.c2c_message("甲", "/手牌")
            end = await wait_end(sim, since=mark)
            assert cards_accounted(sim, end, mark) == DECK
            check_hidden(sim, end)
        # The bot learns that a window lapsed from the platform's refusal (its own clock
        # did not move): one refused send per chat, then the post goes another way — a
        # private message is told in the group, a group post goes out unprompted.
        refused = [s for s in sim.sent if not s.ok]
        assert refused and all(s.refusal.code == 304027 for s in refused)
        assert len([s for s in refused if s.kind == "c2c"]) == 1
        assert len([s for s in refused if s.kind == "group"]) <= 1
        for s in refused:
            if s.kind == "group":
                later = sim.sent[sim.sent.index(s) + 1:]
                assert any(x.ok and x.kind == "group" and s.text in x.text for x in later), s.text
        report(sim, people, "window lapse + gateway drop", mark, end)


async def test_linking_is_needed_and_a_code_grants_nothing_to_others(tmp_path: Path) -> None:
    """Someone who never messaged the bot privately cannot take a seat: the group is told
    how to link, with no code in it. A code is given only privately; posted in the group
    by someone else it links nothing of theirs (it links the poster to the code's owner's
    chat only if they — not a third person — post it); a code is good once (posted again
    the poster is told it is wrong or used, and to ask for a new one). Another
    person's command in their own private chat does not move someone else's seat, and a
    button of one player's private chat cannot be pressed by anyone else."""
    async with QQOpenSim() as sim:
        people = world(sim, 3, proactive=True)
        jia, yi, bing = people
        async with running(sim, tmp_path):
            since = sim.mark()
            await sim.group_message(GROUP, "乙", "/开局 抓特务 三人")
            told = await sim.wait_for(lambda s: s.kind == "group" and s.ok, since=since, timeout=20)
            assert "私聊机器人" in told.text and not re.search(r"\d{4}", told.text), told.text
            assert "开了一桌" not in told.text
            # 丙 asks for a code privately; the code is only in 丙's private chat.
            since = sim.mark()
            await sim.c2c_message("丙", "你好")
            code_msg = await sim.wait_for_text("绑定", person="丙", since=since, timeout=20)
            code = re.search(r"绑定 (\d{4})", code_msg.text).group(1)
            assert not any(code in s.text for s in sim.sent if s.kind == "group")
            # 丙 posts it: linked. Posted again (by anyone), it links nothing.
            since = sim.mark()
            await sim.group_message(GROUP, "丙", f"绑定 {code}")
            await sim.wait_for_text("私聊已接上", group=GROUP, since=since, timeout=20)
            since = sim.mark()
            await sim.group_message(GROUP, "乙", f"绑定 {code}")
            told = await sim.wait_for(lambda s: s.kind == "group" and s.ok, since=since, timeout=20)
            assert "绑定码不对或已过期" in told.text and told.at == ["乙"], told.text
            assert not any("私聊已接上" in s.text for s in sim.sent[since:])
            since = sim.mark()
            await sim.group_message(GROUP, "乙", "绑定手机号要怎么弄", at_bot=False)  # chat
            await asyncio.sleep(1.0)
            assert group_posts(sim, since=since) == []
            await jia.link()
            await yi.link()
            mark = sim.mark()
            await sim.group_message(GROUP, "甲", "/开局 抓特务 三人")
            await sim.wait_for_text("开了一桌", group=GROUP, since=mark, timeout=20)
            jia.active = yi.active = bing.active = False
            for p in ("乙", "丙"):
                s0 = sim.mark()
                await sim.group_message(GROUP, p, "/加入")
                await sim.wait_for_text("入座", group=GROUP, since=s0, timeout=20)
            for p in people:
                await sim.wait_for(lambda s, k=p.key: s.kind == "c2c" and s.target == k
                                   and "你的手牌" in s.text, since=mark, timeout=20)
                await sim.c2c_message(p.key, "暗")
            turn = await sim.wait_for(lambda s: s.kind == "c2c" and s.ok and "轮到你" in s.text
                                      and bool(s.buttons()), since=mark, timeout=30)
            owner = turn.target
            other = next(p.key for p in people if p.key != owner)
            button = turn.buttons()[0]
            pressed = await sim.press(other, turn, button.label)
            assert not pressed.ok  # the client refuses: not their chat, not their button
            await sim.wait_for(lambda s: s.kind == "group" and s.ok and "轮到 " in s.text,
                               since=mark, timeout=20)  # the group's post of that turn too
            await sim.wait_idle(quiet=0.5, timeout=20)
            since = sim.mark()
            await sim.c2c_message(other, button.data)  # typed into their own private chat
            why = await sim.wait_for(lambda s: s.kind == "c2c" and s.target == other and s.ok,
                                     since=since, timeout=20)
            assert "轮到" in why.text, why.text  # refused privately, saying whose turn it is
            await sim.wait_idle(quiet=0.5, timeout=20)
            assert group_posts(sim, since=since) == []  # the group saw no move, no refusal
            await sim.press(owner, turn, button.label)
            await sim.wait_for(lambda s: s.kind == "group" and s.ok and re.search(
                rf"^{owner} (出|过)", s.text, re.M) is not None, since=since, timeout=20)
        no_loss(sim)


async def test_a_callback_button_press_is_acknowledged_and_moves_nothing(tmp_path: Path) -> None:
    """The bot sends only command buttons; a press of a callback button (one another bot's
    message carried, or an old client) reaches it as an interaction: it is acknowledged
    (``PUT /interactions``, code 0) so the client stops waiting, and nothing else happens —
    no message, no move."""
    async with QQOpenSim() as sim:
        world(sim, 1, proactive=True)
        async with running(sim, tmp_path):
            await Person("甲", sim).link()
            keyboard = {"content": {"rows": [{"buttons": [{
                "id": "1", "render_data": {"label": "出 3"},
                "action": {"type": 1, "data": "出 3", "permission": {"type": 2}}}]}]}}
            card = Sent("c2c", "甲", sim.app.appid, {"msg_type": 0, "keyboard": keyboard},
                        "", [], sim.clock.time(), True, id="fake-card")
            since = sim.mark()
            pressed = await sim.press("甲", card, "出 3")
            assert pressed.ok and pressed.interaction is not None
            await sim.wait_until(lambda: pressed.interaction.acks == [0], 20, "the ack")
            await asyncio.sleep(0.5)
            assert sim.sent[since:] == []


async def test_a_restart_mid_game_keeps_the_links_and_the_game(tmp_path: Path) -> None:
    """The bot is killed mid-game and started again: the seat links are kept (the person
    does not link again), the reply windows are not (the bot's ledger starts empty), so the
    turn it sends the person privately as it resumes cannot go, and the group is told at
    once (not when the turn runs out) that the person must message the bot; they do, get
    their hand and turn back with its buttons, and the game ends with every card accounted
    for."""
    async with QQOpenSim() as sim:
        people = world(sim, 1, proactive=True)
        jia = people[0]
        bot = bot_for(sim, tmp_path)
        await bot.start()
        try:
            await sim.wait_ready(timeout=30)
            mark = await open_table(sim, people, "抓特务 四人", 3)
            await sim.wait_until(lambda: len(jia.pressed) >= 3, 60, "three taps")
            jia.active = False
            await sim.wait_idle(quiet=0.5, timeout=30)
            bot.kill()
            t0 = time.monotonic()
            identified = sim.gateway_count("identify")
            since = sim.mark()
            await bot.start()
            await sim.wait_until(lambda: sim.gateway_count("identify") > identified, 30, "identify")
            await sim.group_message(GROUP, "甲", "/牌桌")
            told = await sim.wait_for(lambda s: s.kind == "group" and s.ok and "私聊发不出去" in s.text,
                                      since=since, timeout=60)
            assert told.at == ["甲"]
            assert time.monotonic() - t0 < 30  # at the restart, not when the turn timed out
            jia.active = True
            await sim.c2c_message("甲", "/手牌")
            end = await wait_end(sim, since=mark)
            assert cards_accounted(sim, end, mark) == DECK
            assert not any("绑定" in s.text for s in sim.sent[since:])  # not linked again
            assert len([s for s in sim.sent[since:] if "私聊发不出去" in s.text]) == 1
        finally:
            await bot.stop()
            print(bot.log_text()[-3000:])


async def test_the_first_bidder_gets_the_bid_buttons_at_the_deal(tmp_path: Path) -> None:
    """挖坑 starts with a bid, not a private answer: the person who bids first gets their
    turn privately at the deal, with the bid buttons, and their hand does not tell them to
    bid in the group (here the buttons come privately); a tap bids. Their turn comes under
    the hand the bot sends (dealt, then after 扣底), not with the hand a second time."""
    async with QQOpenSim() as sim:
        people = world(sim, 1, proactive=True)
        people[0].active = False  # reads only: the test taps
        async with running(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": "2"}):  # 甲 bids first
            mark = await open_table(sim, people, "挖坑", 2)
            await sim.wait_for_text("轮到 @甲 叫分", group=GROUP, since=mark, timeout=20)
            turn = await sim.wait_for(lambda s: s.kind == "c2c" and s.target == "甲" and s.ok
                                      and "轮到你" in s.text and bool(s.buttons()),
                                      since=mark, timeout=10)
            assert [b.label for b in turn.buttons()] == ["不叫", "叫 1", "叫 2", "叫 3"]
            hand = next(s for s in sim.sent[mark:] if s.kind == "c2c" and "你的手牌" in s.text)
            assert "叫分在群里发" not in hand.text and "按钮" in hand.text, hand.text
            # the turn comes under the hand just dealt, not with the hand a second time
            assert all(s.text.count("你的手牌") == 1 for s in sim.sent[mark:] if s.kind == "c2c")
            since = sim.mark()
            await sim.press("甲", turn, "叫 3")
            await sim.wait_for_text("甲 叫 3 分", group=GROUP, since=since, timeout=20)
            ask = await sim.wait_for_text("请扣 4 张牌", person="甲", since=since, timeout=20)
            await sim.c2c_message("甲", re.search(r"例如 (扣 [^。]+)。", ask.text).group(1))
            buried = await sim.wait_for_text("你扣下", person="甲", since=since, timeout=20)
            assert buried.text.count("你的手牌") == 1 and "轮到你首出" in buried.text, buried.text
            assert buried.buttons(), buried.text


async def test_private_words_without_a_game_say_what_the_private_chat_is_for(tmp_path: Path) -> None:
    """On this side moves are taken in the private chat: a move sent there with no game
    running is told there is no game (not to send it in the group), and a group command
    sent there lists 出牌、过、叫分 among what the private chat is for."""
    async with QQOpenSim() as sim:
        world(sim, 1, proactive=True)
        async with running(sim, tmp_path):
            await Person("甲", sim).link()
            answers = []
            for text in ("出 3", "/战绩"):
                since = sim.mark()
                await sim.c2c_message("甲", text)
                answers.append(await sim.wait_for(lambda s: s.kind == "c2c" and s.ok,
                                                  since=since, timeout=20))
            assert answers[0].text == "你现在没有进行中的牌局。", answers[0].text
            assert answers[1].text.startswith("这个命令请在群里发送。私聊只用于：出牌、过、叫分、/手牌"), \
                answers[1].text


async def test_help_says_how_this_side_plays(tmp_path: Path) -> None:
    """/帮助 on the official bot tells how to let the bot message you here (私聊说一句 and
    the 绑定 code, not 加好友, which this side does not have) and that moves and bids are
    taken by the private buttons too."""
    async with QQOpenSim() as sim:
        world(sim, 1, proactive=True)
        async with running(sim, tmp_path):
            since = sim.mark()
            await sim.group_message(GROUP, "甲", "/帮助")
            help_ = await sim.wait_for(lambda s: s.kind == "group" and s.ok, since=since, timeout=20)
            assert "加它为好友" not in help_.text and "绑定" in help_.text, help_.text
            assert "私聊里的按钮" in help_.text and "不叫（群里）" not in help_.text, help_.text
