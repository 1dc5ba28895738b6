"""The effect machinery of Trade Warz / Tariff Warz: continuous modifiers and resolution steps.

Two kinds of effect (docs/trade-warz-cards.md):

* **Modifiers** act while their card is in play and are read where they matter: a card's cost
  (``cost_change``), a route's income (``route_income``), a dispute (``dispute_power``), a
  Trade Partner's slots (``slots``), shields (``protect``). :meth:`Engine.mods` gathers them
  from every source in play (Leaders, Policies in their slots, standing routes, Tactics this
  round, the Event, Trade Partners), cached until a source changes (``data.v``).
* **Steps** resolve at a moment (``immediate``, ``upkeep``, ``income``, ``activated``). They go
  through one queue of jobs (``data.queue``). A job that needs a decision (whom to target,
  which piles to draw from, which cards to discard, which routes to destroy, a manual effect
  for the table) sets ``data.ask`` and waits; the answer stores the decision in the job and
  the queue runs on. Everything in the queue is plain data, so a session replays exactly.

The driver (:meth:`Engine.drive`) runs from the flow's ``end_if`` hook after every command:
it drains the queue, rebuilds every prompt from the data, and tells whether the phase is done.
"""
from companion.core.errors import IllegalMoveError

ASK = "ask"
DONE = "done"
PILES = ("export", "tactic", "policy", "personal")
PILE_TITLES = {"export": "Export deck", "tactic": "Tactic deck", "policy": "Policy deck",
               "personal": "your own pile"}
NOWHERE = "\0nowhere"            # a chosen Trade Partner that was never chosen
_COST_KEY = {"export": "cost:export", "policy": "cost:policy", "tactic": "cost:tactic"}


class Engine:
    """Mixed into the Game. ``self.ix(state)`` is the edition's :class:`~.rules.Index`."""

    # -- ordering and standing ----------------------------------------------------------------
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
        for the cost changes of one kind of card. Cached until a source changes (``data.v``)."""
        try:
            c = state._tw_mods
            if c["v"] == state.data.v:
                return c[kind]
        except (AttributeError, KeyError):
            pass
        c = state.__dict__.get("_tw_mods")
        if c is None or c["v"] != state.data.v:
            c = state._tw_mods = {"v": state.data.v}
        if kind.startswith("cost:"):
            card_kind = kind[5:]
            got = [m for m in self.mods(state, "cost_change") if m[0].card_kind == card_kind]
        else:
            got = self._collect(state, kind)
        c[kind] = got
        return got

    def _collect(self, state, kind):
        ix = self.ix(state)
        table = ix.mods[kind]
        d = state.data
        out = []
        if not table:
            return out

        def add(e, owner, rec, src):
            p = e.partner
            if p is not None:
                p = self.partner_of(e, rec) or NOWHERE
            out.append((e, owner, rec, src, p))
        for s, lid in enumerate(d.leaders):
            for _, e in table.get(lid, ()):
                add(e, s, None, lid)
        for s, pid in enumerate(d.policy):
            if pid is not None:
                for _, e in table.get(pid, ()):
                    add(e, s, d.policy_ch[s], pid)
        for p in ix.partners:
            for _, e in table.get(p, ()):
                add(e, None, {"this": p}, p)
        for p, slots in d.routes.items():
            for s, cid in slots.values():
                for _, e in table.get(cid, ()):
                    add(e, s, {"route": p}, cid)
        for t in d.in_play:
            for _, e in table.get(t["card"], ()):
                add(e, t["owner"], t["ch"], t["card"])
        if d.event is not None:
            for _, e in table.get(d.event, ()):
                add(e, None, None, d.event)
        return out

    def shielded(self, state, seat):
        """No opponent's card may target this seat (a Fast-Pass lock, or ``protect board``)."""
        d = state.data
        if d.locked[seat]:
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
        n = self.ix(state).items[partner].slots
        for e, owner, rec, _, p in self.mods(state, "slots"):
            if p is None or p == partner:
                n += e.amount
        return n if n > 0 else 0

    def protected(self, state, seat, what, partner=None):
        for e, owner, rec, _, p in self.mods(state, "protect"):
            if e.what != what or (p is not None and p != partner):
                continue
            if self.applies(state, e, owner, rec, seat, shield=False):
                return True
        return False

    def export_options(self, state, seat, cards):
        """``{(card, partner): (cost, route income)}`` for these Exports at every Trade Partner,
        as :meth:`cost_of` and :meth:`route_value` would give, in one pass (for bots)."""
        ix = self.ix(state)
        items = ix.items
        picked = []
        for kind in ("cost:export", "route_income"):
            got = []
            for e, owner, rec, _, p in self.mods(state, kind):
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
            for partner in ix.partners:
                cost = base_c + per_c.get(partner, 0)
                value = base_v + items[partner].bonus + per_v.get(partner, 0)
                out[c, partner] = (cost if cost > 0 else 0, value if value > 0 else 0)
        return out

    def _route_cache(self, state):
        c = state.__dict__.get("_tw_routes")
        if c is None or c[0] != state.data.v:
            ix = self.ix(state)
            per = [[] for _ in range(state.n)]
            for p in ix.partners:
                for slot, (s, cid) in sorted(state.data.routes[p].items()):
                    per[s].append((p, slot, cid))
            c = state._tw_routes = (state.data.v, [tuple(x) for x in per])
        return c[1]

    def route_count(self, state, seat):
        """How many routes ``seat`` has (cached like the modifiers)."""
        return len(self._route_cache(state)[seat])

    # -- the queue ------------------------------------------------------------------------------
    def push(self, state, jobs, front=True):
        """Add jobs: right after the running one (``front``) or at the end."""
        q = state.data.queue
        if front and q:
            q[1:1] = jobs
        else:
            q.extend(jobs)

    def fx_job(self, state, src, owner, when, ch=None, label=None):
        idx = self.ix(state).steps_of(src, when)
        if not idx:
            return None
        return {"t": "fx", "src": src, "owner": owner, "when": when, "idx": list(idx),
                "ch": dict(ch or {}), "label": label}

    def run_queue(self, state):
        d = state.data
        q = d.queue
        while q and d.ask is None and state.outcome is None:
            job = q[0]
            if getattr(self, "_job_" + job["t"])(state, job) == ASK:
                return
            if q and q[0] is job:
                q.pop(0)
            else:                       # defensive: the job was moved
                q.remove(job)
            if not d.boom_first and not d.defer_boom:
                self.check_boom(state)

    def ask(self, state, seat, kind, **info):
        info["seat"] = seat
        info["kind"] = kind
        state.data.ask = info
        return ASK

    def head(self, state, kind, seat, what):
        """The job waiting on ``kind`` from ``seat``, or a readable refusal."""
        d = state.data
        a = d.ask
        if a is None or a["kind"] != kind or a["seat"] != seat:
            raise IllegalMoveError(f"There is no {what} to make now.")
        return d.queue[0]

    def answered(self, state):
        state.data.ask = None

    # -- the effect step --------------------------------------------------------------------------
    def _job_fx(self, state, job):
        item = self.ix(state)[job["src"]]
        idx = job["idx"]
        while idx:
            i = idx[0]
            if self._effect(state, job, i, item.effects[i]) == ASK:
                return ASK
            idx.pop(0)
            job.pop("tq", None)
            if state.outcome is not None:
                return DONE
        return DONE

    def _effect(self, state, job, i, e):
        owner = job["owner"]
        ch = job["ch"]
        if "tq" not in job:
            if e.condition is not None and owner is not None and \
                    not self.cond(state, e.condition, owner):
                self._note_fx(state, job, e, skipped="its condition is not met")
                return DONE
            if e.optional and owner is not None and e.kind != "extra_policy":
                key = f"opt{i}"
                if key not in ch:
                    return self.ask(state, owner, "optional", effect=i, text=e.text or
                                    e.describe(), source=job["src"])
                if not ch[key]:
                    self._note_fx(state, job, e, skipped="declined")
                    return DONE
            if e.partner == "chosen" and ch.get("partner") is None:
                return self.ask(state, owner, "partner", source=job["src"],
                                options=list(self.ix(state).partners))
            tg = self._targets(state, e, owner, ch, job)
            if tg == ASK:
                return ASK
            if e.kind == "manual":
                if e.compute and self.computing(state):
                    return self._compute(state, job, i, e, tg)
                if not ch.get(f"man{i}"):
                    return self.ask(state, None, "manual", effect=i, source=job["src"],
                                    owner=owner, targets=tg, text=e.text,
                                    name=self.ix(state).name_of(job["src"]))
                return DONE
            job["tq"] = tg
        tq = job["tq"]
        while tq:
            if self._apply(state, job, i, e, tq[0]) == ASK:
                return ASK
            tq.pop(0)
            if state.outcome is not None:
                break
        return DONE

    def legal_targets(self, state, owner, mode):
        out = []
        for s in range(state.n):
            if s == owner:
                if mode == "any":
                    out.append(s)
            elif not self.shielded(state, s):
                out.append(s)
        return out

    def _targets(self, state, e, owner, ch, job):
        t = e.target
        n = state.n
        if owner is None:
            if t == "all":
                return self.order(state, range(n))
            if t == "richest":
                return self.order(state, self.richest(state))
            if t == "poorest":
                return self.order(state, self.poorest(state))
            return []
        if t == "self":
            return [owner]
        if t == "all":
            return self.order(state, range(n))
        if t == "each_opponent":
            return self.order(state, [s for s in range(n) if s != owner and
                                      not self.shielded(state, s)])
        if t in ("richest", "poorest"):
            base = self.richest(state) if t == "richest" else self.poorest(state)
            return self.order(state, [s for s in base if s == owner or
                                      not self.shielded(state, s)])
        legal = self.legal_targets(state, owner, t)
        x = ch.get("target")
        if x in legal:
            return [x]
        if not legal:
            return []
        if len(legal) == 1:
            ch["target"] = legal[0]
            return legal
        return self.ask(state, owner, "target", source=job["src"], options=legal,
                        mode=t)

    def _note_fx(self, state, job, e, **extra):
        state.note("EffectResolved", source=job["src"], owner=job["owner"],
                   effect=e.kind, **extra)

    def _apply(self, state, job, i, e, x):
        d = state.data
        ix = self.ix(state)
        owner = job["owner"]
        src = job["src"]
        name = ix.name_of(src)
        k = e.kind
        hostile = owner is not None and x != owner
        if k == "gain_gdp":
            self.gain(state, x, e.amount, name)
            state.note("GdpGained", seat=x, amount=e.amount, source=src)
        elif k == "lose_gdp":
            if hostile and self.protected(state, x, "gdp"):
                state.note("Shielded", seat=x, source=src, what="gdp")
            else:
                state.note("GdpLost", seat=x, amount=self.lose(state, x, e.amount, name),
                           source=src)
        elif k == "steal_gdp":
            if hostile and self.protected(state, x, "gdp"):
                state.note("Shielded", seat=x, source=src, what="gdp")
            elif owner is not None and x != owner:
                got = self.lose(state, x, e.amount, name)
                state.note("GdpStolen", seat=owner, victim=x, amount=got, source=src)
                self.gain(state, owner, got, name)
        elif k == "draw":
            return self._apply_draw(state, job, e, x)
        elif k == "discard":
            return self._apply_discard(state, job, e, x)
        elif k in ("gain_influence", "steal_influence"):
            if not ix.rules.influence_accumulates:
                return DONE
            p = self.partner_of(e, job["ch"])
            if p is None:
                return DONE
            if k == "gain_influence":
                d.influence[x][p] = d.influence[x].get(p, 0) + e.amount
                state.note("InfluenceGained", seat=x, partner=p, amount=e.amount, source=src)
            elif owner is not None and x != owner:
                got = min(e.amount, d.influence[x].get(p, 0))
                if got:
                    d.influence[x][p] -= got
                    d.influence[owner][p] = d.influence[owner].get(p, 0) + got
                state.note("InfluenceStolen", seat=owner, victim=x, partner=p, amount=got,
                           source=src)
        elif k in ("destroy_route", "remove_route"):
            return self._apply_routes(state, job, i, e, x)
        elif k == "extra_policy":
            d.extra_policy[x] += e.count
            state.note("ExtraPolicy", seat=x, count=e.count, source=src)
        elif k == "refresh_fast_pass":
            if ix.rules.fast_pass and not d.fast_pass[x]:
                d.fast_pass[x] = True
                state.note("FastPassRefreshed", seat=x, source=src)
        return DONE

    # draw ----------------------------------------------------------------------------------------
    def piles_for(self, state, seat):
        """{pile: cards available} for the piles ``seat`` may draw from (non-empty only)."""
        d = state.data
        out = {}
        for p in self.ix(state).draw_piles:
            if p == "personal":
                n = len(d.piles[seat])
            else:
                n = len(d.decks[p]) + len(d.discards[p])
            if n:
                out[p] = n
        return out

    def check_split(self, state, seat, split, count):
        """Validate a draw split ``{pile: n}``; returns the clean split. Draws must add up to
        ``count`` (or to every card left, if fewer)."""
        if not isinstance(split, dict):
            raise IllegalMoveError("Say how many cards to draw from each pile, e.g. "
                                   "{\"export\": 2, \"tactic\": 1}.")
        have = self.piles_for(state, seat)
        clean = {}
        for p, v in split.items():
            if p not in PILES:
                raise IllegalMoveError(f"{p!r} is not a pile. Piles: "
                                       f"{', '.join(self.ix(state).draw_piles)}.")
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise IllegalMoveError(f"Draw a whole number of cards from the "
                                       f"{PILE_TITLES[p]}, not {v!r}.")
            if v == 0:
                continue
            if p not in have:
                raise IllegalMoveError(f"You cannot draw from the {PILE_TITLES[p]}: it is "
                                       f"empty or not in this edition.")
            if v > have[p]:
                raise IllegalMoveError(f"The {PILE_TITLES[p]} has only {have[p]} "
                                       f"card{'s' if have[p] != 1 else ''}.")
            clean[p] = v
        want = min(count, sum(have.values()))
        got = sum(clean.values())
        if got != want:
            raise IllegalMoveError(f"Draw exactly {want} card{'s' if want != 1 else ''} "
                                   f"in all, not {got}.")
        return clean

    def draw(self, state, seat, split):
        """Draw for ``seat``: ``{pile: n}`` in pile order. Returns the card ids."""
        d = state.data
        got = []
        for p in PILES:
            k = split.get(p, 0)
            for _ in range(k):
                if p == "personal":
                    if not d.piles[seat]:
                        break
                    got.append(d.piles[seat].pop())
                    continue
                deck = d.decks[p]
                if not deck:
                    if not d.discards[p]:
                        break
                    deck.extend(d.discards[p])
                    d.discards[p] = []
                    state.rng.shuffle(deck)
                    state.note("DeckReshuffled", deck=p, cards=len(deck))
                got.append(deck.pop())
        d.hands[seat].extend(got)
        if got:
            state.note("CardsDrawn", seat=seat, piles=dict(split), count=len(got))
            state.note("YouDrew", to=seat, cards=list(got))
        return got

    def _apply_draw(self, state, job, e, x):
        d = state.data
        deck = e.deck or "any"
        if deck == "policy" and "policy" not in self.ix(state).draw_piles:
            deck = "personal"
        if deck != "any":
            self.draw(state, x, {deck: e.count})
            return DONE
        ans = job.pop("ans", None)
        have = self.piles_for(state, x)
        if not have:
            return DONE
        split = None
        if ans is not None:
            split = ans
        elif len(have) == 1:
            split = {next(iter(have)): e.count}
        elif x == job["owner"] and job["ch"].get("draw") is not None:
            try:
                split = self.check_split(state, x, job["ch"]["draw"], e.count)
            except IllegalMoveError:
                split = None
            job["ch"].pop("draw", None)
        if split is None:
            return self.ask(state, x, "draw", count=min(e.count, sum(have.values())),
                            piles=have, source=job["src"])
        if len(have) == 1:
            p = next(iter(have))
            split = {p: min(e.count, have[p])}
        self.draw(state, x, split)
        return DONE

    # discard -------------------------------------------------------------------------------------
    def discard_card(self, state, seat, cid):
        """A card leaves ``seat``'s hand for its discard pile."""
        d = state.data
        d.hands[seat].remove(cid)
        self.to_discard(state, cid)

    def to_discard(self, state, cid):
        ix = self.ix(state)
        card = ix[cid]
        d = state.data
        if card.kind in d.discards and (card.deck == "global" or (
                card.signature and ix.rules.signature_to_global)):
            d.discards[card.kind].append(cid)
        else:
            d.out.append(cid)

    def check_discard(self, state, seat, cards, count):
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalMoveError("Name the cards to discard, as a list of card ids.")
        want = min(count, len(state.data.hands[seat]))
        if len(cards) != want:
            raise IllegalMoveError(f"Discard exactly {want} card{'s' if want != 1 else ''}, "
                                   f"not {len(cards)}.")
        hand = list(state.data.hands[seat])
        for c in cards:
            if c not in hand:
                raise IllegalMoveError(f"{self.ix(state).name_of(c)} is not in your hand.")
            hand.remove(c)
        return list(cards)

    def _apply_discard(self, state, job, e, x):
        d = state.data
        hand = d.hands[x]
        src = job["src"]
        if not hand:
            return DONE
        if e.random:
            k = min(e.count, len(hand))
            picks = state.rng.sample(range(len(hand)), k)
            cards = [hand[i] for i in sorted(picks, reverse=True)]
        elif len(hand) <= e.count:
            cards = list(hand)
        else:
            cards = job.pop("ans", None)
            if cards is None and x == job["owner"] and job["ch"].get("discard") is not None:
                try:
                    cards = self.check_discard(state, x, job["ch"]["discard"], e.count)
                except IllegalMoveError:
                    cards = None
                job["ch"].pop("discard", None)
            if cards is None:
                return self.ask(state, x, "discard", count=e.count, source=src)
        for c in cards:
            self.discard_card(state, x, c)
        state.note("CardsDiscarded", seat=x, count=len(cards), source=src,
                   random=bool(e.random), cards=list(cards))
        return DONE

    # routes --------------------------------------------------------------------------------------
    def routes_of(self, state, seat):
        """``((partner, slot, card), ...)`` of ``seat``'s standing routes, in table order."""
        return self._route_cache(state)[seat]

    def route_targets(self, state, e, x):
        ix = self.ix(state)
        out = []
        for p, slot, cid in self.routes_of(state, x):
            card = ix[cid]
            if e.tag is not None and e.tag not in card.tags:
                continue
            if e.partner is not None and e.partner not in ("chosen", "this") and \
                    e.partner != p:
                continue
            if e.max_cost is not None and card.cost > e.max_cost:
                continue
            if self.protected(state, x, "routes", p):
                continue
            out.append([p, slot])
        return out

    def _apply_routes(self, state, job, i, e, x):
        d = state.data
        cands = self.route_targets(state, e, x)
        if e.partner == "chosen":
            cands = [c for c in cands if c[0] == job["ch"].get("partner")]
        if not cands:
            state.note("NoRouteToHit", seat=x, source=job["src"])
            return DONE
        if len(cands) <= e.count:
            picks = cands
        else:
            picks = job.pop("ans", None)
            given = job["ch"].get("routes")
            if picks is None and given is not None:
                ok = [r for r in given if isinstance(r, list) and r in cands]
                if len(ok) == e.count and len({tuple(r) for r in ok}) == len(ok):
                    picks = ok
            if picks is None:
                return self.ask(state, job["owner"], "routes", count=e.count,
                                options=cands, victim=x, source=job["src"],
                                how=e.kind)
        for p, slot in picks:
            s, cid = d.routes[p].pop(slot)
            d.v += 1
            if e.kind == "destroy_route":
                self.to_discard(state, cid)
                state.note("RouteDestroyed", seat=s, partner=p, slot=slot, card=cid,
                           source=job["src"])
            else:
                d.hands[s].append(cid)
                state.note("RouteRemoved", seat=s, partner=p, slot=slot, card=cid,
                           source=job["src"])
        return DONE

    # -- the instant win -------------------------------------------------------------------------
    def check_boom(self, state):
        """Tariff Warz: whoever alone has the most GDP at or above the line wins; a tie at the
        top above the line plays on."""
        d = state.data
        if state.outcome is not None:
            return
        g = d.gdp
        top = max(g)
        if top < d.win:
            return
        who = [s for s in range(state.n) if g[s] == top]
        if len(who) == 1:
            self.win_now(state, who)
        elif d.boom_tie != who:
            d.boom_tie = who
            state.note("BoomTie", seats=who, gdp=top)
