"""The Satori fake (``tools/satori_sim.py``) against the real nonebot-adapter-satori.

A minimal NoneBot process (``tests/e2e/probe_bot``: the adapter and a probe plugin, no game)
dials the fake over a real socket; each test has people speak, then checks the signalling
frames and API calls the fake recorded and the events the bot received (from the probe's
log), faults included: a failed send, a hung send, a dropped and recovered session,
malformed frames, a wrong token."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from probe_support import ProbeLog, probe_process

from tools.satori_sim import (
    OP_IDENTIFY,
    OP_PING,
    SatoriSim,
    parse_elements,
    render_elements,
    satori_at,
    to_content,
)

TOKEN = "satori-probe-token"
SELF_ID = 50001
GROUP = 800
FRIEND, STRANGER, ADMIN, OUTSIDER = 51, 52, 53, 59
API_TIMEOUT = 2.0
"""The probe bot's Satori client ``timeout``: how long a hung send takes to fail."""


def test_elements_parse_as_satori_does() -> None:
    """Entities decode; a whitespace run with a line break is dropped next to a tag (and at
    both ends), kept inside a text; bare attributes are true, ``no-x`` false; a tag without
    its pair is text; serialising and parsing again gives the same elements."""
    els = parse_elements('甲 出 33\n<at id="5" name="乙"/>\n轮到你 a&amp;b&lt;c&gt;\n末尾\n')
    assert [e["type"] for e in els] == ["text", "at", "text"]
    assert els[0]["attrs"]["content"] == "甲 出 33" and els[1]["attrs"] == {"id": "5", "name": "乙"}
    assert els[2]["attrs"]["content"] == "轮到你 a&b<c>\n末尾"
    assert render_elements(els, str) == ("甲 出 33@乙轮到你 a&b<c>\n末尾", [5])
    fwd = parse_elements("<message forward no-cache><message>一</message><message>二</message></message>")
    assert fwd[0]["attrs"] == {"forward": True, "cache": False}
    assert [c["children"][0]["attrs"]["content"] for c in fwd[0]["children"]] == ["一", "二"]
    assert parse_elements("<b>open 1 < 2") == [{"type": "text", "attrs": {"content": "<b>open 1 < 2"},
                                                 "children": []}]
    assert parse_elements(to_content(["x<y> \"z\"", satori_at(7, '名"字')])) == [
        {"type": "text", "attrs": {"content": 'x<y> "z"'}, "children": []}, satori_at(7, '名"字')]


def probe_env(sim: SatoriSim, token: str) -> dict[str, str]:
    """``SATORI_CLIENTS`` with the short API timeout."""
    return {"SATORI_CLIENTS": json.dumps([{"host": sim.host, "port": sim.port, "token": token,
                                           "timeout": API_TIMEOUT}])}


@pytest.fixture(scope="module")
async def side(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[SatoriSim, ProbeLog]]:
    """The fake with one group (a friend, a stranger, an admin with a group card) and the
    probe bot connected to it, once for the module."""
    tmp = tmp_path_factory.mktemp("satori")
    sim = SatoriSim(self_id=SELF_ID, nickname="牌桌")
    sim.add_member(GROUP, FRIEND, "甲")
    sim.add_member(GROUP, STRANGER, "乙")
    sim.add_member(GROUP, ADMIN, "丙", card="阿丙", role="admin")
    sim.add_friend(FRIEND, "甲")
    proc, log = probe_process(sim, tmp, token=TOKEN, env=probe_env(sim, TOKEN))
    async with proc:
        await sim.connect(proc.url, TOKEN)
        try:
            yield sim, log
        finally:
            await sim.stop()


async def ask(sim: SatoriSim, log: ProbeLog, text: str, *, user: int = FRIEND,
              group: int | None = GROUP) -> tuple[dict, dict]:
    """``user`` says ``text`` (in ``group``, or privately when ``None``); return the event the
    bot received and the outcome of the probe's send."""
    since = log.mark()
    if group is None:
        mid = await sim.private_message(user, text)
    else:
        mid = await sim.group_message(group, user, text)
    event = await log.wait(lambda e: e["kind"] == "event" and e["message_id"] == mid, since=since)
    return event, await log.sent(text, since=since, timeout=API_TIMEOUT + 8)


async def test_identify_ready_and_a_group_reply(side: tuple[SatoriSim, ProbeLog]) -> None:
    """The bot IDENTIFYs with its token (no ``sn`` on a first connection) and PINGs; a group
    message is a PublicMessageCreatedEvent (ids as strings, channel = guild = the group), and
    ``bot.send`` answers with ``message.create`` on the group's channel."""
    sim, log = side
    first = json.loads(sim.frames_in[0])
    assert first == {"op": OP_IDENTIFY, "body": {"token": TOKEN, "sn": None}}
    calls = len(sim.calls)
    event, outcome = await ask(sim, log, "echo 你好")
    assert event["class"] == "PublicMessageCreatedEvent"
    assert (event["user"], event["channel"], event["guild"], event["channel_type"]) == (
        str(FRIEND), str(GROUP), str(GROUP), 0)
    assert event["session"] == f"{GROUP}/{GROUP}/{FRIEND}" and outcome["ok"]
    call = next(c for c in sim.calls[calls:] if c.action == "message.create")
    assert call.params == {"channel_id": str(GROUP), "content": "你好"}
    sent = sim.sent[-1]
    assert (sent.kind, sent.target, sent.text, sent.ok) == ("group", GROUP, "你好", True)
    assert sent.message_id.startswith(f"2|{GROUP}|")


async def test_private_messages_through_a_user_channel(side: tuple[SatoriSim, ProbeLog]) -> None:
    """A private send is ``user.channel.create`` then ``message.create`` on
    ``private:<QQ>``; a friend gets it, a group member who is not one gets it as a temporary
    session, someone sharing no group cannot be reached (HTTP 500, raised by the adapter as
    ApiNotImplementedException, an ActionFailed)."""
    sim, log = side
    for user, temp in ((FRIEND, False), (STRANGER, True)):
        calls = len(sim.calls)
        _, outcome = await ask(sim, log, "private 你的手牌", user=user)
        assert outcome["ok"]
        assert [c.action for c in sim.calls[calls:]] == ["user.channel.create", "message.create"]
        assert sim.calls[-1].params == {"channel_id": f"private:{user}", "content": "你的手牌"}
        sent = sim.sent[-1]
        assert (sent.kind, sent.target, sent.temp) == ("private", user, temp)
    _, outcome = await ask(sim, log, f"send private {OUTSIDER} 你好")
    assert not outcome["ok"] and outcome["error"] == "ApiNotImplementedException"
    assert "ActionFailed" in outcome["mro"] and "500" in outcome["detail"]
    event, outcome = await ask(sim, log, "echo 私聊", user=STRANGER, group=None)
    assert (event["class"], event["channel"], event["channel_type"]) == (
        "PrivateMessageCreatedEvent", f"private:{STRANGER}", 1)
    assert event["session"] == f"private:{STRANGER}" and event["to_me"] and outcome["ok"]


async def test_picture_forward_mention_and_line_breaks(side: tuple[SatoriSim, ProbeLog]) -> None:
    """A picture is ``<img src="data:image/png;base64,…">``; a merged forward one
    ``<message forward>`` of ``<message>``s; an @ ``<at id>``. A line break next to an
    ``<at>`` is lost: the adapter drops the one of a ``str`` it parses (``"第一行\\n" + at``),
    the server's parser the one after the tag, so ``第一行\\n@丙\\n第二行`` arrives on one
    line."""
    sim, log = side
    _, outcome = await ask(sim, log, "image")
    assert outcome["ok"]
    src = sim.sent[-1].segments[0]["attrs"]["src"]
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG")
    _, outcome = await ask(sim, log, "forward")
    assert outcome["ok"] and sim.calls[-1].params["content"] == (
        "<message forward><message>第一段</message><message>第二段</message></message>")
    assert sim.sent[-1].forward and sim.sent[-1].text == "第一段\n第二段"
    _, outcome = await ask(sim, log, "mention", user=ADMIN)
    assert outcome["ok"] and sim.calls[-1].params["content"] == f'<at id="{ADMIN}"/> 轮到你'
    assert (sim.sent[-1].at, sim.sent[-1].text) == ([ADMIN], "@阿丙 轮到你")
    _, outcome = await ask(sim, log, "lines", user=ADMIN)
    assert sim.calls[-1].params["content"] == f'第一行<at id="{ADMIN}"/>\n第二行'
    assert sim.sent[-1].text == "第一行@阿丙第二行"


async def test_a_members_name_and_an_incoming_mention(side: tuple[SatoriSim, ProbeLog]) -> None:
    """The member's group card is ``guild.member.get``'s ``nick``; an incoming message that
    starts with an ``<at>`` of the bot is ``to_me`` and reaches the plugin without it."""
    sim, log = side
    calls = len(sim.calls)
    _, outcome = await ask(sim, log, "whois", user=ADMIN)
    assert outcome["ok"] and sim.sent[-1].text == "名字：阿丙"
    call = next(c for c in sim.calls[calls:] if c.action == "guild.member.get")
    assert call.params == {"guild_id": str(GROUP), "user_id": str(ADMIN)}
    since = log.mark()
    mid = await sim.group_message(GROUP, FRIEND, [satori_at(SELF_ID, "牌桌"), " echo x"])
    event = await log.wait(lambda e: e["kind"] == "event" and e["message_id"] == mid, since=since)
    assert event["to_me"] and event["text"] == "echo x"


async def test_a_failed_and_a_hung_send(side: tuple[SatoriSim, ProbeLog]) -> None:
    """A send the server fails is HTTP 500 (ApiNotImplementedException); one it never
    answers is the adapter's NetworkError after the client's ``timeout``; meanwhile other
    chats are answered."""
    sim, log = side
    sim.fail_group.add(GROUP)
    try:
        _, outcome = await ask(sim, log, "echo 失败")
        assert not outcome["ok"] and outcome["error"] == "ApiNotImplementedException"
        assert not sim.sent[-1].ok and sim.calls[-1].retcode == 500
    finally:
        sim.fail_group.clear()
    sim.hang_group.add(GROUP + 2)
    try:
        since = log.mark()
        await sim.group_message(GROUP, FRIEND, f"send group {GROUP + 2} 卡住")
        _, fine = await ask(sim, log, "echo 别的群照常")
        assert fine["ok"]
        outcome = await log.sent(f"send group {GROUP + 2} 卡住", since=since, timeout=API_TIMEOUT + 8)
        assert not outcome["ok"] and outcome["error"] == "NetworkError"
        assert ("group", GROUP + 2) in [(k, t) for k, t, _ in sim.hung]
    finally:
        sim.hang_group.clear()


async def test_a_dropped_session_is_recovered(side: tuple[SatoriSim, ProbeLog]) -> None:
    """The stream dropped (closing handshake or TCP reset): the bot IDENTIFYs again with the
    ``sn`` of the last event it got, and a message sent while it was away is replayed to it;
    a message delivered again reaches the bot again (the adapter does not de-duplicate)."""
    sim, log = side
    if not sim.events:  # the first test of the module on this worker: no event sent yet
        await ask(sim, log, "echo 先说一句")
    for breaks in (sim.close, sim.abort):
        last_sn = sim.events[-1]["sn"]
        since = log.mark()
        await breaks()
        await log.wait(lambda e: e["kind"] == "disconnect", since=since)
        mid = await sim.group_message(GROUP, FRIEND, "echo 断线时说的")
        await sim.connect(retry_for=10)
        assert sim.identified[-1] == {"token": TOKEN, "sn": last_sn}
        event = await log.wait(lambda e, mid=mid: e["kind"] == "event" and e["message_id"] == mid,
                               since=since)
        assert event["text"] == "echo 断线时说的"
    since = log.mark()
    mid = await sim.group_message(GROUP, FRIEND, "echo 一次")
    await sim.resend(mid)
    await log.wait(lambda e: e["kind"] == "send" and e["cmd"] == "echo 一次", since=since)
    await asyncio.sleep(0.3)
    assert [e["message_id"] for e in log.entries()[since:] if e["kind"] == "event"] == [mid, mid]


async def test_malformed_frames(side: tuple[SatoriSim, ProbeLog]) -> None:
    """A frame that is not JSON, an EVENT without ``sn`` or an unknown opcode makes the
    adapter drop the stream and IDENTIFY again; an event it cannot read is logged and
    skipped on the same stream. The bot goes on answering either way."""
    sim, log = side
    for frame in ("{not json", json.dumps({"op": 0, "body": {"type": "message-created"}}),
                  json.dumps({"op": 9, "body": {}})):
        before, since = sim.connections, log.mark()
        await sim.send_raw(frame)
        await log.wait(lambda e: e["kind"] == "connect", since=since)
        await sim.connect()
        assert sim.connections == before + 1
    before = sim.connections
    await sim.post_event({"type": "message-created", "timestamp": 1, "login": {}})
    _, outcome = await ask(sim, log, "echo 还在")
    assert outcome["ok"] and sim.connections == before
    assert any(json.loads(f)["op"] == OP_PING for f in sim.frames_in)


async def test_a_wrong_token_is_refused(tmp_path: Path) -> None:
    """IDENTIFY with the wrong token is answered by closing the stream (4004): no READY, the
    bot never connects."""
    sim = SatoriSim(self_id=SELF_ID + 1, access_token="right")
    proc, _ = probe_process(sim, tmp_path, token="right", env=probe_env(sim, "wrong"))
    async with proc:
        with pytest.raises(TimeoutError):
            await sim.connect(retry_for=2)
        assert sim.identified and sim.identified[0]["token"] == "wrong"
    await sim.stop()
    assert sim.close_codes[0] == 4004 and sim.connections == 0
