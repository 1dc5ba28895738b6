"""Broker benchmarks (issue 4): both brokers we run, real paho clients on loopback.

Per mode (embedded amqtt, mosquitto), one table: a hub on TCP and 8 phones on WebSockets
(``--tcp`` for TCP phones), everything QoS 1, protocol v1 topics and the real ACL wall:
1. publish-to-receive, phone command -> hub (one way; both ends in this process, one clock);
2. command round trip phone -> hub -> reply -> phone (what a player feels);
3. fan-out: the hub publishes a ~2 KB public state; spread between the first and the last of
   the 8 phones receiving it, and publish-to-last;
4. start-up time and a runtime login change (add_user: mosquitto rewrites its password file
   and reloads on SIGHUP).
Then a tournament on ONE mosquitto: T tables x (1 hub + 8 phones), every phone sending a
command every ~2 s and every hub publishing its state to its table after each command (the
clients spread over processes, ``--procs``; each process drives its sockets on one thread);
command round trip (submit -> ack: the reply is the hub's first publish, as in the ack-first
order, then a 2 KB state to the table) and fan-out under that load; goal (issue 15): round
trip p99 <= 20 ms at 100 tables. The hub here only answers (its rules and log are bench_hub's):
this measures the broker's share. Default T=20 (180 connections: modest for a shared 2-core
machine); ``--tables 100`` is the issue's full scale; ``--quick`` is 20 tables for 5 s. The clients are Python (paho, one thread per process
driving its share of the sockets), so these figures include Python's own queueing: the broker
is faster than they show; its CPU share is printed. At 100 tables the clients handle about
4,000 messages a second (a reply and 8 state deliveries per command): more than the Python
clients keep up with on a shared 2-core box, while mosquitto used under a fifth of a core.

Run: .venv/bin/python benches/bench_broker.py [--quick] [--tcp] [--n N] [--tables T]
     [--seconds S] [--procs P] [--modes embedded,mosquitto]
"""
from __future__ import annotations

import argparse
import os
import random
import selectors
import statistics
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import paho.mqtt.client as paho                       # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion        # noqa: E402

from benches.figures import record                    # noqa: E402
from benches.stats import pct, summary_ms             # noqa: E402
from companion.net import brokers, credentials as cred, protocol   # noqa: E402
from companion.net.client import MqttClient, set_nodelay   # noqa: E402
from companion.net.topics import TableTopics          # noqa: E402

SEATS = 8
TOURNAMENT_GOAL = 0.020          # s: submit -> ack p99 with 100 tables on one mosquitto


def ms(x):
    return f"{x * 1000:.3f} ms"


def make_broker(mode, users):
    if mode == "mosquitto":
        return brokers.MosquittoBroker(users=users)
    return brokers.EmbeddedBroker(users=users)


class Table:
    """A hub and 8 phones on one broker, with timestamps taken in paho's callbacks."""

    def __init__(self, broker, hub, seats, t, phones_ws):
        self.t = t
        self.hub = MqttClient(broker.url, hub.username, hub.password,
                              on_message=self._hub_got).connect()
        self.hub.subscribe([(t.all_cmds, 1)])
        self.cmd_got = {}                    # tx -> perf_counter at the hub
        self.reply_got = {}                  # tx -> perf_counter at the phone
        self.state_got = {}                  # seq -> [perf_counter per phone]
        self.lock = threading.Lock()
        self.events = {}
        self.phones = []
        url = broker.ws_url if phones_ws else broker.url
        for s in seats:
            p = MqttClient(url, s.username, s.password,
                           on_message=self._phone_got(s.username)).connect()
            p.subscribe([(t.state, 1), (t.reply(s.username), 1)])
            self.phones.append((s.username, p))
        self.auto_reply = False

    def _signal(self, key):
        ev = self.events.get(key)
        if ev is not None:
            ev.set()

    def _hub_got(self, m):
        now = m.received_at
        tx = m.payload[:12].decode()
        self.cmd_got[tx] = now
        if self.auto_reply:
            seat = self.t.parse(m.topic).seat
            self.hub.publish(self.t.reply(seat), tx.encode(), wait=False)
        self._signal(("cmd", tx))

    def _phone_got(self, seat):
        def got(m):
            if m.topic == self.t.state:
                if m.retain:
                    return
                seq = m.payload[:12].decode()
                with self.lock:
                    arr = self.state_got.setdefault(seq, [])
                    arr.append(m.received_at)
                    if len(arr) == SEATS:
                        self._signal(("state", seq))
            else:
                self.reply_got[m.payload[:12].decode()] = m.received_at
                self._signal(("reply", m.payload[:12].decode()))
        return got

    def expect(self, key):
        """Call before sending what ``key`` answers, so the answer cannot be missed."""
        self.events[key] = threading.Event()

    def wait(self, key, timeout=5.0):
        ev = self.events[key]
        if not ev.wait(timeout):
            raise TimeoutError(f"no {key} within {timeout} s")

    def close(self):
        for _, p in self.phones:
            p.close()
        self.hub.close()


def bench_mode(mode, n, phones_ws):
    hub = cred.hub_credential()
    seats = [cred.seat_credential(cred.new_seat_id(i + 1)) for i in range(SEATS)]
    t0 = time.perf_counter()
    b = make_broker(mode, [hub] + seats).start()
    started = time.perf_counter() - t0
    try:
        adds = []
        for i in range(20):
            extra = cred.seat_credential(cred.new_seat_id(100 + i))
            t1 = time.perf_counter()
            b.add_user(extra.username, extra.password)
            adds.append(time.perf_counter() - t1)
        table = Table(b, hub, seats, TableTopics("bench"), phones_ws)
        try:
            one_way, round_trip = [], []
            table.auto_reply = True
            for i in range(n + 50):
                seat, phone = table.phones[i % SEATS]
                tx = f"{i:012d}"
                cmd = tx.encode() + protocol.encode({"v": 1, "tx": tx, "move": "bid",
                                                     "args": {"n": i}})
                table.expect(("reply", tx))
                sent = time.perf_counter()
                phone.publish(table.t.cmd(seat), cmd, wait=False)
                table.wait(("reply", tx))
                if i >= 50:                               # warm-up dropped
                    one_way.append(table.cmd_got[tx] - sent)
                    round_trip.append(table.reply_got[tx] - sent)
            spread, to_last = [], []
            body = b"x" * 2048
            for i in range(n + 50):
                seq = f"{i:012d}"
                table.expect(("state", seq))
                sent = time.perf_counter()
                table.hub.publish(table.t.state, seq.encode() + body, wait=False)
                table.wait(("state", seq))
                times = table.state_got[seq]
                if i >= 50:
                    spread.append(max(times) - min(times))
                    to_last.append(max(times) - sent)
        finally:
            table.close()
    finally:
        b.stop()
    phones = "WebSockets" if phones_ws else "TCP"
    record(("broker", mode), round_trip)
    print(f"\n[{mode}] hub TCP, {SEATS} phones over {phones}, QoS 1, loopback")
    print(f"  start-up            {ms(started)}")
    print(f"  add_user (runtime)  {summary_ms(adds)}")
    print(f"  cmd phone->hub      {summary_ms(one_way)}")
    print(f"  cmd round trip      {summary_ms(round_trip)}")
    print(f"  fan-out spread 1st->8th  {summary_ms(spread)}")
    print(f"  fan-out publish->8th     {summary_ms(to_last)}")
    return {"start": started, "add": statistics.median(adds),
            "one_way": statistics.median(one_way), "rtt": statistics.median(round_trip),
            "rtt99": pct(round_trip, 99), "spread": statistics.median(spread),
            "spread99": pct(spread, 99)}


# -- tournament: many connections driven by one selector thread -------------------------------

def broker_cpu(b) -> float:
    """CPU seconds (user + system) the mosquitto child has used so far."""
    with open(f"/proc/{b.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Swarm:
    """Many paho clients on one thread: paho's external-loop API driven by a selector."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.clients = []

    def add(self, url_host, port, user, password, on_message, subs):
        c = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"{user}-{os.getpid()}-{len(self.clients)}",
                        protocol=paho.MQTTv311)
        c.username_pw_set(user, password)
        c.on_message = on_message
        ready, acked = [], []
        c.on_connect = lambda *a: ready.append(a[3])
        c.on_subscribe = lambda *a: acked.append(1)
        c.connect(url_host, port, keepalive=60)
        set_nodelay(c.socket())
        self._drive(c, lambda: ready)        # not paho's loop(): select() stops at fd 1024
        if ready[0].is_failure:
            raise RuntimeError(f"login refused for {user}: {ready[0]}")
        c.subscribe(subs)
        self._drive(c, lambda: acked)
        self.sel.register(c.socket(), selectors.EVENT_READ, c)
        self.clients.append(c)
        return c

    @staticmethod
    def _drive(c, done, timeout=10.0):
        with selectors.DefaultSelector() as sel:
            sel.register(c.socket(), selectors.EVENT_READ)
            end = time.perf_counter() + timeout
            while not done():
                if time.perf_counter() > end:
                    raise TimeoutError("the broker did not answer a tournament client")
                if c.want_write():
                    c.loop_write()
                if sel.select(timeout=0.05):
                    c.loop_read()

    def run(self, seconds, tick=None):
        end = time.perf_counter() + seconds
        last_misc = 0.0
        while (now := time.perf_counter()) < end:
            for key, _ in self.sel.select(timeout=0.005):
                key.data.loop_read()
            for c in self.clients:
                if c.want_write():
                    c.loop_write()
            if tick is not None:
                tick(now)
            if now - last_misc > 1.0:
                for c in self.clients:
                    c.loop_misc()
                last_misc = now

    def close(self):
        for c in self.clients:
            try:
                c.disconnect()
                c.loop_write()
            except Exception:
                pass
            try:
                self.sel.unregister(c.socket())
            except Exception:
                pass


def _tournament_clients(host, port, hub, seats_by_table, seconds, conn=None):
    """The hub and phones of some tables, on one thread of this process (a Swarm): every phone
    sends a command every ~2 s, its hub answers with the reply, then a 2 KB state to the table.
    Returns (round trips, fan-out spreads, publish -> 8th, commands sent, connect time)."""
    swarm = Swarm()
    rtt, fan_spread, fan_last = [], [], []
    sent_at, state_recv = {}, {}
    pending = []                       # (due time, table, seat index)
    rng = random.Random(4 + min(seats_by_table, default=0))
    hubs, phones = {}, {}
    counter = [0]
    try:
        t_conn = time.perf_counter()
        for ti, seats in seats_by_table.items():
            t = TableTopics(f"t{ti}")

            def hub_msg(client, userdata, m, ti=ti, t=t):
                seat = t.parse(m.topic).seat
                tx = m.payload[:12]
                hubs[ti].publish(t.reply(seat), tx, qos=1)
                state_tag = b"S" + tx[1:]
                sent_at[state_tag] = time.perf_counter()
                hubs[ti].publish(t.state, state_tag + b"x" * 2048, qos=1)

            hubs[ti] = swarm.add(host, port, hub.username, hub.password, hub_msg,
                                 [(t.all_cmds, 1)])
            for j, s in enumerate(seats):
                def phone_msg(client, userdata, m, t=t):
                    now = time.perf_counter()
                    tag = m.payload[:12]
                    if m.topic == t.state:
                        if not m.retain:
                            state_recv.setdefault(tag, []).append(now)
                    elif tag in sent_at:
                        rtt.append(now - sent_at.pop(tag))
                phones[(ti, j)] = swarm.add(host, port, s.username, s.password, phone_msg,
                                            [(t.state, 1), (t.reply(s.username), 1)])
        connect_time = time.perf_counter() - t_conn
        if conn is not None:                 # every process connected: start together
            conn.send("connected")
            conn.recv()
        base = time.perf_counter()
        for ti, seats in seats_by_table.items():
            for j in range(len(seats)):
                pending.append((base + rng.uniform(0, 2.0), ti, j))
        pending.sort()

        def tick(now):
            while pending and pending[0][0] <= now:
                _, ti, j = pending.pop(0)
                counter[0] += 1
                tx = f"C{ti:04d}{counter[0]:07d}".encode()
                seat = seats_by_table[ti][j].username
                sent_at[tx] = time.perf_counter()
                phones[(ti, j)].publish(TableTopics(f"t{ti}").cmd(seat), tx + b"{}", qos=1)
                due = now + rng.uniform(1.5, 2.5)
                lo, hi = 0, len(pending)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if pending[mid][0] < due:
                        lo = mid + 1
                    else:
                        hi = mid
                pending.insert(lo, (due, ti, j))

        swarm.run(seconds, tick)
        swarm.run(0.5)                           # let the last messages land
        for tag, times in state_recv.items():
            if len(times) == len(next(iter(seats_by_table.values()))) and tag in sent_at:
                fan_spread.append(max(times) - min(times))
                fan_last.append(max(times) - sent_at[tag])
    finally:
        swarm.close()
    result = (rtt, fan_spread, fan_last, counter[0], connect_time)
    if conn is not None:
        conn.send(result)
    return result


def _client_process(args, conn):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    _tournament_clients(*args, conn=conn)


def bench_tournament(tables, seconds, mode="mosquitto", procs=1):
    """T tables on one broker; the clients in ``procs`` processes (one Python thread drives
    900 sockets at 100 tables and becomes the bottleneck: spread them over processes)."""
    import multiprocessing
    hub = cred.hub_credential()
    all_seats = {}
    for ti in range(tables):
        all_seats[ti] = [cred.seat_credential(cred.new_seat_id(j + 1)) for j in range(SEATS)]
    users = [hub] + [s for seats in all_seats.values() for s in seats]
    b = make_broker(mode, users).start()
    host = brokers.connect_host(b.host)
    procs = max(1, min(procs, tables))
    try:
        if procs == 1:
            cpu0, wall0 = broker_cpu(b), time.perf_counter()
            results = [_tournament_clients(host, b.tcp_port, hub, all_seats, seconds)]
        else:
            ctx = multiprocessing.get_context("spawn")
            workers = []
            for k in range(procs):
                part = {ti: all_seats[ti] for ti in range(k, tables, procs)}
                parent, child = ctx.Pipe()
                pr = ctx.Process(target=_client_process, daemon=True, args=(
                    (host, b.tcp_port, hub, part, seconds), child))
                pr.start()
                workers.append((pr, parent))
            for _, parent in workers:
                assert parent.recv() == "connected"
            cpu0, wall0 = broker_cpu(b), time.perf_counter()
            for _, parent in workers:
                parent.send("go")
            results = [parent.recv() for _, parent in workers]
            for pr, _ in workers:
                pr.join(10)
        cpu = (broker_cpu(b) - cpu0) / (time.perf_counter() - wall0)
    finally:
        b.stop()
    rtt = [x for r in results for x in r[0]]
    fan_spread = [x for r in results for x in r[1]]
    fan_last = [x for r in results for x in r[2]]
    sent = sum(r[3] for r in results)
    connect_time = max(r[4] for r in results)
    n_conn = tables * (SEATS + 1)
    record(("tournament",), (tables, rtt))
    print(f"\n[tournament on one {mode}] {tables} tables x ({SEATS} phones + 1 hub) = "
          f"{n_conn} connections (TCP), {seconds:g} s, a command per phone every ~2 s; "
          f"clients in {procs} process(es)")
    print(f"  connect + subscribe all  {connect_time:.2f} s")
    print(f"  commands sent {sent}, answered {len(rtt)} ({len(rtt) / seconds:.0f}/s), "
          f"state fan-outs complete to all 8: {len(fan_spread)}")
    print(f"  mosquitto CPU            {cpu * 100:.0f}% of one core (while the clients ran)")
    verdict = "within" if rtt and pct(rtt, 99) <= TOURNAMENT_GOAL else "OVER"
    print(f"  cmd round trip           {summary_ms(rtt)}  {verdict} the goal "
          f"(p99 <= {TOURNAMENT_GOAL * 1000:g} ms{'' if tables >= 100 else ' at 100 tables'})")
    print(f"  fan-out spread 1st->8th  {summary_ms(fan_spread)}")
    print(f"  fan-out publish->8th     {summary_ms(fan_last)}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500, help="samples per figure (default 500)")
    ap.add_argument("--tcp", action="store_true", help="phones over TCP, not WebSockets")
    ap.add_argument("--modes", default="embedded,mosquitto")
    ap.add_argument("--tables", type=int, default=20,
                    help="tournament tables on one mosquitto (default 20; 100 is the "
                         "issue's full scale)")
    ap.add_argument("--quick", action="store_true",
                    help="reduced run: 200 samples, a 20-table 5 s tournament")
    ap.add_argument("--seconds", type=float, default=10.0, help="tournament duration")
    ap.add_argument("--procs", type=int, default=None, help="processes for the tournament's "
                    "clients (default: one per 10 tables, at most one per core)")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.tables, args.seconds = 200, 20, 5.0
    results = {}
    for mode in args.modes.split(","):
        results[mode] = bench_mode(mode, args.n, not args.tcp)
    if {"embedded", "mosquitto"} <= set(results):
        e, m = results["embedded"], results["mosquitto"]
        print(f"\nratio embedded/mosquitto (p50): cmd one-way {e['one_way'] / m['one_way']:.2f}x,"
              f" round trip {e['rtt'] / m['rtt']:.2f}x, fan-out spread "
              f"{e['spread'] / m['spread']:.2f}x")
    bench_tournament(args.tables, args.seconds, procs=args.procs or min(os.cpu_count() or 1, -(-args.tables // 10)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
