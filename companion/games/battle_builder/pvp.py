"""PvP: the check (fixed or vote), pairing, the sealed preparation (wagers, revenge, spectator
bets), the battles and their rewards."""
from companion.core.errors import IllegalMoveError

from . import battle as engine
from .common import PAIRINGS_4, REVENGE_USES, _and, _int


class PvPPhases:
    """The pvp_check, pvp_setup, pvp_prep and pvp phases (a part of
    :class:`~.game.BattleBuilder`)."""

    # == PvP ======================================================================================
    def _pvp_left(self, state):
        battles, every = self.arc(state)
        return battles // every - state.data.pvp_done

    def _begin_pvp_check(self, state):
        d = state.data
        battles, every = self.arc(state)
        left = self._pvp_left(state)
        remaining = battles - state.round
        d.pvp_now = False
        if left <= 0:
            return
        if state.config["pvp_trigger"] == "fixed":
            d.pvp_now = state.round % every == 0
            return
        if left > remaining:
            d.pvp_now = True
            state.note("PvPForced", left=left, battles_left=remaining)
            return
        w = state.open_window(f"vote-{state.round}", "vote", list(state.seats()),
                              self._vote_revealed, default=False,
                              label=f"After battle {state.round}: PvP now?")
        for s in state.seats():
            state.prompt(s, ("vote_pvp",), window=w.id)

    def _vote_pvp(self, state, seat, pvp):
        if not isinstance(pvp, bool):
            raise IllegalMoveError("Vote pvp: true (fight now) or false (not yet).")
        return pvp

    def _vote_revealed(self, state, window):
        votes = window.revealed()
        yes = sum(1 for v in votes.values() if v is True)
        state.data.pvp_now = yes * 2 > state.n
        state.note("PvPVote", yes=yes, no=state.n - yes, pvp=state.data.pvp_now)

    def _after_check(self, state):
        if state.data.pvp_now:
            return "pvp_setup"
        return "select" if state.round < self.arc(state)[0] else "final"

    def _after_pvp(self, state):
        return "select" if state.round < self.arc(state)[0] else "final"

    def _ranked(self, state, seats=None):
        """Seats by VP, most first; ties by a seeded shuffle."""
        order = list(state.seats() if seats is None else seats)
        state.rng.shuffle(order)
        order.sort(key=lambda s: -state.data.vp[s])
        return order

    def _may_sit_out(self, state):
        """3 players: the seats that may sit this PvP out, those who have sat out the fewest
        PvPs so far (so over three PvPs everyone sits out once and fights each other once)."""
        d = state.data
        if len(d.sat_out) != state.n:
            d.sat_out = [0] * state.n
        if state.config["pvp_byes"] == "by-pairing":
            return list(state.seats())
        low = min(d.sat_out)
        return [s for s in state.seats() if d.sat_out[s] == low]

    def _begin_pvp_setup(self, state):
        d = state.data
        d.pvp_no += 1
        d.pairings, d.byes, d.pots, d.pvp_prep, d.battles = [], [], {}, {}, {}
        n = state.n
        mode = state.config["pvp_pairing"]
        if n == 2:
            d.pairings = [[0, 1]]
        elif mode == "draft":
            order = self._ranked(state)
            if n == 3:
                may = self._may_sit_out(state)
                # the lowest VP who has an opponent to choose that leaves a fair bye
                fair = {s: [c for c in state.seats() if c != s and
                            3 - s - c in may] for s in order}
                picker = [s for s in order if fair[s]][-1]
                cands = fair[picker]
                if len(cands) == 1:
                    self._pair(state, [[picker, cands[0]]], [3 - picker - cands[0]],
                               chosen_by=picker, forced=True)
                    return
            else:
                picker = order[-1]
                cands = [s for s in state.seats() if s != picker]
            state.prompt(picker, ("choose_opponent",), candidates=cands)
            state.note("OpponentToChoose", seat=picker, candidates=cands,
                       says=f"{state.players[picker]} has the fewest VP and chooses an "
                            f"opponent for PvP {d.pvp_no}: "
                            f"{self._or_names(state, cands)}.")
            return
        elif mode == "standing":
            order = self._ranked(state)
            if n == 3:
                may = self._may_sit_out(state)
                bye = [s for s in order if s in may][-1]
                self._pair(state, [[s for s in order if s != bye]], [bye])
                return
            d.pairings = [order[0:2], order[2:4]]
        else:
            k = (d.pvp_no - 1) % 3
            if n == 3:
                may = self._may_sit_out(state)
                bye = k if k in may else may[0]
                self._pair(state, [[s for s in range(3) if s != bye]], [bye])
                return
            d.pairings = [list(p) for p in PAIRINGS_4[k]]
        self._pair(state, d.pairings, [])

    @staticmethod
    def _or_names(state, seats):
        names = [state.players[s] for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    def _pair(self, state, pairings, byes, chosen_by=None, forced=False):
        """Set this PvP's matches and who sits out, and say them: to the table, and to each
        player sitting out why."""
        d, p = state.data, state.players
        d.pairings, d.byes = [list(x) for x in pairings], list(byes)
        if len(d.sat_out) != state.n:
            d.sat_out = [0] * state.n
        for s in d.byes:
            d.sat_out[s] += 1
        matches = " and ".join(f"{p[a]} fights {p[b]}" for a, b in d.pairings)
        head = f"PvP {d.pvp_no}: "
        if chosen_by is not None:
            foe = next(x for x in d.pairings[0] if x != chosen_by)
            head += (f"{p[chosen_by]} has the fewest VP and fights {p[foe]}, the only "
                     f"opponent left who keeps the sitting out fair; " if forced else
                     f"{p[chosen_by]} chose to fight {p[foe]}; ")
            matches = " and ".join(f"{p[a]} fights {p[b]}" for a, b in d.pairings[1:])
        says = head + (matches + "; " if matches else "") + \
            (f"{_and(state.players[s] for s in d.byes)} sits this one out." if d.byes else "")
        extra = {} if chosen_by is None else {"chosen_by": chosen_by}
        state.note("PvPPaired", pairings=d.pairings, byes=d.byes, **extra,
                   says=says.rstrip("; ") + ("" if says.endswith(".") else "."))
        for s in d.byes:
            match = " v ".join(p[x] for x in d.pairings[0])
            bet = (f" You may bet on {match}." if state.config["spectator_bets"] and
                   self.wallet(state, s) > 0 else "")
            why = ("the pairing rule leaves one player over" if
                   state.config["pvp_byes"] == "by-pairing" else
                   "one sits out each PvP, in turn, so everyone fights everyone once in "
                   "three PvPs")
            state.note("SittingOut", to=s, seat=s,
                       says=f"You sit this PvP out: with three players {why}.{bet}")

    def _choose_opponent(self, state, seat, opponent):
        cands = state.prompts[seat]["candidates"]
        if isinstance(opponent, bool) or opponent not in cands:
            raise IllegalMoveError(f"Choose your opponent: "
                                   f"{self._or_names(state, cands)}.")
        rest = [s for s in state.seats() if s not in (seat, opponent)]
        state.clear_prompt(seat)
        if len(rest) == 2:
            self._pair(state, [[seat, opponent], rest], [], chosen_by=seat)
        else:
            self._pair(state, [[seat, opponent]], rest, chosen_by=seat)

    def _pvp_fields(self, state, seat):
        """What ``seat`` decides in the sealed PvP preparation (empty: nothing)."""
        d, cfg = state.data, state.config
        fighting = any(seat in p for p in d.pairings)
        fields = {}
        if fighting and cfg["pvp_rewards"] == "wager":
            lo = min(self.rules.pvp["wager_min"], self.wallet(state, seat))
            fields["wager"] = [lo, self.wallet(state, seat)]
        if fighting and cfg["revenge"] and d.revenge[seat] > 0:
            fields["revenge"] = list(REVENGE_USES)
        if cfg["spectator_bets"] and state.n > 2:
            others = [p for p in d.pairings if seat not in p]
            if others and self.wallet(state, seat) > 0:
                fields["bet_on"] = list(others[0])
                fields["stake"] = [0, min(self.rules.pvp["spectator_max_stake"],
                                          self.wallet(state, seat))]
        return fields

    def _begin_pvp_prep(self, state):
        seats = [s for s in state.seats() if self._pvp_fields(state, s)]
        if not seats:
            return
        w = state.open_window(f"pvp-{state.data.pvp_no}", "pvp-prep", seats,
                              self._pvp_prep_revealed, default={},
                              label=f"PvP {state.data.pvp_no}: wagers and bets")
        for s in seats:
            state.prompt(s, ("prepare_pvp",), window=w.id, **self._pvp_fields(state, s))

    def _prepare_pvp(self, state, seat, wager=None, revenge=None, bet_on=None, stake=0):
        f = state.prompts[seat]
        out = {}
        if "wager" in f:
            lo, hi = f["wager"]
            out["wager"] = _int(wager, "Your wager", lo, hi)
        elif wager is not None:
            raise IllegalMoveError("There is no wager for you in this PvP.")
        if revenge is not None:
            if "revenge" not in f:
                raise IllegalMoveError("You have no revenge token to spend here.")
            if revenge not in REVENGE_USES:
                raise IllegalMoveError(f"Spend revenge on {', '.join(REVENGE_USES)}.")
            out["revenge"] = revenge
        if bet_on is not None or stake:
            if "bet_on" not in f:
                raise IllegalMoveError("You are not a spectator of another match.")
            if isinstance(bet_on, bool) or bet_on not in f["bet_on"]:
                raise IllegalMoveError(f"Bet on {state.players[f['bet_on'][0]]} or "
                                       f"{state.players[f['bet_on'][1]]}.")
            out["bet_on"] = bet_on
            out["stake"] = _int(stake, "Your stake", 1, f["stake"][1])
        if out.get("wager", 0) + out.get("stake", 0) > self.wallet(state, seat):
            raise IllegalMoveError("Your wager and stake together are more tokens than you "
                                   "have.")
        return out

    def _pvp_prep_revealed(self, state, window):
        d = state.data
        for s, chosen in window.revealed().items():
            chosen = dict(chosen or {})
            fighting = any(s in p for p in d.pairings)
            if fighting and "wager" not in chosen and state.config["pvp_rewards"] == "wager":
                chosen["wager"] = min(self.rules.pvp["wager_min"], self.wallet(state, s))
            if "wager" in chosen:
                chosen["wager"] = self._pay_any(state, s, chosen["wager"])
            if chosen.get("stake"):
                chosen["stake"] = self._pay_any(state, s, chosen["stake"])
            if chosen.get("revenge"):
                d.revenge[s] -= 1
            d.pvp_prep[s] = chosen
        pl, parts = state.players, []
        for s, c in sorted(d.pvp_prep.items()):
            if c.get("wager"):
                parts.append(f"{pl[s]} puts {c['wager']} into the pot")
            if c.get("stake"):
                parts.append(f"{pl[s]} bets {c['stake']} on {pl[c['bet_on']]}")
            if c.get("revenge"):
                parts.append(f"{pl[s]} spends a revenge token on {c['revenge']}")
        state.note("PvPPrepared", prep={str(s): c for s, c in d.pvp_prep.items()},
                   **({"says": f"PvP {d.pvp_no}: " + "; ".join(parts) + "."} if parts else {}))

    def _begin_pvp(self, state):
        d, p = state.data, self.rules.pvp
        d.results_said = []
        if state.config["pvp_rewards"] == "wager":
            for s in state.seats():
                if any(s in pr for pr in d.pairings) and s not in d.pvp_prep:
                    d.pvp_prep[s] = {"wager": self._pay_any(
                        state, s, min(p["wager_min"], self.wallet(state, s)))}
                    state.note("WagerTaken", seat=s, wager=d.pvp_prep[s]["wager"],
                               says=f"{state.players[s]} puts the minimum, "
                                    f"{d.pvp_prep[s]['wager']}, into the PvP pot.")
        for k, pair in enumerate(d.pairings):
            bid = f"p{d.pvp_no}.{k + 1}"
            mods = {}
            for s in pair:
                use = d.pvp_prep.get(s, {}).get("revenge")
                mods[s] = {"stamina": p["revenge_stamina"]} if use == "stamina" else \
                    {"defense_cards": p["revenge_defense_cards"]} if use == "defense" else \
                    {"damage": p["revenge_damage"]} if use == "damage" else {}
            d.pots[bid] = sum(d.pvp_prep.get(s, {}).get("wager", 0) for s in pair)
            arena = self._draw_effect(state, "arena") if state.config["arenas"] else None
            engine.start_battle(self, state, bid, "pvp", pair, [], effect=arena, mods=mods)

    def pvp_over(self, state, battle, winner, why=None):
        d, r, cfg = state.data, self.rules, state.config
        if battle["kind"] == "final":
            return self._final_won(state, battle, winner)
        loser = next(s for s in battle["seats"] if s != winner)
        p = r.pvp
        d.pvp_wins[winner] += 1
        d.last_pvp_winners.append(winner)
        mode = cfg["pvp_rewards"]
        got = {winner: 0, loser: 0}
        if mode == "choice":
            state.prompt(winner, ("choose_pile",), piles={"a": list(p["pile_a"]),
                                                          "b": list(p["pile_b"])},
                         loser=loser, battle=battle["id"])
        else:
            d.vp[winner] += r.battle["vp_pvp"]
            if mode == "fixed":
                got = {winner: p["fixed_winner_tokens"], loser: p["fixed_loser_tokens"]}
            elif mode == "deck-value":
                got = {winner: self.deck_value(state, loser) // p["deck_value_divisor"],
                       loser: p["consolation"]}
            else:
                got = {winner: d.pots.get(battle["id"], 0), loser: 0}
        if cfg["card_value_rewards"] and mode != "deck-value":
            got[winner] += self.deck_value(state, loser) // p["deck_value_divisor"]
        for s, n in got.items():
            self._gain_spread(state, s, n)
        if cfg["revenge"]:
            d.revenge[loser] += 1
        for s, chosen in d.pvp_prep.items():
            if chosen.get("stake") and chosen.get("bet_on") in battle["seats"]:
                right = chosen["bet_on"] == winner
                if right:
                    self._gain_spread(state, s, 2 * chosen["stake"])
                pl = state.players
                state.note("SpectatorBetSettled", seat=s, on=chosen["bet_on"],
                           stake=chosen["stake"], won=right,
                           says=f"{pl[s]}'s bet of {chosen['stake']} on {pl[chosen['bet_on']]} "
                                + (f"won: {2 * chosen['stake']} tokens back." if right else
                                   "was lost."))
        d.track["pvp"].append({"pvp": d.pvp_no, "id": battle["id"], "seats": battle["seats"],
                               "winner": winner, "turns": battle["turn"],
                               "rounds": battle["round"], "effect": battle["effect"],
                               "seconds": battle["ended"] - battle["started"], "why": why})
        vp = 0 if mode == "choice" else r.battle["vp_pvp"]
        says = self._pvp_end_words(state, winner, loser, got, vp, why, mode == "choice",
                                   revenge=cfg["revenge"])
        d.results_said.append(says)         # (a lean state too: the states must not differ)
        if not state.lean:
            state.note("PvPEnded", battle=battle["id"], winner=winner, loser=loser,
                       tokens={str(s): n for s, n in got.items()}, why=why, says=says)
        self._check_threshold(state)

    def _choose_pile(self, state, seat, pile):
        if pile not in ("a", "b"):
            raise IllegalMoveError("Choose pile a or pile b.")
        d, p = state.data, self.rules.pvp
        info = state.prompts[seat]
        loser = info["loser"]
        mine, theirs = (p["pile_a"], p["pile_b"]) if pile == "a" else (p["pile_b"],
                                                                       p["pile_a"])
        for s, (tokens, vp) in ((seat, mine), (loser, theirs)):
            self._gain_spread(state, s, tokens)
            d.vp[s] += vp
        state.clear_prompt(seat)
        def pile_words(tokens, vp):
            return f"{tokens} tokens" + (f" and {vp} VP" if vp else "")
        state.note("PileChosen", seat=seat, pile=pile, loser=loser,
                   says=f"{state.players[seat]} took pile {pile} ({pile_words(*mine)}); "
                        f"{state.players[loser]} gets the other ({pile_words(*theirs)}).")
        self._check_threshold(state)

    def _end_pvp(self, state):
        d = state.data
        d.pvp_done += 1
        d.convert_ok = True
        d.vp_curve.append(list(d.vp))
