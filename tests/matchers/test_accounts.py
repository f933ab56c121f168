"""nonebug tests of several bot accounts in one process: two accounts (10001, 10002), each
on its own adapter so every API call shows which account made it. Both receive each
message of a group they share; one answers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from chat_support import GROUP, HANDS3, A, B, C, Has, gmsg, pmsg, seat_table
from nonebot import on_command, on_message
from nonebot.adapters.onebot.v11 import Bot, GroupMessageEvent, Message, PrivateMessageEvent
from nonebug import App

from nonebot_plugin_paizhuo.actions import announce, deadlines
from nonebot_plugin_paizhuo.tables import REGISTRY, Table, now_utc

LOW, HIGH = "10001", "10002"
_ids = iter(range(10**6, 2 * 10**6))


def two_accounts(ctx: Any) -> tuple[Bot, Any, Bot, Any]:
    low_adapter, high_adapter = ctx.create_adapter(), ctx.create_adapter()
    low = ctx.create_bot(base=Bot, adapter=low_adapter, self_id=LOW)
    high = ctx.create_bot(base=Bot, adapter=high_adapter, self_id=HIGH)
    return low, low_adapter, high, high_adapter


def to(account: str, event: GroupMessageEvent | PrivateMessageEvent):
    """The same message as the account ``account`` receives it."""
    return event.model_copy(update={"self_id": int(account)})


def expect_group_via(ctx: Any, adapter: Any, *parts: str, at: int | None = None) -> None:
    ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has(*parts, at=at)},
                        {"message_id": next(_ids)}, adapter=adapter)


async def test_without_a_table_the_lowest_account_in_the_group_answers(app: App) -> None:
    async with app.test_matcher() as ctx:
        low, low_adapter, high, high_adapter = two_accounts(ctx)
        event = gmsg(A, "/牌桌")
        # The high account hears it first: it reads the low account's group list, finds
        # it in the group, and stays silent.
        ctx.receive_event(high, to(HIGH, event))
        ctx.should_call_api("get_group_list", {}, [{"group_id": GROUP, "group_name": "g"}],
                            adapter=low_adapter)
        ctx.receive_event(low, to(LOW, event))
        expect_group_via(ctx, low_adapter, "本群还没有牌桌", at=A)


async def test_a_group_the_lower_account_is_not_in_is_answered_by_the_other(app: App) -> None:
    async with app.test_matcher() as ctx:
        low, low_adapter, high, high_adapter = two_accounts(ctx)
        ctx.receive_event(high, to(HIGH, gmsg(A, "/牌桌")))
        ctx.should_call_api("get_group_list", {}, [], adapter=low_adapter)
        expect_group_via(ctx, high_adapter, "本群还没有牌桌", at=A)


async def test_the_tables_account_answers_and_runs_its_timers(app: App) -> None:
    table = await seat_table(HANDS3, leader=0, account=HIGH)
    async with app.test_matcher() as ctx:
        low, low_adapter, high, high_adapter = two_accounts(ctx)
        event = gmsg(A, "出 3")
        ctx.receive_event(low, to(LOW, event))  # not its table: silent, nothing changes
        ctx.receive_event(high, to(HIGH, event))
        expect_group_via(ctx, high_adapter, "玩家101 出 ")
        ctx.should_call_api("send_private_msg", {"user_id": A, "message": Has("手牌")},
                            {"message_id": next(_ids)}, adapter=high_adapter)
        # A seated player writing privately to the other account is sent to the right one.
        ctx.receive_event(low, to(LOW, pmsg(A, "/手牌")))
        ctx.should_call_api("send_private_msg",
                            {"user_id": A, "message": Has("由机器人 10002 主持")},
                            {"message_id": next(_ids)}, adapter=low_adapter)
    assert len(table.engine.log) == 1
    async with app.test_matcher() as ctx:
        low, low_adapter, high, high_adapter = two_accounts(ctx)
        # The turn deadline passes: the move for the player is told through the table's
        # account.
        table.remind_at, table.deadline = None, now_utc() - timedelta(seconds=1)
        expect_group_via(ctx, high_adapter, "［超时］")
        ctx.should_call_api("send_private_msg", {"user_id": B, "message": Has("手牌（3 张）")},
                            {"message_id": next(_ids)}, adapter=high_adapter)
        deadlines.schedule(table)
        await table.timer
    assert len(table.engine.log) == 2
    assert (await REGISTRY.require_store().live_owners([str(GROUP)])) == {str(GROUP): HIGH}


async def test_the_tables_account_away_its_timer_waits(app: App) -> None:
    table = await seat_table(HANDS3, leader=0, account=HIGH)
    before = table.engine.to_json()
    async with app.test_matcher() as ctx:
        low = ctx.create_bot(base=Bot, adapter=ctx.create_adapter(), self_id=LOW)
        table.remind_at, table.deadline = None, now_utc() - timedelta(seconds=1)
        deadlines.schedule(table)
        await table.timer  # no API call: nobody speaks for it
        ctx.receive_event(low, to(LOW, gmsg(A, Message("出 3"))))
    assert table.engine.to_json() == before and table.account == HIGH


async def test_the_account_is_saved_with_the_table_and_old_saves_have_none(app: App) -> None:
    table = await seat_table(HANDS3, leader=0, account=HIGH)
    data = table.to_json()
    assert data["account"] == HIGH and Table.from_json(data).account == HIGH
    old = {k: v for k, v in data.items() if k != "account"}  # saved before accounts
    assert Table.from_json(old).account is None
    REGISTRY.reset()
    assert [t.group_id for t in await REGISTRY.restore(LOW)] == []  # not its table
    [restored] = await REGISTRY.restore(HIGH)
    assert restored.account == HIGH and restored.engine.to_json() == table.engine.to_json()


async def test_a_table_saved_without_account_goes_to_the_account_in_its_group(
        app: App, monkeypatch) -> None:
    """Upgrading from the one-account version: the saved table has no account; of the
    two accounts, the one whose group list has the group takes it over when it connects,
    the other does not."""
    connect = announce.bot_connected  # the test connects each bot itself and waits for it

    async def connected_by_hand(bot) -> None:
        return None

    monkeypatch.setattr(announce, "bot_connected", connected_by_hand)
    table = await seat_table(HANDS3, leader=2, account=HIGH)
    old = {k: v for k, v in table.to_json().items() if k != "account"}
    store = REGISTRY.require_store()
    await store.delete_live(str(GROUP))
    await store.save_live(str(GROUP), table.game, old)  # as the old version saved it
    REGISTRY.reset()
    async with app.test_matcher() as ctx:
        low_adapter, high_adapter = ctx.create_adapter(), ctx.create_adapter()
        ctx.should_call_api("get_group_list", {}, [{"group_id": 777, "group_name": "x"}],
                            adapter=low_adapter)
        low = ctx.create_bot(base=Bot, adapter=low_adapter, self_id=LOW)
        await connect(low)
        assert REGISTRY.get(str(GROUP)) is None  # not in its groups: left alone
        ctx.should_call_api("get_group_list", {}, [{"group_id": GROUP, "group_name": "g"}],
                            adapter=high_adapter)
        expect_group_via(ctx, high_adapter, "机器人已重启，牌局继续", at=C)
        high = ctx.create_bot(base=Bot, adapter=high_adapter, self_id=HIGH)
        await connect(high)
    restored = REGISTRY.get(str(GROUP))
    assert restored is not None and restored.account == HIGH
    assert await store.live_owners([str(GROUP)]) == {str(GROUP): HIGH}


async def test_a_group_without_any_table_is_answered_without_reading_the_database(
        app: App, monkeypatch) -> None:
    """A table saved for an account that is not connected keeps its group to that
    account; in a group with no table anywhere (SQLite: one process) a command needs no
    database read, so it is answered even while reading fails."""
    from chat_support import OTHER_GROUP

    await seat_table(HANDS3, leader=0, account=HIGH)  # saved in the database
    REGISTRY.reset()  # ... and not held here: HIGH is not connected
    store = REGISTRY.require_store()
    assert store.exclusive
    async with app.test_matcher() as ctx:
        low = ctx.create_bot(base=Bot, self_id=LOW)
        ctx.receive_event(low, to(LOW, gmsg(A, "/牌桌")))  # HIGH's group: silent
        ctx.receive_event(low, to(LOW, gmsg(A, "/牌桌", group=OTHER_GROUP)))
        ctx.should_call_api("send_group_msg", {"group_id": OTHER_GROUP,
                                               "message": Has("本群还没有牌桌", at=A)},
                            {"message_id": 1})

    async def unreadable(group_ids):
        raise OSError("disk I/O error")

    monkeypatch.setattr(store, "live_owners", unreadable)
    async with app.test_matcher() as ctx:
        low = ctx.create_bot(base=Bot, self_id=LOW)
        ctx.receive_event(low, to(LOW, gmsg(A, "/牌桌", group=OTHER_GROUP)))
        ctx.should_call_api("send_group_msg", {"group_id": OTHER_GROUP,
                                               "message": Has("本群还没有牌桌", at=A)},
                            {"message_id": 2})


async def test_another_plugins_matcher_hears_every_accounts_events(app: App) -> None:
    """The plugin inside a host bot: its account check leaves other plugins' events
    alone. A host plugin's ``/hello`` answers through both accounts; a ``/牌桌`` the low
    account answers is still heard by the host plugin through the high one."""
    heard: list[tuple[str, str]] = []
    hello = on_command("hello", priority=1, block=True)
    listener = on_message(priority=1, block=False)

    @hello.handle()
    async def _(bot: Bot, event: GroupMessageEvent) -> None:
        heard.append((bot.self_id, "hello"))

    @listener.handle()
    async def _(bot: Bot, event: GroupMessageEvent) -> None:
        heard.append((bot.self_id, event.get_plaintext()))

    try:
        async with app.test_matcher() as ctx:
            low, low_adapter, high, high_adapter = two_accounts(ctx)
            ctx.receive_event(high, to(HIGH, gmsg(A, "/hello")))
            ctx.receive_event(low, to(LOW, gmsg(A, "/hello")))
            # The low account is in the group (it heard /hello there): it answers /牌桌,
            # the high one stays silent, and the host plugin hears both.
            ctx.receive_event(high, to(HIGH, gmsg(B, "/牌桌")))
    finally:
        hello.destroy()
        listener.destroy()
    assert (HIGH, "hello") in heard and (LOW, "hello") in heard
    assert (HIGH, "/牌桌") in heard
