"""Answers to the questions the flow's steps ask (docs/core-api.md, "The flow"): each finds the
waiting step, checks the answer, puts it into the step and lets the flow run it again. The
table's answers to a manual effect: Done (with the changes it made by hand) or an adjustment."""
from companion.core import args
from companion.core.errors import IllegalMoveError


class Answers:
    """Mixed into the Game."""

    # -- answers to asks --------------------------------------------------------------------------
    def _choose_target(self, state, seat, target):
        step = self.waiting(state, seat, "choose_target", "target to choose")
        options = state.question()["options"]
        if target not in options:
            raise IllegalMoveError(f"Choose one of seats {options}.")
        step["ch"]["target"] = target
        state.resume(step)

    def _choose_partner(self, state, seat, partner):
        step = self.waiting(state, seat, "choose_partner", "Trade Partner to choose")
        self._partner(state, partner)
        options = state.question().get("options")
        if options and partner not in options:
            names = ", ".join(self.ix(state).name_of(p) for p in options)
            raise IllegalMoveError(f"Choose one of these Trade Partners: {names}.")
        step["ch"]["partner"] = partner
        state.resume(step)

    def _choose_optional(self, state, seat, accept):
        step = self.waiting(state, seat, "choose_optional", "choice")
        args.flag(accept, "accept")
        step["ch"][f"opt{state.question()['effect']}"] = accept
        state.resume(step)

    def _discard_cards(self, state, seat, cards):
        step = self.waiting(state, seat, "discard_cards", "discard")
        if isinstance(cards, dict):         # {card: how many}, for a hand with copies
            if not all(args.is_whole(v) and v >= 0 for v in cards.values()):
                raise IllegalMoveError("cards: how many of each card, e.g. {\"bulk-coal\": 2}.")
            cards = [c for c, k in cards.items() for _ in range(k)]
        step["ans"] = self.check_discard(state, seat, cards, state.question()["count"])
        state.resume(step)

    def _choose_routes(self, state, seat, routes):
        step = self.waiting(state, seat, "choose_routes", "route choice")
        a = state.question()
        if not isinstance(routes, list) or len(routes) != a["count"]:
            raise IllegalMoveError(f"Choose {a['count']} route(s) from {a['options']}.")
        picks = []
        for r in routes:
            r = list(r) if isinstance(r, (list, tuple)) else r
            if r not in a["options"] or r in picks:
                raise IllegalMoveError(f"Choose {a['count']} different route(s) from "
                                       f"{a['options']}.")
            picks.append(r)
        step["ans"] = picks
        state.resume(step)

    def _confirm_manual(self, state, seat, gdp=None, power=None):
        step = self.waiting(state, None, "confirm_manual", "manual effect to confirm")
        a = state.question()
        changes = {}
        for name, given in (("gdp", gdp), ("power", power)):
            if given is None:
                continue
            if not isinstance(given, dict):
                raise IllegalMoveError(f"{name}: changes by seat, e.g. {{\"1\": 2}}.")
            clean = {}
            for k, v in given.items():
                try:
                    s = int(k)
                except (TypeError, ValueError):
                    raise IllegalMoveError(f"{name}: {k!r} is not a seat.") from None
                self._seat(state, s, "player")
                args.whole(v, f"{name} change")
                clean[s] = v
            changes[name] = clean
        if "power" in changes and "dispute" not in a:
            raise IllegalMoveError("Power changes belong to a dispute.")
        if "dispute" in a:
            adj = step.setdefault("adj", {})
            for s, v in changes.get("power", {}).items():
                adj[str(s)] = adj.get(str(s), 0) + v
        else:
            step["ch"][f"man{a['effect']}"] = True
        state.note("ManualResolved", source=a.get("source"), text=a.get("text"),
                   gdp={str(s): v for s, v in changes.get("gdp", {}).items()},
                   power={str(s): v for s, v in changes.get("power", {}).items()},
                   **self._manual_words(state, a, changes))
        state.resume(step)
        for s, v in sorted(changes.get("gdp", {}).items()):
            if v > 0:
                self.gain(state, s, v, self.ix(state).name_of(a.get("source")))
            elif v < 0:
                self.lose(state, s, -v, self.ix(state).name_of(a.get("source")))

    def _manual_words(self, state, a, changes):
        """The table's answer to a manual effect, in words (nothing when nothing changed)."""
        pl, d = state.players, state.data
        name = self.ix(state).name_of(a.get("source"))
        parts = [f"{pl[s]} {'+' if v > 0 else chr(0x2212)}{abs(v)} GDP: "
                 f"{max(0, d.gdp[s] + v)}" for s, v in sorted(changes.get("gdp", {}).items())
                 if v]
        parts += [f"{pl[s]} {'+' if v > 0 else chr(0x2212)}{abs(v)} dispute power"
                  for s, v in sorted(changes.get("power", {}).items()) if v]
        return {"says": f"{name}, by the table: " + "; ".join(parts) + "."} if parts else {}

    def _adjust(self, state, seat, what, player, by, partner=None):
        """A by-hand change while a manual effect waits for the table: GDP, dispute power (in
        a dispute: added to the power before the result) or influence (Trade Warz)."""
        d = state.data
        step = self.waiting(state, None, "adjust", "manual effect to adjust for")
        a = state.question()
        ix = self.ix(state)
        if what not in ("gdp", "power", "influence"):
            raise IllegalMoveError("what: gdp, power (in a dispute) or influence.")
        s = self._seat(state, player, "player")
        args.whole(by, "by")
        if what == "power":
            if "dispute" not in a:
                raise IllegalMoveError("Dispute power changes belong to a dispute.")
            if s not in d.disputes.contests[a["dispute"]]["seats"]:
                raise IllegalMoveError(f"{state.players[s]} is not in this dispute.")
        if what == "influence":
            if not ix.rules.influence_accumulates:
                raise IllegalMoveError(f"{ix.edition.title} does not track influence.")
            self._partner(state, partner)
        elif partner is not None:
            raise IllegalMoveError("Only an influence change names a Trade Partner.")
        if by == 0:
            return
        name = ix.name_of(a.get("source"))
        if what == "power":
            adj = step.setdefault("adj", {})
            adj[str(s)] = adj.get(str(s), 0) + by
        elif what == "influence":
            have = d.influence[s].get(partner, 0)
            d.influence[s][partner] = max(0, have + by)
        unit = {"gdp": "GDP", "power": "dispute power"}.get(what, "influence")
        at = f" with {ix.name_of(partner)}" if partner is not None else ""
        now = f": {max(0, d.gdp[s] + by)}" if what == "gdp" else ""
        state.note("AdjustedByHand", what=what, seat=s, by=by, partner=partner,
                   source=a.get("source"),
                   says=f"{name}, by the table: {state.players[s]} "
                        f"{'+' if by > 0 else chr(0x2212)}{abs(by)} {unit}{at}{now}.")
        if what == "gdp":
            if by > 0:
                self.gain(state, s, by, name)
            else:
                self.lose(state, s, -by, name)
