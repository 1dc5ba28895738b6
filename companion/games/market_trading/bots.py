"""Market Trading bots: ``bot(game, view, rng) -> (move, args)`` answering ``view.prompt``;
``view`` is the seat's :class:`MTObservation`. Everything in this game but the deck's order is
public; bots read those facts from the observation, never the state.

* ``random``: random legal actions (a few trades and improvements, random builds and forages).
* ``greedy``: uses every improvement that adds value, trades for the one resource missing to
  run an improvement, trades away copies a full market would not pay for, builds the most
  productive improvement while the game is young, forages where its improvements pay extra.
* ``search-100``, ``search-400``: the information-set search bot (:func:`search_bot`,
  :mod:`.redeal`: the deck's order re-dealt), greedy bots as its model of the others.
"""

from companion.core.views import Observation

from .greedy import MAX_TRADES, greedy_bot, _legal_trade  # noqa: F401  (re-exported; its home is .greedy)


class MTObservation(Observation):
    """The public table as Market Trading's bots read it (everything but the deck's order),
    and what the seat may do with it; for the search bot, the whole state with the deck's order
    blanked (:meth:`known`)."""
    __slots__ = ("_known",)

    def __init__(self, game, state, seat):
        super().__init__(game, state, seat)
        self._known = None

    def known(self):
        """The state as far as this seat knows it: a lean copy with the improvements deck's
        order and the random stream blanked (:func:`.redeal.blank`). Built once per
        observation; a search copies it, never changes it."""
        if self._known is None:
            from .redeal import blank
            self._known = blank(self.game, self._state, self.seat)
        return self._known

    # The public facts a bot reads (all on the table), one property each (bots read them on
    # every decision): the active hand, the market, the bowls, the trades this turn, every
    # player's yields, builds, piles and tiles.
    hand = property(lambda self: self._state.data.hand)
    market = property(lambda self: self._state.data.market)
    bowl = property(lambda self: self._state.data.bowl)
    turn_trades = property(lambda self: self._state.data.turn_trades)
    yields = property(lambda self: self._state.data.yields)
    built = property(lambda self: self._state.data.built)
    piles = property(lambda self: self._state.data.piles)
    tiles_of = property(lambda self: self._state.data.tiles_of)

    def usable(self):
        """The improvements the seat may run now."""
        return self.game.usable(self._state, self.seat)

    def affordable(self):
        """The improvements the active player can build now."""
        return self.game.affordable(self._state)


# -- random ----------------------------------------------------------------------------------------

def random_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    d = view
    if "end_step" in moves:
        x = rng.random()
        if x < 0.4:
            usable = [c for c in view.usable() if game._has(d.hand,
                                                                        game.converts[c][0])]
            if usable:
                return "improve", {"improvement": rng.choice(usable)}
        elif x < 0.6 and d.turn_trades < MAX_TRADES:
            give = rng.choice(list(d.hand)) if d.hand else None
            takes = [k for k, n in d.market.items() if n and k != give]
            if give is not None and takes:
                take = rng.choice(takes)
                if _legal_trade(game, view, give, take):
                    return "trade", {"give": {give: 1}, "take": {take: 1}}
        return "end_step", {}
    if "build" in moves:
        can = view.affordable()
        if can and rng.random() < 0.7:
            return "build", {"improvement": rng.choice(can)}
        return "skip_build", {}
    if "forage" in moves:
        if rng.random() < 0.1:
            return "skip_forage", {}
        r = game.rules
        if view.options["forage_source"] == "hand":
            ok = [t for t, res in enumerate(d.yields[view.seat]) if d.hand.get(res, 0) >= r.forage]
            if not ok:                   # asked anyway (pass_empty_steps off): nothing to place
                return "skip_forage", {}
            return "forage", {"tile": rng.choice(ok)}
        return "forage", {"tile": rng.randrange(r.rows * r.cols)}
    raise RuntimeError(f"random bot cannot answer {moves}")


# -- greedy ----------------------------------------------------------------------------------------


def search_bot(iterations, horizon=2, model=greedy_bot):
    """The information-set search bot (companion/core/search.py) with a thinking budget of
    ``iterations`` re-deals per decision (:mod:`.redeal`: only the deck's order is unseen);
    the other seats and the rollouts are played by ``model``. A rollout stops ``horizon``
    rounds after the current one (None: at the end of the game; 0: at the end of this round)
    and is scored by its lead in points (:func:`.redeal.evaluate`). Against three greedy bots
    (4 players, seat rotated, the same 40 games each) search-100 won 15% with horizon 0 (a
    rollout that ends with the round sees a build only as resources not donated, so it stops
    building), 74% with 1, 89% with 2 and 90% with whole games at 2.6 times horizon 2's CPU
    (docs/lab.md, "Market Trading")."""
    from companion.core.search import Searcher

    from . import redeal
    return Searcher(iterations, redeal.redeal, redeal.candidates, redeal.evaluate, model,
                    horizon=horizon)


BOTS = {"random": random_bot, "greedy": greedy_bot,
        "search-100": search_bot(100), "search-400": search_bot(400)}
__all__ = ["BOTS", "MTObservation"]
