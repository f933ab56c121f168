"""困难 before the first lead: 挖坑 叫分 and 扣底, the 抓特务 spy's 明 / 明牌 / 暗 (RULES.md
W-2, W-3, W-6, Z-9, G-6).

These choices set the stakes — a bid multiplies every point of the game, each 5 / 10 / K
buried doubles them (W-6), 明 doubles a spy's (Z-9) — and 普通 takes them by rules of thumb
(:mod:`paizhuo_engine.ai.decisions`). :func:`search_setup` weighs each option the seat has
by playing the rest of the game out on ``samples`` deals of the cards it has not seen: the
other hands and, in 挖坑, the bottom are dealt at random from the unseen cards (every count
kept; the bids made so far weigh the deal, :mod:`paizhuo_engine.ai.inference`); the
other seats then bid, bury and declare as 普通 does, and the play is finished by the fast
rollout player (:mod:`paizhuo_engine.ai.rollout`). The option with the best mean points is
taken when it beats 普通's own choice clearly on the same deals (the rule of
:func:`paizhuo_engine.ai.search._pick`); otherwise 普通's choice stands.

Reads only what the seat knows: its hand, the public bids, the options — never another
hand, the bottom, nor another spy's answer while declaring (answers are simultaneous and
private, Z-9). Pure and deterministic in ``seed``; the time bound is the caller's (``stop``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from .decisions import SCORE_RANKS, choose_bid, choose_bury, choose_declare
from .inference import Evidence
from .rollout import ROLLOUT_MOVES, apply, known_sides, quick_action
from .search import SAMPLE_TRIES, _pick, deal_unseen, game_from_json

Setup = int | str | tuple[int, ...]
"""A decision before play: a bid (0 = 不叫), a choice ``明`` / ``明牌`` / ``暗``, or the
cards to bury (sorted)."""


def setup_phase(game: Any, seat: int) -> str | None:
    """Which decision before play ``seat`` owes in ``game``: ``"bid"`` (挖坑, its turn to
    bid), ``"bury"`` (挖坑, the digger to bury), ``"declare"`` (抓特务, a spy still to
    answer), or ``None``."""
    if getattr(game, "over", False):
        return None
    phase = getattr(game, "phase", None)
    if phase == "bid" and getattr(game, "bidder", None) == seat:
        return "bid"
    if phase == "bury" and getattr(game, "digger", None) == seat:
        return "bury"
    if phase == "declare" and seat in game.awaiting_declare():
        return "declare"
    return None


def normal_setup(game: Any, seat: int) -> Setup:
    """普通's decision for ``seat`` in the phase :func:`setup_phase` names (the rules of
    thumb of :mod:`paizhuo_engine.ai.decisions`). Raises ``ValueError`` when it owes none."""
    phase = setup_phase(game, seat)
    if phase == "bid":
        return choose_bid(game.hands[seat], game.bid_options(seat), game.rules.shaanxi)
    if phase == "bury":
        return tuple(_bury_normal(game.hands[seat], game.rules))
    if phase == "declare":
        return choose_declare(game.hands[seat], game.declare_choices(), game.rules.three_high)
    raise ValueError(f"seat {seat} owes no decision before play")


def _bury_normal(hand: list[int], rules: Any) -> list[int]:
    avoid = frozenset() if rules.shaanxi else SCORE_RANKS
    return choose_bury(hand, rules.rank_order(), avoid=avoid)


SCORE_CARDS_BURIED = 2
"""Score cards (5 / 10 / K, W-6) a searched burial may hold at most. Measured on the same
240 deals (docs/ai.md, 开局前的决定): with up to four (×16) the play-outs' verdict was
often wrong at great cost — a fast play-out overrates the digger — and the gain drowned
in the spread; with at most one (×2) or two (×4) it stands clear of it, two the higher."""


def bury_options(hand: list[int], rules: Any) -> list[tuple[int, ...]]:
    """Cards the digger might bury (W-3): 普通's choice (the cheapest four, no 5 / 10 / K
    while the hand allows), then — where each 5 / 10 / K buried doubles the stakes (W-6,
    not under 陕西) — the same with the cheapest one, two (up to :data:`SCORE_CARDS_BURIED`) of
    them put in place of the dearest of those four. Each option sorted, each once."""
    first = tuple(_bury_normal(hand, rules))
    out = [first]
    if rules.shaanxi:
        return out
    order = rules.rank_order()
    counts = Counter(c // 4 for c in hand)

    def cost(c: int) -> tuple[int, int, int]:
        return (counts[c // 4] > 1, order[c // 4], c)

    scoring = sorted((c for c in hand if c // 4 in SCORE_RANKS), key=cost)
    plain = sorted((c for c in hand if c // 4 not in SCORE_RANKS), key=cost)
    for k in range(1, SCORE_CARDS_BURIED + 1):
        if k > len(scoring) or 4 - k > len(plain):
            break
        option = tuple(sorted(plain[:4 - k] + scoring[:k]))
        if option not in out:
            out.append(option)
    return out


def options_of(game: Any, seat: int) -> list[Setup]:
    """Every option :func:`search_setup` weighs, 普通's choice first. ``明牌`` (Z-9) is
    never weighed: in a play-out every hand is known anyway, so showing one would look
    free and its quadrupled stake always better than 明 — a bias, not a finding."""
    phase = setup_phase(game, seat)
    first = normal_setup(game, seat)
    if phase == "bid":
        rest = [b for b in game.bid_options(seat) if b != first]
    elif phase == "bury":
        rest = bury_options(game.hands[seat], game.rules)[1:]
    else:
        rest = [c for c in game.declare_choices() if c not in (first, "明牌")]
    return [first, *rest]


def sample_setup_world(game: Any, seat: int, rng: random.Random,
                       evidence: Evidence | None = None, tries: int = SAMPLE_TRIES) -> Any:
    """A copy of ``game`` (before play) whose other hands — and, in 挖坑, the bottom — are
    dealt at random from the cards ``seat`` has not seen, every count kept; another spy's
    answer, not yet public (Z-9), is forgotten (that spy answers again in the copy). With
    ``evidence`` a deal is kept with the probability of its weight (the bids, W-2)."""
    data = game.to_json()
    players = game.players
    mine = set(game.hands[seat])
    others = [s for s in range(players) if s != seat]
    counts = {s: len(game.hands[s]) for s in others}
    bottom = list(data["bottom"] or []) if game.game == "wakeng" else []  # W-1: 3 cards
    pool = sorted(c for c in game.deck() if c not in mine)
    places = game.card_places(seat)
    deal: dict[int, list[int]] = {}
    best: tuple[float, dict[int, list[int]], list[int]] | None = None
    for _ in range(max(1, tries)):
        rng.shuffle(pool)
        deal, rest = deal_unseen(pool, counts, places, rng)
        if evidence is None:
            best = (1.0, deal, sorted(rest[:len(bottom)]))
            break
        w = evidence.weight(deal, game.rules)
        if best is None or w > best[0]:
            best = (w, deal, sorted(rest[:len(bottom)]))
        if rng.random() < w:
            best = (w, deal, sorted(rest[:len(bottom)]))
            break
    assert best is not None
    hands = [list(h) for h in data["hands"]]
    for s, h in best[1].items():
        hands[s] = h
    data["hands"] = hands
    if bottom:
        data["bottom"] = best[2]
    if game.game == "zhuatewu":
        data["declared"] = [d if s == seat else None for s, d in enumerate(data["declared"])]
        data["stakes"] = [st if s == seat else 1 for s, st in enumerate(data["stakes"])]
        data["everyone_answers"] = False  # the copy waits for the spies' answers only
    world = type(game).from_json(data)
    world.settle_sides()
    return world


def take_setup(world: Any, seat: int, option: Setup) -> None:
    """``seat`` takes ``option`` for the decision before play it owes in ``world`` (bid,
    burial or 明 / 暗), through the game's own calls (which raise ``MoveError`` when it is
    not allowed)."""
    phase = setup_phase(world, seat)
    if phase == "bid":
        world.place_bid(seat, int(option))  # type: ignore[arg-type]
    elif phase == "bury":
        world.bury(seat, list(option))  # type: ignore[arg-type]
    else:
        world.declare(seat, str(option))


def finish(world: Any, seat: int) -> float:
    """Points of ``seat`` when the rest of ``world`` (fully known, changed in place) is
    played out: decisions before play as 普通 takes them, then the fast rollout player,
    each seat playing by the sides it knows (:func:`known_sides`)."""
    for _ in range(12):
        if world.over or getattr(world, "phase", "play") == "play":
            break
        waiting = [s for s in range(world.players) if setup_phase(world, s)]
        if not waiting:
            break
        for s in waiting:
            if setup_phase(world, s):
                take_setup(world, s, normal_setup(world, s))
    secret = frozenset(getattr(world, "spy_cards", ()))
    views = known_sides(world)
    for _ in range(ROLLOUT_MOVES):
        if world.over:
            break
        s = world.turn
        action = quick_action(world, s, views[s])
        apply(world, s, action)
        if secret.intersection(action.cards):
            views = known_sides(world)  # a spy card played shows its side (Z-2)
    if not world.over:
        return 0.0
    return float(world.result["points"][seat])


def search_setup(state: dict, seat: int, seed: int, samples: int = 16,
                 stop: Callable[[], bool] | None = None,
                 info: dict | None = None) -> Setup:
    """困难's decision before play for ``seat`` in the game saved as ``state``: a bid
    (int), the cards to bury (tuple of card ids) or ``明`` / ``明牌`` / ``暗`` — see the
    module doc. Each option is played out on the same ``samples`` sampled deals; ``stop``
    (the caller's clock) is asked before each play-out, and the completed samples decide
    (none: 普通's choice). Deterministic in ``seed``. Raises ``ValueError`` when the seat
    owes no such decision."""
    game = game_from_json(state)
    options = options_of(game, seat)
    if len(options) == 1 or samples <= 0:
        return options[0]
    rng = random.Random(seed)
    evidence = Evidence(game, seat) if setup_phase(game, seat) == "bid" else None
    if evidence is not None and evidence.empty():
        evidence = None
    rows: list[list[float]] = []
    for _ in range(samples):
        if stop is not None and stop():
            break
        world = sample_setup_world(game, seat, random.Random(rng.getrandbits(32)), evidence)
        data = world.to_json()
        points = []
        for option in options:
            if stop is not None and stop():
                break
            copy = type(world).from_json(data)
            take_setup(copy, seat, option)
            points.append(finish(copy, seat))
        if len(points) < len(options):
            break
        rows.append(points)
    if info is not None:
        info.update(options=len(options), samples=len(rows))
    return options[_pick(rows)]
