"""Trade Warz simulation speed (issue: >= 1,000 games/s on one core for 4 players, so 10,000
games for a +-1% interval take <= 10 s).

Every game runs on the real path (Session.execute -> apply -> MemoryLog, sealed choices with
commitments), exactly as `companion simulate` plays them. Figures:

1. games/s, 4 players, greedy and random bots, each edition: median of several rounds of games
   measured in CPU time of this process (the machine is shared; wall time is shown too).
2. Where the time goes: bot thinking vs. Session.execute, per command (p50 / p99), and the
   commands a game takes.
3. The same figure for `simulate(..., jobs=0)` (one worker per core), for reference.

Run: .venv/bin/python benches/bench_trade_warz.py [--games N] [--rounds R] [--quick]
"""
import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benches.stats import pct  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.log import MemoryLog  # noqa: E402
from companion.core.play import play_one, resolve_bots, simulate  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.games import get  # noqa: E402

PLAYERS = ["A", "B", "C", "D"]
GOAL = 1000.0


def rate(game, edition, bots, games, seed):
    seat_bots = resolve_bots(game, bots, 4)
    c0, w0 = time.process_time(), time.perf_counter()
    for i in range(games):
        play_one(game, PLAYERS, seed + i, seat_bots, {"edition": edition})
    return games / (time.process_time() - c0), games / (time.perf_counter() - w0)


def split(game, edition, games):
    """Bot time and execute time per command, on the same driver as play_out."""
    bots = resolve_bots(game, "greedy", 4)
    think, execute, cmds = [], [], 0
    for i in range(games):
        s = Session.start(game, PLAYERS, MemoryLog(copy_records=False),
                          options={"edition": edition}, seed=i, clock=FakeClock(),
                          entropy=random.Random(i).randbytes, session_id="b")
        rng = random.Random(i)
        while s.state.outcome is None:
            st = s.state
            if not st.prompts:
                s.clock.set(st.next_deadline())
                s.tick()
                continue
            seat = min(st.prompts, key=lambda x: -1 if x is None else x)
            t0 = time.perf_counter()
            mv = game.table_bot(game, game.observe(st, None), rng) if seat is None else \
                bots[seat](game, game.observe(st, seat), rng)
            t1 = time.perf_counter()
            s.execute(seat, *mv)
            t2 = time.perf_counter()
            think.append(t1 - t0)
            execute.append(t2 - t1)
            cmds += 1
    return think, execute, cmds / games


def core_floor(n=3000):
    """What the core alone costs per command: a no-op move and a sealed choice (salt,
    canonical JSON, SHA-256 commitment), on the core's own test game."""
    from tests.core.toy import Toy
    g = Toy()
    s = Session.start(g, ["A", "B"], MemoryLog(copy_records=False), seed=1, clock=FakeClock(),
                      entropy=random.Random(1).randbytes, session_id="f")
    plain, sealed = [], []
    for _ in range(n):
        t = time.perf_counter()
        s.execute(0, "shout", {})
        plain.append(time.perf_counter() - t)
    for _ in range(n):
        if s.state.outcome is not None:
            s = Session.start(g, ["A", "B"], MemoryLog(copy_records=False), seed=1,
                              clock=FakeClock(), entropy=random.Random(1).randbytes,
                              session_id="f", options={"rounds": 10_000})
        t = time.perf_counter()
        s.execute(0, "bid", {"n": 1})
        sealed.append(time.perf_counter() - t)
        s.execute(1, "bid", {"n": 2})
    return statistics.median(plain), statistics.median(sealed)


def sealed_per_game(game, edition, games=30):
    bots = resolve_bots(game, "greedy", 4)
    total = 0
    for i in range(games):
        _, s = play_one(game, PLAYERS, i, bots, {"edition": edition})
        total += sum(1 for r in s.records if "salt" in r)
    return total / games


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    args = ap.parse_args(argv)
    games, rounds = (40, 2) if args.quick else (args.games, args.rounds)
    game = get("trade-warz")
    for edition in ("trade", "tariff"):
        rate(game, edition, "greedy", 10, 999)            # warm the caches
    print(f"Trade Warz simulation, 4 players, {games} games x {rounds} rounds per figure "
          f"(CPU time of this process; wall in brackets)")
    results = {}
    for edition in ("trade", "tariff"):
        for bots in ("greedy", "random"):
            cpu, wall = [], []
            for r in range(rounds):
                c, w = rate(game, edition, bots, games, seed=r * 100_000)
                cpu.append(c)
                wall.append(w)
            med = statistics.median(cpu)
            results[edition, bots] = med
            print(f"  {edition:6} {bots:6}: median {med:7.0f} games/s "
                  f"(min {min(cpu):.0f}, max {max(cpu):.0f}; wall median "
                  f"{statistics.median(wall):.0f}); 10,000 games: {10_000 / med:5.1f} s; "
                  f"goal {GOAL:.0f}/s: {'met' if med >= GOAL else 'NOT met'} "
                  f"({med / GOAL:.2f}x)")
    ratio = results["tariff", "greedy"] / results["trade", "greedy"]
    print(f"  ratio tariff/trade (greedy): {ratio:.2f}")
    for edition in ("trade", "tariff"):
        think, execute, per_game = split(game, edition, max(20, games // 3))
        print(f"  {edition:6} where the time goes: {per_game:.0f} commands/game; "
              f"bot p50 {statistics.median(think) * 1e6:.0f} us p99 "
              f"{pct(think, 99) * 1e6:.0f} us; execute p50 "
              f"{statistics.median(execute) * 1e6:.0f} us p99 {pct(execute, 99) * 1e6:.0f} us; "
              f"execute share {sum(execute) / (sum(execute) + sum(think)):.0%}")
    plain, sealed = core_floor()
    for edition in ("trade", "tariff"):
        k = sealed_per_game(game, edition)
        floor = k * sealed
        print(f"  {edition:6} core floor: {k:.0f} sealed commands/game x {sealed * 1e6:.0f} us "
              f"(a no-op command: {plain * 1e6:.1f} us) = {floor * 1e3:.2f} ms/game, so at most "
              f"{1 / floor:.0f} games/s even if rules and bots cost nothing")
    n = max(200, games)
    t = time.perf_counter()
    simulate(game, PLAYERS, n, seed=1, bots="greedy", options={"edition": "trade"}, jobs=0)
    w = n / (time.perf_counter() - t)
    print(f"  simulate(jobs=0, {os.cpu_count()} cores) trade greedy: {w:.0f} games/s wall "
          f"(includes starting the workers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
