"""The send scheduler on a fake clock: conversations are isolated from each other's hung
or failing sends, the account budget paces everything, group messages go first, hand
updates collapse, a failing conversation backs off on its own.

The OneBot side is a fake account whose sends succeed, fail (like retcode 1200) or hang
forever, per conversation; time only moves when the test moves it.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass

import pytest
from clock_support import FakeClock

from nonebot_plugin_paizhuo.send_queue import SendScheduler

pytestmark = pytest.mark.once  # the send scheduler on a fake clock and fake sends: no NoneBot (.ci/run)


@dataclass
class Msg:
    kind: str
    target: str
    text: str
    coalesce: str | None = None
    group_id: str | None = None


class FakeAccount:
    """Answers sends: ``ok`` at once, ``fail`` raises (a OneBot retcode 1200),
    ``hang`` never answers. Records successful sends with their (fake) time."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.mode: dict[str, str] = {}
        self.sent: list[tuple[float, str, str]] = []
        self.tries: dict[str, int] = {}

    async def send(self, msg: Msg) -> None:
        self.tries[msg.target] = self.tries.get(msg.target, 0) + 1
        mode = self.mode.get(msg.target, "ok")
        if mode == "hang":
            await asyncio.get_running_loop().create_future()
        if mode == "fail":
            raise RuntimeError("ActionFailed retcode=1200")
        self.sent.append((self.clock.now(), msg.target, msg.text))

    def when(self, text: str) -> float:
        return next(t for t, _, x in self.sent if x == text)

    def texts(self, target: str | None = None) -> list[str]:
        return [x for _, g, x in self.sent if target is None or g == target]


def make(rate: float = math.inf, burst: int = 1, **kw) -> tuple[FakeClock, FakeAccount, SendScheduler]:
    clock = FakeClock()
    account = FakeAccount(clock)
    kw.setdefault("call_timeout", 3.0)
    kw.setdefault("retries", 3)
    return clock, account, SendScheduler(account.send, clock=clock, rate=rate, burst=burst, **kw)


def g(group: str, text: str) -> Msg:
    return Msg("group", group, text)


def p(user: str, text: str, coalesce: str | None = None) -> Msg:
    return Msg("private", user, text, coalesce, group_id="g0")


async def test_a_hung_group_does_not_block_other_groups() -> None:
    clock, account, sched = make(rate=10, burst=1)
    account.mode["bad"] = "hang"
    for i in range(3):
        sched.submit(g("bad", f"bad{i}"))
    good = [sched.submit(g("good", f"good{i}")) for i in range(5)]
    await clock.advance(1.0)
    # Five sends of the good group fit in 1 s at 10/s even though a call to the bad group hangs.
    assert all(f.done() and f.result() for f in good)
    assert account.texts("good") == [f"good{i}" for i in range(5)]
    assert account.when("good4") <= 0.61
    await sched.stop()


async def test_a_hung_call_times_out_and_is_retried() -> None:
    clock, account, sched = make(call_timeout=3.0, backoff=0.5)
    account.mode["g1"] = "hang"
    done = sched.submit(g("g1", "hello"))
    await clock.advance(3.2)
    assert account.tries["g1"] == 1 and not done.done()
    assert sched.stats.timeouts == 1
    account.mode["g1"] = "ok"  # the connection is back
    await clock.advance(1.0)
    assert done.done() and done.result() is True
    assert account.texts("g1") == ["hello"]
    await sched.stop()


async def test_a_muted_group_backs_off_alone_and_gives_up() -> None:
    clock, account, sched = make(rate=5, burst=2, backoff=0.5, backoff_max=8.0, retries=3)
    account.mode["muted"] = "fail"
    muted = [sched.submit(g("muted", f"m{i}")) for i in range(4)]
    other = []
    for second in range(20):
        other.append(sched.submit(g("other", f"o{second}")))
        await clock.advance(1.0)
    # The other group is answered within its own pace every second.
    assert all(f.done() and f.result() for f in other)
    assert all(account.when(f"o{s}") - s <= 0.25 for s in range(20))
    # The muted group: the first message tried 3 times, then one probe which fails and
    # gives up everything waiting there; the back-off grows, so few calls are spent.
    assert all(f.done() and f.result() is False for f in muted)
    assert account.tries["muted"] == 4
    # Unmuted: the next message goes through after the back-off and resets it.
    account.mode["muted"] = "ok"
    later = sched.submit(g("muted", "back"))
    await clock.advance(9.0)
    assert later.result() is True
    await sched.stop()


async def test_group_announcement_before_waiting_private_updates() -> None:
    clock, account, sched = make(rate=2, burst=1)
    for u in range(6):
        sched.submit(p(f"u{u}", f"hand{u}"))
    await clock.advance(0.1)  # hand0 goes with the first token
    sched.submit(g("t2", "announce"))
    await clock.advance(0.6)
    assert account.texts() == ["hand0", "announce"]
    await clock.advance(3.0)
    assert account.texts()[2:] == [f"hand{u}" for u in range(1, 6)]
    await sched.stop()


async def test_waiting_private_messages_are_not_starved_forever() -> None:
    clock, account, sched = make(rate=1, burst=1, starve_after=5.0)
    sched.submit(p("u1", "hand"))
    sched.submit(g("busy", "g-1"))
    for i in range(12):
        sched.submit(g(f"busy{i % 3}", f"g{i}"))
        await clock.advance(0.9)
    # A steady stream of group messages over capacity: the hand still goes after ~5 s.
    assert "hand" in account.texts()
    assert account.when("hand") <= 7.0
    await sched.stop()


async def test_hand_updates_of_one_player_collapse_into_the_latest() -> None:
    clock, account, sched = make(rate=1, burst=1)
    first = sched.submit(g("t", "announce"))
    olds = [sched.submit(p("u1", f"hand v{i}", coalesce="hand")) for i in range(3)]
    question = sched.submit(p("u1", "请选择，私聊回复 明 / 暗"))
    newest = sched.submit(p("u1", "hand v3", coalesce="hand"))
    await clock.advance(5.0)
    assert first.result() and newest.result() and question.result()
    assert all(f.result() is True for f in olds)  # superseded counts as delivered
    assert account.texts("u1") == ["请选择，私聊回复 明 / 暗", "hand v3"]
    assert sched.stats.superseded == 3
    await sched.stop()


async def test_budget_paces_the_account_with_a_burst() -> None:
    clock, account, sched = make(rate=4, burst=3)
    for i in range(11):
        sched.submit(g(f"grp{i}", f"m{i}"))
    await clock.advance(3.0)
    times = [t for t, _, _ in account.sent]
    assert len(times) == 11
    assert times[2] <= 0.01  # the burst goes at once
    assert times[3] == pytest.approx(0.25, abs=0.02)
    assert times[10] == pytest.approx(2.0, abs=0.02)  # then 4 per second
    await sched.stop()


async def test_one_noisy_group_gets_a_fair_share_only() -> None:
    clock, account, sched = make(rate=2, burst=1)
    for i in range(30):
        sched.submit(g("noisy", f"junk{i}"))
    await clock.advance(0.1)
    sched.submit(g("quiet", "announce"))
    await clock.advance(1.0)
    # Round robin: the quiet group's message goes with the next token, not after 30 junk replies.
    assert "announce" in account.texts("quiet")
    assert account.when("announce") <= 0.51
    await sched.stop()


async def test_a_private_message_given_up_is_reported_once_in_its_group() -> None:
    clock, account, sched = make(on_give_up=lambda m: g(m.group_id, f"notice {m.target}")
                                 if m.kind == "private" else None)
    account.mode["u9"] = "fail"
    result = sched.submit(p("u9", "secret hand"))
    await clock.advance(1.0)
    assert result.result() is False
    assert account.tries["u9"] == 1  # a private message gets one try
    assert account.texts("g0") == ["notice u9"]
    assert all("secret" not in x for x in account.texts())
    await sched.stop()


async def test_order_within_a_conversation_is_kept_across_retries() -> None:
    clock, account, sched = make(backoff=0.5)
    account.mode["g"] = "fail"
    a = sched.submit(g("g", "first"))
    b = sched.submit(g("g", "second"))
    await clock.advance(0.2)
    account.mode["g"] = "ok"
    await clock.advance(2.0)
    assert a.result() and b.result()
    assert account.texts("g") == ["first", "second"]
    await sched.stop()


async def test_a_message_that_may_go_now_is_sent_at_the_next_task_switch() -> None:
    """No pacing, an idle conversation: the call starts from ``submit`` itself, so the
    message is out after one task switch (not after the dispatcher's own wake-ups, which
    a busy event loop makes each wait their turn); the next message of the same
    conversation starts as soon as the first call ends."""
    _, account, sched = make()
    first = sched.submit(g("g1", "one"))
    second = sched.submit(g("g1", "two"))
    other = sched.submit(p("u1", "three"))
    await asyncio.sleep(0)
    assert account.texts() == ["one", "three"]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert account.texts() == ["one", "three", "two"]
    assert first.result() and other.result() and second.result()
    await sched.stop()


async def test_stop_answers_calls_in_flight_and_starts_no_more() -> None:
    """``stop`` cancels a hung call and answers it ``False``, answers the waiting ones
    ``False`` too, and no call starts while it stops."""
    clock, account, sched = make()
    account.mode["g1"] = "hang"
    hung = sched.submit(g("g1", "one"))
    waiting = sched.submit(g("g1", "two"))
    await clock.advance(0.1)
    await sched.stop()
    assert hung.done() and hung.result() is False
    assert waiting.done() and waiting.result() is False
    assert account.tries["g1"] == 1


@dataclass
class Media:
    """A picture or forward message: ``fallback()`` is its text."""

    kind: str
    target: str
    text: str
    coalesce: str | None = None
    media: str = "image"
    extra: bool = False

    def fallback(self) -> Msg:
        return Msg(self.kind, self.target, f"text of {self.text}")


class MediaAccount(FakeAccount):
    """As :class:`FakeAccount`, and media calls answer per ``media`` mode (``hang`` /
    ``fail`` / ``ok``) while text goes through."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.media = "hang"
        self.media_tries = 0

    async def send(self, msg) -> None:
        if isinstance(msg, Media):
            self.media_tries += 1
            if self.media == "hang":
                await asyncio.get_running_loop().create_future()
            if self.media == "fail":
                raise RuntimeError("ActionFailed retcode=1200")
        await super().send(msg)


async def test_a_hung_picture_becomes_its_text_within_one_call_timeout() -> None:
    """The picture's call hangs: after one ``call_timeout`` its text goes as a send of its
    own (no retries of the picture holding the group), and what follows keeps its order."""
    clock = FakeClock()
    account = MediaAccount(clock)
    sched = SendScheduler(account.send, clock=clock, call_timeout=3.0, retries=3, backoff=0.5)
    picture = sched.submit(Media("group", "g1", "details"))
    after = sched.submit(g("g1", "next game"))
    await clock.advance(3.5)
    assert account.media_tries == 1
    assert account.texts("g1") == ["text of details", "next game"]
    assert picture.result() is True and after.result() is True
    assert sched.stats.fallbacks == 1
    assert sched.slowdown == 0  # a picture that fails says nothing of the account
    await sched.stop()


async def test_a_failed_forward_becomes_text_and_the_text_has_its_own_tries() -> None:
    clock = FakeClock()
    account = MediaAccount(clock)
    account.media = "fail"
    sched = SendScheduler(account.send, clock=clock, call_timeout=3.0, retries=3, backoff=0.5)
    account.mode["g1"] = "fail"  # the text fails too at first
    done = sched.submit(Media("group", "g1", "rules"))
    await clock.advance(0.1)
    account.mode["g1"] = "ok"
    await clock.advance(2.0)
    assert account.media_tries == 1
    assert done.result() is True
    assert account.texts("g1") == ["text of rules"]
    await sched.stop()


def media_sched(media: str = "hang", **kw) -> tuple[FakeClock, MediaAccount, SendScheduler]:
    clock = FakeClock()
    account = MediaAccount(clock)
    account.media = media
    kw.setdefault("media_probe_after", 60.0)
    kw.setdefault("media_probe_max", 200.0)
    return clock, account, SendScheduler(account.send, clock=clock, call_timeout=3.0,
                                         retries=3, backoff=0.5, **kw)


async def test_a_hung_picture_is_remembered_for_the_account_then_tried_now_and_then() -> None:
    """One hung picture: for ``media_probe_after`` seconds every picture, in any group,
    goes as its text at once (no call, no wait); then one is tried (the others meanwhile
    still go as text); a failed try doubles the wait (up to ``media_probe_max``); a try
    that goes through ends it."""
    clock, account, sched = media_sched("hang")
    sched.submit(Media("group", "g1", "table 1"))
    await clock.advance(3.5)
    assert account.media_tries == 1 and account.texts("g1") == ["text of table 1"]
    for n, group in enumerate(("g1", "g2", "g1"), start=2):
        sched.submit(Media("group", group, f"table {n}"))
        await clock.advance(0.05)
        assert account.texts(group)[-1] == f"text of table {n}"  # at once
    assert account.media_tries == 1 and sched.stats.media_skipped == 3
    assert sched.media_down() == {"image": pytest.approx(60.0 - 0.15 - 0.0, abs=0.5)}
    await clock.advance(60.0)
    sched.submit(Media("group", "g2", "probe"))
    sched.submit(Media("group", "g3", "beside the probe"))
    await clock.advance(0.05)
    assert account.media_tries == 2  # one try; the other picture went as text
    assert account.texts("g3") == ["text of beside the probe"]
    await clock.advance(3.5)
    assert account.texts("g2")[-1] == "text of probe"
    await clock.advance(100.0)  # the wait is 120 s now
    sched.submit(Media("group", "g1", "still remembered"))
    await clock.advance(0.05)
    assert account.media_tries == 2
    account.media = "ok"
    await clock.advance(25.0)
    sched.submit(Media("group", "g1", "tried, works"))
    await clock.advance(0.05)
    sched.submit(Media("group", "g2", "works"))
    await clock.advance(0.05)
    assert account.media_tries == 4 and sched.media_down() == {}
    assert "text of works" not in account.texts("g2")
    await sched.stop()


async def test_a_picture_that_only_adds_to_the_texts_is_left_out_while_remembered() -> None:
    """The table after a move (``extra``): when its call hangs its text goes instead, as
    for any picture; while pictures are remembered failing it is left out altogether (as
    with pictures off: the move's own post said the move), and the next text is not held."""
    clock, account, sched = media_sched("hang")
    sched.submit(Media("group", "g1", "table 1", extra=True))
    await clock.advance(3.5)
    assert account.texts("g1") == ["text of table 1"]
    left = sched.submit(Media("group", "g1", "table 2", extra=True))
    sched.submit(g("g1", "next move"))
    await clock.advance(0.05)
    assert left.done() and left.result() is True
    assert account.texts("g1") == ["text of table 1", "next move"]
    assert account.media_tries == 1 and sched.stats.media_skipped == 1
    await sched.stop()


async def test_a_failing_picture_is_remembered_for_its_group_first() -> None:
    """A picture refused (not hung) in one group: that group sends pictures as text for
    a while, another group still tries; refused in a second group too, the whole
    account does. Forwards are remembered apart from pictures."""
    clock, account, sched = media_sched("fail")
    sched.submit(Media("group", "g1", "a"))
    await clock.advance(0.1)
    sched.submit(Media("group", "g1", "b"))
    await clock.advance(0.1)
    assert account.media_tries == 1 and account.texts("g1") == ["text of a", "text of b"]
    assert sched.media_down() == {}
    sched.submit(Media("group", "g2", "c"))
    await clock.advance(0.1)
    assert account.media_tries == 2 and sched.media_down().keys() == {"image"}
    sched.submit(Media("group", "g3", "d"))
    sched.submit(Media("group", "g3", "e", media="forward"))
    await clock.advance(0.1)
    assert account.media_tries == 3  # the picture went as text; the forward was tried
    await sched.stop()


async def test_failed_conversations_do_not_stay_in_the_scheduler() -> None:
    clock, account, sched = make(forget_after=60.0, remember_max=100)
    for batch in range(100):  # 10 000 private chats that block the bot, 100 at a time
        for u in range(batch * 100, batch * 100 + 100):
            account.mode[f"u{u}"] = "fail"
            sched.submit(p(f"u{u}", "hand"))
        await clock.advance(0.01)
    assert account.tries["u9999"] == 1
    assert sched.conversations() <= 100
    await clock.advance(120.0, step=1.0)
    sched.submit(g("g1", "hello"))
    await clock.advance(0.1)
    assert sched.conversations() == 0
    await sched.stop()


async def test_a_resting_conversation_remembers_it_is_down() -> None:
    clock, account, sched = make(backoff=0.5, backoff_max=8.0, retries=3)
    account.mode["muted"] = "fail"
    sched.submit(g("muted", "m0"))
    await clock.advance(10.0, step=0.5)
    assert account.tries["muted"] == 3
    assert sched.conversations() == 1  # remembered, idle
    later = sched.submit(g("muted", "m1"))
    await clock.advance(20.0, step=0.5)
    assert later.result() is False
    assert account.tries["muted"] == 4  # one probe, not three fresh tries
    await sched.stop()


async def test_an_account_failing_in_several_groups_slows_down_as_a_whole() -> None:
    notices: list[float] = []
    clock, account, sched = make(rate=1.0, burst=3, throttle_conversations=3,
                                 throttle_window=30.0, recover_after=60.0,
                                 on_throttle=lambda s: notices.append(s.current_rate()))
    for grp in ("g1", "g2", "g3", "g4"):
        account.mode[grp] = "fail"
    # The scheduler's logger does not propagate (its records go to NoneBot's log), so the
    # records are collected by a handler on it (caplog sees non-propagating loggers only
    # on newer pytest versions).
    records: list[logging.LogRecord] = []
    collect = logging.Handler(logging.WARNING)
    collect.emit = records.append  # type: ignore[method-assign]
    send_log = logging.getLogger("nonebot_plugin_paizhuo.send_queue")
    send_log.addHandler(collect)
    try:
        for grp in ("g1", "g2", "g3", "g4"):
            sched.submit(g(grp, "x"))
        await clock.advance(40.0, step=0.5)
    finally:
        send_log.removeHandler(collect)
    throttled = [r for r in records if "account throttled" in r.getMessage()]
    assert len(throttled) == 1 and notices == [0.5]
    assert sched.slowdown >= 1 and sched.current_rate() < 1.0
    # The whole account is slower: a healthy group now gets the lower rate.
    for grp in ("g1", "g2", "g3", "g4"):
        account.mode[grp] = "ok"
    slowed = sched.current_rate()
    start = len(account.sent)
    for i in range(10):
        sched.submit(g(f"ok{i}", "y"))
    await clock.advance(4.0)
    assert len(account.sent) - start <= 4.0 * slowed + 1
    # Recovery step by step: one halving undone per quiet minute.
    level = sched.slowdown
    await clock.advance(61.0, step=1.0)
    assert sched.slowdown == level - 1
    await clock.advance(61.0 * level, step=1.0)
    assert sched.slowdown == 0 and sched.current_rate() == 1.0
    assert len(notices) == 1
    await sched.stop()


async def test_blocked_private_chats_do_not_throttle_the_account() -> None:
    clock, account, sched = make(rate=1.0, burst=5, throttle_conversations=3)
    for u in range(5):
        account.mode[f"u{u}"] = "fail"
        sched.submit(p(f"u{u}", "hand"))
    await clock.advance(10.0)
    assert sched.slowdown == 0


@dataclass
class Tagged(Msg):
    urgent: bool = False
    chatter: bool = False


async def test_the_acting_players_private_message_goes_before_group_chatter() -> None:
    clock, account, sched = make(rate=1.0, burst=1)
    for i in range(8):
        sched.submit(Tagged("group", "t1", f"refusal{i}", chatter=True))
    await clock.advance(0.1)  # refusal0 went with the burst
    sched.submit(Tagged("group", "t1", "轮到挖坑者出牌"))
    sched.submit(Tagged("private", "digger", "你的手牌（含底牌）", urgent=True))
    await clock.advance(2.1)
    assert account.texts()[:3] == ["refusal0", "你的手牌（含底牌）", "轮到挖坑者出牌"]
    await sched.stop()


async def test_a_tables_prompt_overtakes_its_groups_chatter() -> None:
    clock, account, sched = make(rate=1.0, burst=1)
    for i in range(20):
        sched.submit(Tagged("group", "t1", f"help{i}", chatter=True))
    await clock.advance(0.1)
    sched.submit(Tagged("group", "t1", "请还贡"))
    await clock.advance(1.0)
    assert account.texts() == ["help0", "请还贡"]
    await sched.stop()
