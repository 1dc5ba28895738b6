"""The end: the threshold, category bonuses, secret objectives, tiebreaks and the final battles."""
from . import battle as engine
from .common import _and


class Ending:
    """The final phase and the ways a game ends (a part of :class:`~.game.BattleBuilder`)."""

    # == the end ==================================================================================
    def _check_threshold(self, state):
        if state.config["victory"] != "threshold" or state.outcome is not None:
            return
        d = state.data
        top = max(d.vp)
        if top < self.rules.victory["threshold"]:
            return
        winners = [s for s in state.seats() if d.vp[s] == top]
        tiebreak = None
        if len(winners) > 1:
            winners, tiebreak = self._break_tie(state, winners, allow_duel=False)
        self._end_game(state, winners, f"first to {self.rules.victory['threshold']} VP",
                       tiebreak)

    def standings(self, state):
        """VP as they stand (the table ends the game early)."""
        return {s: state.data.vp[s] for s in state.seats()}

    def _end_game(self, state, winners, reason, tiebreak=None, code=None):
        """``code``: how it ended, by default the ``victory`` setting (most VP after the arc,
        the threshold, categories, objectives, the championship final)."""
        d = state.data
        d.track["ended"] = state.now
        if not d.vp_curve or d.vp_curve[-1] != d.vp:
            d.vp_curve.append(list(d.vp))
        state.finish(winners, reason, {s: d.vp[s] for s in state.seats()}, tiebreak,
                     code=code or state.config["victory"])

    def _objective_met(self, state, seat, oid):
        o = self.rules.objectives[oid]
        d = state.data
        if o.kind == "defeat_difficulty":
            return d.monsters_defeated[seat][o.difficulty] >= o.count
        if o.kind == "win_final_pvp":
            return bool(d.pvp_no) and any(
                rec["winner"] == seat for rec in d.track["pvp"] if rec["pvp"] == d.pvp_no)
        if o.kind == "tier_cards":
            cards = self.rules.cards
            return sum(1 for c in d.attack[seat] + d.defense[seat]
                       if cards[c].tier >= o.tier) >= o.count
        if o.kind == "pvp_wins":
            return d.pvp_wins[seat] >= o.count
        return sum(d.monsters_defeated[seat].values()) >= o.count

    def _objective_progress(self, state, seat, oid):
        """How far ``seat`` got towards objective ``oid``, in words ("3 easy monsters
        defeated", "won the final PvP battle")."""
        o = self.rules.objectives[oid]
        d = state.data

        def n_of(n, what):
            return f"{n} {what}{'s' if n != 1 else ''}"
        if o.kind == "defeat_difficulty":
            return n_of(d.monsters_defeated[seat][o.difficulty], f"{o.difficulty} monster") + \
                " defeated"
        if o.kind == "win_final_pvp":
            last = [rec for rec in d.track["pvp"] if rec["pvp"] == d.pvp_no] if d.pvp_no else []
            if not last:
                return "no PvP battle was played"
            if any(rec["winner"] == seat for rec in last):
                return "won the final PvP battle"
            if any(seat in rec["seats"] for rec in last):
                return "lost the final PvP battle"
            return "not in the final PvP battle"
        if o.kind == "tier_cards":
            cards = self.rules.cards
            n = sum(1 for c in d.attack[seat] + d.defense[seat] if cards[c].tier >= o.tier)
            return n_of(n, f"tier {o.tier}{'+' if o.tier < 3 else ''} card") + " owned"
        if o.kind == "pvp_wins":
            return n_of(d.pvp_wins[seat], "PvP win")
        return n_of(sum(d.monsters_defeated[seat].values()), "monster") + " defeated"

    def objective_words(self, state, seat, met=None):
        """A player's secret objective revealed: what it asked, whether it was met (and how far
        they got), the VP it gave. ``met``: as scored (default: checked now)."""
        o = self.rules.objectives[state.data.objective[seat]]
        return (f"{state.players[seat]}'s secret objective: {o.name} ({o.text}): "
                f"{self._objective_outcome(state, seat, met)}.")

    def _objective_outcome(self, state, seat, met=None):
        """``met (4 easy monsters defeated), +3 VP`` or ``not met (...), no VP``."""
        oid = state.data.objective[seat]
        if met is None:
            met = self._objective_met(state, seat, oid)
        gain = f"met ({self._objective_progress(state, seat, oid)}), " + \
            (f"+{self.rules.objectives[oid].vp} VP" if met else "no VP")
        return gain if met else "not " + gain

    def objective_results(self, state):
        """Once the game is over (``victory=objectives``): each player's secret objective, met
        or not as scored, its VP and the sentence that says so; else None."""
        d = state.data
        if state.outcome is None or state.config["victory"] != "objectives" or \
                not d.objective:
            return None
        scored = d.track["ended"] is not None         # not when the table ended the game early
        out = []
        for s in sorted(d.objective):
            oid = d.objective[s]
            o = self.rules.objectives[oid]
            met = oid in d.bonuses.get(str(s), [])
            outcome = self._objective_outcome(state, s, met) if scored else \
                "not scored (the game was ended early)"
            out.append({"seat": s, "id": oid, "name": o.name, "text": o.text, "met": met,
                        "vp": o.vp if met else 0, "scored": scored, "outcome": outcome,
                        "says": f"{state.players[s]}'s secret objective: {o.name} "
                                f"({o.text}): {outcome}."})
        return out

    def _break_tie(self, state, tied, allow_duel=True):
        """Returns (winners, tiebreak text) or (pair, "duel") for a sudden-death battle."""
        mode = state.config["tiebreak"]
        if mode == "shared":
            return tied, "shared win"
        if mode == "sudden-death" and allow_duel:
            pair = tied
            if len(pair) > 2:
                best = max(self.wallet(state, s) for s in pair)
                pair = [s for s in pair if self.wallet(state, s) == best]
                if len(pair) > 2:
                    pair = sorted(state.rng.sample(pair, 2))
                elif len(pair) == 1:
                    return pair, "most skill tokens"
            return pair, "duel"
        key = (lambda s: self.deck_value(state, s)) if mode == "deck-value" else \
            (lambda s: self.wallet(state, s))
        best = max(key(s) for s in tied)
        winners = [s for s in tied if key(s) == best]
        text = "highest deck value" if mode == "deck-value" else "most skill tokens"
        if len(winners) > 1:
            text += ", still tied: shared"
        return winners, text

    def _begin_final(self, state):
        d, v, cfg = state.data, self.rules.victory, state.config
        d.battles = {}
        mode = cfg["victory"]
        if mode == "categories":
            for key, stat in (("most_monsters", lambda s: sum(d.monsters_defeated[s].values())),
                              ("most_pvp_wins", lambda s: d.pvp_wins[s]),
                              ("highest_deck_value", lambda s: self.deck_value(state, s)),
                              ("most_hp", lambda s: d.hp_ups[s])):
                vals = [stat(s) for s in state.seats()]
                top = max(vals)
                if key in ("most_monsters", "most_pvp_wins") and top == 0:
                    continue
                for s in state.seats():
                    if vals[s] == top:
                        d.vp[s] += v[key]
                        d.bonuses.setdefault(str(s), []).append(key)
            state.note("CategoryBonuses", bonuses=dict(d.bonuses),
                       **({} if state.lean else {"says": self._category_words(state)}))
        elif mode == "objectives":
            for s in state.seats():
                oid = d.objective.get(s)
                if oid and self._objective_met(state, s, oid):
                    d.vp[s] += self.rules.objectives[oid].vp
                    d.bonuses.setdefault(str(s), []).append(oid)
            words = {} if state.lean else {"says": " ".join(
                self.objective_words(state, s) for s in sorted(d.objective))}
            state.note("ObjectivesRevealed", objectives={str(s): o for s, o in
                                                          d.objective.items()},
                       scored=dict(d.bonuses), **words)
        if mode == "championship":
            order = list(state.seats())
            state.rng.shuffle(order)                         # seeded tiebreak after tokens
            order.sort(key=lambda s: (-d.vp[s], -self.wallet(state, s)))
            top2 = order[:2]
            d.ending = {"kind": "championship", "seats": sorted(top2)}
            state.note("ChampionshipFinal", seats=sorted(top2))
            engine.start_battle(self, state, "final", "final", sorted(top2), [])
            return
        top = max(d.vp)
        winners = [s for s in state.seats() if d.vp[s] == top]
        if len(winners) == 1:
            return self._end_game(state, winners, "most VP")
        winners, text = self._break_tie(state, winners)
        if text == "duel":
            d.ending = {"kind": "sudden-death", "seats": sorted(winners)}
            state.note("SuddenDeath", seats=sorted(winners))
            engine.start_battle(self, state, "final", "final", sorted(winners), [])
            return
        self._end_game(state, winners, "most VP", text)

    #: The category bonuses in words (victory Variant B).
    CATEGORY_WORDS = {"most_monsters": "most monsters defeated", "most_pvp_wins": "most PvP wins",
                      "highest_deck_value": "highest deck value", "most_hp": "most HP upgrades"}

    def _category_words(self, state):
        """``Category bonuses: most monsters defeated: Ann +3 VP; ...``."""
        d, v, pl = state.data, self.rules.victory, state.players
        parts = []
        for key, label in self.CATEGORY_WORDS.items():
            who = [s for s in state.seats() if key in d.bonuses.get(str(s), ())]
            if who:
                parts.append(f"{label}: {_and(pl[s] for s in who)} +{v[key]} VP")
        return "Category bonuses: " + ("; ".join(parts) if parts else "none") + "."

    def _final_won(self, state, battle, winner):
        d = state.data
        d.ending["winner"] = winner
        d.track["pvp"].append({"pvp": "final", "id": battle["id"], "seats": battle["seats"],
                               "winner": winner, "turns": battle["turn"],
                               "rounds": battle["round"], "effect": None,
                               "seconds": battle["ended"] - battle["started"], "why": None})
        if d.ending["kind"] == "championship":
            self._end_game(state, [winner], "won the championship final")
        else:
            self._end_game(state, [winner], "most VP", "sudden-death PvP",
                           code="sudden_death")

    def _end_final(self, state):
        pass
