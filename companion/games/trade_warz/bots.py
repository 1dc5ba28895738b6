"""Trade Warz bots. A bot is ``bot(game, view, rng) -> (move, args)`` for the prompt
``view.prompt``; it reads only public information and its own seat's (its hand, its
face-down Exports). ``table_bot`` answers the table's prompts (confirmations, manual effects)
the way a careful table would, so simulations resolve the manual effects it knows.

* ``random``: any legal answer, chosen at random (it also makes influence offers, card swaps
  and loans now and then, so every move is exercised).
* ``greedy``: a heuristic player: it values routes by their income over the rounds left, avoids
  contested slots unless it is likely to win them, bids what a route is worth, plays Tactics
  and Policies whose effects pay for themselves.

Both pick Leaders at random, so win rates per Leader compare the Leaders, not the bots' taste.
"""

from companion.core.views import Observation

from .greedy import (  # noqa: F401  (re-exported; its home is .greedy)
    greedy_bot, _affordable_costs, _answer_common, _can_keep, _choice_args, _offers_to)


class TWObservation(Observation):
    """What a Trade Warz seat sees, as its bot reads it: GDP, influence, routes, Leaders,
    slotted Policies, the placements (where, not which card), the contests and the Fast-Pass
    tokens are public; the hand and the offers made to the seat are its own; the rest are the
    rules applied to those (what a card costs the seat, its budget, open slots...). The table
    (seat None) sees the public part; for the search bot, the whole state with what the seat
    cannot see blanked (:meth:`known`)."""
    __slots__ = ("_known",)

    def __init__(self, game, state, seat):
        super().__init__(game, state, seat)
        self._known = None

    def known(self):
        """The state as far as this seat knows it: a lean copy with the others' hands, the
        decks, piles and discards, the others' face-down Exports and sealed choices blanked
        and a fixed random stream (:func:`.redeal.blank`). Built once per observation; a
        search copies it, never changes it."""
        if self._known is None:
            from .redeal import blank
            self._known = blank(self.game, self._state, self.seat)
        return self._known

    # -- public ----------------------------------------------------------------------------------
    def ix(self):
        """The edition's cards (public: the box)."""
        return self.game.ix(self._state)

    @property
    def rounds(self):
        return self._state.data.rounds

    @property
    def gdp(self):
        return self._state.data.gdp

    @property
    def influence(self):
        return self._state.data.influence

    @property
    def fast_pass(self):
        return self._state.data.fast_pass

    @property
    def routes(self):
        return self._state.data.board.routes

    @property
    def policy(self):
        return self._state.data.board.policy

    @property
    def leaders(self):
        return self._state.data.board.leaders

    @property
    def placements(self):
        """Every face-down or flipped Export: who, where, its state (``card`` is None until
        the flip)."""
        return self._state.data.trade.placements

    @property
    def contests(self):
        return self._state.data.disputes.contests

    def routes_of(self, seat=None):
        return self.game.routes_of(self._state, self.seat if seat is None else seat)

    def order(self, seats):
        return self.game.order(self._state, seats)

    def cond(self, condition, owner):
        return self.game.cond(self._state, condition, owner)

    def route_value(self, seat, cid, partner):
        return self.game.route_value(self._state, seat, cid, partner)

    def dispute_bonus(self, seat, cid, partner):
        return self.game.dispute_bonus(self._state, seat, cid, partner)

    # -- the seat's own -------------------------------------------------------------------------
    @property
    def hand(self):
        return self._state.data.hands[self.seat]

    @property
    def offers(self):
        """The open offers made to this seat or by it (others' swaps are theirs)."""
        me = self.seat
        return [o for o in self._state.data.trade.offers
                if o["kind"] == "influence" or me in (o["from"], o["to"])]

    def slots_left(self):
        return self.game.slots_left(self._state, self.seat)

    def budget(self):
        return self.game.budget(self._state, self.seat)

    def export_rows(self, cards):
        """``{card: {partner: (cost, route income)}}`` of these Exports for the seat now (read
        only)."""
        game, state, seat = self.game, self._state, self.seat
        got = game.standing(state, seat)
        return {c: game.export_row(state, seat, c, got) for c in cards}

    def open_slots_all(self):
        return self.game.open_slots_all(self._state, self.seat)

    def silenced(self):
        return self.game.silenced(self._state, self.seat)

    def cost_of(self, cid):
        return self.game.cost_of(self._state, self.seat, cid)

    def costs_of(self, cids):
        """``{cid: cost}`` of several cards for the seat now."""
        return self.game.costs_of(self._state, self.seat, cids)

    def legal_targets(self, mode):
        return self.game.legal_targets(self._state, self.seat, mode)


# -- shared helpers -------------------------------------------------------------------------------


def _placements(game, view):
    """Every legal (card, partner, slot, cost) for ``seat`` now."""
    ix = view.ix()
    if view.slots_left() <= 0:
        return []
    exports = sorted({c for c in view.hand if c in ix.exports})
    if not exports:
        return []
    budget = view.budget()
    rows = view.export_rows(exports)
    out = []
    for p, slots in view.open_slots_all().items():
        if not slots:
            continue
        for c in exports:
            cost = rows[c][p][0]
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


def _affordable(game, view, kind):
    return [c for c, _ in _affordable_costs(game, view, kind)]


# -- draw -----------------------------------------------------------------------------------------


# -- card values (greedy) -------------------------------------------------------------------------


# -- bots -----------------------------------------------------------------------------------------

def random_bot(game, view, rng):
    seat = view.seat
    p = view.prompt
    got = _answer_common(game, view, p, rng, greedy=False)
    if got is not None:
        return got
    moves = p["moves"]
    m = moves[0]
    if m == "draw_cards":
        return "draw_cards", _random_split(p["piles"], p["count"], rng)
    if m == "choose_policy":
        args = {"card": None}
        options = _affordable(game, view, "policy")
        if options and rng.random() < 0.8:
            cid = rng.choice(options)
            args = {"card": cid, **_choice_args(game, view, cid, rng)}
        if view.fast_pass[seat] and view.ix().rules.fast_pass and \
                view.options["fast_pass"] and rng.random() < 0.15:
            args["fast_pass"] = True
        return "choose_policy", args
    if m == "bid":
        top = p["max"]
        return "bid", {"amount": rng.choice([0, 0, 1, min(2, top), rng.randint(0, top)])
                       if top else 0}
    if m == "place_export":
        return _random_trade(game, view, p, rng)
    raise RuntimeError(f"random bot cannot answer {moves}")


def _random_trade(game, view, p, rng):
    seat = view.seat
    moves = p["moves"]
    finish = "pass_turn" if "pass_turn" in moves else "done_trade"
    for o in _offers_to(view, "influence"):
        return "answer_offer", {"offer": o["id"], "accept": _can_keep(view, o) and
                                rng.random() < 0.5}
    for o in _offers_to(view, "swap"):
        if view.hand and rng.random() < 0.6:
            return "answer_swap", {"offer": o["id"], "give": rng.choice(view.hand)}
        return "answer_swap", {"offer": o["id"], "give": None}
    r = rng.random()
    if r < 0.12:
        options = _affordable(game, view, "tactic")
        if options:
            cid = rng.choice(options)
            return "play_tactic", {"card": cid, **_choice_args(game, view, cid, rng)}
    elif r < 0.17 and "activate_ability" in moves:
        lid = view.leaders[seat]
        ix = view.ix()
        ok = True
        for i in ix.steps_of(lid, "activated"):
            e = ix[lid].effects[i]
            if e.kind == "discard" and e.target == "self" and not view.hand:
                ok = False
        if ok:
            return "activate_ability", _choice_args(game, view, lid, rng)
    elif r < 0.19 and "use_fast_pass" in moves:
        return "use_fast_pass", {}
    elif r < 0.22 and "offer_influence" in moves:
        mine = [(pt, k) for pt, k in view.influence[seat].items() if k > 0]
        if mine:
            pt, k = rng.choice(mine)
            to = rng.choice([s for s in range(view.n) if s != seat])
            return "offer_influence", {"to": to, "partner": pt, "amount": rng.randint(1, k),
                                       "price": rng.randint(0, 4), "side": "sell"}
    elif r < 0.25 and "offer_swap" in moves and view.hand and \
            not any(o["from"] == seat for o in view.offers):
        to = rng.choice([s for s in range(view.n) if s != seat])
        return "offer_swap", {"to": to, "give": rng.choice(view.hand)}
    elif r < 0.27 and "note_loan" in moves and view.gdp[seat] > 0:
        to = rng.choice([s for s in range(view.n) if s != seat])
        return "note_loan", {"to": to, "amount": rng.randint(1, min(3, view.gdp[seat])),
                             "terms": "pay back next round"}
    if rng.random() < 0.75:
        options = _placements(game, view)
        if options:
            c, pt, k, _ = rng.choice(options)
            return "place_export", {"card": c, "partner": pt, "slot": k}
    return finish, {}


def search_bot(iterations, horizon=0, model=greedy_bot):
    """The information-set search bot (companion/core/search.py) with a thinking budget of
    ``iterations`` re-deals per decision (:mod:`.redeal`); the other seats and the rollouts
    are played by ``model``. A rollout stops ``horizon`` rounds after the current one (None:
    at the end of the game; 0: at the end of this round) and is scored by its GDP lead.
    Against three greedy bots (Trade Warz, 4 players, seat rotated) search-100 won 12 of 24
    with horizon 0 and 10 of 17 with horizon 1, at half the speed (docs/lab.md)."""
    from companion.core.search import Searcher

    from . import redeal
    return Searcher(iterations, redeal.redeal, redeal.candidates, redeal.evaluate, model,
                    horizon=horizon)


BOTS = {"random": random_bot, "greedy": greedy_bot,
        "search-100": search_bot(100), "search-400": search_bot(400)}


# -- the table -----------------------------------------------------------------------------------

def table_bot(game, view, rng):
    """Answers the table's prompts: confirm, and resolve the manual effects it knows."""
    p = view.prompt
    m = p["moves"][0]
    if m == "confirm_manual":
        return "confirm_manual", _manual(game, view, p)
    if m == "settle_mismatch":
        return "settle_mismatch", {"keep": "chosen"}
    return m, dict(p.get("next_args") or {})


def _manual(game, view, p):
    src = p.get("source")
    owner = p.get("owner")
    if p.get("dispute") is not None and src == "maple-dominion":
        seats = p["targets"]
        low = min(view.gdp[s] for s in seats)
        return {"power": {str(s): 1 for s in seats if view.gdp[s] == low}}
    if src == "crypto-isle":
        counts = {}
        for s, _ in view.routes["crypto-isle"].values():
            counts[s] = counts.get(s, 0) + 1
        if counts:
            top = max(counts.values())
            who = view.order([s for s, k in counts.items() if k == top])[0]
            return {"gdp": {str(who): 1}}
        return {}
    if src == "sovereign-wealth-fund" and owner is not None:
        return {"gdp": {str(owner): len({p_ for p_, _, _ in view.routes_of(owner)})}}
    if src == "eu-exported-regulations" and owner is not None:
        mine = {p_ for p_, _, _ in view.routes_of(owner)}
        n = sum(1 for p_ in mine for s, _ in view.routes[p_].values() if s != owner)
        return {"gdp": {str(owner): n}} if n else {}
    if src == "currency-manipulation" and owner is not None and p.get("targets"):
        t = p["targets"][0]
        diff = view.gdp[t] - view.gdp[owner]
        if 0 < diff <= 5:
            return {"gdp": {str(owner): diff, str(t): -diff}}
    return {}


__all__ = ["BOTS", "TWObservation", "table_bot"]
