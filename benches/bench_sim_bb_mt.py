"""Simulation throughput of Battle Builder and Market Trading (one process, one core).

Goals (issue): a Battle Builder difficulty calibration, 1,000 battles at each difficulty (the
count for a +-3-point interval), in <= 10 s; Market Trading >= 1,000 two-player games/s.
Everything runs through real sessions (Session.execute -> core apply -> MemoryLog), the same
path as a table. The machine is shared: figures are medians of several rounds in one run, with
CPU time beside wall time, and ratios are taken within this run.

    .venv/bin/python benches/bench_sim_bb_mt.py [--quick]
"""
import pathlib
import random
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from benches.stats import pct  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.game import apply, new_state  # noqa: E402
from companion.core.log import MemoryLog  # noqa: E402
from companion.core.play import play_out, resolve_bots  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.games import get  # noqa: E402
from companion.games.battle_builder.report import calibrate  # noqa: E402
from companion.games.market_trading.report import report  # noqa: E402


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def bench_calibration(rounds, battles=1000):
    g = get("battle-builder")
    calibrate(g, "easy", 50)                                   # warm caches
    walls, cpus, cmds = [], [], []
    for r in range(rounds):
        rows, wall, cpu = _timed(lambda: [calibrate(g, d, battles, seed=r)
                                          for d in ("easy", "medium", "hard")])
        walls.append(wall)
        cpus.append(cpu)
        cmds.append(sum(x["commands"] for x in rows))
    med = statistics.median(walls)
    print(f"Battle Builder calibration, {battles} battles x 3 difficulties, 2 players, greedy: "
          f"median {med:.2f} s wall, {statistics.median(cpus):.2f} s CPU over {rounds} rounds "
          f"(min {min(walls):.2f}, max {max(walls):.2f}); "
          f"{statistics.median(cmds) / med:,.0f} commands/s; "
          f"goal <= 10 s: {'met' if med <= 10 else 'NOT met'} ({10 / med:.1f}x headroom)")
    for x in rows:
        lo, hi = x["ci95"]
        print(f"    {x['difficulty']:>6}: win {x['win_rate']:.1%} ({lo:.1%}-{hi:.1%}) vs "
              f"target {x['target']:.0%}, {x['games']} games, {x['seconds']:.2f} s")


def bench_market(rounds, games=1000):
    g = get("market-trading")
    report(g, 2, 30)
    for bots in ("greedy", "random"):
        rates, cpu_rates, lengths = [], [], []
        for r in range(rounds):
            out, wall, cpu = _timed(lambda: report(g, 2, games, seed=r, bots=bots))
            rates.append(games / wall)
            cpu_rates.append(games / cpu)
            lengths.append(out["commands_mean"])
        med = statistics.median(rates)
        print(f"Market Trading 2 players, {bots} bots, {games} games x {rounds}: median "
              f"{med:,.0f} games/s wall ({statistics.median(cpu_rates):,.0f}/s by CPU time), "
              f"{statistics.median(lengths):.0f} commands/game; goal >= 1,000 games/s: "
              f"{'met' if med >= 1000 else 'NOT met'} ({med / 1000:.2f}x of goal)")


def _recorded(game, n, count, options=None, bots="greedy"):
    """Play ``count`` games and keep their commands, to replay without bots."""
    out = []
    for i in range(count):
        s = Session.start(game, [f"P{k}" for k in range(n)], MemoryLog(copy_records=False),
                          options=options, seed=i, clock=FakeClock(),
                          entropy=random.Random(i).randbytes, session_id=f"r{i}")
        play_out(s, resolve_bots(game, bots, n), random.Random(i))
        out.append(s.records)
    return out


def bench_split(name, count):
    """Where the time goes: bots + session + rules, session + rules (commands replayed without
    bots), and the rules alone (core apply on a bare state, no session, no log)."""
    game = get(name)
    games = _recorded(game, 2, count)
    n_cmds = sum(len(r) - 1 for r in games)

    def full():
        for i in range(count):
            s = Session.start(game, ["P0", "P1"], MemoryLog(copy_records=False), seed=i,
                              clock=FakeClock(), entropy=random.Random(i).randbytes,
                              session_id=f"f{i}")
            play_out(s, resolve_bots(game, "greedy", 2), random.Random(i))

    def session_only():
        for i, recs in enumerate(games):
            s = Session.start(game, ["P0", "P1"], MemoryLog(copy_records=False), seed=i,
                              clock=FakeClock(), entropy=random.Random(i).randbytes,
                              session_id=f"s{i}")
            for r in recs[1:]:
                s.execute(r["seat"], r["move"], r["args"])

    def bare():
        for i, recs in enumerate(games):
            st = new_state(game, ["P0", "P1"], None, i)
            for r in recs[1:]:
                apply(game, st, r)

    times = {}
    for label, fn in (("bots+session+rules", full), ("session+rules", session_only),
                      ("rules only (bare apply)", bare)):
        ts = [_timed(fn)[2] for _ in range(3)]
        times[label] = statistics.median(ts)
    base = times["bots+session+rules"]
    parts = ", ".join(f"{k} {1e6 * v / n_cmds:.1f} us/command ({v / base:.0%})"
                      for k, v in times.items())
    print(f"{game.title} time split (CPU, {count} games, {n_cmds / count:.0f} commands/game): "
          f"{parts}")


def bench_latency(name, n=3000):
    """One command through Session.execute: p50 and p99."""
    game = get(name)
    rng = random.Random(1)
    lat = []
    s = None
    while len(lat) < n:
        if s is None or s.state.is_over():
            s = Session.start(game, ["A", "B"], MemoryLog(), seed=rng.getrandbits(32),
                              clock=FakeClock())
        seat = min(s.state.prompts)
        move, args = game.bots["greedy"](game, game.observe(s.state, seat), rng)
        t = time.perf_counter()
        s.execute(seat, move, args)
        lat.append(time.perf_counter() - t)
    print(f"{game.title} one command (Session.execute, MemoryLog with copies): "
          f"p50 {statistics.median(lat) * 1e6:.0f} us, p99 {pct(lat, 99) * 1e6:.0f} us "
          f"(n={n})")


def main(argv):
    quick = "--quick" in argv
    rounds = 2 if quick else 3
    bench_calibration(rounds, 300 if quick else 1000)
    bench_market(rounds, 300 if quick else 1000)
    bench_split("market-trading", 100 if quick else 300)
    bench_split("battle-builder", 20 if quick else 60)
    bench_latency("battle-builder", 1000 if quick else 3000)
    bench_latency("market-trading", 1000 if quick else 3000)


if __name__ == "__main__":
    main(sys.argv[1:])
