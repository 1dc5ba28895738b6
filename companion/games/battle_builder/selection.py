"""Secret objectives (victory Variant C) and monster selection: the vote, the auction and the dual
monster pick."""
from companion.core.errors import IllegalMoveError

from .common import _int


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
            state.note("ObjectivesDealt", to=s, objectives=list(d.objective_offer[s]))

    def _keep_objective(self, state, seat, index):
        offer = state.data.objective_offer[seat]
        _int(index, "index", 0, len(offer) - 1)
        state.data.objective[seat] = offer[index]
        state.data.objective_offer[seat] = []
        state.clear_prompt(seat)
        state.note("ObjectiveKept", seat=seat)

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
                state.note("MonstersDrawn", to=s, monsters=list(d.dual_draws[s]))
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
                     "order": order, "picked": []}
        state.note("AuctionRevealed", bids=d.auction["bids"], order=order)
        self._next_auction_pick(state)

    def _next_auction_pick(self, state):
        d = state.data
        a = d.auction
        for s in a["order"]:
            k = self.team_of(state, s)
            if k not in a["picked"] and d.pool:
                state.prompt(s, ("pick_monster",), pool=list(d.pool),
                             bid=a["bids"][str(s)])
                return
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
        state.clear_prompt(seat)
        state.note("MonsterPicked", seat=seat, team=d.teams[k], monster=monster, paid=paid)
        self._next_auction_pick(state)
