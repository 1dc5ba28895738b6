"""A whole study: simulated games, reruns on re-seeded simulations for the flags' stability,
and the table's own sessions side by side (:func:`study`), and the study in words
(:func:`text`, :func:`rule_text`) for ``companion impact``.
"""
import random

from companion.core.errors import ConfigError

from .cards import adapter_for
from .figures import (ALPHA, FLAG_POINTS, FLAG_RULE, RULES, card_table, flagged, group_table,
                      monster_table)
from .watch import live_rows, simulate_rows

#: Reruns of :func:`stability` and how many must give the same flagged set.
RERUNS = 5
STABLE = 4


def stability(run, reruns=RERUNS, stable=STABLE) -> dict:
    """``run(k)`` -> a :func:`card_table` for rerun k (0..reruns-1, each re-seeded).

    Returns ``{"reruns", "sets": [flagged set per rerun], "counts": {card: reruns flagged},
    "stable_set": the cards flagged in at least ``stable`` reruns, "same": how many reruns
    gave exactly the most common set, "modal": that set, "stable": same >= stable}``."""
    sets = [flagged(run(k)) for k in range(reruns)]
    counts = {}
    for s in sets:
        for c in s:
            counts[c] = counts.get(c, 0) + 1
    tally = {}
    for s in sets:
        tally[s] = tally.get(s, 0) + 1
    modal, same = max(tally.items(), key=lambda kv: (kv[1], -len(kv[0]))) if tally else \
        (frozenset(), 0)
    return {"reruns": reruns, "sets": [sorted(s) for s in sets],
            "counts": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
            "stable_set": sorted(c for c, k in counts.items() if k >= stable),
            "modal": sorted(modal), "same": same, "stable": same >= stable}


def rerun_seed(seed, k):
    """The seed of rerun k (rerun 0 is the run itself)."""
    return seed if k == 0 else random.Random(f"impact-{seed}-{k}").getrandbits(48)


def side_by_side(live, sim) -> list:
    """Join two :func:`card_table` results by card: ``[{"card", "name", "live", "sim"}]``
    (a side is None where the card was not seen), in the simulated table's order, then the
    cards only the live games saw."""
    by_live = {x["card"]: x for x in live}
    out = [{"card": x["card"], "name": x["name"], "live": by_live.pop(x["card"], None),
            "sim": x} for x in sim]
    out += [{"card": c, "name": x["name"], "live": x, "sim": None} for c, x in by_live.items()]
    return out


def study(game, *, players, games, seed=0, bots="greedy", options=None, jobs=1, reruns=RERUNS,
          log=None, sessions=None, progress=None, cluster=None, rule=FLAG_RULE) -> dict:
    """The per-card figures of ``games`` bot games (rerun ``reruns`` times, re-seeded, for the
    flags' stability) and, with ``log``, of the table sessions a report would read
    (:func:`companion.lab.facts.select_live`: finished, not bots, the same data), side by
    side. Returns ``{"sim", "live", "cards", "stability", "live_games", "left_out",
    "groups": {"sim", "live"} (per Leader), "monsters": {"sim", "live"} (Battle Builder's
    battles per monster and difficulty, else None), "rule", ...}``."""
    adapter_for(game)
    if rule not in RULES:
        raise ConfigError(f"Flag rule {rule!r}: one of {', '.join(RULES)}.")
    names = [f"Seat {i + 1}" for i in range(players)]
    tables = {}
    first = {}

    def run(k):
        rows, nm = simulate_rows(game, names, games, seed=rerun_seed(seed, k), bots=bots,
                                 options=options, jobs=jobs, cluster=cluster)
        if k == 0:
            first["rows"] = rows
        tables[k] = card_table(rows, nm, rule=rule)
        if progress is not None:
            progress(k + 1, reruns)
        return tables[k]
    st = stability(run, reruns=max(1, reruns))
    sim = tables[0]
    live, live_games, left_out, live_rows_ = [], 0, [], []
    if log is not None:
        from ..facts import select_live
        sel = select_live(log, game, sessions)
        left_out = sel.left_out
        infos = [log.info(f.session) for f in sel.live]
        live_rows_, nm = live_rows(log, infos, games=lambda _n: game)
        live, live_games = card_table(live_rows_, nm, rule=rule), len(infos)
    fights = game.name == "battle-builder"
    return {"sim": sim, "live": live, "cards": side_by_side(live, sim), "stability": st,
            "live_games": live_games, "left_out": left_out, "games": games,
            "players": players, "seed": seed, "bots": bots, "rule": rule,
            "columns": adapter_for(game).columns,
            "tested": sim[0]["tested"] if sim else 0,
            "groups": {"sim": group_table(first["rows"]), "live": group_table(live_rows_)},
            "monsters": {"sim": monster_table(first["rows"], game),
                         "live": monster_table(live_rows_, game)} if fights else None}


def rule_text(result) -> str:
    """The flag rule of a study, in words."""
    return RULES[result.get("rule", FLAG_RULE)].format(
        points=f"{100 * FLAG_POINTS:.0f}", alpha=f"{100 * ALPHA:.0f}",
        tested=result.get("tested", "tested"))


def _pct(r):
    if r is None or not r["games"]:
        return "-"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:.0f}% [{100 * lo:.0f}-{100 * hi:.0f}] n={r['games']}"


def _diff(x):
    if x is None or x["diff"] is None:
        return "-"
    lo, hi = x["diff_ci95"]
    return f"{100 * x['diff']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]" + \
        (" FLAG" if x["flagged"] else "")


def text(result, top=None) -> str:
    """The study as plain text: the flags and their stability, then the table."""
    st = result["stability"]
    lines = [f"{result['games']} bot games x {st['reruns']} reruns, {result['players']} players,"
             f" bots {result['bots']}, seed {result['seed']}; table sessions: "
             f"{result['live_games']}",
             f"Columns: {result.get('columns', '')}",
             f"Flagged when {rule_text(result)}; reruns flagged of {st['reruns']}:"]
    names = {x["card"]: x["name"] for x in result["cards"]}
    for c, k in st["counts"].items():
        lines.append(f"  {names.get(c, c):34} {k}/{st['reruns']}"
                     + ("  stable" if k >= STABLE else ""))
    lines.append(f"The same flagged set in {st['same']} of {st['reruns']} reruns: "
                 + ("stable" if st["stable"] else "NOT stable")
                 + f" (cards flagged in >= {STABLE}: "
                 + (", ".join(names.get(c, c) for c in st["stable_set"]) or "none") + ")")
    if not st["counts"]:
        lines.append("  (no card in any rerun)")
    groups = result.get("groups") or {}
    if groups.get("sim"):
        live_g = {g["group"]: g for g in groups.get("live") or ()}
        lines += ["", "Per Leader: win rate of its seat-games (bots" +
                  (", table" if result["live_games"] else "") + "):"]
        for g in groups["sim"]:
            lines.append(f"  {g['group'][:32]:32} {_pct(g['win']):24}"
                         + (f"  {_pct(live_g[g['group']]['win'])}" if g["group"] in live_g
                            else ""))
    mons = result.get("monsters")
    if mons:
        live_m = {m["monster"]: m for m in mons["live"]["monsters"]}
        live_d = {m["difficulty"]: m for m in mons["live"]["difficulties"]}
        lines += ["", "Monster battles won (each battle once; bots"
                  + (", table" if result["live_games"] else "") + "):"]
        for d in mons["sim"]["difficulties"]:
            lines.append(f"  {d['difficulty']:32} {_pct(d['battles']):24}"
                         + (f"  {_pct(live_d[d['difficulty']]['battles'])}"
                            if d["difficulty"] in live_d else ""))
            for m in mons["sim"]["monsters"]:
                if m["difficulty"] == d["difficulty"]:
                    lines.append(f"    {m['name'][:30]:30} {_pct(m['battles']):24}"
                                 + (f"  {_pct(live_m[m['monster']]['battles'])}"
                                    if m["monster"] in live_m else ""))
    lines.append("")
    deffs = sorted(x["deff"] for x in result["sim"] if x.get("deff") is not None)
    if deffs:
        lines.append(f"drawn - never: Newcombe's 95% interval widened by each card's design "
                     f"effect (the seat-games of one game are not independent; median "
                     f"{deffs[len(deffs) // 2]:.2f}, largest {deffs[-1]:.2f}; docs/lab.md)")
    head = f"{'card':34} {'games':>6}  {'drawn':24} {'never':24} {'opening':24} {'played':24} " \
           f"{'drawn - never (points)':28}"
    lines.append(head + ("  live: drawn - never" if result["live_games"] else ""))
    rows = result["cards"] if top is None else result["cards"][:top]
    for row in rows:
        x = row["sim"]
        if x is None:
            lines.append(f"{row['name'][:34]:34} {'':6}  (only at the table) "
                         f"{_diff(row['live'])}")
            continue
        line = f"{row['name'][:34]:34} {x['games']:6}  {_pct(x['drawn']):24} " \
               f"{_pct(x['never']):24} {_pct(x['opening']):24} {_pct(x['played']):24} " \
               f"{_diff(x):28}"
        if result["live_games"]:
            line += f"  {_diff(row['live'])}"
        lines.append(line)
    return "\n".join(lines)
