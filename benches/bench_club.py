"""Club benchmarks (issue 24): many table boxes, one club, on this one machine.

One real club for the whole run (:class:`companion.club.run.Club` in a temp folder: Debian's
PostgreSQL, the club's mosquitto with TCP and WebSockets, the club page's server), then, for
each N of ``--tables`` (default 10,100):

1. **Ingest into the club record** (records/s). N SQLite stores filled with real bot games
   (``companion play great-powers --players 4 --bots all`` in this process: ``--games`` games
   per store, played into ``--distinct`` stores and copied to the others, so N=100 costs no
   100 x games of play; every copy ships under a table id of its own, so every record is a
   new row at the club). N :class:`~companion.club.shipper.Shipper` threads are started
   together against the club's PostgreSQL (each with its table's own role, as boxes get it); time from start
   until the club holds every record (its ``club_events`` count, polled every 50 ms over the
   superuser's own connection). Records/s overall and per table, and one Shipper alone (one
   store) as the baseline. Each Shipper keeps one PostgreSQL connection for as long as it
   runs: N boxes hold N connections, and PostgreSQL's default ``max_connections`` (100, three
   of them kept for superusers) does not hold 100 boxes (``--pg-default --tables 100``: 4 of
   the 100 shippers were refused "remaining connection slots are reserved" and, the others
   never letting go, did not get in within the timeout). The bench raises it to N + 30 with
   ALTER SYSTEM before it starts (and says so); ``--pg-default`` keeps the default.
2. **The club page's lag behind a table** (p50, p99). N table mosquittos (MosquittoBroker with
   a BridgeTo the club broker, as a joined box runs it; started 8 at a time), one publisher
   per table (the hub's login, on the table's own broker) publishing the table's retained
   ``tc/v1/<table>/outside/state`` (the copy without the room code that the bridge maps onto
   the club's ``tc/v1/<table>/state``; QoS 1, ~2 KB, its send time ``time.time()`` in it)
   every 1-2 s per table, for ``--seconds``. Received at the club by (a) a paho client logged
   in as ``_viewer`` over WebSockets, what the page uses (time taken in paho's callback), and
   (b) the club page itself in headless Chromium (Playwright): a listener added to the page's
   own MQTT client (``window.club.client``) after the page's, so it runs once the page has
   taken the message in (``Date.now()``, 1 ms steps), and the next animation frame after it
   (when the card is redrawn). Lag = receive time - send time, one clock.
3. **The command path at a table with and without the club.** One TableServer in this process
   (great-powers, 4 players, start now, mosquitto, 127.0.0.1) and 4 SeatClients on WebSockets
   sending legal moves (``any_legal_move``) one after another, 20 ms apart; round trip from
   ``publish_command`` to its reply. Blocks alternate A (no club) / B (``club=`` the club's
   join address: the table joins over HTTP, ships with a Shipper and bridges its public topics;
   measured only once both are up) / A / B ..., each block a fresh table and store playing one
   game; p50/p99 per condition, the B/A ratio and a bootstrap 95 % interval of the difference
   of the medians (beyond noise when it excludes 0). The issue's goal: no difference beyond
   noise.

Figures are printed, never asserted; the machine is shared and noisy: compare within one run.
Every process and temp folder is removed at the end, also on errors.

Run: .venv/bin/python benches/bench_club.py [--quick] [--tables 10,100] [--seconds S]
     [--games G] [--blocks B] [--no-page] [--pg-default] [--ingest-timeout S]
     [--only ingest,lag,commands]
``--quick`` (a smoke run of about a minute): 3 and 10 tables, 8 s of lag, 2+2 short blocks.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import psycopg                                         # noqa: E402

from benches.figures import record                     # noqa: E402
from benches.stats import pct, summary_ms               # noqa: E402
from companion.net import credentials as cred           # noqa: E402
from companion.net.brokers import BridgeTo, MosquittoBroker, free_ports   # noqa: E402
from companion.net.client import MqttClient             # noqa: E402
from companion.net.topics import outside_state            # noqa: E402

CHROMIUM = "/usr/bin/chromium"          # as tests/phone/conftest.py launches it
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--disable-dev-shm-usage"]
SUMMARY: list = []                      # (figure, value) rows for the closing table


def note(label, value):
    SUMMARY.append((label, value))
    print(f"  {label}: {value}", flush=True)


def p50p99(xs):
    if not xs:
        return "no samples"
    return f"p50 {statistics.median(xs) * 1000:.1f} ms, p99 {pct(xs, 99) * 1000:.1f} ms " \
           f"(n={len(xs)})"


# -- the club ------------------------------------------------------------------------------------

def start_club(base: Path):
    from companion.club.run import Club
    from companion.club.server import admit_all
    page, mqtt, ws, pgp = free_ports(4, "127.0.0.1")
    # the bench's tables are let in without the organiser (admit_all: a test's policy)
    club = Club(base / "club", name="Bench club", bind="127.0.0.1", host="127.0.0.1",
                page_port=page, mqtt_port=mqtt, ws_port=ws, pg_port=pgp, admit=admit_all)
    return club.start()


def admin(club):
    """The club database over the superuser's login (not one of the boxes' connections)."""
    return psycopg.connect(club.pg.url("club"), autocommit=True)


def raise_connections(club, n):
    with admin(club) as db:
        now = int(db.execute("SHOW max_connections").fetchone()[0])
        if now >= n:
            return now
        db.execute(f"ALTER SYSTEM SET max_connections = {int(n)}")
    club.pg.stop()
    club.pg.start()
    with admin(club) as db:
        return int(db.execute("SHOW max_connections").fetchone()[0])


# -- 1. ingest -----------------------------------------------------------------------------------

def play_stores(folder: Path, distinct: int, games: int):
    from companion.cli.main import main as companion
    import contextlib
    import io
    folder.mkdir(parents=True)
    out = []
    for k in range(distinct):
        db = folder / f"played-{k}.db"
        for g in range(games):
            with contextlib.redirect_stdout(io.StringIO()):
                rc = companion(["play", "great-powers", "--players", "4", "--bots", "all",
                                "--db", str(db), "--seed", str(1000 * k + g)])
            if rc != 0:
                raise RuntimeError(f"companion play failed ({rc})")
        con = sqlite3.connect(str(db))
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            records = con.execute("SELECT count(*) FROM events").fetchone()[0] + \
                con.execute("SELECT count(*) FROM replies").fetchone()[0]
        finally:
            con.close()
        out.append((db, records))
    return out


def copy_store(src: Path, dst: Path):
    a, b = sqlite3.connect(str(src)), sqlite3.connect(str(dst))
    try:
        a.backup(b)
    finally:
        a.close(), b.close()


def ingest(club, played, folder: Path, n: int, prefix: str, timeout: float):
    """N shippers started together; seconds until the club holds every record, and the
    records expected."""
    from companion.club.shipper import Shipper
    folder.mkdir(parents=True)
    stores, expected = [], 0
    for i in range(n):
        src, records = played[i % len(played)]
        dst = folder / f"{prefix}-{i:03d}.db"
        copy_store(src, dst)
        stores.append((dst, f"{prefix}-{i:03d}"))
        expected += records
    with admin(club) as db:
        db.execute("TRUNCATE club_events, club_replies, club_sessions")
    from companion.club.record import admit_table
    shippers = [Shipper(p, t, admit_table(club.roles_url, t), start=False)   # its own role
                for p, t in stores]
    got, took = 0, None
    with admin(club) as db:
        t0 = time.perf_counter()
        try:
            for s in shippers:
                s.start()
            while time.perf_counter() - t0 < timeout:
                got = db.execute("SELECT (SELECT count(*) FROM club_events) + "
                                 "(SELECT count(*) FROM club_replies)").fetchone()[0]
                if got >= expected:
                    took = time.perf_counter() - t0
                    break
                time.sleep(0.05)
        finally:
            errors = [s.status()["last_error"] for s in shippers if s.status()["last_error"]]
            for s in shippers:
                s.stop()
    return took, expected, got, errors


def bench_ingest(club, played, base: Path, n: int, timeout: float):
    print(f"\n-- 1. ingest into the club record: {n} tables --", flush=True)
    one, exp1, _, err1 = ingest(club, played, base / f"ingest-1-{n}", 1, f"one{n}", timeout)
    if one:
        note(f"ingest, 1 shipper alone ({exp1} records)",
             f"{one:.2f} s, {exp1 / one:,.0f} records/s")
    else:
        note("ingest, 1 shipper alone", f"not done in {timeout:.0f} s ({err1[:1]})")
    took, exp, got, errors = ingest(club, played, base / f"ingest-{n}", n, f"in{n}", timeout)
    if took:
        note(f"ingest, {n} shippers together ({exp} records)",
             f"{took:.2f} s, {exp / took:,.0f} records/s overall, "
             f"{exp / took / n:,.0f} per table; x{(exp / took) / (exp1 / one):.2f} the lone "
             f"shipper's rate" if one else f"{took:.2f} s, {exp / took:,.0f} records/s")
        record(("club", "ingest", n), exp / took)
    else:
        note(f"ingest, {n} shippers together", f"NOT done in {timeout:.0f} s: {got} of {exp} "
             f"records; {len(errors)} shippers with an error, e.g. {errors[:1]}")
    if errors:
        print(f"  shipper errors on the way: {len(errors)}, e.g. {errors[0]}")


# -- 2. the page's lag ---------------------------------------------------------------------------

class Tables:
    """N boxes' mosquittos bridged to the club, each with a publisher on its own broker."""

    def __init__(self, club, n, prefix):
        self.club, self.n = club, n
        self.names = [f"{prefix}-{i:03d}" for i in range(n)]
        self.brokers, self.pubs = [], []
        self.hub = cred.hub_credential()

    def start(self):
        def one(name):
            password = self.club.broker.add_table(name)
            b = MosquittoBroker("127.0.0.1", 0, None, users=[self.hub], persistence=False,
                                bridge=BridgeTo("127.0.0.1", self.club.broker.tcp_port, name,
                                                password, name))
            self.brokers.append(b)
            b.start()
            self.pubs.append((name, MqttClient(b.url, self.hub.username,
                                               self.hub.password).connect()))
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(one, self.names))
        return self

    def publish(self, name, client, rev, pad):
        doc = {"v": 1, "session": f"bench-{name}", "rev": rev, "table": name,
               "sent": time.time(), "pad": pad}
        client.publish(outside_state(name), json.dumps(doc).encode(), qos=1, retain=True,
                       wait=False)

    def stop(self):
        for _, c in self.pubs:
            try:
                c.close()
            except Exception:
                pass
        for b in self.brokers:
            try:
                b.stop()
            except Exception:
                pass


class Viewer:
    def __init__(self, club):
        self.samples = []                   # (table, rev, sent, received)
        self.seen = set()
        self.c = MqttClient(club.broker.ws_url, "_viewer", club.broker.viewer.password,
                            on_message=self._got).connect()
        self.c.subscribe([("tc/v1/+/state", 0)])

    def _got(self, m):
        now = time.time()
        try:
            d = json.loads(m.payload)
        except ValueError:
            return
        self.seen.add(d.get("table"))
        if not m.retain:
            self.samples.append((d.get("table"), d.get("rev"), d.get("sent"), now))

    def close(self):
        self.c.close()


HOOK = """() => {
  window.__lag = [];
  window.club.client.on("message", (topic, payload) => {
    if (!topic.endsWith("/state")) return;
    const got = Date.now();
    let d; try { d = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
    const row = [d.table, d.rev, d.sent, got, null];
    window.__lag.push(row);
    requestAnimationFrame(() => { row[4] = Date.now(); });
  });
}"""


class Page:
    def __init__(self, club):
        from playwright.sync_api import sync_playwright
        self.pw = sync_playwright().start()
        try:
            self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            self.page = self.browser.new_page(viewport={"width": 1920, "height": 1080})
            self.page.goto(f"http://127.0.0.1:{club.server.port}/")
            self.page.wait_for_function("() => window.club && window.club.connected",
                                        timeout=30_000)
            self.page.evaluate(HOOK)
        except BaseException:
            self.close()
            raise

    def count_tables(self):
        return self.page.evaluate("() => Object.keys(window.club.tables).length")

    def take(self):
        return self.page.evaluate("() => window.__lag.splice(0)")

    def close(self):
        for step in (lambda: self.browser.close(), lambda: self.pw.stop()):
            try:
                step()
            except Exception:
                pass


def bench_lag(club, n, seconds, use_page):
    print(f"\n-- 2. the club page's lag behind a table: {n} tables, {seconds:.0f} s --",
          flush=True)
    tables = Tables(club, n, f"lag{n}")
    viewer = page = None
    try:
        t0 = time.perf_counter()
        tables.start()
        print(f"  {n} table mosquittos bridged to the club in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        viewer = Viewer(club)
        if use_page:
            page = Page(club)
        pad = "x" * 2000
        for name, c in tables.pubs:             # rev 0: every bridge carries a first state
            tables.publish(name, c, 0, pad)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(viewer.seen & set(tables.names)) < n:
            time.sleep(0.1)
        if page is not None:
            while time.monotonic() < deadline and page.count_tables() < n:
                time.sleep(0.2)
        print(f"  every table seen at the club after {time.perf_counter() - t0:.1f} s "
              f"(viewer {len(viewer.seen & set(tables.names))}/{n}"
              f"{f', page {page.count_tables()}/{n}' if page else ''})", flush=True)
        viewer.samples.clear()
        if page is not None:
            page.take()
        # each table publishes every 1-2 s (uniform), for `seconds`
        rng = random.Random(7)
        now = time.monotonic()
        due = [(now + rng.uniform(0, 2), i) for i in range(n)]
        revs = [0] * n
        page_rows = []
        end = now + seconds
        sent = 0
        next_take = now + 2
        while True:
            due.sort()
            t, i = due[0]
            if t >= end:
                break
            wait = t - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            revs[i] += 1
            name, c = tables.pubs[i]
            tables.publish(name, c, revs[i], pad)
            sent += 1
            due[0] = (t + rng.uniform(1, 2), i)
            if page is not None and time.monotonic() > next_take:
                page_rows += page.take()
                next_take = time.monotonic() + 2
        time.sleep(3)                            # the last ones arrive
        if page is not None:
            page_rows += page.take()
        lags = [got - s for tb, rev, s, got in viewer.samples if rev and rev > 0]
        note(f"lag at the club, {n} tables, viewer (paho, WebSockets)",
             f"{p50p99(lags)} of {sent} sent")
        record(("club", "lag", "viewer", n), lags)
        if page is not None:
            pl = [(got - s * 1000) / 1000 for tb, rev, s, got, _ in page_rows if rev and rev > 0]
            drawn = [(fr - s * 1000) / 1000 for tb, rev, s, _, fr in page_rows
                     if rev and rev > 0 and fr is not None]
            note(f"lag at the club, {n} tables, page taken in (Chromium)", f"{p50p99(pl)}")
            note(f"lag at the club, {n} tables, page next frame", f"{p50p99(drawn)}")
            record(("club", "lag", "page", n), pl)
    finally:
        if page is not None:
            page.close()
        if viewer is not None:
            viewer.close()
        tables.stop()


# -- 3. the command path with and without the club -----------------------------------------------

def play_block(base: Path, name: str, join_url, max_cmds, ports):
    from companion.net.seat_client import SeatClient, any_legal_move
    from companion.club.table import ClubTable as TableServer
    folder = base / name
    folder.mkdir(parents=True)
    http, mq, ws = ports
    srv = TableServer(name, db=folder / "s.db", game="great-powers", players=4, start="now",
                      seed=zlib.crc32(name.encode()) % 1000, broker="mosquitto", bind="127.0.0.1",
                      http_port=http, mqtt_port=mq, ws_port=ws, club=join_url)
    seats = []
    rtts, refused = [], 0
    try:
        srv.start()
        if join_url:                            # measure once the club is attached
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                st = srv.club.status()
                rec = st.get("record") or {}
                if rec.get("connected") and srv.broker.bridge is not None and \
                        srv.broker.alive():
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"the club was not attached in 60 s: {srv.club.status()}")
        base_url = f"http://127.0.0.1:{srv.web.port}"
        for who in ("Ann", "Bo", "Cy", "Di"):
            seats.append(SeatClient.join(base_url, who, srv.hub.room_code).connect())
        for s in seats:
            s.wait_view(lambda v: "legal" in v, timeout=10)
        rng = random.Random(3)
        idle_since = None
        while len(rtts) < max_cmds:
            choice = None
            for s in rng.sample(seats, len(seats)):
                mv = any_legal_move(s.latest.get("view"), rng)
                if mv:
                    choice = (s, mv)
                    break
            if choice is None:
                if srv.hub.public_view().get("outcome"):
                    break
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since > 3:
                    break
                time.sleep(0.02)
                continue
            idle_since = None
            s, (move, args) = choice
            t0 = time.perf_counter()
            tx = s.publish_command(move, args)
            reply = s.wait_reply(tx, timeout=10)
            rtts.append(time.perf_counter() - t0)
            if not reply.get("ok", True):
                refused += 1
            time.sleep(0.02)
    finally:
        for s in seats:
            try:
                s.close()
            except Exception:
                pass
        srv.stop()
    return rtts, refused


def bootstrap_median_diff(a, b, rounds=2000, seed=1):
    rng = random.Random(seed)
    diffs = []
    for _ in range(rounds):
        ra = [rng.choice(a) for _ in a]
        rb = [rng.choice(b) for _ in b]
        diffs.append(statistics.median(rb) - statistics.median(ra))
    diffs.sort()
    return diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds) - 1]


def bench_commands(club, base: Path, blocks: int, max_cmds: int):
    print(f"\n-- 3. command round trip at a table, without (A) / with (B) the club, "
          f"{blocks}+{blocks} alternating blocks --", flush=True)
    by = {"A": [], "B": []}
    for k in range(2 * blocks):
        cond = "AB"[k % 2]
        name = f"cmd{k}-{cond.lower()}"
        rtts, refused = play_block(base / "cmd", name,
                                   club.join_url if cond == "B" else None, max_cmds,
                                   free_ports(3, "127.0.0.1"))
        by[cond] += rtts
        print(f"  block {k + 1} {cond} ({'club' if cond == 'B' else 'no club'}): "
              f"{summary_ms(rtts)}, {refused} refused", flush=True)
    a, b = by["A"], by["B"]
    note("command round trip, no club (A)", p50p99(a))
    note("command round trip, club attached (B)", p50p99(b))
    lo, hi = bootstrap_median_diff(a, b)
    beyond = "beyond noise" if lo > 0 or hi < 0 else "within noise"
    note("B/A ratio", f"p50 x{statistics.median(b) / statistics.median(a):.2f}, "
         f"p99 x{pct(b, 99) / pct(a, 99):.2f}; median difference 95% bootstrap "
         f"[{lo * 1000:+.2f}, {hi * 1000:+.2f}] ms: {beyond}")
    record(("club", "cmd", "A"), a)
    record(("club", "cmd", "B"), b)


# -- the run ---------------------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    ap.add_argument("--tables", default=None, help="comma-separated table counts (10,100)")
    ap.add_argument("--seconds", type=float, default=None, help="lag: seconds of publishing")
    ap.add_argument("--games", type=int, default=None, help="ingest: games per store")
    ap.add_argument("--distinct", type=int, default=4, help="ingest: stores really played")
    ap.add_argument("--blocks", type=int, default=None, help="commands: blocks per condition")
    ap.add_argument("--commands", type=int, default=None, help="commands: at most per block")
    ap.add_argument("--no-page", action="store_true", help="lag: no headless Chromium")
    ap.add_argument("--pg-default", action="store_true",
                    help="keep PostgreSQL's default max_connections")
    ap.add_argument("--ingest-timeout", type=float, default=120.0)
    ap.add_argument("--only", default="ingest,lag,commands")
    args = ap.parse_args(argv)
    q = args.quick
    counts = [int(x) for x in (args.tables or ("3,10" if q else "10,100")).split(",")]
    seconds = args.seconds or (8.0 if q else 30.0)
    games = args.games or (2 if q else 5)
    blocks = args.blocks or (1 if q else 3)
    max_cmds = args.commands or (40 if q else 150)
    only = set(args.only.split(","))
    use_page = not args.no_page and os.path.exists(CHROMIUM) and \
        (Path(__file__).parent.parent / "ui" / "web" / "club.html").exists()

    base = Path(tempfile.mkdtemp(prefix="bench-club-"))
    os.chmod(base, 0o711)           # under root PostgreSQL runs as postgres: it must reach it
    club = None
    t_all = time.perf_counter()
    try:
        t0 = time.perf_counter()
        club = start_club(base)
        print(f"club started in {time.perf_counter() - t0:.1f} s (PostgreSQL, mosquitto, page "
              f"at {club.server.url})", flush=True)
        if "ingest" in only:
            if not args.pg_default:
                got = raise_connections(club, max(counts) + 30)
                print(f"PostgreSQL max_connections set to {got} (default 100: each shipper "
                      f"holds one connection)", flush=True)
            t0 = time.perf_counter()
            played = play_stores(base / "played", args.distinct, games)
            print(f"played {args.distinct} stores x {games} games in "
                  f"{time.perf_counter() - t0:.1f} s: "
                  f"{', '.join(str(r) for _, r in played)} records each", flush=True)
            for n in counts:
                bench_ingest(club, played, base, n, timeout=args.ingest_timeout)
        if "lag" in only:
            for n in counts:
                bench_lag(club, n, seconds, use_page)
        if "commands" in only:
            bench_commands(club, base, blocks, max_cmds)
    finally:
        if club is not None:
            club.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(f"\n===== club figures, this run ({time.perf_counter() - t_all:.0f} s) =====")
    w = max((len(k) for k, _ in SUMMARY), default=0)
    for k, v in SUMMARY:
        print(f"  {k:{w}}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
