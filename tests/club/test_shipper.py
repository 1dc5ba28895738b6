"""The shipper against a real PostgreSQL and a real store filled by `companion play`: it ships
everything once, through a club restart, a second shipper on the same store, a shipper killed
mid-way, and a club that is not there at all."""
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from companion.club.shipper import Shipper
from companion.core.log import SQLiteLog
from companion.core.session import command_digest
from companion.net.brokers import free_port

from .helpers import club_count, club_events, local_rows, play, shipped_events

ROOT = Path(__file__).resolve().parents[2]


def wait_for(what, timeout=30.0, step=0.1):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(step)
    raise AssertionError("timed out waiting")


def all_there(url, db, table="kitchen"):
    """The club holds every record of the store, each once (its primary key), byte for byte
    as the public history shows it (these games are over: every record whole)."""
    return club_events(url, table) == shipped_events(db)


def test_ships_everything_and_a_second_shipper_adds_nothing(club_url, kitchen_url, tmp_path):
    db = tmp_path / "s.db"
    play(db, seed=3)
    s = Shipper(db, "kitchen", kitchen_url, interval=60)       # only notify() wakes it
    try:
        wait_for(lambda: all_there(club_url, db))
        n = len(local_rows(db)[1])
        wait_for(lambda: s.status()["sent"] == n)
        st = s.status()
        assert st["connected"] and st["queued"] == 0 and st["last_error"] is None
        play(db, seed=4, players=3)                          # the table saved more
        s.notify()
        wait_for(lambda: all_there(club_url, db), timeout=10)
        assert club_count(club_url, "club_sessions") == 2
    finally:
        s.stop()
    again = Shipper(db, "kitchen", kitchen_url, interval=0.2)   # the same box shipping twice
    try:
        time.sleep(1.5)
        assert again.status()["sent"] == 0 and again.status()["connected"]
        assert all_there(club_url, db)
    finally:
        again.stop()


def test_the_club_goes_away_and_comes_back(club_url, kitchen_url, tmp_path, pg_server,
                                          caplog):
    caplog.set_level(logging.WARNING, logger="companion.club")
    db = tmp_path / "s.db"
    play(db, seed=3)
    s = Shipper(db, "kitchen", kitchen_url, interval=0.2)
    try:
        wait_for(lambda: all_there(club_url, db))
        pg_server.stop()                                     # pg_ctl stop -m fast
        wait_for(lambda: not s.status()["connected"], timeout=10)
        play(db, seed=4, players=3)                          # the table plays on meanwhile
        play(db, seed=5, players=5)
        s.notify()
        wait_for(lambda: s.status()["queued"] > 0, timeout=40)
        st = s.status()
        assert "cannot be reached" in st["last_error"] or "went away" in st["last_error"]
        assert "***" in st["last_error"] and "Traceback" not in st["last_error"]
        time.sleep(2)
        pg_server.start()
        wait_for(lambda: s.status()["connected"] and s.status()["queued"] == 0, timeout=60)
        assert all_there(club_url, db)
        assert club_count(club_url, "club_sessions") == 3
    finally:
        s.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "companion.club"]
    away = [ln for ln in lines if "Records wait in the store" in ln]
    back = [ln for ln in lines if ln.startswith("club record reachable again:")]
    assert len(away) == 1 and len(back) == 1, lines
    assert back[0].endswith("records sent") and int(back[0].split(": ")[1].split()[0]) > 0


KILLED = """
import sys, time
from companion.club import record
ingest = record.Record.ingest
def slowly(self, *a, **kw):          # slow enough to be killed between two batches
    out = ingest(self, *a, **kw)
    time.sleep(0.3)
    return out
record.Record.ingest = slowly
from companion.club.shipper import Shipper
Shipper(sys.argv[1], "kitchen", sys.argv[2], batch=7, interval=0.1)
time.sleep(600)
"""


def test_a_shipper_killed_mid_way_is_finished_by_the_next(club_url, kitchen_url, tmp_path):
    db = tmp_path / "s.db"
    play(db, seed=3)
    play(db, seed=4, players=3)
    total = len(local_rows(db)[1])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(db), kitchen_url], env=env, cwd=ROOT)
    try:
        wait_for(lambda: club_count(club_url) >= 14, timeout=60)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    part = club_count(club_url)
    assert 14 <= part < total
    s = Shipper(db, "kitchen", kitchen_url, interval=0.2)
    try:
        wait_for(lambda: all_there(club_url, db))
        wait_for(lambda: s.status()["queued"] == 0)
        assert s.status()["sent"] == total - part        # the rest, nothing twice
    finally:
        s.stop()


def test_a_club_that_is_not_there_is_a_sentence_not_an_error(tmp_path):
    db = tmp_path / "s.db"
    play(db, seed=3)
    n = len(local_rows(db)[1])
    url = f"postgresql://postgres:pw@127.0.0.1:{free_port('127.0.0.1')}/club"
    s = Shipper(db, "kitchen", url, interval=0.2)
    try:
        st = wait_for(lambda: (lambda st: st if st["last_error"] else None)(s.status()),
                      timeout=10)
        assert not st["connected"] and st["sent"] == 0
        assert st["last_error"].startswith("The club record at postgresql://postgres:***@")
        assert "cannot be reached" in st["last_error"]
        wait_for(lambda: s.status()["queued"] == n, timeout=10)
    finally:
        t = time.monotonic()
        s.stop()
        assert time.monotonic() - t < 5
    assert not s._thread.is_alive()


def test_no_store_yet_is_nothing_to_ship(kitchen_url, tmp_path):
    s = Shipper(tmp_path / "none.db", "kitchen", kitchen_url, interval=0.2)
    try:
        wait_for(lambda: s.status()["connected"])
        assert s.status()["queued"] == 0 and s.status()["last_error"] is None
        assert not (tmp_path / "none.db").exists()           # read-only: never made one
    finally:
        s.stop()


def test_a_refusals_digest_stays_on_the_box(club_url, kitchen_url, tmp_path):
    """Issue 37: the store keeps a refused command's digest beside its reply (to tell a resend
    from another command under the same tx). Neither leaves the box: a seat's replies are never
    shipped (issue 35), and a digest of a refused sealed choice could be matched against the few
    choices a seat has."""
    db = tmp_path / "s.db"
    play(db, seed=3)
    log = SQLiteLog(db)
    sid = log.sessions()[0].id
    reply = json.dumps({"v": 1, "tx": "tx-1", "ok": False,
                        "error": {"code": "illegal_move", "message": "Not now."}})
    digest = command_digest("bid", {"n": 4})
    log.put_reply(sid, 1, "tx-1", reply, digest)
    log.close()
    s = Shipper(db, "kitchen", kitchen_url, interval=60)
    try:
        wait_for(lambda: all_there(club_url, db) and s.status()["queued"] == 0)
        with psycopg.connect(club_url) as pg:          # the organiser's view: the whole record
            replies = pg.execute("SELECT count(*) FROM club_replies").fetchone()[0]
            columns = {r[0] for r in pg.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name LIKE 'club_%'")}
            text = "".join(str(r) for table in ("club_sessions", "club_events")
                           for r in pg.execute(f"SELECT * FROM {table}").fetchall())
    finally:
        s.stop()
    assert replies == 0
    assert "digest" not in columns
    assert digest not in text and "tx-1" not in text
