"""Core benchmarks (issue 2).

1. simulate throughput: Great Powers, 4 seats, greedy bots, in one process on one core.
   Goal: 9,604 games (a win rate within +-1% at 95%) in <= 10 s.
2. apply + durable append of one command, p50 and p99, for both log backends.
"""
import os
import random
import statistics
import sys
import tempfile
import time

from benches.stats import pct, summary_ms
from companion.core.clock import FakeClock
from companion.core.log import MemoryLog, SQLiteLog
from companion.core.play import simulate
from companion.core.session import Session
from companion.games import get


def bench_simulate(games):
    g = get("great-powers")
    players = ["A", "B", "C", "D"]
    simulate(g, players, 20, seed=99)                    # warm caches
    rounds = []
    for r in range(3):
        t = time.perf_counter()
        simulate(g, players, games, seed=r)
        rounds.append(time.perf_counter() - t)
    med = statistics.median(rounds)
    rate = games / med
    print(f"simulate great-powers 4 seats greedy: {games} games x3, median {med:.2f} s "
          f"= {rate:,.0f} games/s; 9,604 games would take {9604 / rate:.1f} s "
          f"(goal <= 10 s: {'met' if 9604 / rate <= 10 else 'NOT met'})")


def _one_command_latencies(log, n):
    g = get("great-powers")
    rng = random.Random(1)
    out = []
    s = None
    while len(out) < n:
        if s is None or s.state.is_over():
            s = Session.start(g, ["A", "B", "C", "D"], log, seed=rng.getrandbits(32),
                              clock=FakeClock())
        seat = min(s.state.prompts)
        move, args = g.bots["greedy"](g, g.observe(s.state, seat), rng)
        t = time.perf_counter()
        s.execute(seat, move, args)
        out.append(time.perf_counter() - t)
    return out


def bench_append(n):
    mem = _one_command_latencies(MemoryLog(), n)
    with tempfile.TemporaryDirectory() as d:
        lg = SQLiteLog(os.path.join(d, "bench.db"))
        sql = _one_command_latencies(lg, n)
        lg.close()
    print(f"apply + append, memory log:         {summary_ms(mem)}")
    print(f"apply + durable append, SQLite WAL: {summary_ms(sql)}")
    print(f"ratio SQLite/memory: p50 x{statistics.median(sql) / statistics.median(mem):.1f}, "
          f"p99 x{pct(sql, 99) / pct(mem, 99):.1f}")


def main(argv):
    quick = "--quick" in argv
    bench_simulate(300 if quick else 2000)
    bench_append(300 if quick else 2000)


if __name__ == "__main__":
    main(sys.argv[1:])
