"""The adapter's event gate (``ordering.py``): a message id counts once per account in a
bounded memory, and one user's messages — group or private — run in arrival order while
other users' run at once."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from nonebot_plugin_paizhuo.ordering import EventGate, applied, user_key


def message(user_id: int, message_id: int, kind: str = "group", text: str = "/托管",
            time: int = 1700000000) -> SimpleNamespace:
    return SimpleNamespace(post_type="message", message_type=kind, user_id=user_id,
                           message_id=message_id, raw_message=text, time=time)


def test_a_message_id_counts_once_per_account_within_the_memory() -> None:
    gate = EventGate(remember=3)
    assert gate.first_delivery("1", message(7, 100))
    assert not gate.first_delivery("1", message(7, 100))
    # The same id on another message (a restarted OneBot side reusing ids) is new.
    assert gate.first_delivery("1", message(8, 100, text="/加入"))
    assert not gate.first_delivery("1", message(8, 100, text="/加入"))
    assert gate.first_delivery("2", message(8, 100, text="/加入"))  # another account's
    recall = SimpleNamespace(post_type="notice", notice_type="group_recall", message_id=100)
    assert gate.first_delivery("1", recall) and gate.first_delivery("1", recall)
    for mid in (101, 102, 103):
        assert gate.first_delivery("1", message(7, mid))
    assert gate.first_delivery("1", message(8, 100, text="/加入"))  # forgotten: bounded
    assert not gate.first_delivery("1", message(7, 103))


def test_the_same_user_in_a_group_and_in_private_has_one_key() -> None:
    assert user_key(message(7, 1, "group")) == user_key(message(7, 2, "private")) == "7"
    assert user_key(SimpleNamespace(post_type="notice", user_id=7)) is None


async def test_one_users_messages_run_in_arrival_order_and_others_do_not_wait() -> None:
    gate = EventGate()
    release = asyncio.Event()
    done: list[str] = []

    async def slow_first() -> None:
        await release.wait()
        done.append("first")

    async def quick(name: str) -> None:
        done.append(name)

    first = gate.spawn(message(7, 1), slow_first())
    second = gate.spawn(message(7, 2, "private"), quick("second"))
    other = gate.spawn(message(8, 3), quick("other user"))
    await other
    assert done == ["other user"]
    release.set()
    await asyncio.gather(first, second)
    assert done == ["other user", "first", "second"]
    assert not gate._tails  # chains end with their last message


async def test_a_stuck_message_holds_its_user_back_only_for_the_wait() -> None:
    gate = EventGate(wait=0.01)
    stuck = gate.spawn(message(7, 1), asyncio.Event().wait())
    done: list[str] = []

    async def quick() -> None:
        done.append("next")

    await gate.spawn(message(7, 2), quick())
    assert done == ["next"] and not stuck.done()
    stuck.cancel()


async def test_the_next_message_starts_once_the_previous_one_applied_its_change() -> None:
    """A message that applied its change and queued its messages (``applied``) lets its
    user's next one start while it still waits for its sends (a muted group)."""
    gate = EventGate(wait=3600)
    sends = asyncio.Event()
    done: list[str] = []

    async def first() -> None:
        done.append("first applied")
        applied()
        await sends.wait()  # the sends are slow

    async def second() -> None:
        done.append("second")

    slow = gate.spawn(message(7, 1), first())
    await asyncio.wait_for(gate.spawn(message(7, 2), second()), 60)  # a guard, not a timing
    assert done == ["first applied", "second"] and not slow.done()
    sends.set()
    await slow
