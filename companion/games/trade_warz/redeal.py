"""Trade Warz and Tariff Warz for the search bot (companion/core/search.py): what a seat cannot
see, re-dealt; the moves the search weighs; and how a rollout cut short is scored.

What a seat cannot see: the other players' hands (it sees how many cards each holds); the order
and the contents of the shared decks and their discard piles, of every Leader's own pile (its own
too: shuffled) and of the Event deck (it sees how many each holds); the cards out of the game;
the card under each face-down Export of the others; the others' sealed choices not yet revealed
(their Leader wishes, Policies, blind bids); the card offered in a swap between two others
(Diplomatic); and the random stream. Everything else is on the table: GDP, influence, routes,
slotted Policies, Tactics in play, the Event, flipped Exports, the Events flipped before.

:meth:`TWObservation.known <.bots.TWObservation.known>` is the state with all of that blanked
(:func:`blank`, the only place that reads the true state): each hidden zone keeps its size, and
the copy keeps the sorted list of the hidden cards (``unseen``), which is the whole box less
what the seat sees and so the same in every state the seat cannot tell apart.
:func:`redeal` deals those cards afresh into the hidden zones, each zone only what it may hold
(a deck its own kind, a Leader's pile that Leader's cards, a face-down Export an Export), and
lets a model bot make the others' sealed choices again from their own view of the re-dealt
state.
"""
import dataclasses
import math
import random

from companion.core.sealed import Entry
from companion.core.search import UNSEEN, blank_the_rest, clone

from .data import Board, TWData

#: An unseen card or sealed choice in :func:`blank`'s copy (a fresh :func:`redeal` fills it).


# -- a copy to play on -----------------------------------------------------------------------

def _deep(v):
    if isinstance(v, list):
        return [_deep(x) for x in v]
    if isinstance(v, dict):
        return {k: _deep(x) for k, x in v.items()}
    return v


_FIELDS = {}


def _fields(cls):
    got = _FIELDS.get(cls)
    if got is None:
        got = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return got


def _record(r):
    new = object.__new__(type(r))
    for f in _fields(type(r)):
        object.__setattr__(new, f, _deep(getattr(r, f)))
    return new


_RECORDS = ("draw", "pol", "trade", "pick", "disputes")


def copy_data(d):
    """A copy of Trade Warz's data that a game may be played on (every list and dict new; the
    Board a fresh tracked record, so what is derived from it is worked out again)."""
    new = object.__new__(TWData)
    for f in _fields(TWData):
        v = getattr(d, f)
        if f == "board":
            v = Board(**{g: getattr(v, g) for g in _fields(Board)})
        elif f in _RECORDS:
            v = _record(v)
        else:
            v = _deep(v)
        object.__setattr__(new, f, v)
    return new


# -- what the seat cannot see ------------------------------------------------------------------

def _facedown(state, seat):
    """The open face-down Export windows of the other seats: ``[(window, owner)]``."""
    out = []
    for w in state.windows.values():
        if w.kind == "export" and not w.revealed_flag:
            for p in w.entries:
                if p != seat:
                    out.append((w, p))
    return out


def blank(game, state, seat):
    """A lean copy of ``state`` with everything ``seat`` may not see blanked: the others' hands,
    the decks, discards, piles, Event deck and the cards out of the game as lists of
    :data:`UNSEEN` (their sizes kept); the others' face-down Exports and sealed choices as
    :data:`UNSEEN`; a swap between two others without its card; a fixed random stream. The
    hidden cards, sorted, are kept as ``unseen``. Two states that differ only in what the seat
    cannot see give equal copies (tests/games/trade_warz/test_search.py)."""
    s = clone(state, copy_data)
    d = s.data
    pool = []

    def hide(cards):
        pool.extend(cards)
        return [UNSEEN] * len(cards)
    for p in range(s.n):
        if p != seat:
            d.hands[p] = hide(d.hands[p])
        d.piles[p] = hide(d.piles[p])
    for k in sorted(d.decks):
        d.decks[k] = hide(d.decks[k])
    for k in sorted(d.discards):
        d.discards[k] = hide(d.discards[k])
    d.events = [UNSEEN] * len(d.events)       # Events are their own deck (re-dealt apart)
    d.out = hide(d.out)
    for w, p in _facedown(s, seat):
        e = w.entries[p]
        if e.choice:
            pool.append(e.choice["card"])
        w.entries[p] = Entry(UNSEEN, "", "", e.defaulted)
    for o in d.trade.offers:
        if o["kind"] == "swap" and seat not in (o["from"], o["to"]):
            o["give"] = UNSEEN
    s.unseen = sorted(pool)
    return blank_the_rest(s, seat, skip=lambda w: w.kind == "export")   # Exports: above


# -- the re-deal ---------------------------------------------------------------------------------

_ROOMS = {}


def _rooms(game, state):
    """Which hidden zone may hold which card at this table: ``(decks, leader_decks,
    global_cards, exports)``: the cards of each shared deck, of each seat's Leader's pile, of
    any shared deck, and the Exports (one table per edition and Leaders)."""
    d = state.data
    key = (id(game), d.edition, tuple(d.board.leaders))
    got = _ROOMS.get(key)
    if got is None:
        ix = game.ix(state)
        decks = {k: frozenset(game.db.deck(d.edition, k, leaders=d.board.leaders))
                 for k in d.decks}
        piles = [frozenset(game.db.leader_deck(d.edition, lid)) if lid else frozenset()
                 for lid in d.board.leaders]
        shared = frozenset().union(*decks.values()) if decks else frozenset()
        got = _ROOMS[key] = (decks, piles, shared, ix.exports)
    return got


def _deal(game, state, seat, rng):
    """The unseen cards shuffled into the hidden zones, each zone only cards it may hold (a
    random fill, most demanding zones first; a zone left short trades with one filled before;
    a few tries). Returns ``{zone: cards}``, or None."""
    d = state.data
    decks, piles, shared, exports = _rooms(game, state)
    zones = []              # (name, count, may hold)
    for p in range(state.n):
        if d.piles[p]:
            zones.append((("pile", p), len(d.piles[p]), piles[p].__contains__))
    for k in sorted(d.decks):
        room = decks[k].__contains__
        if d.decks[k]:
            zones.append((("deck", k), len(d.decks[k]), room))
        if d.discards[k]:
            zones.append((("discard", k), len(d.discards[k]), room))
    if d.out:
        zones.append((("out",), len(d.out), lambda c: c not in shared))
    for w, p in _facedown(state, seat):
        zones.append((("export", w.id), 1, exports.__contains__))
    for p in range(state.n):
        if p != seat and d.hands[p]:
            zones.append((("hand", p), len(d.hands[p]), None))
    for _ in range(20):
        got = _fill(zones, list(state.unseen), rng)
        if got is not None:
            return got
    return None


def _fill(zones, pool, rng):
    rng.shuffle(pool)
    got, done = {}, []
    for name, k, room in zones:
        if room is None:
            take, pool = pool[:k], pool[k:]
        else:
            take, rest = [], []
            for c in pool:
                (take if len(take) < k and room(c) else rest).append(c)
            pool = rest
            while len(take) < k:            # short: swap with a zone filled before
                if not _swap(take, room, pool, done):
                    return None
        got[name] = take
        done.append((take, room))
    return got


def _swap(take, room, pool, done):
    """One card for a zone the fill left short (``take``, holding what ``room`` allows): a
    card ``y`` of a zone filled before that this zone may hold, traded for a card ``x`` left in
    ``pool`` that that zone may hold. False when there is none."""
    for i, x in enumerate(pool):
        for cards, r in done:
            if r is not None and not r(x):
                continue
            for j, y in enumerate(cards):
                if room(y):
                    cards[j] = x
                    del pool[i]
                    take.append(y)
                    return True
    return False


def redeal(game, view, rng, model=None):
    """A whole state that agrees with everything ``view`` (a :class:`TWObservation`) shows,
    with what its seat cannot see drawn afresh from ``rng``: the unseen cards dealt into the
    hidden zones, the unseen Events shuffled into the Event deck, the others' sealed choices
    made by ``model`` (a bot; default the greedy bot) from their own view of the re-dealt state,
    a swap's card drawn from its giver's hand, a new random stream."""
    known = view.known()
    s = clone(known, copy_data)
    s.__dict__.pop("unseen", None)
    d = s.data
    seat = view.seat
    got = _deal(game, known, seat, rng)
    if got is None:
        raise RuntimeError("Trade Warz re-deal: no way to deal the unseen cards")
    for (kind, *where), cards in got.items():
        if kind == "pile":
            d.piles[where[0]] = cards
        elif kind == "deck":
            d.decks[where[0]] = cards
        elif kind == "discard":
            d.discards[where[0]] = cards
        elif kind == "out":
            d.out = cards
        elif kind == "hand":
            d.hands[where[0]] = cards
        else:
            w = s.windows[where[0]]
            for p, e in list(w.entries.items()):
                w.entries[p] = Entry({"card": cards[0]}, "", "", e.defaulted)
    if d.events:
        d.events = _events(game, s, rng)
    _choices(game, s, seat, rng, model)
    for o in d.trade.offers:
        if o["kind"] == "swap" and o["give"] is UNSEEN:
            hand = d.hands[o["from"]]
            o["give"] = hand[rng.randrange(len(hand))] if hand else None
    s.rng = random.Random(rng.getrandbits(64))
    return s


def _events(game, state, rng):
    """The Event deck: every Event of the edition neither flipped before nor up now,
    shuffled (as many as the deck holds)."""
    d = state.data
    pool = list(game.db.deck(d.edition, "event"))
    for e in d.event_discard + ([d.board.event] if d.board.event else []):
        if e in pool:
            pool.remove(e)
    rng.shuffle(pool)
    return pool[:len(d.events)]


def _choices(game, state, seat, rng, model):
    """The others' unseen sealed choices made again by ``model`` from the prompt the phase
    gives them once their choice is taken back (the prompt rebuilt from the re-dealt state)."""
    todo = []
    for w in state.windows.values():
        if w.kind != "export" and not w.revealed_flag:
            for p, e in list(w.entries.items()):
                if e.choice is UNSEEN:
                    del w.entries[p]
                    todo.append((w, p, e.defaulted))
    if not todo:
        return
    if model is None:
        from .greedy import greedy_bot as model
    asked = game.phases[state.phase].prompts(state)
    saved = state.prompts
    try:
        for w, p, defaulted in todo:
            prompt = asked.get(p)
            if prompt is None or prompt.get("window") != w.id:
                raise RuntimeError(f"Trade Warz re-deal: no prompt for seat {p} in {w.id}")
            state.prompts = {p: prompt}
            move, args = model(game, game.observe(state, p), rng)
            choice = game.moves[move].fn(state, p, **args)
            w.entries[p] = Entry(choice, "", "", defaulted)
    finally:
        state.prompts = saved


# -- the moves the search weighs -----------------------------------------------------------------

def candidates(game, view):
    """Every move the search weighs for the seat now, each legal (a handful of each kind, not
    every one): see :func:`_trade`, :func:`_policy`, :func:`_bids` and :func:`_draws`; each
    option of a dispute, target, partner or yes/no question; the greedy bot's answer to the
    rest (offers, swaps, discards, routes, the order of Policies)."""
    from . import greedy as bots
    p = view.prompt
    m = p["moves"][0]
    rng = random.Random(0)
    greedy = bots.greedy_bot(game, view, rng)
    if m == "place_export":
        return _dedupe([greedy] + _trade(game, view, p, rng))
    if m == "choose_policy":
        return _dedupe([greedy] + _policy(game, view, rng))
    if m == "bid":
        return _dedupe([greedy] + [("bid", {"amount": a}) for a in _bids(view, p)])
    if m == "draw_cards":
        return _dedupe([greedy] + [("draw_cards", s) for s in _draws(p)])
    if m == "pick_leader":
        opts = list(p["options"])
        return [("pick_leader", {"leader": lid, "ranking": [x for x in opts if x != lid]})
                for lid in opts]
    if m == "choose_dispute":
        return [("choose_dispute", {"partner": o[0], "slot": o[1]}) for o in p["options"]]
    if m == "choose_target":
        return [("choose_target", {"target": t}) for t in p["options"]]
    if m == "choose_partner":
        return [("choose_partner", {"partner": t}) for t in p["options"]]
    if m == "choose_optional":
        return [("choose_optional", {"accept": True}), ("choose_optional", {"accept": False})]
    return [greedy]


def _dedupe(moves):
    from companion.core.search import _key
    seen, out = set(), []
    for move, args in moves:
        k = _key(move, args)
        if k not in seen:
            seen.add(k)
            out.append((move, args))
    return out


#: How many placements (the best by the greedy bot's measure) the search weighs at a time.
PLACEMENTS = 5


def _trade(game, view, p, rng):
    """In Trade: finishing, each affordable Tactic (its target the richest other), and the
    :data:`PLACEMENTS` best placements by the greedy bot's measure (route income over the
    rounds left less cost, the least crowded slot). An offer or swap to answer: the greedy
    bot's answer only."""
    from . import greedy as bots
    moves = p["moves"]
    if ("answer_offer" in moves and bots._offers_to(view, "influence")) or \
            ("answer_swap" in moves and bots._offers_to(view, "swap")):
        return []
    out = [("pass_turn" if "pass_turn" in moves else "done_trade", {})]
    seat = view.seat
    ix = view.ix()
    for cid, _ in bots._affordable_costs(game, view, "tactic", ix):
        out.append(("play_tactic", {"card": cid, **bots._choice_args(
            game, view, cid, rng, bots._richest_other(view))}))
    if view.slots_left() <= 0:
        return out
    exports = sorted({c for c in view.hand if c in ix.exports})
    if not exports:
        return out
    budget = view.budget()
    crowd = {}
    for pl in view.placements:
        if pl["seat"] != seat:
            key = (pl["partner"], pl["slot"])
            crowd[key] = crowd.get(key, 0) + 1
    rows = view.export_rows(exports)
    mult = bots._rounds_left(view) - 0.5
    scored = []
    for pt, slots in view.open_slots_all().items():
        if not slots:
            continue
        k = min(slots, key=lambda x: (crowd.get((pt, x), 0), x))
        for c in exports:
            cost, value = rows[c][pt]
            if cost <= budget:
                v = value * mult - cost - 3.0 * crowd.get((pt, k), 0)
                scored.append((-v, c, pt, k))
    scored.sort()
    out += [("place_export", {"card": c, "partner": pt, "slot": k})
            for _, c, pt, k in scored[:PLACEMENTS]]
    return out


def _policy(game, view, rng):
    """No Policy, or each affordable one (its target the richest other, its partner the
    seat's best)."""
    from . import greedy as bots
    out = [("choose_policy", {"card": None})]
    for cid, _ in bots._affordable_costs(game, view, "policy"):
        args = {"card": cid, **bots._choice_args(game, view, cid, rng,
                                                 bots._richest_other(view))}
        if "partner" in args:
            args["partner"] = bots._best_partner(game, view)
        out.append(("choose_policy", args))
    return out


def _bids(view, p):
    top = p["max"]
    return sorted({a for a in (0, 1, 2, 3, 4, 6, 8, 12) if a <= top})


def _draws(p):
    """The whole draw from one pile, for each pile that holds enough."""
    count = p["count"]
    out = []
    for pile, k in p["piles"].items():
        if k >= count:
            out.append({pile: count})
    return out


def evaluate(game, state, seat):
    """A rollout cut short, scored for ``seat`` in [0, 1]: its GDP lead over the best other
    player (GDP is what wins: the line, or the most at the close), through a logistic whose
    width grows with the rounds still to play."""
    gdp = state.data.gdp
    mine = gdp[seat]
    best = max(v for s, v in enumerate(gdp) if s != seat)
    left = max(0, state.data.rounds - state.round)
    return 1.0 / (1.0 + math.exp(-(mine - best) / (3.0 + 2.0 * left)))
