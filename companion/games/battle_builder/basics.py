"""Battle Builder's basics: the arc, tokens and wallets, the monster and effect decks, teams."""
from .common import PAIRINGS_4


class Basics:
    """The arc, tokens, draws and teams (a part of :class:`~.game.BattleBuilder`)."""

    def _monster_pool(self, state):
        want = state.config["monster_pool"]
        return [mid for mid, m in self.rules.monsters.items()
                if want == "all" or m.difficulty == want]

    def active_abilities(self, state):
        return self._ability_sets[state.config["monster_abilities"]]

    def arc(self, state):
        return self.rules.arcs[state.config["arc"]]

    # == tokens ===================================================================================
    def system(self, state):
        return self.rules.systems[state.config["tokens"]]

    def wallet(self, state, seat):
        return sum(state.data.tokens[seat].values())

    def _gain_spread(self, state, seat, n, offset=0):
        """Pay ``n`` tokens round-robin across the system's types (base rewards, winnings)."""
        types = self.system(state).types
        tok = state.data.tokens[seat]
        for k in range(n):
            tok[types[(offset + k) % len(types)]] += 1

    def _pay_any(self, state, seat, n):
        """Take ``n`` tokens from the seat's largest piles first (bids, wagers, pots)."""
        tok = state.data.tokens[seat]
        types = self.system(state).types
        paid = 0
        while paid < n:
            t = max(types, key=lambda k: (tok[k], -types.index(k)))
            if tok[t] <= 0:
                break
            tok[t] -= 1
            paid += 1
        return paid

    def deck_value(self, state, seat):
        cards, values = self.rules.cards, self.rules.shop["card_value"]
        d = state.data
        return sum(values[cards[c].tier] for c in d.attack[seat] + d.defense[seat])

    # == draws ====================================================================================
    def _draw_monster(self, state):
        d = state.data
        if not d.monster_deck:
            d.monster_deck, d.monster_discard = d.monster_discard, []
            if not d.monster_deck:                # every card is out: shuffle in another set
                d.monster_deck = list(self._monster_pool(state))
            state.rng.shuffle(d.monster_deck)
            state.note("MonsterDeckShuffled", cards=len(d.monster_deck))
        return d.monster_deck.pop()

    def _draw_effect(self, state, key):
        d = state.data
        deck = d.env_deck if key == "environment" else d.arena_deck
        if not deck:
            deck.extend(self.rules.environments if key == "environment" else self.rules.arenas)
            state.rng.shuffle(deck)
        return deck.pop()

    def teams_for(self, state, battle_no):
        n = state.n
        if n < 4:
            return [list(range(n))]
        if state.config["teams"] == "fixed":
            return [list(t) for t in state.data.fixed_teams]
        return [list(t) for t in PAIRINGS_4[(battle_no - 1) % 3]]

    def team_of(self, state, seat):
        for k, team in enumerate(state.data.teams):
            if seat in team:
                return k
        return None
