"""The flip and the disputes. At the flip every face-down Export is revealed (the table may
check them by scanning); two or more Exports on one slot are a contest. The poorest player in a
contest chooses which of its contests is next; everyone in it bids blind (a sealed window);
power = printed influence (+ influence with that partner, Trade Warz) + modifiers + bid; ties
go to the poorest. Then every route that stands is established (Trade Warz pays its Exports
now) and its immediate effects resolve."""
from companion.core import args
from companion.core.errors import IllegalMoveError
from companion.core.game import close_window


class FlipAndDisputes:
    """Mixed into the Game."""

    # -- Flip -------------------------------------------------------------------------------------
    def _begin_exports(self, state):
        d = state.data
        ix = self.ix(state)
        for p in d.trade.placements:
            if p["state"] == "down":
                w = state.windows.get(p["window"])
                if w is not None and not w.is_revealed():
                    close_window(self, state, w)      # the flip: every card is in already
        state.note("ExportsFlipped", cards=[[p["seat"], p["partner"], p["slot"], p["card"]]
                                            for p in d.trade.placements],
                   **({"says": self._flip_words(state)} if d.trade.placements else {}))
        if ix.rules.export_cost == "on_placement":
            for p in self.order_placements(state):
                if p["state"] != "up":
                    continue
                s = p["seat"]
                owe = self.cost_of(state, s, p["card"], p["partner"]) - p["paid"]
                if owe <= 0:
                    continue
                if d.gdp[s] >= owe:
                    p["paid"] += self.lose(state, s, owe)
                    state.note("ExportTopUp", seat=s, card=p["card"], paid=owe,
                               says=self.gdp_words(state, s, -owe, "an Export's cost went up; "
                                                                   "paid the rest"))
                else:
                    p["state"] = "discarded"
                    self.to_discard(state, p["card"])
                    state.note("ExportDiscarded", seat=s, card=p["card"], partner=p["partner"],
                               slot=p["slot"], why="unpaid at the buzzer",
                               says=f"{state.players[s]}'s {ix.name_of(p['card'])} at "
                                    f"{ix.name_of(p['partner'])} slot {p['slot']} is "
                                    f"discarded: unpaid at the buzzer ({owe} GDP more; "
                                    f"{state.players[s]} has {d.gdp[s]}).")
        d.disputes.check = bool(state.config["check_reveals"] and
                                any(p["state"] == "up" for p in d.trade.placements))
        self._find_contests(state)          # the screens show this round's contests at once

    def _flip_words(self, state):
        """The flip in words: each player's Exports by name, where they went."""
        ix = self.ix(state)
        by = {}
        for p in self.order_placements(state):
            what = ix.name_of(p["card"]) if p["card"] else "no card"
            by.setdefault(p["seat"], []).append(f"{what} ({ix.name_of(p['partner'])} slot "
                                                f"{p['slot']})")
        return "The face-down Exports flip: " + "; ".join(
            f"{state.players[s]} " + ", ".join(items) for s, items in by.items()) + "."

    def order_placements(self, state):
        d = state.data
        po = self.ix(state).partner_order
        rank = {s: i for i, s in enumerate(self.order(state, range(state.n)))}
        return sorted(d.trade.placements, key=lambda p: (rank[p["seat"]], po[p["partner"]],
                                                   p["slot"]))

    def _resolve_exports(self, state, seat):
        d = state.data
        if state.phase != "exports" or not d.disputes.check:
            raise IllegalMoveError("There are no flipped Exports to check now.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the scanned card first.")
        d.disputes.check = False
        state.note("ExportsChecked")

    # -- Disputes ---------------------------------------------------------------------------------
    def _bid_wid(self, state):
        return f"bid-r{state.round}-{state.data.disputes.current}"

    def _begin_disputes(self, state):
        dr = state.data.disputes
        self._find_contests(state)
        dr.count = len(dr.contests)
        dr.order = self.order(state, range(state.n))
        dr.order_gdp = [state.data.gdp[s] for s in dr.order]
        dr.dturn = 0
        dr.chooser = None
        dr.current = None
        dr.done = False
        if dr.contests:
            state.note("DisputesFound", count=len(dr.contests), order=list(dr.order))
        self._next_dispute(state)

    def _disputes_over(self, state):
        return state.data.disputes.done

    def _find_contests(self, state):
        """This round's contested slots, from the flipped Exports (at the flip, for the
        screens, and again when the disputes begin: a settled scan may change a card)."""
        d = state.data
        placements = d.trade.placements
        po = self.ix(state).partner_order
        groups = {}
        for i, p in enumerate(placements):
            if p["state"] == "up":
                groups.setdefault((p["partner"], p["slot"]), []).append(i)
        contests = d.disputes.contests = []
        for (partner, slot), idx in sorted(groups.items(), key=lambda kv: (po[kv[0][0]],
                                                                         kv[0][1])):
            if len(idx) < 2:
                continue
            seats = [placements[i]["seat"] for i in idx]
            contests.append({"id": len(contests), "round": state.round,
                             "partner": partner, "slot": slot,
                             "seats": seats, "placements": idx,
                             "cards": {str(placements[i]["seat"]): placements[i]["card"]
                                       for i in idx},
                             "state": "open", "chooser": None, "bids": None, "power": None,
                             "winner": None})

    def _next_dispute(self, state):
        d = state.data
        d.disputes.current = None
        d.disputes.chooser = None
        live = [c for c in d.disputes.contests if c["state"] == "open"]
        if not live:
            state.push([{"step": "establish"}])
            return
        order = d.disputes.order
        for k in range(state.n):
            s = order[(d.disputes.dturn + k) % state.n]
            mine = [c for c in live if s in c["seats"]]
            if mine:
                d.disputes.dturn = (d.disputes.dturn + k + 1) % state.n
                break
        if len(mine) == 1:
            self._start_contest(state, mine[0], s)
        else:
            d.disputes.chooser = s

    def _choose_dispute(self, state, seat, contest=None, partner=None, slot=None):
        d = state.data
        if state.phase != "disputes" or d.disputes.chooser != seat:
            raise IllegalMoveError("It is not your turn to choose a dispute.")
        for c in d.disputes.contests:
            if (c["id"] == contest if contest is not None else
                    c["partner"] == partner and c["slot"] == slot) and \
                    c["state"] == "open" and seat in c["seats"]:
                self._start_contest(state, c, seat)
                return
        if contest is not None:
            raise IllegalMoveError(f"You are in no open dispute number {contest!r}.")
        raise IllegalMoveError(f"You are in no open dispute at {partner!r} slot {slot!r}.")

    def contest_label(self, state, c):
        """ "Crypto Isle slot 2: Ann vs Bo" """
        return (f"{self.ix(state).name_of(c['partner'])} slot {c['slot']}: "
                + " vs ".join(state.players[s] for s in c["seats"]))

    def _start_contest(self, state, c, chooser):
        d = state.data
        c["state"] = "bidding"
        c["chooser"] = chooser
        d.disputes.chooser = None
        d.disputes.current = c["id"]
        state.note("DisputeChosen", seat=chooser, partner=c["partner"], slot=c["slot"],
                   seats=list(c["seats"]))
        bidders = [s for s in c["seats"] if d.gdp[s] > 0]
        if bidders:
            state.open_window(self._bid_wid(state), "bid", bidders, self._bids_revealed,
                              default=0, label=f"Dispute at {self.ix(state).name_of(c['partner'])}"
                                               f" slot {c['slot']}")
        else:
            state.push([{"step": "dispute", "contest": c["id"], "bids": {}}])

    def _bid(self, state, seat, amount):
        d = state.data
        args.whole(amount, "A bid")
        if amount < 0:
            raise IllegalMoveError("A bid is 0 GDP or more.")
        if amount > d.gdp[seat]:
            raise IllegalMoveError(f"You have {d.gdp[seat]} GDP; you cannot bid {amount}.")
        return amount

    def _bids_revealed(self, state, window):
        bids = {str(s): v for s, v in window.revealed().items()}
        state.push([{"step": "dispute", "contest": state.data.disputes.current, "bids": bids}])

    def _dispute_step(self, state, job):
        d = state.data
        ix = self.ix(state)
        c = d.disputes.contests[job["contest"]]
        partner = c["partner"]
        if "power" not in job:
            power, parts = {}, {}
            for i in c["placements"]:
                p = d.trade.placements[i]
                s = p["seat"]
                card = ix[p["card"]]
                acc = d.influence[s].get(partner, 0) if ix.rules.influence_accumulates else 0
                mod = self.dispute_bonus(state, s, p["card"], partner)
                bid = int(job["bids"].get(str(s), 0))
                power[str(s)] = card.influence + acc + mod + bid
                parts[str(s)] = {"printed": card.influence, "influence": acc, "effects": mod,
                                 "bid": bid}
            job["power"], job["parts"] = power, parts
            texts = self.dispute_computed(state, c, power, parts)
            if texts:
                job["manual"] = texts
            # the bids are open now: screens show them (and the power so far) at once
            c["state"] = "revealed"
            c["bids"] = dict(job["bids"])
            c["power"] = dict(power)
            c["parts"] = parts
        if job.get("manual") and "adj" not in job:
            return self.ask(state, None, "manual", dispute=c["id"], text=" ".join(job["manual"]),
                            name=ix.name_of(partner), targets=list(c["seats"]),
                            source=partner, power=dict(job["power"]))
        power = dict(job["power"])
        for s, delta in (job.get("adj") or {}).items():
            power[str(s)] = power.get(str(s), 0) + delta
        top = max(power.values())
        tied = [int(s) for s, v in power.items() if v == top]
        rank = {s: i for i, s in enumerate(d.disputes.order)}
        winner = min(tied, key=lambda s: (d.gdp[s], rank[s]))
        tiebreak = None
        if len(tied) > 1:
            tiebreak = "poorest" if len({d.gdp[s] for s in tied}) > 1 else "dispute order"
        c["bids"] = dict(job["bids"])
        c["power"] = power
        c["parts"] = job["parts"]
        c["winner"] = winner
        c["tiebreak"] = tiebreak
        c["state"] = "done"
        paid = self.lose(state, winner, int(job["bids"].get(str(winner), 0)))
        for i in c["placements"]:
            p = d.trade.placements[i]
            if p["seat"] == winner:
                p["state"] = "won"
            else:
                p["state"] = "lost"
                d.hands[p["seat"]].append(p["card"])
                if p["paid"]:
                    self.gain(state, p["seat"], p["paid"])
                    p["paid"] = 0
        back = [p for p in (d.trade.placements[i] for i in c["placements"])
                if p["seat"] != winner and p["state"] == "lost"]
        pl = state.players
        state.note("DisputeResolved", contest=c["id"], partner=partner, slot=c["slot"],
                   winner=winner, bids=c["bids"], power=power, paid=paid, tiebreak=tiebreak,
                   says=f"Dispute at {ix.name_of(partner)} slot {c['slot']}: "
                        f"{pl[winner]} wins with power {power[str(winner)]} ("
                        + ", ".join(f"{pl[int(s)]} {v}" for s, v in sorted(power.items()))
                        + (f"; tie broken by {tiebreak}" if tiebreak else "")
                        + f"), paying the bid of {paid} GDP: {d.gdp[winner]}."
                        + ("".join(f" {pl[p['seat']]} takes {ix.name_of(p['card'])} back"
                                   f" (GDP {d.gdp[p['seat']]})." for p in back)))
        if state.outcome is None:
            self._next_dispute(state)
        return None

    def _establish_step(self, state, job):
        d = state.data
        ix = self.ix(state)
        after = ix.rules.export_cost == "after_disputes"
        jobs = []
        for p in self.order_placements(state):
            if p["state"] not in ("up", "won"):
                continue
            s, cid, partner, slot = p["seat"], p["card"], p["partner"], p["slot"]
            if after:
                cost = self.cost_of(state, s, cid, partner)
                if cost > d.gdp[s]:
                    p["state"] = "unpaid"
                    d.hands[s].append(cid)
                    state.note("ExportUnpaid", seat=s, card=cid, partner=partner, slot=slot,
                               cost=cost,
                               says=f"{state.players[s]} cannot pay {cost} GDP for "
                                    f"{ix.name_of(cid)} at {ix.name_of(partner)} slot {slot} "
                                    f"(GDP {d.gdp[s]}): it goes back to their hand.")
                    continue
                p["paid"] = self.lose(state, s, cost)
            d.board.routes[partner][slot] = [s, cid]
            p["state"] = "established"
            state.note("RouteEstablished", seat=s, card=cid, partner=partner, slot=slot,
                       paid=p["paid"],
                       says=f"{state.players[s]} established {ix.name_of(cid)} at "
                            f"{ix.name_of(partner)} slot {slot}"
                            + (f", paying {p['paid']} GDP: {d.gdp[s]}." if after and p["paid"]
                               else "."))
            fx = self.fx_job(state, cid, s, "immediate", {"route": partner})
            if fx:
                jobs.append(fx)
        d.disputes.done = True
        state.push(jobs, front=True)
        return None
