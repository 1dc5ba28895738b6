"""Great Powers' greedy bot: card values and the bid a greedy seat makes, played by the bots and by
the re-deals' rollouts (:mod:`.redeal`). Apart from :mod:`.bots` so that the re-deals can use it
without importing the search bot that uses them.
"""
from itertools import repeat
from operator import add, itemgetter, sub, truediv

from .data import TRAITS


#: itemgetter(trait) made once: the greedy bid reads every trait of every other seat
_GET = {t: itemgetter(t) for t in TRAITS}


TRAIT_VP = {"army": 7, "navy": 6, "industry": 6, "population": 5.5, "nationalism": 5,
            "colony": 6}


def _payable(game, view, cid):
    if not view.options["require_payment"]:
        return True
    cost = game.rules.actions[cid].cost
    if not cost:
        return True
    tok = view.tokens[view.seat]
    for t, n in cost.items():
        if tok[t] < n:
            return False
    return True


def _leader(view):
    """The strongest opponent by VP (a natural target)."""
    tokens = view.tokens
    return max((s for s in range(view.n) if s != view.seat),
               key=lambda s: (tokens[s]["vp"], -s))


_VALUES = {}


def _card_values(game, n):
    """``{card id: worth}`` to the greedy bot at an ``n``-seat table, filled as cards are seen
    (one table per rules and count)."""
    key = (id(game.rules), n)
    table = _VALUES.get(key)
    if table is None:
        table = _VALUES[key] = {}
    return table


def _card_value(game, view, cid):
    """A card's worth to the greedy bot: its own gains, the harm to others, bid cards."""
    table = _card_values(game, view.n)
    v = table.get(cid)
    if v is None:
        a = game.rules.actions[cid]
        v = a.gain.get("vp", 0) + 1.2 * sum(n for t, n in a.gain.items() if t != "vp")
        v -= 1.2 * sum(a.cost.values())
        v += 0.9 * sum(a.target_loses.values()) + 2.0 * sum(a.steal.values())
        v += 0.5 * (view.n - 1) * sum(a.others_lose.values())
        v += 3.0 * a.extra_bids + 2.0 * a.target_fewer_bids + (1.0 if a.peek_event else 0)
        table[cid] = v
    return v


def greedy_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    tokens = view.tokens
    seat = view.seat
    if "submit_bids" in moves:
        mine = tokens[seat]
        others = tokens[:seat] + tokens[seat + 1:]                 # every seat but ours
        allowed = p["allowed"]
        rand = rng.random
        if len(allowed) > 1:
            # each allowed trait's level: ours, and the best of the others' (one pass in C)
            get = itemgetter(*allowed)
            levels, tops = get(mine), map(max, zip(*map(get, others)))
        else:
            levels = [mine[t] for t in allowed]
            tops = [max(map(_GET[t], others)) for t in allowed]
        # a trait's worth over the gap to the best of the others, TRAIT_VP[t] / (1.0 + max(gap,
        # 0)) (close behind the leader: a bid can make us highest before the Score phase),
        # worked out in C, then a little noise drawn trait by trait in the allowed order
        worth = map(truediv, map(TRAIT_VP.__getitem__, allowed),
                    map(add, repeat(1.0), map(max, map(sub, tops, levels), repeat(0))))
        scored = [(w + rand() * 0.5, t) for w, t in zip(worth, allowed)]
        scored.sort(reverse=True)
        return "submit_bids", {"traits": [t for _, t in scored[:p["count"]]]}
    if "take_action" in moves:
        actions = game.rules.actions
        pay = view.options["require_payment"]
        mine = tokens[seat]
        values = _VALUES.get((id(game.rules), len(tokens)))        # _card_values, inline
        if values is None:
            values = _card_values(game, view.n)
        best, best_v = None, None
        for c in p["cards"]:
            if pay:
                for t, n in actions[c].cost.items():        # the cost affordable?
                    if mine[t] < n:
                        v = -99
                        break
                else:
                    v = None
            else:
                v = None
            if v is None:
                v = values.get(c)
                if v is None:
                    v = _card_value(game, view, c)
            if best_v is None or v > best_v:
                best, best_v = c, v
        if best_v <= 0:
            return "take_action", {"card": best, "resolve": False}
        args = {"card": best, "resolve": True}
        if actions[best].needs_target:
            args["target"] = _leader(view)
        return "take_action", args
    if "steal_colony" in moves:
        return "steal_colony", {"target": max(p["targets"], key=lambda s: (tokens[s]["vp"],
                                                                             -s))}
    if "resolve_drawn" in moves:
        playable = [c for c in p["cards"] if _payable(game, view, c)]
        if not playable:
            return "decline_bonus", {}
        best = max(playable, key=lambda c: (_card_value(game, view, c), c))
        if _card_value(game, view, best) <= 0:
            return "decline_bonus", {}
        args = {"card": best}
        if game.rules.actions[best].needs_target:
            args["target"] = _leader(view)
        return "resolve_drawn", args
    if "pick_side" in moves:
        return "pick_side", {"player": max(p["candidates"], key=lambda s: (
            tokens[s]["army"] + tokens[s]["navy"], -s))}
    raise RuntimeError(f"greedy bot cannot answer {moves}")
