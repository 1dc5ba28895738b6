"""The fault suite: a real `companion serve` killed with SIGKILL again and again mid-game while
four seats send moves, each seat resending every unanswered command with its old tx after each
restart (what the phone page does). Reports kills, acknowledged commands, lost (goal 0),
applied twice (goal 0), resends refused although applied (goal 0), and restart-to-ready p50/p99.

    python -m benches faults [--quick] [--kills N] [--broker embedded|mosquitto]
"""
import argparse
import json
import random
import signal
import statistics
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.net.brokers import free_ports
from companion.net.seat_client import SeatClient, any_legal_move as next_move, post_join

from .stats import pct

ROOT = Path(__file__).resolve().parents[1]


class Table:
    def __init__(self, db, broker):
        self.db, self.broker = db, broker
        self.ports = free_ports(3, "127.0.0.1")
        self.proc = None

    @property
    def base(self):
        return f"http://127.0.0.1:{self.ports[0]}"

    def start(self):
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli.main", "serve", "--table", "faults",
             "--db", str(self.db), "--game", "great-powers", "--players", "4", "--start-now",
             "--seed", "7", "--quiet", "--broker", self.broker, "--bind", "127.0.0.1",
             "--http-port", str(self.ports[0]), "--mqtt-port", str(self.ports[1]),
             "--ws-port", str(self.ports[2])],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL, text=True)
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.info = json.loads(line)
                return time.perf_counter() - t0
        raise RuntimeError("serve did not start")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.communicate(timeout=20)




def run(kills, broker, seed=1):
    """SIGKILL loops over as many games (a fresh store each) as it takes to reach ``kills``."""
    rng = random.Random(seed)
    total = {"kills": 0, "acknowledged": 0, "lost": 0, "applied_twice": 0,
             "resends_refused": 0, "games": 0}
    ready = []
    while total["kills"] < kills:
        r = one_game(kills - total["kills"], broker, rng, ready)
        total["games"] += 1
        for k in ("kills", "acknowledged", "lost", "applied_twice", "resends_refused"):
            total[k] += r[k]
    total["restart_to_ready_s"] = ({"p50": statistics.median(ready), "p99": pct(ready, 99),
                                    "n": len(ready)} if ready else None)
    return total


def finished(path) -> bool:
    db = sqlite3.connect(path)
    try:
        return any(st == "finished" for (st,) in db.execute("SELECT status FROM sessions"))
    finally:
        db.close()


def one_game(kills, broker, rng, ready):
    tmp = Path(tempfile.mkdtemp(prefix="tc-faults-"))
    table = Table(tmp / "faults.db", broker)
    table.start()
    seats = [SeatClient(table.base, post_join(table.base, {"name": n,
                                                            "room": table.info["room"]}))
             for n in ("Ann", "Bo", "Cy", "Di")]
    for s in seats:
        s.keep_messages = False
        s.connect()
    acked, replies, pending = set(), {}, {s.seat: [] for s in seats}   # seat -> [(tx, m, a)]
    done_kills, over = 0, False
    while done_kills < kills and not over:
        # a burst of moves, then a kill at a random moment while some are in flight
        t_end = time.monotonic() + rng.uniform(0.2, 0.8)
        while time.monotonic() < t_end:
            for s in seats:
                view = s.latest.get("view")
                if view and view.get("outcome"):
                    over = True
                mv = next_move(view, rng)
                if mv is None or pending[s.seat]:
                    continue
                tx = s.publish_command(*mv)
                pending[s.seat].append((tx, *mv))
            for s in seats:
                for tx, *_ in list(pending[s.seat]):
                    if tx in s.replies:
                        r = s.replies.pop(tx)
                        replies[tx] = r
                        if r.get("ok"):
                            acked.add(tx)
                        pending[s.seat] = [p for p in pending[s.seat] if p[0] != tx]
            time.sleep(0.01)
        if over:
            break
        time.sleep(rng.uniform(0, 0.05))
        table.kill()
        done_kills += 1
        ready.append(table.start())
        if finished(table.db):
            # the last burst ended the game before any phone's view said so: a restarted
            # table has no game to give the seats back to (the next game is a fresh store)
            break
        for s in seats:                                     # the phones come back ...
            s.close()
            s.reclaim()
            s.connect()
        for s in seats:                                     # ... and resend with old tx
            for tx, move, args in list(pending[s.seat]):
                try:
                    r = s.send(move, args, tx=tx, timeout=10)
                except TimeoutError:
                    continue
                replies[tx] = r
                if r.get("ok"):
                    acked.add(tx)
                pending[s.seat] = [p for p in pending[s.seat] if p[0] != tx]
        for s in seats:
            s.wait_view(lambda v: True, timeout=10)
    for s in seats:
        s.close()
    table.stop()
    db = sqlite3.connect(table.db)
    txs = [json.loads(d).get("tx") for (d,) in db.execute("SELECT data FROM events")]
    db.close()
    counts = {}
    for tx in txs:
        if tx:
            counts[tx] = counts.get(tx, 0) + 1
    return {"kills": done_kills, "acknowledged": len(acked),
            "lost": sum(1 for tx in acked if tx not in counts),
            "applied_twice": sum(1 for c in counts.values() if c > 1),
            "resends_refused": sum(1 for tx, r in replies.items()
                                   if not r.get("ok") and tx in counts)}


def main(argv):
    p = argparse.ArgumentParser(prog="bench_faults")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--kills", type=int, default=None)
    p.add_argument("--broker", default="embedded")
    a = p.parse_args(argv)
    kills = a.kills or (6 if a.quick else 30)
    r = run(kills, a.broker)
    print(f"SIGKILLs of companion serve: {r['kills']} over {r['games']} games "
          f"({a.broker} broker)")
    print(f"acknowledged commands: {r['acknowledged']}")
    print(f"lost (goal 0): {r['lost']}")
    print(f"applied twice (goal 0): {r['applied_twice']}")
    print(f"resends refused although applied (goal 0): {r['resends_refused']}")
    rr = r["restart_to_ready_s"]
    if rr:
        print(f"restart to ready: p50 {rr['p50']:.2f} s, p99 {rr['p99']:.2f} s (n={rr['n']})")
    return r


if __name__ == "__main__":
    main(sys.argv[1:])
