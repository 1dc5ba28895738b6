"""Secret objectives (victory Variant C) and monster selection: the vote, the auction and the dual
monster pick."""
from companion.core.errors import IllegalMoveError

from .common import _and, _int, _or, _tokens


class Selection:
    """The objectives and select phases (a part of :class:`~.game.BattleBuilder`)."""

    # == objectives (victory Variant C) =========================================================
    def _begin_objectives(self, state):
        if state.config["victory"] != "objectives":
            return
        d = state.data
        deck = list(self.rules.objectives)
        state.rng.shuffle(deck)
        k = self.rules.victory["objectives_dealt"]
        for s in state.seats():
            d.objective_offer[s] = [deck.pop() for _ in range(k)]
            state.prompt(s, ("keep_objective",), options=list(d.objective_offer[s]))
            names = _and(self.rules.objectives[o].name for o in d.objective_offer[s])
            state.note("ObjectivesDealt", to=s, objectives=list(d.objective_offer[s]),
                       says=f"Your secret objectives to choose from: {names}. Keep one.")

    def _keep_objective(self, state, seat, index):
        offer = state.data.objective_offer[seat]
        _int(index, "index", 0, len(offer) - 1)
        state.data.objective[seat] = offer[index]
        state.data.objective_offer[seat] = []
        state.clear_prompt(seat)
        state.note("ObjectiveKept", seat=seat)
        o = self.rules.objectives[offer[index]]
        state.note("YourObjective", to=seat, objective=offer[index],
                   says=f"You keep the secret objective {o.name} ({o.text}).")

    # == monster selection ========================================================================
    def _begin_select(self, state):
        state.round += 1
        d, cfg = state.data, state.config
        d.teams = self.teams_for(state, state.round)
        d.picks = [[] for _ in d.teams]
        d.offers, d.pool, d.dual_draws, d.auction, d.prep = [], [], {}, None, {}
        d.battles = {}
        r = self.rules
        if cfg["dual_monsters"]:
            for s in state.seats():
                d.dual_draws[s] = [self._draw_monster(state) for _ in
                                   range(r.select["dual_draw"])]
            w = state.open_window(f"monster-{state.round}", "monster", list(state.seats()),
                                  self._monsters_revealed, default=None,
                                  label=f"Battle {state.round}: monster picks")
            for s in state.seats():
                state.prompt(s, ("choose_monster",), window=w.id, mode="dual",
                             options=list(d.dual_draws[s]))
                names = _and(self.rules.monsters[m].name for m in d.dual_draws[s])
                state.note("MonstersDrawn", to=s, monsters=list(d.dual_draws[s]),
                           says=f"You drew {names}: choose in secret which one your team "
                                f"fights.")
            return
        if cfg["monster_select"] == "auction":
            d.pool = [self._draw_monster(state) for _ in
                      range(len(d.teams) + r.select["auction_extra"])]
            w = state.open_window(f"auction-{state.round}", "auction", list(state.seats()),
                                  self._auction_revealed, default=0,
                                  label=f"Battle {state.round}: monster auction")
            for s in state.seats():
                state.prompt(s, ("bid_auction",), window=w.id, most=self.wallet(state, s),
                             pool=list(d.pool))
            state.note("MonstersOffered", pool=list(d.pool))
            return
        d.offers = [[self._draw_monster(state) for _ in range(r.select["draw"])]
                    for _ in d.teams]
        w = state.open_window(f"monster-{state.round}", "monster", list(state.seats()),
                              self._monsters_revealed, default=None,
                              label=f"Battle {state.round}: monster vote")
        for s in state.seats():
            state.prompt(s, ("choose_monster",), window=w.id, mode="vote",
                         options=list(d.offers[self.team_of(state, s)]))
        state.note("MonstersOffered", offers=[list(o) for o in d.offers])

    def _choose_monster(self, state, seat, monster):
        options = state.prompts[seat]["options"]
        if monster not in options:
            names = ", ".join(f"{self.rules.monsters[m].name} ({m})" for m in options)
            raise IllegalMoveError(f"{monster!r} is not a monster you can choose; choose one "
                                   f"of {names}.")
        return monster

    def _monsters_revealed(self, state, window):
        d = state.data
        choices = window.revealed()
        if state.config["dual_monsters"]:
            for k, team in enumerate(d.teams):
                for s in team:
                    draw = d.dual_draws[s]
                    pick = choices.get(s)
                    if pick not in draw:                  # defaulted: the first card drawn
                        pick = draw[0]
                    d.picks[k].append(pick)
                    d.monster_discard.extend(m for m in draw if m != pick)
        else:
            for k, team in enumerate(d.teams):
                offer = d.offers[k]
                votes = {m: 0 for m in offer}
                for s in team:
                    if choices.get(s) in votes:
                        votes[choices[s]] += 1
                top = max(votes.values())
                tied = [m for m in offer if votes[m] == top]
                pick = tied[0] if len(tied) == 1 else state.rng.choice(tied)
                d.picks[k] = [pick]
                d.monster_discard.extend(m for m in offer if m != pick)
                state.note("MonsterVoted", team=team, monster=pick, votes=votes,
                           tie=len(tied) > 1)
        self._count_choices(state)

    def _count_choices(self, state):
        d = state.data
        for picks in d.picks:
            for m in picks:
                d.track["choices"][self.rules.monsters[m].difficulty] += 1

    def _bid_auction(self, state, seat, tokens):
        most = self.wallet(state, seat)
        if most == 0 and tokens != 0:
            _int(tokens, "Your bid", 0)
            raise IllegalMoveError("You have no tokens to bid; bid 0.")
        return _int(tokens, "Your bid", 0, most)

    def _auction_revealed(self, state, window):
        d = state.data
        bids = window.revealed()
        order = list(state.seats())
        state.rng.shuffle(order)                                 # seeded tiebreak
        order.sort(key=lambda s: -(bids.get(s) or 0))
        d.auction = {"bids": {str(s): bids.get(s) or 0 for s in state.seats()},
                     "order": order, "picked": [], "won": [], "unpicked": None}
        if state.lean:
            state.note("AuctionRevealed", bids=d.auction["bids"], order=order)
        else:
            state.note("AuctionRevealed", bids=d.auction["bids"], order=order,
                       says=self._auction_words(state)[0])
        self._next_auction_pick(state)

    # -- the auction in words (the prompt's lot, the reveal, each pick) --------------------------
    def auction_unit(self, state):
        """What a bid is counted in: System A's skill tokens, or tokens of any type (a bid is
        paid from the largest piles first, ruling 4)."""
        if len(self.system(state).types) == 1:
            return "tokens"
        return "tokens of any type (your largest piles pay)"

    def auction_question(self, state, pool):
        """The bid's question: its unit and what it buys, the first pick of the monsters up
        for auction (one team), or the team's pick (several teams: the top bidder of each
        picks, highest first)."""
        names = _or(self.rules.monsters[m].name for m in pool)
        unit = self.auction_unit(state)
        if len(state.data.teams) == 1:
            return (f"Your bid, in {unit}, for the first pick of {names} (the highest bid "
                    f"picks and pays it; a tie goes by lot)")
        return (f"Your bid, in {unit}, for your team's pick of {names} (the top bidder of each "
                f"team picks, highest bid first, and pays it; a tie goes by lot)")

    def _auction_pickers(self, state):
        """The seats that pick, in order: the first bidder of each team (ruling 4)."""
        a, served, out = state.data.auction, set(), []
        for s in a["order"]:
            k = self.team_of(state, s)
            if k not in served:
                served.add(k)
                out.append(s)
        return out

    def _auction_words(self, state):
        """The auction in sentences: every bid with its unit and who picks (ties by lot), then
        each pick: the monster, for whom, what was paid (and what nobody picked)."""
        d, p = state.data, state.players
        a = d.auction
        bids = {int(s): b for s, b in a["bids"].items()}
        pickers = self._auction_pickers(state)
        one = len(d.teams) == 1
        said = ", ".join(f"{p[s]} {'bid ' if i == 0 else ''}{_tokens(bids[s])}"
                         for i, s in enumerate(state.seats()))
        first = pickers[0]
        top = bids[first]
        tied = [s for s in state.seats() if bids[s] == top]
        team = _and(p[x] for x in d.teams[self.team_of(state, first)])
        if top == 0:
            head = f"Nobody bid: by lot, {p[first]} picks first"
            pays = "pays nothing"
        else:
            head = (f"{_and(p[s] for s in tied)} tied at {_tokens(top)}: by lot, "
                    if len(tied) > 1 else "") + f"{p[first]} wins the first pick"
            pays = f"pays {_tokens(top)}"
        if one:
            reveal = f"Auction for the first pick: {said}. {head} and {pays}."
        else:
            rest = "; then " + "; then ".join(
                f"{p[s]} for {_and(p[x] for x in d.teams[self.team_of(state, s)])}, paying "
                f"{_tokens(bids[s]) if bids[s] else 'nothing'}" for s in pickers[1:])
            head = head.replace(" wins the first pick", " picks first")
            reveal = (f"Auction for the teams' picks: {said}. {head} for {team} and {pays}"
                      f"{rest if pickers[1:] else ''}.")
        lines = [reveal]
        for i, w in enumerate(a["won"]):
            s = w["seat"]
            who = f"{p[s]} won the auction" if i == 0 else f"{p[s]} picked next"
            paid = f"paid {_tokens(w['paid'])}" if w["paid"] else "paid nothing"
            line = (f"{who}: {self.rules.monsters[w['monster']].name} for "
                    f"{_and(p[x] for x in d.teams[w['team']])}, {paid}.")
            if i == len(a["won"]) - 1 and a["unpicked"]:
                line += (" Not picked: " +
                         _and(self.rules.monsters[m].name for m in a["unpicked"]) + ".")
            lines.append(line)
        return lines

    def _next_auction_pick(self, state):
        d = state.data
        a = d.auction
        for s in a["order"]:
            k = self.team_of(state, s)
            if k not in a["picked"] and d.pool:
                state.prompt(s, ("pick_monster",), pool=list(d.pool),
                             bid=a["bids"][str(s)])
                return
        a["unpicked"] = list(d.pool)
        d.monster_discard.extend(d.pool)
        d.pool = []
        self._count_choices(state)

    def _pick_monster(self, state, seat, monster):
        d = state.data
        if monster not in d.pool:
            raise IllegalMoveError(f"{monster!r} is not in the pool; choose one of "
                                   f"{', '.join(d.pool)}.")
        k = self.team_of(state, seat)
        bid = d.auction["bids"][str(seat)]
        paid = self._pay_any(state, seat, bid)
        d.pool.remove(monster)
        d.picks[k] = [monster]
        d.auction["picked"].append(k)
        d.auction["won"].append({"seat": seat, "team": k, "monster": monster, "paid": paid})
        state.clear_prompt(seat)
        self._next_auction_pick(state)            # the last pick: what nobody picked is known
        if state.lean:
            state.note("MonsterPicked", seat=seat, team=d.teams[k], monster=monster, paid=paid)
        else:
            state.note("MonsterPicked", seat=seat, team=d.teams[k], monster=monster, paid=paid,
                       says=self._auction_words(state)[-1])
