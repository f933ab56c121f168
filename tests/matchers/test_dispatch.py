"""The plugin's one NoneBot matcher (internals/dispatch.py): NoneBot checks one matcher of
ours per event; our commands and moves are found by it; what is not ours goes on to the
other plugins' matchers, and what is ours does not."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from chat_support import GROUP, A, Has, expect_friends, expect_group, gmsg, make_bot
from nonebot import on_message
from nonebot.adapters.onebot.v11 import Bot, MessageEvent
from nonebot.matcher import matchers
from nonebug import App

from nonebot_plugin_paizhuo.internals import dispatch
from nonebot_plugin_paizhuo.matchers import play, private, table

fast_only = pytest.mark.skipif(not dispatch.ADOPTED,
                               reason="fast dispatch off (PAIZHUO_FAST_DISPATCH=false)")


@contextlib.contextmanager
def other_plugin(priority: int) -> Iterator[list[str]]:
    """Another plugin's blocking message matcher at ``priority`` for the block: yields the
    texts it heard."""
    heard: list[str] = []
    other = on_message(priority=priority, block=True)

    @other.handle()
    async def _(bot: Bot, event: MessageEvent) -> None:
        heard.append(event.get_plaintext())

    try:
        yield heard
    finally:
        other.destroy()


@fast_only
def test_one_matcher_per_priority_in_nonebots_registry_and_every_command_indexed() -> None:
    ours = {m for priority in matchers for m in matchers[priority] if dispatch.ours(m)}
    assert ours == set(dispatch.DISPATCHERS.values())
    assert sorted(dispatch.DISPATCHERS) == sorted({m.priority for m in dispatch.OURS})
    assert all(d.priority == p for p, d in dispatch.DISPATCHERS.items())
    assert table.join_cmd in dispatch._by_word["加入"] and table.join_cmd in dispatch._by_word["上桌"]
    assert {play.move_msg, private.answer_msg, private.private_move,
            private.group_only_cmd} <= set(dispatch._direct)
    assert len(dispatch.OURS) >= 20


def play_three(ctx, bot) -> None:
    """A plays ``出 3`` at the seated table: the move is announced and A's hand updated."""
    ctx.receive_event(bot, gmsg(A, "出 3"))
    ctx.should_call_api("send_group_msg", {"group_id": GROUP, "message": Has("出 ")},
                        {"message_id": 1})
    ctx.should_call_api("send_private_msg", {"user_id": A, "message": Has("手牌")},
                        {"message_id": 2})


async def test_messages_not_ours_reach_the_next_plugin_and_ours_do_not(app: App) -> None:
    with other_plugin(50) as heard:
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "今天谁来打牌"))  # chat: not ours
            ctx.receive_event(bot, gmsg(A, "/开局 抓特务 三人"))  # ours: answered, not passed on
            expect_friends(ctx)
            expect_group(ctx, "开了一桌")
            ctx.receive_event(bot, gmsg(A, "出 33"))  # a move at a table that is not playing yet
            ctx.receive_event(bot, gmsg(A, "/echo hi"))  # another plugin's command
    assert heard == ["今天谁来打牌", "出 33", "/echo hi"]


async def test_other_plugins_keep_their_place_between_our_priorities(app: App) -> None:
    """Another plugin's blocking /帮助 at priority 7 answers before ours (priority 10),
    as it did when our commands were their own matchers; our moves (priority 5) still
    come before it."""
    from chat_support import HANDS3, seat_table

    await seat_table(HANDS3, leader=0)
    with other_plugin(7) as heard:
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "/帮助"))
            play_three(ctx, bot)
    assert heard == ["/帮助"]


async def test_moves_are_handled_without_a_second_nonebot_run(app: App) -> None:
    """A move at a playing table is answered through the dispatcher's direct call."""
    from chat_support import HANDS3, seat_table

    await seat_table(HANDS3, leader=0)
    async with app.test_matcher() as ctx:
        play_three(ctx, make_bot(ctx))


@pytest.fixture
def scoped(monkeypatch: pytest.MonkeyPatch):
    """Events handled the way the bot's own adapter handles them: each in its scope
    (``scope.py``), with the dispatchers' parameterless rules."""
    import nonebot.message

    from nonebot_plugin_paizhuo.internals import scope

    handle = nonebot.message.handle_event

    async def in_scope(bot, event) -> None:
        token = scope.CURRENT.set(scope.EventScope(bot, event))
        try:
            await handle(bot=bot, event=event)
        finally:
            scope.CURRENT.reset(token)

    monkeypatch.setattr(nonebot.message, "handle_event", in_scope)
    dispatch.use_scopes()
    try:
        yield
    finally:
        dispatch.use_scopes(False)


@fast_only
async def test_in_scope_chat_passes_no_rule_of_ours_and_reaches_the_next_plugin(
        app: App, scoped) -> None:
    """With events in scope the dispatchers' rules decide without NoneBot's parameters:
    chat fails every rule of ours (no dispatcher runs) and goes on; a command and a move
    are answered as before, and nothing of ours goes on."""
    from chat_support import HANDS3, seat_table

    with other_plugin(50) as heard:
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            ctx.receive_event(bot, gmsg(A, "今天谁来打牌"))
            for dispatcher in dispatch.DISPATCHERS.values():
                ctx.should_not_pass_rule(dispatcher)
            ctx.receive_event(bot, gmsg(A, "/牌桌"))
            ctx.should_pass_rule(dispatch.DISPATCHERS[table.table_cmd.priority])
            expect_group(ctx, "本群还没有牌桌")
        await seat_table(HANDS3, leader=0)
        async with app.test_matcher() as ctx:
            bot = make_bot(ctx)
            play_three(ctx, bot)
            ctx.should_pass_rule(dispatch.DISPATCHERS[5])
            ctx.receive_event(bot, gmsg(A, "/echo hi"))
    assert heard == ["今天谁来打牌", "/echo hi"]


@fast_only
async def test_parameterless_rules_without_a_scope_leave_the_choice_to_the_handler(
        app: App) -> None:
    """The parameterless rules under an adapter that gives no scope (a test, another
    adapter): the rule passes and the dispatcher's handler works the candidates out, so
    chat still reaches other plugins and commands are still answered."""
    dispatch.use_scopes()
    try:
        with other_plugin(50) as heard:
            async with app.test_matcher() as ctx:
                bot = make_bot(ctx)
                ctx.receive_event(bot, gmsg(A, "今天谁来打牌"))
                ctx.should_pass_rule(dispatch.DISPATCHERS[5])
                ctx.receive_event(bot, gmsg(A, "/牌桌"))
                expect_group(ctx, "本群还没有牌桌")
    finally:
        dispatch.use_scopes(False)
    assert heard == ["今天谁来打牌"]
