"""Trade: Exports go face-down on the Trade Partners' slots, each its own sealed choice held
until the flip; 3:00 from the first Export (or a tap on the table), the warning at 0:30; Done
when every seat is done or the buzzer sounds. Chill (Trade Warz): no timer, one Export at a
time clockwise until everyone passes in a row."""
from companion.core import args
from companion.core.errors import IllegalMoveError


class TradePhase:
    """Mixed into the Game."""

    def _begin_trade(self, state):
        d = state.data
        t = d.trade
        n = state.n
        t.over = False
        t.done = [False] * n
        t.placements = []
        d.disputes.contests = []            # last round's contests leave the screens
        t.nplaced = [0] * n
        t.aims = {}
        t.timer_started = False
        t.offers = []
        if state.config["chill"]:
            t.turn = d.first
            t.passes = 0
            self._chill_skip(state)

    def _trade_over(self, state):
        return state.data.trade.over

    def _chill_skip(self, state):
        """Chill: seats that cannot place an Export pass by themselves."""
        t = state.data.trade
        while t.passes < state.n and not self.can_place(state, t.turn):
            state.note("TurnPassed", seat=t.turn, auto=True)
            t.passes += 1
            t.turn = state.left_of(t.turn)
        if t.passes >= state.n:
            t.over = True

    def _chill_next(self, state, placed):
        t = state.data.trade
        t.passes = 0 if placed else t.passes + 1
        t.turn = state.left_of(t.turn)
        if t.passes >= state.n:
            t.over = True
        else:
            self._chill_skip(state)

    def _chill_next_step(self, state, job):
        self._chill_next(state, True)
        return None

    def _trade_open(self, state):
        if state.phase != "trade" or state.data.trade.over:
            raise IllegalMoveError("Trade is over for this round.")

    def _export_wid(self, state, seat):
        t = state.data.trade
        wid = f"export-r{state.round}-s{seat}-{t.nplaced[seat] + 1}"
        if wid not in state.windows:
            # One window per face-down Export, held sealed until the flip closes it.
            state.open_window(wid, "export", (seat,), self._export_revealed, default=None,
                              hold=True,
                              label=f"{state.players[seat]}'s face-down Export "
                                    f"{t.nplaced[seat] + 1}")
        return wid

    def open_slots(self, state, seat, partner):
        taken = set(state.data.board.routes[partner])
        mine = {p["slot"] for p in state.data.trade.placements if p["seat"] == seat and
                p["partner"] == partner}
        return [k for k in range(1, self.slots_at(state, partner) + 1)
                if k not in taken and k not in mine]

    def open_slots_all(self, state, seat):
        """``{partner: [open slot, ...]}`` for ``seat``, every Trade Partner in one pass (the
        lists are read only: where the seat has no face-down Export, the :meth:`free_slots`
        list itself)."""
        d = state.data
        mine = {}
        for p in d.trade.placements:
            if p["seat"] == seat:
                mine.setdefault(p["partner"], set()).add(p["slot"])
        out = {}
        for partner, free in self.free_slots(state).items():
            own = mine.get(partner)
            out[partner] = free if own is None else [k for k in free if k not in own]
        return out

    def free_slots(self, state):
        """``{partner: [slot, ...]}``: the slots no route holds, at every Trade Partner (derived
        from the board; read only)."""
        return state.derived("tw.free", lambda: self._free_slots(state), state.data.board)

    def _free_slots(self, state):
        routes = state.data.board.routes
        return {partner: [k for k in range(1, n + 1) if k not in routes[partner]]
                for partner, n in self.slots_table(state).items()}

    def slots_left(self, state, seat):
        if not state.config["export_slot_limit"]:
            return 99
        d = state.data
        used = self.route_count(state, seat) + sum(
            1 for p in d.trade.placements if p["seat"] == seat and p["state"] in ("down", "up"))
        return self.ix(state)[d.board.leaders[seat]].export_slots - used

    def committed(self, state, seat):
        """GDP promised to face-down Exports that are paid after the disputes (Trade Warz)."""
        total = 0
        got = None
        for p in state.data.trade.placements:
            if p["seat"] == seat and p["state"] in ("down", "up"):
                cid = p["card"] or state.windows[p["window"]].entries[seat].choice["card"]
                if got is None:
                    got = self.standing(state, seat)
                total += self.cost_of(state, seat, cid, p["partner"], got)
        return total

    def budget(self, state, seat):
        d = state.data
        if self.ix(state).rules.export_cost == "on_placement":
            return d.gdp[seat]
        return d.gdp[seat] - self.committed(state, seat)

    def can_place(self, state, seat):
        d = state.data
        ix = self.ix(state)
        exports = [c for c in d.hands[seat] if c in ix.exports]
        if not exports or self.slots_left(state, seat) <= 0:
            return False
        budget = self.budget(state, seat)
        table = self.export_options(state, seat, exports)
        for p, slots in self.open_slots_all(state, seat).items():
            if slots:
                for c in exports:
                    if table[c, p][0] <= budget:
                        return True
        return False

    def _place_export(self, state, seat, card, partner, slot):
        d = state.data
        t = d.trade
        ix = self.ix(state)
        self._trade_open(state)
        if state.config["chill"] and t.turn != seat:
            raise IllegalMoveError(f"It is {self.seat_name(state, t.turn)}'s turn to place.")
        self._in_hand(state, seat, card, "export")
        self._partner(state, partner)
        pname = ix.name_of(partner)
        args.whole(slot, "slot")
        n_slots = self.slots_at(state, partner)
        if not 1 <= slot <= n_slots:
            raise IllegalMoveError(f"{pname} has slots 1 to {n_slots} this round, not {slot}.")
        routes = d.board.routes
        if slot in routes[partner]:
            owner = routes[partner][slot][0]
            raise IllegalMoveError(f"Slot {slot} at {pname} already holds "
                                   f"{self.seat_name(state, owner)}'s route; choose an open "
                                   f"slot.")
        if any(p["seat"] == seat and p["partner"] == partner and p["slot"] == slot
               for p in t.placements):
            raise IllegalMoveError(f"You already have a card on slot {slot} at {pname}.")
        if self.slots_left(state, seat) <= 0:
            lead = ix[d.board.leaders[seat]]
            raise IllegalMoveError(f"{lead.name} has {lead.export_slots} Export slots, all in "
                                   f"use (routes and face-down Exports).")
        cost = self.cost_of(state, seat, card, partner)
        budget = self.budget(state, seat)
        if cost > budget:
            if ix.rules.export_cost == "on_placement":
                raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP at {pname}; "
                                       f"you have {d.gdp[seat]}.")
            raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP at {pname}; you have "
                                   f"{d.gdp[seat]} GDP and {d.gdp[seat] - budget} of it is "
                                   f"promised to your other face-down Exports.")
        # -- changes
        wid = f"export-r{state.round}-s{seat}-{t.nplaced[seat] + 1}"
        d.hands[seat].remove(card)
        paid = 0
        if ix.rules.export_cost == "on_placement":
            paid = self.lose(state, seat, cost)
        t.placements.append({"seat": seat, "partner": partner, "slot": slot, "window": wid,
                             "card": None, "paid": paid, "state": "down"})
        t.nplaced[seat] += 1
        t.aims.pop(seat, None)
        if not state.lean:                  # notices: only a table reads them
            state.note("ExportPlaced", seat=seat, partner=partner, slot=slot, paid=paid,
                       says=f"{state.players[seat]} placed a face-down Export at "
                            f"{pname} slot {slot}"
                            + (f", paying {paid} GDP: {d.gdp[seat]}." if paid else "."))
            state.note("YourExport", to=seat, card=card, partner=partner, slot=slot)
        if state.config["chill"]:
            # the turn moves on once the card is sealed (the next seat's budget reads it)
            state.push([{"step": "chill_next"}])
        elif not t.timer_started:
            t.timer_started = True
            state.start_timer("trade", self.trade_seconds(state),
                              warn_before=self.rules.warn_seconds)
        return {"card": card}

    def _start_trade_timer(self, state, seat):
        """A tap on the table starts the Trade timer before the first Export (same 3:00)."""
        t = state.data.trade
        self._trade_open(state)
        if state.config["chill"]:
            raise IllegalMoveError("The Chill variant plays Trade without a timer.")
        if t.timer_started:
            raise IllegalMoveError("The Trade timer is already running.")
        t.timer_started = True
        state.start_timer("trade", self.trade_seconds(state),
                          warn_before=self.rules.warn_seconds)

    def _export_revealed(self, state, window):
        for p in state.data.trade.placements:
            if p["window"] == window.id:
                c = window.revealed().get(p["seat"])
                p["card"] = c["card"] if c else None
                p["state"] = "up" if p["card"] else "void"
                return

    def _aim_export(self, state, seat, partner=None, slot=None):
        self._trade_open(state)
        aims = state.data.trade.aims
        if partner is None and slot is None:
            aims.pop(seat, None)
            return
        self._partner(state, partner)
        args.whole(slot, "slot")
        if slot not in self.open_slots(state, seat, partner):
            raise IllegalMoveError(f"Slot {slot} at {self.ix(state).name_of(partner)} is not "
                                   f"open for you.")
        aims[seat] = [partner, slot]
        state.note("ExportAimed", seat=seat, partner=partner, slot=slot)

    def _done_trade(self, state, seat):
        t = state.data.trade
        self._trade_open(state)
        t.done[seat] = True
        state.note("TradeDone", seat=seat)
        if all(t.done):
            t.over = True

    def _pass_turn(self, state, seat):
        t = state.data.trade
        self._trade_open(state)
        if not state.config["chill"] or t.turn != seat:
            raise IllegalMoveError("Only the player whose turn it is may pass.")
        state.note("TurnPassed", seat=seat)
        self._chill_next(state, False)

    def on_timer(self, state, name):
        if name == "trade" and state.phase == "trade":
            state.data.trade.over = True
            state.note("Buzzer")

    def _end_trade(self, state):
        t = state.data.trade
        state.stop_timer("trade")
        t.aims = {}
        t.offers = []
