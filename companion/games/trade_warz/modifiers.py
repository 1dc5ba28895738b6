"""Continuous modifiers and the standing of the players (docs/trade-warz-cards.md).

Modifiers act while their card is in play and are read where they matter: a card's cost
(``cost_change``), a route's income (``route_income``), a dispute (``dispute_power``), a Trade
Partner's slots (``slots``), shields (``protect``). :meth:`Modifiers.mods` gathers them from
every source on the :class:`~.data.Board`; the list is derived data: the core recomputes it after
the board changes (``state.derived``).
"""

import weakref

from companion.core.story import and_words

from .rules import MODIFIER_KINDS

NOWHERE = "\0nowhere"            # a chosen Trade Partner that was never chosen
_COST_KEY = {"export": "cost:export", "policy": "cost:policy", "tactic": "cost:tactic"}
# id(Index) -> (Index, {kind: the Trade Partners' modifiers}): they are printed on the partners,
# in play all game, and read only (their ``{"this": partner}`` is the same for every game)
_PARTNER_MODS = {}
# id(Index) -> (Index, does any modifier of the edition read GDP (:func:`_by_gdp`)?)
_GDP_MODS = {}


def _by_gdp(e):
    """Does whom the modifier ``e`` reaches depend on GDP (a condition, the richest or the
    poorest)?"""
    return e.condition is not None or e.target in ("richest", "poorest")


def _choices_read(rec):
    """What the modifiers read of a source's choices (:meth:`Modifiers.partner_of`,
    :meth:`Modifiers.applies`)."""
    return (rec.get("target"), rec.get("partner"), rec.get("this")) if rec else None


def _at_partners(reach, tags, base):
    """``base`` plus the modifiers of ``reach`` (:meth:`Modifiers.reach`) that fit a card with
    ``tags`` at every Trade Partner, and ``{partner: sum}`` of those that fit at one only."""
    per = {}
    for tag, p, amount, _ in reach:
        if tag is None or tag in tags:
            if p is None:
                base += amount
            else:
                per[p] = per.get(p, 0) + amount
    return base, per


class _Table(dict):
    """``{kind: [(effect, owner, rec, source, partner), ...]}``: the modifiers in play
    (:meth:`Modifiers.mods`), with what they were collected from (``sources``) and the
    :class:`_Standing` of the seats under them (``standing``; None until read)."""
    __slots__ = ("sources", "standing")


class _Standing:
    """The per-seat values of :meth:`Modifiers.standing` under one modifier table, and the
    locks and GDP they were worked out with (``gdp`` None: no modifier in play reads GDP)."""
    __slots__ = ("reads_gdp", "locked", "gdp", "seats")

    def __init__(self, ix, table):
        got = _GDP_MODS.get(id(ix))
        if got is None or got[0] is not ix:
            got = _GDP_MODS[id(ix)] = (ix, any(_by_gdp(e) for es in ix.mods_of.values()
                                               for e in es))
        self.reads_gdp = got[1] and any(_by_gdp(m[0]) for kind in MODIFIER_KINDS
                                        for m in table[kind])
        self.locked = self.gdp = self.seats = None

    def reset(self, d):
        self.locked = list(d.locked)
        self.gdp = list(d.gdp) if self.reads_gdp else None
        self.seats = [{} for _ in d.gdp]


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

    and_words = staticmethod(and_words)          # "a, b and c"

    def card_names(self, state, cards):
        """``Meme Coins, Bulk Coal and Scrap Metal``: cards by name, in the order given."""
        return self.and_words(self.ix(state).name_of(c) for c in cards)

    @staticmethod
    def cards_count(n):
        """``1 card``, ``3 cards``."""
        return f"{n} card{'s' if n != 1 else ''}"

    @staticmethod
    def gdp_words(state, seat, n, why=None, now=None):
        """``Ann +2 GDP (Premium Grass-Fed Beef): 14.`` (a story line); ``now``: the GDP after
        the change, when it is said before the change is made."""
        sign = "+" if n >= 0 else "\u2212"
        now = state.data.gdp[seat] if now is None else now
        return (f"{state.players[seat]} {sign}{abs(n)} GDP" + (f" ({why})" if why else "") +
                f": {now}.")

    def gain_influence(self, state, seat, partner, amount, source):
        """``seat`` gains ``amount`` influence with ``partner`` from the card ``source``, and
        the story says so: ``Ann +2 influence with Neutralia (Soft Power): 5.``"""
        d, name = state.data, self.ix(state).name_of
        d.influence[seat][partner] = d.influence[seat].get(partner, 0) + amount
        state.note("InfluenceGained", seat=seat, partner=partner, amount=amount, source=source,
                   says=f"{state.players[seat]} +{amount} influence with {name(partner)} "
                        f"({name(source)}): {d.influence[seat][partner]}.")

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
        d = state.data
        b = d.board
        # the sources in play, in the board's order: (card, owner, its choices); and ``key``,
        # what the modifiers read of them. The same sources give the same table: a change to
        # the board that brings no modifier (most routes) keeps the last table, and with it
        # what the seats' costs and route incomes were worked out to be (:meth:`standing`).
        srcs = [(lid, s, None) for s, lid in enumerate(b.leaders) if lid in mods_of]
        key = [tuple(b.leaders)]
        for s, pid in enumerate(b.policy):
            if pid in mods_of:
                ch = b.policy_ch[s]
                srcs.append((pid, s, ch))
                key.append((pid, s, id(ch), _choices_read(ch)))
        mid = len(srcs)                     # the Trade Partners' own modifiers come here
        for p, slots in b.routes.items():
            for s, cid in slots.values():
                if cid in mods_of:
                    srcs.append((cid, s, {"route": p}))
                    key.append((cid, s, p))
        for t in b.in_play:
            if t["card"] in mods_of:
                ch = t["ch"]
                srcs.append((t["card"], t["owner"], ch))
                key.append((t["card"], t["owner"], id(ch), _choices_read(ch)))
        if b.event in mods_of:
            srcs.append((b.event, None, None))
            key.append(b.event)
        last = self._last_mods.get(id(d))
        if last is not None and last[0]() is d and last[1].sources == key:
            return last[1]
        out = _Table((k, []) for k in MODIFIER_KINDS)
        out.sources = key
        out.standing = None
        partner_of = self.partner_of

        def add(srcs):
            for src, owner, rec in srcs:
                for e in mods_of[src]:
                    p = e.partner
                    if p is not None:
                        p = partner_of(e, rec) or NOWHERE
                    out[e.kind].append((e, owner, rec, src, p))
        add(srcs[:mid])
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
        add(srcs[mid:])
        cost = out["cost_change"]
        for kind, k in _COST_KEY.items():
            out[k] = [m for m in cost if m[0].card_kind == kind]
        if last is None or last[0]() is not d:
            weakref.finalize(d, self._last_mods.pop, id(d), None)
        self._last_mods[id(d)] = (weakref.ref(d), out)
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

    def standing(self, state, seat):
        """What the modifiers make of things for ``seat`` now, worked out when first read:
        ``{kind: reach}`` (:meth:`reach`), ``{(card, partner): cost}`` (:meth:`cost_of`),
        ``{("export", card): row}`` (:meth:`export_row`). Costs and route incomes are read many
        times between two changes of what they depend on (every bot decision reads most of
        them): the modifiers in play (the table of :meth:`mods`) and, through shields and
        conditions, the Fast-Pass locks and (only if a modifier in play has a condition or
        targets the richest or the poorest) GDP."""
        d = state.data
        table = state.derived("tw.mods", lambda: self._collect(state), d.board)
        st = table.standing
        if st is None:
            st = table.standing = _Standing(self.ix(state), table)
        if st.locked != d.locked or (st.gdp is not None and st.gdp != d.gdp):
            st.reset(d)
        return st.seats[seat]

    def reach(self, state, seat, kind, got=None):
        """``((tag, partner, amount, source), ...)``: the ``kind`` modifiers (:meth:`mods`) that
        reach ``seat`` now, in the board's order (``got``: the seat's :meth:`standing`, if the
        caller has it)."""
        if got is None:
            got = self.standing(state, seat)
        r = got.get(kind)
        if r is None:
            r = got[kind] = []
            for e, owner, rec, src, p in self.mods(state, kind):
                if (owner == seat and e.target == "self" and e.condition is None) or \
                        self.applies(state, e, owner, rec, seat):
                    r.append((e.tag, p, e.amount, src))
        return r

    def cost_of(self, state, seat, cid, partner=None, got=None):
        """What ``cid`` costs ``seat`` now (at ``partner``, for an Export being placed;
        ``got``: the seat's :meth:`standing`, if the caller has it)."""
        card = self.ix(state).items[cid]
        c = card.cost
        tags = card.tags
        for tag, p, amount, _ in self.reach(state, seat, _COST_KEY[card.kind], got):
            if (tag is None or tag in tags) and (p is None or p == partner):
                c += amount
        return c if c > 0 else 0

    def costs_of(self, state, seat, cids):
        """``{cid: cost}``: :meth:`cost_of` for several cards at once (no partner)."""
        got = self.standing(state, seat)
        cost_of = self.cost_of
        return {cid: cost_of(state, seat, cid, None, got) for cid in cids}

    def route_value(self, state, seat, cid, partner, explain=False):
        """A route's income now: Export value + partner bonus + route modifiers (never < 0)."""
        ix = self.ix(state)
        card = ix.items[cid]
        tags = card.tags
        total = card.value + ix.items[partner].bonus
        mods = [] if explain else None
        for tag, p, amount, src in self.reach(state, seat, "route_income"):
            if (tag is None or tag in tags) and (p is None or p == partner):
                total += amount
                if explain:
                    mods.append({"source": ix.name_of(src), "amount": amount})
        total = total if total > 0 else 0
        if explain:
            return total, {"value": card.value, "bonus": ix.items[partner].bonus, "mods": mods}
        return total

    def dispute_bonus(self, state, seat, cid, partner):
        tags = self.ix(state).items[cid].tags
        total = 0
        for tag, p, amount, _ in self.reach(state, seat, "dispute_power"):
            if (tag is None or tag in tags) and (p is None or p == partner):
                total += amount
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

    def export_options(self, state, seat, cards):
        """``{(card, partner): (cost, route income)}`` for these Exports at every Trade Partner,
        as :meth:`cost_of` and :meth:`route_value` would give."""
        got = self.standing(state, seat)
        out = {}
        for c in cards:
            out.update({(c, p): v for p, v in self.export_row(state, seat, c, got).items()})
        return out

    def export_row(self, state, seat, card, got=None):
        """``{partner: (cost, route income)}``: the Export ``card`` at every Trade Partner for
        ``seat`` now (:meth:`cost_of` and :meth:`route_value` in one pass; part of the seat's
        :meth:`standing`, read only)."""
        if got is None:
            got = self.standing(state, seat)
        key = ("export", card)
        row = got.get(key)
        if row is not None:
            return row
        ix = self.ix(state)
        item = ix.items[card]
        base_c, per_c = _at_partners(self.reach(state, seat, "cost:export", got), item.tags,
                                     item.cost)
        base_v, per_v = _at_partners(self.reach(state, seat, "route_income", got), item.tags,
                                     item.value)
        row = got[key] = {}
        for partner, bonus in ix.partner_bonus:
            cost = base_c + per_c.get(partner, 0)
            value = base_v + bonus + per_v.get(partner, 0)
            row[partner] = (cost if cost > 0 else 0, value if value > 0 else 0)
        return row

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
            here = routes[p]
            if here:                        # most partners hold no route or one
                for slot in sorted(here) if len(here) > 1 else here:
                    s, cid = here[slot]
                    per[s].append((p, slot, cid))
        return [tuple(x) for x in per]

    def route_count(self, state, seat):
        return len(self.routes_of(state, seat))

    def partners_influenced(self, state, s):
        d = state.data
        return sum(1 for p in self.ix(state).partners
                   if d.influence[s].get(p, 0) > 0 or
                   any(r[0] == s for r in d.board.routes[p].values()))
