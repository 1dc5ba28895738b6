"""Income (every route pays; effects that pay at Income), Cleanup (the Event and Tactics leave
play; Tariff Warz discards down to the hand limit) and the end of the game: the instant win at
the line (Economic Boom) and the Global Close after the last round, with its tiebreaks."""
from companion.core.errors import ConfigError

from .data import blank_income

PHASE_LABELS = {"leaders": "Leader pick", "event": "Event", "upkeep": "Upkeep", "draw": "Draw",
                "policy": "Policy", "trade": "Trade", "exports": "Flip", "disputes": "Disputes",
                "income": "Income", "cleanup": "Cleanup"}
TIEBREAK_TEXT = {"partners_influenced": "most Trade Partners influenced",
                 "active_routes": "most active routes",
                 "gdp_in_hand": "most GDP in hand (printed value of the Exports in hand)"}


class IncomeAndCleanup:
    """Mixed into the Game."""

    # -- Income -----------------------------------------------------------------------------------
    def _begin_income(self, state):
        d = state.data
        ix = self.ix(state)
        b = d.board
        d.income = [blank_income() for _ in range(state.n)]
        d.defer_boom = not d.boom_first
        jobs = []
        for s in self.order(state, range(state.n)):
            jobs.append({"step": "income", "seat": s})
            srcs = [b.leaders[s]] + ([b.policy[s]] if b.policy[s] else [])
            srcs += [cid for _, _, cid in self.routes_of(state, s)]
            srcs += [t["card"] for t in b.in_play if t["owner"] == s]
            for src in srcs:
                j = self.fx_job(state, src, s, "income")
                if j:
                    jobs.append(j)
        for src in ([b.event] if b.event else []) + list(ix.partners):
            j = self.fx_job(state, src, None, "income", {"this": src})
            if j:
                jobs.append(j)
        if ix.rules.influence_accumulates:
            jobs.append({"step": "influence"})
        jobs.append({"step": "boom"})
        state.push(jobs)

    def _income_step(self, state, job):
        d = state.data
        s = job["seat"]
        rows, total = [], 0
        for p, slot, cid in self.routes_of(state, s):
            v, why = self.route_value(state, s, cid, p, explain=True)
            rows.append({"partner": p, "slot": slot, "card": cid, "total": v, **why})
            total += v
        inc = d.income[s]
        inc["routes"], inc["route_total"] = rows, total
        state.note("IncomeCollected", seat=s, routes=total,
                   **({"says": self.gdp_words(state, s, total, "income from routes",
                                              now=d.gdp[s] + total)} if total > 0 else {}))
        self.gain(state, s, total)
        return None

    def _influence_step(self, state, job):
        d = state.data
        ix = self.ix(state)
        one = state.config["influence_gain"] == "one"
        got = {}
        for p in ix.partners:
            for slot, (s, cid) in d.board.routes[p].items():
                k = 1 if one else ix[cid].influence
                d.influence[s][p] = d.influence[s].get(p, 0) + k
                if k:
                    mine = got.setdefault(s, {})
                    mine[p] = mine.get(p, 0) + k
        if state.lean:
            return None
        pl = state.players
        parts = [f"{pl[s]} " + ", ".join(f"+{k} influence with {ix.name_of(p)}: "
                                        f"{d.influence[s][p]}" for p, k in got[s].items())
                 for s in sorted(got)]
        state.note("InfluenceAccrued",
                   **({"says": "Influence from routes: " + "; ".join(parts) + "."} if parts
                      else {}))
        return None

    def _boom_step(self, state, job):
        d = state.data
        d.defer_boom = False
        if not d.boom_first:
            self.check_boom(state)
        return None

    # -- Cleanup ----------------------------------------------------------------------------------
    def _begin_cleanup(self, state):
        d = state.data
        ix = self.ix(state)
        d.gdp_curve.append(list(d.gdp))
        d.disputes_per_round.append(d.disputes.count)
        b = d.board
        if b.event is not None:
            d.event_discard.append(b.event)
            b.event = None
        for t in b.in_play:
            self.to_discard(state, t["card"])
        if b.in_play and not state.lean:
            pl, by = state.players, {}
            for t in b.in_play:
                by.setdefault(t["owner"], []).append(t["card"])
            state.note("TacticsDiscarded", cards=[t["card"] for t in b.in_play],
                       says="The Tactics in play are discarded: " + "; ".join(
                           f"{pl[s]}'s {self.card_names(state, cs)}" for s, cs in by.items())
                       + ".")
        b.in_play = []
        d.locked = [False] * state.n
        d.trade.offers = []
        limit = ix.rules.hand_limit
        if limit:
            jobs = [{"step": "hand", "seat": s} for s in self.order(state, range(state.n))
                    if len(d.hands[s]) > limit]
            state.push(jobs)

    def _hand_step(self, state, job):
        d = state.data
        s = job["seat"]
        limit = self.ix(state).rules.hand_limit
        extra = len(d.hands[s]) - limit
        if extra <= 0:
            return None
        cards = job.pop("ans", None)
        if cards is None:
            return self.ask(state, s, "discard", count=extra, source="hand-limit")
        for c in cards:
            self.discard_card(state, s, c)
        self.note_discarded(state, s, cards, "hand-limit")
        return None

    def _end_cleanup(self, state):
        d = state.data
        if state.round >= d.rounds:
            self._final(state)
            if state.outcome is not None:
                return
        if state.config["pass_first_player"]:
            was, d.first = d.first, state.left_of(d.first)
            state.note("FirstPlayerPassed", seat=d.first,
                       says=f"{state.players[was]} passes the first-player marker to "
                            f"{state.players[d.first]}.")

    def _final(self, state):
        d = state.data
        play = self.rules.edition(d.edition)
        g = d.gdp
        top = max(g)
        who = [s for s in range(state.n) if g[s] == top]
        if not d.boom_first and top >= d.win and len(who) > 1:
            if state.round < d.rounds + play.extra_rounds:
                state.note("PlayContinues", seats=who, gdp=top,
                           why="tied at the top above the line")
                return
            self._finish(state, who, f"tied at {top} GDP after round {state.round} "
                                     f"(the tie was never broken)", "shared win")
            return
        tiebreak = None
        if len(who) > 1:
            used = []
            for rule in play.tiebreak:
                vals = {s: self._tiebreak_value(state, s, rule) for s in who}
                best = max(vals.values())
                who = [s for s in who if vals[s] == best]
                used.append(TIEBREAK_TEXT[rule])
                if len(who) == 1:
                    break
            tiebreak = ", then ".join(used)
            if len(who) > 1:
                tiebreak += "; still tied: shared win"
        self._finish(state, who, f"highest GDP after round {state.round} (Global Close)",
                     tiebreak)

    def _tiebreak_value(self, state, s, rule):
        d = state.data
        ix = self.ix(state)
        if rule == "partners_influenced":
            return self.partners_influenced(state, s)
        if rule == "active_routes":
            return len(self.routes_of(state, s))
        if rule == "gdp_in_hand":
            return sum(ix[c].value or 0 for c in d.hands[s] if c in ix.exports)
        raise ConfigError(f"{rule!r} is not a tiebreak rule.")

    def win_now(self, state, seats):
        d = state.data
        ph = PHASE_LABELS.get(state.phase, state.phase)
        s = seats[0]
        if not d.gdp_curve or len(d.gdp_curve) < state.round:
            d.gdp_curve.append(list(d.gdp))
            d.disputes_per_round.append(d.disputes.count)
        self._finish(state, seats, f"{self.seat_name(state, s)} reached {d.gdp[s]} GDP "
                                   f"(Economic Boom, round {state.round}, {ph} phase)", None)

    def _finish(self, state, winners, reason, tiebreak):
        d = state.data
        d.end = "boom" if "Economic Boom" in reason else "close"
        state.finish(winners, reason, {s: d.gdp[s] for s in range(state.n)}, tiebreak,
                     code=d.end)
