"""What each Market Trading move may be, as argument specs (companion/core/choices.py): trades
as the exchanges the market allows, improvements and tiles by name.

Computed only for views (``Move.choices``), never in simulation. Everything here is public
except the order of the improvements deck, which no spec names.

**Trades.** A player first picks what to *take* (one kind of resource, any number of copies
the market holds), then what to *give* for it: every smallest bundle from the hand that pays
for it (giving one copy fewer would pay too little; overpaying on purpose scores nothing, and
what is left is donated for points anyway). Each pair the two lists allow is a legal trade: the
market has the copies, the given resources have room in their markets, nothing goes both ways,
and the value given covers the value taken. Taking two kinds takes two trades.
"""
from companion.core import choices as c


def amounts(game, bundle):
    """``{"grain": 3, "stone": 1}`` -> "3 Grain + 1 Stone" (in resource order)."""
    return " + ".join(f"{bundle[k]} {game.names[k]}" for k in game.order if bundle.get(k))


def _worth(game, bundle):
    return sum(game.value[k] * n for k, n in bundle.items())


def giveable(game, state):
    """``{resource: copies}`` the active hand can give: what it holds, as far as each market
    has room."""
    d, cap = state.data, game.rules.market_cap
    return {k: min(n, cap - d.market[k]) for k, n in d.hand.items() if d.market[k] < cap}


def _smallest_gives(game, avail, want):
    """Every bundle from ``avail`` ({resource: copies}) worth at least ``want`` from which no
    single copy can be left out (minimal), fewest copies first."""
    value = game.value
    kinds = [(k, avail[k], value[k]) for k in game.order if avail.get(k)]
    out = []

    def walk(i, bundle, total):
        if total >= want:
            if total - min(value[k] for k in bundle) < want:
                out.append(dict(bundle))
            return
        if i == len(kinds):
            return
        k, most, v = kinds[i]
        for n in range(most + 1):
            if n:
                bundle[k] = n
            walk(i + 1, bundle, total + n * v)
            if total + n * v >= want:
                break
        bundle.pop(k, None)

    walk(0, {}, 0)
    out.sort(key=lambda b: (sum(b.values()), [game.order.index(k) for k in b]))
    return out


def trades(game, state):
    """``[(take, [give, ...]), ...]``: each take the market allows with the smallest bundles
    that pay for it (all legal trades of one kind of resource)."""
    d = state.data
    avail = giveable(game, state)
    out = []
    for k in game.order:
        m = d.market[k]
        if not m:
            continue
        others = {g: n for g, n in avail.items() if g != k}
        most = sum(game.value[g] * n for g, n in others.items())
        for n in range(1, m + 1):
            want = n * game.value[k]
            if want > most:
                break
            gives = _smallest_gives(game, others, want)
            if gives:
                out.append(({k: n}, gives))
    return out


def trade(game, state, seat):
    """``take`` (what you want from the market), then ``give`` (what you pay from your hand),
    each option only with the takes it pays for."""
    take_opts, give_opts, whens = [], [], {}
    key = {}
    for take, gives in trades(game, state):
        take_opts.append(c.option(take, amounts(game, take),
                                  f"worth {_worth(game, take)} · the market has "
                                  f"{state.data.market[next(iter(take))]}"))
        for give in gives:
            k = tuple(sorted(give.items()))
            if k not in key:
                key[k] = give
                whens[k] = []
            whens[k].append(take)
    for k, give in sorted(key.items(), key=lambda kv: (sum(kv[1].values()),
                                                        [game.order.index(r) for r in kv[1]])):
        give_opts.append(c.option(give, amounts(game, give), f"worth {_worth(game, give)}",
                                  when={"take": whens[k]}))
    return [c.one("take", take_opts, "Take from the market"),
            c.one("give", give_opts, "Give from your hand")]


def improvement_text(game, cid):
    return game.rules.improvements[cid].text(game.names).replace("->", "→")


def improve(game, state, seat):
    """``improvement``: each converter you own by name with what it makes; one you have used
    (as often as the rules allow) or cannot feed is shown disabled with the reason."""
    d = state.data
    usable = game.usable(state, seat)
    when = "this step" if state.config["improve_limit"] == "once-per-step" else "this turn"
    opts, seen = [], set()
    for cid in d.built[seat]:
        if cid not in game.converts or cid in seen:
            continue
        seen.add(cid)
        imp = game.rules.improvements[cid]
        why = None
        if cid not in usable:
            why = f"You have used your {imp.name} {when}."
        elif not game._has(d.hand, game.converts[cid][0]):
            why = f"It needs {amounts(game, game.converts[cid][0])} in your hand."
        extra = {"disabled": why} if why else {}
        opts.append(c.option(cid, imp.name, improvement_text(game, cid), **extra))
    return [c.one("improvement", opts, "Which improvement?")]


def build(game, state, seat):
    """``improvement``: each face-up improvement by name with its cost and effect; one you
    cannot pay for is disabled with what is missing."""
    d = state.data
    opts, seen = [], set()
    for cid in d.face_up:
        if cid in seen:
            continue
        seen.add(cid)
        imp = game.rules.improvements[cid]
        cost = dict(imp.cost)
        short = {k: n - d.hand.get(k, 0) for k, n in cost.items() if d.hand.get(k, 0) < n}
        detail = f"costs {amounts(game, cost)} · {improvement_text(game, cid)}"
        extra = {"disabled": f"You need {amounts(game, short)} more."} if short else {}
        copies = d.face_up.count(cid)
        if copies > 1:
            extra["copies"] = copies
        opts.append(c.option(cid, imp.name, detail, cost=cost, **extra))
    return [c.one("improvement", opts, "Which improvement?")]


def forage(game, state, seat):
    """``tile``: every tile of your board (row by row) with its terrain and pile; foraging from
    the hand disables the tiles whose resource you do not hold twice."""
    d, r = state.data, game.rules
    from_hand = state.config["forage_source"] == "hand"
    opts = []
    for t, terrain in enumerate(d.board[seat]):
        row, col = divmod(t, r.cols)
        res = d.yields[seat][t]
        pile = d.piles[seat][t]
        detail = f"pile {pile} → {pile + r.forage} {game.names[res]}"
        extra = {"row": row, "col": col, "terrain": terrain, "resource": res, "pile": pile}
        if from_hand and d.hand.get(res, 0) < r.forage:
            extra["disabled"] = (f"You need {r.forage} {game.names[res]} in your hand; you "
                                 f"have {d.hand.get(res, 0)}.")
        opts.append(c.option(t, f"{terrain.capitalize()}, row {row + 1} column {col + 1}",
                             detail, **extra))
    return [c.one("tile", opts, "Which tile?")]
