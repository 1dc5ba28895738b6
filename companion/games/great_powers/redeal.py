"""Great Powers for the search bot (companion/core/search.py): what a seat cannot see, re-dealt;
the moves the search weighs; and how a rollout cut short is scored.

What a Great Powers seat cannot see: the order of the Action deck and which unseen cards are in
the discard rather than the deck (it sees how many each holds); the same for the Event deck,
except the top card when it peeked; the next Event another seat peeked at (it sees who
peeked); the bids the others have locked in this turn (it sees who locked in); and the random
stream the deck shuffles will draw from. Everything else is on the table.

:meth:`GPObservation.known <.bots.GPObservation.known>` is the state with all of that blanked
(the only place that reads the true state); :func:`redeal` fills the blanks with fresh draws
from what is unseen, and never sees what was there.
"""
import itertools
import math
import random
from operator import itemgetter

from companion.core.sealed import Entry
from companion.core.search import UNSEEN, blank_the_rest, clone

from .data import TRAITS


def copy_data(d, decks=True):
    """A copy of Great Powers' data that a game may be played on (the lists and dicts a move
    changes are new; revealed history is shared). ``decks=False``: the decks and discards are
    shared too (:func:`redeal` puts new ones in at once)."""
    war = d.war
    if war is not None:
        war = dict(war, sides=[list(s) for s in war["sides"]], free=list(war["free"]))
    return type(d)(                      # GPData (its home, .game, imports the bots above us)
        tokens=[dict(t) for t in d.tokens], baton=d.baton,
        action_deck=list(d.action_deck) if decks else d.action_deck,
        action_discard=list(d.action_discard) if decks else d.action_discard,
        face_up=list(d.face_up),
        event_deck=list(d.event_deck) if decks else d.event_deck,
        event_discard=list(d.event_discard) if decks else d.event_discard, event=d.event,
        bid_mod=list(d.bid_mod), bid_slots=list(d.bid_slots), bids=dict(d.bids),
        bid_counts=dict(d.bid_counts), results=list(d.results), order=list(d.order),
        action_at=d.action_at, taken=dict(d.taken), drawn=list(d.drawn), peeks=dict(d.peeks),
        war=war, vp_curve=list(d.vp_curve))


def blank(game, state, seat):
    """A lean copy of ``state`` with everything ``seat`` may not see blanked: decks and
    discards (their sizes kept) as None except the cards the seat knows the place of, the others'
    peeked Event as None, the others' locked bids as :data:`UNSEEN`, a fixed random stream.
    Two states that differ only in what the seat cannot see give equal copies
    (tests/games/great_powers/test_search.py)."""
    s = clone(state, copy_data)
    d = s.data
    d.action_deck = [None] * len(d.action_deck)
    d.action_discard = [None] * len(d.action_discard)
    deck = [None] * len(d.event_deck)
    own = d.peeks.get(seat)
    if own is not None and deck:
        deck[-1] = own                      # what it peeked is the top of the deck
    d.event_deck = deck
    last = d.event_discard[-1:] == [d.event] and d.event is not None
    d.event_discard = [None] * (len(d.event_discard) - last) + ([d.event] if last else [])
    d.peeks = {p: (e if p == seat else None) for p, e in d.peeks.items()}
    return blank_the_rest(s, seat)


def redeal(game, view, rng, model=None):
    """A whole state that agrees with everything ``view`` (a :class:`GPObservation`) shows,
    with what its seat cannot see drawn afresh from ``rng``: the unseen Action and Event cards
    shuffled into the decks and discards, the others' locked bids chosen by ``model`` (a bot;
    default the greedy bot) from their own view of the re-dealt state, a new random stream."""
    known = view.known()
    pools = getattr(view, "_pools", None)
    if pools is None:
        pools = _unseen(game, known)
        if hasattr(view, "_pools"):
            view._pools = pools             # the same for every re-deal of this view
    s = clone(known, _copy_to_redeal)
    d = s.data
    pool = list(pools[0])
    rng.shuffle(pool)
    k = len(d.action_deck)
    d.action_deck, d.action_discard = pool[:k], pool[k:]
    pool = list(pools[1])
    rng.shuffle(pool)
    it = iter(pool)
    d.event_deck = [e if e is not None else next(it) for e in d.event_deck]
    d.event_discard = [e if e is not None else next(it) for e in d.event_discard]
    if d.peeks:
        top = d.event_deck[-1] if d.event_deck else None
        d.peeks = {p: top for p in d.peeks}
    for w in s.windows.values():
        if w.revealed_flag:
            continue
        for p, e in w.entries.items():
            if e.choice is UNSEEN:
                w.entries[p] = Entry(_bids_of(game, s, p, w.id, rng, model), "", "",
                                     e.defaulted)
    s.rng = random.Random(rng.getrandbits(64))
    return s


def _copy_to_redeal(d):
    return copy_data(d, decks=False)


def _unseen(game, known):
    """The Action cards and the Events the seat of ``known`` (a blanked state) has not seen
    the place of, each in the rules' order: what :func:`redeal` shuffles into the blanks."""
    d, rules = known.data, game.rules
    seen = set(d.face_up)
    seen.update(d.drawn)
    actions = [c for c in rules.actions if c not in seen]
    placed = {e for e in d.event_deck if e is not None}
    placed.update(e for e in d.event_discard if e is not None)
    return actions, [e for e in rules.events if e not in placed]


def _bids_of(game, state, seat, wid, rng, model):
    """The bids ``model`` would lock in for ``seat`` in the re-dealt state (its prompt is the
    one the Bid phase gave it, rebuilt from public facts)."""
    if model is None:
        from .greedy import greedy_bot as model
    blocked = game.blocked(state, seat)
    state.prompts[seat] = {"moves": ("submit_bids",), "window": wid,
                           "count": state.data.bid_slots[seat],
                           "allowed": [t for t in TRAITS if t not in blocked],
                           "blocked": blocked}
    try:
        _, args = model(game, game.observe(state, seat), rng)
    finally:
        del state.prompts[seat]
    return list(args["traits"])


# -- the moves the search weighs -----------------------------------------------------------------

_ORDER = {t: i for i, t in enumerate(sorted(TRAITS, key=lambda t: -{
    "army": 7, "navy": 6, "industry": 6, "population": 5.5, "nationalism": 5,
    "colony": 6}[t]))}


def _others(view):
    return [s for s in range(view.n) if s != view.seat]


def _payable(game, view, cid):
    if not view.options["require_payment"]:
        return True
    tok = view.tokens[view.seat]
    return all(tok[t] >= n for t, n in game.rules.actions[cid].cost.items())


def candidates(game, view):
    """Every move the search weighs for the seat now, each legal: a set of bid traits (the
    order within a set by the traits' worth, not every order), each card taken and resolved
    (on each other player if it targets one) or discarded, or passing; each Colony to steal
    or none; each drawn card to resolve, or none; each side to pick."""
    p = view.prompt
    moves = p["moves"]
    if "submit_bids" in moves:
        allowed = sorted(p["allowed"], key=_ORDER.__getitem__)
        return [("submit_bids", {"traits": list(c)})
                for c in itertools.combinations(allowed, p["count"])]
    out = []
    if "take_action" in moves:
        for cid in p["cards"]:
            out.append(("take_action", {"card": cid, "resolve": False}))
            if _payable(game, view, cid):
                if game.rules.actions[cid].needs_target:
                    out += [("take_action", {"card": cid, "resolve": True, "target": t})
                            for t in _others(view)]
                else:
                    out.append(("take_action", {"card": cid, "resolve": True}))
        if "pass_action" in moves:
            out.append(("pass_action", {}))
        return out
    if "steal_colony" in moves:
        return [("steal_colony", {"target": t}) for t in p["targets"]] + \
            [("decline_bonus", {})]
    if "resolve_drawn" in moves:
        for cid in p["cards"]:
            if not _payable(game, view, cid):
                continue
            if game.rules.actions[cid].needs_target:
                out += [("resolve_drawn", {"card": cid, "target": t}) for t in _others(view)]
            else:
                out.append(("resolve_drawn", {"card": cid}))
        return out + [("decline_bonus", {})]
    if "pick_side" in moves:
        return [("pick_side", {"player": s}) for s in p["candidates"]]
    raise RuntimeError(f"the search bot cannot answer {moves}")


def evaluate(game, state, seat):
    """A rollout cut short, scored for ``seat`` in [0, 1]: its VP lead over the best other
    player, through a logistic whose width grows with the turns still to play."""
    vp = list(map(itemgetter("vp"), state.data.tokens))
    mine = vp[seat]
    best = max(v for s, v in enumerate(vp) if s != seat)
    left = max(0, state.config["turns"] - state.round)
    return 1.0 / (1.0 + math.exp(-(mine - best) / (2.0 + 1.5 * left)))
