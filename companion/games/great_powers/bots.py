"""Great Powers bots. A bot is ``bot(game, view, rng) -> (move, args)`` answering
``view.prompt``; ``view`` is the seat's :class:`Observation` (public facts and its own, never
the state)."""
from companion.core.views import Observation

from .data import TRAITS
from .greedy import TRAIT_VP, greedy_bot, _payable  # noqa: F401  (re-exported; its home is .greedy)


class GPObservation(Observation):
    """What a Great Powers seat sees that its bot reads: every player's tokens (public), and
    for the search bot the whole state with what the seat cannot see blanked (:meth:`known`)."""
    __slots__ = ("_known", "_pools")

    def __init__(self, game, state, seat):
        # Observation.__init__'s slots, set here: one is built for every bot decision
        self.game, self._state, self.seat = game, state, seat
        self._view = self._legal = self._known = self._pools = None

    @property
    def tokens(self):
        return self._state.data.tokens

    def known(self):
        """The state as far as this seat knows it: a lean copy with the decks' order, the
        unseen cards, the others' peeks and locked bids blanked and a fixed random stream
        (:func:`.redeal.blank`). Built once per observation; a search copies it, never
        changes it."""
        if self._known is None:
            from .redeal import blank
            self._known = blank(self.game, self._state, self.seat)
        return self._known


def random_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    if "submit_bids" in moves:
        return "submit_bids", {"traits": rng.sample(p["allowed"], p["count"])}
    if "take_action" in moves:
        if rng.random() < 0.1:
            return "pass_action", {}
        return "take_action", _random_card(game, view, rng, p["cards"])
    if "steal_colony" in moves:
        if rng.random() < 0.2:
            return "decline_bonus", {}
        return "steal_colony", {"target": rng.choice(p["targets"])}
    if "resolve_drawn" in moves:
        playable = [c for c in p["cards"] if _payable(game, view, c)]
        if not playable or rng.random() < 0.2:
            return "decline_bonus", {}
        cid = rng.choice(playable)
        args = {"card": cid}
        if game.rules.actions[cid].needs_target:
            args["target"] = rng.choice([s for s in range(view.n) if s != view.seat])
        return "resolve_drawn", args
    if "pick_side" in moves:
        return "pick_side", {"player": rng.choice(p["candidates"])}
    raise RuntimeError(f"random bot cannot answer {moves}")


def _random_card(game, view, rng, cards):
    cid = rng.choice(cards)
    a = game.rules.actions[cid]
    resolve = _payable(game, view, cid) and rng.random() < 0.9
    args = {"card": cid, "resolve": resolve}
    if resolve and a.needs_target:
        args["target"] = rng.choice([s for s in range(view.n) if s != view.seat])
    return args


# -- greedy ----------------------------------------------------------------------------------------


def search_bot(iterations, horizon=1, model=greedy_bot):
    """The information-set search bot (companion/core/search.py) with a thinking budget of
    ``iterations`` re-deals per decision (:mod:`.redeal`); the other seats and the rollouts
    are played by ``model``. A rollout stops ``horizon`` turns after the current one (None:
    at the end of the game) and is scored by its VP lead: against three greedy bots, 24
    games each, search-100 won 42% with horizon 0, 58% with 1, 54% with 2 and 38% with whole
    games (noisier, and 2.6x slower than horizon 1; docs/lab.md)."""
    from companion.core.search import Searcher

    from . import redeal
    return Searcher(iterations, redeal.redeal, redeal.candidates, redeal.evaluate, model,
                    horizon=horizon)


BOTS = {"random": random_bot, "greedy": greedy_bot,
        "search-100": search_bot(100), "search-400": search_bot(400)}
__all__ = ["BOTS", "GPObservation", "TRAITS"]
