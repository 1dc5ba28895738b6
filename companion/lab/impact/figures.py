"""The figures: win rates with their Wilson intervals, the difference (drawn minus never drawn)
with Newcombe's interval and a design effect for seat-games of one game, the flag rules
(Holm-corrected, family-wise :data:`ALPHA`, beyond :data:`FLAG_POINTS`), and the per-card,
per-group and per-monster tables built from the rows. Pure arithmetic on rows: no games.
"""
import math

from companion.core.play import wilson

#: The size of a difference worth a flag (a fraction: 3 points), either way.
FLAG_POINTS = 0.03
#: The family-wise error of the flags (Holm over every card of a table).
ALPHA = 0.05
#: The default flag rule (:func:`flag_cards`): the difference is beyond 3 points at the
#: corrected level. ``RULES``: every rule :func:`flag_cards` knows, described.
FLAG_RULE = "margin"
RULES = {
    "margin": "the difference is beyond {points} points at the Holm-corrected level "
              "(family-wise {alpha}% over the {tested} cards)",
    "holm": "a difference of at least {points} points, clear of 0 at the Holm-corrected "
            "level (family-wise {alpha}% over the {tested} cards)",
    "raw": "a difference of at least {points} points whose own 95% interval is clear of 0 "
           "(no correction: about 5% of cards without an effect are flagged)",
}


def rate(wins, games) -> dict:
    """A win rate with its count and 95% Wilson interval (wins may be fractional: shared
    wins; the interval rounds them, as the report's rates do)."""
    lo, hi = wilson(round(wins), games)
    return {"wins": wins, "games": games, "rate": wins / games if games else None,
            "ci95": [lo, hi]}


def newcombe(a, b, z=1.96, deff=1.0) -> list:
    """Interval of the difference of two rates ``a - b`` (dicts of :func:`rate`):
    Newcombe's hybrid score interval (method 10 of Newcombe 1998), from the two Wilson
    intervals; 95% (``z`` 1.96) unless told. ``deff``: the design effect of the samples
    (:func:`design_effect`): the interval is that of ``z * sqrt(deff)``, as wide as the
    samples' real spread needs. ``[nan, nan]`` if either side has no games."""
    if not a["games"] or not b["games"]:
        return [math.nan, math.nan]
    if deff != 1.0:
        z *= math.sqrt(deff)
    if z == 1.96:
        p1, (l1, u1) = a["rate"], a["ci95"]
        p2, (l2, u2) = b["rate"], b["ci95"]
    else:
        p1, (l1, u1) = a["rate"], wilson(round(a["wins"]), a["games"], z)
        p2, (l2, u2) = b["rate"], wilson(round(b["wins"]), b["games"], z)
    d = p1 - p2
    return [d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)]


def z_of(p) -> float:
    """The two-sided normal quantile of ``p``: ``z_of(0.05)`` = 1.96."""
    lo, hi = 0.0, 40.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def p_beyond(a, b, margin=0.0, deff=1.0) -> float:
    """Two-sided p-value of "the difference ``a - b`` is at least ``margin`` either way"
    against "it is within ``margin``" (``margin`` 0: against no difference), by inverting
    Newcombe's interval (widened by ``deff``, as :func:`newcombe`): the largest level 1 - p
    at which the interval still clears ``margin`` on the side of the observed difference.
    1.0 if the observed difference is not beyond ``margin`` (or a side has no games)."""
    if not a["games"] or not b["games"]:
        return 1.0
    d = a["rate"] - b["rate"]
    if abs(d) <= margin:
        return 1.0

    def clear(z):
        lo, hi = newcombe(a, b, z, deff)
        return lo > margin if d > 0 else hi < -margin
    lo, hi = 0.0, 40.0
    if clear(hi):
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if clear(mid):
            lo = mid
        else:
            hi = mid
    return math.erfc(lo / math.sqrt(2))


def design_effect(rows, card, groups, drawn, never) -> float:
    """How much wider the difference ``drawn - never`` of ``card`` really varies than two
    independent samples of seat-games would (Kish's design effect, at least 1).

    The seat-games of one game are not independent: in a game only one seat wins, so when one
    seat has the card and another has not, their results move against each other and the
    difference varies more than the two rates' own intervals say. The variance is estimated
    with each game as a cluster (the linearised, cluster-robust variance of a difference of
    two ratios) and divided by the same estimate with every seat-game on its own. Measured
    over re-seeded reruns (docs/lab.md, "What is counted"), the clustered spread matches the
    reruns' own within 4% where the independent one was 4-15% too narrow. Never below 1:
    with a handful of table sessions the estimate is rough, and it only ever widens."""
    p1, n1 = drawn["rate"], drawn["games"]
    p0, n0 = never["rate"], never["games"]
    per_game, v_rows = {}, 0.0
    for r in rows:
        if r.group not in groups:
            continue
        u = (r.share - p1) / n1 if card in r.seen else (p0 - r.share) / n0
        v_rows += u * u
        per_game[r.session] = per_game.get(r.session, 0.0) + u
    if v_rows <= 0.0:
        return 1.0
    return max(1.0, sum(u * u for u in per_game.values()) / v_rows)


def holm(pvalues, alpha=ALPHA) -> set:
    """Holm's step-down (Holm 1979) over ``{key: p}``: the keys rejected with family-wise
    error at most ``alpha`` (the chance of flagging any card without the effect)."""
    out = set()
    ranked = sorted(pvalues.items(), key=lambda kv: (kv[1], str(kv[0])))
    m = len(ranked)
    for i, (k, p) in enumerate(ranked):
        if p > alpha / (m - i):
            break
        out.add(k)
    return out


def card_table(rows, names=None, flag=FLAG_POINTS, alpha=ALPHA, rule=FLAG_RULE) -> list:
    """One dict per card seen in ``rows``, largest |difference| first:

    ``{"card", "name", "games", "opening", "drawn", "played", "never", "diff", "diff_ci95",
    "flagged"}``; ``games`` the card's population (seat-games that could have drawn it), each
    of opening/drawn/played/never a :func:`rate`; ``diff`` = drawn - never (None if either is
    empty), its interval ``diff_ci95`` and p-values widened by ``deff`` (:func:`design_effect`:
    seat-games of one game are not independent)."""
    names = names or {}
    groups_of, per_group = {}, {}
    acc = {k: {} for k in ("opening", "drawn", "played")}
    for r in rows:                  # one pass: each seat-game adds to the cards it had
        tot = per_group.setdefault(r.group, [0.0, 0])
        tot[0] += r.share
        tot[1] += 1
        for k, cards in (("opening", r.opening), ("drawn", r.seen), ("played", r.played)):
            got = acc[k]
            for c in cards:
                a = got.get(c)
                if a is None:
                    a = got[c] = [0.0, 0]
                a[0] += r.share
                a[1] += 1
        for c in r.seen:
            groups_of.setdefault(c, set()).add(r.group)
    out = []
    for c, groups in groups_of.items():
        pop_wins = sum(per_group[g][0] for g in groups)
        pop = sum(per_group[g][1] for g in groups)
        drawn = acc["drawn"][c]
        figs = {"opening": rate(*acc["opening"].get(c, (0.0, 0))), "drawn": rate(*drawn),
                "played": rate(*acc["played"].get(c, (0.0, 0))),
                "never": rate(max(0.0, pop_wins - drawn[0]), pop - drawn[1])}
        if figs["drawn"]["games"] and figs["never"]["games"]:
            diff = figs["drawn"]["rate"] - figs["never"]["rate"]
            deff = design_effect(rows, c, groups, figs["drawn"], figs["never"])
            ci = newcombe(figs["drawn"], figs["never"], deff=deff)
            p = p_beyond(figs["drawn"], figs["never"], deff=deff)
        else:
            diff, ci, p, deff = None, [math.nan, math.nan], None, None
        out.append({"card": c, "name": names.get(c, c), "games": pop, **figs,
                    "diff": diff, "diff_ci95": ci, "deff": deff, "p": p, "flagged": False})
    flag_cards(out, flag, alpha, rule)
    out.sort(key=lambda x: (-(abs(x["diff"]) if x["diff"] is not None else -1), x["card"]))
    return out


def flag_cards(table, flag=FLAG_POINTS, alpha=ALPHA, rule=FLAG_RULE):
    """Set ``flagged`` (and ``tested``: how many cards were in the family; ``p_flag``: the
    p-value the rule corrects, None for ``raw``) on every row of a table. ``rule``:

    - ``"margin"`` (the default): the difference is beyond ``flag`` itself at the corrected
      level: the test of "at least ``flag`` either way" against "within ``flag``"
      (:func:`p_beyond` with the margin) passes Holm's correction at ``alpha`` over every
      card with a difference. A card whose true difference is within ``flag`` is flagged
      with probability at most ``alpha`` across the whole table;
    - ``"holm"``: the difference is at least ``flag`` either way, and its test against no
      difference passes Holm's correction (a card with a true difference of 1 point can be
      flagged when its estimate lands above 3);
    - ``"raw"``: the rule before the correction: at least ``flag`` and the 95% interval clear
      of 0 (each card on its own: about 5% of cards with no effect are flagged)."""
    rows = [x for x in table if x["diff"] is not None]
    for x in table:
        x["flagged"], x["tested"], x["p_flag"] = False, len(rows), None
    if rule == "raw":
        for x in rows:
            lo, hi = x["diff_ci95"]
            x["flagged"] = abs(x["diff"]) >= flag and (lo > 0 or hi < 0)
        return table
    if rule == "margin":
        ps = {i: p_beyond(x["drawn"], x["never"], flag, x["deff"]) for i, x in enumerate(rows)}
    elif rule == "holm":
        ps = {i: x["p"] for i, x in enumerate(rows)}
    else:
        raise ValueError(f"unknown flag rule {rule!r}")
    for i, x in enumerate(rows):
        x["p_flag"] = ps[i]
    for i in holm(ps, alpha):
        rows[i]["flagged"] = rule == "margin" or abs(rows[i]["diff"]) >= flag
    return table


def monster_table(rows, game) -> dict:
    """Battle Builder: every monster battle of ``rows`` (each counted once, however many seats
    fought it) by monster and by difficulty: ``{"monsters": [{"monster", "name",
    "difficulty", "battles"}], "difficulties": [{"difficulty", "battles"}]}``, ``battles``
    a :func:`rate` (wins: the battles the team won), the easiest first."""
    from companion.games.battle_builder.data import DIFFICULTIES
    won_of = {}
    for r in rows:
        for bid, m, won in r.fights:
            won_of[(r.session, bid, m)] = won
    by_m = {}
    for (_session, _bid, m), won in won_of.items():
        acc = by_m.setdefault(m, [0, 0])
        acc[0] += won
        acc[1] += 1
    info = game.rules.monsters
    monsters = [{"monster": m, "name": info[m].name if m in info else m,
                 "difficulty": info[m].difficulty if m in info else None,
                 "battles": rate(*wn)} for m, wn in by_m.items()]
    order = {k: i for i, k in enumerate(DIFFICULTIES)}
    monsters.sort(key=lambda x: (order.get(x["difficulty"], len(order)), x["monster"]))
    diffs = []
    for k in DIFFICULTIES:
        got = [x["battles"] for x in monsters if x["difficulty"] == k]
        if got:
            diffs.append({"difficulty": k, "battles": rate(sum(x["wins"] for x in got),
                                                           sum(x["games"] for x in got))})
    return {"monsters": monsters, "difficulties": diffs}


def group_table(rows) -> list:
    """Per Leader (a row's group; Trade Warz): ``[{"group", "seat_games", "win": rate}]``,
    best first; empty when the game has no groups."""
    acc = {}
    for r in rows:
        if r.group is not None:
            a = acc.setdefault(r.group, [0.0, 0])
            a[0] += r.share
            a[1] += 1
    out = [{"group": g, "seat_games": n, "win": rate(w, n)} for g, (w, n) in acc.items()]
    out.sort(key=lambda x: (-x["win"]["rate"], x["group"]))
    return out


def flagged(table) -> frozenset:
    return frozenset(x["card"] for x in table if x["flagged"])
