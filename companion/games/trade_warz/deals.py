"""What a player may do any time, or any time during Trade: Tactics and the Leader's ability
("any time before Trade ends"), the Fast-Pass, and the side deals (influence for GDP; the
Diplomatic variant's card swaps and loans)."""
from companion.core import args
from companion.core.errors import IllegalMoveError

BEFORE_TRADE_ENDS = ("event", "upkeep", "draw", "policy", "trade")


class AnyTime:
    """Mixed into the Game."""

    def _before_trade_ends(self, state, what):
        d = state.data
        if state.phase == "leaders" or state.round == 0:
            raise IllegalMoveError("The game has not started yet.")
        if state.phase not in BEFORE_TRADE_ENDS or (state.phase == "trade" and d.trade.over):
            raise IllegalMoveError(f"{what} can be played only until Trade ends; Trade is "
                                   f"over this round.")
        q = state.question()
        if q is not None or d.mismatch is not None:
            who = "the table" if q is None or q["seat"] is None else \
                self.seat_name(state, q["seat"])
            raise IllegalMoveError(f"Wait until {who} has decided.")

    def _play_tactic(self, state, seat, card, target=None, partner=None, draw=None,
                     discard=None, routes=None):
        d = state.data
        ix = self.ix(state)
        self._before_trade_ends(state, "Tactics")
        self._in_hand(state, seat, card, "tactic")
        quiet = self.silenced(state, seat)
        if quiet is not None:
            raise IllegalMoveError(f"You may not play Tactics for the rest of this round "
                                   f"({ix.name_of(quiet)}).")
        cost = self.cost_of(state, seat, card)
        if cost > d.gdp[seat]:
            raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; you have "
                                   f"{d.gdp[seat]}.")
        ch = self._choices(state, seat, card, target, partner, draw, discard, routes)
        d.hands[seat].remove(card)
        self.lose(state, seat, cost)
        d.board.in_play.append({"card": card, "owner": seat,
                                "ch": {k: ch[k] for k in ("target", "partner") if k in ch}})
        on = [state.players[ch["target"]]] if ch.get("target") is not None else []
        on += [ix.name_of(ch["partner"])] if ch.get("partner") is not None else []
        state.note("TacticPlayed", seat=seat, card=card, name=ix.name_of(card), cost=cost,
                   target=ch.get("target"), partner=ch.get("partner"),
                   says=f"{state.players[seat]} played the Tactic {ix.name_of(card)}"
                        + (f" on {' at '.join(on)}" if on else "")
                        + (f" for {cost} GDP: {d.gdp[seat]}." if cost else "."))
        step = self.fx_job(state, card, seat, "immediate", ch)
        if step:
            state.push([step])

    def _activate(self, state, seat, target=None, partner=None, draw=None, discard=None,
                  routes=None):
        d = state.data
        ix = self.ix(state)
        self._before_trade_ends(state, "Leader abilities")
        lid = d.board.leaders[seat]
        lead = ix[lid]
        if not ix.steps_of(lid, "activated"):
            raise IllegalMoveError(f"{lead.ability} is not an ability you activate; it works "
                                   f"by itself.")
        if d.activated[seat]:
            raise IllegalMoveError(f"{lead.ability} works once per round; it is used.")
        ch = self._choices(state, seat, lid, target, partner, draw, discard, routes,
                           what=lead.ability)
        if any(lead.effects[i].kind == "discard" and lead.effects[i].target == "self"
               for i in ix.steps_of(lid, "activated")) and not d.hands[seat]:
            raise IllegalMoveError(f"{lead.ability} needs a card in your hand to discard.")
        d.activated[seat] = True
        state.note("AbilityActivated", seat=seat, leader=lid, ability=lead.ability,
                   target=ch.get("target"),
                   says=f"{state.players[seat]} used {lead.name}'s ability {lead.ability}"
                        + (f" on {state.players[ch['target']]}" if ch.get("target") is not None
                           else "") + ".")
        state.push([self.fx_job(state, lid, seat, "activated", ch)])

    def _use_fast_pass(self, state, seat):
        d = state.data
        self._fast_pass_ok(state, seat)
        if state.phase != "trade" or d.trade.over:
            raise IllegalMoveError("Toss your Fast-Pass in with your Policy, or during Trade.")
        d.fast_pass[seat] = False
        d.locked[seat] = True
        state.note("FastPassUsed", seat=seat, says=self.fast_pass_words(state, seat))

    @staticmethod
    def fast_pass_words(state, seat):
        return (f"{state.players[seat]} used the Fast-Pass token: their board is locked this "
                f"round.")

    def _trade_deal(self, state, seat, what):
        self._trade_open(state)
        if state.question() is not None:
            raise IllegalMoveError("Wait until the decision on the table is made.")
        if self.v2(state) and not state.config["chill"] and state.data.trade.done[seat]:
            raise IllegalMoveError("You are done trading: Done is final for deals too.")

    def _offer_influence(self, state, seat, to, partner, amount, price, side="sell"):
        d = state.data
        ix = self.ix(state)
        if not ix.rules.influence_accumulates:
            raise IllegalMoveError(f"{ix.edition.title} does not track influence beyond the "
                                   f"printed values; it cannot be traded.")
        self._trade_deal(state, seat, "influence")
        self._seat(state, to, "buyer" if side == "sell" else "seller")
        if to == seat:
            raise IllegalMoveError("Trade influence with another player.")
        self._partner(state, partner)
        if args.whole(amount, "amount") < 1:
            raise IllegalMoveError("Trade at least 1 influence.")
        if args.whole(price, "price") < 0:
            raise IllegalMoveError("A price is 0 GDP or more.")
        if side not in ("sell", "buy"):
            raise IllegalMoveError("side: sell or buy.")
        seller = seat if side == "sell" else to
        have = d.influence[seller].get(partner, 0)
        if have < amount:
            raise IllegalMoveError(f"{self.seat_name(state, seller)} has {have} influence "
                                   f"with {ix.name_of(partner)}, not {amount}.")
        d.offer_seq += 1
        d.trade.offers.append({"id": d.offer_seq, "kind": "influence", "from": seat, "to": to,
                         "side": side, "partner": partner, "amount": amount, "price": price})
        state.note("InfluenceOffered", offer=d.offer_seq, seat=seat, to=to, side=side,
                   partner=partner, amount=amount, price=price)

    def _find_offer(self, state, seat, offer, kind):
        for o in state.data.trade.offers:
            if o["id"] == offer and o["kind"] == kind:
                if o["to"] != seat:
                    raise IllegalMoveError("That offer was not made to you.")
                return o
        raise IllegalMoveError(f"There is no open offer {offer!r}.")

    def _answer_offer(self, state, seat, offer, accept):
        d = state.data
        ix = self.ix(state)
        self._trade_deal(state, seat, "influence")
        o = self._find_offer(state, seat, offer, "influence")
        args.flag(accept, "accept")
        if not accept:
            d.trade.offers.remove(o)
            state.note("OfferDeclined", offer=o["id"], seat=seat)
            return
        seller, buyer = (o["from"], o["to"]) if o["side"] == "sell" else (o["to"], o["from"])
        p = o["partner"]
        short_inf = d.influence[seller].get(p, 0) < o["amount"]
        short_gdp = d.gdp[buyer] < o["price"]
        if seller == seat and short_inf:
            raise IllegalMoveError(f"You have {d.influence[seat].get(p, 0)} influence with "
                                   f"{ix.name_of(p)}, not the {o['amount']} asked.")
        if buyer == seat and short_gdp:
            raise IllegalMoveError(f"You have {d.gdp[seat]} GDP, not the {o['price']} asked.")
        d.trade.offers.remove(o)
        if short_inf or short_gdp:
            # the offer's maker can no longer keep it: it lapses
            state.note("OfferLapsed", offer=o["id"], seat=o["from"])
            return
        d.influence[seller][p] -= o["amount"]
        d.influence[buyer][p] = d.influence[buyer].get(p, 0) + o["amount"]
        self.lose(state, buyer, o["price"])
        state.note("InfluenceTraded", seller=seller, buyer=buyer, partner=p,
                   amount=o["amount"], price=o["price"],
                   says=f"{state.players[buyer]} bought {o['amount']} influence with "
                        f"{ix.name_of(p)} from {state.players[seller]} for {o['price']} GDP: "
                        f"{state.players[buyer]} {d.gdp[buyer]}, {state.players[seller]} "
                        f"{d.gdp[seller] + o['price']}.")
        self.gain(state, seller, o["price"])

    def _diplomatic(self, state, seat):
        if not state.config["diplomatic"]:
            raise IllegalMoveError("Card swaps and loans are for the Diplomatic variant.")
        self._trade_deal(state, seat, "diplomacy")

    def _offer_swap(self, state, seat, to, give):
        d = state.data
        self._diplomatic(state, seat)
        self._seat(state, to, "player to swap with")
        if to == seat:
            raise IllegalMoveError("Swap cards with another player.")
        self._in_hand(state, seat, give)
        d.offer_seq += 1
        d.trade.offers.append({"id": d.offer_seq, "kind": "swap", "from": seat, "to": to,
                         "give": give})
        state.note("SwapOffered", offer=d.offer_seq, seat=seat, to=to)
        state.note("SwapOffer", to=to, offer=d.offer_seq, card=give)

    def _answer_swap(self, state, seat, offer, give=None):
        d = state.data
        self._diplomatic(state, seat)
        o = self._find_offer(state, seat, offer, "swap")
        if give is None:
            d.trade.offers.remove(o)
            state.note("OfferDeclined", offer=o["id"], seat=seat)
            return
        self._in_hand(state, seat, give)
        if o["give"] not in d.hands[o["from"]]:
            d.trade.offers.remove(o)
            state.note("OfferLapsed", offer=o["id"], seat=o["from"])
            return
        d.hands[o["from"]].remove(o["give"])
        d.hands[seat].remove(give)
        d.hands[o["from"]].append(give)
        d.hands[seat].append(o["give"])
        d.trade.offers.remove(o)
        pl, name = state.players, self.ix(state).name_of
        state.note("CardsSwapped", seats=[o["from"], seat],
                   says=f"{pl[o['from']]} and {pl[seat]} swapped a card.")
        state.note("SwapDone", to=o["from"], got=give, gave=o["give"],
                   says=f"You gave {name(o['give'])} to {pl[seat]} for {name(give)}.")
        state.note("SwapDone", to=seat, got=o["give"], gave=give,
                   says=f"You gave {name(give)} to {pl[o['from']]} for {name(o['give'])}.")

    def _note_loan(self, state, seat, to, amount, terms=""):
        d = state.data
        self._diplomatic(state, seat)
        self._seat(state, to, "borrower")
        if to == seat:
            raise IllegalMoveError("Lend to another player.")
        if args.whole(amount, "amount") < 1 or amount > d.gdp[seat]:
            raise IllegalMoveError(f"Lend from 1 to {d.gdp[seat]} GDP.")
        if not isinstance(terms, str) or len(terms) > 200:
            raise IllegalMoveError("terms: a short text.")
        self.lose(state, seat, amount)
        d.loans.append({"round": state.round, "from": seat, "to": to, "amount": amount,
                        "terms": terms})
        # (the borrower is ``borrower``: ``to`` would address the notice to them alone)
        state.note("LoanNoted", seat=seat, borrower=to, amount=amount, terms=terms,
                   says=f"{state.players[seat]} lent {amount} GDP to {state.players[to]}"
                        + (f" ({terms})" if terms else "") + f": {state.players[seat]} "
                        f"{d.gdp[seat]}, {state.players[to]} {d.gdp[to] + amount}.")
        self.gain(state, to, amount)
