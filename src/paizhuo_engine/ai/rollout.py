"""困难's rollouts: a fast greedy player for the sampled deals (RULES.md G-6 search).

A rollout plays a sampled deal (every hand known: it is one guess at the hidden cards)
to the end, so the player used inside it must be cheap — 困难 compares several candidate
moves on many sampled deals within a few hundred milliseconds. :func:`quick_action` is
the planner's idea (:mod:`paizhuo_engine.ai.plan`) reduced to what can be memoised on packed rank
counts (:mod:`paizhuo_engine.movegen`):

* **Lead** — the whole hand when it is one play; else, when the plan has two or three
  groups and all but one of them are sure (no active opponent's hand — known in the
  rollout — can beat it, bombs included), a sure one: the last group then goes out
  (:func:`sure_lead`, RULES.md G-3); else the weakest group of the hand's plan (low ranks
  first, chains and sets before singles, bombs kept); against an opponent about to go out
  (1–2 cards), a group they could not follow by size.
* **Follow** — go out when a follow empties the hand; let the partner's play stand;
  against an opponent about to go out, beat with anything (bombs included); otherwise
  beat only with a follow that does not make the hand's plan longer and spends no top
  card (unless the hand is small). 把一必拦 (S-4) is obeyed: when passing is refused,
  the cheapest follow. 手把一: a seat that has not played yet beats with anything while
  an opponent holds 3 cards or fewer (S-6, the never-played ×2); with 包赔 on and the
  next player down to one card, a single is the seat's highest (S-4, as 普通 plays).

In 抓特务 each seat of a play-out plays by the sides it knows (:func:`known_sides`, Z-9):
a hidden spy stays hidden until a spy card is played, so what a play shows is paid for.

The choices for a hand are cached by ``(rules, packed hand, play to beat)``, so the many
rollouts of one decision share the work. :func:`clone` copies a game in its play phase
without a JSON round trip. Pure and deterministic (no randomness, no clock).
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache
from itertools import islice
from typing import Any

from ..cards import rank_of
from ..errors import MoveError
from ..movegen import _MASK, SHIFTS, Play, pack_cards, pack_counts, reading_of_json, unpack
from ..moves import cards_for, generator
from ..readings import Reading
from .plan import GameShape, Group, plan_hand, shape_of
from .simple import PASS, Action
from .strategy import _plays_of

ROLLOUT_MOVES = 2000
"""A rollout stops after this many moves (never reached in practice)."""

FOLLOWS_LOOKED_AT = 40
"""Follows a rollout player looks at per decision (cheapest first)."""

FOLLOWS_WEIGHED = 8
"""Of those, the follows without a bomb whose effect on the hand's plan is weighed."""

SURE_FOLLOW_CARDS = 7
"""A follow into a sure way out (:func:`sure_follow`) is looked for in hands this small."""

SURE_FOLLOWS = 8
"""Follows :func:`sure_follow` looks at (cheapest first)."""

_FIELDS: dict[type, tuple[str, ...]] = {}


def clone(game: Any) -> Any:
    """A copy of ``game`` (a climbing game in its play phase) that playing on does not
    touch: every list and dict field is copied one level deep — play replaces a seat's
    hand and appends to the log, it never edits an inner list."""
    cls = type(game)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    new = object.__new__(cls)
    for name in names:
        value = getattr(game, name)
        if isinstance(value, list):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        object.__setattr__(new, name, value)
    return new


def sides(game: Any) -> list[int]:
    """Each seat's side in a (sampled, fully known) deal: seats with the same number
    play together (抓特务 spies / civilians, 挖坑 farmers against the digger, 手把一
    everyone for themselves)."""
    return game.teams()


@lru_cache(maxsize=30_000)
def _plan_plays(rules: Any, hand: int) -> tuple[Play | None, tuple[tuple[Group, tuple[Play, ...]], ...]]:
    """The packed ``hand``'s first lead that takes the whole hand (no bomb), or ``None``;
    and each group of its plan (:func:`~paizhuo_engine.ai.plan.plan_hand`) with the leads
    that take exactly that group's cards. Shared by every ``short`` of :func:`lead_choice`
    and by :func:`plan_leads`."""
    gen = generator(rules)
    counts = list(unpack(hand))
    whole = next((p for p in _plays_of(gen, hand, counts, hand, sum(counts)) if not p[1].bomb),
                 None)
    groups = tuple((g, tuple(_plays_of(gen, hand, counts, pack_counts(g.counts()), g.size)))
                   for g in plan_hand(counts, shape_of(rules)))
    return whole, groups


@lru_cache(maxsize=100_000)
def lead_choice(rules: Any, hand: int, short: int) -> Play:
    """The rollout lead of the packed ``hand`` (see the module doc); ``short`` is the
    fewest cards an active opponent holds (99 when none is short)."""
    whole, groups = _plan_plays(rules, hand)
    if whole is not None:
        return whole
    weight = shape_of(rules).weight
    options: list[tuple[tuple, Play]] = []
    for g, all_plays in groups:
        if g.kind == "bomb":
            continue
        plays = [p for p in all_plays if not p[1].bomb]
        if not plays:
            continue
        play = next((p for p in plays if p[1].kind == g.kind), plays[0])
        low = weight[g.ranks[0]]
        if play[1].kind != "single":
            low -= 1.5 * len(g.ranks) + 0.5 * (g.width - 1)
        options.append(((low, -play[1].size), play))
    if not options:
        return next(p for p in generator(rules).iter_leads(hand))
    options.sort(key=lambda o: o[0])
    if short <= 2:
        fitting = [o for o in options if o[1][1].size != short
                   or o[1][1].kind not in ("single", "pair")]
        if fitting:
            return fitting[0][1]
        return options[-1][1]
    return options[0][1]


@lru_cache(maxsize=64)
def _top_mask(rules: Any) -> int:
    """The ranks a cheap follow does not spend, as a mask of packed rank fields: the three
    highest, or only the highest below the jokers (2) when a joker kept in hand is costly
    and jokers are spent freely (S-6)."""
    weight = shape_of(rules).weight
    top = sorted(range(15), key=lambda r: weight[r])[-3:]
    return sum(_MASK << SHIFTS[r] for r in (top[:1] if rules.held_jokers_double else top))


@lru_cache(maxsize=100_000)
def plan_size(hand: int, shape: GameShape) -> int:
    """How many groups the plan of the packed ``hand`` has (:func:`~paizhuo_engine.ai.plan.plan_hand`)."""
    return len(plan_hand(unpack(hand), shape))


@lru_cache(maxsize=200_000)
def follow_choice(rules: Any, hand: int, to_beat: Reading) -> tuple[Play | None, Play | None,
                                                                  bool, Play | None]:
    """What the packed ``hand`` can do against ``to_beat``: ``(going out, the best
    follow without a bomb, whether that follow is cheap — the plan gets no longer and no
    top card is spent — the lowest bomb)``; ``None`` where there is none."""
    gen = generator(rules)
    shape = shape_of(rules)
    base = plan_size(hand, shape)
    top = _top_mask(rules)
    best: tuple[tuple, Play] | None = None
    bomb: Play | None = None
    weighed = 0
    for p in islice(gen.iter_follows(hand, to_beat), FOLLOWS_LOOKED_AT):
        if p[0] == hand:
            return p, None, False, None
        if p[1].bomb:
            bomb = bomb or p
            continue
        if weighed >= FOLLOWS_WEIGHED:
            continue
        weighed += 1
        delta = plan_size(hand - p[0], shape) - (base - 1)  # fieldwise: no borrow
        control = bool(p[0] & top)
        key = (delta, control, p[1].key)
        if best is None or key < best[0]:
            best = (key, p)
    if best is None:
        return None, None, False, bomb
    (delta, control, _key), play = best
    cheap = delta <= 0 and (not control or sum(unpack(hand)) <= 8)
    return None, play, cheap, bomb


def _act(game: Any, seat: int, play: Play) -> Action:
    return Action("play", tuple(cards_for(play, game.hands[seat], game.protected())), play[1])


def plan_leads(rules: Any, hand: int) -> tuple[Play, ...] | None:
    """One lead per group of the packed ``hand``'s plan (:func:`~paizhuo_engine.ai.plan.plan_hand`,
    bombs included), in the plan's order; ``None`` when a group is no legal lead."""
    out = []
    for g, plays in _plan_plays(rules, hand)[1]:
        if not plays:
            return None
        out.append(next((p for p in plays if p[1].kind == g.kind), plays[0]))
    return tuple(out)


@lru_cache(maxsize=50_000)
def can_beat(rules: Any, hand: int, to_beat: Reading) -> bool:
    """Whether the packed ``hand`` holds a play that beats ``to_beat`` (bombs included)."""
    return next(generator(rules).iter_follows(hand, to_beat), None) is not None


def _rivals(game: Any, seat: int, side: list[int]) -> list[int]:
    """The packed hands of the active opponents of ``seat``."""
    mine = side[seat]
    return [pack_cards(h) for s, h in enumerate(game.hands) if h and s != seat and side[s] != mine]


def _sure_plan(rules: Any, hand: int, rivals: list[int]) -> tuple[Play, ...] | None:
    """The sure groups of the packed ``hand``'s plan when it has at most three groups and
    every group but at most one is sure — no hand of ``rivals`` can beat it — else ``None``."""
    if not 1 <= plan_size(hand, shape_of(rules)) <= 3:
        return None  # the plan's size is cached for every hand already (follow_choice)
    plays = plan_leads(rules, hand)
    if plays is None:
        return None
    sure = tuple(p for p in plays if not any(can_beat(rules, r, p[1]) for r in rivals))
    return sure if len(plays) - len(sure) <= 1 else None


def sure_lead(game: Any, seat: int, side: list[int], hand: int) -> Play | None:
    """A lead of a sure way out in a fully known ``game`` (a rollout's deal): the packed
    ``hand``'s plan has two or three groups and every group but at most one is sure — no
    active opponent's hand can beat it — so leading the sure ones keeps the lead and the
    last group goes out (G-3). The first sure group, else ``None``."""
    if plan_size(hand, shape_of(game.rules)) < 2:
        return None
    sure = _sure_plan(game.rules, hand, _rivals(game, seat, side))
    return sure[0] if sure else None


def sure_follow(game: Any, seat: int, side: list[int], hand: int,
                to_beat: Reading) -> Action | None:
    """A follow into a sure way out in a fully known ``game``: among the first
    :data:`SURE_FOLLOWS` follows of the packed ``hand`` (cheapest first), one that no active
    opponent can beat — the lead comes back — and that leaves a plan :func:`sure_lead`
    could finish (G-3); ``None`` when there is none. Asked only for hands of at most
    :data:`SURE_FOLLOW_CARDS` cards."""
    rivals = _rivals(game, seat, side)
    if not rivals:
        return None
    rules = game.rules
    for p in islice(generator(rules).iter_follows(hand, to_beat), SURE_FOLLOWS):
        if p[0] == hand or any(can_beat(rules, r, p[1]) for r in rivals):
            continue
        if _sure_plan(rules, hand - p[0], rivals) is not None:
            action = _checked(game, seat, p)
            if action is not None:
                return action
    return None


def _checked(game: Any, seat: int, play: Play) -> Action | None:
    """``play`` as an action, or ``None`` when the game refuses it (S-3 lone joker)."""
    action = _act(game, seat, play)
    try:
        game.check_play(seat, list(action.cards), play[1])
    except MoveError:
        return None
    return action


def _highest_single(game: Any, seat: int, action: Action) -> Action:
    """S-4 包赔 (as 普通 plays it): the next active player holds one card and ``action``
    is a single that is not the seat's highest — the highest single instead, when it may
    be played (it beats the table as the lower one did)."""
    rules = game.rules
    hand = game.hands[seat]
    if (not rules.last_card_liability or action.reading is None
            or action.reading.kind != "single" or len(game.hands[game.next_active(seat)]) != 1):
        return action
    weight = shape_of(rules).weight
    top = max({rank_of(c) for c in hand}, key=weight.__getitem__)
    if rank_of(action.cards[0]) == top:
        return action
    gen = generator(rules)
    packed = pack_cards(hand)
    source = gen.iter_leads(packed) if game.lead is None else gen.iter_follows(
        packed, reading_of_json(game.lead[2]))
    for p in source:
        if p[1].kind == "single" and unpack(p[0])[top]:
            return _checked(game, seat, p) or action
    return action


def quick_action(game: Any, seat: int, side: list[int]) -> Action:
    """The rollout player's action for ``seat`` (whose turn it is) in a fully known
    ``game``; ``side`` as :func:`sides` gives it. Legal (the game's own refusals, S-3 /
    S-4, are checked)."""
    hand = pack_cards(game.hands[seat])
    counts = [len(h) for h in game.hands]
    mine = side[seat]
    players = game.players
    if game.lead is None:
        short = min((counts[s] for s in range(players) if side[s] != mine and counts[s]),
                    default=99)
        play = lead_choice(game.rules, hand, short if short <= 2 else 99)
        action = None
        if play[0] != hand:  # not going out at once: a sure way out first
            sure = sure_lead(game, seat, side, hand)
            action = _checked(game, seat, sure) if sure is not None else None
        return _highest_single(game, seat, action or _act(game, seat, play))
    owner = game.lead[0]
    to_beat = reading_of_json(game.lead[2])
    may_pass = True
    if game.pass_may_be_refused:
        try:
            game.check_pass(seat)
        except MoveError:
            may_pass = False
    left = counts[seat]
    choices = None
    if left <= SURE_FOLLOW_CARDS:
        choices = follow_choice(game.rules, hand, to_beat)
        sure = sure_follow(game, seat, side, hand, to_beat) if choices[0] is None else None
        if sure is not None:
            return sure
    if (may_pass and side[owner] == mine and counts[owner]
            and left != to_beat.size and left > 4):
        return PASS  # the partner's trick, and no follow could empty the hand
    out, best, cheap, bomb = choices or follow_choice(game.rules, hand, to_beat)
    choice: Play | None
    if out is not None:
        choice = out
    elif not may_pass:
        choice = best or bomb
    elif side[owner] == mine and counts[owner]:
        choice = None
    elif counts[owner] <= max(2, to_beat.size) and side[owner] != mine:
        choice = best or bomb
    elif cheap:
        choice = best
    else:
        choice = None
    if (choice is None and game.rules.unplayed_doubles and not game.played[seat]
            and min((counts[s] for s in range(players) if side[s] != mine and counts[s]),
                    default=99) <= 3):
        choice = best or bomb  # S-6: any play now halves the loss
    if choice is None:
        return PASS
    action = _checked(game, seat, choice)
    if action is None:  # S-3: never keep a lone joker
        return PASS if may_pass else _act(game, seat, choice)
    return _highest_single(game, seat, action)


def apply(game: Any, seat: int, action: Action) -> None:
    """Play ``action`` for ``seat`` through the trusted path (it carries its reading)."""
    if action.kind == "pass":
        game.pass_turn(seat)
    else:
        game.play_reading(seat, list(action.cards), action.reading)


def known_sides(world: Any) -> list[list[int]]:
    """For each seat, the sides as that seat knows them (``sides_known_to``, G-6), in the
    shape :func:`quick_action` takes: its known partners share its number, every other
    seat has one of its own. So a hidden spy stays hidden in a play-out and a 明 spy does
    not — the price of declaring (Z-9) is played, not only the doubled stake — and a spy
    card played shows its side from then on (Z-2)."""
    players = world.players
    out = []
    for seat in range(players):
        partners, _opponents = world.sides_known_to(seat)
        out.append([players if t == seat or t in partners else t for t in range(players)])
    return out


def playout(world: Any, seat: int, action: Action,
            views: list[list[int]] | None = None) -> float:
    """Points of ``seat`` after it takes ``action`` in the fully known ``world`` (changed
    in place) and :func:`quick_action` plays every seat to the end. Where sides may be
    hidden (抓特务, Z-9) each seat plays by the sides it knows (:func:`known_sides`),
    updated when a spy card is played: showing who is a spy costs what it costs at the
    table, and keeping it hidden is worth what it is worth. ``views``: ``known_sides`` of
    ``world`` before the action, when the caller has it (it plays many actions from one
    world)."""
    secret = frozenset(getattr(world, "spy_cards", ()))
    apply(world, seat, action)
    if secret:
        if views is None or secret.intersection(action.cards):
            views = known_sides(world)
    else:
        side = sides(world)
        views = [side] * world.players
    for _ in range(ROLLOUT_MOVES):
        if world.over:
            break
        s = world.turn
        act = quick_action(world, s, views[s])
        apply(world, s, act)
        if secret and secret.intersection(act.cards):
            views = known_sides(world)
    if not world.over:
        return 0.0
    return float(world.result["points"][seat])
