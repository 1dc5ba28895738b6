"""A search bot: information-set Monte Carlo tree search (pure: standard library only).

A seat does not know the state, only its :class:`~.views.Observation`. Each iteration the
search *re-deals* (OpenSpiel and TAG call it determinizing): the game's ``redeal(game, view,
rng)`` builds a whole state that agrees with everything the seat sees and draws what it cannot
see (the order of the decks, the others' sealed choices) from what is unseen. It then plays that
state out and counts the result for the first move tried. Over many re-deals the search learns
which of its moves does well across the worlds the seat cannot tell apart; no iteration ever
reads the true state.

The tree (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012) holds only the searching
seat's decisions, keyed by the move; UCB1 picks among the moves legal in the iteration's re-deal,
counted by how often each was available (the moves at a node differ from one re-deal to the
next). The other seats, in the tree and after it, are played by a fast *model* bot from their
own observations of the re-dealt state (the greedy bot), so a simultaneous sealed choice is a
sequence of decisions none of which sees another's: a later seat's bot is shown only its own
observation. The searcher's own later decisions below the tree, and the rollout's, are the model
bot's too. A rollout stops at the end of the game, or ``horizon`` rounds after the current one,
where the game's ``evaluate(game, state, seat)`` scores it in [0, 1].

A game joins by giving :class:`Searcher` three functions (its package's ``redeal`` module):
``redeal(game, view, rng) -> state``, ``candidates(game, view) -> [(move, args)]`` (the moves
the search weighs for the seat, each legal) and ``evaluate``.
"""
import math
import random

from .game import apply, apply_move
from .sealed import Entry

#: What a blanked state holds where its seat cannot see a thing (a card, a locked choice); the
#: game's ``redeal`` puts something there again.
UNSEEN = object()


def blank_the_rest(state, seat, skip=lambda w: False):
    """The part of every game's blanking that is the same: the others' locked choices in the
    unrevealed windows (except those ``skip`` says the game blanks itself) as :data:`UNSEEN`,
    and a fixed random stream (the true one would tell the future)."""
    for w in state.windows.values():
        if not w.revealed_flag and not skip(w):
            w.entries = {p: (e if p == seat else Entry(UNSEEN, "", "", e.defaulted))
                         for p, e in w.entries.items()}
    state.rng = random.Random(0)
    state.seed = 0
    return state


def clone(state, copy_data):
    """A lean copy of ``state`` to play on: the flow bookkeeping copied here (prompts, open
    windows, pending steps), the game's data by ``copy_data(data)``. Revealed windows are shared
    (nothing changes them again); notices are not kept."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.data = copy_data(state.data)
    new.prompts = {k: dict(v) for k, v in state.prompts.items()}
    windows = {}
    for wid, w in state.windows.items():
        if not w.revealed_flag:
            c = object.__new__(type(w))
            for name in type(w).__slots__:
                setattr(c, name, getattr(w, name))
            c.entries = dict(w.entries)
            w = c
        windows[wid] = w
    new.windows = windows
    new.timers = {k: type(t)(**t.__dict__) for k, t in state.timers.items()}
    new.phase_log = [list(r) for r in state.phase_log[-2:]]
    new.notices = []
    flow = object.__new__(type(state.flow))
    lanes = {lane: [dict(s) for s in q] for lane, q in state.flow.lanes.items()}
    flow.lanes = lanes
    flow.asks = {lane: dict(q) for lane, q in state.flow.asks.items()}
    new.flow = flow
    new._derived = {}
    new.lean = True
    new.__dict__.pop("note", None)
    new.note = _no_note
    return new


def _no_note(kind, to=None, **data):
    """A copy keeps no notices."""


def next_actor(state):
    """Who acts next as :func:`~.play.play_out` picks: the only one prompted, else the table,
    else the lowest seat; ``...`` when nobody is prompted (a timer must run out)."""
    prompts = state.prompts
    if not prompts:
        return ...
    if len(prompts) == 1:
        for seat in prompts:
            return seat
    return None if None in prompts else min(prompts)


def run_timer(game, state):
    """Nobody is prompted: the next timer runs out (as :func:`~.play.run_out_the_clock`)."""
    due = state.next_deadline()
    if due is None:
        raise RuntimeError(f"{game.title}: nobody is prompted and no timer runs "
                           f"(phase {state.phase})")
    now = max(state.now, due)
    for name in state.due_timers(now):
        apply(game, state, {"kind": "timer", "timer": name, "at": now})


def _frozen(v):
    """A hashable copy of an argument (lists and dicts inside, as tuples)."""
    if isinstance(v, list):
        t = tuple(v)
        try:
            hash(t)             # nothing inside to freeze (a list or dict is unhashable)
            return t
        except TypeError:
            return tuple(map(_frozen, v))
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    return v


#: Argument values that are their own :func:`_frozen` copy.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _key(move, args):
    """``(move, ((name, frozen value), ...))`` with the names in order: the same key for equal
    moves (the names are unique, so sorting the items orders them by name alone)."""
    items = sorted(args.items()) if len(args) > 1 else args.items()
    return (move, tuple([(k, v) if type(v) in _SCALARS else (k, _frozen(v))
                         for k, v in items]))


class _Node:
    __slots__ = ("visits", "total", "avail", "children", "move")

    def __init__(self, move=None):
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children = {}
        self.move = move


def reward(state, seat):
    """A finished game's result for ``seat``: 1 for a win, 1/k for a win shared by k."""
    winners = state.outcome.winners
    return 1.0 / len(winners) if seat in winners else 0.0


class Searcher:
    """A search bot with a thinking budget of ``iterations`` re-deals per decision.

    ``model``: the bot that plays every other decision (the other seats, and the searcher
    itself below the tree). ``horizon``: rounds a rollout plays after the current one before
    ``evaluate`` scores it (None: to the end of the game). ``c``: UCB1's exploration weight."""

    def __init__(self, iterations, redeal, candidates, evaluate, model, horizon=None, c=0.7):
        self.iterations = iterations
        self.redeal, self.candidates, self.evaluate = redeal, candidates, evaluate
        self.model, self.horizon, self.c = model, horizon, c
        self.__name__ = f"search-{iterations}"

    def __call__(self, game, view, rng):
        return self.decide(game, view, rng)[0]

    def decide(self, game, view, rng):
        """``((move, args), root)``: the move most visited, and the root of the tree."""
        moves = self.candidates(game, view)
        if len(moves) == 1:
            return moves[0], None
        seat = view.seat
        root = _Node()
        stop_round = None if self.horizon is None else view.round + self.horizon
        model, observe, evaluate = self.model, game.observe, self.evaluate
        direct = game.direct_observation()      # None: the game has its own observe()
        table_bot = getattr(game, "table_bot", None)
        for _ in range(self.iterations):
            state = self.redeal(game, view, rng)
            node, path, in_tree = root, [], True
            while state.outcome is None:
                if stop_round is not None and state.round > stop_round:
                    break
                actor = next_actor(state)
                if actor is ...:
                    run_timer(game, state)
                    continue
                seen = direct(game, state, actor) if direct is not None else \
                    observe(state, actor)
                if actor is None:
                    move, args = table_bot(game, seen, rng)
                elif actor == seat and in_tree:
                    child, expanded = self._select(game, seen, node, rng)
                    path.append(child)
                    move, args = child.move
                    node = child
                    in_tree = not expanded
                else:
                    move, args = model(game, seen, rng)
                apply_move(game, state, actor, move, args, None, state.now)
            value = reward(state, seat) if state.outcome is not None else \
                evaluate(game, state, seat)
            for n in path:
                n.visits += 1
                n.total += value
        best = max(root.children.values(), key=lambda n: (n.visits, n.total))
        return best.move, root

    def _select(self, game, view, node, rng):
        """The child to play at ``node``: an untried legal move (expanding), else UCB1 over the
        legal ones. Returns ``(child, expanded)``."""
        children = node.children
        legal, untried = [], []
        for move, args in self.candidates(game, view):
            k = _key(move, args)
            child = children.get(k)
            if child is None:
                child = children[k] = _Node((move, args))
            child.avail += 1
            if child.visits == 0:
                untried.append(child)
            else:
                legal.append(child)
        if untried:
            return untried[rng.randrange(len(untried))], True
        c = self.c
        best, best_v = None, -1.0
        for ch in legal:
            v = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
            if v > best_v:
                best, best_v = ch, v
        return best, False
