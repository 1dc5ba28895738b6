"""Battle Builder for the search bot (companion/core/search.py): what a seat cannot see,
re-dealt; the moves the search weighs; and how a rollout cut short is scored.

What a Battle Builder seat cannot see: the order of the monster deck and which monsters are in
it rather than in the monster discard (it sees how many each holds; the others' dual-monster
draws also go face down to the discard); the others' dual-monster draws (it sees that they
drew); the order of every defence draw pile (its own too: the seat sees the pile's size and
the cards played from it) and of each monster's defence deck in a battle; the order of the
environment and arena decks; the others' secret objectives and objective offers (it sees who
holds one); the sealed choices the others have locked in (votes, bids, roles and bets, battle
turns, PvP wagers; it sees who locked in); and the random stream later shuffles, shop reveals
and tiebreaks draw from. Everything else is on the table.

:func:`blank` (through :meth:`BBObservation.known <.bots.BBObservation.known>`) is the only
place that reads the true state and blanks all of that; :func:`redeal` fills the blanks from
what is unseen and never sees what was there.
"""
import math
import random

from companion.core.sealed import Entry
from companion.core.search import UNSEEN, blank_the_rest, clone

from .common import BBData

#: An unseen sealed choice in :func:`blank`'s copy (a fresh :func:`redeal` fills it).


def _deep(x):
    """A copy of plain data (dicts and lists copied all the way down)."""
    t = type(x)
    if t is list:
        return [_deep(v) for v in x]
    if t is dict:
        return {k: _deep(v) for k, v in x.items()}
    return x


def copy_data(d):
    """A copy of Battle Builder's data that a game may be played on (every list and dict new;
    the playtest records already written are shared: nothing changes them again)."""
    new = object.__new__(BBData)
    nd = new.__dict__
    for k, v in d.__dict__.items():
        nd[k] = _deep(v) if k != "track" else v
    t = d.track
    if t:
        nd["track"] = dict(t, choices=dict(t["choices"]),
                           results={k: dict(v) for k, v in t["results"].items()},
                           battles=list(t["battles"]), pvp=list(t["pvp"]))
    return new


def blank(game, state, seat):
    """A lean copy of ``state`` with everything ``seat`` may not see blanked: the monster deck
    and discard and the others' dual draws as None (sizes kept), every defence pile and monster
    defence deck and the environment and arena decks in sorted order (their contents are known,
    their order is not), the others' objectives and offers as None, the others' locked choices
    as :data:`UNSEEN`, a fixed random stream. Two states that differ only in what the seat
    cannot see give equal copies (tests/games/battle_builder/test_search.py)."""
    s = clone(state, copy_data)
    d = s.data
    d.monster_deck = [None] * len(d.monster_deck)
    d.monster_discard = [None] * len(d.monster_discard)
    d.dual_draws = {p: (v if p == seat else [None] * len(v)) for p, v in d.dual_draws.items()}
    d.ddeck = [sorted(v) for v in d.ddeck]
    for b in d.battles.values():
        for m in b["monsters"]:
            m["deck"] = sorted(m["deck"])
    d.env_deck = sorted(d.env_deck)
    d.arena_deck = sorted(d.arena_deck)
    d.objective_offer = {p: (v if p == seat else [None] * len(v))
                         for p, v in d.objective_offer.items()}
    d.objective = {p: (v if p == seat else None) for p, v in d.objective.items()}
    return blank_the_rest(s, seat)


def _fill(slots, pool):
    """``slots`` with each None replaced by the next of ``pool`` (an iterator)."""
    return [x if x is not None else next(pool) for x in slots]


def _monsters_seen(d, seat):
    seen = [m for o in d.offers for m in o] + list(d.pool) + [m for p in d.picks for m in p]
    seen += d.dual_draws.get(seat, [])
    for b in d.battles.values():
        seen += [m["id"] for m in b["monsters"]]
    return seen


def _endless(cards, rng):
    """``cards`` shuffled, then fresh shuffles of them for as long as asked (a deck can hold a
    second set once every card was out)."""
    while True:
        deck = list(cards)
        rng.shuffle(deck)
        yield from deck
        if not cards:
            raise RuntimeError("nothing to deal from")


def redeal(game, view, rng, model=None):
    """A whole state that agrees with everything ``view`` (a :class:`BBObservation`) shows,
    with what its seat cannot see drawn afresh from ``rng``: the monsters not on the table
    shuffled into the others' dual draws, the monster deck and its discard; every defence pile,
    monster defence deck, environment and arena deck shuffled; the others' objectives (and
    offers) drawn from those the seat does not hold; the others' locked choices made by
    ``model`` (a bot; default the greedy bot) from their own view of the re-dealt state; a new
    random stream."""
    seat = view.seat
    s = clone(view.known(), copy_data)
    d = s.data
    # monsters: those not seen on the table, as many times over as the slots need
    pool = game._monster_pool(s)
    seen = {}
    for m in _monsters_seen(d, seat):
        seen[m] = seen.get(m, 0) + 1
    unseen = []
    for m in pool:
        if seen.get(m, 0):
            seen[m] -= 1
        else:
            unseen.append(m)
    rng.shuffle(unseen)
    it = iter(unseen + list(_take(_endless(pool, rng), _slots(d, seat) - len(unseen))))
    for p, v in d.dual_draws.items():
        if p != seat:
            d.dual_draws[p] = _fill(v, it)
    d.monster_deck = _fill(d.monster_deck, it)
    d.monster_discard = _fill(d.monster_discard, it)
    for v in d.ddeck:
        rng.shuffle(v)
    for b in d.battles.values():
        for m in b["monsters"]:
            rng.shuffle(m["deck"])
    rng.shuffle(d.env_deck)
    rng.shuffle(d.arena_deck)
    # objectives: the others' from those this seat neither holds nor was offered
    if d.objective or d.objective_offer:
        mine = set(d.objective_offer.get(seat, []))
        if d.objective.get(seat):
            mine.add(d.objective[seat])
        objs = [o for o in game.rules.objectives if o not in mine]
        rng.shuffle(objs)
        it = iter(objs)
        for p in sorted(set(d.objective) | set(d.objective_offer)):
            if p == seat:
                continue
            offer = d.objective_offer.get(p)
            if offer:
                d.objective_offer[p] = _fill(offer, it)
            if p in d.objective:
                d.objective[p] = next(it)
    for w in s.windows.values():
        if w.revealed_flag:
            continue
        for p, e in list(w.entries.items()):
            if e.choice is UNSEEN:
                w.entries[p] = Entry(_choice_of(game, s, p, w, rng, model), "", "",
                                     e.defaulted)
    s.rng = random.Random(rng.getrandbits(64))
    return s


def _take(gen, k):
    for _ in range(max(0, k)):
        yield next(gen)


def _slots(d, seat):
    return (len(d.monster_deck) + len(d.monster_discard) +
            sum(len(v) for p, v in d.dual_draws.items() if p != seat))


def _prompt(game, state, seat, w):
    """The prompt ``seat`` had when it locked into window ``w`` (rebuilt from public facts as
    the phase that opened the window built it)."""
    d, kind = state.data, w.kind
    if kind == "turn":
        b = d.battles[w.id.split(":")[0]]
        info = {"window": w.id, "battle": b["id"], "stamina": d.stamina[seat],
                "cards": sorted(set(d.pile[seat]))}
        if game.must_fumble(state, seat):
            info["fumble"] = True
        targets = [i for i, m in enumerate(b["monsters"]) if m["hp"] > 0]
        if len(targets) > 1:
            info["targets"] = targets
        return ("play_turn",), info
    if kind == "monster":
        if state.config["dual_monsters"]:
            return ("choose_monster",), {"window": w.id, "mode": "dual",
                                         "options": list(d.dual_draws[seat])}
        return ("choose_monster",), {"window": w.id, "mode": "vote",
                                     "options": list(d.offers[game.team_of(state, seat)])}
    if kind == "auction":
        return ("bid_auction",), {"window": w.id, "most": game.wallet(state, seat),
                                  "pool": list(d.pool)}
    if kind == "prep":
        if state.config["earning"] == "roles":
            from .battles import ROLES
            return ("prepare",), {"window": w.id, "roles": list(ROLES)}
        b = game.rules.betting
        return ("prepare",), {"window": w.id, "bets": list(b["kinds"]),
                              "most": min(b["max_stake"], game.wallet(state, seat))}
    if kind == "vote":
        return ("vote_pvp",), {"window": w.id}
    if kind == "pvp-prep":
        return ("prepare_pvp",), dict(game._pvp_fields(state, seat), window=w.id)
    raise RuntimeError(f"no prompt for a {kind} window")


def _choice_of(game, state, seat, w, rng, model):
    """The sealed choice ``model`` would lock in for ``seat`` in the re-dealt state, as the
    move normalises it."""
    if model is None:
        from .greedy import greedy_bot as model
    moves, info = _prompt(game, state, seat, w)
    state.prompts[seat] = dict(info, moves=moves)
    try:
        move, args = model(game, game.observe(state, seat), rng)
        return game.moves[move].fn(state, seat, **args)
    finally:
        del state.prompts[seat]


# -- the moves the search weighs -----------------------------------------------------------------

def _turn_moves(game, view, p):
    cards = game.rules.cards
    stamina = p["stamina"]
    targets = p.get("targets", [None])
    out = []
    if p.get("fumble") or not any(cards[c].min_stamina <= stamina for c in p["cards"]):
        picks = [(c, 0) for c in p["cards"]]
    else:
        from .greedy import _greedy_turn
        g = _greedy_turn(game, view, p)
        picks = []
        for c in p["cards"]:
            lo = cards[c].min_stamina
            if lo > stamina:
                continue
            amounts = {lo, min(stamina, lo + 2), min(stamina, lo + 5), stamina}
            if g["card"] == c:
                amounts.add(g["stamina"])
            picks += [(c, a) for a in sorted(amounts)]
    for c, a in picks:
        for t in targets:
            args = {"card": c, "stamina": a}
            if t is not None:
                args["target"] = t
            out.append(("play_turn", args))
    return out


def _shop_moves(game, view, moves):
    from .greedy import _affordable_cards, _affordable_upgrades, _thin
    out = [("done_shopping", {})]
    for cid, _ in _affordable_cards(game, view):
        args = {"card": cid}
        rem = _thin(game, view, cid)
        if rem is not None:
            args["remove"] = rem
        out.append(("buy", args))
    out += [("upgrade", {"stat": st}) for st, _ in _affordable_upgrades(game, view)]
    if "convert" in moves:
        tok = view.tokens[view.seat]
        types = view.system().types
        big = max(types, key=lambda t: (tok[t], t))
        if tok[big] >= game.rules.conversion[0]:
            out += [("convert", {"give": big, "get": t}) for t in types if t != big]
    return out


def _pvp_prep_moves(p):
    wagers = [None]
    if "wager" in p:
        lo, hi = p["wager"]
        wagers = sorted({lo, min(hi, lo + 2)})
    revenges = [None] + list(p.get("revenge", []))
    out = []
    for wg in wagers:
        for rv in revenges:
            args = {}
            if wg is not None:
                args["wager"] = wg
            if rv is not None:
                args["revenge"] = rv
            out.append(dict(args))
            if "bet_on" in p and p["stake"][1] - args.get("wager", 0) >= 1:
                out += [dict(args, bet_on=b, stake=1) for b in p["bet_on"]]
    return [("prepare_pvp", a) for a in out]


def candidates(game, view):
    """Every move the search weighs for the seat now, each legal: in a battle turn each card
    with a few stamina amounts (its minimum, +2, +5, all, and the greedy bot's amount) on each
    target; each extra-attack card; each monster to vote for, keep or pick; auction bids 0-3;
    each role, or no bet or each bet at stake 1; in the shop each affordable card (thinning its
    weakest basic card when allowed), each upgrade, each conversion of the largest pile, or
    done; yes and no on PvP; each opponent; a few wagers, each revenge use and each spectator
    bet at stake 1; each reward pile; each objective to keep."""
    p = view.prompt
    moves = p["moves"]
    if "play_turn" in moves:
        return _turn_moves(game, view, p)
    if "extra_attack" in moves:
        return [("extra_attack", {"card": c}) for c in p["cards"]]
    if "choose_monster" in moves:
        return [("choose_monster", {"monster": m}) for m in dict.fromkeys(p["options"])]
    if "bid_auction" in moves:
        return [("bid_auction", {"tokens": k}) for k in range(min(3, p["most"]) + 1)]
    if "pick_monster" in moves:
        return [("pick_monster", {"monster": m}) for m in dict.fromkeys(p["pool"])]
    if "prepare" in moves:
        if "roles" in p:
            return [("prepare", {"role": r}) for r in p["roles"]]
        out = [("prepare", {})]
        if p["most"] > 0:
            out += [("prepare", {"bet": b, "stake": 1}) for b in p["bets"]]
        return out
    if "done_shopping" in moves:
        return _shop_moves(game, view, moves)
    if "vote_pvp" in moves:
        return [("vote_pvp", {"pvp": True}), ("vote_pvp", {"pvp": False})]
    if "choose_opponent" in moves:
        return [("choose_opponent", {"opponent": s}) for s in p["candidates"]]
    if "prepare_pvp" in moves:
        return _pvp_prep_moves(p)
    if "choose_pile" in moves:
        return [("choose_pile", {"pile": k}) for k in ("a", "b")]
    if "keep_objective" in moves:
        return [("keep_objective", {"index": i}) for i in range(len(p["options"]))]
    raise RuntimeError(f"the search bot cannot answer {moves}")


def assets(game, state, seat):
    """What ``seat`` holds besides VP, in tokens: its tokens, and the cards it bought and the
    upgrades it made at their shop price (so a purchase is not scored as a loss before the
    battle it pays off in)."""
    d, shop = state.data, game.rules.shop
    cards, price = game.rules.cards, shop["tier_cost"]
    worth = sum(d.tokens[seat].values())
    worth += sum(price[cards[c].tier - 1] for c in d.attack[seat] + d.defense[seat]
                 if cards[c].tier)
    return worth + d.hp_ups[seat] * shop["hp_cost"] + d.st_ups[seat] * shop["stamina_cost"]


def evaluate(game, state, seat):
    """A rollout cut short, scored for ``seat`` in [0, 1]: its lead over the best other player
    in VP (the winner is the most VP) plus its :func:`assets` at a fifth of a VP a token (the
    greedy bot's rate: tokens buy strength for later battles and break ties), through a
    logistic whose width grows with the battles still to play."""
    from .greedy import VP_WORTH
    score = [state.data.vp[s] + assets(game, state, s) / VP_WORTH for s in range(state.n)]
    mine = score[seat]
    best = max(v for s, v in enumerate(score) if s != seat)
    left = max(0, game.arc(state)[0] - state.round)
    return 1.0 / (1.0 + math.exp(-(mine - best) / (1.0 + 0.5 * left)))
