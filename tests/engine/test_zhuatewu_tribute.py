"""RULES.md Z-1/Z-5 later games, Z-8 tribute (进贡/还贡) and Z-9 declaring (明/暗, 明牌)."""

from __future__ import annotations

import json

import pytest

from paizhuo_engine.cards import RA, card, rank_of
from paizhuo_engine.errors import MoveError
from paizhuo_engine.zhuatewu.game import CIVILIAN, SPY, ZGame
from paizhuo_engine.zhuatewu.rules import ZRules

S, C = SPY, CIVILIAN


def prev(roles: list[str], out: list[int], outcome: str, stakes: list[int] | None = None) -> dict:
    return {"roles": roles, "out": out, "outcome": outcome, "stakes": stakes or [1] * len(roles)}


def tops(players: int, rules: ZRules, seed: int, dealer: int) -> list[list[int]]:
    """The allowed tribute cards of each seat of the same deal before any tribute."""
    g = ZGame.deal(players, rules, seed, dealer=dealer)
    return [g.tribute_allowed(s) for s in range(players)]


def flows(g: ZGame) -> list[tuple[int, int, int]]:
    return [(e["giver"], e["receiver"], e["count"]) for e in g.exchanges]


def check_given_highest(players: int, previous: dict, rules: ZRules | None = None, seed: int = 5) -> ZGame:
    """Deal with ``previous``: every giver gave its highest allowed cards, no A and no spy
    card moved, cards are conserved."""
    rules = rules or ZRules()
    g = ZGame.deal(players, rules, seed, previous=previous)
    before = tops(players, rules, seed, g.dealer)
    used: dict[int, int] = {}
    for e in g.exchanges:
        k = used.get(e["giver"], 0)
        assert e["given"] == sorted(before[e["giver"]][k:k + e["count"]])
        used[e["giver"]] = k + e["count"]
        assert all(rank_of(c) != RA and c not in g.spy_cards for c in e["given"])
        assert set(e["given"]) <= set(g.hands[e["receiver"]])
    assert sorted(c for h in g.hands for c in h) == list(range(54))
    return g


def test_z1_z5_later_game_dealer_and_leader_are_previous_first_out() -> None:
    """Z-1 dealer and Z-5 later leads (上局头游, default) = previous first out."""
    g = ZGame.deal(4, ZRules(), 3, previous=prev([S, S, C, C], [2, 3], C))
    assert g.dealer == 2 and g.leader == 2
    g = ZGame.deal(4, ZRules(later_lead="庄家"), 3, previous=prev([S, S, C, C], [1, 0], S))
    assert g.leader == g.dealer == 1
    g = ZGame.deal(4, ZRules(later_lead="红桃3"), 3, previous=prev([S, C, C, C], [1, 2, 3], C))
    g.tribute_timeout()
    g.declare_timeout()
    assert card(0, 1) in g.hands[g.turn]


def test_z8_three_players_spy_won() -> None:
    """Z-8 3 players, spy won: each civilian gives 1 to the spy; the spy returns 1 to each."""
    g = check_given_highest(3, prev([S, C, C], [0], S))
    assert flows(g) == [(1, 0, 1), (2, 0, 1)] and g.phase == "tribute"
    assert g.next_return(0) is g.exchanges[0] and g.next_return(1) is None


def test_z8_three_players_civilians_won() -> None:
    """Z-8 3 players, civilians won: the spy's highest to the first civilian out, the
    second highest to the second; each returns 1."""
    g = check_given_highest(3, prev([C, S, C], [2, 0], C))
    assert flows(g) == [(1, 2, 1), (1, 0, 1)]
    assert sorted(g.pending_returns(), key=lambda e: e["receiver"])[0]["receiver"] == 0


def test_z8_draw_means_no_tribute() -> None:
    g = ZGame.deal(3, ZRules(), 5, previous=prev([C, S, C], [0, 1], "draw"))
    assert g.exchanges == [] and g.phase == "declare"


@pytest.mark.parametrize(("roles", "out", "outcome", "winners"), [
    ([S, S, C, C], [0, 1], S, [0, 1]),      # 特特
    ([S, C, S, C], [2, 1, 0], S, [2, 0]),   # 特民特
    ([S, S, C, C], [3, 2], C, [3, 2]),      # 民民
    ([C, S, C, S], [2, 1, 0], C, [2, 0]),   # 民特民
])
def test_z8_four_players_two_spies(roles: list[str], out: list[int], outcome: str,
                                   winners: list[int]) -> None:
    """Z-8 2v2: each loser gives 1; the first winner out takes the higher tribute card."""
    g = check_given_highest(4, prev(roles, out, outcome))
    assert [e["receiver"] for e in g.exchanges] == winners
    assert {e["giver"] for e in g.exchanges} == {s for s in range(4) if roles[s] != outcome}
    weight = g.rules.rank_order()
    first, second = g.exchanges
    assert weight[rank_of(first["given"][0])] >= weight[rank_of(second["given"][0])]


def test_z8_four_players_lone_spy() -> None:
    """Z-8 1v3: spy won → each civilian gives 1; civilians won → the spy's 3 highest go to
    the civilians in finishing order."""
    g = check_given_highest(4, prev([C, C, S, C], [2], S))
    assert flows(g) == [(0, 2, 1), (1, 2, 1), (3, 2, 1)]
    g = check_given_highest(4, prev([C, C, S, C], [3, 1, 2], C))
    assert flows(g) == [(2, 3, 1), (2, 1, 1), (2, 0, 1)]


@pytest.mark.parametrize(("stake", "name"), [(2, "明"), (4, "明牌")])
def test_z8_multipliers(stake: int, name: str) -> None:
    """Z-8/Z-9: a declared spy's tribute counts double (明), an open hand four times (明牌)."""
    g = check_given_highest(3, prev([S, C, C], [0], S, [stake, 1, 1]))
    assert flows(g) == [(1, 0, stake), (2, 0, stake)], name
    # 2v2: only the declaring spy's exchange is multiplied.
    g = check_given_highest(4, prev([S, S, C, C], [0, 1], S, [stake, 1, 1, 1]))
    counts = {e["receiver"]: e["count"] for e in g.exchanges}
    assert counts == {0: stake, 1: 1}


def test_z8_return_validation_and_flow() -> None:
    g = ZGame.deal(3, ZRules(), 11, previous=prev([S, C, C], [0], S))
    spy_hand = list(g.hands[0])
    before = json.dumps(g.to_json(), sort_keys=True)
    aces = [c for c in spy_hand if rank_of(c) == RA]
    allowed = g.tribute_allowed(0)
    bad = [
        (1, allowed[:1], "not_tribute"),
        (0, allowed[:2], "count"),
        (0, [c for c in range(54) if c not in spy_hand][:1], "not_held"),
    ]
    if aces:
        bad.append((0, aces[:1], "not_allowed"))
    spy_cards_held = [c for c in g.spy_cards if c in spy_hand]
    if spy_cards_held:
        bad.append((0, spy_cards_held[:1], "not_allowed"))
    for seat, cards, code in bad:
        with pytest.raises(MoveError) as err:
            g.return_tribute(seat, cards)
        assert err.value.code == code
        assert json.dumps(g.to_json(), sort_keys=True) == before
    with pytest.raises(MoveError):
        g.play(0, [allowed[0]])  # no play before the tribute is done
    first = g.return_tribute(0, [allowed[-1]])
    assert first["giver"] == 1 and allowed[-1] in g.hands[1]
    assert g.phase == "tribute"
    g.return_tribute(0, [g.tribute_allowed(0)[-1]])
    assert g.phase == "declare"
    assert [len(h) for h in g.hands] == [18, 18, 18]


def test_z8_timeout_returns_lowest_allowed() -> None:
    g = ZGame.deal(4, ZRules(), 12, previous=prev([C, C, S, C], [2], S))
    lowest = g.tribute_allowed(2)[-1]
    settled = g.tribute_timeout()
    assert len(settled) == 3 and lowest in settled[0]["returned"]
    assert g.phase == "declare" and not g.pending_returns()


def test_z9_declare_choices_and_stakes() -> None:
    g = ZGame.deal(4, ZRules(), 21)
    assert g.phase == "declare" and g.awaiting_declare() == g.spies()
    civ = next(s for s in range(4) if g.roles[s] == CIVILIAN)
    with pytest.raises(MoveError) as err:
        g.declare(civ, "明")
    assert err.value.code == "not_declaring"
    spy = g.spies()[0]
    with pytest.raises(MoveError):
        g.declare(spy, "随便")
    g.declare(spy, "明牌")
    assert g.stakes[spy] == 4
    assert g.open_seats() == ([spy] if g.phase == "play" else [])  # G-4: revealed together
    with pytest.raises(MoveError):
        g.declare(spy, "暗")
    left = g.declare_timeout()
    assert all(g.declared[s] == "暗" for s in left)
    assert g.phase == "play" and g.open_seats() == [spy]


def test_z9_settings_limit_choices() -> None:
    g = ZGame.deal(3, ZRules(allow_open_hand=False), 4)
    assert g.declare_choices() == ("明", "暗")
    with pytest.raises(MoveError):
        g.declare(g.spies()[0], "明牌")
    g.declare(g.spies()[0], "明")
    assert g.stakes[g.spies()[0]] == 2 and g.phase == "play"
    g = ZGame.deal(3, ZRules(allow_declare=False, allow_open_hand=False), 4)
    assert g.phase == "play"  # nothing to ask


def test_z10_declared_spy_points() -> None:
    """Z-10 with 明: spy +4, civilians −2 each (3 players, spy out first)."""
    g = ZGame.deal(3, ZRules(), 8)
    spy = g.spies()[0]
    g.declare(spy, "明")
    assert g.phase == "play"
    g.turn, g.lead = spy, None
    g.hands[spy] = [g.spy_cards[0]]  # force a one-card hand: this test is about Z-10
    g.play(spy, [g.spy_cards[0]])
    assert g.result["points"][spy] == 4
    assert sorted(g.result["points"]) == [-2, -2, 4]


def test_state_with_tribute_and_declare_round_trips() -> None:
    g = ZGame.deal(4, ZRules(), 9, previous=prev([S, S, C, C], [0, 1], S, [2, 1, 1, 1]))
    data = json.loads(json.dumps(g.to_json()))
    assert ZGame.from_json(data) == g


def test_g4_everyone_answers_the_declare_question() -> None:
    """G-4: dealt with ``everyone_answers`` the declare phase waits for every seat — a
    civilian answers 暗 and nothing else — and ends with the last answer, whoever gives it;
    the state round-trips and the game as dealt replays to the same state."""
    game = next(g for g in (ZGame.deal(4, ZRules(), s, everyone_answers=True) for s in range(100))
                if g.phase == "declare" and len(g.spies()) == 2)
    spies = game.spies()
    civilians = [s for s in range(4) if s not in spies]
    assert game.awaiting_answer() == [0, 1, 2, 3] and game.awaiting_declare() == spies
    with pytest.raises(MoveError) as refused:
        game.declare(civilians[0], "明")
    assert refused.value.code == "civilian" and game.awaiting_answer() == [0, 1, 2, 3]
    for s in spies:
        game.declare(s, "明")
    game.declare(civilians[0], "暗")
    assert game.phase == "declare" and game.declared_spies() == []  # one civilian still reads
    assert ZGame.from_json(game.to_json()).to_json() == game.to_json()
    with pytest.raises(MoveError):
        game.declare(civilians[0], "暗")  # answered already
    game.declare(civilians[1], "暗")
    assert game.phase == "play" and game.declared_spies() == spies
    assert game.declared[civilians[0]] is None and game.stakes == [2 if s in spies else 1 for s in range(4)]
    state, events = game.as_dealt()
    replayed = ZGame.from_json(state)
    for kind, seat, *rest in events:
        replayed.declare(seat, rest[0] if kind == "declare" else "暗")
    assert replayed.to_json() == game.to_json()


def test_g4_a_timeout_ends_the_phase_for_everyone_who_did_not_answer() -> None:
    game = next(g for g in (ZGame.deal(3, ZRules(), s, everyone_answers=True) for s in range(100))
                if g.phase == "declare")
    civilian = next(s for s in range(3) if s not in game.spies())
    game.declare(civilian, "暗")
    assert game.declare_timeout() == game.spies()
    assert game.phase == "play" and all(game.answered)


def test_a_game_saved_before_everyone_answered_waits_for_the_spies_only() -> None:
    """A state saved before the flag existed (no ``everyone_answers``) goes on as before."""
    game = next(g for g in (ZGame.deal(3, ZRules(), s) for s in range(100)) if g.phase == "declare")
    data = game.to_json()
    del data["everyone_answers"], data["answered"]
    old = ZGame.from_json(data)
    assert old.awaiting_answer() == old.spies()
    old.declare(old.spies()[0], "暗")
    assert old.phase == "play"
