"""Market Trading's greedy bot: trades, builds and forage choices a greedy seat makes, played by
the bots and by the re-deals' rollouts (:mod:`.redeal`). Apart from :mod:`.bots` so that the re-
deals can use it without importing the search bot that uses them.
"""
import functools


MAX_TRADES = 2          # per turn, for both bots: keeps a bot turn short


def _legal_trade(game, view, give, take):
    d = view
    cap = game.rules.market_cap
    if give == take or d.hand.get(give, 0) < 1 or d.market.get(take, 0) < 1:
        return False
    return d.market[give] < cap and game.value[take] <= game.value[give]


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
