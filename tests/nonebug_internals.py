"""The nonebug internals the matcher tests patch (the tests-side twin of
``src/nonebot_plugin_paizhuo/internals``), each patch here and :func:`problems` naming what a nonebug
release took away, so a change fails the run at start with those names rather than as
odd test failures.

* ``MatcherContext._prepare_matcher_context`` and ``fake.make_fake_default_state``: nonebug
  marks the matchers in NoneBot's registry; with fast dispatch the plugin's own matchers
  live outside it (``internals/dispatch.py``) and get the same mark.
* ``nonebug.mixin.call_api.pytest.fail``: nonebug reports a mismatching API call with it,
  inside the call (a send-queue or timer task would swallow it).
* ``ApiContext.got_call_api(self, adapter, api, **data)``, ``ApiContext.wait_list.queue``
  and ``Api.name`` / ``Api.data``: expected sends matched per conversation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def _missing(owner: object, label: str, *names: str) -> list[str]:
    return [f"{label}.{name}" for name in names if not hasattr(owner, name)]


def problems() -> list[str]:
    """The nonebug internals used here that are missing or changed; empty: all there."""
    try:
        import nonebug.mixin.call_api as call_api
        import nonebug.mixin.process.fake as fake
        from nonebug.mixin.call_api import Api, ApiContext
        from nonebug.mixin.process import MatcherContext
    except ImportError as err:
        return [f"import {err.name}"]
    found = _missing(MatcherContext, "MatcherContext", "_prepare_matcher_context")
    found += _missing(fake, "nonebug.mixin.process.fake", "make_fake_default_state")
    found += _missing(call_api, "nonebug.mixin.call_api", "pytest")
    found += _missing(ApiContext, "ApiContext", "got_call_api")
    fields = getattr(Api, "__dataclass_fields__", None) or getattr(Api, "model_fields", {})
    found += [f"Api.{name}" for name in ("name", "data") if name not in fields]
    if not found:
        found += _params(fake.make_fake_default_state, "make_fake_default_state", "ctx",
                         "matcher")
        found += _params(ApiContext.got_call_api, "ApiContext.got_call_api", "self",
                         "adapter", "api")
    return found


def _params(call: Callable[..., Any], label: str, *expected: str) -> list[str]:
    params = list(inspect.signature(call).parameters)
    return [] if params[: len(expected)] == list(expected) else [f"{label}({', '.join(expected)})"]


def check() -> None:
    """Stop the run with the names of the nonebug internals that changed."""
    if found := problems():
        import nonebug

        raise pytest.UsageError(
            f"nonebug {getattr(nonebug, '__version__', '?')} lacks what tests/nonebug_internals.py "
            f"patches: {', '.join(found)}")


def mark_adopted_matchers(adopted: Callable[[], list[Any]]) -> None:
    """nonebug prepares (``_default_state``) the matchers in NoneBot's registry for a
    test's checks; prepare ``adopted()`` (the matchers fast dispatch took out of it) too."""
    from nonebug.mixin.process import MatcherContext
    from nonebug.mixin.process.fake import make_fake_default_state

    prepare = MatcherContext._prepare_matcher_context

    @contextmanager
    def with_adopted(self: MatcherContext) -> Iterator[None]:
        with prepare(self), pytest.MonkeyPatch.context() as patch:
            for matcher in adopted():
                patch.setattr(matcher, "_default_state", make_fake_default_state(self, matcher))
            yield

    MatcherContext._prepare_matcher_context = with_adopted  # type: ignore[method-assign]


def record_api_failures(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every ``pytest.fail`` nonebug raises for an unexpected or mismatching API
    call (still raised) and return the list the reasons go to."""
    import nonebug.mixin.call_api as call_api

    failures: list[str] = []
    original = call_api.pytest.fail

    def fail(reason: str = "", pytrace: bool = True) -> None:
        failures.append(reason)
        original(reason, pytrace=pytrace)

    fail.Exception = original.Exception  # type: ignore[attr-defined]
    monkeypatch.setattr(call_api.pytest, "fail", fail)
    return failures


def reorder_expected_sends(monkeypatch: pytest.MonkeyPatch,
                           conversation: Callable[[str, dict], object | None]) -> None:
    """An expected send is taken out of turn when every expectation before it is a send
    to another conversation (``conversation(api, data)``: its key, ``None`` for a call
    that is not a send); within a conversation and for every other call the order stays
    strict."""
    from nonebug.mixin.call_api import Api, ApiContext

    original = ApiContext.got_call_api

    def got_call_api(self, adapter, api, **data):
        conv = conversation(api, data)
        queue = self.wait_list.queue
        if conv is not None and queue:
            for k, model in enumerate(queue):
                if not isinstance(model, Api) or conversation(model.name, model.data) is None:
                    break
                if conversation(model.name, model.data) == conv:
                    if k and model.name == api and model.data == data:
                        del queue[k]
                        queue.appendleft(model)
                    break
        return original(self, adapter, api, **data)

    monkeypatch.setattr(ApiContext, "got_call_api", got_call_api)
