"""What the screens see: the public view (the table's touchscreen, spectators) and each seat's
own view (its phone). The public view never holds a hand, a pile's order, a face-down Export
before the flip, a sealed Policy or bid before the reveal, or a swap offer's card.

Colour is never the only cue: every CMYK step carries its letter and name.
"""
from collections import Counter

from .cards import CMYK, UPKEEP_ORDER

CMYK_LEGEND = [{"letter": k, "name": CMYK[k].name, "resolves": CMYK[k].resolves,
                "ring": CMYK[k].ring, "fill": CMYK[k].fill} for k in UPKEEP_ORDER]


def _leader(ix, lid):
    if lid is None:
        return None
    lead = ix[lid]
    return {"id": lid, "name": lead.name, "hand_size": lead.hand_size, "draw": lead.draw,
            "export_slots": lead.export_slots, "ability": lead.ability, "text": lead.text,
            "prototype": lead.prototype}


def _card(ix, cid):
    return dict(ix.info[cid]) if cid in ix.info else {"id": cid, "name": ix.name_of(cid)}


def public_view(game, state):
    d = state.data
    ix = game.ix(state)
    n = state.n
    started = all(x is not None for x in d.board.leaders)
    names = state.players

    def who(x):
        return names[x] if isinstance(x, int) and 0 <= x < n else None

    def pname(p):
        return ix.name_of(p) if p else None
    partners = []
    for p in ix.partners:
        pt = ix[p]
        routes = {str(k): {"seat": s, "card": cid, "name": ix.name_of(cid)}
                  for k, (s, cid) in sorted(d.board.routes[p].items())}
        placed = [{"seat": x["seat"], "slot": x["slot"], "state": x["state"],
                   "card": x["card"], "name": ix.name_of(x["card"]) if x["card"] else None}
                  for x in d.trade.placements if x["partner"] == p]
        partners.append({"id": p, "name": pt.name, "bonus": pt.bonus, "base_slots": pt.slots,
                         "slots": game.slots_at(state, p) if started else pt.slots,
                         "text": pt.text, "routes": routes, "placed": placed})
    ask = None
    q = state.question()
    if q is not None:
        # the question a pending step asks (the prompt's own keys aside)
        ask = {k: v for k, v in q.items() if k not in ("moves", "next", "step")}
        ask["who"] = game.seat_name(state, q["seat"])
        if ask.get("source"):
            ask["source_name"] = ix.name_of(ask["source"])
        if ask["kind"] in ("partner", "target") and ask.get("options"):
            ask["option_names"] = [ix.name_of(o) if ask["kind"] == "partner" else who(o)
                                   for o in ask["options"]]
    event = None
    if d.board.event is not None:
        ev = ix[d.board.event]
        event = {"id": ev.id, "name": ev.name, "text": ev.text,
                 "cmyk": {"letter": ev.cmyk, "name": CMYK[ev.cmyk].name}}
    income = []
    for s in range(n):
        inc = d.income[s]
        eff = sum(e["amount"] for e in inc["effects"])
        income.append({"routes": inc["routes"], "route_total": inc["route_total"],
                       "effects": inc["effects"], "total": inc["route_total"] + eff})
    reminders = []
    for t in d.board.in_play:
        for e in ix.reminders.get(t["card"], ()):
            reminders.append({"source": t["card"], "owner": t["owner"], "text": e.text})
    for s, pid in enumerate(d.board.policy):
        for e in ix.reminders.get(pid, ()):
            reminders.append({"source": pid, "owner": s, "text": e.text})
    offers = []
    for o in d.trade.offers:
        if o["kind"] == "influence":
            offers.append(dict(o))
        else:
            offers.append({"id": o["id"], "kind": "swap", "from": o["from"], "to": o["to"]})
    contests = []
    for c in d.disputes.contests:
        item = {"id": c["id"], "round": c.get("round", state.round),
                "partner": c["partner"], "partner_name": ix.name_of(c["partner"]),
                "slot": c["slot"], "seats": list(c["seats"]), "cards": dict(c["cards"]),
                "card_names": {k: ix.name_of(v) for k, v in c["cards"].items()},
                "players": [names[x] for x in c["seats"]],
                "label": game.contest_label(state, c),
                "state": c["state"], "chooser": c["chooser"],
                "window": f"bid-r{c.get('round', state.round)}-{c['id']}"}
        if c["state"] in ("revealed", "done"):
            item.update(bids=c["bids"], power=c["power"], parts=c["parts"])
        if c["state"] == "done":
            item.update(winner=c["winner"], tiebreak=c.get("tiebreak"))
        contests.append(item)
    reveal = {}
    for s, c in d.pol.revealed.items():
        cid = c.get("card")
        reveal[str(s)] = {"seat": s, "player": names[s], "card": cid,
                          "name": ix.name_of(cid) if cid else None,
                          "text": ix[cid].text if cid else None,
                          "cost": ix[cid].cost if cid else None,
                          "fast_pass": bool(c.get("fast_pass")),
                          "target": c.get("target"), "target_name": who(c.get("target")),
                          "partner": c.get("partner"), "partner_name": pname(c.get("partner")),
                          "checked": s in d.pol.confirmed,   # its scan matched (or settled)
                          "kept": d.pol.kept.get(s)}         # settled: scanned or chosen
    contested = {(c["partner"], c["slot"]) for c in d.disputes.contests}
    flip = [{"seat": x["seat"], "player": names[x["seat"]], "card": x["card"],
             "name": ix.name_of(x["card"]) if x["card"] else None,
             "partner": x["partner"], "partner_name": ix.name_of(x["partner"]),
             "slot": x["slot"], "state": x["state"],
             "contested": (x["partner"], x["slot"]) in contested,
             "checked": bool(x.get("checked")),                  # its scan matched
             "kept": x.get("kept")}                              # settled: scanned or chosen
            for x in d.trade.placements if x["state"] != "down"]
    standing = sorted(range(n), key=lambda s: (-d.gdp[s], s))
    play = game.rules.edition(d.edition)
    view = {
        "edition": d.edition, "edition_title": ix.edition.title,
        "variants": [v for v in ("chill", "quick_start", "diplomatic") if state.config[v]],
        "round": state.round, "rounds": d.rounds,
        "round_text": f"Round {state.round} of {d.rounds}" if state.round else "Setting up",
        "phase": state.phase, "win_gdp": d.win,
        "win_rule": "first to reach it" if d.boom_first else
                    "highest at or above it; a tie plays on",
        "tiebreak": list(play.tiebreak),
        "leaders": [_leader(ix, lid) for lid in d.board.leaders],
        "pick_order": d.pick.order, "first_player": d.first,
        "leader_pick": _leader_pick(ix, state) if started else None,
        "partner_names": {p: ix.name_of(p) for p in ix.partners},
        "gdp": list(d.gdp), "standing": standing,
        "gdp_curve": [list(r) for r in d.gdp_curve],
        "disputes_per_round": list(d.disputes_per_round),
        "hand_counts": [len(h) for h in d.hands], "pile_counts": [len(p) for p in d.piles],
        "decks": {k: len(v) for k, v in d.decks.items()},
        "discards": {k: len(v) for k, v in d.discards.items()},
        "event": event,
        "partners": partners,
        "influence": [dict(i) for i in d.influence] if ix.rules.influence_accumulates else None,
        "partners_influenced": [game.partners_influenced(state, s) for s in range(n)],
        "policies": [None if pid is None else {
            **_card(ix, pid), "choices": d.board.policy_ch[s],
            "target_name": who(d.board.policy_ch[s].get("target")),
            "partner_name": pname(d.board.policy_ch[s].get("partner"))}
            for s, pid in enumerate(d.board.policy)],
        "policy_reveal": reveal,
        "flip": flip,
        "fast_pass": list(d.fast_pass) if ix.rules.fast_pass and state.config["fast_pass"]
        else None,
        "locked": list(d.locked),
        "in_play": [{"card": t["card"], "name": ix.name_of(t["card"]), "owner": t["owner"],
                     "owner_name": who(t["owner"]), **t["ch"],
                     "target_name": who(t["ch"].get("target")),
                     "partner_name": pname(t["ch"].get("partner"))} for t in d.board.in_play],
        "reminders": reminders,
        "silenced": [{"seat": x, "source": src, "name": ix.name_of(src)}
                     for x, src in ((x, game.silenced(state, x)) for x in range(n))
                     if src is not None] if started else [],
        "trade": {"timed": not state.config["chill"], "over": d.trade.over,
                  "seconds": game.trade_seconds(state) if started else
                  game.rules.trade_seconds,
                  "timer_started": d.trade.timer_started, "done": list(d.trade.done),
                  "turn": d.trade.turn if state.config["chill"] and state.phase == "trade" else None,
                  "passes": d.trade.passes, "aims": {str(s): a for s, a in d.trade.aims.items()}},
        "check": {"policies": d.pol.check, "exports": d.disputes.check,
                  "mismatch": dict(d.mismatch) if d.mismatch else None},
        "upkeep": {"steps": d.upkeep,
                   "current": next((st["letter"] for st in d.upkeep
                                    if st["state"] == "current"), None)},
        "cmyk": CMYK_LEGEND,
        "disputes": {"order": list(d.disputes.order) if state.phase != "exports" else
                     game.order(state, range(n)),
                     "order_gdp": list(d.disputes.order_gdp) if state.phase != "exports" else
                     [d.gdp[s] for s in game.order(state, range(n))],
                     "chooser": d.disputes.chooser,
                     "current": d.disputes.current, "contests": contests,
                     "bidding": _bidding(game, state)},
        "income": income,
        "ask": ask,
        "offers": offers, "loans": list(d.loans),
        "activated": list(d.activated),
    }
    what = _waiting_for(game, state)
    if what:
        view["waiting_for"] = what                 # what the seats in ``waiting`` are asked
    return view


def _waiting_for(game, state):
    """What the table waits for, in words, so "Waiting for Ann and Bo" can say for what: a
    question a card's effect asks its player (a target, a partner, the Policy order...), a
    blind bid on the dispute being settled, or the choice of the next dispute."""
    d = state.data
    q = state.question()
    if q is not None and q.get("seat") is not None:
        return _asked_for(game, state, q)
    if state.phase != "disputes" or q is not None:
        return None
    dr = d.disputes
    if dr.chooser is not None:
        return "to choose which of their disputes is settled next"
    if _bidding(game, state) is not None:
        c = next((c for c in dr.contests if c["id"] == dr.current), None)
        if c is not None:
            return f"a blind bid of GDP on the dispute at {game.contest_label(state, c)}"
    return None


_ASKED = {"target": "to choose a target", "partner": "to choose a Trade Partner",
          "optional": "to choose whether to use an optional effect",
          "draw": "to choose which piles to draw from", "discard": "to choose cards to discard",
          "routes": "to choose routes", "order": "to choose the order of the Policies",
          "step": "to confirm a step"}


def _asked_for(game, state, q):
    """What a paused step asks its player, in words: "to choose a target for Embargo"."""
    what = _ASKED.get(q.get("kind"))
    if what is None:
        return None
    src = q.get("source")
    return what + (f" for {game.ix(state).name_of(src)}" if src else "")


def _leader_pick(ix, state):
    """Who got which Leader and how: ``how`` is ``pick`` (the sealed wishes; ``wish`` is 1 for
    a first wish, 2 for the next..., null when every wish was taken and a lot gave one),
    ``random`` (dealt) or ``fixed`` (the ``leaders`` option)."""
    d = state.data
    cfg = state.config
    how = "fixed" if cfg["leaders"] else cfg["leader_pick"]
    how = "pick" if how == "sealed" else how
    got = d.pick.result or [None] * state.n
    seats = []
    for s, lid in enumerate(d.board.leaders):
        r = got[s] or {}
        wishes = r.get("wishes") or []
        seats.append({"seat": s, "player": state.players[s], "leader": lid,
                      "name": ix.name_of(lid), "wish": r.get("wish"),
                      "by_lot": how == "pick" and r.get("wish") is None,
                      "wishes": [{"id": w, "name": ix.name_of(w)} for w in wishes]})
    return {"how": how, "order": d.pick.order, "seats": seats}


def _bidding(game, state):
    """The open blind bid: who bids, who has locked in (their bids stay sealed)."""
    d = state.data
    if state.phase != "disputes" or d.disputes.current is None:
        return None
    w = state.windows.get(game._bid_wid(state))
    if w is None or w.is_revealed():
        return None
    return {"window": w.id, "contest": d.disputes.current, "seats": list(w.seats),
            "locked": sorted(w.entries)}


def seat_view(game, state, seat):
    d = state.data
    ix = game.ix(state)
    hand = []
    started = all(x is not None for x in d.board.leaders)
    for cid in d.hands[seat]:
        c = _card(ix, cid)
        if started:
            c["cost_now"] = game.cost_of(state, seat, cid)
        hand.append(c)
    facedown = []
    for p in d.trade.placements:
        if p["seat"] == seat and p["state"] == "down":
            w = state.windows.get(p["window"])
            e = w.entries.get(seat) if w is not None else None
            cid = e.choice["card"] if e is not None and e.choice else None
            facedown.append({"partner": p["partner"], "slot": p["slot"], "card": cid,
                             "name": ix.name_of(cid) if cid else None})
    swaps = [dict(o) for o in d.trade.offers if o["kind"] == "swap" and seat in (o["from"],
                                                                          o["to"])]
    return {"seat": seat, "leader": _leader(ix, d.board.leaders[seat]), "gdp": d.gdp[seat],
            "hand": hand, "pile": len(d.piles[seat]), "facedown": facedown,
            "budget": game.budget(state, seat) if state.phase == "trade" else d.gdp[seat],
            "slots_left": game.slots_left(state, seat) if started else None,
            "swaps": swaps, "aim": d.trade.aims.get(seat)}


#: A face-down Export's name in the open: the table sees that there is a card, not which.
FACE_DOWN = "face-down Export"


def _revealed_policy(state, seat):
    """The Policy ``seat`` revealed this Policy phase and has not played yet (face up on the
    table, still counted in its hand until it resolves), or None."""
    d = state.data
    if state.phase != "policy":
        return None
    cid = (d.pol.revealed.get(seat) or {}).get("card")
    if cid and cid in d.hands[seat] and d.board.policy[seat] != cid:
        return cid
    return None


def holdings(game, state, seat):
    """What ``seat`` holds in the open, by name: its Leader, its slotted Policy (and one
    revealed, until it resolves), the Exports of its routes, its Tactics in play, its Exports
    on the Trade Partners' slots (face down: only that there is one; flipped: by name, until
    the route stands or the card goes back), its Fast-Pass token (Tariff Warz), the
    first-player marker, and (Trade Warz) its influence with each Trade Partner, one
    "influence with <partner>" a point."""
    d = state.data
    ix = game.ix(state)
    name = ix.name_of
    b = d.board
    out = Counter()
    if b.leaders[seat] is not None:
        out[name(b.leaders[seat])] += 1
    if b.policy[seat] is not None:
        out[name(b.policy[seat])] += 1
    shown = _revealed_policy(state, seat)
    if shown is not None:
        out[name(shown)] += 1
    for slots in b.routes.values():
        for s, cid in slots.values():
            if s == seat:
                out[name(cid)] += 1
    for t in b.in_play:
        if t["owner"] == seat:
            out[name(t["card"])] += 1
    for p in d.trade.placements:
        if p["seat"] == seat:
            if p["state"] == "down":
                out[FACE_DOWN] += 1
            elif p["state"] in ("up", "won") and p["card"]:
                out[name(p["card"])] += 1
    if d.fast_pass[seat] and ix.rules.fast_pass and state.config["fast_pass"]:
        out["Fast-Pass token"] += 1
    if d.first == seat and all(x is not None for x in b.leaders):
        out["first-player marker"] += 1
    if ix.rules.influence_accumulates:
        for p, k in d.influence[seat].items():
            if k > 0:
                out[f"influence with {name(p)}"] += k
    return out


def hidden_holdings(game, state, seat):
    """What only ``seat`` sees it holds, by name: its hand (but a Policy revealed and not yet
    played) and the cards of its face-down Exports (the seat's own view shows them until the
    flip)."""
    d = state.data
    ix = game.ix(state)
    out = Counter(ix.name_of(c) for c in d.hands[seat])
    shown = _revealed_policy(state, seat)
    if shown is not None:
        out -= Counter((ix.name_of(shown),))
    for p in d.trade.placements:
        if p["seat"] == seat and p["state"] == "down":
            w = state.windows.get(p["window"])
            e = w.entries.get(seat) if w is not None else None
            if e is not None and e.choice:
                out[ix.name_of(e.choice["card"])] += 1
    return out


def text_table(game, state):
    d = state.data
    ix = game.ix(state)
    lines = [f"{ix.edition.title}: round {state.round} of {d.rounds}"]
    head = f"{'player':16}{'Leader':16}{'GDP':>5}{'routes':>8}{'partners':>10}"
    lines.append(head)
    for s in range(state.n):
        lid = d.board.leaders[s]
        lines.append(f"{state.players[s]:16}{ix.name_of(lid) if lid else '-':16}"
                     f"{d.gdp[s]:>5}{len(game.routes_of(state, s)):>8}"
                     f"{game.partners_influenced(state, s):>10}")
    if d.gdp_curve:
        lines.append("GDP by round: " + "; ".join(
            f"R{i + 1} " + "/".join(map(str, row)) for i, row in enumerate(d.gdp_curve)))
    return "\n".join(lines)
