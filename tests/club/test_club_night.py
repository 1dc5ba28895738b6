"""A club night, whole (issue 24): `companion club` (its own PostgreSQL and mosquitto, the page)
and three `companion serve` tables, each with its own store, joined by the club's address and
played to the end by remote bot phones. Mid-game the club (broker and database) is stopped for
30 s and started again, and one table is SIGKILLed and restarted. Then:

* every record and session row of each box's store is at the club exactly once, as the public
  sees it (row by row against the store; no reply leaves a box, issue 35);
* the club page in headless Chromium shows the three tables and their final scores;
* a `_club` subscriber on `#` of the club broker, there the whole night but the outage, saw the
  tables' public topics and not one seat topic (view, cmd or reply) of any table, nor any
  table's room code.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as paho
import psycopg
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.club import pg
from companion.net.brokers import free_ports, mosquitto_available
from companion.net.seat_client import JoinFailed, SeatClient, any_legal_move, post_join

from ..teardown import close_all
from ..waiting import wait_until
from companion.club.public import public_meta

from .helpers import local_rows, organiser, shipped_events

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("t1", "t2", "t3")
OUTAGE = 30.0                       # seconds the club is away (the figure)
SEAT_TOPIC = re.compile(r"^tc/v1/[^/]+/seat/[^/]+/(view|cmd|reply)$")

pytestmark = pytest.mark.skipif(not pg.installed() or not mosquitto_available(),
                                reason="needs PostgreSQL and mosquitto (./table.sh test "
                                       "installs both)")


def companion(log, *args):
    """A `companion` child writing to a log file (a pipe nobody reads would stall it)."""
    out = open(log, "a")
    try:
        return subprocess.Popen([sys.executable, "-m", "companion.cli.main", *args], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True)
    finally:
        out.close()


def first_json(proc, log, what, timeout=90):
    """The newest start's JSON line (its join details), or its last words if it dies."""
    def starts():               # (not the club's lines about a table asking to join)
        return [ln for ln in Path(log).read_text().splitlines()
                if ln.startswith("{") and '"asking"' not in ln]

    def ready():
        return len(starts()) > first_json.seen.get(log, 0) or proc.poll() is not None
    wait_until(ready, timeout, what=f"{what} started")
    lines = starts()
    if len(lines) <= first_json.seen.get(log, 0):
        raise AssertionError(f"{what} did not start: {Path(log).read_text()[-2000:]}")
    first_json.seen[log] = len(lines)
    return json.loads(lines[-1])


first_json.seen = {}


class Club:
    def __init__(self, folder, ports, log):
        self.folder, self.ports, self.proc, self.info = folder, ports, None, None
        self.log = log

    def start(self):
        page, mqtt, ws, pgp = self.ports
        self.proc = companion(self.log, "club", "--folder", str(self.folder), "--name",
                              "Test night", "--bind", "127.0.0.1", "--host", "127.0.0.1",
                              "--port", str(page), "--mqtt-port", str(mqtt), "--ws-port",
                              str(ws), "--pg-port", str(pgp), "--json")
        self.info = first_json(self.proc, self.log, "companion club")
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def logins(self):
        return json.loads(Path(self.info["logins"]).read_text())

    def record_url(self):
        """The organiser's login on the record (what reports read with)."""
        settings = pg.Server(self.folder / "postgresql", self.ports[3], "127.0.0.1")
        return settings.create_owned_database("club", "tc_club")

    def let_in(self, names):
        """The organiser lets each table in on the organiser's page, as it asks."""
        password = json.loads((self.folder / "club.json").read_text())["organiser_password"]
        waiting = set(names)
        end = time.monotonic() + 120
        while waiting:
            asking = {r["table"] for r in organiser(self.info["page"], password)["asking"]}
            for name in asking & waiting:
                organiser(self.info["page"], password, "allow", name)
                waiting.discard(name)
            assert time.monotonic() < end, f"never asked to join: {waiting}"
            time.sleep(0.2)


class Table:
    """One `companion serve` box and its bot phones (one command at a time, paced so that the
    game lasts through the outage; a command unanswered for 10 s, sent into a dying box, is
    given up and the next one chosen from the newest view)."""

    def __init__(self, name, tmp, ports, seed):
        self.name, self.ports, self.seed = name, ports, seed
        self.db = tmp / name / "sessions.db"
        self.db.parent.mkdir(parents=True)
        self.log = tmp / name / "serve.log"
        self.proc = self.info = None
        self.seats, self.creds = [], []
        self.stop_play = threading.Event()
        self.acked = 0
        self.thread = None

    def start(self, club=None):
        http, mqtt, ws = self.ports
        args = ["serve", "--table", self.name, "--db", str(self.db), "--quiet",
                "--bind", "127.0.0.1", "--host", "127.0.0.1", "--http-port", str(http),
                "--mqtt-port", str(mqtt), "--ws-port", str(ws), "--broker", "mosquitto"]
        if club:                            # a restart resumes: the club was kept
            args += ["--game", "great-powers", "--players", "3", "--start-now",
                     "--seed", str(self.seed), "--club", club]
        self.proc = companion(self.log, *args)
        self.info = first_json(self.proc, self.log, f"table {self.name}")
        return self

    @property
    def base(self):
        return f"http://127.0.0.1:{self.ports[0]}"

    def _join(self, body):
        """``POST /join`` as the phone page does it: turned away while the table reconnects
        to its broker ("try again in a few seconds"), it tries again."""
        end = time.monotonic() + 60
        while True:
            try:
                return post_join(self.base, body, timeout=30)
            except JoinFailed as e:
                if "try again" not in str(e) or time.monotonic() > end:
                    raise
                time.sleep(1)

    def join_phones(self):
        for n in ("Ann", "Bo", "Cy"):
            creds = self._join({"name": n, "room": self.info["room"]})
            self.creds.append(creds)
            self.seats.append(SeatClient(self.base, creds).connect())
        self._play_on()

    def _play_on(self):
        self.stop_play = threading.Event()
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def phones_back(self):
        """After the box's restart each phone reclaims its seat with its token and connects
        again, as the phone page does."""
        self.stop_play.set()
        self.thread.join(10)
        for s in self.seats:
            s.close()
        self.creds = [self._join({"token": c["token"]})
                      for c in self.creds]              # the page reclaims its seat
        self.seats = [SeatClient(self.base, c).connect() for c in self.creds]
        self._play_on()

    def _play(self):
        rng = random.Random(self.seed)
        pending = {}
        while not self.stop_play.wait(0.5):
            for s in self.seats:
                tx, since = pending.get(s.seat, (None, 0))
                if tx is not None:
                    if tx in s.replies:
                        self.acked += bool(s.replies.pop(tx).get("ok"))
                    elif time.monotonic() - since < 10:
                        continue
                    pending.pop(s.seat)
                try:
                    mv = any_legal_move(s.latest.get("view"), rng)
                    if mv is not None:
                        pending[s.seat] = (s.publish_command(*mv), time.monotonic())
                        break               # one command a tick: the game lasts a while
                except Exception:           # a box restarting under the phone: next tick
                    break

    def over(self):
        v = self.seats[0].latest.get("view") if self.seats else None
        return bool(v and v.get("outcome") and v.get("seat") is not None)

    def records(self):
        return len(local_rows(self.db)[1])

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        self.stop_play.set()
        close_all(self.seats, "a seat client")
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Watcher:
    """`_club` on `#` of the club broker: every topic that ever reaches it (reconnecting by
    itself after the club's restart)."""

    def __init__(self, port, password):
        self.topics, self.payloads, self.lock, self.last = set(), [], threading.Lock(), {}
        self.c = paho.Client(CallbackAPIVersion.VERSION2, client_id="test-club-watch")
        self.c.username_pw_set("_club", password)
        self.c.on_connect = lambda c, *_a: c.subscribe("#", qos=1)
        self.c.on_message = self._on
        self.c.reconnect_delay_set(1, 2)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _on(self, _c, _u, msg):
        with self.lock:
            self.topics.add(msg.topic)
            self.payloads.append(msg.payload)
            self.last[msg.topic] = msg.payload

    def linked(self, table):
        """The table's bridge is up at the club (its broker restarted with it, if it had to)."""
        with self.lock:
            return self.last.get(f"tc/v1/{table}/club/link") == b"1"

    def stop(self):
        self.c.loop_stop()
        self.c.disconnect()


def club_rows(url, table):
    with psycopg.connect(url) as db:
        sessions = {r[0]: r[1:] for r in db.execute(
            "SELECT session_id, game, status, summary::text, meta::text FROM club_sessions "
            "WHERE table_id = %s", (table,))}
        events = db.execute("SELECT session_id, version, type, data FROM club_events WHERE "
                            "table_id = %s ORDER BY session_id, version", (table,)).fetchall()
        replies = db.execute("SELECT session_id, seat, tx, reply FROM club_replies WHERE "
                             "table_id = %s ORDER BY session_id, seat, tx", (table,)).fetchall()
        dupes = db.execute("SELECT count(*) - count(DISTINCT (table_id, session_id, version)) "
                           "FROM club_events").fetchone()[0]
    return sessions, events, replies, dupes


def test_a_club_night_survives_an_outage_and_a_killed_box(tmp_path):
    base = tempfile.mkdtemp(prefix="club-night-")       # postgres (under root) must reach it
    os.chmod(base, 0o711)
    ports = free_ports(4 + 3 * len(TABLES), "127.0.0.1")
    club = Club(Path(base) / "club", ports[:4], tmp_path / "club.log")
    tables = [Table(name, tmp_path, ports[4 + 3 * i: 7 + 3 * i], seed=11 + i)
              for i, name in enumerate(TABLES)]
    watcher = None
    try:
        club.start()
        watcher = Watcher(ports[1], club.logins()["_club"])
        for t in tables:
            t.start(club=club.info["join"])
        club.let_in(TABLES)                     # joining is the organiser's decision
        # joining restarts a box's broker once (mosquitto reads bridges at start): the phones
        # come when that is done, as a phone turned away ("try again in a few seconds") would
        wait_until(lambda: all(watcher.linked(t.name) for t in tables), 120,
                   what="every table's bridge up at the club")
        for t in tables:
            t.join_phones()
        wait_until(lambda: all(t.records() >= 8 for t in tables), 90, what="play under way")

        # the club goes away mid-game for 30 s; meanwhile one box dies outright and comes back
        club.stop()
        away = time.monotonic()
        for t in tables:
            assert not t.over(), f"{t.name} finished before the outage: pace the phones slower"
        victim = tables[1]
        before = victim.records()
        victim.kill()
        victim.start()                                  # resumes; the club kept in its store
        victim.phones_back()
        wait_until(lambda: victim.records() > before, 60, what="the restarted box playing on")
        time.sleep(max(0.0, OUTAGE - (time.monotonic() - away)))
        club.start()

        wait_until(lambda: all(t.over() for t in tables), 240, what="every game over")
        url = club.record_url()

        def shipped():
            return all(club_rows(url, t.name)[1] == shipped_events(t.db) for t in tables)
        wait_until(shipped, 120, what="every store's records at the club")
        for t in tables:
            wait_until(lambda t=t: _same(url, t), 60, what=f"{t.name} at the club row by row")
            sessions, events, replies, dupes = club_rows(url, t.name)
            assert dupes == 0
            assert len(events) >= 20 and len(sessions) == 1
            assert next(iter(sessions.values()))[1] == "finished"

        # the club page: three tables and their final scores
        scores = _page_scores(club.info["page"])
        assert sorted(scores) == list(TABLES)
        for t in tables:
            outcome = json.loads(_final_summary(url, t.name) or "{}")
            assert scores[t.name]["over"], scores[t.name]
            assert scores[t.name]["text"], scores[t.name]
            if outcome.get("scores"):
                for v in outcome["scores"].values():
                    assert str(v) in scores[t.name]["text"]

        # the wall held across the bridge, the whole night
        with watcher.lock:
            seen = set(watcher.topics)
        assert {f"tc/v1/{t}/state" for t in TABLES} <= seen
        assert any(t.endswith("/presence") for t in seen)
        assert not [t for t in seen if SEAT_TOPIC.match(t)], "a seat topic reached the club"
        with watcher.lock:                  # nor a room code (a stranger could take a seat)
            payloads = list(watcher.payloads)
        for t in tables:
            assert not [p for p in payloads if t.info["room"].encode() in p], t.name
    finally:
        if watcher is not None:
            watcher.stop()
        for t in tables:
            t.stop()
        club.stop()
        shutil.rmtree(base, ignore_errors=True)


def _same(url, t):
    s_local, _e_local, _r_local = local_rows(t.db)
    sessions, events, replies, _ = club_rows(url, t.name)
    # the records as the public sees them (the game is over: whole); no reply leaves a box
    if events != shipped_events(t.db) or replies or len(sessions) != len(s_local):
        return False
    for s in s_local:
        row = sessions.get(s["id"])
        if row is None or row[1] != s["status"]:
            return False
        if (json.loads(row[2]) if row[2] else None) != (json.loads(s["summary"]) if
                                                       s["summary"] else None):
            return False
        if json.loads(row[3]) != public_meta(json.loads(s["meta"])):
            return False
    return True


def _final_summary(url, table):
    with psycopg.connect(url) as db:
        row = db.execute("SELECT summary::text FROM club_sessions WHERE table_id = %s",
                         (table,)).fetchone()
    return row and row[0]


def _page_scores(page_url):
    """What the club page shows for each table, read in headless Chromium."""
    from playwright.sync_api import sync_playwright

    from tests.phone.conftest import CHROMIUM, FLAGS
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(page_url)
            page.wait_for_function(
                "() => window.club && Object.keys(window.club.tables || {}).length >= 3 && "
                "Object.values(window.club.tables).every(t => t.state && t.state.outcome)",
                timeout=60000)
            page.screenshot(path=str(Path(tempfile.gettempdir()) / "club-night.png"))
            return page.evaluate("""() => {
                const out = {};
                for (const [id, t] of Object.entries(window.club.tables)) {
                    const card = document.querySelector(`[data-table="${id}"]`);
                    out[id] = {over: !!(t.state && t.state.outcome),
                               text: card ? card.innerText : ""};
                }
                return out;
            }""")
        finally:
            b.close()
