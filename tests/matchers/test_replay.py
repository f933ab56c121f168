"""Replays (复盘): a replay saved with a game record, re-run from its deal, gives back the
game that was played — for every game, with tribute and 明/暗 (Z-8, Z-9), bidding and
burying in both rule sets (W-2, W-3, W-7) and 手把一's set-aside (S-1)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from history_support import play_out

from nonebot_plugin_paizhuo.games import GAMES
from nonebot_plugin_paizhuo.games.base import SeatView
from nonebot_plugin_paizhuo.replay import capture, engine_of, run

pytestmark = pytest.mark.once  # the plugin's replays, called directly: no event, no dispatch (.ci/run)

SEATS = [SeatView(str(100 + i), f"玩家{i}") for i in range(6)]


CASES = [
    ("抓特务", 3, {}, 5), ("抓特务", 4, {}, 5), ("抓特务", 4, {"spy_cards": "黑KA", "three_high": True}, 6),
    ("挖坑", 3, {}, 3), ("挖坑", 3, {"ruleset": "陕西"}, 4),
    ("手把一", 2, {}, 2), ("手把一", 5, {"to_the_end": True}, 2), ("手把一", 4, {}, 2),
]


@pytest.mark.parametrize(("name", "size", "settings", "games"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{'-'.join(map(str, c[2].values())) or '默认'}"
                              for c in CASES])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_rebuilds_the_game_that_was_played(name, size, settings, games, seed) -> None:
    adapter = GAMES[name]
    clean = adapter.schema.clean(settings)
    assert all(clean[k] == v for k, v in settings.items())
    rng = random.Random(seed)
    previous = None
    seen_tribute = False
    for n in range(games):
        game = adapter.new_game(size, clean, seed * 100 + n, previous)
        dealt = copy.deepcopy(adapter.dump(game))
        seen_tribute |= bool(getattr(game, "exchanges", None))
        play_out(adapter, game, SEATS[:size], rng)
        replay = capture(game)
        assert replay is not None
        saved = json.loads(json.dumps(replay))  # as it comes back from the database
        assert saved["deal"] == dealt
        rebuilt = run(engine_of(adapter), saved)
        assert rebuilt.final.to_json() == game.to_json()
        assert len(rebuilt.steps) == len(saved["events"]) >= len(game.log)
        assert run(engine_of(adapter), saved, steps=False).final.to_json() == game.to_json()
        previous = adapter.next_game_info(game)
    if name == "抓特务":
        assert seen_tribute


def test_replay_of_a_game_stopped_part_way() -> None:
    """A void game (/结束 during play) is rebuilt up to where it stopped."""
    adapter = GAMES["挖坑"]
    game = adapter.new_game(3, adapter.schema.clean({}), 7, None)
    game.place_bid(game.bidder, 2)
    for _ in range(2):
        if game.phase == "bid":
            adapter.auto_move(game, SEATS[:3], game.bidder, "超时")
    adapter.timeout(game, SEATS[:3])
    for _ in range(5):
        adapter.auto_move(game, SEATS[:3], game.turn, "托管")
    replay = capture(game)
    assert replay is not None and not game.over
    assert run(engine_of(adapter), replay).final.to_json() == game.to_json()


def test_a_replay_that_does_not_give_back_the_game_is_not_saved() -> None:
    adapter = GAMES["手把一"]
    game = adapter.new_game(3, adapter.schema.clean({}), 5, None)
    play_out(adapter, game, SEATS[:3], random.Random(5))
    game.log[0] = [game.log[0][0], []]  # a move log that no longer matches the hands
    assert capture(game) is None


def test_ambiguous_lead_replays_with_its_saved_reading() -> None:
    """G-5: 333344445556 led as 三带一 (not four with kickers) is replayed the same way."""
    from support import cards

    from paizhuo_engine.shoubayi.game import SGame

    game = SGame.from_hands([cards("3333 4444 555 6 9"), cards("7 8"), cards("10 J")])
    game.play(0, cards("3333 4444 555 6"), "triple_one")
    replay = capture(game)
    assert replay is not None and replay["events"][0][3] == "triple_one"
    assert run(SGame, replay).final.lead == game.lead
