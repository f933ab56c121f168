"""Variants of 困难's search measured against the shipped one on the same deals:
``python bench/search_tries.py --try NAME [--game "手把一 4 人"] [--seeds 0:90,2000:2090]``.

Each variant (a *try*) is a change to the search or its rollouts that did not beat the
shipped code, kept here so that the figures docs/ai.md gives for it can be reproduced. A try
is installed by replacing names in the engine's modules inside the worker processes (the
shipped code is not changed); ``--list`` names them all. The run plays every seed of
``--seeds`` as ``bench/tournament.py`` does (:func:`bench.tournament.duplicate_deal`: 困难 in
each seat in turn against a field of ``--field``, then the field player in its place), once
with the shipped search and once with the try, and prints both margins (points per game,
95% CI) and the paired difference (try − shipped, the same deals), with CPU per decision.
Deterministic: the same seeds give the same figures. About 2–3 minutes per 180 deals of
手把一 4 人 and side at 16 samples on 2 cores.

The tries read the engine's internals by name; they belong to the code they were measured
on and may need mending when the search changes.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.tournament as T  # noqa: E402
import paizhuo_engine.ai.inference as I  # noqa: E402
import paizhuo_engine.ai.rollout as R  # noqa: E402
import paizhuo_engine.ai.search as S  # noqa: E402
from paizhuo_engine.ai.simple import PASS, Action  # noqa: E402
from paizhuo_engine.ai.strategy import decide  # noqa: E402
from paizhuo_engine.ai.view import view_of  # noqa: E402
from paizhuo_engine.cards import rank_of  # noqa: E402
from paizhuo_engine.errors import MoveError  # noqa: E402
from paizhuo_engine.movegen import pack_cards, pack_counts, reading_of_json  # noqa: E402
from paizhuo_engine.moves import cards_for, generator  # noqa: E402


def _play_out(world: Any, seat: int,
              pick: Callable[[Any, int, int], Action | None] | None = None) -> float:
    """Points of ``seat`` once ``world`` is played to the end: ``pick(world, s, n)`` chooses
    seat ``s``'s move, the ``n``-th from here (``None``: the rollout player's,
    :func:`~paizhuo_engine.ai.rollout.quick_action`)."""
    side = R.sides(world)
    for n in range(R.ROLLOUT_MOVES):
        if world.over:
            break
        s = world.turn
        a = pick(world, s, n) if pick is not None else None
        R.apply(world, s, a or R.quick_action(world, s, side))
    return float(world.result["points"][seat]) if world.over else 0.0


def _confidence(value: float) -> Callable[[], None]:
    def install() -> None:
        S.CONFIDENCE = value
    install.__doc__ = f"Another move is taken when it beats the planner's choice by {value} " \
        f"standard errors (shipped: {S.CONFIDENCE})."
    return install


def _candidates_12() -> None:
    """Up to 12 candidate moves (shipped: 8)."""
    S.CANDIDATES = 12


def _follow_ranks() -> None:
    """Follows: up to 6 candidates per play type, each of another rank (shipped: the 2
    cheapest)."""
    def candidates(game: Any, seat: int, view: Any, first: Action) -> list[Action]:
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
        ranks: set[tuple[str, int]] = set()
        limit = 2 if view.lead is None else 6
        for p in islice(source, 300):
            if len(out) >= S.CANDIDATES:
                break
            if view.lead is None and p[1].bomb and len(view.hand) > 4:
                continue
            k = (p[1].kind, p[1].size)
            if per_kind.get(k, 0) >= limit:
                continue
            if view.lead is not None and (p[1].kind, p[1].key) in ranks:
                continue
            cards = tuple(cards_for(p, list(view.hand), protected))
            if ("play", cards) in keys or not S._legal(game, seat, cards, p):
                continue
            per_kind[k] = per_kind.get(k, 0) + 1
            ranks.add((p[1].kind, p[1].key))
            keys.add(("play", cards))
            out.append(Action("play", cards, p[1]))
        return out
    S._candidates = candidates


def _plan_leads() -> None:
    """Leads: every group of the hand's plan is a candidate, right after the planner's
    choice."""
    shipped = S._candidates

    def candidates(game: Any, seat: int, view: Any, first: Action) -> list[Action]:
        out = shipped(game, seat, view, first)
        if view.lead is not None:
            return out
        keys = {(a.kind, a.cards) for a in out}
        protected = tuple(game.protected())
        extra = []
        for p in R.plan_leads(view.rules, pack_cards(view.hand)) or ():
            if p[1].bomb:
                continue
            cards = tuple(cards_for(p, list(view.hand), protected))
            if ("play", cards) in keys or not S._legal(game, seat, cards, p):
                continue
            keys.add(("play", cards))
            extra.append(Action("play", cards, p[1]))
        return ([out[0]] + extra + out[1:])[:S.CANDIDATES]
    S._candidates = candidates


def _no_evidence() -> None:
    """The sampled deals are not weighed by passes and bids."""
    shipped = S.search_decide

    def search_decide(*args: Any, **kwargs: Any) -> Action:
        kwargs["use_evidence"] = False
        return shipped(*args, **kwargs)
    T.search_decide = search_decide


def _normal_rollout(moves: int, hero_only: bool) -> Callable[[], None]:
    """普通 (the planner) plays the first ``moves`` rollout moves — only the searching
    seat's with ``hero_only`` — the fast rollout player the rest."""
    def install() -> None:
        def playout(world: Any, seat: int, action: Action) -> float:
            def planner(w: Any, s: int, n: int) -> Action | None:
                if n < moves and (not hero_only or s == seat):
                    return decide(view_of(w, s), tuple(w.protected()))
                return None

            R.apply(world, seat, action)
            return _play_out(world, seat, planner)
        S.playout = playout
    install.__doc__ = ("普通 (the planner) plays the searching seat's rollout moves, the fast "
                       "rollout player the others'" if hero_only else
                       "普通 (the planner) plays every rollout move" if moves >= R.ROLLOUT_MOVES
                       else f"普通 (the planner) plays the first {moves} rollout moves, the fast "
                       "rollout player the rest")
    return install


def _close_calls() -> None:
    """When the best move beats the planner's choice by 0.3–1 standard error, the two get
    16 more sampled deals and are compared again."""
    def search_decide(state: dict, seat: int, seed: int, samples: int = 16,
                      **_ignored: Any) -> Action:
        game = S.game_from_json(state)
        view = view_of(game, seat)
        first = decide(view, tuple(game.protected()))
        if S.sure_line(view):
            return first
        cands = S._candidates(game, seat, view, first)
        if len(cands) == 1 or samples <= 0:
            return first
        rng = random.Random(seed)
        evidence = I.Evidence(game, seat)

        def world() -> Any:
            return S.sample_world(game, seat, random.Random(rng.getrandbits(32)),
                                  tries=S.SAMPLE_TRIES, evidence=evidence)
        rows = []
        for _ in range(samples):
            w = world()
            rows.append([S.playout(R.clone(w), seat, a) for a in cands])
        n = len(rows)
        means = [sum(r[i] for r in rows) / n for i in range(len(cands))]
        best = max(range(len(means)), key=lambda i: (means[i], -i))
        if best == 0:
            return first
        diffs = [r[best] - r[0] for r in rows]
        mean = sum(diffs) / n
        se = (sum((d - mean) ** 2 for d in diffs) / max(1, n - 1) / n) ** 0.5
        if mean <= 0 or (se > 0 and mean >= S.CONFIDENCE * se):
            return cands[S._pick(rows)]
        if mean < 0.3 * se:
            return first
        pairs = [[r[0], r[best]] for r in rows]
        for _ in range(16):
            w = world()
            pairs.append([S.playout(R.clone(w), seat, cands[0]),
                          S.playout(R.clone(w), seat, cands[best])])
        return cands[best] if S._pick(pairs) == 1 else first
    T.search_decide = search_decide


def _shed() -> None:
    """Rollout leads (手把一): against an opponent about to go out (1–2 cards), the
    biggest group of the plan they cannot follow by size (shipped: the weakest)."""
    shipped = R.lead_choice

    @lru_cache(maxsize=100_000)
    def lead_choice(rules: Any, hand: int, short: int) -> Any:
        if short > 2 or not rules.unplayed_doubles:
            return shipped(rules, hand, short)
        whole, groups = R._plan_plays(rules, hand)
        if whole is not None:
            return whole
        options = []
        for g, all_plays in groups:
            plays = [p for p in all_plays if not p[1].bomb]
            if g.kind == "bomb" or not plays:
                continue
            options.append(next((p for p in plays if p[1].kind == g.kind), plays[0]))
        fitting = [p for p in options if p[1].size != short or p[1].kind not in ("single", "pair")]
        if not fitting:
            return shipped(rules, hand, short)
        return max(fitting, key=lambda p: p[1].size)
    R.lead_choice = lead_choice


def _union_rivals() -> None:
    """Rollout sure plays are checked against all the opponents' cards pooled (as 普通
    sees the unseen cards), not against each opponent's hand of the sampled deal."""
    def rivals(game: Any, seat: int, side: list[int]) -> list[int]:
        mine = side[seat]
        cards = [c for s, h in enumerate(game.hands) if h and s != seat and side[s] != mine
                 for c in h]
        return [pack_cards(cards)] if cards else []
    R._rivals = rivals


def _random_rollout() -> None:
    """Each rollout move is, with probability 0.1, a random one of the first 12 leads (no
    bombs) or of the first 6 follows and the pass — the same draws for every candidate."""
    def random_action(world: Any, seat: int, rng: random.Random) -> Action | None:
        gen = generator(world.rules)
        hand = pack_cards(world.hands[seat])
        options: list[Any]
        if world.lead is None:
            options = [p for p in islice(gen.iter_leads(hand), 12) if not p[1].bomb]
        else:
            options = list(islice(gen.iter_follows(hand, reading_of_json(world.lead[2])), 6))
            try:
                world.check_pass(seat)
                options.append(None)
            except MoveError:
                pass
        if not options:
            return None
        p = rng.choice(options)
        return PASS if p is None else R._checked(world, seat, p)

    def playout(world: Any, seat: int, action: Action) -> float:
        rng = random.Random(repr(world.hands))
        R.apply(world, seat, action)
        return _play_out(world, seat, lambda w, s, _n: random_action(w, s, rng)
                         if rng.random() < 0.1 else None)
    S.playout = playout


def _two_ply() -> None:
    """In each rollout the searching seat's next move is the best of three (the rollout
    player's, the pass, the cheapest other plays), each played out: a second ply."""
    def playout(world: Any, seat: int, action: Action) -> float:
        R.apply(world, seat, action)
        side = R.sides(world)
        for _ in range(R.ROLLOUT_MOVES):
            if world.over:
                return float(world.result["points"][seat])
            if world.turn == seat:
                break
            R.apply(world, world.turn, R.quick_action(world, world.turn, side))
        else:
            return 0.0
        first = R.quick_action(world, seat, side)
        options = [first]
        gen = generator(world.rules)
        hand = pack_cards(world.hands[seat])
        if world.lead is None:
            source: Any = (p for p in gen.iter_leads(hand) if not p[1].bomb)
        else:
            source = gen.iter_follows(hand, reading_of_json(world.lead[2]))
            if first.kind != "pass":
                try:
                    world.check_pass(seat)
                    options.append(PASS)
                except MoveError:
                    pass
        for p in islice(source, 6):
            if len(options) >= 3:
                break
            a = R._checked(world, seat, p)
            if a is not None and all((a.kind, a.cards) != (o.kind, o.cards) for o in options):
                options.append(a)
        best = None
        for a in options:
            w = R.clone(world)
            R.apply(w, seat, a)
            v = _play_out(w, seat)
            best = v if best is None else max(best, v)
        return best if best is not None else 0.0
    S.playout = playout


def _clipped(limit: float) -> Callable[[], None]:
    def install() -> None:
        shipped = S.playout

        def playout(world: Any, seat: int, action: Action) -> float:
            return max(-limit, min(limit, shipped(world, seat, action)))
        S.playout = playout
    install.__doc__ = (f"Each rollout's points are clipped to ±{limit:g} before they are "
                       "averaged (less noise from the rare big wins and losses).")
    return install


def _restricted(keep: Callable[[Any, Action, list[Action]], list[Action]],
                doc: str) -> Callable[[], None]:
    """An ablation: the candidates the shipped search compares, cut down by ``keep(view,
    planner's choice, candidates)`` — where 困难's gain comes from."""
    def install() -> None:
        shipped = S._candidates

        def candidates(game: Any, seat: int, view: Any, first: Action) -> list[Action]:
            return keep(view, first, shipped(game, seat, view, first))
        S._candidates = candidates
    install.__doc__ = doc
    return install


def _confidence_by_choice(when_pass: float, when_play: float) -> Callable[[], None]:
    def install() -> None:
        shipped_candidates, shipped_pick = S._candidates, S._pick
        passed = [False]

        def candidates(game: Any, seat: int, view: Any, first: Action) -> list[Action]:
            passed[0] = first.kind == "pass"
            return shipped_candidates(game, seat, view, first)

        def pick(rows: list[list[float]]) -> int:
            S.CONFIDENCE = when_pass if passed[0] else when_play
            return shipped_pick(rows)
        S._candidates, S._pick = candidates, pick
    install.__doc__ = (f"Another move is taken when it beats the planner's choice by {when_pass:g} "
                       f"standard errors if the planner passes, {when_play:g} if it plays "
                       f"(shipped: {S.CONFIDENCE:g} for both).")
    return install


def _lead_evidence(last: int, miss: float, near: float) -> Callable[[], None]:
    """The sampled deals are also weighed by the other seats' last ``last`` leads: a deal
    in which the rollout's lead (:func:`~paizhuo_engine.ai.rollout.lead_choice`, the same
    as 普通's in 90% of 普通's own leads in 手把一 4 人) from that seat's hand at the time
    is another play of the same type counts ×``near``, of another type ×``miss``."""
    def install() -> None:
        shipped_init, shipped_weight, shipped_empty = (
            I.Evidence.__init__, I.Evidence.weight, I.Evidence.empty)

        def __init__(self: Any, game: Any, seat: int) -> None:
            shipped_init(self, game, seat)
            log, players = game.log, game.players
            kinds = list(getattr(game, "kinds", None) or [None] * len(log))
            left = [len(h) for h in game.hands]
            for s, cards in log:
                left[s] += len(cards)
            raw = []
            leading, passes, owner = True, 0, None
            for i, (s, cards) in enumerate(log):
                if cards:
                    if leading and s != seat:
                        short = min((left[t] for t in range(players) if t != s and left[t]),
                                    default=99)
                        raw.append((i, s, kinds[i], len(cards), pack_cards(cards), short))
                    left[s] -= len(cards)
                    owner, passes, leading = s, 0, False
                    continue
                passes += 1
                if passes >= sum(1 for t in range(players) if left[t] and t != owner):
                    leading, passes = True, 0
            marks = {r[0]: r for r in raw[-last:]}
            later = [[0] * 15 for _ in range(players)]
            self.leads = []
            for i in range(len(log) - 1, -1, -1):
                s, cards = log[i]
                for c in cards:
                    later[s][rank_of(c)] += 1
                if i in marks:
                    _i, who, kind, size, packed, short = marks[i]
                    self.leads.append((who, kind, size, packed, short if short <= 2 else 99,
                                       tuple(later[who])))

        def weight(self: Any, hands: dict[int, list[int]], rules: Any) -> float:
            w = shipped_weight(self, hands, rules)
            for who, kind, size, packed, short, later in self.leads:
                if who not in hands:
                    continue
                p = R.lead_choice(rules, pack_cards(hands[who]) + pack_counts(later), short)
                if p[0] != packed:
                    w *= near if (p[1].kind, p[1].size) == (kind, size) else miss
            return w

        def empty(self: Any) -> bool:
            return shipped_empty(self) and not self.leads

        I.Evidence.__init__ = __init__
        I.Evidence.weight = weight
        I.Evidence.empty = empty
    install.__doc__ = (_lead_evidence.__doc__ or "").replace("``last``", str(last)).replace(
        "``near``", str(near)).replace("``miss``", str(miss))
    return install


TRIES: dict[str, Callable[[], None]] = {
    "none": lambda: None,
    "confidence-0": _confidence(0.0),
    "confidence-0.5": _confidence(0.5),
    "confidence-1.5": _confidence(1.5),
    "confidence-2": _confidence(2.0),
    "candidates-12": _candidates_12,
    "follow-ranks": _follow_ranks,
    "plan-leads": _plan_leads,
    "no-evidence": _no_evidence,
    "normal-rollout": _normal_rollout(R.ROLLOUT_MOVES, False),
    "normal-rollout-4": _normal_rollout(4, False),
    "normal-rollout-hero": _normal_rollout(R.ROLLOUT_MOVES, True),
    "close-calls": _close_calls,
    "shed": _shed,
    "union-rivals": _union_rivals,
    "random-rollout": _random_rollout,
    "two-ply": _two_ply,
    "clip-20": _clipped(20),
    "no-pass-switch": _restricted(
        lambda _view, first, cands: cands if first.kind == "pass"
        else [a for a in cands if a.kind != "pass"],
        "Ablation: when the planner plays, passing is no candidate."),
    "no-play-switch": _restricted(
        lambda _view, first, cands: [first] if first.kind == "pass" else cands,
        "Ablation: when the planner passes, nothing is searched."),
    "play-or-pass": _restricted(
        lambda _view, first, cands: cands if first.kind == "pass"
        else [a for a in cands if a is first or a.kind == "pass"],
        "Ablation: when the planner plays, the pass is the only other candidate."),
    "no-lead-search": _restricted(
        lambda view, first, cands: [first] if view.lead is None else cands,
        "Ablation: a lead is not searched (the planner's)."),
    "pass-confidence-0.5": _confidence_by_choice(0.5, S.CONFIDENCE),
    "play-confidence-1.5": _confidence_by_choice(S.CONFIDENCE, 1.5),
    "lead-evidence": _lead_evidence(4, 0.3, 0.6),
    "lead-evidence-8": _lead_evidence(8, 0.15, 0.4),
}
"""The tries by name (``none``: the shipped search, e.g. with another ``--try-samples``);
each function's docstring says what it changes."""


def _init(name: str, samples: int, setup_samples: int) -> None:
    TRIES[name]()
    T.Hard.samples = samples
    T.Hard.setup_samples = setup_samples


def _deal(job: tuple[str, str, int]) -> tuple[float, float, float, int]:
    game, field, seed = job
    r = T.duplicate_deal(game, field, seed, "困难")
    return r[0], r[2], r[4], r[5]


def _rows(name: str, samples: int, ns: argparse.Namespace,
          seeds: list[int]) -> list[tuple[float, float, float, int]]:
    with ProcessPoolExecutor(ns.jobs, initializer=_init,
                             initargs=(name, samples, ns.setup_samples)) as pool:
        return list(pool.map(_deal, [(ns.game, ns.field, s) for s in seeds], chunksize=1))


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        first, _colon, end = part.partition(":")
        out += range(int(first), int(end)) if end else [int(first)]
    return out


def _mean_ci(xs: list[float]) -> str:
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, n - 1))
    return f"{m:+.2f} ± {1.96 * sd / math.sqrt(n):.2f}"


class _LeadWatch:
    """普通 at one seat (``inner``), counting how often the rollout's lead rule
    (:func:`~paizhuo_engine.ai.rollout.lead_choice`) picks the lead 普通 picks: ``counts``
    gets ``same`` (the same cards by rank), ``type`` (another play of the same type) or
    ``other``."""

    def __init__(self, inner: Any, counts: dict[str, int]) -> None:
        self.inner = inner
        self.counts = counts

    def play(self, game: Any, seat: int) -> Action:
        action = self.inner.play(game, seat)
        if game.lead is None and action.kind == "play":
            short = min((len(h) for s, h in enumerate(game.hands) if s != seat and h),
                        default=99)
            p = R.lead_choice(game.rules, pack_cards(game.hands[seat]), short if short <= 2 else 99)
            key = ("same" if p[0] == pack_cards(action.cards) else "type"
                   if (p[1].kind, p[1].size) == (action.reading.kind, len(action.cards)) else "other")
            self.counts[key] += 1
        return action

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def lead_match(game: str, deals: int) -> dict[str, int]:
    """How often the rollout's lead rule agrees with 普通's own leads over ``deals`` deals
    (seeds 0 to ``deals`` − 1) of ``game`` with 普通 at every seat (the basis of the
    ``lead-evidence`` tries): counts as :class:`_LeadWatch` keeps them."""
    kind, players, rules = T.CONFIGS[game]
    counts = {"same": 0, "type": 0, "other": 0}
    for seed in range(deals):
        seats = [_LeadWatch(T.make("普通", seed, i), counts) for i in range(players)]
        T.play_deal(kind, players, rules, seed, seats)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--try", dest="name", choices=sorted(TRIES), help="the variant")
    parser.add_argument("--list", action="store_true", help="name and describe every try")
    parser.add_argument("--game", default="手把一 4 人", choices=list(T.CONFIGS))
    parser.add_argument("--field", default="普通", help="the opponents (as bench/tournament.py)")
    parser.add_argument("--seeds", default="0:90,2000:2090",
                        help="deals: comma-separated seeds or FIRST:END ranges")
    parser.add_argument("--samples", type=int, default=16, help="困难: deals per candidate")
    parser.add_argument("--try-samples", type=int, help="the same for the try (default --samples)")
    parser.add_argument("--setup-samples", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--lead-match", type=int, metavar="DEALS",
                        help="only count how often the rollout's lead rule picks 普通's lead")
    ns = parser.parse_args()
    if ns.lead_match:
        counts = lead_match(ns.game, ns.lead_match)
        print(f"{ns.game}, {ns.lead_match} deals of 普通: the rollout's lead is 普通's in "
              f"{counts['same']} of {sum(counts.values())} leads (same type, other cards: "
              f"{counts['type']}; another type: {counts['other']})")
        return
    if ns.list or not ns.name:
        for name, install in TRIES.items():
            doc = " ".join((install.__doc__ or "the shipped search").split())
            print(f"{name}: {doc}")
        return
    seeds = _seeds(ns.seeds)
    try_samples = ns.try_samples or ns.samples
    print(f"{ns.game}, 困难 against {ns.field}, {len(seeds)} duplicate deals ({ns.seeds}); "
          f"95% CI")
    results = {}
    for label, name, samples in (("shipped", "none", ns.samples),
                                 (ns.name, ns.name, try_samples)):
        rows = _rows(name, samples, ns, seeds)
        cpu = sum(r[2] for r in rows) / max(1, sum(r[3] for r in rows))
        results[label] = rows
        print(f"{label} ({samples} samples): 困难 − {ns.field} "
              f"{_mean_ci([r[0] - r[1] for r in rows])}, CPU/decision {cpu * 1e3:.1f} ms",
              flush=True)
    paired = [b[0] - a[0] for a, b in zip(results["shipped"], results[ns.name], strict=True)]
    print(f"paired ({ns.name} − shipped, 困难's points): {_mean_ci(paired)}; "
          f"deals that differ: {sum(1 for d in paired if d)}")


if __name__ == "__main__":
    main()
