"""End to end: an all-person table costs one group post per decision of a person, start
and end included (the real bot through each protocol side's real adapter — OneBot v11,
Milky, Satori — against its fake, seeded deals).

The reply to the ``/加入`` that fills the table is the start post (seated, dealt, the
first prompt @-mentioning the person to act); every move's post ends with the next prompt;
the last move's post carries the end message, whose last line names ``/对局 N`` for the
details (every hand as dealt, the bottom, every move), and ``/对局 N`` answers with them.
No hand and no buried or bottom card reaches the group before the end, and only the person
who must act is @-mentioned."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sides_support import SIDES, make_sim, running, said_by

from tools.players import SimPlayer, attach, continue_table, is_prompt
from tools.sim_base import ChatSim, Sent

GROUP = 60001
NAMES = "甲乙丙丁"
CARDS = re.compile(r"(?:[♠♥♣♦](?:10|[2-9JQKA])|大王|小王)")


def cards_of(text: str) -> list[str]:
    """The cards a line names, in order (``♠3♥3 ♠Q`` → ``♠3``, ``♥3``, ``♠Q``)."""
    return CARDS.findall(text)


def group_posts(sim: ChatSim, since: int) -> list[Sent]:
    return [s for s in sim.sent[since:] if s.kind == "group" and s.target == GROUP]


CASES = [(side, *case) for side in SIDES for case in (("手把一", 2, 3), ("挖坑", 3, 5))
         if side == "onebot" or (side == "milky") == (case[0] == "挖坑")]
"""Both games on OneBot; one each on Milky (挖坑) and Satori (手把一): the rule is the
chat layer's, the sides only carry it (CI time)."""


@pytest.mark.parametrize(("side", "game", "size", "seed"), CASES)
async def test_all_person_game_posts_once_per_decision(tmp_path: Path, game: str, size: int,
                                                       seed: int, side: str) -> None:
    sim = make_sim(side)
    players = [SimPlayer(6001 + i, NAMES[i]) for i in range(size)]
    for p in players:
        sim.add_member(GROUP, p.user_id, p.name)
        sim.add_friend(p.user_id, p.name)
    async with running(sim, tmp_path, env={"PAIZHUO_DEAL_SEED": str(seed)}):
        attach(sim, players)
        await sim.group_message(GROUP, players[0].user_id, f"/开局 {game} {size}人")
        await sim.wait_for_text("开了一桌", kind="group")
        for p in players[1:-1]:
            mark = sim.mark()
            await sim.group_message(GROUP, p.user_id, "/加入")
            await sim.wait_for_text("入座", kind="group", since=mark)
        await sim.wait_idle(quiet=0.1)
        since, asked = sim.mark(), set(sim.messages)
        await sim.group_message(GROUP, players[-1].user_id, "/加入")  # fills the table: the deal
        end = await continue_table(sim, GROUP, players, since=since, timeout=40)
        assert end is not None and "本局结束" in end.text
        await sim.wait_idle(quiet=0.3)
        posts = group_posts(sim, since)
        people = {p.user_id for p in players}
        decisions = said_by(sim, people, asked)  # moves, answers, the /加入

        # One group post per decision of a person, start and end included (the goal is
        # ≤ 1.05 on average; a decision never costs more than its one post, so no more
        # posts than decisions in any game).
        assert len(posts) <= len(decisions), (len(posts), len(decisions))
        # The start post is the reply to the last /加入: seated, dealt, the first prompt.
        start = posts[0]
        assert "入座" in start.text and "开局！" in start.text and "轮到 @" in start.text
        assert len(start.at) == 1 and start.at[0] in {p.user_id for p in players}
        # The last move's post is the end post, last of all, and says where the details are.
        assert posts[-1] is end and "出完" in end.text
        assert end.text.endswith("本群第 1 局。每人发到的牌和每一手：/对局 1")
        assert not any(s.forward for s in posts)  # no details card of its own
        # Only the person who must act is @-mentioned: a prompt names one person.
        for s in posts:
            assert len(s.at) <= 1, s.text
            if s.at and is_prompt(s):
                assert s.text.count("轮到 @") == 1
        # Nothing hidden reached the group before the end: no hand as dealt, no bottom.
        hidden = [s for s in sim.sent[since:] if s.kind == "private" and s.ok
                  and ("你的手牌" in s.text or "底" in s.text)]
        first = {p.user_id: next(s for s in hidden if s.target == p.user_id and "你的手牌" in s.text)
                 for p in players}  # each hand as dealt
        secrets = {" ".join(cards_of(line)) for s in hidden
                   for line in s.text.splitlines()
                   if (s in first.values() or "底" in line) and len(cards_of(line)) >= 4}
        assert len(secrets) >= size
        for s in posts[:-1]:
            said = " ".join(cards_of(s.text))
            assert not any(secret in said for secret in secrets), s.text

        # /对局 1 answers with the details: every hand as dealt, as each person got it.
        mark = sim.mark()
        await sim.group_message(GROUP, players[0].user_id, "/对局 1")
        details = await sim.wait_for(lambda s: s.kind == "group" and "【第 1 局】" in s.text,
                                     since=mark, timeout=10)
        assert details.forward and "发牌：" in details.text and "过程：" in details.text
        dealt = {m.group(1): sorted(cards_of(m.group(2))) for m in
                 re.finditer(r"^\d\.(\S+?)(?:（\S+）)?：(.+)$", details.text, re.M)}
        for p in players:
            line = next(ln for ln in first[p.user_id].text.splitlines() if len(cards_of(ln)) >= 4)
            assert dealt[p.name] == sorted(cards_of(line)), p.name
