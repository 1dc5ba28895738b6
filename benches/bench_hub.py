"""The whole hub path with 8 simulated phones on loopback (issues 1 and 5).

Per broker mode (embedded amqtt, mosquitto child): a real table (TableServer: SQLite log, hub,
bridge, broker, web server) runs in its own process, as `companion serve` does; 8 phones in
this process join by POST /join and play Great Powers for 8 seats over MQTT WebSockets, each
answering its own prompt from its own view (bids: the first allowed traits; actions: take a
card and discard it; bonuses: decline). Everything a phone does is a protocol-v1 command, timed
on the phone:

1. submit -> acknowledgement (the reply with the same tx). On the hub that is the rules, the
   durable SQLite append (WAL, synchronous=FULL: an fsync per command), then the events,
   8 seat views and the public state, then the reply. Two ways: one phone at a time
   ("sequential"), and all 8 bid cards of a turn sent at the same instant ("burst");
2. the reveal: the spread between the first and the last phone receiving ChoicesRevealed (one
   publish fanned out by the broker), and the same for the 8 seat views that show it;
3. where the time goes, measured inside the table's process: the SQLite append alone, and
   command in -> reply out in the bridge.

The log lives on the ordinary disk (as on the Pi's SD card) and, for comparison, on tmpfs
(/dev/shm), which shows the share of the disk's fsync. Goals: ack p99 <= 5 ms, reveal spread
<= 5 ms. Each phone runs in a process of its own, as each real phone has its own CPU (with
``--threads`` they share this process and queue on its GIL, which inflates every figure); they
still share the box's cores with the table and the broker, so a room of real phones does no
worse. The legs of one command are timed across processes with perf_counter (CLOCK_MONOTONIC,
one clock for the whole machine).

Run: .venv/bin/python benches/bench_hub.py [--games N] [--modes embedded,mosquitto]
     [--logs disk,tmpfs] [--tcp] [--threads]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benches.stats import pct, summary_ms             # noqa: E402
from companion.net.seat_client import SeatClient      # noqa: E402

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
GOAL_MS = 5.0


# -- the table, in its own process -----------------------------------------------------------------

def table_process(mode, log_dir, conn, switch):
    """Run one table; answer 'new' (start another game) and 'stop' (send timings, exit)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if switch:
        sys.setswitchinterval(switch)
    from companion.net.serve import TableServer
    appends, handles, marks = [], [], {}
    with tempfile.TemporaryDirectory(dir=log_dir) as d:
        opts = {"binary": "/usr/sbin/mosquitto"} if mode == "mosquitto" else {}
        server = TableServer("bench", db=os.path.join(d, "s.db"), game="great-powers",
                             players=8, bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                             broker=mode, broker_options=opts, seed=1).start()
        log = server.hub.log
        orig_append = log.append

        def append(*a, **kw):
            t = time.perf_counter()
            try:
                return orig_append(*a, **kw)
            finally:
                appends.append(time.perf_counter() - t)
        log.append = append
        bridge = server.bridge
        orig_handle = bridge._handle_command

        def handle(seat_id, payload, retained, received_at=None):
            t = time.perf_counter()
            try:
                return orig_handle(seat_id, payload, retained, received_at)
            finally:
                end = time.perf_counter()
                handles.append(end - t)
                try:
                    tx = json.loads(payload)["tx"]
                except (ValueError, KeyError, TypeError):
                    tx = None
                # perf_counter is CLOCK_MONOTONIC on Linux: comparable across processes
                marks[tx] = (received_at, t, end)
        bridge._handle_command = handle
        conn.send({"port": server.web.port, "room": server.hub.room_code,
                   "mqtt": server.broker.url})
        seed = 1
        try:
            while True:
                msg = conn.recv()
                if msg == "new":
                    seed += 1
                    server.hub.configure("great-powers", 8)
                    server.hub.start(seed=seed)
                    conn.send(server.hub.session.id)
                elif msg == "stop":
                    break
        finally:
            server.stop()
    conn.send({"append": appends, "handle": handles, "marks": marks})


# -- the phones ------------------------------------------------------------------------------------

class Phone(SeatClient):
    """A seat client that answers its prompt from its own view and notes when each reveal
    reached it. It keeps payloads raw and parses a view only when the driver looks at it: a
    real phone has a CPU of its own, here 8 share this process, so they do as little as
    possible on receipt."""

    SEQ = re.compile(rb'"seq":(\d+)')

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.keep_messages = False
        self.reveal_at = {}
        self.reply_at = {}
        self.raw_view = None
        self.view_seq = -1
        self.watch = None                  # a window whose reveal we time

    def _on_message(self, m):
        t = self.topics
        if m.topic == t["view"]:
            found = self.SEQ.search(m.payload)
            with self._cond:
                self.raw_view = m.payload
                self.view_seq = int(found.group(1)) if found else -1
                self._cond.notify_all()
            w = self.watch
            if w is not None and ("view", w) not in self.reveal_at and \
                    b'"revealed":true' in m.payload:
                if any(x["id"] == w and x["revealed"]
                       for x in json.loads(m.payload).get("windows", ())):
                    self.reveal_at[("view", w)] = m.received_at
        elif m.topic == t["reply"]:
            msg = json.loads(m.payload)
            with self._cond:
                self.reply_at[msg["tx"]] = m.received_at
                self.replies[msg["tx"]] = msg
                self._cond.notify_all()
        elif m.topic == t["events"] and b'"ChoicesRevealed"' in m.payload:
            self.reveal_at.setdefault(("event", json.loads(m.payload)["window"]),
                                      m.received_at)

    def timed_send(self, move, args):
        """Send one command; (sent at, reply received at, reply, tx), timed in here."""
        t0 = time.perf_counter()
        tx = self.publish_command(move, args)
        reply = self.wait_reply(tx)
        return t0, self.reply_at[tx], reply, tx

    def set_watch(self, window):
        self.watch = window

    def view(self):
        with self._cond:
            raw = self.raw_view
        return json.loads(raw) if raw is not None else None

    def wait_seq(self, seq, timeout=5.0):
        with self._cond:
            if not self._cond.wait_for(lambda: self.view_seq >= seq, timeout):
                raise TimeoutError(f"{self.creds['name']}: no view with seq {seq}")

    @staticmethod
    def answer(view):
        """(move, args) for a seat's prompt, decided from its own view."""
        p = view["prompt"]
        moves = p["moves"]
        if "submit_bids" in moves:
            return "submit_bids", {"traits": p["allowed"][:p["count"]]}
        if "take_action" in moves:
            return "take_action", {"card": p["cards"][0], "resolve": False}
        if "decline_bonus" in moves:
            return "decline_bonus", {}
        if "pick_side" in moves:
            return "pick_side", {"player": p["candidates"][0]}
        return moves[0], {}

    def wait_time(self, kind, window, timeout=5.0):
        deadline = time.monotonic() + timeout
        while (kind, window) not in self.reveal_at:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.creds['name']} never got the {kind} of {window}")
            time.sleep(0.0002)
        return self.reveal_at[(kind, window)]


def phone_process(base, name, room, kw, conn):
    """One phone in a process of its own (as each real phone has its own CPU): serves the
    driver's requests over a pipe; every time is taken in here."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    phone = Phone.join(base, name, room, **kw).connect()
    conn.send("ready")
    while True:
        op, args = conn.recv()
        try:
            if op == "close":
                phone.close()
                conn.send(("ok", None))
                return
            conn.send(("ok", getattr(phone, op)(*args)))
        except Exception as e:          # report to the driver, keep serving
            conn.send(("error", repr(e)))


class PhoneProxy:
    """The driver's handle on a phone process: the same calls as :class:`Phone`."""

    def __init__(self, ctx, base, name, room, kw):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=phone_process, args=(base, name, room, kw, child),
                                daemon=True)
        self.proc.start()

    def ready(self):
        assert self.conn.recv() == "ready"

    def _call(self, op, *args):
        self.conn.send((op, args))
        status, value = self.conn.recv()
        if status != "ok":
            raise RuntimeError(f"phone {op}: {value}")
        return value

    def __getattr__(self, op):
        if op.startswith("_"):
            raise AttributeError(op)
        return lambda *args: self._call(op, *args)

    def close(self):
        self._call("close")
        self.proc.join(10)


def settle(phones, seq, timeout=5.0):
    """Wait until every phone shows at least ``seq`` (the reply came; views may lag)."""
    for p in phones:
        p.wait_seq(seq, timeout)


def play(phones, acks, burst_acks, rev_ev, rev_view, sent, limit=5000):
    seq = 0
    for _ in range(limit):
        settle(phones, seq)
        views = [p.view() for p in phones]
        if views[0].get("outcome") is not None:
            return
        asked = [i for i, v in enumerate(views) if v.get("prompt")]
        if not asked:
            time.sleep(0.001)
            continue
        bidders = [i for i in asked if "submit_bids" in views[i]["prompt"]["moves"]]
        if len(bidders) > 1:
            seq = burst(phones, views, bidders, burst_acks, rev_ev, rev_view)
            continue
        p = phones[asked[0]]
        move, args = Phone.answer(views[asked[0]])
        t0, t1, reply, tx = p.timed_send(move, args)
        acks.append(t1 - t0)
        sent[tx] = (t0, t1)
        if not reply["ok"]:
            raise RuntimeError(f"refused: {reply}")
        seq = reply["result"]["seq"]
    raise RuntimeError("the game did not end")


def burst(phones, views, seats, burst_acks, rev_ev, rev_view):
    window = views[seats[0]]["prompt"]["window"]
    moves = {s: Phone.answer(views[s]) for s in seats}
    for p in phones:
        p.set_watch(window)
    go = threading.Barrier(len(seats) + 1)
    seqs = {}

    def send(s):
        go.wait()
        t0, t1, reply, _ = phones[s].timed_send(*moves[s])
        burst_acks.append(t1 - t0)
        seqs[s] = reply["result"]["seq"]

    threads = [threading.Thread(target=send, args=(s,)) for s in seats]
    for t in threads:
        t.start()
    go.wait()
    for t in threads:
        t.join()
    ev = [p.wait_time("event", window) for p in phones]
    vw = [p.wait_time("view", window) for p in phones]
    rev_ev.append(max(ev) - min(ev))
    rev_view.append(max(vw) - min(vw))
    return max(seqs.values())


def run(mode, log_dir, games, switch=None, tcp=False, processes=True):
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=table_process, args=(mode, log_dir, child, switch), daemon=True)
    proc.start()
    try:
        info = parent.recv()
        base = f"http://127.0.0.1:{info['port']}"
        kw = {"transport": "tcp", "url": info["mqtt"]} if tcp else {}
        if processes:
            phones = [PhoneProxy(ctx, base, n, info["room"], kw) for n in NAMES]
            for p in phones:
                p.ready()
        else:
            phones = [Phone.join(base, n, info["room"], **kw).connect() for n in NAMES]
        for p in phones:
            p.wait_seq(0, 10)
        acks, burst_acks, rev_ev, rev_view, sent = [], [], [], [], {}
        for g in range(games):
            if g:
                parent.send("new")
                sid = parent.recv()
                deadline = time.monotonic() + 10
                while any((p.view() or {}).get("session") != sid for p in phones):
                    if time.monotonic() > deadline:
                        raise TimeoutError("the new game's views did not arrive")
                    time.sleep(0.005)
            play(phones, acks, burst_acks, rev_ev, rev_view, sent)
        for p in phones:
            p.close()
        parent.send("stop")
        inside = parent.recv()
    finally:
        proc.join(20)
        if proc.is_alive():
            proc.terminate()
    legs = {"phone -> hub": [], "hub queue": [], "hub handling": [], "reply -> phone": []}
    for tx, (t0, t1) in sent.items():
        m = inside["marks"].get(tx)
        if m is None or m[0] is None:
            continue
        rcv, start, end = m
        for k, v in zip(legs, (rcv - t0, start - rcv, end - start, t1 - end)):
            legs[k].append(v)
    inside["legs"] = legs
    return acks, burst_acks, rev_ev, rev_view, inside


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2, help="Great Powers games per run "
                    "(about 190 commands each)")
    ap.add_argument("--modes", default="embedded,mosquitto")
    ap.add_argument("--logs", default="disk,tmpfs", help="where the SQLite log lives")
    ap.add_argument("--tcp", action="store_true", help="phones on MQTT over TCP instead of "
                    "WebSockets")
    ap.add_argument("--threads", action="store_true", help="the 8 phones as threads of this "
                    "process instead of 8 processes (they then queue on one GIL)")
    ap.add_argument("--switch", type=float, default=None, help="sys.setswitchinterval for "
                    "both processes (Python's default 0.005 s)")
    args = ap.parse_args(argv)
    if args.switch:
        sys.setswitchinterval(args.switch)
    places = {"disk": tempfile.gettempdir(), "tmpfs": "/dev/shm"}
    logs = [x for x in args.logs.split(",") if x != "tmpfs" or os.path.isdir("/dev/shm")]
    print(f"8 phones on MQTT WebSockets, Great Powers x {args.games} per run; goals: ack p99 "
          f"<= {GOAL_MS:g} ms, reveal spread <= {GOAL_MS:g} ms")
    rows = []
    for mode in args.modes.split(","):
        for where in logs:
            t0 = time.perf_counter()
            acks, burst_acks, rev_ev, rev_view, inside = run(mode, places[where], args.games,
                                                                args.switch, args.tcp,
                                                                not args.threads)
            took = time.perf_counter() - t0
            p99, rev99 = pct(acks, 99) * 1000, pct(rev_ev, 99) * 1000
            print(f"\n[{mode}, log on {where}] {len(acks) + len(burst_acks)} commands in "
                  f"{took:.1f} s")
            print(f"  submit -> ack, one phone at a time: {summary_ms(acks)}  "
                  f"{'within' if p99 <= GOAL_MS else 'OVER'} the goal")
            print(f"  submit -> ack, 8 bids at once:      {summary_ms(burst_acks)}")
            print(f"  reveal spread, ChoicesRevealed:     {summary_ms(rev_ev)}  "
                  f"{'within' if rev99 <= GOAL_MS else 'OVER'} the goal")
            print(f"  reveal spread, the 8 seat views:    {summary_ms(rev_view)}")
            print(f"  in the table's process: SQLite append {summary_ms(inside['append'])}")
            print(f"                          command in -> reply out "
                  f"{summary_ms(inside['handle'])}")
            print("  one phone at a time, leg by leg (p50 / p99 ms): " + "; ".join(
                f"{k} {statistics.median(v) * 1000:.2f} / {pct(v, 99) * 1000:.2f}"
                for k, v in inside["legs"].items() if v))
            share = statistics.median(inside["append"]) / max(statistics.median(acks), 1e-9)
            print(f"  the durable append is {share:.0%} of the median ack")
            rows.append((mode, where, statistics.median(acks) * 1000, p99, rev99))
    print("\nsummary (ms)   log     ack p50  ack p99  reveal-spread p99")
    for r in rows:
        print(f"  {r[0]:11} {r[1]:6} {r[2]:8.3f} {r[3]:8.3f} {r[4]:8.3f}")
    by = {(m, w): p for m, w, _, p, _ in rows}
    for w in logs:
        if ("embedded", w) in by and ("mosquitto", w) in by:
            print(f"  ack p99 embedded / mosquitto, log on {w}: "
                  f"{by[('embedded', w)] / by[('mosquitto', w)]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
