"""Smoke tests for the OneBot v11 simulator (``tools/onebot_sim.py``).

The first half tests the simulator alone (CQ parsing, event shapes, API answers); the
second half starts the real ``bot.py`` and talks to it over a real reverse WebSocket.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:  # ``tools`` is not an installed package
    sys.path.insert(0, str(_ROOT))

from tools.onebot_sim import (  # noqa: E402
    BotProcess,
    ConnectionRejected,
    Member,
    OneBotSim,
    Sent,
    normalize_message,
    parse_cq,
    render_text,
    seg_at,
    seg_reply,
    seg_text,
    to_cq,
)

TOKEN = "sim-smoke-token"
SELF_ID = 10001

# --------------------------------------------------------------------------------------
# Without the bot
# --------------------------------------------------------------------------------------


def test_parse_cq_text_at_and_escapes() -> None:
    """CQ codes become segments; text and parameter values are unescaped."""
    segs = parse_cq("你好[CQ:at,qq=123] a&#91;b&#93;&#44;c&amp;d[CQ:image,file=x&#44;y.png,]")
    assert segs == [
        {"type": "text", "data": {"text": "你好"}},
        {"type": "at", "data": {"qq": "123"}},
        {"type": "text", "data": {"text": " a[b],c&d"}},
        {"type": "image", "data": {"file": "x,y.png"}},
    ]
    assert parse_cq("") == []
    assert parse_cq("[CQ:face]") == [{"type": "face", "data": {}}]
    assert parse_cq("plain [not cq]") == [{"type": "text", "data": {"text": "plain [not cq]"}}]


def test_to_cq_round_trips() -> None:
    """``to_cq`` escapes so that ``parse_cq`` gives the same segments back."""
    segs = [seg_text("a[1],&"), seg_at(5), seg_reply(9), seg_text("尾")]
    raw = to_cq(segs)
    assert raw == "a&#91;1&#93;,&amp;[CQ:at,qq=5][CQ:reply,id=9]尾"
    assert parse_cq(raw) == segs


def test_normalize_and_render() -> None:
    """All accepted message shapes normalize; @ renders as the nickname."""
    assert normalize_message({"type": "text", "data": {"text": "x"}}) == [seg_text("x")]
    assert normalize_message("[CQ:at,qq=7]hi") == [seg_at(7), seg_text("hi")]
    assert normalize_message("[CQ:at,qq=7]", cq=False) == [seg_text("[CQ:at,qq=7]")]
    assert normalize_message(None) == []
    text, at = render_text([seg_at(7), seg_text(" 出牌"), seg_at("all")], {7: "小明"}.get)
    assert (text, at) == ("@小明 出牌@全体成员", [7])


def test_group_event_shape() -> None:
    """A built group event has every field NapCat sends (and nonebot needs)."""
    sim = OneBotSim(self_id=SELF_ID)
    sim.add_member(100, 1, "甲", card="阿甲", role="admin")
    event = sim.build_group_message(100, 1, "/开局 [x]")
    assert event["post_type"] == "message"
    assert event["message_type"] == "group"
    assert event["sub_type"] == "normal"
    assert event["self_id"] == SELF_ID
    assert (event["group_id"], event["user_id"]) == (100, 1)
    assert event["message"] == [seg_text("/开局 [x]")]
    assert event["raw_message"] == "/开局 &#91;x&#93;"
    assert event["message_format"] == "array"
    assert event["font"] == 14
    assert event["message_id"] == event["real_id"] == 1
    assert event["sender"] == {
        "user_id": 1,
        "nickname": "甲",
        "card": "阿甲",
        "role": "admin",
        "sex": "unknown",
        "age": 0,
    }
    assert isinstance(event["time"], int)

    private = sim.build_private_message(1, [seg_text("hi")])
    assert private["message_type"] == "private"
    assert private["sub_type"] == "friend"
    assert private["message_id"] == 2
    assert "group_id" not in private
    assert "role" not in private["sender"]
    assert private["sender"]["nickname"] == "甲"


async def test_api_answers_without_socket() -> None:
    """Send actions are recorded as ``Sent``; failures and unknown actions answer NapCat-style."""
    sim = OneBotSim(self_id=SELF_ID, nickname="牌桌")
    sim.add_member(100, 1, "甲")
    sim.add_friend(2, "乙")
    sim.fail_private.add(3)

    resp = await sim.handle_action(
        "send_msg", {"message_type": "group", "group_id": 100, "message": "[CQ:at,qq=1] 轮到你"}
    )
    assert resp["status"] == "ok" and resp["retcode"] == 0
    assert resp["data"] == {"message_id": 1}
    assert set(resp) >= {"status", "retcode", "data", "message", "wording"}
    sent = sim.sent[-1]
    assert (sent.kind, sent.target, sent.text, sent.at, sent.ok) == (
        "group",
        100,
        "@甲 轮到你",
        [1],
        True,
    )

    resp = await sim.handle_action(
        "send_private_msg", {"user_id": 2, "message": [seg_text("手牌")], "auto_escape": False}
    )
    assert resp["data"] == {"message_id": 2}

    resp = await sim.handle_action("send_private_msg", {"user_id": 3, "message": "x"})
    assert resp["status"] == "failed" and resp["retcode"] == 1200 and resp["data"] is None
    assert sim.sent[-1].ok is False and sim.sent[-1].message_id is None

    resp = await sim.handle_action("no_such_action", {})
    assert (resp["status"], resp["retcode"]) == ("failed", 1404)

    login = await sim.handle_action("get_login_info", {})
    assert login["data"] == {"user_id": SELF_ID, "nickname": "牌桌"}
    friends = await sim.handle_action("get_friend_list", {})
    assert friends["data"] == [{"user_id": 2, "nickname": "乙", "remark": ""}]
    member = await sim.handle_action("get_group_member_info", {"group_id": 100, "user_id": 1})
    assert member["data"]["nickname"] == "甲" and member["data"]["role"] == "member"
    missing = await sim.handle_action("get_group_member_info", {"group_id": 100, "user_id": 9})
    assert missing["status"] == "failed"
    assert (await sim.handle_action("delete_msg", {"message_id": 1}))["status"] == "ok"
    assert sim.deleted == [1]
    assert [c.action for c in sim.calls][:3] == ["send_msg", "send_private_msg", "send_private_msg"]

    found = await sim.wait_for(lambda s: s.kind == "private" and s.ok, timeout=1)
    assert found.text == "手牌"
    with pytest.raises(TimeoutError, match="手牌"):
        await sim.wait_for(lambda s: False, timeout=0.05)


async def test_wait_for_wakes_on_new_message() -> None:
    """``wait_for`` blocks until a matching message is recorded after ``since``."""
    sim = OneBotSim(self_id=SELF_ID)
    sim.add_group(100, members=[Member(1, "甲")])
    await sim.handle_action("send_group_msg", {"group_id": 100, "message": "old"})
    since = sim.mark()
    waiter = asyncio.create_task(sim.wait_for(lambda s: "ol" in s.text, timeout=2, since=since))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    await sim.handle_action("send_group_msg", {"group_id": 100, "message": "older"})
    result: Sent = await waiter
    assert result.text == "older"


# --------------------------------------------------------------------------------------
# Against the real bot
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BotProcess]:
    """The real bot, started once for this module."""
    tmp = tmp_path_factory.mktemp("sim_smoke")
    proc = BotProcess(
        tmp / "bot.log",
        access_token=TOKEN,
        superusers=[1],
        database_url=f"sqlite+aiosqlite:///{tmp}/bot.db",
        log_level="DEBUG",
    )
    async with proc:
        yield proc
    print(proc.log_text()[-3000:])


async def test_connection_accepted_and_events_processed(bot: BotProcess) -> None:
    """The bot accepts the handshake, parses our events and calls APIs back (get_msg)."""
    sim = OneBotSim(self_id=SELF_ID)
    sim.add_member(100, 1, "甲")
    await sim.connect(bot.url, TOKEN)
    try:
        assert sim.connected
        first = await sim.group_message(100, 1, "hello")
        await sim.private_message(1, "hi")
        # A message quoting another makes the adapter call get_msg before any matcher
        # runs: proof that our event was parsed and that API answers reach the bot.
        await sim.group_message(100, 1, [seg_reply(first), seg_text("/帮助")])
        call = await sim.wait_for_call("get_msg", timeout=10)
        assert call.params["message_id"] == first
        assert call.status == "ok"
        await asyncio.sleep(0.3)
        assert sim.connected, f"bot closed the socket (code {sim.close_code})"
        assert f"Bot {SELF_ID}" in bot.log_text()
    finally:
        await sim.close()


async def test_wrong_or_missing_token_rejected(bot: BotProcess) -> None:
    """A bad or missing access token fails the handshake (HTTP 403, no retry)."""
    for token in ("wrong-token", None):
        sim = OneBotSim(self_id=SELF_ID + 1)
        with pytest.raises(ConnectionRejected) as info:
            await sim.connect(bot.url, token, retry_for=1)
        assert info.value.status == 403
        assert not sim.connected


async def test_duplicate_self_id_rejected(bot: BotProcess) -> None:
    """While one connection for a self_id is live, a second one is refused."""
    first = OneBotSim(self_id=SELF_ID + 2)
    await first.connect(bot.url, TOKEN)
    try:
        second = OneBotSim(self_id=SELF_ID + 2)
        with pytest.raises(ConnectionRejected):
            await second.connect(bot.url, TOKEN, retry_for=1)
        assert first.connected
    finally:
        await first.close()


async def test_port_taken_before_the_bot_binds_it(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program starts listening on the free port chosen for the bot before the bot
    binds it (two test runs on one machine can pick the same port): the bot is started on
    another port, and the simulator reaches this bot, not the other program."""
    from tools import onebot_sim

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        ports = iter([taken])
        free = onebot_sim.find_free_port
        monkeypatch.setattr(onebot_sim, "find_free_port",
                            lambda host="127.0.0.1": next(ports, None) or free(host))
        proc = BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                          database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db")
        assert proc.port == taken
        async with proc:
            assert proc.port != taken
            sim = OneBotSim(self_id=SELF_ID + 3)
            await sim.connect(proc.url, TOKEN)
            try:
                assert sim.connected
            finally:
                await sim.close()
        assert f"端口 {taken} 已被占用" in proc.log_text()


async def test_kill_drops_connection_and_restart(tmp_path: Path) -> None:
    """SIGKILL closes the socket; the same BotProcess restarts on the same URL."""
    proc = BotProcess(
        tmp_path / "bot.log",
        access_token=TOKEN,
        database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db",
    )
    await proc.start()
    try:
        sim = OneBotSim(self_id=SELF_ID)
        await sim.connect(proc.url, TOKEN)
        proc.kill()
        assert not proc.running
        await sim.wait_closed(timeout=10)
        assert not sim.connected
        await proc.start()
        await sim.connect(proc.url, TOKEN)
        assert sim.connected
        await sim.close()
    finally:
        code = await proc.stop()
    assert code is not None


def test_a_simulated_player_spends_no_refusal_twice() -> None:
    """A four of a kind the bot refused against a single (抓特务 has no bombs) is not tried
    again, and no command is tried twice for one prompt: a refusal limit
    (``PAIZHUO_REFUSAL_LIMIT``) must not silence a simulated player into waiting forever."""
    from tools.players import RANKS, SimPlayer

    player = SimPlayer(1, "乙", hand=sorted([RANKS.index("6")] * 4 + [RANKS.index("9")] * 4
                                             + [RANKS.index("4")]))
    prompt = "乙 轮到你，要大过 甲 的 ♠K（单张）"
    first = player.candidates(prompt)
    assert first[:3] == ["出 6666", "出 9999", "过"] and len(first) == len(set(first))
    player.refused("出 6666", prompt)
    assert player.candidates(prompt)[0] == "过"
    assert "出 9999" not in player.candidates("乙 轮到你，要大过 甲 的 ♠5（单张）")
    assert player.candidates("乙 轮到你，要大过 甲 的 ♠3♥3♣3♦3（四张）")[0] == "出 6666"
