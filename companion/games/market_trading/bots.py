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
import functools

from companion.core.views import Observation

MAX_TRADES = 2          # per turn, for both bots: keeps a bot turn short


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


def _legal_trade(game, view, give, take):
    d = view
    cap = game.rules.market_cap
    if give == take or d.hand.get(give, 0) < 1 or d.market.get(take, 0) < 1:
        return False
    return d.market[give] < cap and game.value[take] <= game.value[give]


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

def greedy_bot(game, view, rng):
    moves = view.prompt["moves"]
    d = view
    if "end_step" in moves:
        return _trade_step(game, view)
    if "build" in moves:
        best, best_v = None, 0.0
        for cid in view.affordable():
            v = _build_value(game, view, cid)
            if v > best_v:
                best, best_v = cid, v
        if best is not None and d.bowl[view.seat] > 6:
            return "build", {"improvement": best}
        return "skip_build", {}
    if "forage" in moves:
        tile = _forage_tile(game, view)
        return ("forage", {"tile": tile}) if tile is not None else ("skip_forage", {})
    raise RuntimeError(f"greedy bot cannot answer {moves}")


def _trade_step(game, view):
    """The improvement that adds the most value; else a useful trade (:func:`_useful_trade`,
    at most MAX_TRADES a turn); else the end of the step."""
    hand, market, cap = view.hand, view.market, game.rules.market_cap
    converts, profit = game.converts, game.profit
    lacks = {}                          # each usable improvement: the inputs the hand lacks
    best, best_v = None, 0
    for cid in view.usable():
        cin, cout = converts[cid]
        lacks[cid] = lack = []
        for k, n in cin.items():
            if hand.get(k, 0) < n:
                lack.append(k)
        if lack:
            continue
        v = profit[cid]
        for k in cin:
            if market[k] + hand[k] > cap:
                v += 2                                  # its inputs would score nothing
                break
        for k in cout:
            if market[k] >= cap:
                v -= 10                                 # its output would score nothing
                break
        if v > best_v:
            best, best_v = cid, v
    if best is not None:
        return "improve", {"improvement": best}
    if view.turn_trades < MAX_TRADES:
        t = _useful_trade(game, hand, market, lacks)
        if t is not None:
            return "trade", {"give": {t[0]: 1}, "take": {t[1]: t[2] if len(t) > 2 else 1}}
    return "end_step", {}


def _useful_trade(game, hand, market, lacks):
    """(give, take) of one copy each: the missing input of an improvement, or a copy that a
    full market would not pay for swapped for one that scores. ``hand`` and ``market``: the
    observation's; ``lacks``: each usable improvement with the inputs the hand lacks (in its
    order of inputs)."""
    cap, value, converts = game.rules.market_cap, game.value, game.converts
    keep = set()
    for cid, missing in lacks.items():
        cin = converts[cid][0]
        keep.update(cin)
        if len(missing) == 1 and hand.get(missing[0], 0) + 1 >= cin[missing[0]] and \
                market[missing[0]] > 0:
            take = missing[0]
            for give in hand:
                if give not in cin and value[give] >= value[take] and market[give] < cap:
                    return give, take
    # drain a full market: one valuable copy for the inputs an improvement needs
    for cid, missing in lacks.items():
        cin = converts[cid][0]
        for x in missing:
            k = cin[x] - hand.get(x, 0)
            if market[x] < k or market[x] < cap - 1:
                continue
            for give in hand:
                if give not in cin and market[give] < cap and value[give] >= k * value[x]:
                    return give, x, k
    for give, n in hand.items():
        if give in keep or market[give] >= cap or market[give] + n <= cap:
            continue                                    # every copy still scores
        for take, m in market.items():
            if m and take != give and value[take] <= value[give] and \
                    m - 1 + hand.get(take, 0) < cap:
                return give, take
    return None


def _build_value(game, view, cid):
    r, converts = game.rules, game.converts
    imp = r.improvements[cid]
    seat = view.seat
    owned, yields, market, cap = view.built[seat], view.yields[seat], view.market, r.market_cap
    v = 0.0
    if cid in converts:
        cin, cout = converts[cid]
        supply = 0
        for k in cin:
            if r.resources[k].terrain is not None:
                supply += yields.count(k)                   # the tiles that yield it
            else:                                           # fed by another improvement we own
                for o in owned:
                    if o in converts and k in converts[o][1]:
                        supply += 6
        v += (game.profit[cid] + 1) * min(supply, 8) / 4.0
        if cid in owned:
            v *= 0.3
        for k in cout:
            if market[k] >= cap:
                v *= 0.2
                break
    for e in (imp.on_forage, imp.on_build):
        if e is not None:
            for terrain, n in e.extra:
                res = r.t1_of[terrain]
                if market[res] < cap - 1 and res in yields:
                    v += n
            gain = 0
            for _, n in e.gain:
                gain += n
            v += 0.5 * gain + e.points
    if cid not in converts and game.converters.isdisjoint(owned):
        v *= 0.3                                     # first, something that adds value
    return v


@functools.lru_cache(maxsize=4096)
def _forage_bonus(game, built):
    """What the improvements of ``built`` (a tuple; it changes only with a build) add to a
    forage: the resources they convert (``feeds``) and the extra On Forage puts on a terrain."""
    feeds, extra = set(), {}
    converts, on_forage = game.converts, game.on_forage
    for cid in built:
        e = on_forage.get(cid)
        if e is not None:
            for t, n in e.extra:
                extra[t] = extra.get(t, 0) + n
        if cid in converts:
            feeds.update(converts[cid][0])
    return feeds, extra


def _forage_tile(game, view):
    """A tile whose resource the market still pays for, or that feeds an improvement; spread
    out over empty tiles (every pile yields one per harvest)."""
    r = game.rules
    seat = view.seat
    piles = view.piles[seat]
    market, cap = view.market, r.market_cap
    feeds, extra = _forage_bonus(game, tuple(view.built[seat]))
    hand = view.hand if view.options["forage_source"] == "hand" else None
    forage, t1_of, pile_of = r.forage, r.t1_of, piles.__getitem__
    best, best_v = None, None
    for terrain, tiles in view.tiles_of[seat].items():
        res = t1_of[terrain]
        if hand is not None and hand.get(res, 0) < forage:
            continue
        m = market[res]
        w = 3 if m < cap - 1 else (1 if m < cap else 0)
        if res in feeds:
            w += 4
        if w and extra:
            w += 2 * extra.get(terrain, 0)
        if best_v is not None and w * 10 < best_v:
            continue                        # v is w * 10 less a pile: it cannot reach best_v
        for low in tiles:                   # the first tile with the least: an empty one,
            if not piles[low]:              # the usual case, or else (slower) the least pile
                break
        else:
            low = min(tiles, key=pile_of)
        v = w * 10 - piles[low]
        if best_v is None or v > best_v or (v == best_v and low < best):
            best, best_v = low, v
    return best


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
