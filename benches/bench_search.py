"""Search-bot speed in Great Powers (issue 23, part 6): games/s on one core for the greedy bot
and the search bots, and the time per search decision (median and p99).

Goal: search-100 at least 20 games/s on one core. Two set-ups are timed: one search seat
against three greedy bots (a ladder rung's games: what `companion ladder` plays) and every
seat a search bot (what `companion ladder --balance` plays). CPU time of this process (the
machine is shared); a decision's time is the bot call's, CPU time too, counted only when the
search had more than one move to weigh (a single legal move is answered at once).

    python -m benches search [--quick]
"""
import statistics
import sys
import time

from benches.stats import pct
from companion.core.play import play_one, resolve_bots
from companion.games import get

GOAL = 20.0


class Timed:
    """A bot that times each call of the bot it wraps."""

    def __init__(self, bot, times):
        self.bot, self.times = bot, times

    def __call__(self, game, view, rng):
        t = time.process_time()
        out = self.bot(game, view, rng)
        self.times.append(time.process_time() - t)
        return out


def _run(game, players, spec, games, seed):
    """games/s (CPU), and every timed decision of the search seats (those of more than one
    candidate move)."""
    bots = resolve_bots(game, spec, len(players))
    times = []
    seat_bots = [Timed(b, times) if getattr(b, "iterations", None) else b for b in bots]
    c = time.process_time()
    for i in range(games):
        play_one(game, players, seed + i, seat_bots, lean=True)
    rate = games / (time.process_time() - c)
    searched = [t for t in times if t > 2e-4]   # a lone legal move returns in microseconds
    return rate, searched, sum(1 for b in bots if getattr(b, "iterations", None))


def main(argv):
    quick = "--quick" in argv
    game = get("great-powers")
    players = ["P0", "P1", "P2", "P3"]
    play_one(game, players, 1, resolve_bots(game, "search-100,greedy,greedy,greedy", 4),
             lean=True)                                         # warm the caches
    print("Great Powers 4 players, one core, CPU time; decisions: CPU ms per searched "
          "decision (p50 / p99)")
    setups = [("greedy x4", "greedy", 300 if quick else 1000),
              ("search-100 + 3 greedy", "search-100,greedy,greedy,greedy", 4 if quick else 12),
              ("search-400 + 3 greedy", "search-400,greedy,greedy,greedy", 2 if quick else 6),
              ("search-100 x4", "search-100", 2 if quick else 4)]
    out = {}
    for label, spec, games in setups:
        rate, times, seats = _run(game, players, spec, games, 10_000)
        out[label] = rate
        line = f"  {label:24} {rate:9.2f} games/s ({games} games)"
        if times:
            line += (f"; decision {statistics.median(times) * 1000:.0f} / "
                     f"{pct(times, 99) * 1000:.0f} ms (n={len(times)}, "
                     f"{len(times) / games / seats:.1f} per search seat per game)")
        print(line, flush=True)
    r = out["search-100 + 3 greedy"]
    print(f"  goal: search-100 >= {GOAL:.0f} games/s on one core: "
          f"{'met' if r >= GOAL else 'NOT met'} ({r:.2f} games/s, {r / GOAL:.2f}x the goal; "
          f"{out['search-100 x4']:.2f} games/s with every seat searching)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
