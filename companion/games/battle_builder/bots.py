"""Battle Builder bots: ``bot(game, view, rng) -> (move, args)`` answering ``view.prompt``;
``view`` is the seat's :class:`BBObservation`: public facts (decks, tokens, HP, monsters, the
battles) and the seat's own prompt, never the state.

* ``random``: any legal answer, uniformly.
* ``greedy``: a reasonable player. Picks the monster with the best expected reward for its
  team's strength, plays its strongest card, spends stamina over the turns it expects the
  battle to last (and all it needs to strike first when a kill is in reach), buys the upgrade
  that adds the most damage, block or HP per token.
"""

from companion.core.views import Observation

from .greedy import (  # noqa: F401  (re-exported; its home is .greedy)
    greedy_bot, win_chance, _affordable_cards, _affordable_upgrades, _play_args, _thin)


class BBObservation(Observation):
    """The table as Battle Builder's bots read it: every seat's decks, tokens and HP, the
    teams, the battles and the monsters picked (all on the table), and what things cost the
    seat; and for the search bot the whole state with what the seat cannot see blanked
    (:meth:`known`)."""
    __slots__ = ("_known",)

    def __init__(self, game, state, seat):
        super().__init__(game, state, seat)
        self._known = None

    def __getattr__(self, name):
        if name in _PUBLIC:
            return getattr(self._state.data, name)
        raise AttributeError(name)

    def known(self):
        """The state as far as this seat knows it: a lean copy with the decks' order, the
        unseen monsters, the others' objectives and locked choices blanked and a fixed random
        stream (:func:`.redeal.blank`). Built once per observation; a search copies it, never
        changes it."""
        if self._known is None:
            from .redeal import blank
            self._known = blank(self.game, self._state, self.seat)
        return self._known

    def active_abilities(self):
        return self.game.active_abilities(self._state)

    def max_hp(self, seat):
        from .battle import max_hp
        return max_hp(self.game, self._state, seat)

    def team_of(self, seat):
        return self.game.team_of(self._state, seat)

    def card_cost(self, cid):
        return self.game.card_cost(self._state, self.seat, cid)

    def upgrade_cost(self, stat):
        return self.game.upgrade_cost(self._state, self.seat, stat)

    def deck_value(self, seat):
        return self.game.deck_value(self._state, seat)

    def wallet(self):
        return self.game.wallet(self._state, self.seat)

    def system(self):
        return self.game.system(self._state)


_PUBLIC = frozenset(("attack", "defense", "tokens", "teams", "battles", "battle_of", "hp",
                     "picks"))


# -- shared helpers ------------------------------------------------------------------------------


# -- random ----------------------------------------------------------------------------------------

def random_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    seat = view.seat
    if "play_turn" in moves:
        cards = game.rules.cards
        playable = [c for c in p["cards"] if cards[c].min_stamina <= p["stamina"]]
        if not playable:
            return "play_turn", _play_args(game, view, rng.choice(p["cards"]), 0, p)
        card = rng.choice(playable)
        lo = cards[card].min_stamina
        stamina = rng.randint(lo, min(p["stamina"], lo + 8))
        args = {"card": card, "stamina": stamina}
        if "targets" in p:
            args["target"] = rng.choice(p["targets"])
        return "play_turn", args
    if "extra_attack" in moves:
        return "extra_attack", {"card": rng.choice(p["cards"])}
    if "choose_monster" in moves:
        return "choose_monster", {"monster": rng.choice(p["options"])}
    if "bid_auction" in moves:
        return "bid_auction", {"tokens": rng.randint(0, min(3, p["most"]))}
    if "pick_monster" in moves:
        return "pick_monster", {"monster": rng.choice(p["pool"])}
    if "prepare" in moves:
        if "roles" in p:
            return "prepare", {"role": rng.choice(p["roles"])}
        if p["most"] > 0 and rng.random() < 0.5:
            return "prepare", {"bet": rng.choice(p["bets"]),
                               "stake": rng.randint(1, p["most"])}
        return "prepare", {}
    if "done_shopping" in moves:
        options = [("buy", {"card": c}) for c, _ in _affordable_cards(game, view)]
        options += [("upgrade", {"stat": s}) for s, _ in _affordable_upgrades(game, view)]
        if "convert" in moves:
            types = view.system().types
            give = [t for t in types if view.tokens[seat][t] >= game.rules.conversion[0]]
            if give:
                g = rng.choice(give)
                options.append(("convert", {"give": g, "get": rng.choice(
                    [t for t in types if t != g])}))
        if not options or rng.random() < 0.3:
            return "done_shopping", {}
        move, args = rng.choice(options)
        if move == "buy":
            rem = _thin(game, view, args["card"])
            if rem is not None and rng.random() < 0.5:
                args["remove"] = rem
        return move, args
    if "vote_pvp" in moves:
        return "vote_pvp", {"pvp": rng.random() < 0.5}
    if "choose_opponent" in moves:
        return "choose_opponent", {"opponent": rng.choice(p["candidates"])}
    if "prepare_pvp" in moves:
        return "prepare_pvp", _random_pvp_prep(p, rng)
    if "choose_pile" in moves:
        return "choose_pile", {"pile": rng.choice(["a", "b"])}
    if "keep_objective" in moves:
        return "keep_objective", {"index": rng.randrange(len(p["options"]))}
    raise RuntimeError(f"random bot cannot answer {moves}")


def _random_pvp_prep(p, rng):
    args = {}
    budget = None
    if "wager" in p:
        lo, hi = p["wager"]
        args["wager"] = rng.randint(lo, min(hi, lo + 3))
        budget = hi - args["wager"]
    if "revenge" in p and rng.random() < 0.7:
        args["revenge"] = rng.choice(p["revenge"])
    if "bet_on" in p and rng.random() < 0.5:
        hi = p["stake"][1] if budget is None else min(p["stake"][1], budget)
        if hi >= 1:
            args["bet_on"] = rng.choice(p["bet_on"])
            args["stake"] = rng.randint(1, hi)
    return args


# -- greedy ----------------------------------------------------------------------------------------


# -- casual ----------------------------------------------------------------------------------------

#: How often the casual bot answers as the random bot would instead of the greedy one.
CASUAL_SLIPS = 0.2


def casual_bot(game, view, rng):
    """A table of ordinary players: greedy, but one answer in five (``CASUAL_SLIPS``) is any
    legal answer, as a player who misreads a card or tries something. Calibration plays it by
    default (docs/lab.md, "Calibration"): greedy bots alone decide a battle the same way on every
    deal, so their win rate against a monster falls as a staircase, not a slope."""
    if rng.random() < CASUAL_SLIPS:
        return random_bot(game, view, rng)
    return greedy_bot(game, view, rng)


def search_bot(iterations, horizon=0, model=greedy_bot):
    """The information-set search bot (companion/core/search.py) with a thinking budget of
    ``iterations`` re-deals per decision (:mod:`.redeal`); the other seats and the rollouts
    are played by ``model``. A rollout stops ``horizon`` battles after the current one (None:
    at the end of the game; 0: at the end of the current battle's select-battle-shop-PvP
    cycle) and is scored by :func:`.redeal.evaluate`. Horizon 1 won about as often against
    greedy bots in a small run at half the speed (docs/lab.md, "Battle Builder")."""
    from companion.core.search import Searcher

    from . import redeal
    return Searcher(iterations, redeal.redeal, redeal.candidates, redeal.evaluate, model,
                    horizon=horizon)


BOTS = {"random": random_bot, "greedy": greedy_bot, "casual": casual_bot,
        "search-100": search_bot(100), "search-400": search_bot(400)}
__all__ = ["BOTS", "BBObservation"]
