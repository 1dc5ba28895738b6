"""Trade Warz bots. A bot is ``bot(game, state, seat, rng) -> (move, args)`` for the prompt
``state.prompts[seat]``; it reads only public information and its own seat's (its hand, its
face-down Exports). ``table_bot`` answers the table's prompts (confirmations, manual effects)
the way a careful table would, so simulations resolve the manual effects it knows.

* ``random``: any legal answer, chosen at random (it also makes influence offers, card swaps
  and loans now and then, so every move is exercised).
* ``greedy``: a heuristic player: it values routes by their income over the rounds left, avoids
  contested slots unless it is likely to win them, bids what a route is worth, plays Tactics
  and Policies whose effects pay for themselves.

Both pick Leaders at random, so win rates per Leader compare the Leaders, not the bots' taste.
"""

# -- shared helpers -------------------------------------------------------------------------------


def _placements(game, state, seat):
    """Every legal (card, partner, slot, cost) for ``seat`` now."""
    d = state.data
    ix = game.ix(state)
    if game.slots_left(state, seat) <= 0:
        return []
    exports = sorted({c for c in d.hands[seat] if c in ix.exports})
    if not exports:
        return []
    budget = game.budget(state, seat)
    table = game.export_options(state, seat, exports)
    out = []
    for p, slots in game.open_slots_all(state, seat).items():
        if not slots:
            continue
        for c in exports:
            cost = table[c, p][0]
            if cost <= budget:
                for k in slots:
                    out.append((c, p, k, cost))
    return out


def _random_split(piles, count, rng):
    split = dict.fromkeys(piles, 0)
    room = dict(piles)
    for _ in range(count):
        options = [p for p in room if room[p] > 0]
        if not options:
            break
        p = rng.choice(options)
        split[p] += 1
        room[p] -= 1
    return split


def _affordable(game, state, seat, kind):
    d = state.data
    ix = game.ix(state)
    if kind == "tactic" and game.silenced(state, seat) is not None:
        return []
    pool = {"policy": ix.policies, "tactic": ix.tactics}[kind]
    return sorted({c for c in d.hands[seat] if c in pool and
                   game.cost_of(state, seat, c) <= d.gdp[seat]})


def _choice_args(game, state, seat, cid, rng, pick_target=None):
    """target / partner arguments a card needs, or None if it cannot be played now."""
    ix = game.ix(state)
    mode, needs_partner = ix.needs[cid]
    args = {}
    if mode is not None:
        legal = game.legal_targets(state, seat, mode)
        if len(legal) > 1:
            args["target"] = pick_target(legal) if pick_target else rng.choice(legal)
    if needs_partner:
        args["partner"] = rng.choice(ix.partners)
    return args


def _can_keep(state, seat, o):
    """Can ``seat`` keep its side of an influence offer made to it?"""
    d = state.data
    if o["side"] == "sell":                 # the maker sells: we pay
        return d.gdp[seat] >= o["price"]
    return d.influence[seat].get(o["partner"], 0) >= o["amount"]


def _offers_to(state, seat, kind):
    return [o for o in state.data.trade.offers if o["to"] == seat and o["kind"] == kind]


def _answer_common(game, state, seat, p, rng, greedy):
    """Answers to the asks every bot meets. Returns None if the prompt is something else."""
    moves = p["moves"]
    d = state.data
    m = moves[0]
    if m == "pick_leader":
        opts = list(p["options"])
        rng.shuffle(opts)
        return "pick_leader", {"leader": opts[0], "ranking": opts[1:]}
    if m == "choose_target":
        opts = p["options"]
        if greedy:
            return "choose_target", {"target": max(opts, key=lambda s: (s != seat,
                                                                        d.gdp[s], -s))}
        return "choose_target", {"target": rng.choice(opts)}
    if m == "choose_partner":
        if greedy:
            return "choose_partner", {"partner": _best_partner(game, state, seat)}
        return "choose_partner", {"partner": rng.choice(p["options"])}
    if m == "choose_optional":
        return "choose_optional", {"accept": True if greedy else rng.random() < 0.7}
    if m == "discard_cards":
        hand = list(d.hands[seat])
        k = min(p["count"], len(hand))
        if greedy:
            hand.sort(key=lambda c: _keep_value(game, state, seat, c))
            return "discard_cards", {"cards": hand[:k]}
        return "discard_cards", {"cards": rng.sample(hand, k)}
    if m == "choose_routes":
        opts = p["options"]
        if greedy:
            ranked = sorted(opts, key=lambda r: -_route_worth(game, state, d.board.routes[r[0]][r[1]],
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
                opts, key=lambda o: game.ix(state)[o[0]].bonus)))
        o = rng.choice(opts)
        return "choose_dispute", {"partner": o[0], "slot": o[1]}
    return None


def _rounds_left(state):
    return max(1, state.data.rounds - state.round + 1)


def _best_partner(game, state, seat):
    d = state.data
    ix = game.ix(state)
    return max(ix.partners, key=lambda p: (sum(1 for r in d.board.routes[p].values() if r[0] == seat),
                                           ix[p].bonus, p))


def _route_worth(game, state, route, partner):
    s, cid = route
    return game.route_value(state, s, cid, partner)


def _keep_value(game, state, seat, cid):
    ix = game.ix(state)
    c = ix[cid]
    if c.kind == "export":
        return (c.value or 0) + 1 - 0.3 * c.cost
    return _card_value(game, state, seat, cid) - c.cost


# -- draw -----------------------------------------------------------------------------------------

def _greedy_split(game, state, seat, p):
    d = state.data
    ix = game.ix(state)
    piles = dict(p["piles"])
    count = p["count"]
    hand = d.hands[seat]
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


# -- card values (greedy) -------------------------------------------------------------------------

_STEP_VALUE = {"gain_gdp": 1.0, "steal_gdp": 1.6, "lose_gdp": 0.6, "draw": 0.9,
               "gain_influence": 0.8, "steal_influence": 1.2, "destroy_route": 4.0,
               "remove_route": 2.5, "refresh_fast_pass": 0.5, "extra_policy": 0.5,
               "discard": 0.5}


def _card_value(game, state, seat, cid):
    """A rough GDP-equivalent of playing ``cid`` now."""
    d = state.data
    ix = game.ix(state)
    card = ix[cid]
    left = _rounds_left(state)
    mine = game.routes_of(state, seat)
    v = 0.0
    for e in card.effects:
        k = e.kind
        amount = e.amount if e.amount is not None else (e.count or 1)
        if e.condition is not None and not game.cond(state, e.condition, seat):
            continue
        if k in _STEP_VALUE:
            mult = _STEP_VALUE[k]
            if k in ("lose_gdp", "discard") and e.target == "self":
                mult = -mult
            if e.target == "each_opponent" or (e.target == "all" and k == "lose_gdp"):
                mult *= max(1, state.n - 1) * 0.5
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
    if card.kind == "policy" and ix.slotted.get(cid) and d.board.policy[seat]:
        v -= 0.5 * left
    return v


# -- bots -----------------------------------------------------------------------------------------

def random_bot(game, state, seat, rng):
    p = state.prompts[seat]
    got = _answer_common(game, state, seat, p, rng, greedy=False)
    if got is not None:
        return got
    d = state.data
    moves = p["moves"]
    m = moves[0]
    if m == "draw_cards":
        return "draw_cards", _random_split(p["piles"], p["count"], rng)
    if m == "choose_policy":
        args = {"card": None}
        options = _affordable(game, state, seat, "policy")
        if options and rng.random() < 0.8:
            cid = rng.choice(options)
            args = {"card": cid, **_choice_args(game, state, seat, cid, rng)}
        if d.fast_pass[seat] and game.ix(state).rules.fast_pass and \
                state.config["fast_pass"] and rng.random() < 0.15:
            args["fast_pass"] = True
        return "choose_policy", args
    if m == "bid":
        top = p["max"]
        return "bid", {"amount": rng.choice([0, 0, 1, min(2, top), rng.randint(0, top)])
                       if top else 0}
    if m == "place_export":
        return _random_trade(game, state, seat, p, rng)
    raise RuntimeError(f"random bot cannot answer {moves}")


def _random_trade(game, state, seat, p, rng):
    d = state.data
    moves = p["moves"]
    finish = "pass_turn" if "pass_turn" in moves else "done_trade"
    for o in _offers_to(state, seat, "influence"):
        return "answer_offer", {"offer": o["id"], "accept": _can_keep(state, seat, o) and
                                rng.random() < 0.5}
    for o in _offers_to(state, seat, "swap"):
        if d.hands[seat] and rng.random() < 0.6:
            return "answer_swap", {"offer": o["id"], "give": rng.choice(d.hands[seat])}
        return "answer_swap", {"offer": o["id"], "give": None}
    r = rng.random()
    if r < 0.12:
        options = _affordable(game, state, seat, "tactic")
        if options:
            cid = rng.choice(options)
            return "play_tactic", {"card": cid, **_choice_args(game, state, seat, cid, rng)}
    elif r < 0.17 and "activate_ability" in moves:
        lid = d.board.leaders[seat]
        ix = game.ix(state)
        ok = True
        for i in ix.steps_of(lid, "activated"):
            e = ix[lid].effects[i]
            if e.kind == "discard" and e.target == "self" and not d.hands[seat]:
                ok = False
        if ok:
            return "activate_ability", _choice_args(game, state, seat, lid, rng)
    elif r < 0.19 and "use_fast_pass" in moves:
        return "use_fast_pass", {}
    elif r < 0.22 and "offer_influence" in moves:
        mine = [(pt, k) for pt, k in d.influence[seat].items() if k > 0]
        if mine:
            pt, k = rng.choice(mine)
            to = rng.choice([s for s in range(state.n) if s != seat])
            return "offer_influence", {"to": to, "partner": pt, "amount": rng.randint(1, k),
                                       "price": rng.randint(0, 4), "side": "sell"}
    elif r < 0.25 and "offer_swap" in moves and d.hands[seat] and \
            not any(o["from"] == seat for o in d.trade.offers):
        to = rng.choice([s for s in range(state.n) if s != seat])
        return "offer_swap", {"to": to, "give": rng.choice(d.hands[seat])}
    elif r < 0.27 and "note_loan" in moves and d.gdp[seat] > 0:
        to = rng.choice([s for s in range(state.n) if s != seat])
        return "note_loan", {"to": to, "amount": rng.randint(1, min(3, d.gdp[seat])),
                             "terms": "pay back next round"}
    if rng.random() < 0.75:
        options = _placements(game, state, seat)
        if options:
            c, pt, k, _ = rng.choice(options)
            return "place_export", {"card": c, "partner": pt, "slot": k}
    return finish, {}


def greedy_bot(game, state, seat, rng):
    p = state.prompts[seat]
    got = _answer_common(game, state, seat, p, rng, greedy=True)
    if got is not None:
        return got
    d = state.data
    m = p["moves"][0]
    if m == "draw_cards":
        return "draw_cards", _greedy_split(game, state, seat, p)
    if m == "choose_policy":
        return "choose_policy", _greedy_policy(game, state, seat, rng)
    if m == "bid":
        return "bid", {"amount": _greedy_bid(game, state, seat, p, rng)}
    if m == "place_export":
        return _greedy_trade(game, state, seat, p, rng)
    raise RuntimeError(f"greedy bot cannot answer {p['moves']}")


def _richest_other(state, seat):
    d = state.data

    def pick(options):
        return max(options, key=lambda s: (s != seat, d.gdp[s], -s))
    return pick


def _greedy_policy(game, state, seat, rng):
    d = state.data
    best, best_v = None, 0.4
    for cid in _affordable(game, state, seat, "policy"):
        v = _card_value(game, state, seat, cid) - game.cost_of(state, seat, cid)
        if v > best_v:
            best, best_v = cid, v
    args = {"card": best}
    if best is not None:
        args.update(_choice_args(game, state, seat, best, rng, _richest_other(state, seat)))
        if "partner" in args:
            args["partner"] = _best_partner(game, state, seat)
    ix = game.ix(state)
    if d.fast_pass[seat] and ix.rules.fast_pass and state.config["fast_pass"] and \
            d.gdp[seat] == max(d.gdp) and len(game.routes_of(state, seat)) >= 2:
        args["fast_pass"] = True
    return args


def _greedy_trade(game, state, seat, p, rng):
    d = state.data
    ix = game.ix(state)
    moves = p["moves"]
    finish = "pass_turn" if "pass_turn" in moves else "done_trade"
    for o in _offers_to(state, seat, "influence"):
        fair = o["price"] <= 2 * o["amount"] if o["side"] == "sell" else \
            o["price"] >= 3 * o["amount"]
        return "answer_offer", {"offer": o["id"], "accept": fair and _can_keep(state, seat, o)}
    for o in _offers_to(state, seat, "swap"):
        return "answer_swap", {"offer": o["id"], "give": None}
    # a Tactic that pays for itself
    best, best_v = None, 1.0
    for cid in _affordable(game, state, seat, "tactic"):
        v = _card_value(game, state, seat, cid) - game.cost_of(state, seat, cid)
        if v > best_v:
            best, best_v = cid, v
    if best is not None:
        return "play_tactic", {"card": best, **_choice_args(game, state, seat, best, rng,
                                                            _richest_other(state, seat))}
    if "activate_ability" in moves:
        lid = d.board.leaders[seat]
        effects = [ix[lid].effects[i] for i in ix.steps_of(lid, "activated")]
        if any(e.kind == "discard" and e.target == "opponent" for e in effects):
            return "activate_ability", _choice_args(game, state, seat, lid, rng,
                                                    _richest_other(state, seat))
        if d.hands[seat] and any(e.kind == "draw" for e in effects):
            worst = min(d.hands[seat], key=lambda c: _keep_value(game, state, seat, c))
            if _keep_value(game, state, seat, worst) < 1.0:
                return "activate_ability", {"discard": [worst], "draw": {"export": 1}}
    # the best route on offer
    left = _rounds_left(state)
    if game.slots_left(state, seat) <= 0:
        return finish, {}
    exports = sorted({c for c in d.hands[seat] if c in ix.exports})
    if not exports:
        return finish, {}
    budget = game.budget(state, seat)
    reserve = 2 if left > 2 else 0
    crowd = {}
    for pl in d.trade.placements:
        if pl["seat"] != seat:
            key = (pl["partner"], pl["slot"])
            crowd[key] = crowd.get(key, 0) + 1
    best, best_v = None, 0.0
    table = game.export_options(state, seat, exports)
    for pt, slots in game.open_slots_all(state, seat).items():
        if not slots:
            continue
        # the least crowded open slot here (the first of them)
        k = min(slots, key=lambda x: crowd.get((pt, x), 0)) if crowd else slots[0]
        penalty = 3.0 + 1.5 * crowd[(pt, k)] if (pt, k) in crowd else 0.0
        for c in exports:
            cost, value = table[c, pt]
            if cost > budget:
                continue
            v = value * (left - 0.5) - cost - penalty + rng.random() * 0.5
            if budget - cost < reserve:
                v -= 1.0
            if v > best_v:
                best, best_v = (c, pt, k), v
    if best is not None:
        return "place_export", {"card": best[0], "partner": best[1], "slot": best[2]}
    return finish, {}


def _greedy_bid(game, state, seat, p, rng):
    d = state.data
    ix = game.ix(state)
    c = d.disputes.contests[p["contest"]]
    top = p["max"]
    partner = c["partner"]

    def base(s):
        cid = c["cards"][str(s)]
        acc = d.influence[s].get(partner, 0) if ix.rules.influence_accumulates else 0
        return ix[cid].influence + acc + game.dispute_bonus(state, s, cid, partner)
    mine = base(seat)
    rival = max(base(s) for s in c["seats"] if s != seat)
    worth = game.route_value(state, seat, c["cards"][str(seat)], partner) * \
        max(1, _rounds_left(state) - 1)
    need = max(0, rival - mine + 1 + rng.randint(0, 2))
    if need > worth or need > top:
        return min(top, rng.randint(0, 1))
    return need


BOTS = {"random": random_bot, "greedy": greedy_bot}


# -- the table -----------------------------------------------------------------------------------

def table_bot(game, state, seat, rng):
    """Answers the table's prompts: confirm, and resolve the manual effects it knows."""
    p = state.prompts[None]
    m = p["moves"][0]
    if m == "confirm_manual":
        return "confirm_manual", _manual(game, state, p)
    if m == "settle_mismatch":
        return "settle_mismatch", {"keep": "chosen"}
    return m, dict(p.get("next_args") or {})


def _manual(game, state, p):
    d = state.data
    src = p.get("source")
    owner = p.get("owner")
    if p.get("dispute") is not None and src == "maple-dominion":
        seats = p["targets"]
        low = min(d.gdp[s] for s in seats)
        return {"power": {str(s): 1 for s in seats if d.gdp[s] == low}}
    if src == "crypto-isle":
        counts = {}
        for s, _ in d.board.routes["crypto-isle"].values():
            counts[s] = counts.get(s, 0) + 1
        if counts:
            top = max(counts.values())
            who = game.order(state, [s for s, k in counts.items() if k == top])[0]
            return {"gdp": {str(who): 1}}
        return {}
    if src == "sovereign-wealth-fund" and owner is not None:
        return {"gdp": {str(owner): len({p_ for p_, _, _ in game.routes_of(state, owner)})}}
    if src == "eu-exported-regulations" and owner is not None:
        mine = {p_ for p_, _, _ in game.routes_of(state, owner)}
        n = sum(1 for p_ in mine for s, _ in d.board.routes[p_].values() if s != owner)
        return {"gdp": {str(owner): n}} if n else {}
    if src == "currency-manipulation" and owner is not None and p.get("targets"):
        t = p["targets"][0]
        diff = d.gdp[t] - d.gdp[owner]
        if 0 < diff <= 5:
            return {"gdp": {str(owner): diff, str(t): -diff}}
    return {}


__all__ = ["BOTS", "table_bot"]
