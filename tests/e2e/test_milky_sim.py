"""The Milky fake (``tools/milky_sim.py``) against the real nonebot-adapter-milky.

A minimal NoneBot process (``tests/e2e/probe_bot``: the adapter and a probe plugin, no game)
dials the fake over a real socket; each test has people speak, then checks the exact API
calls and frames the fake recorded and the events the bot received (from the probe's log),
faults included: a failed send, a hung send, a dropped and restored connection, malformed
frames, a wrong token."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from probe_support import ProbeLog, probe_process

from tools.milky_sim import (
    RETCODE_NOT_FOUND,
    RETCODE_SEND_FAILED,
    MilkySim,
    milky_mention,
    milky_text,
)

TOKEN = "milky-probe-token"
SELF_ID = 40001
GROUP = 700
FRIEND, STRANGER, ADMIN = 41, 42, 43
API_TIMEOUT = 2.0
"""The probe bot's NoneBot ``API_TIMEOUT``: how long a hung send takes to fail."""


@pytest.fixture(scope="module")
async def side(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[MilkySim, ProbeLog]]:
    """The fake with one group (a friend, a stranger, an admin with a group card) and the
    probe bot connected to it, once for the module."""
    tmp = tmp_path_factory.mktemp("milky")
    sim = MilkySim(self_id=SELF_ID, nickname="牌桌")
    sim.add_member(GROUP, FRIEND, "甲")
    sim.add_member(GROUP, STRANGER, "乙")
    sim.add_member(GROUP, ADMIN, "丙", card="阿丙", role="admin")
    sim.add_friend(FRIEND, "甲")
    proc, log = probe_process(sim, tmp, token=TOKEN, env={"API_TIMEOUT": str(API_TIMEOUT)})
    async with proc:
        await sim.connect(proc.url, TOKEN)
        try:
            yield sim, log
        finally:
            await sim.stop()


async def ask(sim: MilkySim, log: ProbeLog, text: str, *, user: int = FRIEND,
              group: int | None = GROUP) -> tuple[dict, dict]:
    """``user`` says ``text`` (in ``group``, or privately when ``None``); return the event the
    bot received and the outcome of the probe's send."""
    since = log.mark()
    if group is None:
        seq = await sim.private_message(user, text)
    else:
        seq = await sim.group_message(group, user, text)
    event = await log.wait(lambda e: e["kind"] == "event" and e["message_id"] == seq
                           and e["text"] == text, since=since)
    return event, await log.sent(text, since=since, timeout=API_TIMEOUT + 8)


async def test_a_group_message_and_the_reply(side: tuple[MilkySim, ProbeLog]) -> None:
    """A group message reaches the bot as GroupMessageEvent (QQ numbers as ints, session
    ``group_user``), and ``bot.send`` answers with ``send_group_message`` carrying the text
    segment, authorised by the token."""
    sim, log = side
    calls = len(sim.calls)
    event, outcome = await ask(sim, log, "echo 你好")
    assert event["class"] == "GroupMessageEvent"
    assert (event["user"], event["session"], event["scene"], event["peer"]) == (
        str(FRIEND), f"{GROUP}_{FRIEND}", "group", GROUP)
    assert outcome["ok"], outcome
    call = next(c for c in sim.calls[calls:] if c.action == "send_group_message")
    assert call.params == {"group_id": GROUP, "message": [milky_text("你好")]}
    assert (call.status, call.retcode) == ("ok", 0)
    sent = sim.sent[-1]
    assert (sent.kind, sent.target, sent.text, sent.ok) == ("group", GROUP, "你好", True)
    assert f"message_seq={sent.message_id}" in outcome["result"]


async def test_private_messages_reach_friends_only(side: tuple[MilkySim, ProbeLog]) -> None:
    """``send_private_message`` reaches a friend; to a group member who is not a friend it
    fails with retcode -404 ("Friend not found"), raised as the adapter's ActionFailed."""
    sim, log = side
    _, outcome = await ask(sim, log, "private 你的手牌", user=FRIEND)
    assert outcome["ok"]
    assert (sim.sent[-1].kind, sim.sent[-1].target, sim.sent[-1].text) == ("private", FRIEND, "你的手牌")
    _, outcome = await ask(sim, log, "private 你的手牌", user=STRANGER)
    assert not outcome["ok"] and outcome["error"] == "ActionFailed"
    assert f"retcode={RETCODE_NOT_FOUND}" in outcome["detail"] and "Friend not found" in outcome["detail"]
    assert not sim.sent[-1].ok and sim.sent[-1].target == STRANGER


async def test_a_friend_and_a_temporary_session(side: tuple[MilkySim, ProbeLog]) -> None:
    """A friend's private message is a FriendMessageEvent answered privately; a stranger's
    is a TempMessageEvent (scene ``temp``, peer = the person), which the adapter answers with
    ``send_group_message`` to a "group" numbered like the person — refused, -404."""
    sim, log = side
    event, outcome = await ask(sim, log, "echo 私聊", user=FRIEND, group=None)
    assert (event["class"], event["scene"], event["to_me"]) == ("FriendMessageEvent", "friend", True)
    assert event["session"] == str(FRIEND) and outcome["ok"]
    assert (sim.sent[-1].kind, sim.sent[-1].target) == ("private", FRIEND)
    calls = len(sim.calls)
    event, outcome = await ask(sim, log, "echo 临时", user=STRANGER, group=None)
    assert (event["class"], event["scene"], event["peer"]) == ("TempMessageEvent", "temp", STRANGER)
    assert not outcome["ok"] and f"retcode={RETCODE_NOT_FOUND}" in outcome["detail"]
    call = next(c for c in sim.calls[calls:] if c.action.startswith("send_"))
    assert call.action == "send_group_message" and call.params["group_id"] == STRANGER


async def test_picture_forward_and_mention(side: tuple[MilkySim, ProbeLog]) -> None:
    """A picture goes as ``image`` with a ``base64://`` URI of the PNG; a merged forward as
    one ``forward`` segment whose messages carry the bot's QQ number and name; an @ as a
    ``mention`` with the QQ number as an int."""
    sim, log = side
    _, outcome = await ask(sim, log, "image")
    assert outcome["ok"]
    image = sim.sent[-1].segments[0]
    assert image["type"] == "image" and image["data"]["uri"].startswith("base64://")
    assert base64.b64decode(image["data"]["uri"][9:]).startswith(b"\x89PNG")
    _, outcome = await ask(sim, log, "forward")
    assert outcome["ok"]
    sent = sim.sent[-1]
    assert sent.forward and sent.text == "第一段\n第二段"
    nodes = sent.segments[0]["data"]["messages"]
    assert [(n["user_id"], n["sender_name"], n["segments"]) for n in nodes] == [
        (SELF_ID, "牌桌", [milky_text("第一段")]), (SELF_ID, "牌桌", [milky_text("第二段")])]
    _, outcome = await ask(sim, log, "mention", user=ADMIN)
    assert outcome["ok"]
    sent = sim.sent[-1]
    assert sent.segments == [{"type": "mention", "data": {"user_id": ADMIN}}, milky_text(" 轮到你")]
    assert (sent.at, sent.text) == ([ADMIN], "@阿丙 轮到你")


async def test_a_members_name_and_an_incoming_mention(side: tuple[MilkySim, ProbeLog]) -> None:
    """The member's group card is read with ``get_group_member_info``; an incoming message
    that starts with an @ of the bot is ``to_me`` and reaches the plugin without it."""
    sim, log = side
    calls = len(sim.calls)
    _, outcome = await ask(sim, log, "whois", user=ADMIN)
    assert outcome["ok"] and sim.sent[-1].text == "名字：阿丙"
    call = next(c for c in sim.calls[calls:] if c.action == "get_group_member_info")
    assert call.params == {"group_id": GROUP, "user_id": ADMIN, "no_cache": False}
    since = log.mark()
    seq = await sim.group_message(GROUP, FRIEND, [milky_mention(SELF_ID, "牌桌"), milky_text(" echo x")])
    event = await log.wait(lambda e: e["kind"] == "event" and e["message_id"] == seq, since=since)
    assert event["to_me"] and event["text"] == "echo x"


async def test_a_failed_and_a_hung_send(side: tuple[MilkySim, ProbeLog]) -> None:
    """A send the side fails is ActionFailed (retcode -500, HTTP 200); a send it never
    answers is the adapter's NetworkError after NoneBot's ``API_TIMEOUT``; meanwhile other
    chats are answered."""
    sim, log = side
    sim.fail_group.add(GROUP + 1)
    sim.hang_group.add(GROUP + 2)
    try:
        _, outcome = await ask(sim, log, f"send group {GROUP + 1} 失败")
        assert not outcome["ok"] and outcome["error"] == "ActionFailed"
        assert f"retcode={RETCODE_SEND_FAILED}" in outcome["detail"]
        since = log.mark()
        await sim.group_message(GROUP, FRIEND, f"send group {GROUP + 2} 卡住")
        _, fine = await ask(sim, log, "echo 别的群照常")
        assert fine["ok"]
        outcome = await log.sent(f"send group {GROUP + 2} 卡住", since=since, timeout=API_TIMEOUT + 8)
        assert not outcome["ok"] and outcome["error"] == "NetworkError"
        assert ("group", GROUP + 2) in [(k, t) for k, t, _ in sim.hung]
    finally:
        sim.fail_group.clear()
        sim.hang_group.clear()


async def test_the_stream_drops_and_comes_back(side: tuple[MilkySim, ProbeLog]) -> None:
    """The event stream closing, or its TCP connection reset, disconnects the bot and it
    dials again at once; the side going away altogether refuses the bot's calls (a
    NetworkError) until it is back; a message delivered again reaches the bot again with the
    same seq (the adapter does not de-duplicate)."""
    sim, log = side
    for breaks in (sim.drop, sim.abort):
        before, since = sim.connections, log.mark()
        await breaks()
        await log.wait(lambda e: e["kind"] == "disconnect", since=since)
        await sim.connect(retry_for=10)
        await log.wait(lambda e: e["kind"] == "connect", since=since)
        assert sim.connections == before + 1
        _, outcome = await ask(sim, log, "echo 回来了")
        assert outcome["ok"]
    since = log.mark()
    seq = await sim.group_message(GROUP, FRIEND, "echo 一次")
    await sim.resend(seq)
    await log.wait(lambda e: e["kind"] == "send" and e["cmd"] == "echo 一次", since=since)
    twice = [e for e in (await _settled(log, since)) if e["kind"] == "event"]
    assert [e["message_id"] for e in twice] == [seq, seq]
    since = log.mark()
    await sim.stop()
    await log.wait(lambda e: e["kind"] == "disconnect", since=since)
    await sim.connect(retry_for=10)
    _, outcome = await ask(sim, log, "echo 又回来了")
    assert outcome["ok"]


async def _settled(log: ProbeLog, since: int) -> list[dict]:
    await asyncio.sleep(0.3)
    return log.entries()[since:]


async def test_malformed_frames(side: tuple[MilkySim, ProbeLog]) -> None:
    """A frame that is not JSON, or an event without ``event_type``, makes the adapter drop
    the stream and dial again; an unknown event type or a message event it cannot read is
    logged and skipped on the same stream. The bot goes on answering either way."""
    sim, log = side
    for frame in ("{not json", json.dumps({"time": 1, "self_id": SELF_ID, "data": {}})):
        before, since = sim.connections, log.mark()
        await sim.send_raw(frame)
        await log.wait(lambda e: e["kind"] == "connect", since=since)
        await sim.connect()
        assert sim.connections == before + 1
    before = sim.connections
    await sim.post_event({"time": 1, "self_id": SELF_ID, "event_type": "no_such_event", "data": {}})
    await sim.post_event({"time": 1, "self_id": SELF_ID, "event_type": "message_receive",
                          "data": {"message_scene": "group"}})
    _, outcome = await ask(sim, log, "echo 还在")
    assert outcome["ok"] and sim.connections == before


async def test_a_wrong_token_is_refused(tmp_path: Path) -> None:
    """A bot with the wrong token is refused (HTTP 401 on ``/event``) and never connects."""
    sim = MilkySim(self_id=SELF_ID + 1, access_token="right")
    proc, _ = probe_process(sim, tmp_path, token="right", env={"MILKY_CLIENTS": json.dumps(
        [{"host": sim.host, "port": sim.port, "access_token": "wrong"}])})
    async with proc:
        with pytest.raises(TimeoutError):
            await sim.connect(retry_for=2)
    await sim.stop()
    assert ("/event", 401) in sim.refused and sim.connections == 0
