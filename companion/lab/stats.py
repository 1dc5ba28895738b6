"""Figures over many games (a list of :class:`~companion.lab.facts.Facts`), every rate with
its 95% Wilson interval. Shared wins count 1/k to each of the k winners, so a seat's win rates
add up to 1 over the seats."""
import collections
import statistics

from companion.core.play import wilson

from .facts import phase_times, round_times


def rate(wins, games) -> dict:
    lo, hi = wilson(round(wins), games)
    return {"wins": wins, "games": games, "win_rate": wins / games if games else 0.0,
            "ci95": [lo, hi]}


def seats(facts) -> list:
    """Win rate per seat (seat numbers from 0)."""
    n = max((f.n for f in facts), default=0)
    wins, games = [0.0] * n, [0] * n
    for f in facts:
        share = 1.0 / len(f.winners) if f.winners else 0.0
        for s in range(f.n):
            games[s] += 1
            if s in f.winners:
                wins[s] += share
    return [dict(seat=s, **rate(wins[s], games[s])) for s in range(n) if games[s]]


def factions(facts) -> list:
    """Win rate per Leader / faction (Trade Warz's Leaders), most games first."""
    wins, games = collections.Counter(), collections.Counter()
    for f in facts:
        share = 1.0 / len(f.winners) if f.winners else 0.0
        for s, name in f.factions.items():
            games[name] += 1
            if int(s) in f.winners:
                wins[name] += share
    return [dict(key=k, **rate(wins[k], games[k]))
            for k in sorted(games, key=lambda k: (-games[k], k))]


def difficulties(facts) -> list:
    """Battle Builder: how often the players beat the monster, per difficulty (from each game's
    own playtest record)."""
    won, lost = collections.Counter(), collections.Counter()
    for f in facts:
        for diff, r in ((f.summary.get("playtest") or {}).get("results") or {}).items():
            won[diff] += r.get("won", 0)
            lost[diff] += r.get("lost", 0)
    order = ("easy", "medium", "hard")
    keys = sorted(set(won) | set(lost), key=lambda k: (order.index(k) if k in order else 9, k))
    return [dict(key=k, **rate(won[k], won[k] + lost[k])) for k in keys if won[k] + lost[k]]


def first_player(facts) -> dict | None:
    """How often the first player of round 1 wins, against the fair share 1/n."""
    known = [f for f in facts if f.first is not None and f.winners]
    if not known:
        return None
    wins = sum(1.0 / len(f.winners) for f in known if f.first in f.winners)
    fair = sum(1.0 / f.n for f in known) / len(known)
    return dict(fair=fair, **rate(wins, len(known)))


def _describe(xs) -> dict | None:
    xs = sorted(xs)
    if not xs:
        return None
    return {"count": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs),
            "min": xs[0], "max": xs[-1], "p90": xs[min(len(xs) - 1, int(0.9 * len(xs)))]}


def length(facts) -> dict:
    """Game length in rounds and commands; in minutes for games timed at a table."""
    timed = [f.seconds / 60 for f in facts if f.timed and f.seconds is not None]
    return {"rounds": _describe([f.rounds for f in facts]),
            "commands": _describe([f.commands for f in facts]),
            "minutes": _describe(timed)}


def spreads(facts) -> dict:
    """Final score spread (winner minus last) and lead changes per game."""
    return {"spread": _describe([f.spread for f in facts]),
            "lead_changes": _describe([f.lead_changes for f in facts])}


def phases(game, facts) -> list:
    """Time per phase over the timed games: ``[{"phase", "label", "games", "count",
    "mean_s", "median_s", "total_s"}]`` (a phase entered several times in a game counts each
    time; ``mean_s`` is per time entered)."""
    per = collections.OrderedDict()
    for f in facts:
        if not f.timed:
            continue
        for p, rnd, start, end in f.phases:
            if end is None:
                continue
            per.setdefault(p, []).append(end - start)
    out = []
    for p, ds in per.items():
        label = phase_times(game, [[p, 0, 0.0, 0.0]])[0]["label"]
        out.append({"phase": p, "label": label, "count": len(ds), "mean_s": statistics.fmean(ds),
                    "median_s": statistics.median(ds), "total_s": sum(ds)})
    return out


def rounds(facts) -> list:
    """Time per round over the timed games: ``[{"round", "games", "mean_s", "median_s"}]``."""
    per = collections.defaultdict(list)
    for f in facts:
        if f.timed:
            for r in round_times(f.phases):
                per[r["round"]].append(r["seconds"])
    return [{"round": r, "games": len(ds), "mean_s": statistics.fmean(ds),
             "median_s": statistics.median(ds)} for r, ds in sorted(per.items())]


def mean_curve(facts) -> list:
    """The mean score of each seat after each round (over the games that reached that round):
    ``[[mean seat 0, mean seat 1, ...], ...]``."""
    n = max((f.n for f in facts), default=0)
    sums, counts = [], []
    for f in facts:
        for r, row in enumerate(f.curve):
            while len(sums) <= r:
                sums.append([0.0] * n)
                counts.append(0)
            for s, v in enumerate(row):
                sums[r][s] += v
            counts[r] += 1
    return [[v / counts[r] for v in sums[r]] for r in range(len(sums))]


def summarise(game, facts) -> dict:
    """Every figure of the report for one group of games."""
    return {"games": len(facts), "seats": seats(facts), "factions": factions(facts),
            "difficulties": difficulties(facts), "first_player": first_player(facts),
            "length": length(facts), "spreads": spreads(facts), "phases": phases(game, facts),
            "rounds": rounds(facts), "curve": mean_curve(facts)}
