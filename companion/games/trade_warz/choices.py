"""What each Trade Warz move may be, as argument specs (``companion/core/choices.py``): the
phone page and the table screen draw their pickers from them, so nobody types an id.

Every picker offers only what the rules accept at this moment (a test plays whole games by
tapping nothing else); what is visible but not possible now carries ``disabled`` with the
reason. A seat's specs name only its own hand and public facts; the table's name only what is
public (docs/trade-warz.md, "Pickers").

These functions run only when a view is built, never when a bot plays a simulation.
"""
from companion.core import choices as C

from .effects import PILE_TITLES

KIND_WORD = {"export": "Export", "policy": "Policy", "tactic": "Tactic"}
_ABILITY = {}       # (edition, Leader) -> (has an activated ability, it discards from the hand)


class Choices:
    """Mixed into the Game: ``_ch_<move>(state, seat)`` for every move, and
    :meth:`any_time_moves`."""

    # -- small pieces ---------------------------------------------------------------------------
    def _card_detail(self, state, seat, cid):
        ix = self.ix(state)
        c = ix[cid]
        parts = [KIND_WORD[c.kind], f"cost {self.cost_of(state, seat, cid)}"]
        if c.kind == "export":
            parts.append(f"value {c.value} · influence {c.influence}")
            if c.tags:
                parts.append(", ".join(c.tags))
        text = " · ".join(parts)
        return f"{text}. {c.text}" if c.text else text

    def _card_option(self, state, seat, cid, disabled=None):
        ix = self.ix(state)
        extra = {"kind": ix[cid].kind}
        if disabled:
            extra["disabled"] = disabled
        return C.option(cid, ix.name_of(cid), self._card_detail(state, seat, cid), **extra)

    def _seat_opts(self, state, seats):
        d = state.data
        ix = self.ix(state)
        out = []
        for s in seats:
            lid = d.board.leaders[s]
            out.append(C.option(s, state.players[s],
                                f"{ix.name_of(lid)} · {d.gdp[s]} GDP" if lid else None))
        return out

    def _partner_opts(self, state, partners, **when):
        ix = self.ix(state)
        out = []
        for p in partners:
            pt = ix[p]
            detail = f"bonus +{pt.bonus} · {self.slots_at(state, p)} slots"
            if pt.text:
                detail += f" · {pt.text}"
            out.append(C.option(p, pt.name, detail, when=when or None))
        return out

    def _pile_opts(self, state, piles):
        return [C.option(p, PILE_TITLES[p].capitalize(), f"{n} left", max=n)
                for p, n in piles.items()]

    def _hand_distinct(self, state, seat, without=None):
        hand = list(state.data.hands[seat])
        if without is not None and without in hand:
            hand.remove(without)
        return list(dict.fromkeys(hand)), hand

    def _needs_specs(self, state, seat, cards, when_key="card",
                     extras=("draw", "discard", "routes")):
        """target / partner / draw / discard / routes for the cards that need them, each with
        ``when`` on the card (what ``_choices`` checks when the card is played)."""
        ix = self.ix(state)
        specs = []
        by_mode = {}
        partner_cards = []
        for cid in cards:
            mode, needs_partner = ix.needs[cid]
            if mode is not None:
                by_mode.setdefault(mode, []).append(cid)
            if needs_partner:
                partner_cards.append(cid)
        legal = {}
        for mode, cids in by_mode.items():
            legal[mode] = self.legal_targets(state, seat, mode)
            if legal[mode]:
                specs.append(C.one("target", self._seat_opts(state, legal[mode]),
                                   "Against whom?" if mode == "opponent" else "Which player?",
                                   when={when_key: cids}))
        if partner_cards:
            specs.append(C.one("partner", self._partner_opts(state, ix.partners),
                               "Which Trade Partner?", when={when_key: partner_cards}))
        for cid in cards:
            specs += [x for x in self._extras(state, seat, cid, legal, when_key)
                      if x["name"] in extras]
        return specs

    def _first_effect(self, item, kinds, targets, whens=("immediate", "activated")):
        """``(index, effect)`` of the card's first such effect, or ``(None, None)``."""
        for i, e in enumerate(item.effects):
            if e.kind in kinds and e.target in targets and e.when in whens:
                return i, e
        return None, None

    def _extras(self, state, seat, cid, legal, when_key):
        """Optional choices a card can take with it (the engine asks later otherwise), in the
        order of the card's effects."""
        ix = self.ix(state)
        item = ix[cid]
        when = {when_key: [cid]}
        out = []
        i, e = self._first_effect(item, ("draw",), ("self",))
        if e is not None and (e.deck or "any") == "any":
            piles = self.piles_for(state, seat)
            if len(piles) > 1:
                total = min(e.count, sum(piles.values()))
                out.append((i, C.counts("draw", self._pile_opts(state, piles),
                                        f"Draw {total} from which piles?", total=total,
                                        when=when, optional=True)))
        i, e = self._first_effect(item, ("discard",), ("self",))
        if e is not None and not e.random:
            distinct, hand = self._hand_distinct(state, seat, without=cid)
            k = min(e.count, len(distinct))
            needs_hand = item.kind == "leader"      # an ability that discards needs a card
            if needs_hand:
                k = max(1, k)
            if k:
                out.append((i, C.subset("discard", [self._card_option(state, seat, c)
                                                    for c in distinct], k, k,
                                        f"Discard {e.count} card{'s' if e.count > 1 else ''}",
                                        when=when, optional=not needs_hand or None)))
        i, e = self._first_effect(item, ("destroy_route", "remove_route"), ("opponent", "any"))
        if e is not None and e.partner != "chosen":
            opts = []
            for x in legal.get(e.target if e.target == "any" else "opponent", ()):
                cands = self.route_targets(state, e, x)
                if len(cands) > e.count:
                    opts += [self._route_option(state, r, when={"target": [x]})
                             for r in cands]
            if opts:
                out.append((i, C.subset("routes", opts, e.count, e.count,
                                        f"Which route{'s' if e.count > 1 else ''}?",
                                        when=when, optional=True)))
        return [spec for _, spec in sorted(out, key=lambda x: x[0])]

    def _route_option(self, state, r, when=None):
        d = state.data
        ix = self.ix(state)
        p, slot = r
        s, cid = d.board.routes[p][slot]
        return C.option([p, slot], f"{state.players[s]}'s {ix.name_of(cid)} at "
                                   f"{ix.name_of(p)} slot {slot}", when=when)

    # -- the Leader pick ----------------------------------------------------------------------
    def _ch_pick_leader(self, state, seat):
        ix = self.ix(state)
        lids = list(ix.leaders)
        opts, rest = [], []
        for lid in lids:
            lead = ix[lid]
            draw = f"hand {lead.hand_size}" if ix.rules.draw == "up_to_hand_size" \
                else f"draws {lead.draw}"
            detail = f"{draw} · {lead.export_slots} Export slots · {lead.ability}: {lead.text}"
            if lead.prototype:
                detail += " (prototype)"
            opts.append(C.option(lid, lead.name, detail))
            rest.append(C.option(lid, lead.name, when={"leader": [x for x in lids
                                                                  if x != lid]}))
        return [C.one("leader", opts, "Which Leader do you wish for?"),
                C.order("ranking", rest, 0, len(lids) - 1,
                        "If it is taken: your next wishes, in order", optional=True)]

    # -- Draw -----------------------------------------------------------------------------------
    def _ch_draw_cards(self, state, seat):
        d = state.data
        a = state.question()
        if a is not None and a["kind"] == "draw" and a["seat"] == seat:
            count = a["count"]
        else:
            count = d.draw.to_draw[seat]
        piles = self.piles_for(state, seat)
        total = min(count, sum(piles.values()))
        return [C.counts("split", self._pile_opts(state, piles),
                         f"Draw {total} card{'s' if total != 1 else ''}: how many from each "
                         f"pile?", total=total)]

    # -- Policy ---------------------------------------------------------------------------------
    def _ch_choose_policy(self, state, seat):
        d = state.data
        ix = self.ix(state)
        opts, ok = [], []
        for cid in dict.fromkeys(c for c in d.hands[seat] if c in ix.policies):
            cost = self.cost_of(state, seat, cid)
            why = f"costs {cost} GDP; you have {d.gdp[seat]}" if cost > d.gdp[seat] else None
            opts.append(self._card_option(state, seat, cid, why))
            if why is None:
                ok.append(cid)
        opts.append(C.option(None, "No Policy this round"))
        specs = [C.one("card", opts, "Which Policy?")]
        if ix.rules.fast_pass and state.config["fast_pass"] and d.fast_pass[seat]:
            specs.append(C.flag("fast_pass", "Toss in your Fast-Pass (no opponent may target "
                                             "you this round)", optional=True))
        return specs + self._needs_specs(state, seat, ok, extras=("draw",))

    def _ch_order_policies(self, state, seat):
        d = state.data
        ix = self.ix(state)
        seats = state.question()["seats"] if state.question() else []
        opts = [C.option(s, f"{state.players[s]}: {ix.name_of(d.pol.revealed[s]['card'])}")
                for s in seats]
        nth = ("first", "second", "third", "fourth", "fifth", "sixth")
        picks = [f"Which Policy resolves {nth[i] if i < len(nth) else f'{i + 1}th'}?"
                 for i in range(len(seats))]
        if picks:
            picks[-1] = "Which Policy resolves last?" if len(picks) > 1 else picks[-1]
        return [C.order("order", opts, len(seats), len(seats),
                        "In which order do the Policies resolve? (first to last)",
                        pick_labels=picks)]

    # -- Trade ----------------------------------------------------------------------------------
    def _ch_place_export(self, state, seat):
        d = state.data
        ix = self.ix(state)
        exports = list(dict.fromkeys(c for c in d.hands[seat] if c in ix.exports))
        open_ = {p: k for p, k in self.open_slots_all(state, seat).items() if k}
        budget = self.budget(state, seat)
        table = self.export_options(state, seat, exports)
        full = self.slots_left(state, seat) <= 0
        card_opts, at = [], {p: [] for p in open_}
        for c in exports:
            here = [p for p in open_ if table[c, p][0] <= budget]
            for p in here:
                at[p].append(c)
            why = None
            if full:
                lead = ix[d.board.leaders[seat]]
                why = f"all {lead.export_slots} of {lead.name}'s Export slots are in use"
            elif not open_:
                why = "no open slot anywhere"
            elif not here:
                cheapest = min(table[c, p][0] for p in open_)
                why = f"costs {cheapest} GDP or more; you can spend {budget}"
            card_opts.append(self._card_option(state, seat, c, why))
        partner_opts = []
        for p in open_:
            if at[p]:
                pt = ix[p]
                partner_opts.append(C.option(p, pt.name, f"bonus +{pt.bonus} · "
                                             f"{self.slots_at(state, p)} slots" +
                                             (f" · {pt.text}" if pt.text else ""),
                                             when={"card": at[p]}))
        down = {}
        for x in d.trade.placements:
            if x["state"] == "down" and x["seat"] != seat:
                down.setdefault((x["partner"], x["slot"]), []).append(state.players[x["seat"]])
        slot_opts = {}
        for p, ks in open_.items():
            if not at[p]:
                continue
            for k in ks:
                rivals = down.get((p, k))
                key = (k, ", ".join(rivals) if rivals else "")
                slot_opts.setdefault(key, []).append(p)
        slots = [C.option(k, f"Slot {k}", f"contested: {who} has a card here" if who else None,
                          when={"partner": ps})
                 for (k, who), ps in sorted(slot_opts.items())]
        return [C.one("card", card_opts, "Which Export?"),
                C.one("partner", partner_opts, "At which Trade Partner?"),
                C.one("slot", slots, "On which slot?")]

    def _ch_aim_export(self, state, seat):
        open_ = {p: k for p, k in self.open_slots_all(state, seat).items() if k}
        opts = self._partner_opts(state, open_)
        if state.data.trade.aims.get(seat):
            opts.append(C.option(None, "Clear my aim"))
        slots = {}
        for p, ks in open_.items():
            for k in ks:
                slots.setdefault(k, []).append(p)
        return [C.one("partner", opts, "Where does your next scanned Export go?"),
                C.one("slot", [C.option(k, f"Slot {k}", when={"partner": ps})
                               for k, ps in sorted(slots.items())], "Which slot?",
                      when={"partner": list(open_)})]

    def _ch_play_tactic(self, state, seat):
        d = state.data
        ix = self.ix(state)
        quiet = self.silenced(state, seat)
        opts, ok = [], []
        for cid in dict.fromkeys(c for c in d.hands[seat] if c in ix.tactics):
            cost = self.cost_of(state, seat, cid)
            why = None
            if quiet is not None:
                why = f"{ix.name_of(quiet)}: no Tactics for you this round"
            elif cost > d.gdp[seat]:
                why = f"costs {cost} GDP; you have {d.gdp[seat]}"
            opts.append(self._card_option(state, seat, cid, why))
            if why is None:
                ok.append(cid)
        return [C.one("card", opts, "Which Tactic?")] + self._needs_specs(state, seat, ok)

    def _ch_activate_ability(self, state, seat):
        lid = state.data.board.leaders[seat]
        ability = self.ix(state)[lid].ability
        specs = [_drop_when(s) for s in self._needs_specs(state, seat, [lid], "leader")]
        for s in specs:
            s["label"] = f"{ability}: {s['label'][0].lower()}{s['label'][1:]}"
        return specs

    def _ch_offer_influence(self, state, seat):
        d = state.data
        ix = self.ix(state)
        others = [s for s in range(state.n) if s != seat]
        mine = {p: k for p, k in d.influence[seat].items() if k > 0}
        theirs = {t: {p: k for p, k in d.influence[t].items() if k > 0} for t in others}
        sides = []
        if mine:
            sides.append(C.option("sell", "Sell my influence"))
        holders = [t for t in others if theirs[t]]
        if holders:
            sides.append(C.option("buy", "Buy their influence", when={"to": holders}))
        partner_opts, amounts = [], []
        for p in ix.partners:
            if p in mine:
                partner_opts.append(C.option(p, ix.name_of(p), f"you have {mine[p]}",
                                             when={"side": ["sell"]}))
                amounts.append(C.number("amount", 1, mine[p], "How much influence?",
                                        when={"side": ["sell"], "partner": [p]}))
            who = [t for t in holders if p in theirs[t]]
            if who:
                partner_opts.append(C.option(p, ix.name_of(p), when={"side": ["buy"],
                                                                     "to": who}))
                for t in who:
                    amounts.append(C.number("amount", 1, theirs[t][p], "How much influence?",
                                            when={"side": ["buy"], "to": [t], "partner": [p]}))
        return [C.one("to", self._seat_opts(state, others), "With whom?"),
                C.one("side", sides, "Sell or buy?"),
                C.one("partner", partner_opts, "Influence with which Trade Partner?"),
                *amounts,
                C.number("price", 0, 30, "For how much GDP?")]

    def _offer_text(self, state, o):
        ix = self.ix(state)
        who = state.players[o["from"]]
        verb = "sells you" if o["side"] == "sell" else "buys from you"
        return (f"{who} {verb} {o['amount']} influence with {ix.name_of(o['partner'])} for "
                f"{o['price']} GDP")

    def _ch_answer_offer(self, state, seat):
        d = state.data
        offers = [o for o in d.trade.offers if o["kind"] == "influence" and o["to"] == seat]
        ok, bad = [], {}
        for o in offers:
            seller, buyer = (o["from"], seat) if o["side"] == "sell" else (seat, o["from"])
            if seller == seat and d.influence[seat].get(o["partner"], 0) < o["amount"]:
                bad[o["id"]] = (f"you have {d.influence[seat].get(o['partner'], 0)} "
                                f"influence there")
            elif buyer == seat and d.gdp[seat] < o["price"]:
                bad[o["id"]] = f"you have {d.gdp[seat]} GDP"
            else:
                ok.append(o["id"])
        accept = [C.option(False, "Decline")]
        if ok:
            accept.insert(0, C.option(True, "Accept", when={"offer": ok}))
        for oid, why in bad.items():
            accept.insert(0, C.option(True, "Accept", disabled=why, when={"offer": [oid]}))
        return [C.one("offer", [C.option(o["id"], self._offer_text(state, o)) for o in offers],
                      "Which offer?"),
                C.one("accept", accept, "Your answer")]

    def _ch_offer_swap(self, state, seat):
        distinct, _ = self._hand_distinct(state, seat)
        return [C.one("to", self._seat_opts(state, [s for s in range(state.n) if s != seat]),
                      "Swap with whom?"),
                C.one("give", [self._card_option(state, seat, c) for c in distinct],
                      "Which of your cards do you offer?")]

    def _ch_answer_swap(self, state, seat):
        d = state.data
        ix = self.ix(state)
        offers = [o for o in d.trade.offers if o["kind"] == "swap" and o["to"] == seat]
        distinct, _ = self._hand_distinct(state, seat)
        give = [self._card_option(state, seat, c) for c in distinct]
        give.append(C.option(None, "Decline the swap"))
        return [C.one("offer", [C.option(o["id"], f"{state.players[o['from']]} offers "
                                                  f"{ix.name_of(o['give'])}")
                                for o in offers], "Which swap offer?"),
                C.one("give", give, "Give which card in return?")]

    def _ch_note_loan(self, state, seat):
        d = state.data
        return [C.one("to", self._seat_opts(state, [s for s in range(state.n) if s != seat]),
                      "Lend to whom?"),
                C.number("amount", 1, d.gdp[seat], "How much GDP, handed over now?"),
                C.text("terms", "The terms you agree (not binding)", max_len=200,
                       optional=True)]

    # -- Disputes -------------------------------------------------------------------------------
    def _ch_choose_dispute(self, state, seat):
        d = state.data
        return [C.one("contest", [C.option(c["id"], self.contest_label(state, c))
                                  for c in d.disputes.contests
                                  if c["state"] == "open" and seat in c["seats"]],
                      "Which dispute now?")]

    def _ch_bid(self, state, seat):
        return [C.number("amount", 0, state.data.gdp[seat], "Your blind bid (GDP)")]

    # -- answers to an effect's question ---------------------------------------------------------
    def _ask_source(self, state):
        a = state.question() or {}
        return self.ix(state).name_of(a["source"]) if a.get("source") else "the effect"

    def _ch_choose_target(self, state, seat):
        a = state.question()
        return [C.one("target", self._seat_opts(state, a["options"]),
                      f"{self._ask_source(state)}: whom?")]

    def _ch_choose_partner(self, state, seat):
        a = state.question()
        return [C.one("partner", self._partner_opts(state, a["options"]),
                      f"{self._ask_source(state)}: which Trade Partner?")]

    def _ch_choose_optional(self, state, seat):
        a = state.question()
        return [C.one("accept", [C.option(True, "Yes", a.get("text")), C.option(False, "No")],
                      f"{self._ask_source(state)}: do it?")]

    def _ch_discard_cards(self, state, seat):
        d = state.data
        want = min(state.question()["count"], len(d.hands[seat]))
        distinct, hand = self._hand_distinct(state, seat)
        label = f"Discard {want} card{'s' if want != 1 else ''} ({self._ask_source(state)})" \
            if state.question().get("source") != "hand-limit" else \
            f"Discard {want} card{'s' if want != 1 else ''} (hand limit)"
        if len(distinct) == len(hand):
            return [C.subset("cards", [self._card_option(state, seat, c) for c in distinct],
                             want, want, label)]
        opts = [dict(self._card_option(state, seat, c), max=hand.count(c)) for c in distinct]
        return [C.counts("cards", opts, label, total=want)]

    def _ch_choose_routes(self, state, seat):
        a = state.question()
        return [C.subset("routes", [self._route_option(state, r) for r in a["options"]],
                         a["count"], a["count"],
                         f"{self._ask_source(state)}: which route"
                         f"{'s' if a['count'] > 1 else ''}?")]

    # -- the table ------------------------------------------------------------------------------
    def _ch_adjust(self, state, seat):
        d = state.data
        ix = self.ix(state)
        a = state.question() or {}
        seats = [s for s in (a.get("targets") or range(state.n)) if isinstance(s, int)]
        what = [C.option("gdp", "GDP")]
        if "dispute" in a:
            what.append(C.option("power", "Dispute power"))
        if ix.rules.influence_accumulates:
            what.append(C.option("influence", "Influence"))
        if "dispute" in a:
            seats = list(d.disputes.contests[a["dispute"]]["seats"])
        return [C.one("what", what, "Change what?"),
                C.one("player", self._seat_opts(state, seats), "For whom?"),
                C.one("partner", self._partner_opts(state, ix.partners),
                      "Influence with which Trade Partner?", when={"what": ["influence"]}),
                C.number("by", -10, 10, "By how much (minus: less)?")]

    def _ch_scan_card(self, state, seat):
        """The cards the table expects to be scanned now (for a broken reader)."""
        d = state.data
        ix = self.ix(state)
        opts = {}
        if state.phase == "policy" and d.pol.check:
            for s, c in sorted(d.pol.revealed.items()):
                cid = c.get("card")
                if cid and s not in d.pol.confirmed:
                    opts.setdefault(cid, []).append(state.players[s])
        elif state.phase == "exports" and d.disputes.check:
            for p in d.trade.placements:
                if p["state"] == "up" and not p.get("checked"):
                    opts.setdefault(p["card"], []).append(
                        f"{state.players[p['seat']]} at {ix.name_of(p['partner'])} slot "
                        f"{p['slot']}")
        return [C.one("card", [C.option(cid, ix.name_of(cid), "; ".join(where))
                               for cid, where in opts.items()], "Which card is it?")]

    def _ch_settle_mismatch(self, state, seat):
        d = state.data
        ix = self.ix(state)
        m = d.mismatch
        if m is None:
            return []
        s = m["seat"]
        scanned = ix.name_of(m["scanned"])
        chosen = ix.name_of(m["chosen"]) if m["chosen"] else "no Policy"
        specs = []
        if m["kind"] == "export" and len(m["options"]) > 1:
            specs.append(C.one("placement", [
                C.option(i, f"{state.players[d.trade.placements[i]['seat']]}'s "
                            f"{ix.name_of(d.trade.placements[i]['card'])} at "
                            f"{ix.name_of(d.trade.placements[i]['partner'])} slot "
                            f"{d.trade.placements[i]['slot']}") for i in m["options"]],
                "Which flipped Export was it?"))
        keep = [C.option("chosen", f"Keep the phone's choice: {chosen}")]
        if m["kind"] == "policy":
            why = self._scanned_problem(state, s, m["scanned"], None, 0)
            keep.insert(0, C.option("scanned", f"Keep the scanned card: {scanned}",
                                    **({"disabled": why} if why else {})))
        else:
            placements = m["options"] if len(m["options"]) > 1 else [m["placement"]]
            for i in placements:
                p = d.trade.placements[i]
                why = self._scanned_problem(state, p["seat"], m["scanned"], p["partner"],
                                            p["paid"])
                when = {"placement": [i]} if len(placements) > 1 else None
                keep.insert(0, C.option("scanned", f"Keep the scanned card: {scanned}",
                                        when=when, **({"disabled": why} if why else {})))
        return specs + [C.one("keep", keep, f"{state.players[s]}: which card counts?")]

    def _scanned_problem(self, state, s, card, partner, paid):
        """Why the scanned card cannot be kept for seat ``s`` (None: it can)."""
        d = state.data
        ix = self.ix(state)
        if card not in d.hands[s]:
            return f"{ix.name_of(card)} is not in {state.players[s]}'s hand"
        if ix[card].kind == "policy":
            cost = self.cost_of(state, s, card)
            if cost > d.gdp[s]:
                return f"it costs {cost} GDP; {state.players[s]} has {d.gdp[s]}"
        elif ix.rules.export_cost == "on_placement":
            cost = self.cost_of(state, s, card, partner)
            if cost > d.gdp[s] + paid:
                return f"it costs {cost} GDP; {state.players[s]} cannot pay it"
        return None

    # -- any-time moves ---------------------------------------------------------------------------
    def any_time_moves(self, state, seat):
        """Tactics and Leader abilities any time before Trade ends (not while a decision is
        pending), the Fast-Pass and the side deals during Trade; for the table, starting the
        Trade timer before the first Export."""
        d = state.data
        if state.outcome is not None or d is None or state.round == 0:
            return ()
        trading = state.phase == "trade" and not d.trade.over
        if seat is None:
            if trading and not state.config["chill"] and not d.trade.timer_started:
                return ("start_trade_timer",)
            return ()
        if state.phase not in ("event", "upkeep", "draw", "policy", "trade") or \
                (state.phase == "trade" and d.trade.over) or state.question() is not None or \
                d.mismatch is not None:
            return ()
        out = []
        if self.can_play_tactic(state, seat):
            out.append("play_tactic")
        if self.can_activate(state, seat):
            out.append("activate_ability")
        if trading:
            ix = self.ix(state)
            cfg = state.config
            if ix.rules.fast_pass and cfg["fast_pass"] and d.fast_pass[seat]:
                out.append("use_fast_pass")
            if cfg["chill"] or not d.trade.done[seat]:         # Done is final for deals
                out += list(self.deal_moves(state, seat))
        return tuple(out)

    def can_play_tactic(self, state, seat):
        d = state.data
        ix = self.ix(state)
        if self.silenced(state, seat) is not None:
            return False
        mine = [c for c in d.hands[seat] if c in ix.tactics]
        if not mine:
            return False
        got = self.standing(state, seat)
        return any(self.cost_of(state, seat, c, None, got) <= d.gdp[seat] for c in mine)

    def can_activate(self, state, seat):
        d = state.data
        if d.activated[seat]:
            return False
        ix = self.ix(state)
        lid = d.board.leaders[seat]
        got = _ABILITY.get((ix.name, lid))
        if got is None:
            steps = ix.steps_of(lid, "activated")
            got = _ABILITY[ix.name, lid] = (bool(steps), any(
                ix[lid].effects[i].kind == "discard" and ix[lid].effects[i].target == "self"
                for i in steps))
        has, needs_hand = got
        return has and (not needs_hand or bool(d.hands[seat]))

    def deal_facts(self, state):
        """What the side deals depend on, once for every seat: (anyone holds influence,
        {seat: kinds of offers made to it})."""
        d = state.data
        to = {}
        for o in d.trade.offers:
            to.setdefault(o["to"], set()).add(o["kind"])
        inf = self.ix(state).rules.influence_accumulates and \
            any(k > 0 for i in d.influence for k in i.values())
        return inf, to

    def deal_moves(self, state, seat, facts=None):
        """The side deals ``seat`` can make or answer now (Trade), as a tuple."""
        d = state.data
        inf, to = facts or self.deal_facts(state)
        mine = to.get(seat, ())
        out = ()
        if self.ix(state).rules.influence_accumulates:
            if inf:
                out += ("offer_influence",)
            if "influence" in mine:
                out += ("answer_offer",)
        if state.config["diplomatic"]:
            if d.hands[seat]:
                out += ("offer_swap",)
            if "swap" in mine:
                out += ("answer_swap",)
            if d.gdp[seat] > 0:
                out += ("note_loan",)
        return out


def _drop_when(spec):
    """A Leader ability's specs are the card's own: no ``when`` on the card."""
    spec = dict(spec)
    spec.pop("when", None)
    return spec
