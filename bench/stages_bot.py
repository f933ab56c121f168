"""``bench/echo_bot.py`` with timing probes, for ``bench/stages.py`` (not for use).

Every message event gets a record, carried by a context variable into every task NoneBot
starts for it, with ``time.perf_counter()`` stamps at: the frame parsed (``rx``), NoneBot's
``handle_event`` (``he``), the event preprocessors (``pre0`` / ``pre1``), the plugin's first
dispatcher rule (``cand``), the first matcher run (``run``), the move handler
(``move``), the save (``save0`` / ``save1``) and the hand-over to the send scheduler
(``submit``); every send call is listed with its time and target. With
``PAIZHUO_STAGES_LOOP=asyncio`` the bot runs on asyncio's own loop (not uvloop) and
each record also counts the loop iterations its tasks ran in before the move handler
(``iters``) and the loop's iteration number at each stamp. The records are written as
JSON to ``PAIZHUO_STAGES_OUT`` when the bot stops (SIGTERM).
"""

from __future__ import annotations

import atexit
import contextvars
import json
import os
import runpy
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nonebot  # noqa: E402

runpy.run_path(str(ROOT / "bench" / "echo_bot.py"), run_name="echo_bot")

import nonebot.adapters.onebot.v11.bot as v11_bot  # noqa: E402
import nonebot.message as nb_message  # noqa: E402
from nonebot.adapters.onebot.v11 import Adapter, Bot  # noqa: E402

from nonebot_plugin_paizhuo.actions import commit, turns  # noqa: E402
from nonebot_plugin_paizhuo.guard import check_startup  # noqa: E402
from nonebot_plugin_paizhuo.internals import dispatch  # noqa: E402
from nonebot_plugin_paizhuo.tables import Registry  # noqa: E402

RECORD: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("stages", default=None)
records: list[dict[str, Any]] = []
sends: list[tuple[float, str, Any]] = []
iteration = [0]
clock = time.perf_counter


def stamp(name: str, once: bool = True) -> None:
    record = RECORD.get()
    if record is not None and not (once and name in record):
        record[name] = clock()
        record[name + "_iter"] = iteration[0]


_json_to_event = Adapter.json_to_event.__func__  # type: ignore[attr-defined]


def json_to_event(cls: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
    event = _json_to_event(cls, data, *args, **kwargs)
    if event is not None and getattr(event, "post_type", "") == "message":
        record = {"rx": clock(), "rx_iter": iteration[0], "iters": 0,
                  "text": getattr(event, "raw_message", ""), "group": getattr(event, "group_id", None)}
        RECORD.set(record)
        records.append(record)
    return event


Adapter.json_to_event = classmethod(json_to_event)  # type: ignore[method-assign,assignment]


def wrap_async(owner: Any, name: str, before: str | None, after: str | None = None) -> None:
    original = getattr(owner, name)

    async def probed(*args: Any, **kwargs: Any) -> Any:
        if before:
            stamp(before)
        result = await original(*args, **kwargs)
        if after:
            stamp(after)
        return result

    setattr(owner, name, probed)


wrap_async(v11_bot, "handle_event", "he")
wrap_async(nb_message, "_apply_event_preprocessors", "pre0", "pre1")
wrap_async(nb_message, "_run_matcher", "run")
wrap_async(dispatch, "_all_candidates", "cand")
wrap_async(turns, "move", "move")  # the handler looks ``turns.move`` up at call time: probed
wrap_async(Registry, "save", "save0", "save1")

_submit = commit.submit


def submit(bot: Any, outs: Any) -> Any:
    stamp("submit")
    return _submit(bot, outs)


commit.submit = submit  # type: ignore[assignment]
_call_api = Bot.call_api


async def call_api(self: Any, api: str, **data: Any) -> Any:
    if api in ("send_group_msg", "send_msg", "send_private_msg"):
        sends.append((clock(), api, data.get("group_id") or data.get("user_id"), iteration[0]))
    stamp("call")  # the echo's own send (a move's sends run in the scheduler's tasks)
    return await _call_api(self, api, **data)


Bot.call_api = call_api  # type: ignore[method-assign]

LOOP = os.environ.get("PAIZHUO_STAGES_LOOP", "auto")
if LOOP == "asyncio":
    import asyncio.base_events
    import asyncio.events

    _run_once = asyncio.base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]

    def run_once(self: Any) -> None:
        iteration[0] += 1
        _run_once(self)

    asyncio.base_events.BaseEventLoop._run_once = run_once  # type: ignore[attr-defined]
    _handle_run = asyncio.events.Handle._run

    def handle_run(self: Any) -> None:
        context = self._context
        record = context.get(RECORD) if context is not None else None
        if record is not None and "move" not in record and record.get("last") != iteration[0]:
            record["last"] = iteration[0]
            record["iters"] += 1
        _handle_run(self)

    asyncio.events.Handle._run = handle_run  # type: ignore[method-assign]


def dump() -> None:
    out = os.environ.get("PAIZHUO_STAGES_OUT")
    if out:
        Path(out).write_text(json.dumps({"records": records, "sends": sends}))


atexit.register(dump)
# uvicorn puts the SIGTERM handler back after shutting down and raises the signal again.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

if __name__ == "__main__":
    check_startup(nonebot.get_driver())
    nonebot.run(loop=LOOP)
