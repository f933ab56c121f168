"""A simulated protocol side that the bot dials: an HTTP API and a WebSocket event stream
on one local port (Milky and Satori work this way; OneBot's reverse WebSocket is the other
way round and lives in ``onebot_sim.py``).

:class:`ServedSim` is the common part of ``milky_sim.py`` and ``satori_sim.py``: it binds
its port when created (so the bot can be started with the address at once, and a bot that
dials before :meth:`ServedSim.connect` waits in the listen queue instead of failing), serves
with aiohttp, gates the event stream, tracks the bot's connections and injects connection
faults. The protocols put their routes, frames and API answers on top.

Connection life, as a driver sees it (the same words as ``OneBotSim``):

* :meth:`ServedSim.bot_env` — the settings the bot needs to dial this side;
* :meth:`ServedSim.connect` — open the gate and wait until the bot's event stream is up;
* :meth:`ServedSim.close` — drop the bot's event stream and hold every new one until the
  next :meth:`~ServedSim.connect` (API calls meanwhile are answered HTTP 503: the side is
  away); the port stays bound, so a restarted bot connects without a redial delay;
* :meth:`ServedSim.drop` / :meth:`ServedSim.abort` — the stream breaks (closing handshake /
  TCP reset) while the side stays up: the adapter redials at once;
* :meth:`ServedSim.stop` — the side process goes away (nothing listens on the port: the
  bot's calls and dials are refused) until :meth:`~ServedSim.connect` serves again on the same
  port; :meth:`ServedSim.stop` is also the final clean-up.

Dependencies: the standard library and aiohttp.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from tools.sim_base import ApiCall, ChatSim

__all__ = ["ActionHandler", "ServedSim", "SideError", "bind_port"]

ActionHandler = Callable[[dict[str, Any]], Awaitable[Any]]
"""An API handler: ``async handler(params) -> data``; raises :class:`SideError` to fail."""


class SideError(Exception):
    """Raised by an API handler: the side answers the call with this failure."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def bind_port(host: str, port: int = 0) -> socket.socket:
    """A TCP socket bound to ``host:port`` (0: a free port) and listening."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


class ServedSim(ChatSim):
    """A side that serves the bot: HTTP API + WebSocket events on ``host:port``.

    Subclasses give :meth:`_routes` and call :meth:`_accept` for each event-stream request
    they authorise, :meth:`_ready` once the stream is usable (Milky: the bot asked who it
    is; Satori: READY sent), and :meth:`_api` to answer an API call through their
    ``_handlers``.

    Observations beyond :class:`~tools.sim_base.ChatSim`'s: ``connections`` (streams that
    became ready, in all), ``refused`` (``(path, status)`` of each refused request),
    ``frames_in`` (every WebSocket frame the bot sent, decoded text), ``close_codes`` (the
    close code of each stream that ended).
    """

    host = "127.0.0.1"

    def __init__(self, self_id: int = 10001, nickname: str = "牌桌", *,
                 api_delay: float = 0.0, access_token: str = "", port: int = 0) -> None:
        """Create the account and bind its port (``port`` 0: a free one, fixed from now
        on). ``access_token`` is what the side requires of the bot (empty: nothing)."""
        super().__init__(self_id, nickname, api_delay=api_delay)
        self.access_token = access_token
        self._sock: socket.socket | None = bind_port(self.host, port)
        self.port: int = self._sock.getsockname()[1]
        self._runner: web.AppRunner | None = None
        self._open = asyncio.Event()
        self._live: list[web.WebSocketResponse] = []
        self._ready_ws: list[web.WebSocketResponse] = []
        self._transports: dict[web.WebSocketResponse, asyncio.BaseTransport] = {}
        self._handlers: dict[str, ActionHandler] = {}
        self.connections = 0
        self.refused: list[tuple[str, int]] = []
        self.frames_in: list[str] = []
        self.close_codes: list[int] = []

    # ---- serving --------------------------------------------------------------------------

    def _routes(self) -> list[web.RouteDef]:
        """The protocol's routes."""
        raise NotImplementedError

    async def serve(self) -> None:
        """Start answering on the port (binding it again after :meth:`stop`)."""
        if self._runner is not None:
            return
        if self._sock is None:
            self._sock = bind_port(self.host, self.port)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.add_routes(self._routes())
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True,
                               shutdown_timeout=0.5)
        await runner.setup()
        site = web.SockSite(runner, self._sock)
        await site.start()
        self._runner = runner

    async def stop(self) -> None:
        """Go away: close the bot's streams and stop listening (the port is bound again by
        the next :meth:`connect`)."""
        self._open.clear()
        await self._close_live(1001)
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
        elif self._sock is not None:
            self._sock.close()
        self._sock = None
        await self._notify()

    # ---- the connection -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while at least one of the bot's event streams is up and ready."""
        return any(not ws.closed for ws in self._ready_ws)

    async def connect(self, url: str | None = None, access_token: str | None = None, *,
                      retry_for: float = 10.0) -> None:
        """Serve, open the gate and wait (≤ ``retry_for`` s) until the bot's event stream
        is up. ``url`` is ignored (the bot dials this side, see :meth:`bot_env`);
        ``access_token`` replaces the token the side requires.

        Raises ``TimeoutError`` if the bot does not connect in time."""
        if access_token is not None:
            self.access_token = access_token
        await self.serve()
        if self.connected and self._open.is_set():
            return
        self._open.set()
        try:
            async with self._cond:
                await asyncio.wait_for(self._cond.wait_for(lambda: self.connected), retry_for)
        except TimeoutError:
            raise TimeoutError(
                f"the bot did not connect to {type(self).__name__} on port {self.port} "
                f"within {retry_for}s (refused: {self.refused[-3:]})") from None

    async def close(self) -> None:
        """Drop the bot's streams and hold new ones until :meth:`connect`."""
        self._open.clear()
        await self._close_live(1001)

    async def drop(self, code: int = 1011, message: bytes = b"") -> None:
        """Close the bot's streams with ``code`` while staying up: the bot redials."""
        await self._close_live(code, message)

    async def abort(self) -> None:
        """Reset the bot's streams' TCP connections (no closing handshake)."""
        for ws in list(self._live):
            transport = self._transports.get(ws)
            if transport is not None:
                transport.abort()
        await asyncio.sleep(0.05)

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until no stream of the bot is up; return the last close code."""
        async with self._cond:
            await asyncio.wait_for(self._cond.wait_for(lambda: not self.connected), timeout)
        return self.close_code

    async def _close_live(self, code: int, message: bytes = b"") -> None:
        for ws in list(self._live):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=code, message=message), 2)
        await self._notify()

    async def send_raw(self, frame: str | bytes) -> None:
        """Send one raw frame (text for ``str``, binary for ``bytes``) on every live stream,
        e.g. a malformed one; not recorded in ``events``."""
        live = [ws for ws in self._live if not ws.closed]
        if not live:
            raise ConnectionError(f"{type(self).__name__}: the bot is not connected")
        for ws in live:
            with contextlib.suppress(ConnectionError, RuntimeError):
                if isinstance(frame, bytes):
                    await ws.send_bytes(frame)
                else:
                    await ws.send_str(frame)

    # ---- for the protocols ----------------------------------------------------------------

    async def _accept(self, request: web.Request, *, heartbeat: float | None = None
                      ) -> web.WebSocketResponse | None:
        """Hold the event-stream request until the gate is open, then upgrade it; ``None``
        when the bot went away meanwhile."""
        await self._open.wait()
        transport = request.transport
        if transport is None or transport.is_closing():
            return None
        ws = web.WebSocketResponse(heartbeat=heartbeat, autoping=True)
        await ws.prepare(request)
        self._live.append(ws)
        self._transports[ws] = transport
        return ws

    async def _ready(self, ws: web.WebSocketResponse) -> None:
        """``ws`` is usable: count it and wake :meth:`connect`."""
        if ws in self._live and ws not in self._ready_ws:
            self._ready_ws.append(ws)
            self.connections += 1
            await self._notify()

    async def _frames(self, ws: web.WebSocketResponse):
        """The text frames the bot sends on ``ws`` until it closes (then it is forgotten)."""
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self.frames_in.append(msg.data)
                    yield msg.data
                elif msg.type == WSMsgType.BINARY:
                    self.frames_in.append(msg.data.decode("utf-8", "replace"))
                    yield msg.data.decode("utf-8", "replace")
        finally:
            if ws.close_code is not None:
                self.close_code = ws.close_code
                self.close_codes.append(ws.close_code)
            if ws in self._live:
                self._live.remove(ws)
            if ws in self._ready_ws:
                self._ready_ws.remove(ws)
            self._transports.pop(ws, None)
            await self._notify()

    async def _broadcast(self, text: str, *, ready_only: bool = False) -> None:
        live = [ws for ws in (self._ready_ws if ready_only else self._live) if not ws.closed]
        if not live:
            raise ConnectionError(f"{type(self).__name__}: the bot is not connected")
        for ws in live:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(text)

    def _refuse(self, request: web.Request, status: int, text: str) -> web.Response:
        self.refused.append((request.path, status))
        return web.Response(status=status, text=text)

    def register_action(self, action: str, handler: ActionHandler) -> None:
        """Add or override an API handler: ``async handler(params) -> data``."""
        self._handlers[action] = handler

    async def _api(self, action: str, params: dict[str, Any], *, bad_params: int
                   ) -> tuple[Any, SideError | None]:
        """Run ``action``'s handler after the delays; return ``(data, None)`` or
        ``(None, error)``; parameters the handler cannot read fail with code
        ``bad_params``. Unknown actions raise ``KeyError`` (each protocol answers those its
        own way)."""
        handler = self._handlers[action]
        await self._delay(action)
        try:
            return await handler(params), None
        except SideError as err:
            return None, err
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return None, SideError(bad_params, f"bad params for {action}: {exc!r}")

    async def _log_call(self, action: str, params: Any, status: str, code: int) -> None:
        await self._record_call(ApiCall(action, dict(params) if isinstance(params, dict) else
                                        {"_body": params}, time.time(), status, code))
