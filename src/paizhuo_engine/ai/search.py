"""困难: the computer player that searches (determinized sampling, RULES.md G-6).

:func:`search_decide` takes a game state (the engine's JSON) and a seat, and chooses among
a few candidate moves — the planner's own choice, the cheapest legal plays, and a pass when
allowed — by playing each one out on ``samples`` deals of the unseen cards. Each sample
deals the cards the seat has not seen to the other seats (and out of play) at random, with
every card count kept and every public fact kept: a 明牌 spy's open hand stays, a spy who
declared (明 / 明牌) and has played no spy card holds one. What passes and 挖坑 bids say
about a hand weighs the deals (:mod:`paizhuo_engine.ai.inference`: a deal that explains them
badly is redrawn, up to :data:`SAMPLE_TRIES` times). Every candidate is played out on the
same deal by the fast rollout player (:mod:`paizhuo_engine.ai.rollout`) at every seat; the
candidate with the best mean points for the seat is chosen when it beats the planner's
own choice clearly on the same deals (:func:`_pick`), else the planner's choice stands.

The planner's choice stands without a search when it is a sure way out, when the trick is
a known partner's and no seat that may be an opponent is about to go out
(:func:`partners_trick`: a partner's play is not covered), and when it leads a chain no
opponent can follow (:func:`~paizhuo_engine.ai.strategy.free_chain`: led now or later, it
keeps the lead — the search would only choose between equals by noise). A play that would
show both spy cards of a hidden lone spy is no candidate
(:func:`~paizhuo_engine.ai.strategy.shows_alone`, Z-2 / Z-9).

Everything is drawn from what the seat knows and from ``seed`` — never from the hidden
cards in the state — so reshuffling the hidden cards (consistently with what the seat saw)
never changes the decision. Pure and deterministic; the time bound is the caller's
(``samples``, ``stop``), the worker pool lives in the chat layer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import islice
from typing import Any

from ..movegen import Play, pack_cards
from ..moves import cards_for, generator
from .endgame import sure_line
from .inference import Evidence
from .rollout import clone, known_sides, playout
from .simple import PASS, Action
from .strategy import decide, free_chain, shows_alone
from .view import View, view_of

CANDIDATES = 8
"""Moves compared per decision at most (the planner's choice first)."""

SAMPLE_TRIES = 24
"""Deals drawn per sample at most when weighing them by what passes and bids said."""

CONFIDENCE = 1.0
"""Standard errors by which another move must beat the planner's choice to be taken."""

ABOUT_TO_GO_OUT = 2
"""A seat that may be an opponent is about to go out with this many cards or fewer."""


def game_from_json(data: dict) -> Any:
    """The game of a state saved by ``to_json`` (抓特务 / 挖坑 / 手把一), by its ``"game"``
    field (:attr:`~paizhuo_engine.climbing.ClimbingGame.game`). A state saved before that
    field existed is told by the fields only its game has (``spy_cards``, ``buried``).
    Raises ``KeyError`` for an unknown game name."""
    from ..shoubayi.game import SGame
    from ..wakeng.game import WGame
    from ..zhuatewu.game import ZGame

    games = {cls.game: cls for cls in (ZGame, WGame, SGame)}
    name = data.get("game") or ("zhuatewu" if "spy_cards" in data
                                else "wakeng" if "buried" in data else "shoubayi")
    return games[name].from_json(data)


def _public_hands(game: Any, seat: int) -> dict[int, list[int]]:
    """Hands every seat sees (明牌, Z-9)."""
    return {s: list(game.hands[s]) for s in game.open_seats() if s != seat}


def deal_unseen(pool: list[int], counts: dict[int, int], places: dict[int, frozenset[int]],
                rng: random.Random) -> tuple[dict[int, list[int]], list[int]]:
    """Deal the shuffled ``pool`` to the seats of ``counts`` (``{seat: cards}``, in that
    order): ``(hands, rest)``, each hand sorted, ``rest`` the cards left over in pool
    order (those out of play). A card of ``places`` (``{card: seats}``,
    :meth:`~paizhuo_engine.climbing.ClimbingGame.card_places`) goes to one of its seats,
    drawn by the room each has left — the most constrained cards first; one that fits
    nowhere (what a seat knows cannot contradict itself, so never in play) is dealt like
    the others. Without ``places`` it is a plain cut of ``pool``, the same for the same
    ``rng``."""
    hands: dict[int, list[int]] = {s: [] for s in counts}
    free = pool
    if places:
        placed = sorted((c for c in pool if c in places),
                        key=lambda c: sum(1 for s in counts if s in places[c]))
        free = [c for c in pool if c not in places]
        for c in placed:
            room = [(s, counts[s] - len(hands[s])) for s in counts if s in places[c]]
            total = sum(r for _s, r in room if r > 0)
            if total <= 0:
                free.append(c)
                continue
            pick = rng.randrange(total)
            for s, r in room:
                if r <= 0:
                    continue
                if pick < r:
                    hands[s].append(c)
                    break
                pick -= r
    rest = list(free)
    for s in counts:
        need = counts[s] - len(hands[s])
        hands[s], rest = sorted(hands[s] + rest[:need]), rest[need:]
    return hands, rest


def sample_world(game: Any, seat: int, rng: random.Random, tries: int = 50,
                 evidence: Evidence | None = None) -> Any:
    """A copy of ``game`` whose other hands (and cards out of play) are dealt at random
    from the cards ``seat`` has not seen, keeping every count and the public facts of the
    module doc. Reads only what ``seat`` may know.

    With ``evidence`` (what passes and bids said, :class:`~paizhuo_engine.ai.inference.Evidence`)
    a deal is kept with the probability of its :meth:`~paizhuo_engine.ai.inference.Evidence.weight`
    (rejection sampling); after ``tries`` deals the most likely one seen is kept."""
    data = game.to_json()
    players = game.players
    played = {c for _s, cs in game.log for c in cs}
    mine = set(game.hands[seat])
    fixed = _public_hands(game, seat)
    known_out = set(game.out_of_play_seen(seat))
    taken = played | mine | known_out | {c for h in fixed.values() for c in h}
    pool = sorted(c for c in game.deck() if c not in taken)
    others = [s for s in range(players) if s != seat and s not in fixed]
    counts = {s: len(game.hands[s]) for s in others}
    spies, spy_cards = game.known_holders(seat)
    spies = [s for s in spies if s in counts]  # an open (明牌) hand already shows its spy card
    places = game.card_places(seat)
    if evidence is not None and evidence.empty():
        evidence = None
    hands: dict[int, list[int]] = {}
    best: tuple[float, dict[int, list[int]]] | None = None
    for _ in range(tries):
        rng.shuffle(pool)
        deal, _rest = deal_unseen(pool, counts, places, rng)
        if not all(spy_cards.intersection(deal[s]) for s in spies):
            if best is None:
                hands = deal
            continue
        if evidence is None:
            hands = deal
            break
        w = evidence.weight(deal, game.rules)
        if best is None or w > best[0]:
            best = (w, deal)
        if rng.random() < w:
            best = (w, deal)
            break
    if best is not None:
        hands = best[1]
    new_hands = [list(h) for h in data["hands"]]
    for s, h in hands.items():
        new_hands[s] = h
    for s, h in fixed.items():
        new_hands[s] = h
    data["hands"] = new_hands
    used = {c for h in new_hands for c in h} | played
    leftover = sorted(c for c in game.deck() if c not in used)
    game.refill_out_of_play(data, seat, leftover)
    world = type(game).from_json(data)
    world.settle_sides()
    return world


def _candidates(game: Any, seat: int, view: View, first: Action) -> list[Action]:
    """The planner's choice, then the cheapest legal plays (leads without bombs) and a
    pass when allowed, at most :data:`CANDIDATES`, each once."""
    gen = generator(view.rules)
    hand = pack_cards(view.hand)
    protected = tuple(game.protected())
    out = [first]
    keys = {(first.kind, first.cards)}
    if view.lead is not None and view.may_pass and first.kind != "pass":
        out.append(PASS)
        keys.add(("pass", ()))
    source = gen.iter_leads(hand) if view.lead is None else gen.iter_follows(hand, view.lead[1])
    per_kind: dict[tuple[str, int], int] = {}
    for p in islice(source, 300):
        if len(out) >= CANDIDATES:
            break
        if view.lead is None and p[1].bomb and len(view.hand) > 4:
            continue
        if shows_alone(view, p):
            continue  # Z-9: a hidden lone spy keeps its spy cards apart (see strategy)
        k = (p[1].kind, p[1].size)
        if per_kind.get(k, 0) >= 2:
            continue
        cards = tuple(cards_for(p, list(view.hand), protected))
        if ("play", cards) in keys or not _legal(game, seat, cards, p):
            continue
        per_kind[k] = per_kind.get(k, 0) + 1
        keys.add(("play", cards))
        out.append(Action("play", cards, p[1]))
    return out


def partners_trick(view: View) -> bool:
    """The play to beat is a known partner's (抓特务 sides the seat knows, Z-2 / Z-9; 挖坑
    farmers, W-2) who still holds cards, and no seat that may be an opponent holds
    :data:`ABOUT_TO_GO_OUT` cards or fewer: the partner wins the trick unless this seat
    covers it, so the search leaves it to 普通 (which lets it stand, or goes out)."""
    if view.lead is None:
        return False
    owner = view.lead[0]
    if owner not in view.partners or not view.counts[owner]:
        return False
    return not any(view.counts[s] <= ABOUT_TO_GO_OUT for s in range(view.players)
                   if s != view.seat and s not in view.partners and view.counts[s])


def _legal(game: Any, seat: int, cards: tuple[int, ...], play: Play) -> bool:
    try:
        game.check_play(seat, list(cards), play[1])
    except Exception:  # noqa: BLE001 - a game's own refusal (S-3 lone joker)
        return False
    return True


def search_decide(state: dict, seat: int, seed: int, samples: int = 16,
                  stop: Callable[[], bool] | None = None, use_evidence: bool = True,
                  info: dict | None = None) -> Action:
    """困难's action for ``seat`` in the game saved as ``state`` (its ``to_json``),
    whose turn it is: see the module doc. ``samples`` deals are played out for each
    candidate (cost ≈ samples × candidates rollouts). Deterministic in ``seed``.

    ``stop`` (the caller's time budget; the engine reads no clock) is asked before each
    rollout: when it says so, the samples completed so far decide (none: the planner's
    choice). ``use_evidence``: weigh the sampled deals by what passes and bids said
    (:mod:`paizhuo_engine.ai.inference`). ``info``, when given, receives ``candidates`` and
    ``samples`` (completed) for measurement."""
    game = game_from_json(state)
    view = view_of(game, seat)
    protected = tuple(game.protected())
    first = decide(view, protected)
    if sure_line(view):
        return first  # the planner already takes a sure way out
    if partners_trick(view):
        return first  # a partner's trick is not covered
    if view.lead is None and first.reading is not None and free_chain(
            view, (pack_cards(first.cards), first.reading)):
        return first  # a chain nobody can follow keeps the lead whenever it is led
    cands = _candidates(game, seat, view, first)
    if len(cands) == 1 or samples <= 0:
        return first
    rng = random.Random(seed)
    evidence = Evidence(game, seat) if use_evidence else None
    rows: list[list[float]] = []
    for _ in range(samples):
        if stop is not None and stop():
            break
        world = sample_world(game, seat, random.Random(rng.getrandbits(32)),
                             tries=SAMPLE_TRIES, evidence=evidence)
        views = known_sides(world) if getattr(world, "spy_cards", None) else None
        points = []
        for action in cands:
            if stop is not None and stop():
                break
            points.append(playout(clone(world), seat, action, views))
        if len(points) < len(cands):
            break  # out of time: a sample counts only when every candidate played it
        rows.append(points)
    if info is not None:
        info.update(candidates=len(cands), samples=len(rows))
    return cands[_pick(rows)]


def _pick(rows: list[list[float]]) -> int:
    """The candidate with the best mean over the samples ``rows`` (one row per sampled
    deal, one column per candidate), if it beats the planner's choice (column 0) clearly:
    the mean of the paired differences at least :data:`CONFIDENCE` standard errors above
    zero. Otherwise 0 — a handful of samples is noisy, and the planner is the prior."""
    if not rows:
        return 0
    n = len(rows)
    means = [sum(r[i] for r in rows) / n for i in range(len(rows[0]))]
    best = max(range(len(means)), key=lambda i: (means[i], -i))
    if best == 0:
        return 0
    diffs = [r[best] - r[0] for r in rows]
    mean = sum(diffs) / n
    if mean <= 0:
        return 0
    if n == 1:
        return best if CONFIDENCE <= 0 else 0
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    se = (var / n) ** 0.5
    return best if se == 0 or mean >= CONFIDENCE * se else 0

