"""The computer player's play of tricks, for every game (电脑 seats, 托管, 提示).

:class:`PlanStrategy` decides from a :class:`~paizhuo_engine.ai.view.View` only (RULES.md G-6):

* **Lead** — plan the hand (:mod:`paizhuo_engine.ai.plan`) and lead its weakest group (lowest
  key, the longer of equals), keeping bombs and sure winners (no unseen card can beat
  them: cards played are counted) for control; when one weak group is left, cash the sure
  winners first and finish with it. Against an opponent down to one or two cards, avoid
  leading what they could follow (singles / pairs), else lead the highest.
* **Follow** — among the legal follows (cheapest first, :mod:`paizhuo_engine.moves`), take the one
  that leaves the hand needing the fewest plays, then without a bomb, then without a
  control card, then the lowest. Play it when it fits the plan; break the plan, or use a
  bomb, only to stop an opponent who is about to go out; let a known partner (抓特务
  declared sides, 挖坑 farmers) win the trick. Go out at once when a follow empties the
  hand.
* 手把一: never pass when 把一必拦 forbids it (S-4); when 包赔 watches singles (the next
  player holds one card), play only one's highest single (S-4).
* **Free chains** — a chain of :data:`LONG_CHAIN` cards or more that no active opponent
  can follow (too many cards for each of them, or nothing higher among the unseen cards;
  bombs aside) keeps the lead whenever it is led. It is led first once an opponent is
  about to go out (it must not be left in hand at the end), and at once while
  :data:`FREE_CHAIN_KEEP` cards stay in hand after it, unless chains of its type may be
  shorter than :data:`LONG_CHAIN` cards (it could be broken to follow them); otherwise it is kept (played later it hides how close this seat is
  to going out, and a long 陕西 连牌 still follows shorter ones).
* **A hidden lone spy keeps its spy cards apart** (Z-2, Z-9): while the table does not
  know it is a spy, a play that would show both spy cards at once — who the spy is, and
  that it plays alone — is not made while :data:`SHOWN_LEFT` cards or more would stay in
  hand, unless it is a sure way out.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import islice
from typing import Any

from ..cards import rank_of
from ..movegen import Play, pack_cards, pack_counts, unpack
from ..moves import cards_for, generator
from .endgame import NODE_LIMIT, Oracle, headsup_move, sure_line
from .plan import GameShape, Group, plan_hand, shape_of
from .simple import PASS, Action
from .view import View, view_of

FOLLOW_CANDIDATES = 24
"""Follows examined per decision (cheapest first, at most 3 per type and key)."""

LONG_CHAIN = 5
"""Cards of a chain (straight, pair chain, triple chain) that is led first when no
opponent can follow it."""

CHAIN_KINDS = frozenset({"straight", "pair_chain", "triple_chain"})
"""The chain types (G-3; Z-4, W-4, S-3)."""

FREE_CHAIN_KEEP = 7
"""A free chain (see the module doc) is led at once when this many cards or more stay in
hand after it (and chains of its type are never shorter than :data:`LONG_CHAIN` cards);
with fewer left it is kept while no opponent is about to go out: leading it would show
the others that this seat is about to go out."""

ABOUT_TO_GO_OUT = 2
"""An opponent holding this many cards or fewer is about to go out."""

SHOWN_LEFT = 6
"""A hidden lone spy shows both spy cards at once only with fewer cards than this left
(or on a sure way out)."""


@lru_cache(maxsize=200_000)
def _plan_size(counts: tuple[int, ...], shape: GameShape) -> int:
    return len(plan_hand(counts, shape))


def _deck_counts(rules: Any) -> tuple[int, ...]:
    """How many cards of each natural rank the game's deck holds (``rules.deck_jokers``:
    W-1 no jokers in 挖坑; 手把一 with or without jokers, S-1)."""
    jokers = rules.deck_jokers
    return (4,) * 13 + (jokers, jokers)


def _unseen(view: View) -> list[int]:
    """Cards of each rank neither played nor in this seat's hand (some other hand, or
    out of play)."""
    deck = _deck_counts(view.rules)
    seen = unpack(view.seen)
    mine = unpack(pack_cards(view.hand))
    return [max(0, deck[r] - seen[r] - mine[r]) for r in range(15)]


def _group_sure(group: Group, unseen: list[int], weight: tuple[int, ...]) -> bool:
    """No unseen cards could beat this set (single / pair / triple …): bombs aside."""
    if group.kind not in ("single", "pair", "triple", "triple_one", "four", "four_two"):
        return False
    w = weight[group.ranks[0]]
    need = group.width
    return all(unseen[r] < need for r in range(15) if weight[r] > w)


class PlanStrategy:
    """Computer player / 托管 / 提示 strategy for every climbing game (see the module
    doc). ``choose(game, seat)`` reads only :func:`~paizhuo_engine.ai.view.view_of`. ``sound``
    as in :func:`decide`."""

    def __init__(self, sound: bool = True) -> None:
        self.sound = sound

    def choose(self, game: Any, seat: int) -> Action:
        """The action for ``seat`` (whose turn it is) in a game in its play phase."""
        return decide(view_of(game, seat), tuple(game.protected()), self.sound)


def decide(view: View, protected: tuple[int, ...] = (), sound: bool = True,
           line_limit: int = NODE_LIMIT, line_cards: int = 99) -> Action:
    """The action for the seat of ``view``: a play (with its reading, for the trusted
    apply path) or pass. ``protected`` are cards a rank-only choice takes last (spy
    cards, G-1). Always legal for a game in its play phase.

    With ``sound`` (普通 and above) a sure way out (:func:`~paizhuo_engine.ai.endgame.sure_line`)
    is taken first (searching at most ``line_limit`` plays, with at most ``line_cards``
    cards in hand), then a won heads-up ending (:func:`~paizhuo_engine.ai.endgame.headsup_move`),
    and the endgame rules of the
    module doc apply; without it the planner plays as it did before them (kept to measure
    against)."""
    line = sure_line(view, line_limit) if sound and len(view.hand) <= line_cards else None
    found, ahead = headsup_move(view) if sound and not line else (False, None)
    if line:
        play: Play | None = line[0]
    elif found:
        play = ahead
    elif view.lead is None:
        play = choose_lead(view, sound)
    else:
        play = choose_follow(view, sound)
    if play is None:
        return PASS
    cards = cards_for(play, list(view.hand), protected)
    return Action("play", tuple(cards), play[1])


def _active_opponents(view: View) -> list[int]:
    return [s for s in range(view.players)
            if s != view.seat and s not in view.partners and s not in view.out and view.counts[s]]


def _plays_of(gen: Any, hand: int, counts: list[int], packed: int, size: int) -> list[Play]:
    """The legal leads of ``hand`` that take exactly the multiset ``packed`` (one per
    reading), searching only the families of that size."""
    total = sum(counts)
    out = []
    for fsize, kind in gen.lead_families(total):
        if fsize != size:
            continue
        out += [p for p in gen.family(hand, total, counts, kind, size, -99, True) if p[0] == packed]
    return out


def choose_lead(view: View, sound: bool = True) -> Play:
    """The lead (G-3: a leader must play). ``sound`` as in :func:`decide`."""
    gen = generator(view.rules)
    shape = shape_of(view.rules)
    hand = pack_cards(view.hand)
    counts = list(unpack(hand))
    whole = [p for p in _plays_of(gen, hand, counts, hand, sum(counts)) if not p[1].bomb]
    if whole:
        return whole[0]  # the whole hand in one play
    if sound:
        fed = _feed_partner(view, gen, hand)
        if fed is not None:
            return fed
    unseen = _unseen(view)
    weight = shape.weight
    oracle = Oracle(view) if sound else None
    options: list[tuple[Group, Play, bool]] = []
    for g in plan_hand(counts, shape):
        plays = [p for p in _plays_of(gen, hand, counts, pack_counts(g.counts()), g.size)
                 if not p[1].bomb or gen.has_bombs]
        if not plays:
            continue
        play = next((p for p in plays if p[1].kind == g.kind), plays[0])
        if oracle is not None:
            sure = not oracle.beatable(play[1])
        else:
            sure = g.kind == "bomb" or _group_sure(g, unseen, weight)
        options.append((g, play, sure))
    if not options:
        return next(gen.iter_leads(hand))
    if sound and len(view.secret) >= 2:
        options = [o for o in options if not shows_alone(view, o[1])] or options
    if oracle is not None:
        free = [o for o in options if _free_chain(view, o[1], oracle)]
        if free and not _end_near(view):
            free = [o for o in free if len(view.hand) - o[1][1].size >= FREE_CHAIN_KEEP
                    and not _breaks_short(shape, o[1][1].kind)]
        if free:
            return max(free, key=lambda o: (o[1][1].size, -weight[o[0].ranks[0]]))[1]
    danger = [view.counts[s] for s in _active_opponents(view)]
    short = min(danger, default=99)
    if view.single_watch:
        short = 1

    def low_key(o: tuple[Group, Play, bool]) -> tuple:
        g, play, _sure = o
        if sound and play[1].kind != "single":
            # Shed several low cards before one low single (a chain or set of low ranks
            # is harder to get rid of later than a single).
            return (weight[g.ranks[0]] - 1.5 * len(g.ranks) - 0.5 * (g.width - 1),
                    -play[1].size)
        return (weight[g.ranks[0]], -play[1].size)

    weak = sorted((o for o in options if not o[2]), key=low_key)
    strong = sorted((o for o in options if o[2] and not o[1][1].bomb), key=low_key)
    if len(weak) <= 1 and strong:
        return strong[0][1]
    if sound and len(weak) == 2 and not strong and len(options) == 2:
        # Two groups left, neither sure: lead the one the others are less likely to
        # beat (more cards, then higher), keeping the other to go out with.
        return max(weak, key=lambda o: (o[1][1].size, o[1][1].key))[1]
    pool = weak or strong or sorted(options, key=low_key)
    if short <= 2:
        fitting = [o for o in pool if o[1][1].size != short or o[1][1].kind not in ("single", "pair")]
        if fitting:
            return fitting[0][1]
        return max(pool, key=low_key)[1]  # only what they could follow: lead the highest
    return pool[0][1]


def shows_alone(view: View, play: Play) -> bool:
    """Whether ``play`` would show every card of ``view.secret`` (a hidden spy's spy
    cards: a rank-only play takes them last, G-1, so only when it takes every card of
    their ranks) when they are two or more — the group would learn who the spy is and
    that it plays alone (Z-2) — while :data:`SHOWN_LEFT` cards or more stay in hand."""
    if len(view.secret) < 2 or len(view.hand) - play[1].size < SHOWN_LEFT:
        return False
    taken = unpack(play[0])
    held = unpack(pack_cards(view.hand))
    return all(taken[rank_of(c)] >= held[rank_of(c)] for c in view.secret)


def free_chain(view: View, play: Play) -> bool:
    """Whether leading ``play`` (packed cards, reading) leads a free chain: one of
    :data:`LONG_CHAIN` cards or more that no active opponent can follow (see the module
    doc) — it keeps the lead whenever it is led."""
    return _free_chain(view, play, Oracle(view))


def _end_near(view: View) -> bool:
    """An active opponent (or a seat of unknown side) is about to go out."""
    return any(view.counts[s] <= ABOUT_TO_GO_OUT for s in _active_opponents(view))


def _breaks_short(shape: GameShape, kind: str) -> bool:
    """Chains of type ``kind`` may be shorter than :data:`LONG_CHAIN` cards (挖坑 陕西's
    连牌 of three, W-7; 抓特务's two-pair chains, Z-4): a long one can be broken to follow
    them."""
    return any(spec.kind == kind and spec.shortest * spec.width < LONG_CHAIN
               for spec in shape.chains)


def _free_chain(view: View, play: Play, oracle: Oracle) -> bool:
    """A chain of :data:`LONG_CHAIN` cards or more that no active opponent (nor a seat of
    unknown side) can follow: each holds fewer cards, or the unseen cards hold no higher
    chain of its type and size. Bombs are not counted: a bomb may beat it now or later."""
    reading = play[1]
    if reading.bomb or reading.kind not in CHAIN_KINDS or reading.size < LONG_CHAIN:
        return False
    most = max((view.counts[s] for s in _active_opponents(view)), default=0)
    if reading.size > most:
        return True
    counts = [(oracle.unseen >> (3 * r)) & 7 for r in range(15)]
    total = sum(counts)
    same = oracle.gen.family(oracle.unseen, total, counts, reading.kind, reading.size,
                             reading.key, True)
    return next(iter(same), None) is None


def _feed_partner(view: View, gen: Any, hand: int) -> Play | None:
    """A known partner next to act holds one card and no opponent is as short: lead the
    lowest single, which the partner can beat to go out."""
    nxt = view.next_seat
    if nxt not in view.partners or view.counts[nxt] != 1:
        return None
    if any(view.counts[s] == 1 for s in _active_opponents(view)):
        return None
    oracle = Oracle(view)
    for p in gen.iter_leads(hand):
        if p[1].kind != "single":
            break
        if oracle.rest_legal(hand - p[0]):
            return p
    return None


def _next_with_cards(view: View, seat: int) -> int:
    """The first seat after ``seat`` still holding cards (``seat`` itself if none)."""
    s = seat
    for _ in range(view.players):
        s = (s + 1) % view.players
        if view.counts[s]:
            return s
    return seat


def _opponent_acts_before(view: View, owner: int) -> bool:
    """Whether an active opponent (or a seat of unknown side) acts after this seat and
    before ``owner`` gets the trick back."""
    s = view.seat
    for _ in range(view.players):
        s = (s + 1) % view.players
        if s == owner:
            return False
        if view.counts[s] and s not in view.partners:
            return True
    return False


def _candidates(view: View, hand: int) -> list[Play]:
    gen = generator(view.rules)
    assert view.lead is not None
    to_beat = view.lead[1]
    out: list[Play] = []
    per_key: dict[tuple[str, int], int] = {}
    for p in islice(gen.iter_follows(hand, to_beat), 400):
        if p[1].bomb:
            out.append(p)
            continue
        k = (p[1].kind, p[1].key)
        if per_key.get(k, 0) >= 3:
            continue
        per_key[k] = per_key.get(k, 0) + 1
        if len(out) < FOLLOW_CANDIDATES:
            out.append(p)
    return out


def choose_follow(view: View, sound: bool = True) -> Play | None:
    """A follow, or ``None`` to pass. ``sound`` as in :func:`decide`."""
    assert view.lead is not None
    owner, to_beat = view.lead
    shape = shape_of(view.rules)
    hand = pack_cards(view.hand)
    cands = _candidates(view, hand)
    for p in cands:
        if p[0] == hand:
            return p  # goes out
    if sound and len(view.secret) >= 2:
        cands = [p for p in cands if not shows_alone(view, p)]
    if not cands:
        return None
    counts = unpack(hand)
    base = _plan_size(counts, shape)
    weight = shape.weight
    top = sorted(range(15), key=lambda r: weight[r])[-3:]
    if view.rules.held_jokers_double:
        top = top[:1]  # S-6: a joker left in hand doubles the loss — spend jokers freely
    if view.single_watch and to_beat.kind == "single":
        highest = max((r for r in range(15) if counts[r]), key=lambda r: weight[r])
        mine = [p for p in cands if not p[1].bomb and unpack(p[0])[highest] == 1]
        if mine:
            return mine[0]
        if not view.may_pass:
            return cands[0]
        return None
    scored = []
    for p in cands:
        pc = unpack(p[0])
        rest = tuple(counts[r] - pc[r] for r in range(15))
        delta = _plan_size(rest, shape) - (base - 1)
        control = any(pc[r] for r in top) and not p[1].bomb
        scored.append(((delta, p[1].bomb, control, p[1].key), p))
    scored.sort(key=lambda x: x[0])
    (delta, bomb, control, _key), best = scored[0]
    if not view.may_pass:
        return best
    opponents = _active_opponents(view)
    partner_wins = owner in view.partners
    if sound and partner_wins:
        if not view.counts[owner]:
            # The partner went out with it (G-3 接风): if every seat passes, the lead goes
            # to the partner's 下家 — take the trick unless that seat is on this side.
            heir = _next_with_cards(view, owner)
            if heir == view.seat or heir in view.partners:
                return None
            return best
        elif not _opponent_acts_before(view, owner):
            return None  # the partner wins the trick unless this seat beats it
    if sound and _never_played_risk(view, opponents):
        return best
    if sound and _leave_the_block(view, owner, to_beat, counts, best, shape):
        return None
    danger = owner not in view.partners and view.counts[owner] <= max(2, to_beat.size)
    if partner_wins and not any(view.counts[s] <= 2 for s in opponents if s not in view.partners):
        return None
    left = sum(counts)
    if danger:
        return best
    if bomb:
        return best if base <= 3 else None
    if delta <= 0 and (not control or left <= 8 or base <= 3):
        return best
    if delta <= 1 and not control and (base >= 5 or len(opponents) == 1):
        # Heads-up, a pass hands the lead over for good: keep the tempo.
        return best
    return None


def _leave_the_block(view: View, owner: int, to_beat: Any, counts: tuple[int, ...],
                     best: Play, shape: GameShape) -> bool:
    """手把一 (S-4): a 把一 opponent's single stands, another seat still acts before the
    owner (把一必拦 makes the last of them beat it if they can), and beating it here would
    leave only singles to lead into the 把一 player (包赔): pass and let them block."""
    if not view.rules.must_block_last_card:
        return False
    if to_beat.kind != "single" or view.counts[owner] != 1 or owner in view.partners:
        return False
    s, blockers = view.seat, 0
    for _ in range(view.players):
        s = (s + 1) % view.players
        if s == owner:
            break
        if view.counts[s]:
            blockers += 1
    if not blockers:
        return False
    pc = unpack(best[0])
    rest = tuple(counts[r] - pc[r] for r in range(15))
    return all(g.kind == "single" for g in plan_hand(rest, shape))


def _never_played_risk(view: View, opponents: list[int]) -> bool:
    """手把一 (S-6): this seat has not played yet and an opponent is about to go out —
    any play now halves the loss."""
    if not view.rules.unplayed_doubles or view.seat in view.played:
        return False
    return any(view.counts[s] <= 3 for s in opponents)


HINT_CANDIDATES = 400
"""Legal plays (cheapest first) /提示 looks through for its alternatives."""


def keeps_plan(play: list[int] | tuple[int, ...], plan: list[Group]) -> bool:
    """Whether a play of rank counts ``play`` (15 natural ranks) leaves the hand's ``plan``
    whole: it takes every set of the plan it touches whole (a pair, a triple, a chain, a
    bomb — each set's own cards, its kickers aside) and otherwise only loose cards (the
    plan's singles and kickers). Leading a loose 9 keeps 444 and 55; leading a 5 out of
    55, or a 7 out of the chain 7788, breaks a set."""
    left = list(play)
    loose = [0] * 15
    ordered = sorted(plan, key=lambda g: len(g.ranks) > 1)  # sets before chains
    for g in ordered:
        for r in g.kickers:
            loose[r] += 1
        if g.kind == "single":
            loose[g.ranks[0]] += 1
            continue
        if not any(left[r] for r in g.ranks):
            continue
        if any(left[r] < g.width for r in g.ranks):
            return False
        for r in g.ranks:
            left[r] -= g.width
    return all(left[r] <= loose[r] for r in range(15))


def suggestions(game: Any, seat: int, limit: int = 5) -> tuple[Action, list[Action]]:
    """提示: the strategy's action for ``seat`` and up to ``limit - 1`` other legal plays
    that beat the table (or lead), as actions with readings: first those that leave the
    hand's plan whole (:func:`keeps_plan`: a loose single, a whole pair, a whole chain …),
    then the others, each cheapest first; one play per type, key and size."""
    view = view_of(game, seat)
    protected = tuple(game.protected())
    best = decide(view, protected)
    gen = generator(view.rules)
    hand = pack_cards(view.hand)
    plan = plan_hand(unpack(hand), shape_of(view.rules))
    source = gen.iter_leads(hand) if view.lead is None else gen.iter_follows(hand, view.lead[1])
    whole: dict[tuple, Action] = {}
    broken: dict[tuple, Action] = {}
    taken = _hint_key(best)
    for p in islice(source, HINT_CANDIDATES):
        if view.lead is None and p[1].bomb:
            continue
        action = Action("play", tuple(cards_for(p, list(view.hand), protected)), p[1])
        key = _hint_key(action)
        if key == taken or key in whole:
            continue
        if keeps_plan(unpack(p[0]), plan):
            whole[key] = action  # a variant keeping the plan beats one breaking it
            if len(whole) >= limit - 1:
                break
        else:
            broken.setdefault(key, action)
    rest = [a for k, a in broken.items() if k not in whole]
    return best, ([*whole.values()] + rest)[:limit - 1]


def _hint_key(action: Action) -> tuple:
    """Plays /提示 counts as the same: one type, key and size (the cheapest kicker kept)."""
    reading = action.reading
    if reading is None:
        return (action.kind, action.cards)
    return (reading.kind, reading.key, reading.size)

