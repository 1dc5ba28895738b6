"""Trade Warz's greedy bot: bids, policies, splits and trades a greedy seat makes, played by the
bots and by the re-deals' rollouts (:mod:`.redeal`). Apart from :mod:`.bots` so that the re-
deals can use it without importing the search bot that uses them.
"""



def _affordable_costs(game, view, kind, ix=None):
    """``[(card, cost), ...]`` of the ``kind`` cards in hand the seat can pay for now, by id."""
    ix = ix or view.ix()
    pool = ix.policies if kind == "policy" else ix.tactics
    mine = {c for c in view.hand if c in pool}
    if not mine or (kind == "tactic" and view.silenced() is not None):
        return []
    gdp = view.gdp[view.seat]
    costs = view.costs_of(mine)
    return sorted((c, k) for c, k in costs.items() if k <= gdp)


def _choice_args(game, view, cid, rng, pick_target=None):
    """target / partner arguments a card needs, or None if it cannot be played now."""
    ix = view.ix()
    mode, needs_partner = ix.needs[cid]
    args = {}
    if mode is not None:
        legal = view.legal_targets(mode)
        if len(legal) > 1:
            args["target"] = pick_target(legal) if pick_target else rng.choice(legal)
    if needs_partner:
        args["partner"] = rng.choice(ix.partners)
    return args


def _can_keep(view, o):
    """Can ``seat`` keep its side of an influence offer made to it?"""
    seat = view.seat
    if o["side"] == "sell":                 # the maker sells: we pay
        return view.gdp[seat] >= o["price"]
    return view.influence[seat].get(o["partner"], 0) >= o["amount"]


def _offers_to(view, kind):
    seat = view.seat
    return [o for o in view.offers if o["to"] == seat and o["kind"] == kind]


def _answer_common(game, view, p, rng, greedy):
    """Answers to the asks every bot meets. Returns None if the prompt is something else."""
    seat = view.seat
    moves = p["moves"]
    m = moves[0]
    if m == "pick_leader":
        opts = list(p["options"])
        rng.shuffle(opts)
        return "pick_leader", {"leader": opts[0], "ranking": opts[1:]}
    if m == "choose_target":
        opts = p["options"]
        if greedy:
            return "choose_target", {"target": max(opts, key=lambda s: (s != seat,
                                                                        view.gdp[s], -s))}
        return "choose_target", {"target": rng.choice(opts)}
    if m == "choose_partner":
        if greedy:
            return "choose_partner", {"partner": _best_partner(game, view)}
        return "choose_partner", {"partner": rng.choice(p["options"])}
    if m == "choose_optional":
        return "choose_optional", {"accept": True if greedy else rng.random() < 0.7}
    if m == "discard_cards":
        hand = list(view.hand)
        k = min(p["count"], len(hand))
        if greedy:
            hand.sort(key=lambda c: _keep_value(game, view, c))
            return "discard_cards", {"cards": hand[:k]}
        return "discard_cards", {"cards": rng.sample(hand, k)}
    if m == "choose_routes":
        opts = p["options"]
        if greedy:
            ranked = sorted(opts, key=lambda r: -_route_worth(game, view, view.routes[r[0]][r[1]],
                                                               r[0]))
            return "choose_routes", {"routes": ranked[:p["count"]]}
        return "choose_routes", {"routes": rng.sample(opts, p["count"])}
    if m == "order_policies":
        seats = list(p["seats"])
        if greedy:
            seats.sort(key=lambda s: (s != seat, s))
        else:
            rng.shuffle(seats)
        return "order_policies", {"order": seats}
    if m == "choose_dispute":
        opts = p["options"]
        if greedy:
            return "choose_dispute", dict(zip(("partner", "slot"), max(
                opts, key=lambda o: view.ix()[o[0]].bonus)))
        o = rng.choice(opts)
        return "choose_dispute", {"partner": o[0], "slot": o[1]}
    return None


def _rounds_left(view):
    return max(1, view.rounds - view.round + 1)


def _best_partner(game, view):
    seat = view.seat
    ix = view.ix()
    return max(ix.partners, key=lambda p: (sum(1 for r in view.routes[p].values() if r[0] == seat),
                                           ix[p].bonus, p))


def _route_worth(game, view, route, partner):
    s, cid = route
    return view.route_value(s, cid, partner)


def _keep_value(game, view, cid):
    ix = view.ix()
    c = ix[cid]
    if c.kind == "export":
        return (c.value or 0) + 1 - 0.3 * c.cost
    return _card_value(game, view, cid) - c.cost


def _greedy_split(game, view, p):
    ix = view.ix()
    piles = dict(p["piles"])
    count = p["count"]
    hand = view.hand
    n_exp = sum(1 for c in hand if c in ix.exports)
    n_tac = sum(1 for c in hand if c in ix.tactics)
    n_pol = sum(1 for c in hand if c in ix.policies)
    want = []
    want += ["export"] * max(0, 3 - n_exp)
    if n_pol == 0:
        want.append("personal" if "policy" not in piles else "policy")
    want += ["tactic"] * max(0, 1 - n_tac)
    want += ["personal", "export", "tactic", "personal", "export"] * 3
    split = dict.fromkeys(piles, 0)
    for w in want:
        if count == 0:
            break
        for alt in (w, "export", "personal", "tactic", "policy"):
            if piles.get(alt, 0) > split.get(alt, 0):
                split[alt] += 1
                count -= 1
                break
    for alt in piles:                       # whatever is left, from anywhere
        while count and piles[alt] > split[alt]:
            split[alt] += 1
            count -= 1
    return split


_STEP_VALUE = {"gain_gdp": 1.0, "steal_gdp": 1.6, "lose_gdp": 0.6, "draw": 0.9,
               "gain_influence": 0.8, "steal_influence": 1.2, "destroy_route": 4.0,
               "remove_route": 2.5, "refresh_fast_pass": 0.5, "extra_policy": 0.5,
               "discard": 0.5}


def _card_value(game, view, cid, ix=None, left=None, mine=None):
    """A rough GDP-equivalent of playing ``cid`` now (``ix``, ``left``, ``mine``: the index,
    rounds left and own routes, when the caller has them already)."""
    seat = view.seat
    ix = ix or view.ix()
    card = ix[cid]
    if left is None:
        left = _rounds_left(view)
    if mine is None:
        mine = view.routes_of()
    v = 0.0
    for e in card.effects:
        k = e.kind
        amount = e.amount if e.amount is not None else (e.count or 1)
        if e.condition is not None and not view.cond(e.condition, seat):
            continue
        if k in _STEP_VALUE:
            mult = _STEP_VALUE[k]
            if k in ("lose_gdp", "discard") and e.target == "self":
                mult = -mult
            if e.target == "each_opponent" or (e.target == "all" and k == "lose_gdp"):
                mult *= max(1, view.n - 1) * 0.5
            if e.target == "all" and k in ("gain_gdp", "draw"):
                mult *= 0.6
            if e.when in ("upkeep", "income"):
                mult *= left if card.kind != "tactic" else 1
            v += mult * amount
        elif k == "route_income":
            if e.target in ("self", "all"):
                hit = sum(1 for _, _, c in mine if e.tag is None or e.tag in ix[c].tags)
                v += e.amount * (hit + 0.5) * (left if card.kind == "policy" else 1)
            else:
                v += abs(e.amount) * 0.8
        elif k == "cost_change":
            v += (-e.amount if e.target == "self" else abs(e.amount) * 0.5) * 1.5
        elif k == "dispute_power":
            v += 0.5 * abs(e.amount)
        elif k == "protect":
            v += 0.8
        elif k == "slots":
            v += 0.5
    if card.kind == "policy" and ix.slotted.get(cid) and view.policy[seat]:
        v -= 0.5 * left
    return v


def greedy_bot(game, view, rng):
    p = view.prompt
    if p["moves"][0] == "place_export":          # the usual prompt (Trade), first
        return _greedy_trade(game, view, p, rng)
    got = _answer_common(game, view, p, rng, greedy=True)
    if got is not None:
        return got
    m = p["moves"][0]
    if m == "draw_cards":
        return "draw_cards", _greedy_split(game, view, p)
    if m == "choose_policy":
        return "choose_policy", _greedy_policy(game, view, rng)
    if m == "bid":
        return "bid", {"amount": _greedy_bid(game, view, p, rng)}
    if m == "place_export":
        return _greedy_trade(game, view, p, rng)
    raise RuntimeError(f"greedy bot cannot answer {p['moves']}")


def _richest_other(view):
    seat = view.seat

    def pick(options):
        return max(options, key=lambda s: (s != seat, view.gdp[s], -s))
    return pick


def _greedy_policy(game, view, rng):
    seat = view.seat
    best, best_v = None, 0.4
    ix = view.ix()
    policies = _affordable_costs(game, view, "policy", ix)
    if policies:
        left, mine = _rounds_left(view), view.routes_of()
    for cid, cost in policies:
        v = _card_value(game, view, cid, ix, left, mine) - cost
        if v > best_v:
            best, best_v = cid, v
    args = {"card": best}
    if best is not None:
        args.update(_choice_args(game, view, best, rng, _richest_other(view)))
        if "partner" in args:
            args["partner"] = _best_partner(game, view)
    if view.fast_pass[seat] and ix.rules.fast_pass and view.options["fast_pass"] and \
            view.gdp[seat] == max(view.gdp) and len(view.routes_of()) >= 2:
        args["fast_pass"] = True
    return args


def _greedy_trade(game, view, p, rng):
    seat = view.seat
    ix = view.ix()
    moves = p["moves"]
    finish = "pass_turn" if "pass_turn" in moves else "done_trade"
    if "answer_offer" in moves:
        for o in _offers_to(view, "influence"):
            fair = o["price"] <= 2 * o["amount"] if o["side"] == "sell" else \
                o["price"] >= 3 * o["amount"]
            return "answer_offer", {"offer": o["id"], "accept": fair and _can_keep(view, o)}
    if "answer_swap" in moves:
        for o in _offers_to(view, "swap"):
            return "answer_swap", {"offer": o["id"], "give": None}
    # a Tactic that pays for itself
    best, best_v = None, 1.0
    tactics = _affordable_costs(game, view, "tactic", ix)
    if tactics:
        left, mine = _rounds_left(view), view.routes_of()
    for cid, cost in tactics:
        v = _card_value(game, view, cid, ix, left, mine) - cost
        if v > best_v:
            best, best_v = cid, v
    if best is not None:
        return "play_tactic", {"card": best, **_choice_args(game, view, best, rng,
                                                            _richest_other(view))}
    if "activate_ability" in moves:
        lid = view.leaders[seat]
        effects = [ix[lid].effects[i] for i in ix.steps_of(lid, "activated")]
        if any(e.kind == "discard" and e.target == "opponent" for e in effects):
            return "activate_ability", _choice_args(game, view, lid, rng,
                                                    _richest_other(view))
        if view.hand and any(e.kind == "draw" for e in effects):
            worst = min(view.hand, key=lambda c: _keep_value(game, view, c))
            if _keep_value(game, view, worst) < 1.0:
                return "activate_ability", {"discard": [worst], "draw": {"export": 1}}
    # the best route on offer
    left = _rounds_left(view)
    if view.slots_left() <= 0:
        return finish, {}
    exports = sorted({c for c in view.hand if c in ix.exports})
    if not exports:
        return finish, {}
    budget = view.budget()
    reserve = 2 if left > 2 else 0
    crowd = {}
    for pl in view.placements:
        if pl["seat"] != seat:
            key = (pl["partner"], pl["slot"])
            crowd[key] = crowd.get(key, 0) + 1
    best, best_v = None, 0.0
    open_ = [(pt, slots) for pt, slots in view.open_slots_all().items() if slots]
    rows = view.export_rows(exports)
    mult = left - 0.5
    noise = rng.random
    for pt, slots in open_:
        # the least crowded open slot here (the first of them)
        k = slots[0]
        penalty = 0.0
        if crowd:
            low = crowd.get((pt, k), 0)
            for x in slots:
                if not low:
                    break
                n = crowd.get((pt, x), 0)
                if n < low:
                    k, low = x, n
            if low:
                penalty = 3.0 + 1.5 * low
        for c in exports:
            cost, value = rows[c][pt]
            if cost > budget:
                continue
            v = value * mult - cost - penalty + noise() * 0.5
            if budget - cost < reserve:
                v -= 1.0
            if v > best_v:
                best, best_v = (c, pt, k), v
    if best is not None:
        return "place_export", {"card": best[0], "partner": best[1], "slot": best[2]}
    return finish, {}


def _greedy_bid(game, view, p, rng):
    seat = view.seat
    ix = view.ix()
    c = view.contests[p["contest"]]
    top = p["max"]
    partner = c["partner"]

    def base(s):
        cid = c["cards"][str(s)]
        acc = view.influence[s].get(partner, 0) if ix.rules.influence_accumulates else 0
        return ix[cid].influence + acc + view.dispute_bonus(s, cid, partner)
    mine = base(seat)
    rival = max(base(s) for s in c["seats"] if s != seat)
    worth = view.route_value(seat, c["cards"][str(seat)], partner) * \
        max(1, _rounds_left(view) - 1)
    need = max(0, rival - mine + 1 + rng.randint(0, 2))
    if need > worth or need > top:
        return min(top, rng.randint(0, 1))
    return need
