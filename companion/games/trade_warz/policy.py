"""Policy: every seat with a Policy in hand chooses one face-down (a sealed window; the Tariff
Warz Fast-Pass goes in with it), the table reveals them together (3-2-1) and may check them by
scanning; then they resolve poorest first, or in the order the poorest player chooses. A seat
with an extra Policy this round chooses again in a second window."""
from companion.core import args
from companion.core.errors import IllegalMoveError


class PolicyPhase:
    """Mixed into the Game."""

    def _policy_wid(self, state):
        return f"policy-r{state.round}-{state.data.pol.k}"

    def _begin_policy(self, state):
        d = state.data
        pr = d.pol
        ix = self.ix(state)
        pr.k = 0
        pr.done = False
        pr.check = False
        pr.confirmed = []
        pr.kept = {}
        extra = [0] * state.n
        for s, pid in enumerate(d.board.policy):
            for _, e in ix.has_extra_policy.get(pid, ()):
                extra[s] += e.count
        pr.left = [1 + d.extra_policy[s] + extra[s] for s in range(state.n)]
        self._open_policy(state)

    def _policy_over(self, state):
        pr = state.data.pol
        return pr.done and not pr.check

    def _open_policy(self, state):
        d = state.data
        pr = d.pol
        pol = self.ix(state).policies
        seats = [s for s in range(state.n) if pr.left[s] > 0 and
                 any(c in pol for c in d.hands[s])]
        if not seats:
            pr.done = True
            return
        pr.k += 1
        pr.revealed = {}
        pr.confirmed = []
        pr.kept = {}
        k = pr.k
        state.open_window(self._policy_wid(state), "policy", seats, self._policy_revealed,
                          default={"card": None, "fast_pass": False},
                          label=f"Round {state.round} Policy" + (f" ({k})" if k > 1 else ""))

    def _choose_policy(self, state, seat, card=None, fast_pass=False, target=None,
                       partner=None, draw=None):
        d = state.data
        args.flag(fast_pass, "fast_pass")
        if fast_pass:
            self._fast_pass_ok(state, seat)
        ch = {}
        if card is not None:
            self._in_hand(state, seat, card, "policy")
            cost = self.cost_of(state, seat, card)
            if cost > d.gdp[seat]:
                raise IllegalMoveError(f"{self.ix(state).name_of(card)} costs {cost} GDP; "
                                       f"you have {d.gdp[seat]}.")
            ch = self._choices(state, seat, card, target, partner, draw)
        elif target is not None or partner is not None:
            raise IllegalMoveError("Choose a Policy card before its target.")
        return {"card": card, "fast_pass": fast_pass, "target": ch.get("target"),
                "partner": ch.get("partner"), "draw": ch.get("draw")}

    def _fast_pass_ok(self, state, seat):
        ix = self.ix(state)
        if not (ix.rules.fast_pass and state.config["fast_pass"]):
            raise IllegalMoveError(f"{ix.edition.title} is played without Fast-Pass tokens.")
        if not state.data.fast_pass[seat]:
            raise IllegalMoveError("Your Fast-Pass token is spent; a card must refresh it.")

    def _policy_revealed(self, state, window):
        d = state.data
        pr = d.pol
        got = window.revealed()
        pr.revealed = {s: (c or {"card": None, "fast_pass": False}) for s, c in got.items()}
        for s in sorted(pr.revealed):
            c = pr.revealed[s]
            if c.get("fast_pass") and d.fast_pass[s]:
                d.fast_pass[s] = False
                d.locked[s] = True
                state.note("FastPassUsed", seat=s, says=self.fast_pass_words(state, s))
            if c.get("card"):
                pr.left[s] -= 1
            else:
                pr.left[s] = 0
        name = self.ix(state).name_of
        state.note("PoliciesRevealed", cards={str(s): c.get("card")
                                              for s, c in pr.revealed.items()},
                   says="Policies revealed: " + "; ".join(
                       f"{state.players[s]} " + (f"the Policy {name(c['card'])}"
                                                 if c.get("card") else "no Policy")
                       for s, c in sorted(pr.revealed.items())) + ".")
        if state.config["check_reveals"] and any(c.get("card") for c in pr.revealed.values()):
            pr.check = True
            return
        self._queue_policies(state)

    def _resolve_policies(self, state, seat):
        d = state.data
        if state.phase != "policy" or not d.pol.check:
            raise IllegalMoveError("There are no revealed Policies to resolve now.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the scanned card first.")
        d.pol.check = False
        self._queue_policies(state)

    def _queue_policies(self, state):
        pr = state.data.pol
        ix = self.ix(state)
        played = [s for s, c in pr.revealed.items() if c.get("card")]
        with_now = [s for s in played if ix.steps_of(pr.revealed[s]["card"], "immediate")]
        if state.config["policy_order"] == "poorest_chooses" and len(with_now) >= 2:
            state.push([{"step": "policy_order", "seats": self.order(state, played)},
                        {"step": "policy_next"}])
        else:
            state.push(self._policy_jobs(state, self.order(state, played)) +
                       [{"step": "policy_next"}])

    def _policy_jobs(self, state, seats):
        pr = state.data.pol
        out = []
        for s in seats:
            c = pr.revealed[s]
            ch = {k: c[k] for k in ("target", "partner", "draw") if c.get(k) is not None}
            out.append({"step": "policy", "seat": s, "card": c["card"], "ch": ch})
        return out

    def _order_step(self, state, job):
        if "ans" not in job:
            chooser = self.order(state, range(state.n))[0]
            return self.ask(state, chooser, "order", seats=list(job["seats"]))
        state.push(self._policy_jobs(state, job["ans"]), front=True)
        state.note("PoliciesOrdered", order=list(job["ans"]))
        return None

    def _order_policies(self, state, seat, order):
        step = self.waiting(state, seat, "order_policies", "Policy order")
        want = sorted(step["seats"])
        if not isinstance(order, list) or sorted(o for o in order if isinstance(o, int)) != want \
                or len(order) != len(want):
            raise IllegalMoveError(f"Give the order as a list of these seats, each once: "
                                   f"{want}.")
        step["ans"] = list(order)
        state.resume(step)

    def _policy_asks(self, state, s, cid, ch):
        """Will playing ``cid`` ask its player a partner or a target first?"""
        ix = self.ix(state)
        mode, needs_partner = ix.needs[cid]
        if needs_partner and ch.get("partner") not in ix.partner_order:
            return True
        if mode is not None:
            legal = self.legal_targets(state, s, mode)
            return ch.get("target") not in legal and len(legal) > 1
        return False

    def _policy_step(self, state, job):
        d = state.data
        ix = self.ix(state)
        s, cid, ch = job["seat"], job["card"], job["ch"]
        name = ix.name_of(cid)
        if "paid" not in job:
            if cid not in d.hands[s]:
                state.note("PolicyMissing", seat=s, card=cid)
                return None
            cost = self.cost_of(state, s, cid)
            if cost > d.gdp[s]:
                state.note("PolicyUnaffordable", seat=s, card=cid, cost=cost,
                           says=f"{state.players[s]} cannot pay {cost} GDP for the Policy "
                                f"{name} (GDP {d.gdp[s]}): it goes back to their hand.")
                return None
            d.hands[s].remove(cid)
            job["paid"] = self.lose(state, s, cost)
            if job["paid"] and self._policy_asks(state, s, cid, ch):
                # the Policy waits for its player's choice: its cost is paid now, said now
                job["told"] = True
                state.note("PolicyPaid", seat=s, card=cid, name=name, cost=job["paid"],
                           says=f"{state.players[s]} pays {job['paid']} GDP for the Policy "
                                f"{name}: {d.gdp[s]}; {state.players[s]} chooses how it "
                                f"applies.")
        mode, needs_partner = ix.needs[cid]
        if needs_partner and ch.get("partner") not in ix.partner_order:
            return self.ask(state, s, "partner", source=cid, options=list(ix.partners))
        if mode is not None:
            legal = self.legal_targets(state, s, mode)
            if ch.get("target") not in legal and legal:
                if len(legal) == 1:
                    ch["target"] = legal[0]
                else:
                    return self.ask(state, s, "target", source=cid, options=legal, mode=mode)
        slotted = ix.slotted[cid]
        b = d.board
        if slotted:
            old = b.policy[s]
            if old is not None:
                self.to_discard(state, old)
                state.note("PolicyReplaced", seat=s, card=old,
                           says=f"{state.players[s]} discards the Policy {ix.name_of(old)} "
                                f"for {name}.")
            b.policy[s] = cid
            b.policy_ch[s] = {k: ch[k] for k in ("target", "partner") if k in ch}
        else:
            self.to_discard(state, cid)
        state.note("PolicyPlayed", seat=s, card=cid, name=name, cost=job["paid"],
                   slotted=slotted,
                   says=f"{state.players[s]} played the Policy {name}"
                        + (f" for {job['paid']} GDP: {d.gdp[s]}." if job["paid"] and
                           not job.get("told") else "."))
        fx = self.fx_job(state, cid, s, "immediate", ch)
        if fx:
            state.push([fx], front=True)
        return None

    def _policy_next_step(self, state, job):
        self._open_policy(state)
        return None
