"""Simulation speed of every design against its goal (issue 12, Build item 1), in one run.

Goals, on one core: Great Powers 4 seats greedy >= 960 games/s (9,604 games, a +-1% interval,
in <= 10 s); Trade Warz and Tariff Warz 4 players >= 1,000 games/s; Market Trading 2 players
greedy >= 1,000 games/s; the engine within 2x of a plain implementation where one exists
(benches/plain_great_powers.py for Great Powers).

Every figure is ``simulate()`` as `companion simulate` and `companion report --simulate` run it
(the lean path: core/session.py LeanSession, the same rules as a table; tests/conformance/
test_lean.py proves the games identical), in CPU time of this process (the machine is shared),
the median of several rounds, wall time beside it. The real session path (log, salts and
commitments, notices) is shown for reference, and ``jobs=0`` (one worker per core) in wall
time.

    python -m benches sim [--quick]
"""
import os
import statistics
import sys
import time

from benches import plain_great_powers
from companion.core.play import play_one, resolve_bots, simulate
from companion.games import get

DESIGNS = (   # label, game, players, options, goal (games/s)
    ("Great Powers 4p greedy", "great-powers", 4, None, 960),
    ("Trade Warz 4p greedy", "trade-warz", 4, {"edition": "trade"}, 1000),
    ("Tariff Warz 4p greedy", "trade-warz", 4, {"edition": "tariff"}, 1000),
    ("Market Trading 2p greedy", "market-trading", 2, None, 1000),
)


def _timed(fn, games):
    c, w = time.process_time(), time.perf_counter()
    fn()
    return games / (time.process_time() - c), games / (time.perf_counter() - w)


def _rate(fn, games, rounds):
    """Median games/s over ``rounds`` by CPU time, and by wall time."""
    cpu, wall = [], []
    for r in range(rounds):
        c, w = _timed(lambda: fn(r), games)
        cpu.append(c)
        wall.append(w)
    return statistics.median(cpu), statistics.median(wall), min(cpu), max(cpu)


def _engine_over_plain(pairs):
    """The engine's time per Great Powers game over the plain implementation's, measured in
    back-to-back pairs of short runs (about 0.3 s a pair), so that both halves of a pair see
    the same machine: this shared machine's speed moves within seconds, and a ratio of two
    runs a few seconds apart moved by 10-15 % from one bench run to the next. Returns the
    median of the pairs' ratios, its quartiles, and the number of pairs."""
    game = get("great-powers")
    players = ["P0", "P1", "P2", "P3"]
    out = []
    for i in range(pairs):
        c = time.process_time()
        for j in range(120):
            plain_great_powers.play(4, 7_000_000 + i * 1000 + j)
        plain = (time.process_time() - c) / 120
        c = time.process_time()
        simulate(game, players, 60, seed=7_000 + i)
        out.append((time.process_time() - c) / 60 / plain)
    q1, _, q3 = statistics.quantiles(out)
    return statistics.median(out), q1, q3, pairs


def main(argv):
    quick = "--quick" in argv
    rounds = 3 if quick else 5
    scale = 0.25 if quick else 1.0
    print(f"Simulation speed per design (simulate(): the lean path), one core, CPU time, "
          f"median of {rounds} rounds (min-max; wall median); each round also runs the plain Great Powers, the yardstick "
          f"of the machine's speed in that round (the machine is shared)")
    setups = []
    for label, name, n, options, goal in DESIGNS:
        game = get(name)
        players = [f"P{i}" for i in range(n)]
        games = max(40, int((600 if name != "trade-warz" else 300) * scale))
        simulate(game, players, 10, seed=999, options=options)            # warm the caches
        setups.append((label, game, players, options, goal, games))
    plain_games = max(100, int(1000 * scale))
    cpu = {label: [] for label, *_ in setups}
    wall = {label: [] for label, *_ in setups}
    ratio = {label: [] for label, *_ in setups}
    plain = []
    for r in range(rounds):
        p, _ = _timed(lambda: [plain_great_powers.play(4, r * 100_000 + i)
                               for i in range(plain_games)], plain_games)
        plain.append(p)
        for label, game, players, options, goal, games in setups:
            c, w = _timed(lambda: simulate(game, players, games, seed=r, options=options),
                          games)
            cpu[label].append(c)
            wall[label].append(w)
            ratio[label].append(c / p)
    for label, game, players, options, goal, games in setups:
        med = statistics.median(cpu[label])
        # the rate over the plain Great Powers' rate of the same round: the machine is shared
        # and its speed changes several times over a minute; this ratio does not
        rel = statistics.median(ratio[label])
        print(f"  {label:26} {med:7.0f} games/s ({min(cpu[label]):.0f}-{max(cpu[label]):.0f};"
              f" wall {statistics.median(wall[label]):.0f}); goal {goal:,}/s: "
              f"{'met' if med >= goal else 'NOT met'} ({med / goal:.2f}x); "
              f"{rel:.2f}x the plain Great Powers' rate in the same rounds", flush=True)
    gp = "Great Powers 4p greedy"
    slower, q1, q3, pairs = _engine_over_plain(11 if quick else 25)
    print(f"  plain Great Powers 4p greedy (benches/plain_great_powers.py): "
          f"{statistics.median(plain):.0f} games/s ({min(plain):.0f}-{max(plain):.0f}); "
          f"engine / plain: {slower:.2f}x slower (median of {pairs} back-to-back pairs, "
          f"quartiles {q1:.2f}-{q3:.2f}); goal <= 2x: {'met' if slower <= 2 else 'NOT met'}")
    one = statistics.median(wall[gp])

    # the same games on the real session path (log, salts, commitments, notices)
    game = get("great-powers")
    players = ["P0", "P1", "P2", "P3"]
    bots = resolve_bots(game, "greedy", 4)
    opts = game.resolve_options(None)
    games = max(40, int(300 * scale))
    full, _, _, _ = _rate(lambda r: [play_one(game, players, r * 100_000 + i, bots, opts)
                                     for i in range(games)], games, rounds)
    lean, _, _, _ = _rate(lambda r: [play_one(game, players, r * 100_000 + i, bots, opts,
                                              lean=True) for i in range(games)], games, rounds)
    print(f"  Great Powers 4p greedy, real session path {full:.0f} games/s vs lean path "
          f"{lean:.0f} games/s: lean {lean / full:.2f}x")

    # jobs=0: one worker per core (wall time, includes starting the workers)
    games = max(200, int(2000 * scale))
    t = time.perf_counter()
    simulate(game, players, games, seed=1, jobs=0)
    w = games / (time.perf_counter() - t)
    print(f"  simulate(jobs=0) on {os.cpu_count()} cores, Great Powers 4p greedy: {w:.0f} "
          f"games/s wall ({w / one:.2f}x one process's wall rate, {one:.0f}/s, in this run)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
