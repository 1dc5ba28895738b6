"""The skill ladder and balance under stronger bots (docs/lab.md, "The search bot and the
ladder").

A *rung* is one bot against the bot below it: one seat plays the stronger bot, every other seat
the weaker, the strong seat rotated over every seat on the same deals (the same game seeds), so
each deal is played once from each seat. The rung *holds* when the strong seat's win rate is
clearly above its fair share 1/n: the lower bound of its 95% Wilson interval is above it.

*Balance* asks whether the game's win rates per seat, per Leader (Trade Warz) and per turn
position (seats after the first player) look the same when every seat is played by a strong
bot as by a weak one: the two sets of rates side by side, with their Spearman rank
correlation. Balance that holds only for weak bots is a finding about the game.
"""
import math

from companion.core.play import simulate as play_simulate, wilson

RUNGS = ("random", "greedy", "search-100", "search-400")
#: The search bot a report's balance section plays (``companion report --balance``).
STRONG = "search-100"


def _z(alpha):
    """The two-sided normal quantile for ``alpha`` (statistics.NormalDist, standard library)."""
    from statistics import NormalDist
    return NormalDist().inv_cdf(1 - alpha / 2)


def rung(game, players, strong, weak, games, seed=0, options=None, jobs=1, progress=None,
         until=None, block=None, cluster=None):
    """One rung: ``strong`` in one seat against ``weak`` in the others, ``games`` games in
    all, the strong seat rotated over the seats, every rotation on the same deals (the first
    ``games / n`` games of ``seed``, as ``companion simulate`` draws them).

    ``until="decided"``: ``games`` is a budget, played in blocks of ``block`` games (default a
    quarter of it, whole rotations), each block on its own seeds (``seed``, ``seed + 1``, ...:
    new deals, pooled), stopping as soon as the interval clears the fair share either way. The
    interval at each look is widened for the looks the budget allows (Bonferroni: 95% over
    all of them, so calling a rung that does not hold "holds" stays below 2.5%); the figure
    printed is that interval."""
    n = len(players)
    fair = 1.0 / n
    if until not in (None, "decided"):
        raise ValueError(f"until {until!r}: 'decided' or None")
    if until is None:
        blocks = [games]
    else:
        size = max(n, (block or -(-games // 4)) // n * n)
        blocks = [size] * (games // size) + ([games % size] if games % size else [])
    z = _z(0.05 / len(blocks)) if len(blocks) > 1 else 1.96
    wins, played, per_seat, looks = 0.0, 0, {}, 0
    for b, size in enumerate(blocks):
        per = [size // n + (1 if k < size % n else 0) for k in range(n)]
        for k in range(n):
            if not per[k]:
                continue
            spec = [weak] * n
            spec[k] = strong
            res = play_simulate(game, players, per[k], seed=seed + b, bots=",".join(spec),
                                options=options, jobs=jobs, cluster=cluster)
            w = res["seats"][k]["wins"]
            wins += w
            played += per[k]
            seat = per_seat.setdefault(k, {"seat": k, "games": 0, "wins": 0.0})
            seat["games"] += per[k]
            seat["wins"] += w
            if progress is not None:
                progress(strong, weak, played, games)
        looks += 1
        lo, hi = wilson(round(wins), played, z)
        if lo > fair or hi < fair:
            break                       # decided (one block alone: nothing more to play)
    return {"strong": strong, "weak": weak, "players": n, "games": played, "wins": wins,
            "win_rate": wins / played if played else 0.0, "ci95": [lo, hi], "fair": fair,
            "holds": lo > fair, "seats": list(per_seat.values()), "looks": looks,
            "budget": games, "decided": lo > fair or hi < fair}


def ladder(game, players, games, rungs=RUNGS, seed=0, options=None, jobs=1, progress=None,
           per_rung=None, until=None, cluster=None):
    """Every rung of ``rungs`` (weakest first) against the one below it. ``per_rung``: games
    per rung by the strong bot's name, where it differs from ``games`` (search rungs are
    slow)."""
    out = []
    for weak, strong in zip(rungs, rungs[1:]):
        g = (per_rung or {}).get(strong, games)
        out.append(rung(game, players, strong, weak, g, seed=seed, options=options, jobs=jobs,
                        progress=progress, until=until, cluster=cluster))
    return out


def text(rows) -> str:
    lines = ["rung (one seat vs the rest)        games   win rate   95% interval    fair  holds"]
    for r in rows:
        lo, hi = r["ci95"]
        holds = "yes" if r["holds"] else "no" if r.get("decided", True) else "undecided"
        if r.get("looks", 1) > 1 or r.get("budget", r["games"]) != r["games"]:
            looks = f"{r['looks']} look{'s' if r['looks'] != 1 else ''}"
            holds += f" ({looks}, {r['games']} of {r['budget']} games)"
        lines.append(f"{r['strong']:>12} vs {r['players'] - 1} x {r['weak']:<12} "
                     f"{r['games']:>6}   {100 * r['win_rate']:6.1f}%   "
                     f"[{100 * lo:4.1f}, {100 * hi:4.1f}]%  {100 * r['fair']:4.1f}%  "
                     f"{holds}")
    return "\n".join(lines)


# -- balance under weak and strong bots ----------------------------------------------------------

def ranks(xs) -> list:
    """Average ranks (1 = smallest; ties share the mean of their ranks).

    >>> ranks([10, 30, 20, 20])
    [1.0, 4.0, 2.5, 2.5]
    """
    order = sorted(range(len(xs)), key=xs.__getitem__)
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs, ys):
    """Spearman's rank correlation (Pearson's over average ranks); None when it is undefined
    (fewer than 3 pairs, or one side all equal).

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> spearman([1, 2, 3, 4], [4, 3, 2, 1])
    -1.0
    """
    if len(xs) != len(ys) or len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def groups(facts) -> dict:
    """``{(kind, key): rate}`` of one set of games: per seat, per Leader (when the game has
    them) and per turn position (0 = the first player of round 1)."""
    from . import stats
    out = {}
    for r in stats.seats(facts):
        out[("seat", r["seat"] + 1)] = r
    for r in stats.factions(facts):
        out[("Leader", r["key"])] = r
    pos_w, pos_g = {}, {}
    for f in facts:
        if f.first is None or not f.winners:
            continue
        share = 1.0 / len(f.winners)
        for s in range(f.n):
            p = (s - f.first) % f.n + 1
            pos_g[p] = pos_g.get(p, 0) + 1
            if s in f.winners:
                pos_w[p] = pos_w.get(p, 0.0) + share
    for p in sorted(pos_g):
        out[("position", p)] = stats.rate(pos_w.get(p, 0.0), pos_g[p])
    return out


def balance(game, players, games, weak="greedy", strong="search-100", seed=0, options=None,
            jobs=1, strong_games=None, progress=None, weak_facts=None) -> dict:
    """Win rates per seat, Leader and turn position with every seat played by ``weak``, and
    with every seat played by ``strong``, side by side, and the Spearman rank correlation of
    the two columns (over all rows, and per kind of row)."""
    from .simulate import simulate as lab_simulate
    if weak_facts is None:          # (a report hands in the greedy games it already played)
        weak_facts = lab_simulate(game, players, games, seed=seed, bots=weak, options=options,
                                  jobs=jobs)
    a = groups(weak_facts)
    if progress is not None:
        progress(weak, games)
    sg = strong_games or games
    b = groups(lab_simulate(game, players, sg, seed=seed, bots=strong, options=options,
                            jobs=jobs))
    if progress is not None:
        progress(strong, sg)
    keys = [k for k in a if k in b]
    rows = [{"kind": k[0], "key": k[1], "weak": a[k], "strong": b[k]} for k in keys]
    corr = {"all": spearman([a[k]["win_rate"] for k in keys], [b[k]["win_rate"] for k in keys])}
    for kind in dict.fromkeys(k[0] for k in keys):
        ks = [k for k in keys if k[0] == kind]
        corr[kind] = spearman([a[k]["win_rate"] for k in ks], [b[k]["win_rate"] for k in ks])
    return {"game": game.name, "players": len(players), "weak": weak, "strong": strong,
            "games": {"weak": games, "strong": sg}, "fair": 1.0 / len(players), "rows": rows,
            "spearman": corr}


def cell(r) -> str:
    """A win rate and its 95% interval, in points: ``" 24.5% [21.9, 27.3]"``."""
    lo, hi = r["ci95"]
    return f"{100 * r['win_rate']:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"


def balance_text(res) -> str:
    w, s = res["weak"], res["strong"]
    lines = [f"Balance under {w} ({res['games']['weak']} games) and {s} "
             f"({res['games']['strong']} games), every seat the same bot; fair share "
             f"{100 * res['fair']:.1f}%",
             f"{'':22}{w:>24}  {s:>24}"]
    for r in res["rows"]:
        lines.append(f"{r['kind'] + ' ' + str(r['key']):22}{cell(r['weak']):>24}  "
                     f"{cell(r['strong']):>24}")
    for kind, rho in res["spearman"].items():
        lines.append(f"Spearman rank correlation ({kind}): "
                     f"{'undefined' if rho is None else f'{rho:+.2f}'}")
    return "\n".join(lines)
