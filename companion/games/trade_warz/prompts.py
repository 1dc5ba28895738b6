"""Who is asked what in each phase, derived from the data each time the flow settles
(``Phase.prompts``): the core replaces them all with a pending step's question while one waits."""


class Prompts:
    """Mixed into the Game."""

    def prompts_of(self, phase_prompts):
        """The ``prompts`` of a phase (who is asked what, derived from the data when the flow
        settles; the core puts a pending step's question first): a scanned card that
        disagrees waits for the table before anything else."""
        def prompts(state):
            m = state.data.mismatch
            if m is not None:
                ix = self.ix(state)
                return {None: {"moves": ("settle_mismatch",), "next": "settle_mismatch",
                               "next_args": {"keep": "scanned"}, "step": "mismatch",
                               "text": f"{self.seat_name(state, m['seat'])}: the phone chose "
                                       f"{ix.name_of(m['chosen']) if m['chosen'] else 'no card'}"
                                       f", the scanned card is {ix.name_of(m['scanned'])}. "
                                       f"Keep which?"}}
            P = {}
            phase_prompts(state, P)
            return P
        return prompts

    def _window_prompts(self, state, P, wid, move, **info):
        w = state.windows.get(wid)
        if w is None or w.is_revealed():
            return
        mv = (move,)
        for s in w.seats:
            if s not in w.entries:
                P[s] = {"moves": mv, "window": wid, **info}

    def _prompts_leaders(self, state, P):
        self._window_prompts(state, P, "leaders", "pick_leader",
                             options=list(self.ix(state).leaders))

    def _prompts_none(self, state, P):
        """Event, Upkeep, Income, Cleanup: only their steps ask anything."""

    def _prompts_draw(self, state, P):
        to_draw = state.data.draw.to_draw
        shared = None
        for s in range(state.n):
            if to_draw[s]:
                if shared is None:
                    shared = self.piles_for(state, None)
                P[s] = {"moves": ("draw_cards",), "count": to_draw[s],
                        "piles": self.piles_for(state, s, shared)}

    def _prompts_policy(self, state, P):
        pr = state.data.pol
        if pr.check:
            P[None] = {"moves": ("resolve_policies", "scan_card"), "next": "resolve_policies",
                       "step": "policy_check",
                       "text": "Policies revealed: scan them to check, then Next to resolve."}
            return
        if not pr.done:
            self._window_prompts(state, P, self._policy_wid(state), "choose_policy")

    def _trade_moves(self, state, s, facts):
        d = state.data
        ix = self.ix(state)
        cfg = state.config
        key = (cfg["chill"], self.can_activate(state, s),
               bool(d.fast_pass[s] and ix.rules.fast_pass and cfg["fast_pass"]),
               self.deal_moves(state, s, facts))
        got = self._moves_cache.get(key)
        if got is None:
            chill, can_activate, can_pass, deals = key
            mv = ["place_export", "pass_turn" if chill else "done_trade", "play_tactic",
                  "aim_export"]
            if can_activate:
                mv.append("activate_ability")
            if can_pass:
                mv.append("use_fast_pass")
            mv += deals
            got = self._moves_cache[key] = tuple(mv)
        return got

    def _prompts_trade(self, state, P):
        t = state.data.trade
        if t.over:
            return
        facts = self.deal_facts(state)
        if state.config["chill"]:
            P[t.turn] = {"moves": self._trade_moves(state, t.turn, facts), "chill": True}
            return
        for s in range(state.n):
            if not t.done[s]:
                P[s] = {"moves": self._trade_moves(state, s, facts), "chill": False}

    def _prompts_exports(self, state, P):
        if state.data.disputes.check:
            P[None] = {"moves": ("resolve_exports", "scan_card"), "next": "resolve_exports",
                       "step": "export_check",
                       "text": "Exports flipped: scan them to check, then Next for the "
                               "disputes."}

    def _prompts_disputes(self, state, P):
        d = state.data
        dr = d.disputes
        if dr.chooser is not None:
            mine = [c for c in dr.contests if c["state"] == "open" and dr.chooser in c["seats"]]
            P[dr.chooser] = {"moves": ("choose_dispute",),
                            "options": [[c["partner"], c["slot"]] for c in mine],
                            "contests": [c["id"] for c in mine]}
        elif dr.current is not None:
            self._window_prompts(state, P, self._bid_wid(state), "bid",
                                 contest=dr.current)
            for s, p in P.items():
                if s is not None:
                    p["max"] = d.gdp[s]
