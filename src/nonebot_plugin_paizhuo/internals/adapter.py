"""The OneBot v11 adapter with the bot's guards (``guard.py``'s docstring): it overrides
the adapter's private ``_handle_ws`` / ``_handle_http`` (and uses its private
``_check_access_token`` / ``_check_signature``), so it lives with the other NoneBot
internals; :func:`nonebot_plugin_paizhuo.internals.adapter_problems` checks they are there.
Each event is handled in its own task (``ordering.py``) and, with fast dispatch on, in
its scope (``scope.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, cast

from nonebot import logger
from nonebot.adapters import Bot as BaseBot
from nonebot.adapters import Event as BaseEvent
from nonebot.adapters.onebot.v11 import Adapter, Bot
from nonebot.drivers import HTTPServerSetup, Request, Response, WebSocket
from nonebot.exception import WebSocketClosed

from .. import ordering
from ..config import plugin_config
from . import fast_dispatch, scope

WS_PATH = "/onebot/v11/ws"
"""Path of the reverse WebSocket the OneBot implementation connects to."""

FRAME_PREVIEW = 120
"""Characters of a malformed frame shown in the log."""



class GuardedAdapter(Adapter):
    """The OneBot v11 adapter with the rules in this module's docstring (same name, same
    :class:`Bot`, so plugins see no difference). With fast dispatch on, each event is
    handled in its scope (``scope.py``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scope.provided = True

    def setup_http_server(self, setup: HTTPServerSetup) -> None:
        """Serve the HTTP POST routes only when ``PAIZHUO_ONEBOT_HTTP_POST=true``."""
        if plugin_config().onebot_http_post:
            super().setup_http_server(setup)

    async def _handle_http(self, request: Request) -> Response:
        """A signed HTTP POST event (signature checked first, then ``X-Self-ID``, then the
        body; a malformed body is a 400, not a server error)."""
        if (refused := self._check_signature(request)) is not None:
            return refused
        self_id = request.headers.get("x-self-id")
        if not self_id:
            return Response(400, content="Missing X-Self-ID Header")
        try:
            data = json.loads(request.content or b"")
        except ValueError:
            return Response(400, content="Invalid request body")
        if not isinstance(data, dict):
            return Response(400, content="Invalid request body")
        if event := self.json_to_event(data):
            bot = self.bots.get(self_id)
            if bot is None:
                bot = Bot(self, self_id)
                self.bot_connect(bot)
                logger.info(f"牌桌: Bot {self_id} 通过 HTTP POST 上报")
            self._dispatch(bot, event)
        return Response(204)

    async def _handle_ws(self, websocket: WebSocket) -> None:
        """One reverse WebSocket: token, then one connection per id, then frames until
        it closes (a malformed frame is skipped)."""
        self_id = websocket.request.headers.get("x-self-id")
        if not self_id:
            logger.warning("牌桌: 拒绝 WebSocket：缺少 X-Self-ID")
            await websocket.close(1008, "Missing X-Self-ID Header")
            return
        if (refused := self._check_access_token(websocket.request)) is not None:
            await websocket.close(1008, cast(str, refused.content))
            return
        if self_id in self.connections:
            logger.warning(f"牌桌: 拒绝 WebSocket：Bot {self_id} 已有一个连接（旧连接断开后才能再连）")
            await websocket.close(1008, "Duplicate X-Self-ID")
            return
        if (stale := self.bots.get(self_id)) is not None:
            logger.info(f"牌桌: Bot {self_id} 改用 WebSocket，替换 HTTP POST 建立的 bot")
            self.bot_disconnect(stale)
        self.connections[self_id] = websocket  # claimed before the first await
        from .. import accounts

        if not await accounts.hold(self_id, websocket):  # another process serves it
            del self.connections[self_id]
            await websocket.close(1008, "Account served by another process")
            return
        bot: Bot | None = None
        try:
            await websocket.accept()
            bot = Bot(self, self_id)
            self.bot_connect(bot)
            logger.info(f"牌桌: Bot {self_id} 已连接")
            while True:
                self._handle_frame(bot, await websocket.receive())
        except WebSocketClosed:
            logger.warning(f"牌桌: Bot {self_id} 的 WebSocket 已断开")
        except Exception as err:
            logger.opt(exception=err).error(f"牌桌: Bot {self_id} 的 WebSocket 出错，连接关闭")
        finally:
            with contextlib.suppress(Exception):
                await websocket.close()
            if bot is not None and self.bots.get(self_id) is bot:
                self.bot_disconnect(bot)
            try:  # the id stays claimed until the account is let go
                await accounts.let_go(self_id, websocket)
            finally:
                if self.connections.get(self_id) is websocket:
                    del self.connections[self_id]

    def _handle_frame(self, bot: Bot, data: str | bytes) -> None:
        """Parse one frame and dispatch its event or API answer; log and skip bad ones."""
        try:
            parsed = json.loads(data)
            event = self.json_to_event(parsed)
        except Exception as err:
            preview = repr(data[:FRAME_PREVIEW])
            logger.warning(f"牌桌: 跳过 Bot {bot.self_id} 的一个无法处理的帧（{type(err).__name__}）：{preview}")
            return
        if event is not None:
            self._dispatch(bot, event)

    def _dispatch(self, bot: BaseBot, event: BaseEvent) -> None:
        """Handle an event in its own task (and scope, with fast dispatch on): a message delivered again (same
        ``message_id``) is dropped, one user's messages run in arrival order
        (``ordering.py``). Called in arrival order, with no await before it."""
        if not ordering.GATE.first_delivery(bot.self_id, event):
            return
        run = bot.handle_event(event)
        if fast_dispatch():
            run = scope.handling(bot, event, run)
        task = ordering.GATE.spawn(event, run)
        self._keep(task)

    def _keep(self, task: asyncio.Task[Any]) -> None:
        """Hold ``task`` in the adapter's ``tasks`` until it ends (the adapter cancels
        them at shutdown): a set from nonebot-adapter-onebot 2.4.6, a list before."""
        tasks = self.tasks
        if isinstance(tasks, set):
            task.add_done_callback(tasks.discard)
            tasks.add(task)
            return
        tasks.append(task)

        def drop(done: asyncio.Task[Any]) -> None:
            with contextlib.suppress(ValueError):
                tasks.remove(done)

        task.add_done_callback(drop)
