"""What the companion computes instead of asking the table (docs/trade-warz.md, "Computed
effects"; the vocabulary in docs/trade-warz-cards.md, ``compute``).

A card's ``manual`` effect with ``compute = "<name>"`` keeps its text for the players, but when
the session computes effects (rules version 2 and option ``auto_effects``) the engine resolves
it from what the game tracks: routes, GDP, hands, the Event deck, the Trade timer. Otherwise it
stays a table prompt, exactly as before (so old logs replay and a table can choose to resolve
by hand).

Steps (``immediate``, ``upkeep``, ``income``) run here as :meth:`Computed._compute`; the
lasting ones (``trade_timer``, ``no_tactics``) are read where they matter, like modifiers
(:meth:`trade_seconds`, :meth:`silenced`); ``poorer_in_dispute`` is read by the dispute.
"""
from companion.core.flow import ASK

from .cards import Effect
from .effects import DONE


class Computed:
    """Mixed into the Game next to :class:`~.effects.Effects`."""

    def computing(self, state) -> bool:
        """Does this session compute the effects whose inputs it tracks?"""
        return self.v2(state) and state.config.get("auto_effects", True)

    # -- lasting effects, read where they matter --------------------------------------------------
    def _in_play_computed(self, state, name):
        """``[(effect, owner, choices, source), ...]`` of the computed effects ``name`` in
        play (the Event, Tactics this round, Policies in their slots)."""
        table = self.ix(state).computed.get(name)
        if not table or not self.computing(state):
            return []
        return state.derived(("tw.computed", name),
                             lambda: self._gather_computed(state, table), state.data.board)

    def _gather_computed(self, state, table):
        b = state.data.board
        out = []
        if b.event is not None:
            out += [(e, None, {}, b.event) for e in table.get(b.event, ())]
        for t in b.in_play:
            out += [(e, t["owner"], t["ch"], t["card"]) for e in table.get(t["card"], ())]
        for s, pid in enumerate(b.policy):
            if pid is not None:
                out += [(e, s, b.policy_ch[s], pid) for e in table.get(pid, ())]
        return out

    def trade_seconds(self, state) -> int:
        """The Trade timer's length this round (Port Strike: 2:00)."""
        got = [e.seconds for e, _, _, _ in self._in_play_computed(state, "trade_timer")]
        return min(got) if got else self.rules.trade_seconds

    def silenced(self, state, seat):
        """The id of the card that forbids ``seat`` to play Tactics now (Hold Music), or
        None."""
        for _, owner, ch, src in self._in_play_computed(state, "no_tactics"):
            if owner is not None and ch.get("target") == seat:
                return src
        return None

    def dispute_computed(self, state, contest, power, parts):
        """Computed dispute effects (Maple Dominion's poorer player): change ``power`` and
        ``parts`` in place; returns the by-hand texts that are left for the table."""
        d = state.data
        ix = self.ix(state)
        seats = contest["seats"]
        texts = []
        b = d.board
        effects = [(e, contest["partner"]) for e in ix.manual_dispute.get(contest["partner"], ())]
        for t in b.in_play:
            if t["owner"] in seats:
                effects += [(e, t["card"]) for e in ix.manual_dispute.get(t["card"], ())]
        for s, pid in enumerate(b.policy):
            if s in seats and pid is not None:
                effects += [(e, pid) for e in ix.manual_dispute.get(pid, ())]
        for e, src in effects:
            if e.compute == "poorer_in_dispute" and self.computing(state):
                low = min(d.gdp[s] for s in seats)
                poorest = [s for s in seats if d.gdp[s] == low]
                if len(poorest) > 1 and state.config.get("poorer_ties") == "none":
                    state.note("EffectComputed", source=src, compute=e.compute, seats=[],
                               skipped="the poorest players in the dispute are tied")
                    continue
                for s in seats:
                    if d.gdp[s] == low:
                        amount = e.amount or 1
                        power[str(s)] += amount
                        parts[str(s)]["effects"] += amount
                        parts[str(s)].setdefault("sources", []).append(
                            {"source": src, "name": ix.name_of(src), "amount": amount})
                state.note("EffectComputed", source=src, compute=e.compute, seats=poorest,
                           amount=e.amount or 1)
            else:
                texts.append(e.text)
        return texts

    # -- steps ----------------------------------------------------------------------------------
    def _compute(self, state, job, i, e, targets):
        """Resolve the computed manual effect ``e`` (the ``i``-th of ``job``'s card) now."""
        got = self.COMPUTE[e.compute](self, state, job, e, targets)
        if got != ASK:
            job.pop("cstep", None)
        return got

    def _computed_note(self, state, job, e, **facts):
        state.note("EffectComputed", source=job["src"], owner=job["owner"], compute=e.compute,
                   **facts, **self._computed_words(state, job, e, facts))

    def _computed_words(self, state, job, e, facts):
        """A computed effect's GDP result in words, said before its GDP moves (so the GDP
        after is given from the facts); an effect that changed nothing says nothing."""
        ix, pl, d = self.ix(state), state.players, state.data
        name = ix.name_of(job["src"])
        seat, gdp = facts.get("seat"), facts.get("gdp")
        if seat is None or not gdp:
            return {}
        if e.compute == "swap_gdp":
            owner = job["owner"]
            return {"says": f"{name}: {pl[owner]} takes {gdp} GDP from {pl[seat]}: "
                            f"{pl[owner]} {d.gdp[owner] + gdp}, {pl[seat]} {d.gdp[seat]}."}
        return {"says": self.gdp_words(state, seat, gdp, name, now=d.gdp[seat] + gdp)}

    def _c_most_routes(self, state, job, e, targets):
        d = state.data
        ix = self.ix(state)
        partner = job["ch"].get("this") or job["ch"].get("route")
        counts = {}
        for s, _ in d.board.routes.get(partner, {}).values():
            counts[s] = counts.get(s, 0) + 1
        if not counts:
            self._computed_note(state, job, e, skipped=f"nobody has a route at "
                                                      f"{ix.name_of(partner)}")
            return DONE
        top = max(counts.values())
        who = self.order(state, [s for s, k in counts.items() if k == top])[0]
        amount = e.amount or 1
        self._computed_note(state, job, e, seat=who, routes=top, gdp=amount)
        self.gain(state, who, amount, ix.name_of(job["src"]))
        return DONE

    def _c_per_partner(self, state, job, e, targets):
        owner = job["owner"]
        n = len({p for p, _, _ in self.routes_of(state, owner)})
        amount = (e.amount or 1) * n
        self._computed_note(state, job, e, seat=owner, partners=n, gdp=amount)
        self.gain(state, owner, amount, self.ix(state).name_of(job["src"]))
        return DONE

    def _c_per_shared_route(self, state, job, e, targets):
        d = state.data
        owner = job["owner"]
        mine = {p for p, _, _ in self.routes_of(state, owner)}
        n = sum(1 for p in mine for s, _ in d.board.routes[p].values() if s != owner)
        amount = (e.amount or 1) * n
        self._computed_note(state, job, e, seat=owner, routes=n, gdp=amount)
        self.gain(state, owner, amount, self.ix(state).name_of(job["src"]))
        return DONE

    def _c_influence_per_route(self, state, job, e, targets):
        ix = self.ix(state)
        owner = job["owner"]
        if not ix.rules.influence_accumulates:
            return DONE
        here = {}
        for p, _, _ in self.routes_of(state, owner):
            here[p] = here.get(p, 0) + 1
        if not here:
            self._computed_note(state, job, e, skipped="no routes")
            return DONE
        p = job["ch"].get("partner")
        if p not in here:
            if len(here) > 1:
                return self.ask(state, owner, "partner", source=job["src"], options=list(here))
            p = job["ch"]["partner"] = next(iter(here))
        amount = (e.amount or 1) * here[p]
        self.gain_influence(state, owner, p, amount, job["src"])
        self._computed_note(state, job, e, seat=owner, partner=p, influence=amount)
        job["ch"].pop("partner", None)      # asked again at the next Upkeep
        return DONE

    def _c_trade_timer(self, state, job, e, targets):
        """Read by :meth:`trade_seconds`; a Trade timer already running loses the
        difference (Black Swan turning up Port Strike during Trade)."""
        t = state.timers.get("trade")
        cut = self.rules.trade_seconds - e.seconds
        if t is not None and cut > 0:
            if t.deadline is None:
                t.remaining = max(0.0, t.remaining - cut)
            else:
                t.deadline = max(state.now, t.deadline - cut)
            t.duration = float(e.seconds)
            state.note("TimerShortened", timer="trade", seconds=cut)
        self._computed_note(state, job, e, seconds=e.seconds)
        return DONE

    def _c_no_tactics(self, state, job, e, targets):
        if not targets:
            self._computed_note(state, job, e, skipped="no opponent can be targeted")
            return DONE
        self._computed_note(state, job, e, seat=targets[0])
        return DONE

    def _c_new_event(self, state, job, e, targets):
        d = state.data
        ix = self.ix(state)
        old = d.board.event
        if not d.events:
            d.events, d.event_discard = d.event_discard, []
            state.note("DeckReshuffled", deck="event", cards=len(d.events))
        state.rng.shuffle(d.events)
        if not d.events:
            self._computed_note(state, job, e, skipped="the Event deck is empty")
            return DONE
        eid = d.events.pop()
        if old is not None:
            d.events.append(old)
            state.rng.shuffle(d.events)
            state.note("EventReturned", event=old, name=ix.name_of(old))
        d.board.event = eid
        state.note("EventFlipped", event=eid, name=ix.name_of(eid), source=job["src"])
        self._computed_note(state, job, e, old=old, new=eid)
        fx = self.fx_job(state, eid, None, "immediate")
        if fx:
            state.push([fx], front=True)
        return DONE

    def _c_swap_gdp(self, state, job, e, targets):
        d = state.data
        owner = job["owner"]
        if not targets:
            self._computed_note(state, job, e, skipped="no opponent can be targeted")
            return DONE
        x = targets[0]
        gap = d.gdp[x] - d.gdp[owner]
        if gap <= 0 or gap > e.max_gap:
            self._computed_note(state, job, e, seat=x, skipped=f"the GDP gap is {gap}, not "
                                                               f"1 to {e.max_gap}")
            return DONE
        if self.protected(state, x, "gdp"):
            state.note("Shielded", seat=x, source=job["src"], what="gdp")
            return DONE
        name = self.ix(state).name_of(job["src"])
        self.lose(state, x, gap, name)
        self._computed_note(state, job, e, seat=x, gdp=gap)
        self.gain(state, owner, gap, name)
        return DONE

    def _c_fewer_routes_gain(self, state, job, e, targets):
        owner = job["owner"]
        if not targets:
            self._computed_note(state, job, e, skipped="no opponent can be targeted")
            return DONE
        x = targets[0]
        pair = (owner, x)
        step = job.get("cstep", 0)
        while step < 2 and e.count:
            draw = Effect(kind="draw", when="immediate", target="self", count=e.count,
                          deck="any")
            if self._apply_draw(state, job, draw, pair[step]) == ASK:
                job["cstep"] = step
                return ASK
            step += 1
            job["cstep"] = step
        mine, theirs = len(self.routes_of(state, owner)), len(self.routes_of(state, x))
        if mine == theirs:
            self._computed_note(state, job, e, seat=x, skipped=f"both have {mine} routes")
            return DONE
        who = owner if mine < theirs else x
        amount = e.amount or 1
        self._computed_note(state, job, e, seat=who, routes=[mine, theirs], gdp=amount)
        self.gain(state, who, amount, self.ix(state).name_of(job["src"]))
        return DONE

    #: What each ``compute`` name does (cards.COMPUTES lists and documents them).
    COMPUTE = {"most_routes": _c_most_routes, "per_partner": _c_per_partner,
               "per_shared_route": _c_per_shared_route,
               "influence_per_route": _c_influence_per_route, "trade_timer": _c_trade_timer,
               "no_tactics": _c_no_tactics, "new_event": _c_new_event,
               "swap_gdp": _c_swap_gdp, "fewer_routes_gain": _c_fewer_routes_gain}
