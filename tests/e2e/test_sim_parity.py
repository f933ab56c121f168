"""The three simulated sides (OneBot v11, Milky, Satori) offer a driver the same interface:
what the tests, ``tools/players.py``, ``tools/combo.py`` and ``tools/watch_game.py`` use of
``OneBotSim`` is on ``MilkySim`` and ``SatoriSim`` under the same names and parameters, and
the fault knobs decide a send the same way on each."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from tools.milky_sim import MilkySim
from tools.onebot_sim import OneBotSim
from tools.satori_sim import SatoriSim
from tools.sim_base import ChatSim

METHODS = ["connect", "close", "wait_closed", "group_message", "private_message", "resend",
           "post_event", "send_raw", "mark", "sent_since", "wait_for", "wait_for_text",
           "wait_for_call", "wait_idle", "add_member", "add_friend", "add_group", "nickname_of",
           "register_action", "bot_env"]
"""What drivers call (``grep -o 'sim\\.[a-z_]*'`` over tests, tools and bench)."""
ATTRIBUTES = ["self_id", "connected", "close_code", "sent", "calls", "events", "messages",
              "deleted", "listeners", "hung", "friends", "groups", "fail_group", "fail_private",
              "hang_group", "hang_private", "hang_media", "hang_media_to", "fail_media_to",
              "action_delays", "forward_supported"]
SIDES = [MilkySim, SatoriSim]


def _params(cls: type, name: str) -> list[str]:
    return [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]


@pytest.mark.parametrize("side", SIDES, ids=lambda c: c.side)
async def test_the_same_interface_as_onebot(side: type[ChatSim]) -> None:
    """Every method a driver calls takes OneBotSim's parameters first (extra ones come
    after, optional); every attribute it reads is there."""
    sim = side(self_id=90001)
    try:
        onebot = OneBotSim(self_id=90001)
        for name in METHODS:
            theirs, ours = _params(OneBotSim, name), _params(side, name)
            assert ours[:len(theirs)] == theirs, (name, ours, theirs)
            extra = inspect.signature(getattr(side, name)).parameters
            assert all(extra[p].default is not inspect.Parameter.empty
                       or extra[p].kind is inspect.Parameter.VAR_KEYWORD
                       for p in ours[len(theirs):]), name
        for name in ATTRIBUTES:
            assert hasattr(sim, name) and hasattr(onebot, name), name
        assert isinstance(sim, ChatSim) and isinstance(onebot, ChatSim)
    finally:
        await sim.stop()


@pytest.mark.parametrize("side", [OneBotSim, *SIDES], ids=lambda c: c.side)
async def test_the_fault_knobs_decide_alike(side: type[ChatSim]) -> None:
    """A hung chat is never answered (and noted), a failing chat or a group the bot is not
    in fails, a picture fault touches pictures only, other chats go through."""
    sim = side(self_id=90002)
    sim.add_member(1, 5, "甲")
    sim.add_member(2, 5, "甲")
    sim.hang_group.add(1)
    sim.fail_media_to.add(("group", 2))
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(sim._fault("group", 1, media=False), 0.1)
        assert [(k, t) for k, t, _ in sim.hung] == [("group", 1)]
        assert await sim._fault("group", 2, media=False) == ""
        assert await sim._fault("group", 2, media=True) != ""
        assert await sim._fault("group", 3, media=False) != ""
        sim.fail_private.add(5)
        assert await sim._fault("private", 5, media=False) != ""
    finally:
        if hasattr(sim, "stop"):
            await sim.stop()
