"""The fake QQ open platform (``tools/qq_open_sim.py``) against the real nonebot-adapter-qq.

A bare NoneBot process (``tests/e2e/qq_probe/``: the adapter and a probe plugin, no game)
connects to the fake over real sockets exactly as it would to Tencent: access token, ``GET
/gateway/bot``, the gateway WebSocket (and a second app by signed webhook), the v2 message
and file endpoints, ``PUT /interactions``. The probe logs what the adapter handed it and how
each of its calls ended, so each test checks both sides: what the platform recorded and
what the bot received. The reply windows are checked as the documents give them (5 replies
to a group message within 5 minutes, 5 to a C2C message within 60 minutes, no proactive C2C
push, proactive group posts only with the owner's switch, ``msg_seq`` de-duplication), the
platform's clock moved forward instead of waiting. The gateway tests cut the connection,
send a frame that is not JSON and an event the adapter cannot parse, and end the session.
A last test speaks the gateway and token protocol directly, without a bot.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nonebot.adapters.qq", reason="nonebot-adapter-qq is not installed")
pytest.importorskip("httpx", reason="the QQ adapter's HTTP client driver needs httpx")

from probe_support import ProbeLog  # noqa: E402
from websockets.asyncio.client import connect as ws_connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from tools.onebot_sim import BotProcess  # noqa: E402
from tools.qq_open_sim import (  # noqa: E402
    INTENT_GROUP_AND_C2C,
    INTENT_INTERACTION,
    PROACTIVE_DENIED,
    REPLY_EXPIRED,
    REPLY_LIMIT,
    SEQ_REPEATED,
    QQOpenSim,
    Refusal,
    Sent,
)

PROBE = Path(__file__).resolve().parent / "qq_probe"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GROUP_WINDOW = 5 * 60
"""send.md: a group message may be replied to within 5 minutes (the figure, not the fake's)."""
C2C_WINDOW = 60 * 60
"""send.md: a C2C message may be replied to within 60 minutes."""


class QQProbeLog(ProbeLog):
    """The shared probe log read for this probe's entries: ``{"kind": "event", …}`` for what
    the adapter handed it, ``{"kind": "call", "tag": …, "ok": …, "code": …}`` per call."""

    async def call(self, tag: str, since: int, timeout: float = 10.0) -> dict[str, Any]:
        """The outcome of the probe's call ``tag`` logged at index ≥ ``since``."""
        return await self.wait(lambda e: e["kind"] == "call" and e["tag"] == tag,
                               since=since, timeout=timeout)

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        """The events logged at index ≥ ``since``."""
        return [e for e in self.entries()[since:] if e["kind"] == "event"]


@dataclass
class World:
    sim: QQOpenSim
    bot: BotProcess
    probe: QQProbeLog


@pytest.fixture(scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    """The fake platform and the probe bot (one app on the gateway, one by webhook)."""
    tmp = tmp_path_factory.mktemp("qq_open_sim")
    sim = QQOpenSim()
    sim.heartbeat_interval = 1000
    hook = sim.add_app("102000002", "qqsim-secret-2", webhook=True)
    await sim.start()
    env = {**sim.bot_env(), "QQ_PROBE_LOG": str(tmp / "probe.jsonl"), "LOG_LEVEL": "DEBUG",
           "QQ_PROBE_RECONNECT_INTERVAL": "0.3"}
    bot = BotProcess(tmp / "bot.log", env=env, root=PROBE, script="bot.py")
    await bot.start()
    hook.webhook_url = f"http://127.0.0.1:{bot.port}/qq/webhook"
    try:
        await sim.wait_ready(timeout=20)
        yield World(sim, bot, QQProbeLog(tmp / "probe.jsonl"))
    finally:
        await bot.stop()
        await sim.close()
        print(bot.log_text()[-4000:])


def replies(sim: QQOpenSim, source: str) -> list[Sent]:
    return [s for s in sim.sent if s.reply_to == source]


# --------------------------------------------------------------------------------------


async def test_token_gateway_identify_and_heartbeats(world: World) -> None:
    """The adapter takes a token with its appId and secret, asks ``/gateway/bot``, identifies
    with the group / C2C and interaction intents on shard [0, 1], and heartbeats (ACKed)."""
    sim = world.sim
    token = [c for c in sim.calls if c.path == "/app/getAppAccessToken"]
    assert token and token[0].body == {"appId": sim.app.appid, "clientSecret": sim.app.secret}
    assert token[0].status == 200
    assert any(c.path == "/gateway/bot" and c.status == 200 for c in sim.calls)
    identify = [d for op, d in sim.gateway if op == "identify"]
    assert identify[0] == {"intents": INTENT_GROUP_AND_C2C | INTENT_INTERACTION, "shard": [0, 1]}
    await sim.wait_until(lambda: sim.gateway_count("heartbeat") >= 2, 5, "two heartbeats")
    beats = [d for op, d in sim.gateway if op == "heartbeat"]
    assert all(isinstance(b, int) and b >= 1 for b in beats)  # the last ``s`` seen (READY = 1)


async def test_an_expired_token_is_refused_then_renewed_by_the_adapter(world: World) -> None:
    """A call with an expired token is answered 401 / 11243; the adapter takes a new token
    and sends again, so the reply goes through once."""
    sim, probe = world.sim, world.probe
    sim.join("tokens", "甲")
    sim.groups["tokens"].recv_all = False
    tokens = len(sim.app.tokens)
    sim.expire_tokens()
    since, calls = probe.mark(), len(sim.calls)
    mid = await sim.group_message("tokens", "甲", "回 1")
    assert (await probe.call("reply1", since))["ok"]
    answered = [(c.path, c.status, c.code) for c in sim.calls[calls:]]
    post = f"/v2/groups/{sim.group_openid('tokens')}/messages"
    assert answered == [(post, 401, 11243), ("/app/getAppAccessToken", 200, None),
                        (post, 200, None)]
    assert len(sim.app.tokens) == tokens + 1
    assert [s.ok for s in replies(sim, mid)] == [True]


async def test_group_messages_reach_the_bot_with_opaque_ids(world: World) -> None:
    """An @-message comes as GROUP_AT_MESSAGE_CREATE and, where the owner let the bot read
    everything, also as GROUP_MESSAGE_CREATE with the same id; a message without @ comes only
    there, and not at all in a group limited to @-messages. The bot sees member_openids that
    differ per group and from the C2C openid; union_openid is empty unless the person has one."""
    sim, probe = world.sim, world.probe
    sim.join("all", "甲")
    sim.join("all", "乙")
    sim.add_person("乙", union_openid="UNION-YI")
    sim.add_group("mention", recv_all=False)
    sim.join("mention", "甲")
    since = probe.mark()
    at_id = await sim.group_message("all", "甲", "你好")
    plain_id = await sim.group_message("all", "乙", "闲聊", at_bot=False)
    quiet_id = await sim.group_message("mention", "甲", "没人@", at_bot=False)
    mention_id = await sim.group_message("mention", "甲", "有人@")
    await probe.wait(lambda e: len(probe.events(since)) >= 4, since=since)
    await asyncio.sleep(0.3)  # and nothing more comes
    seen = [(e["type"], e["id"], e["to_me"]) for e in probe.events(since)]
    assert sorted(seen) == sorted([
        ("GROUP_AT_MESSAGE_CREATE", at_id, True), ("GROUP_MESSAGE_CREATE", at_id, True),
        ("GROUP_MESSAGE_CREATE", plain_id, False), ("GROUP_AT_MESSAGE_CREATE", mention_id, True),
    ])
    assert sim.messages[quiet_id]["delivered"] == []
    by_id = {e["id"]: e for e in probe.events(since)}
    jia_all, jia_mention = by_id[at_id]["user"], by_id[mention_id]["user"]
    assert jia_all == sim.member_openid("all", "甲") and jia_mention != jia_all
    assert sim.user_openid("甲") not in (jia_all, jia_mention)
    assert {sim.person_of(jia_all), sim.person_of(jia_mention)} == {"甲"}
    assert by_id[at_id]["author"]["union_openid"] == ""
    assert by_id[plain_id]["author"]["union_openid"] == "UNION-YI"
    assert by_id[plain_id]["author"]["username"] == "乙"
    assert by_id[at_id]["text"] == "你好"


async def test_group_window_five_replies_then_22009_and_closed_after_five_minutes(
        world: World) -> None:
    """Five replies to a group message go through with msg_seq 1–5; the sixth is refused
    with 22009 (the adapter raises ActionFailed); a reply after five minutes gets 304027."""
    sim, probe = world.sim, world.probe
    sim.add_group("window", recv_all=False)
    for who in ("甲", "乙"):
        sim.join("window", who)
    since = probe.mark()
    mid = await sim.group_message("window", "甲", "回 6")
    sixth = await probe.call("reply6", since)
    assert [(await probe.call(f"reply{i}", since))["ok"] for i in range(1, 6)] == [True] * 5
    assert sixth == {**sixth, "ok": False, "error": "ActionFailed", "status": 400,
                     "code": REPLY_LIMIT.code, "message": REPLY_LIMIT.message}
    sent = replies(sim, mid)
    assert [(s.ok, s.msg_seq) for s in sent] == [(True, i) for i in range(1, 6)] + [(False, 6)]
    assert [s.text for s in sim.seen(group="window")] == [f"回复 {i}" for i in range(1, 6)]
    window = sim.window(mid)
    assert window is not None and window.remaining == 0 and window.kind == "group"
    assert window.expires_at - window.opened_at == GROUP_WINDOW

    since = probe.mark()
    kept = await sim.group_message("window", "乙", "记")
    assert (await probe.call("keep", since))["ok"]
    sim.clock.advance(GROUP_WINDOW + 1)
    await sim.group_message("window", "乙", "旧")
    old = await probe.call("old", since)
    assert (old["ok"], old["code"]) == (False, REPLY_EXPIRED.code)
    assert [s.ok for s in replies(sim, kept)] == [True, False]
    assert sim.window(kept).remaining == 4  # a refused reply costs nothing


async def test_c2c_window_sixty_minutes_msg_seq_and_no_proactive_push(world: World) -> None:
    """C2C: five replies per message, the sixth refused with 22009; the window state shows
    replies left and seconds to expiry; a repeated msg_seq is refused; a push without a
    message is refused (40034102); after 60 minutes a reply to the old message is refused."""
    sim, probe = world.sim, world.probe
    since = probe.mark()
    await sim.c2c_message("丙", "回 6")
    assert (await probe.call("reply6", since))["code"] == REPLY_LIMIT.code
    assert [e["ok"] for e in probe.entries()[since:] if e["kind"] == "call"] == [True] * 5 + [False]
    assert sim.c2c_state("丙")["open"] == 0  # that message's replies are spent

    since = probe.mark()
    kept = await sim.c2c_message("丙", "记")
    await probe.call("keep", since)
    state = sim.c2c_state("丙")
    assert (state["open"], state["newest_remaining"]) == (1, 4)
    assert C2C_WINDOW - 5 < state["expires_in"] <= C2C_WINDOW

    since = probe.mark()
    await sim.c2c_message("丙", "重")
    first, again = await probe.call("seq1", since), await probe.call("seq1-again", since)
    assert first["ok"] and (again["ok"], again["code"]) == (False, SEQ_REPEATED.code)

    since = probe.mark()
    await sim.c2c_message("丙", "主动")
    push = await probe.call("proactive", since)
    assert (push["ok"], push["code"], push["error"]) == (False, PROACTIVE_DENIED.code,
                                                          "ActionFailed")
    refused = sim.sent[-1]
    assert refused.proactive and not refused.ok and refused.target == "丙"

    sim.clock.advance(C2C_WINDOW + 1)
    assert sim.c2c_state("丙") == {"open": 0, "remaining": 0, "newest_remaining": 0,
                                   "expires_in": None}
    since = probe.mark()
    await sim.c2c_message("丙", "旧")
    old = await probe.call("old", since)
    assert (old["ok"], old["code"]) == (False, REPLY_EXPIRED.code)
    assert [s.ok for s in replies(sim, kept)] == [True, False]
    assert sim.c2c_state("丙")["open"] == 1  # "旧" itself opened a window


async def test_proactive_group_posts_follow_the_owner_switch(world: World) -> None:
    """Without the owner's switch a group post with no message to reply to is refused
    (40034102); with it the post goes through. The bot can read the switch (bot_state)."""
    sim, probe = world.sim, world.probe
    group = sim.add_group("switch", recv_all=False)
    sim.join("switch", "甲")
    since = probe.mark()
    await sim.group_message("switch", "甲", "状态")
    await sim.group_message("switch", "甲", "主动")
    state = await probe.wait(lambda e: e["kind"] == "state", since=since)
    assert state["allow_proactive_msg"] is False and state["recv_msg_setting"] == "only_mention"
    assert (await probe.call("proactive", since))["code"] == PROACTIVE_DENIED.code

    group.allow_proactive = True
    since = probe.mark()
    await sim.group_message("switch", "甲", "状态")
    await sim.group_message("switch", "甲", "主动")
    assert (await probe.wait(lambda e: e["kind"] == "state", since=since))["allow_proactive_msg"]
    assert (await probe.call("proactive", since))["ok"]
    posted = sim.seen(group="switch")[-1]
    assert posted.proactive and posted.text == "主动的群消息"


async def test_markdown_keyboard_and_a_button_only_one_player_may_press(world: World) -> None:
    """Markdown and a keyboard are recorded as sent. A callback button limited to one
    member: another member's press is refused by the client and never reaches the bot; the
    member's press is an INTERACTION_CREATE carrying the button's data, acknowledged with
    ``PUT /interactions`` and answered by event_id. A command button with ``enter`` sends its
    text as the presser's @-message. The same in C2C."""
    sim, probe = world.sim, world.probe
    sim.add_group("buttons", recv_all=False)
    for who in ("甲", "乙"):
        sim.join("buttons", who)
    jia = sim.member_openid("buttons", "甲")
    since, mark = probe.mark(), sim.mark()
    await sim.group_message("buttons", "甲", f"按钮 {jia}")
    assert (await probe.call("buttons", since))["ok"]
    card = await sim.wait_for(lambda s: s.ok and s.msg_type == 2, since=mark)
    assert card.markdown == {"content": "**轮到你**：出牌或过"}
    play, pass_ = card.buttons()
    assert (play.id, play.type, play.data, play.permission, play.specify_user_ids) == (
        "play", 1, "出 3", 0, [jia])
    assert (pass_.type, pass_.enter, pass_.permission) == (2, True, 2)

    refused = await sim.press("乙", card, "play")
    assert not refused.ok and refused.reason == "no permission" and not sim.interactions
    pressed = await sim.press("甲", card, "出 3")
    assert pressed.ok and pressed.interaction is not None
    got = await probe.wait(lambda e: e.get("type") == "INTERACTION_CREATE", since=since)
    assert (got["button_data"], got["button_id"], got["user"], got["scene"]) == (
        "出 3", "play", jia, "group")
    assert (await probe.call("ack", since))["ok"]
    assert (await probe.call("interaction-reply", since))["ok"]
    assert pressed.interaction.acks == [0]
    answer = replies(sim, pressed.interaction.event_id)
    assert [(s.ok, s.text, s.target) for s in answer] == [(True, "收到 出 3", "buttons")]
    assert len([e for e in probe.events(since) if e["type"] == "INTERACTION_CREATE"]) == 1

    typed = await sim.press("乙", card, "pass")
    assert typed.ok and typed.reason == "sent"
    said = await probe.wait(lambda e: e.get("id") == typed.message_id, since=since)
    assert (said["text"], said["user"]) == ("过", sim.member_openid("buttons", "乙"))

    since, mark = probe.mark(), sim.mark()
    await sim.c2c_message("丁", "按钮")
    c2c_card = await sim.wait_for(lambda s: s.ok and s.keyboard is not None, since=mark)
    assert c2c_card.buttons()[0].specify_user_ids == [sim.user_openid("丁")]
    c2c_press = await sim.press("丁", c2c_card, "play")
    assert c2c_press.ok
    got = await probe.wait(lambda e: e.get("type") == "INTERACTION_CREATE", since=since)
    assert (got["scene"], got["user"]) == ("c2c", sim.user_openid("丁"))
    await probe.call("interaction-reply", since)
    assert [s.target for s in replies(sim, c2c_press.interaction.event_id)] == ["丁"]


async def test_images_are_uploaded_then_sent_as_media(world: World) -> None:
    """An image from bytes is uploaded to the group's ``/files`` (file_type 1, file_data,
    srv_send_msg false) and its file_info sent with msg_type 7; one from a URL likewise in C2C."""
    sim, probe = world.sim, world.probe
    sim.add_group("pictures", recv_all=False)
    sim.join("pictures", "甲")
    since, mark = probe.mark(), sim.mark()
    mid = await sim.group_message("pictures", "甲", "图")
    assert (await probe.call("image", since))["ok"]
    uploads = [c for c in sim.calls if c.path.endswith("/files")]
    assert uploads[-1].body["file_type"] == 1 and uploads[-1].body["srv_send_msg"] is False
    picture = await sim.wait_for(lambda s: s.msg_type == 7, since=mark)
    assert picture.ok and picture.reply_to == mid and picture.media is not None
    assert picture.media.kind == "group" and picture.media.data.startswith(PNG_MAGIC)

    since, mark = probe.mark(), sim.mark()
    await sim.c2c_message("丁", "图链 https://example.com/a.png")
    assert (await probe.call("image-url", since))["ok"]
    linked = await sim.wait_for(lambda s: s.msg_type == 7, since=mark)
    assert (linked.kind, linked.media.url, linked.media.kind) == (
        "c2c", "https://example.com/a.png", "c2c")


async def test_friend_add_and_group_add_robot_are_answered_by_event_id(world: World) -> None:
    """FRIEND_ADD and GROUP_ADD_ROBOT reach the bot; a reply with their event_id is passive
    (it opens no proactive path)."""
    sim, probe = world.sim, world.probe
    since = probe.mark()
    friend = await sim.add_friend("戊")
    added = await sim.add_bot_to_group("new", by="戊")
    await sim.wait_until(lambda: bool(replies(sim, friend)) and bool(replies(sim, added)), 10,
                         "both greetings")
    assert [(s.ok, s.kind, s.target) for s in replies(sim, friend)] == [(True, "c2c", "戊")]
    assert [(s.ok, s.kind, s.target) for s in replies(sim, added)] == [(True, "group", "new")]
    users = {e["type"]: e["user"] for e in probe.events(since)}
    assert users == {"FRIEND_ADD": sim.user_openid("戊"),
                     "GROUP_ADD_ROBOT": sim.member_openid("new", "戊")}


async def test_webhook_app_verified_and_served(world: World) -> None:
    """A second app receives events by signed webhook: the callback validation (op 13)
    passes, a C2C message reaches the bot and its reply goes back through the API."""
    sim, probe = world.sim, world.probe
    hook = sim.apps["102000002"]
    assert await sim.verify_webhook(hook)
    since = probe.mark()
    mid = await sim.c2c_message("己", "回 1", app=hook)
    assert (await probe.call("reply1", since))["ok"]
    reply = replies(sim, mid)
    assert [(s.ok, s.appid, s.target) for s in reply] == [(True, hook.appid, "己")]
    got = await probe.wait(lambda e: e.get("id") == mid, since=since)
    assert got["user"] == sim.user_openid("己", hook) != sim.user_openid("己")


async def test_gateway_drop_resume_malformed_frames_and_a_new_session(world: World) -> None:
    """A dropped connection is resumed (same session, nothing lost, nothing doubled); a frame
    that is not JSON makes the adapter reconnect and resume; an event it cannot parse is
    skipped without a reconnect; an invalidated session is replaced by a new IDENTIFY and
    what was sent meanwhile is lost."""
    sim, probe = world.sim, world.probe
    sim.add_group("gateway", recv_all=False)
    sim.join("gateway", "甲")
    identifies, resumes = sim.gateway_count("identify"), sim.gateway_count("resume")

    await sim.drop_connection()
    since = probe.mark()
    missed = await sim.group_message("gateway", "甲", "回 1")  # sent while disconnected
    assert not sim.connected()
    await sim.wait_ready()
    assert (await probe.call("reply1", since))["ok"]
    assert sim.gateway_count("resume") == resumes + 1
    assert sim.gateway_count("identify") == identifies
    assert [e["id"] for e in probe.events(since)] == [missed]
    assert ("replay", next(p["s"] for _, p in sim.dispatched if p["d"].get("id") == missed)
            ) in sim.gateway

    await sim.send_raw("这不是 JSON")
    await sim.wait_until(lambda: sim.gateway_count("resume") == resumes + 2, 15, "resume")
    await sim.wait_ready()
    since = probe.mark()
    await sim.dispatch_raw("GROUP_AT_MESSAGE_CREATE", {"id": "broken", "content": "x"})
    after = await sim.group_message("gateway", "甲", "回 1")
    assert (await probe.call("reply1", since))["ok"]
    assert [e["id"] for e in probe.events(since)] == [after]
    assert "Failed to parse event" in world.bot.log_text()
    assert sim.gateway_count("resume") == resumes + 2 and sim.connected()

    await sim.invalidate_session()
    lost = await sim.group_message("gateway", "甲", "回 1")
    await sim.wait_until(lambda: sim.gateway_count("identify") == identifies + 1, 15,
                         "new identify")
    await sim.wait_ready()
    since = probe.mark()
    fresh = await sim.group_message("gateway", "甲", "回 1")
    assert (await probe.call("reply1", since))["ok"]
    assert [p["d"]["id"] for _, p in sim.lost if p["t"].startswith("GROUP")] == [lost]
    assert [e["id"] for e in probe.events(since)] == [fresh]
    handled = [e.get("id") for e in probe.events()]
    assert [handled.count(m) for m in (missed, after, lost, fresh)] == [1, 1, 0, 1]


# --------------------------------------------------------------------------------------
# The protocol without a bot
# --------------------------------------------------------------------------------------


async def recv(ws: Any) -> Any:
    """The next frame, or TimeoutError: a protocol test never hangs on a missing frame."""
    return await asyncio.wait_for(ws.recv(), 5)


def _http(url: str, body: dict | None = None, headers: dict | None = None,
          method: str | None = None, timeout: float = 5) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read().decode() or "null")


async def test_token_and_gateway_protocol_without_a_bot() -> None:
    """Tokens: one token until its last minute, then a new one while the old still works;
    a call without a token is 401 / 11241. Gateway: HELLO; IDENTIFY with a bad token → op 9;
    intents the app was not granted → close 4014; READY, heartbeat ACK; RESUME of an unknown
    session → op 9, with a seq from the future → close 4007; RESUME replays what was missed."""
    async with QQOpenSim() as sim:
        app = sim.app
        app.intents_allowed = INTENT_GROUP_AND_C2C
        creds = {"appId": app.appid, "clientSecret": app.secret}
        status, first = await asyncio.to_thread(_http, sim.auth_url, creds)
        assert status == 200 and first["expires_in"] == "7200"
        _, same = await asyncio.to_thread(_http, sim.auth_url, creds)
        assert same["access_token"] == first["access_token"]
        sim.clock.advance(7200 - 30)
        _, renewed = await asyncio.to_thread(_http, sim.auth_url, creds)
        assert renewed["access_token"] != first["access_token"]
        status, body = await asyncio.to_thread(_http, sim.api_base + "gateway/bot")
        assert (status, body["code"]) == (401, 11241)
        auth = {"Authorization": f"QQBot {first['access_token']}", "X-Union-Appid": app.appid}
        status, body = await asyncio.to_thread(_http, sim.api_base + "gateway/bot", None, auth)
        assert status == 200 and body["url"] == sim.gateway_url

        async def hello(ws: Any) -> None:
            assert json.loads(await recv(ws)) == {"op": 10, "d": {"heartbeat_interval": 41250}}

        async def answer(frame: dict) -> Any:
            """Connect, take HELLO, send ``frame``: the next frame, or the close code."""
            async with ws_connect(sim.gateway_url) as ws:
                await hello(ws)
                await ws.send(json.dumps(frame))
                try:
                    return json.loads(await recv(ws))
                except ConnectionClosed:
                    return ws.close_code

        token = f"QQBot {renewed['access_token']}"
        identify = {"op": 2, "d": {"token": token, "intents": INTENT_GROUP_AND_C2C,
                                   "shard": [0, 1], "properties": {}}}
        assert (await answer({"op": 2, "d": {**identify["d"], "token": "QQBot x"}}))["op"] == 9
        assert await answer({"op": 2, "d": {**identify["d"], "intents": INTENT_INTERACTION}}
                            ) == 4014
        async with ws_connect(sim.gateway_url) as ws:
            await hello(ws)
            await ws.send(json.dumps(identify))
            ready = json.loads(await recv(ws))
            assert (ready["op"], ready["s"], ready["t"]) == (0, 1, "READY")
            assert ready["d"]["user"] == {"id": app.bot_id, "username": "牌桌", "bot": True}
            session_id = ready["d"]["session_id"]
            await ws.send(json.dumps({"op": 1, "d": 1}))
            assert json.loads(await recv(ws)) == {"op": 11}
        mid = await sim.c2c_message("甲", "在吗")  # while no connection: kept for a resume
        resume = {"op": 6, "d": {"token": token, "session_id": session_id, "seq": 1}}
        assert (await answer({"op": 6, "d": {**resume["d"], "session_id": "nope"}}))["op"] == 9
        assert await answer({"op": 6, "d": {**resume["d"], "seq": 99}}) == 4007
        async with ws_connect(sim.gateway_url) as ws:
            await hello(ws)
            await ws.send(json.dumps(resume))
            missed, resumed = json.loads(await recv(ws)), json.loads(await recv(ws))
            assert (missed["s"], missed["t"], missed["d"]["id"]) == (2, "C2C_MESSAGE_CREATE", mid)
            assert missed["d"]["author"]["user_openid"] == sim.user_openid("甲")
            assert (resumed["s"], resumed["t"], resumed["d"]) == (3, "RESUMED", "")
            await sim.request_reconnect()
            assert json.loads(await recv(ws)) == {"op": 7}
            await ws.send("不是 JSON")
            with pytest.raises(ConnectionClosed):
                await recv(ws)
            assert ws.close_code == 4002


async def _identified(sim: QQOpenSim) -> tuple[Any, dict[str, str]]:
    """A raw gateway connection identified for ``sim.app`` and the API headers."""
    creds = {"appId": sim.app.appid, "clientSecret": sim.app.secret}
    _, token = await asyncio.to_thread(_http, sim.auth_url, creds)
    ws = await ws_connect(sim.gateway_url)
    await recv(ws)
    await ws.send(json.dumps({"op": 2, "d": {"token": f"QQBot {token['access_token']}",
                                             "intents": INTENT_GROUP_AND_C2C | INTENT_INTERACTION,
                                             "shard": [0, 1], "properties": {}}}))
    await recv(ws)
    return ws, {"Authorization": f"QQBot {token['access_token']}", "X-Union-Appid": sim.app.appid}


async def test_rest_refusals_without_a_bot() -> None:
    """What the message and file endpoints refuse, with the documented codes: an empty text
    (50006), a URL not on the allowlist (304003), buttons not permitted (304037) or malformed
    (304039), a group file_info in C2C (304083), a C2C message id in a group or a message's
    event id as ``event_id`` (304026), an upload sent at once in C2C (a push: 40034102); the
    faults a test injects: a refusal of its choosing, a call never answered."""
    async with QQOpenSim() as sim:
        sim.join("g", "甲")
        ws, auth = await _identified(sim)
        try:
            mid = await sim.c2c_message("甲", "hi")
            gmid = await sim.group_message("g", "甲", "hi")
            event_id = next(p["id"] for _, p in sim.dispatched if p["d"].get("id") == mid)
            c2c = sim.api_base + f"v2/users/{sim.user_openid('甲')}/"
            group = sim.api_base + f"v2/groups/{sim.group_openid('g')}/"

            async def post(url: str, body: dict) -> tuple[int, Any]:
                return await asyncio.to_thread(_http, url, body, auth)

            def code(answer: tuple[int, Any]) -> int | None:
                return None if answer[0] == 200 else answer[1]["code"]

            reply = {"msg_type": 0, "msg_id": mid}
            assert code(await post(c2c + "messages", {**reply, "content": " "})) == 50006
            assert code(await post(c2c + "messages", {**reply, "msg_seq": 2,
                                                      "content": "看 https://evil.example/x"})) == 304003
            sim.app.url_allowlist.add("example.com")
            assert code(await post(c2c + "messages", {**reply, "msg_seq": 3,
                                                      "content": "看 https://docs.example.com"})) is None
            row = {"buttons": [{"render_data": {"label": "过"},
                                "action": {"type": 2, "data": "过", "permission": {"type": 2}}}]}
            cards = {**reply, "msg_type": 2, "markdown": {"content": "**牌**"}}
            assert code(await post(c2c + "messages", {**cards, "msg_seq": 4, "keyboard": {
                "content": {"rows": [row] * 6}}})) == 304039
            sim.app.keyboard = False
            assert code(await post(c2c + "messages", {**cards, "msg_seq": 4, "keyboard": {
                "content": {"rows": [row]}}})) == 304037
            status, upload = await post(group + "files", {"file_type": 1, "srv_send_msg": False,
                                                          "url": "https://example.com/a.png"})
            assert status == 200 and upload["ttl"] == sim.upload_ttl
            assert code(await post(c2c + "messages", {**reply, "msg_type": 7, "msg_seq": 4, "media": {
                "file_info": upload["file_info"]}})) == 304083
            assert code(await post(group + "messages", {**reply, "content": "x"})) == 304026
            assert code(await post(c2c + "messages", {"msg_type": 0, "content": "x",
                                                      "event_id": event_id})) == 304026
            assert code(await post(c2c + "files", {"file_type": 1, "srv_send_msg": True,
                                                   "url": "https://example.com/a.png"})) == 40034102
            assert [s.ok for s in sim.sent if s.kind == "c2c"][-1] is False

            sim.refuse_group["g"] = Refusal(40054002, "机器人被禁言", documented=False)
            gre = {"msg_type": 0, "msg_id": gmid, "content": "好"}
            assert code(await post(group + "messages", gre)) == 40054002
            del sim.refuse_group["g"]
            assert code(await post(group + "messages", gre)) is None
            assert [s.text for s in sim.seen(group="g")] == ["好"]
            assert sim.window(gmid).remaining == 4 and sim.window(mid).remaining == 4

            sim.hang_c2c.add("甲")
            with pytest.raises(OSError):
                await asyncio.to_thread(_http, c2c + "messages", {**reply, "msg_seq": 9,
                                                                  "content": "x"}, auth, None, 1)
            assert [(k, t) for k, t, _ in sim.hung] == [("c2c", "甲")]
            status, body = await asyncio.to_thread(_http, sim.api_base + "v2/nothing", None, auth)
            assert (status, body["code"]) == (404, 404)
        finally:
            await ws.close()
