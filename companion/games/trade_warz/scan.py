"""The card reader: what the cards on the table say agrees with what the phones said. A scan
during Trade places the Export its holder aimed; a scan at the Policy reveal or the Export flip
confirms a card, or flags a mismatch the table settles (keep the scanned card or the phone's
choice). docs/trade-warz.md, "Scanning cards"."""
from companion.core.errors import IllegalMoveError


class Scans:
    """Mixed into the Game."""

    def scan_move(self, state, card_id):
        """A scanned card, as a command (see docs/trade-warz.md, "Scanning cards").

        * Trade: an Export held by the one seat that has aimed (``aim_export``) places it there,
          face-down, as that seat's sealed move.
        * Policy reveal / Export flip: the table checks the card against what the phones said
          (``scan_card``): it confirms, or flags a mismatch for the table to settle.
        * Anything else: not a command (None); the hub shows the scan.
        """
        d = state.data
        if d is None or state.outcome is not None or not isinstance(card_id, str):
            return None
        ix = self.ix(state)
        if card_id not in ix.items:
            return None
        if state.phase == "trade" and card_id in ix.exports and not d.trade.over:
            aims = d.trade.aims
            holders = [s for s, aim in sorted(aims.items()) if card_id in d.hands[s]]
            if len(holders) == 1:
                s = holders[0]
                partner, slot = aims[s]
                return s, "place_export", {"card": card_id, "partner": partner, "slot": slot}
            return None, "scan_card", {"card": card_id}
        if (state.phase == "policy" and d.pol.check) or \
                (state.phase == "exports" and d.disputes.check):
            return None, "scan_card", {"card": card_id}
        return None

    def _scan_card(self, state, seat, card):
        d = state.data
        ix = self.ix(state)
        if not isinstance(card, str) or card not in ix.items:
            raise IllegalMoveError(f"{card!r} is not a {ix.edition.title} card.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the card already flagged first.")
        if state.phase == "trade" and card in ix.exports and not d.trade.over:
            raise IllegalMoveError("To place an Export by scanning it, first choose its Trade "
                                   "Partner and slot on your phone, then scan it (only one "
                                   "player holding that card may be aiming).")
        if state.phase == "policy" and d.pol.check:
            return self._check_policy_scan(state, card)
        if state.phase == "exports" and d.disputes.check:
            return self._check_export_scan(state, card)
        raise IllegalMoveError("Nothing to check now: scan Policies when they are revealed and "
                               "Exports when they are flipped.")

    def _check_policy_scan(self, state, card):
        d = state.data
        ix = self.ix(state)
        if card not in ix.policies:
            raise IllegalMoveError(f"{ix.name_of(card)} is not a Policy.")
        pr = d.pol
        chosen = {s: c.get("card") for s, c in pr.revealed.items()}
        for s in sorted(chosen):
            if chosen[s] == card and s not in pr.confirmed:
                pr.confirmed.append(s)
                state.note("ScanConfirmed", seat=s, card=card)
                return
        holders = [s for s in range(state.n) if card in d.hands[s] and chosen.get(s) != card
                   and s not in pr.confirmed]
        if len(holders) != 1:
            raise IllegalMoveError(f"{ix.name_of(card)} is not the Policy anyone chose, and the "
                                   f"table cannot tell whose card it is; check it by hand.")
        s = holders[0]
        d.mismatch = {"kind": "policy", "seat": s, "chosen": chosen.get(s), "scanned": card}
        state.note("ScanMismatch", what="policy", seat=s, chosen=chosen.get(s), scanned=card)

    def _check_export_scan(self, state, card):
        d = state.data
        ix = self.ix(state)
        if card not in ix.exports:
            raise IllegalMoveError(f"{ix.name_of(card)} is not an Export.")
        placements = d.trade.placements
        live = [i for i, p in enumerate(placements) if p["state"] == "up"]
        for i in live:
            p = placements[i]
            if p["card"] == card and not p.get("checked"):
                p["checked"] = True
                state.note("ScanConfirmed", seat=p["seat"], card=card, partner=p["partner"],
                           slot=p["slot"])
                return
        holders = {s for s in range(state.n) if card in d.hands[s]}
        options = [i for i in live if placements[i]["seat"] in holders and
                   not placements[i].get("checked")]
        if not options:
            raise IllegalMoveError(f"No face-down Export was {ix.name_of(card)}, and nobody "
                                   f"who holds it has an unchecked Export; check it by hand.")
        i = options[0]
        p = placements[i]
        d.mismatch = {"kind": "export", "seat": p["seat"], "placement": i, "options": options,
                      "chosen": p["card"], "scanned": card}
        state.note("ScanMismatch", what="export", seat=p["seat"], chosen=p["card"],
                   scanned=card, partner=p["partner"], slot=p["slot"])

    def _scanned_in_hand(self, state, s, card):
        """The scanned card, if seat ``s`` holds it (else the table must keep the chosen one)."""
        if card not in state.data.hands[s]:
            raise IllegalMoveError(f"{self.ix(state).name_of(card)} is not in "
                                   f"{self.seat_name(state, s)}'s hand; keep the chosen card.")
        return card

    def _settle_mismatch(self, state, seat, keep, placement=None):
        d = state.data
        ix = self.ix(state)
        m = d.mismatch
        if m is None:
            raise IllegalMoveError("There is no scanned card to settle.")
        if keep not in ("scanned", "chosen"):
            raise IllegalMoveError("keep: scanned (the card on the table) or chosen (the "
                                   "phone's choice).")
        s = m["seat"]
        if m["kind"] == "policy":
            if keep == "scanned":
                card = self._scanned_in_hand(state, s, m["scanned"])
                cost = self.cost_of(state, s, card)
                if cost > d.gdp[s]:
                    raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; "
                                           f"{self.seat_name(state, s)} has {d.gdp[s]}. Keep "
                                           f"the chosen card.")
                pr = d.pol
                old = pr.revealed.get(s) or {"card": None, "fast_pass": False}
                if old.get("card") is None:
                    pr.left[s] = max(0, pr.left[s] - 1)
                pr.revealed[s] = {"card": card, "fast_pass": old.get("fast_pass", False),
                                  "target": None, "partner": None, "draw": None}
            d.pol.kept[s] = keep            # (never in the revealed choice: its commitment)
            d.pol.confirmed.append(s)
        else:
            i = m["placement"]
            if placement is not None:
                if placement not in m["options"]:
                    raise IllegalMoveError(f"placement: one of {m['options']}.")
                i = placement
            p = d.trade.placements[i]
            s = p["seat"]
            if keep == "scanned":
                card = self._scanned_in_hand(state, s, m["scanned"])
                if ix.rules.export_cost == "on_placement":
                    cost = self.cost_of(state, s, card, p["partner"])
                    if cost > d.gdp[s] + p["paid"]:
                        raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; "
                                               f"{self.seat_name(state, s)} cannot pay it. "
                                               f"Keep the chosen card.")
                    self.gain(state, s, p["paid"])
                    p["paid"] = self.lose(state, s, cost)
                d.hands[s].remove(card)
                d.hands[s].append(p["card"])
                p["card"] = card
            p["checked"] = True
            p["kept"] = keep                # the phone's choice kept: not "scanned, matches"
        kept = m["scanned"] if keep == "scanned" else m["chosen"]
        d.mismatch = None
        state.note("MismatchSettled", what=m["kind"], seat=s, keep=keep, card=kept,
                   scanned=m["scanned"], chosen=m["chosen"])
