"""Continuous modifiers and the standing of the players (docs/trade-warz-cards.md).

Modifiers act while their card is in play and are read where they matter: a card's cost
(``cost_change``), a route's income (``route_income``), a dispute (``dispute_power``), a Trade
Partner's slots (``slots``), shields (``protect``). :meth:`Modifiers.mods` gathers them from
every source on the :class:`~.data.Board`; the list is derived data: the core recomputes it after
the board changes (``state.derived``).
"""

from .rules import MODIFIER_KINDS

NOWHERE = "\0nowhere"            # a chosen Trade Partner that was never chosen
_COST_KEY = {"export": "cost:export", "policy": "cost:policy", "tactic": "cost:tactic"}
# id(Index) -> (Index, {kind: the Trade Partners' modifiers}): they are printed on the partners,
# in play all game, and read only (their ``{"this": partner}`` is the same for every game)
_PARTNER_MODS = {}


class Modifiers:
    """Mixed into the Game."""

    def ix(self, state):
        """The edition's card :class:`~.rules.Index` (built once per process and data; read
        on nearly every rule, so kept by edition here)."""
        try:
            return self._ix[state.config["edition"]]
        except KeyError:
            edition = state.config["edition"]
            got = self._ix[edition] = self.index(edition)
            return got

    # -- order and standing ----------------------------------------------------------------------
    def order(self, state, seats):
        """Poorest first; equal GDP clockwise from the first player."""
        d = state.data
        g, f, n = d.gdp, d.first, state.n
        return sorted(seats, key=lambda s: (g[s], (s - f) % n))

    def richest(self, state):
        g = state.data.gdp
        top = max(g)
        return [s for s in range(state.n) if g[s] == top]

    def poorest(self, state):
        g = state.data.gdp
        low = min(g)
        return [s for s in range(state.n) if g[s] == low]

    def cond(self, state, condition, owner):
        g = state.data.gdp
        if condition == "poorest":
            return g[owner] == min(g)
        if condition == "richest":
            return g[owner] == max(g)
        if condition == "not_richest":
            return g[owner] < max(g)
        return True

    # -- GDP ------------------------------------------------------------------------------------
    def gain(self, state, seat, n, source=None):
        if n <= 0 or state.outcome is not None:
            return
        d = state.data
        d.gdp[seat] += n
        if source is not None and state.phase == "income":
            d.income[seat]["effects"].append({"source": source, "amount": n})
        if d.boom_first and d.gdp[seat] >= d.win and state.outcome is None:
            self.win_now(state, [seat])

    def lose(self, state, seat, n, source=None):
        d = state.data
        taken = min(max(n, 0), d.gdp[seat])
        d.gdp[seat] -= taken
        if taken and source is not None and state.phase == "income":
            d.income[seat]["effects"].append({"source": source, "amount": -taken})
        return taken

    # -- modifiers ------------------------------------------------------------------------------
    def mods(self, state, kind):
        """``[(effect, owner, rec, source_id, partner), ...]``: every ``kind`` modifier in play.
        ``partner`` is the Trade Partner the effect is limited to (None: any; ``NOWHERE`` when
        it names a chosen partner that was never chosen). ``kind`` may be ``cost:<card kind>``
        for the cost changes of one kind of card. Derived from the board (``state.derived``)."""
        return state.derived("tw.mods", lambda: self._collect(state), state.data.board)[kind]

    def mods_table(self, state):
        """``{kind: [modifier, ...]}`` of :meth:`mods`, every kind at once (one pass over the
        board, derived from it)."""
        return state.derived("tw.mods", lambda: self._collect(state), state.data.board)

    def _collect(self, state):
        ix = self.ix(state)
        mods_of = ix.mods_of
        b = state.data.board
        out = {k: [] for k in MODIFIER_KINDS}
        partner_of = self.partner_of

        def add(srcs):
            for src, owner, rec in srcs:
                for e in mods_of[src]:
                    p = e.partner
                    if p is not None:
                        p = partner_of(e, rec) or NOWHERE
                    out[e.kind].append((e, owner, rec, src, p))
        # the sources in play, in the board's order: (card, owner, its choices)
        srcs = [(lid, s, None) for s, lid in enumerate(b.leaders) if lid in mods_of]
        srcs += [(pid, s, b.policy_ch[s]) for s, pid in enumerate(b.policy) if pid in mods_of]
        add(srcs)
        # the Trade Partners' own modifiers never change: worked out once per edition
        fixed = _PARTNER_MODS.get(id(ix))
        if fixed is None or fixed[0] is not ix:
            out_ = out
            out = {k: [] for k in MODIFIER_KINDS}
            add([(p, None, {"this": p}) for p in ix.partners if p in mods_of])
            fixed = _PARTNER_MODS[id(ix)] = (ix, {k: tuple(v) for k, v in out.items() if v})
            out = out_
        for k, v in fixed[1].items():
            out[k] += v
        srcs = []
        for p, slots in b.routes.items():
            for s, cid in slots.values():
                if cid in mods_of:
                    srcs.append((cid, s, {"route": p}))
        for t in b.in_play:
            if t["card"] in mods_of:
                srcs.append((t["card"], t["owner"], t["ch"]))
        if b.event in mods_of:
            srcs.append((b.event, None, None))
        add(srcs)
        cost = out["cost_change"]
        for kind, key in _COST_KEY.items():
            out[key] = [m for m in cost if m[0].card_kind == kind]
        return out

    def shielded(self, state, seat):
        """No opponent's card may target this seat (a Fast-Pass lock, or ``protect board``)."""
        if state.data.locked[seat]:
            return True
        for e, owner, rec, _, _ in self.mods(state, "protect"):
            if e.what == "board" and self.applies(state, e, owner, rec, seat, shield=False):
                return True
        return False

    def applies(self, state, e, owner, rec, seat, shield=True):
        """Does a modifier owned by ``owner`` (None: an Event or a Partner) reach ``seat``?"""
        t = e.target
        if t == "all":
            return owner is None or e.condition is None or self.cond(state, e.condition, owner)
        if owner is None:
            if t == "richest":
                return seat in self.richest(state)
            if t == "poorest":
                return seat in self.poorest(state)
            return False
        if e.condition is not None and not self.cond(state, e.condition, owner):
            return False
        if t == "self":
            return seat == owner
        if t == "each_opponent":
            ok = seat != owner
        elif t in ("opponent", "any"):
            ok = rec is not None and rec.get("target") == seat
        elif t == "richest":
            ok = seat in self.richest(state)
        elif t == "poorest":
            ok = seat in self.poorest(state)
        else:
            ok = False
        if ok and shield and seat != owner and self.shielded(state, seat):
            return False
        return ok

    @staticmethod
    def partner_of(e, rec):
        p = e.partner
        if p is None:
            return None
        if p == "this":
            return rec.get("this") if rec else None
        if p == "chosen":
            return rec.get("partner") if rec else None
        return p

    def legal_targets(self, state, owner, mode):
        out = []
        for s in range(state.n):
            if s == owner:
                if mode == "any":
                    out.append(s)
            elif not self.shielded(state, s):
                out.append(s)
        return out

    def cost_of(self, state, seat, cid, partner=None):
        """What ``cid`` costs ``seat`` now (at ``partner``, for an Export being placed)."""
        card = self.ix(state).items[cid]
        c = card.cost
        for e, owner, rec, _, p in self.mods(state, _COST_KEY[card.kind]):
            if (e.tag is not None and e.tag not in card.tags) or (p is not None and
                                                                  p != partner):
                continue
            if (owner == seat and e.target == "self" and e.condition is None) or \
                    self.applies(state, e, owner, rec, seat):
                c += e.amount
        return c if c > 0 else 0

    def costs_of(self, state, seat, cids):
        """``{cid: cost}``: :meth:`cost_of` for several cards at once (no partner)."""
        items = self.ix(state).items
        picked = {}
        out = {}
        for cid in cids:
            card = items[cid]
            kind = card.kind
            got = picked.get(kind)
            if got is None:
                got = picked[kind] = [
                    (e.tag, e.amount) for e, owner, rec, _, p in self.mods(state, _COST_KEY[kind])
                    if p is None and ((owner == seat and e.target == "self" and
                                       e.condition is None) or
                                      self.applies(state, e, owner, rec, seat))]
            c = card.cost
            for tag, amount in got:
                if tag is None or tag in card.tags:
                    c += amount
            out[cid] = c if c > 0 else 0
        return out

    def route_value(self, state, seat, cid, partner, explain=False):
        """A route's income now: Export value + partner bonus + route modifiers (never < 0)."""
        ix = self.ix(state)
        card = ix.items[cid]
        total = card.value + ix.items[partner].bonus
        mods = [] if explain else None
        for e, owner, rec, src, p in self.mods(state, "route_income"):
            if (e.tag is not None and e.tag not in card.tags) or (p is not None and
                                                                  p != partner):
                continue
            if (owner == seat and e.target == "self" and e.condition is None) or \
                    self.applies(state, e, owner, rec, seat):
                total += e.amount
                if explain:
                    mods.append({"source": ix.name_of(src), "amount": e.amount})
        total = total if total > 0 else 0
        if explain:
            return total, {"value": card.value, "bonus": ix.items[partner].bonus, "mods": mods}
        return total

    def dispute_bonus(self, state, seat, cid, partner):
        card = self.ix(state).items[cid]
        total = 0
        for e, owner, rec, _, p in self.mods(state, "dispute_power"):
            if (e.tag is not None and e.tag not in card.tags) or (p is not None and
                                                                  p != partner):
                continue
            if self.applies(state, e, owner, rec, seat):
                total += e.amount
        return total

    def slots_at(self, state, partner):
        return self.slots_table(state)[partner]

    def slots_table(self, state):
        """``{partner: slots this round}`` for every Trade Partner (a ``slots`` modifier reaches
        every seat alike, so this is derived from the board alone)."""
        return state.derived("tw.slots", lambda: self._slots_table(state), state.data.board)

    def _slots_table(self, state):
        ix = self.ix(state)
        slot_mods = self.mods(state, "slots")
        out = {}
        for partner in ix.partners:
            n = ix.items[partner].slots
            for e, owner, rec, _, p in slot_mods:
                if p is None or p == partner:
                    n += e.amount
            out[partner] = n if n > 0 else 0
        return out

    def protected(self, state, seat, what, partner=None):
        for e, owner, rec, _, p in self.mods(state, "protect"):
            if e.what != what or (p is not None and p != partner):
                continue
            if self.applies(state, e, owner, rec, seat, shield=False):
                return True
        return False

    def export_options(self, state, seat, cards, partners=None):
        """``{(card, partner): (cost, route income)}`` for these Exports at every Trade Partner
        (or at these ``partners``), as :meth:`cost_of` and :meth:`route_value` would give, in
        one pass."""
        ix = self.ix(state)
        items = ix.items
        if partners is None:
            pb = ix.partner_bonus
        else:
            pb = [(p, items[p].bonus) for p in partners]
        picked = []
        table = self.mods_table(state)
        for kind in ("cost:export", "route_income"):
            got = []
            for e, owner, rec, _, p in table[kind]:
                if (owner == seat and e.target == "self" and e.condition is None) or \
                        self.applies(state, e, owner, rec, seat):
                    got.append((e.tag, p, e.amount))
            picked.append(got)
        cost_mods, value_mods = picked
        out = {}
        for c in cards:
            card = items[c]
            tags = card.tags
            base_c, per_c = card.cost, {}
            for tag, p, amount in cost_mods:
                if tag is None or tag in tags:
                    if p is None:
                        base_c += amount
                    else:
                        per_c[p] = per_c.get(p, 0) + amount
            base_v, per_v = card.value, {}
            for tag, p, amount in value_mods:
                if tag is None or tag in tags:
                    if p is None:
                        base_v += amount
                    else:
                        per_v[p] = per_v.get(p, 0) + amount
            if per_c or per_v:
                for partner, bonus in pb:
                    cost = base_c + per_c.get(partner, 0)
                    value = base_v + bonus + per_v.get(partner, 0)
                    out[c, partner] = (cost if cost > 0 else 0, value if value > 0 else 0)
            else:
                cost = base_c if base_c > 0 else 0
                out.update({(c, partner): (cost, value if (value := base_v + bonus) > 0 else 0)
                            for partner, bonus in pb})
        return out

    # -- routes ---------------------------------------------------------------------------------
    def routes_of(self, state, seat):
        """``((partner, slot, card), ...)`` of ``seat``'s standing routes, in table order
        (derived from the board)."""
        return state.derived("tw.routes", lambda: self._route_index(state),
                             state.data.board)[seat]

    def _route_index(self, state):
        per = [[] for _ in range(state.n)]
        routes = state.data.board.routes
        for p in self.ix(state).partners:
            for slot, (s, cid) in sorted(routes[p].items()):
                per[s].append((p, slot, cid))
        return [tuple(x) for x in per]

    def route_count(self, state, seat):
        return len(self.routes_of(state, seat))

    def partners_influenced(self, state, s):
        d = state.data
        return sum(1 for p in self.ix(state).partners
                   if d.influence[s].get(p, 0) > 0 or
                   any(r[0] == s for r in d.board.routes[p].values()))
