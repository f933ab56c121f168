"""End to end: the game bot beside another bot on one QQ account. NapCat connects one
account to several reverse WebSocket servers at once and sends every event to each; here
one simulated account is connected to the real game bot (``bot.py``) and to a plain
NoneBot bot with its own ``/帮助`` and ``/hello`` (``host_bot/``), every event goes to both
connections, and ``PAIZHUO_BARE_COMMANDS=all,-帮助,-help`` (as docs/deployment.md says)
leaves the bare ``/帮助`` to the other bot. Each command is answered by exactly one of
them, the expected one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.onebot_sim import BotProcess, OneBotSim, Sent
from tools.players import SimPlayer, attach

GROUP = 71001
TOKEN = "beside"
A, B, C = 7101, 7102, 7103
HOST_BOT = Path(__file__).resolve().parent / "host_bot"
HOST_HELP = "另一个机器人的帮助：/hello 打招呼"
HOST_HELLO = "你好，我是另一个机器人"


class MirroredSim(OneBotSim):
    """One QQ account's connection to the game bot whose every event (meta events
    excepted) also goes, unchanged (same ``message_id``), to the ``mirrors``: the
    account's other connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mirrors: list[OneBotSim] = []

    def mirror_to(self, other: OneBotSim) -> None:
        """Send every later event to ``other`` too; it sees the same world (groups,
        friends, nicknames) as this connection."""
        other.groups, other.group_names = self.groups, self.group_names
        other.friends, other.nicknames = self.friends, self.nicknames
        self.mirrors.append(other)

    async def post_event(self, event: dict[str, Any]) -> None:
        await super().post_event(event)
        if event.get("post_type") == "meta_event":
            return  # each connection has its own lifecycle and heartbeat
        for other in self.mirrors:
            await other.post_event(event)


def group_posts(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if s.kind == "group" and s.target == GROUP]


async def exchange(ours: MirroredSim, host: OneBotSim, user: int, text: str, *,
                   answered_by: OneBotSim) -> tuple[list[Sent], list[Sent]]:
    """Post ``text`` from ``user`` to both bots, wait for ``answered_by``'s group answer,
    then until both have been quiet for a while; each bot's group posts since."""
    marks = ours.mark(), host.mark()
    await ours.group_message(GROUP, user, text)
    since = marks[0] if answered_by is ours else marks[1]
    await answered_by.wait_for(lambda s: s.kind == "group" and s.target == GROUP, since=since,
                               timeout=20)
    await ours.wait_idle(quiet=0.5, timeout=20)
    await host.wait_idle(quiet=0.5, timeout=20)
    return group_posts(ours.sent_since(marks[0])), group_posts(host.sent_since(marks[1]))


async def test_each_command_is_answered_by_one_bot_of_the_account(tmp_path: Path) -> None:
    ours = MirroredSim(self_id=10001)
    host = OneBotSim(self_id=10001)
    ours.mirror_to(host)
    players = [SimPlayer(A, "甲"), SimPlayer(B, "乙"), SimPlayer(C, "丙")]
    for p in players:
        ours.add_member(GROUP, p.user_id, p.name)
        ours.add_friend(p.user_id, p.name)
    attach(ours, players)
    game_bot = BotProcess(tmp_path / "bot.log", access_token=TOKEN,
                          database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
                          env={"PAIZHUO_BARE_COMMANDS": "all,-帮助,-help",
                               "PAIZHUO_DEAL_SEED": "4"})
    host_bot = BotProcess(tmp_path / "host.log", access_token=TOKEN, root=HOST_BOT)
    async with game_bot, host_bot:
        await ours.connect(game_bot.url, TOKEN)
        await host.connect(host_bot.url, TOKEN)
        try:
            mine, theirs = await exchange(ours, host, A, "/帮助", answered_by=host)
            assert (len(mine), [s.text for s in theirs]) == (0, [HOST_HELP])

            mine, theirs = await exchange(ours, host, A, "/牌桌 帮助", answered_by=ours)
            assert (len(mine), len(theirs)) == (1, 0)
            assert "牌桌" in mine[0].text and HOST_HELP not in mine[0].text

            mine, theirs = await exchange(ours, host, A, "/hello", answered_by=host)
            assert (len(mine), [s.text for s in theirs]) == (0, [HOST_HELLO])

            mine, theirs = await exchange(ours, host, A, "/开局 挖坑", answered_by=ours)
            assert (len(mine), len(theirs)) == (1, 0)
            assert "开了一桌" in mine[0].text

            mine, theirs = await exchange(ours, host, B, "/加入", answered_by=ours)
            assert (len(mine), len(theirs)) == (1, 0)
            mine, theirs = await exchange(ours, host, C, "/加入", answered_by=ours)
            assert len(theirs) == 0
            prompt = next(s for s in reversed(group_posts(ours.sent)) if "轮到" in s.text)
            mover = next(p for p in players if p.user_id in prompt.at)

            # a game move (the first bid), answered by the game bot once
            for command in mover.candidates(prompt.text):
                mine, theirs = await exchange(ours, host, mover.user_id, command,
                                              answered_by=ours)
                assert (len(mine), len(theirs)) == (1, 0)
                if mine[0].at != [mover.user_id] or "轮到 @" in mine[0].text:
                    break  # accepted (a refusal @-mentions only the mover)
            else:
                raise AssertionError("no bid was accepted")
            assert mover.user_id not in mine[0].at

            mine, theirs = await exchange(ours, host, A, "/帮助", answered_by=host)
            assert (len(mine), [s.text for s in theirs]) == (0, [HOST_HELP])
        finally:
            await ours.close()
            await host.close()
    # the other bot saw every event: the game's commands reached it and it kept quiet
    assert [e for e in host.events if e["post_type"] != "meta_event"] == [
        e for e in ours.events if e["post_type"] != "meta_event"]
    assert "已过时" not in game_bot.log_text()  # the suite sets the new names only
    assert (tmp_path / "bot.db").exists()  # PAIZHUO_DATABASE_URL from the environment
