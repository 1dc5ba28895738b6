"""A game told turn by turn in words, from its log: who bid what, what was revealed, who scored
what and why.

Only what the whole table may know goes in: the log is replayed and each command's *public*
notices are put into sentences (a notice addressed to one seat is left out), and a sealed choice
appears as "locked in" until the reveal that shows it to everyone. Nothing is read from another
seat's hand. A notice with no sentence of its own is still told, plainly, with its names.
"""
from companion.core.args import is_whole

from . import games as lab_games
from .facts import walk

SEAT_KEYS = ("seat", "winner", "loser", "victim", "target", "owner", "foe", "ally", "by",
             "first", "player", "from_seat", "to_seat", "buyer", "seller")
SEATS_KEYS = ("seats", "winners", "losers", "team", "order", "byes")
SKIP_KEYS = ("kind", "salt", "commitment", "window", "battle")


class Teller:
    """Turns one game's notices into sentences (names for seats and for ids)."""

    def __init__(self, game, state, seen=None):
        self.game, self.state = game, state
        self._thing = None
        self.seen = seen if seen is not None else set()    # notice kinds told so far

    # -- names --------------------------------------------------------------------------------
    def who(self, seat) -> str:
        if seat is None:
            return "the table"
        if isinstance(seat, str) and seat.isdigit():
            seat = int(seat)
        if isinstance(seat, int) and 0 <= seat < self.state.n:
            if self.game.name == "trade-warz" and "LeadersSeated" in self.seen and \
                    self.state.data is not None:
                lead = self.game.public_view(self.state)["leaders"][seat]
                if lead:
                    return f"{self.state.players[seat]} ({lead['name']})"
            return self.state.players[seat]
        return self.thing(seat)

    def whos(self, seats) -> str:
        return _join([self.who(s) for s in seats]) if seats else "nobody"

    def thing(self, ident) -> str:
        if self._thing is None:
            self._thing = lab_games.namer(self.game, self.state)
        return self._thing(ident)

    def value(self, v) -> str:
        if isinstance(v, bool) or v is None:
            return {True: "yes", False: "no", None: "none"}[v]
        if isinstance(v, str):
            return self.thing(v)
        if isinstance(v, (list, tuple)):
            return ", ".join(self.value(x) for x in v) if v else "none"
        if isinstance(v, dict):
            return ", ".join(f"{self.value(v2)} {self.thing(k)}" if is_whole(v2) else f"{self.thing(k)}: {self.value(v2)}"
                             for k, v2 in v.items()) or "none"
        return str(v)

    def window(self, wid) -> str:
        w = self.state.windows.get(wid)
        label = getattr(w, "label", None) if w is not None else None
        return label or "a sealed choice"

    # -- sentences ----------------------------------------------------------------------------
    def tell(self, n) -> str | None:
        fn = getattr(self, "n_" + n["kind"], None)
        if fn is None and isinstance(n.get("says"), str):
            text = n["says"]                # a notice that says itself in words
        else:
            text = fn(n) if fn is not None else self.plain(n)
        self.seen.add(n["kind"])
        return text

    def plain(self, n) -> str:
        """Any notice, in words: its kind, then its fields with seats and ids named."""
        words = _words(n["kind"])
        parts = []
        for k, v in n.items():
            if k in SKIP_KEYS:
                continue
            if k in SEAT_KEYS and is_whole(v):
                shown = self.who(v)
            elif k in SEATS_KEYS and isinstance(v, list) and all(isinstance(x, int)
                                                                   for x in v):
                shown = self.whos(v)
            else:
                shown = self.value(v)
            parts.append(f"{k.replace('_', ' ')} {shown}")
        return f"{words}: {'; '.join(parts)}." if parts else f"{words}."

    # core
    def n_ChoiceLocked(self, n):
        return f"{self.who(n['seat'])} locked in ({self.window(n['window'])})."

    def n_ChoicesRevealed(self, n):
        items = []
        for s, c in sorted(n["choices"].items(), key=lambda kv: int(kv[0])):
            shown = self.choice(n["window"], c["choice"])
            items.append(f"{self.who(int(s))} {shown}" +
                         (" (did not choose in time: the default)" if c.get("defaulted")
                          else ""))
        return f"Revealed ({self.window(n['window'])}): " + "; ".join(items) + "."

    def choice(self, window, c) -> str:
        if isinstance(c, dict):
            if "leader" in c:
                rest = [x for x in c.get("ranking") or [] if x != c["leader"]]
                return f"wished for {self.thing(c['leader'])}" + (
                    f" (then {', '.join(self.thing(x) for x in rest)})" if rest else "")
            if "card" in c and c.get("partner") is not None:
                return (f"{self.thing(c['card'])} on {self.thing(c['partner'])} slot "
                        f"{c.get('slot')}")
            if "card" in c:
                return "no Policy" if c["card"] is None else self.thing(c["card"])
        if c is None:
            return "nothing"
        return self.value(c)

    def n_WindowClosed(self, n):
        late = n.get("defaulted") or []
        return (f"The table closed the choice; {self.whos(late)} got the default."
                if late else None)

    def n_TimerStarted(self, n):
        m, s = divmod(int(n.get("duration") or 0), 60)
        return f"The {n['timer']} timer starts: {m}:{s:02d}."

    def n_TimerWarning(self, n):
        return f"{int(round(n.get('left', 0)))} seconds left on the {n['timer']} timer."

    def n_TimerExpired(self, n):
        return f"Time! The {n['timer']} timer ran out."

    def n_TimerPaused(self, n):
        return f"The {n.get('timer', '')} timer is paused."

    def n_TimerResumed(self, n):
        return f"The {n.get('timer', '')} timer runs again."

    def n_Corrected(self, n):
        return (f"Correction: {self.who(n['seat'])} {n['delta']:+d} {n['counter']} "
                f"({n['reason']}), now {n['value']}.")

    def n_SeatRenamed(self, n):
        return f"{n['old']} is now called {n['name']}."

    def n_GameEnded(self, n):
        win = self.whos(n["winners"])
        verb = "wins" if len(n["winners"]) == 1 else "win"
        tb = f" Tiebreak: {n['tiebreak']}." if n.get("tiebreak") else ""
        return f"Game over: {win} {verb} ({n['reason']}).{tb}"

    def n_PhaseBegan(self, n):
        return None                           # the transcript's headings say it

    def n_Undone(self, n):
        return f"Undone: {_words(n.get('what') or 'the last command').lower()}."

    # Great Powers
    def n_ActionsDealt(self, n):
        return f"Action cards face up: {self.value(n['cards'])}."

    def n_BidsResolved(self, n):
        by = {}
        for st in n.get("steps") or []:
            by.setdefault(st["trait"], []).append(st)
        parts = []
        for trait, steps in by.items():
            got = []
            for st in steps:
                text = f"{self.who(st['seat'])} {_nth(st['nth'])} ({st['change']:+d})"
                lost = st.get("lost")
                if lost:
                    text += (f", loses {lost['count']} {lost['token'].title()} "
                             f"({lost.get('why', '')})")
                got.append(text)
            parts.append(f"{trait.title()}: " + "; ".join(got))
        return "Bids resolved. " + ". ".join(parts) + "." if parts else "No bids to resolve."

    def n_NoBids(self, n):
        return "Nobody could bid this turn."

    def n_ActionTaken(self, n):
        t = n.get("target")
        return (f"{self.who(n['seat'])} takes {n.get('name') or self.thing(n['card'])}"
                + (f", aimed at {self.who(t)}" if t is not None else "")
                + ("" if n.get("resolved", True) else " (cannot pay its cost: no effect)")
                + ".")

    def n_ActionPassed(self, n):
        return f"{self.who(n['seat'])} takes no Action card."

    def n_ActionsDiscarded(self, n):
        return f"Discarded: {self.value(n['cards'])}."

    def n_Scored(self, n):
        if not n["seats"]:
            return f"{n['trait'].title()}: nobody scores (a tie for the highest level)."
        return (f"{n['trait'].title()}: {self.whos(n['seats'])} "
                f"score{'s' if len(n['seats']) == 1 else ''} {n['vp']} VP (highest level).")

    def n_EventPeeked(self, n):
        return f"{self.who(n['seat'])} looks at the next Event ({n.get('why', '')})."

    def n_ActionsDrawn(self, n):
        return f"{self.who(n['seat'])} draws {len(n['cards'])} Action cards."

    def n_DrawnActionResolved(self, n):
        t = n.get("target")
        return (f"{self.who(n['seat'])} resolves {n.get('name') or self.thing(n['card'])}"
                + (f", aimed at {self.who(t)}" if t is not None else "") + ".")

    def n_EventFlipped(self, n):
        text = n.get("text")
        return f"Event: {n.get('name') or self.thing(n['event'])}" + (f": {text}" if text
                                                                      else "") + "."

    def n_EventAwarded(self, n):
        return (f"{n.get('name') or self.thing(n['event'])}: {self.whos(n['seats'])} "
                f"score{'s' if len(n['seats']) == 1 else ''} {n['vp']} VP.")

    def n_BatonPassed(self, n):
        return f"The Baton passes to {self.who(n['seat'])}."

    def n_ColonyStolen(self, n):
        return f"{self.who(n['seat'])} takes a Colony from {self.who(n['target'])}."

    def n_WarWon(self, n):
        return (f"War: {self.whos(n['winners'])} beat {self.whos(n['losers'])} and score "
                f"{n['vp']} VP.")

    def n_WarStalemate(self, n):
        sides = n.get("sides") or []
        return ("War: stalemate between " + " and ".join(self.whos(s) for s in sides) +
                "; everyone involved loses half their Armies and Navies.")

    def n_FoeChosen(self, n):
        return f"{self.who(n['seat'])} goes to war against {self.who(n['foe'])}."

    def n_AllyChosen(self, n):
        return f"{self.who(n['seat'])} joins {self.who(n['ally'])}."

    # Trade Warz
    def n_LeadersSeated(self, n):
        seated = "; ".join(f"{self.state.players[int(s)]} is {self.thing(lid)}"
                           for s, lid in sorted(n["leaders"].items(), key=lambda kv: int(kv[0])))
        return f"Leaders: {seated}. {self.who(n['first'])} plays first."

    def n_CardsDrawn(self, n):
        piles = n.get("piles") or {}
        return (f"{self.who(n['seat'])} draws {n.get('count', sum(piles.values()))} card"
                f"{'s' if n.get('count', 0) != 1 else ''}"
                + (f" ({self.value(piles)})" if piles else "") + ".")

    def n_UpkeepStep(self, n):
        return f"Upkeep {n['letter']} ({n['name']}): {n.get('effects', 0)} effect(s)."

    def n_GdpGained(self, n):
        return f"{self.who(n['seat'])} gains {n['amount']} GDP ({self.thing(n.get('source'))})."

    def n_GdpLost(self, n):
        return f"{self.who(n['seat'])} loses {n['amount']} GDP ({self.thing(n.get('source'))})."

    def n_GdpStolen(self, n):
        return (f"{self.who(n['seat'])} takes {n['amount']} GDP from {self.who(n['victim'])} "
                f"({self.thing(n.get('source'))}).")

    def n_EffectComputed(self, n):
        if n.get("skipped"):
            return f"{self.thing(n['source'])}: nothing happens ({n['skipped']})."
        return self.plain(n)

    def n_EffectResolved(self, n):
        if n.get("skipped"):
            return None                       # an effect whose condition is not met: noise
        return self.plain(n)

    def n_PoliciesRevealed(self, n):
        items = "; ".join(f"{self.who(int(s))} {'no Policy' if c is None else self.thing(c)}"
                          for s, c in sorted(n["cards"].items(), key=lambda kv: int(kv[0])))
        return f"Policies revealed: {items}."

    def n_PolicyPlayed(self, n):
        return (f"{self.who(n['seat'])} plays the Policy {n.get('name') or self.thing(n['card'])}"
                f" (cost {n.get('cost', 0)} GDP).")

    def n_ExportPlaced(self, n):
        return (f"{self.who(n['seat'])} places an Export face down on "
                f"{self.thing(n['partner'])}, slot {n['slot']}.")

    def n_TradeDone(self, n):
        return f"{self.who(n['seat'])} is done trading."

    def n_ExportsFlipped(self, n):
        items = "; ".join(f"{self.who(s)} {self.thing(c)} on {self.thing(p)} {slot}"
                          for s, p, slot, c in n.get("cards") or [])
        return f"Exports flipped: {items or 'none'}."

    def n_DisputesFound(self, n):
        return (f"{n['count']} dispute{'s' if n['count'] != 1 else ''}; the poorest choose "
                f"first: {self.whos(n.get('order') or [])}.")

    def n_DisputeChosen(self, n):
        return (f"{self.who(n['seat'])} settles the dispute on {self.thing(n['partner'])} slot "
                f"{n['slot']} ({self.whos(n['seats'])}).")

    def n_DisputeResolved(self, n):
        bids = ", ".join(f"{self.who(int(s))} {b}" for s, b in n.get("bids", {}).items())
        power = ", ".join(f"{self.who(int(s))} {p}" for s, p in n.get("power", {}).items())
        tb = f"; tiebreak: {n['tiebreak']}" if n.get("tiebreak") else ""
        return (f"Dispute on {self.thing(n['partner'])} slot {n['slot']}: bids {bids}; "
                f"power {power}. {self.who(n['winner'])} wins and pays {n.get('paid', 0)} "
                f"GDP{tb}.")

    def n_RouteEstablished(self, n):
        return (f"{self.who(n['seat'])} opens a route: {self.thing(n['card'])} on "
                f"{self.thing(n['partner'])} slot {n['slot']}"
                + (f" (pays {n['paid']} GDP)" if n.get("paid") else "") + ".")

    def n_ExportUnpaid(self, n):
        return (f"{self.who(n['seat'])} cannot pay {n.get('cost')} GDP for "
                f"{self.thing(n['card'])} on {self.thing(n['partner'])}: it goes back to the "
                f"hand.")

    def n_IncomeCollected(self, n):
        return f"{self.who(n['seat'])} collects {n['routes']} GDP from routes."

    def n_InfluenceAccrued(self, n):
        return "Influence grows on every route."

    def n_FirstPlayerPassed(self, n):
        return f"{self.who(n['seat'])} now plays first."

    def n_TacticPlayed(self, n):
        t = n.get("target")
        return (f"{self.who(n['seat'])} plays the Tactic {n.get('name') or self.thing(n['card'])}"
                + (f" on {self.who(t)}" if t is not None else "") + ".")

    def n_RouteDestroyed(self, n):
        return (f"{self.who(n['seat'])}'s route on {self.thing(n['partner'])} slot {n['slot']} "
                f"({self.thing(n['card'])}) is destroyed by {self.thing(n.get('source'))}.")

    def n_PoliciesOrdered(self, n):
        return f"The Policies resolve in this order: {self.whos(n['order'])}."

    def n_PolicyReplaced(self, n):
        return f"{self.who(n['seat'])}'s Policy {self.thing(n['card'])} is replaced."

    # Market Trading
    def n_Harvested(self, n):
        return f"{self.who(n['seat'])} harvests {self.value(n['got'])}."

    def n_Built(self, n):
        return f"{self.who(n['seat'])} builds {self.thing(n['improvement'])}."

    def n_Foraged(self, n):
        return (f"{self.who(n['seat'])} forages tile {n['tile']}: "
                f"{self.thing(n['resource'])}.")

    def n_Donated(self, n):
        given = {k: v[0] if isinstance(v, list) else v for k, v in n["given"].items()}
        return (f"{self.who(n['seat'])} donates {self.value(given)} for {n['points']} "
                f"point{'s' if n['points'] != 1 else ''}.")

    def n_Traded(self, n):
        return (f"{self.who(n['seat'])} trades {self.value(n['give'])} for "
                f"{self.value(n['take'])}.")

    def n_Improved(self, n):
        return (f"{self.who(n['seat'])} uses {self.thing(n['improvement'])}: "
                f"{self.value(n['used'])} into {self.value(n['made'])}.")

    def n_BowlEmptied(self, n):
        return f"{self.who(n['seat'])} empties the point bowl!"

    # Battle Builder
    def n_MonstersOffered(self, n):
        return "Monsters offered: " + " / ".join(self.value(o) for o in n["offers"]) + "."

    def n_MonsterVoted(self, n):
        return (f"{self.whos(n['team'])} fight {self.thing(n['monster'])} "
                f"(votes: {self.value(n.get('votes') or {})}).")

    def n_BattleStarted(self, n):
        foes = n.get("monsters") or []
        return (f"Battle: {self.whos(n['seats'])} against "
                f"{self.value(foes) if foes else 'each other'}.")

    def n_TurnRevealed(self, n):
        plays = []
        for s, p in sorted((n.get("plays") or {}).items(), key=lambda kv: int(kv[0])):
            if isinstance(p, list) and p:
                plays.append(f"{self.who(int(s))} {self.thing(p[0])} ({p[1]} stamina)")
        return f"Turn {n['turn']}: " + "; ".join(plays) + "." if plays else None

    def n_TurnResolved(self, n):
        hits = []
        for e in n.get("log") or []:
            if "dealt" in e:
                target = e.get("target")
                hits.append(f"{self.who(e.get('seat'))} hits "
                            f"{self.who(target) if isinstance(target, int) else 'the monster'}"
                            f" for {e['dealt']}")
        return ("Turn " + str(n.get("turn")) + ": " + "; ".join(hits) + ".") if hits else None

    def n_MonsterBattleEnded(self, n):
        won = "beat the monster" if n.get("won") else "lose to the monster"
        return f"The players {won}; tokens: {self._tokens(n.get('tokens'))}."

    def n_PvPEnded(self, n):
        return (f"{self.who(n['winner'])} beats {self.who(n['loser'])}; tokens: "
                f"{self._tokens(n.get('tokens'))}.")

    def n_CardBought(self, n):
        return (f"{self.who(n['seat'])} buys {self.thing(n['card'])} for {n['cost']} "
                f"{n.get('token', '')} tokens.")

    def n_Upgraded(self, n):
        return (f"{self.who(n['seat'])} upgrades {n['stat']} for {n['cost']} "
                f"{n.get('token', '')} tokens.")

    def n_PvPPaired(self, n):
        pairs = "; ".join(f"{self.who(a)} v {self.who(b)}" for a, b in n.get("pairings") or [])
        byes = n.get("byes") or []
        return f"PvP: {pairs}" + (f"; {self.whos(byes)} sit out" if byes else "") + "."

    def _tokens(self, tokens):
        return ", ".join(f"{self.who(int(s))} {v}" for s, v in (tokens or {}).items()) or "none"


def _words(kind: str) -> str:
    out = []
    for ch in kind:
        if ch.isupper() and out:
            out.append(" ")
        out.append(ch.lower() if out else ch)
    return "".join(out).replace("pv p", "PvP").replace("gdp", "GDP")


def _nth(n) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _join(names) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def transcript(game, records) -> list:
    """The game in words, line by line: a heading at every new round and phase, then what each
    command did (public notices only)."""
    lines = []
    where = [None]
    seen = set()

    def each(rec, state):
        teller = Teller(game, state, seen)
        notices = [n for n in state.notices if "to" not in n]
        kinds = {n["kind"] for n in notices}
        for n in notices:
            if n["kind"] == "ChoiceLocked" and "ExportPlaced" in kinds:
                continue                      # "places an Export face down" says it
            if (n["kind"] == "ChoicesRevealed" and "ExportsFlipped" in kinds
                    and str(n.get("window", "")).startswith("export-")):
                continue                      # "Exports flipped" lists them all
            if n["kind"] == "PhaseBegan":
                ph = game.phases.get(n["phase"])
                label = (ph.label if ph is not None and ph.label else n["phase"])
                rnd = n.get("round", state.round)
                if rnd != where[0]:
                    lines.append("")
                    lines.append(f"== Round {rnd} ==" if rnd else "== Set-up ==")
                    where[0] = rnd
                lines.append(f"-- {label} --")
                continue
            text = teller.tell(n)
            if text:
                lines.append("  " + text)
        if rec is not None and rec.get("kind") == "move" and not any(
                n["kind"] != "PhaseBegan" for n in notices):
            move = game.moves.get(rec.get("move"))
            label = move.title() if move is not None else rec.get("move")
            lines.append(f"  {teller.who(rec.get('seat'))}: {label}.")

    start = records[0]
    lines.append(f"{game.title}: {', '.join(start['players'])}"
                 + (f" ({lab_games.edition_of(game, start.get('options'))})"
                    if lab_games.edition_of(game, start.get('options')) else ""))
    walk(game, records, each)
    return lines
