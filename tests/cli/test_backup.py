"""`companion sessions backup DEST`: a consistent copy of the store taken while the table plays
(SQLite's online backup into one self-contained file, plus a heads file that matches it), which,
copied back, the table resumes with every record up to the backup point; a store the table would
refuse (a torn WAL) is refused in the table's own sentence; nothing is ever overwritten."""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import SessionFileError
from companion.core.log import SQLiteLog
from companion.core.session import Session
from companion.games import get
from companion.net.brokers import free_ports
from companion.net.seat_client import SeatClient, any_legal_move as next_move, post_join
from companion.service.hub import Hub

from ..waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "companion.cli.main", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def records(db, sid=None):
    """Every record of the store (of one session), read-only, in order."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if sid is None:
            return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        return [json.loads(d) for (d,) in con.execute(
            "SELECT data FROM events WHERE session_id=? ORDER BY version", (sid,))]
    finally:
        con.close()


def written(stdout):
    return [line[len("Wrote "):].split(" (")[0] for line in stdout.splitlines()
            if line.startswith("Wrote ")]




class Players(threading.Thread):
    """Four phones playing, one command at a time each, until told to stop."""

    def __init__(self, seats):
        super().__init__(daemon=True)
        self.seats, self.stop = seats, threading.Event()
        self.rng = random.Random(3)
        self.acked = 0

    def run(self):
        pending = {}
        while not self.stop.wait(0.05):
            for s in self.seats:
                tx = pending.get(s.seat)
                if tx is not None:
                    if tx not in s.replies:
                        continue
                    self.acked += bool(s.replies.pop(tx).get("ok"))
                    pending.pop(s.seat)
                mv = next_move(s.latest.get("view"), self.rng)
                if mv is not None:
                    pending[s.seat] = s.publish_command(*mv)
                    break                       # one command per tick: a game lasts a while


def test_a_backup_taken_while_the_table_plays_restores_to_a_store_it_resumes(tmp_path):
    live = tmp_path / "live" / "sessions.db"
    live.parent.mkdir()
    ports = free_ports(3, "127.0.0.1")
    serve = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "serve", "--table", "bk", "--db", str(live),
         "--game", "great-powers", "--players", "4", "--start-now", "--seed", "7", "--quiet",
         "--bind", "127.0.0.1", "--http-port", str(ports[0]), "--mqtt-port", str(ports[1]),
         "--ws-port", str(ports[2])],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True)
    players = None
    try:
        info = next(json.loads(line) for line in serve.stdout if line.startswith("{"))
        base = f"http://127.0.0.1:{ports[0]}"
        seats = [SeatClient(base, post_join(base, {"name": n, "room": info["room"]})).connect()
                 for n in ("Ann", "Bo", "Cy", "Di")]
        players = Players(seats)
        players.start()
        wait_until(lambda: records(live) >= 15, 60, what="15 records played")
        before = records(live)                          # saved before the backup began
        (tmp_path / "backups").mkdir()
        r = cli("sessions", "backup", str(tmp_path / "backups"), "--db", str(live))
        assert r.returncode == 0, r.stderr
        # play goes on after the backup point (the backup, a fresh process, may itself take a
        # while on a loaded machine, and holds what was saved until it copied)
        held_then = int(re.search(r": 1 session, (\d+) records\.", r.stdout).group(1))
        wait_until(lambda: records(live) > held_then + 3, 60, what="play going on after it")
        players.stop.set()
        players.join(10)
        for s in seats:
            s.close()
    finally:
        if players is not None:
            players.stop.set()
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=30)
    assert players.acked > 0                            # the phones' moves were saved

    copy, heads = written(r.stdout)
    assert re.fullmatch(r"sessions-\d{8}-\d{6}\.db", Path(copy).name), copy
    assert heads == copy + "-heads" and Path(copy).parent == tmp_path / "backups"
    assert not [p for p in os.listdir(tmp_path / "backups") if p not in
                (Path(copy).name, Path(heads).name)], "no WAL, journal or partial file left"
    sid, held = Path(heads).read_text().split()
    m = re.search(r": 1 session, (\d+) records\.", r.stdout)
    assert m and int(m.group(1)) == int(held) >= before

    # restore: the table is stopped; copy both back beside each other
    restored = tmp_path / "restored" / "sessions.db"
    restored.parent.mkdir()
    shutil.copy(copy, restored)
    shutil.copy(heads, str(restored) + "-heads")
    con = sqlite3.connect(restored)
    assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert con.execute("PRAGMA journal_mode").fetchone() == ("delete",)   # needs no WAL
    con.close()
    # every record up to the backup point, exactly as the table saved it
    assert records(restored, sid) == records(live, sid)[:int(held)]
    assert len(records(live, sid)) > int(held)          # the table played on after it
    r = cli("replay", sid, "--db", str(restored))
    assert r.returncode == 0 and f"session {sid}, {held} records" in r.stdout, r.stderr
    log = SQLiteLog(restored)                           # the table's own check passes
    try:
        hub = Hub(log, table="bk")
        session = hub.resume()
        assert session is not None and session.id == sid and session.version >= int(held)
    finally:
        log.close()


def played_store(path, moves=30):
    """A store in use (not closed: its records partly in the WAL), with its heads file."""
    log = SQLiteLog(path)
    s = Session.start(get("great-powers"), ["Ann", "Bo", "Cy"], log, seed=4, clock=FakeClock(),
                      meta={"table": "t"})
    from companion.core.play import tap
    rng = random.Random(1)
    for _ in range(moves):
        seat = min(s.state.prompts, key=lambda x: -1 if x is None else x)
        s.execute(seat, *tap(s.game, s.state, seat, rng))
    return log, s


def test_a_store_with_a_torn_wal_is_refused_in_the_tables_sentence(tmp_path):
    db = tmp_path / "live.db"
    log, _ = played_store(db)
    torn = tmp_path / "torn.db"                    # copied while in use, the WAL cut short
    shutil.copy(db, torn)
    shutil.copy(str(db) + "-heads", str(torn) + "-heads")
    wal = (tmp_path / "live.db-wal").read_bytes()
    (tmp_path / "torn.db-wal").write_bytes(wal[: len(wal) - 3 * (4096 + 24) - 100])
    log.close()
    before = {p: p.read_bytes() for p in (torn, tmp_path / "torn.db-wal")}
    dest = tmp_path / "backups"
    dest.mkdir()
    r = cli("sessions", "backup", str(dest), "--db", str(torn))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert {p: p.read_bytes() for p in before} == before        # read-only: left untouched
    assert os.listdir(dest) == []                               # nothing written
    with pytest.raises(SessionFileError) as e:                  # what the table says
        SQLiteLog(torn)
    assert "has lost records" in str(e.value)
    assert r.stderr.strip().splitlines() == [f"companion: {e.value}"]


def test_never_overwrites_and_takes_a_file_path(tmp_path, capsys):
    from companion.cli.main import main
    db = tmp_path / "s.db"
    log, s = played_store(db, moves=5)
    target = tmp_path / "copy.db"
    assert main(["sessions", "backup", str(target), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert written(out) == [str(target), f"{target}-heads"]
    assert f"Backed up {db}: 1 session, {s.version} records." in out
    assert (tmp_path / "copy.db-heads").read_text() == f"{s.id} {s.version}\n"
    first = target.read_bytes()
    assert main(["sessions", "backup", str(target), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err == (f"companion: {target} exists already; a backup never overwrites anything. "
                   f"Choose another name or folder.\n")
    assert target.read_bytes() == first
    (tmp_path / "other.db-heads").write_text("x 1\n")           # a side file counts too
    assert main(["sessions", "backup", str(tmp_path / "other.db"), "--db", str(db)]) == 1
    assert not (tmp_path / "other.db").exists()
    log.close()


def test_a_backup_restored_beside_a_newer_heads_file_is_refused(tmp_path, capsys):
    """What docs/store.md warns about: the heads file goes with its copy. The live store's
    heads file claims records an older backup does not hold."""
    from companion.cli.main import main
    db = tmp_path / "s.db"
    log, s = played_store(db, moves=5)
    assert main(["sessions", "backup", str(tmp_path / "old.db"), "--db", str(db)]) == 0
    from companion.core.play import tap
    rng = random.Random(2)
    for _ in range(5):
        seat = min(s.state.prompts, key=lambda x: -1 if x is None else x)
        s.execute(seat, *tap(s.game, s.state, seat, rng))
    log.close()
    shutil.copy(tmp_path / "old.db", db)           # the db alone, the newer heads stays
    with pytest.raises(SessionFileError, match="has lost records"):
        SQLiteLog(db)
    shutil.copy(tmp_path / "old.db-heads", str(db) + "-heads")      # both: it opens
    SQLiteLog(db).close()
    capsys.readouterr()
