"""Balance figures from many finished games (``companion simulate trade-warz ...``).

``report(summaries)`` takes each game's ``game.summary(state)`` (simulate collects them) and
returns win rates per Leader with 95% Wilson intervals, the mean GDP after each round, the mean
number of disputes per round, how games end and how long they last. ``report_text`` prints it.

>>> s = [{"leaders": {"0": "usa", "1": "china"}, "winners": [0], "gdp_curve": [[12, 11]],
...       "disputes_per_round": [1], "rounds": 1, "reason": "boom", "edition": "trade"}]
>>> r = report(s)
>>> r["leaders"]["usa"]["wins"], r["leaders"]["china"]["win_rate"]
(1.0, 0.0)
"""
from companion.core.play import wilson


def report(summaries):
    leaders = {}
    curve_sum, curve_top, curve_n = [], [], []
    disputes_sum, disputes_n = [], []
    ends = {"boom": 0, "close": 0}
    lengths = []
    editions = set()
    names = {}
    for s in summaries:
        editions.add(s.get("edition"))
        winners = s.get("winners") or []
        seated = s.get("leaders") or {}
        for seat, lid in seated.items():
            row = leaders.setdefault(lid, {"games": 0, "wins": 0.0})
            row["games"] += 1
            if int(seat) in winners:
                row["wins"] += 1.0 / len(winners)
        names.update(s.get("leader_names") or {})
        for r, gdp in enumerate(s.get("gdp_curve") or []):
            while len(curve_sum) <= r:
                curve_sum.append(0.0)
                curve_top.append(0.0)
                curve_n.append(0)
            curve_sum[r] += sum(gdp) / len(gdp)
            curve_top[r] += max(gdp)
            curve_n[r] += 1
        for r, k in enumerate(s.get("disputes_per_round") or []):
            while len(disputes_sum) <= r:
                disputes_sum.append(0)
                disputes_n.append(0)
            disputes_sum[r] += k
            disputes_n[r] += 1
        ends["boom" if s.get("reason") == "boom" else "close"] += 1
        lengths.append(s.get("rounds", 0))
    out = {}
    for lid, row in sorted(leaders.items()):
        g = row["games"]
        lo, hi = wilson(round(row["wins"]), g)
        out[lid] = {"name": names.get(lid, lid), "games": g, "wins": row["wins"],
                    "win_rate": row["wins"] / g if g else 0.0, "ci95": [lo, hi]}
    total = sum(disputes_sum)
    rounds_seen = sum(disputes_n)
    games = len(summaries)
    return {
        "games": games, "editions": sorted(e for e in editions if e),
        "leaders": out,
        "gdp_per_round": [{"round": r + 1, "games": curve_n[r],
                           "mean_gdp": curve_sum[r] / curve_n[r],
                           "mean_leader_gdp": curve_top[r] / curve_n[r]}
                          for r in range(len(curve_n))],
        "disputes_per_round": [{"round": r + 1, "games": disputes_n[r],
                                "mean": disputes_sum[r] / disputes_n[r]}
                               for r in range(len(disputes_n))],
        "mean_disputes_per_round": total / rounds_seen if rounds_seen else 0.0,
        "ends": ends, "mean_rounds": sum(lengths) / games if games else 0.0,
    }


def report_text(r):
    lines = []
    games = r["games"]
    titles = {"trade": "Trade Warz", "tariff": "Tariff Warz"}
    eds = ", ".join(titles.get(e, e) for e in r.get("editions", ())) or "?"
    lines.append(f"Win rate per Leader ({eds}, {games} games; 95% Wilson interval):")
    lines.append(f"  {'Leader':18} {'seated':>7} {'wins':>8} {'win rate':>9}  95% interval")
    for lid, row in sorted(r["leaders"].items(), key=lambda kv: -kv[1]["win_rate"]):
        lo, hi = row["ci95"]
        lines.append(f"  {row['name']:18} {row['games']:>7} {row['wins']:>8.1f} "
                     f"{row['win_rate']:>9.1%}  {lo:6.1%} - {hi:6.1%}")
    lines.append("GDP after each round (mean over seats / mean of the leader):")
    for row in r["gdp_per_round"]:
        lines.append(f"  round {row['round']}: {row['mean_gdp']:6.1f} / "
                     f"{row['mean_leader_gdp']:6.1f}   ({row['games']} games reached it)")
    lines.append(f"Disputes per round: {r['mean_disputes_per_round']:.2f} on average")
    for row in r["disputes_per_round"]:
        lines.append(f"  round {row['round']}: {row['mean']:.2f}")
    e = r["ends"]
    lines.append(f"Endings: {e['boom']} Economic Boom (50 GDP), {e['close']} Global Close; "
                 f"mean length {r['mean_rounds']:.2f} rounds")
    return "\n".join(lines)
