"""Storage that tells the truth (issue 11, items 3-4), through the real `companion` command:

* a damaged store (cut short, zeroed pages) is refused at start with one line naming the file
  and what to do, never a traceback; `companion sessions recover` moves it aside untouched and
  puts a recovered copy in its place that the table resumes;
* a copy that lost acknowledged records (a torn write-ahead log) is refused, never resumed
  silently;
* a store that cannot be written (read-only) is refused at start;
* a full disk refuses each move with `cannot_save`, shows one alert in words on every screen,
  loses nothing acknowledged, and plays on once there is room again.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import SessionFileError
from companion.core.log import SQLiteLog
from companion.core.session import Session
from companion.games import get

from .test_web import ROOT, run_cli


def make_store(path, moves=12):
    """A store holding one open Great Powers session with some moves, checkpointed."""
    log = SQLiteLog(path)
    s = Session.start(get("great-powers"), ["Ann", "Bo", "Cy"], log, seed=4, clock=FakeClock(),
                      meta={"table": "t"})
    from companion.core.play import tap
    import random
    rng = random.Random(4)
    for _ in range(moves):
        seat = min(s.state.prompts, key=lambda x: -1 if x is None else x)
        move, args = tap(s.game, s.state, seat, rng) or (None, None)
        s.execute(seat, move, args)
    log.close()                 # the last close checkpoints the WAL into the file
    return s


def serve_once(db):
    return run_cli("serve", "--table", "t", "--db", str(db), "--http-port", "0",
                   "--mqtt-port", "0", "--ws-port", "0", "--quiet", timeout=60)


def one_line(stderr):
    lines = [x for x in stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize("damage", ["cut", "zero-pages"])
def test_a_damaged_store_is_refused_in_one_line_and_recovered_on_request(tmp_path, damage):
    db = tmp_path / "s.db"
    make_store(db)
    data = bytearray(db.read_bytes())
    page = 4096
    if damage == "cut":
        data = data[: len(data) // 2 + 100]
    else:
        for i in range(page, min(len(data), 3 * page)):
            data[i] = 0
    db.write_bytes(bytes(data))
    r = serve_once(db)
    line = one_line(r.stderr)
    assert r.returncode == 1
    assert str(db) in line and "damaged" in line and "left untouched" in line
    assert "companion sessions recover" in line
    assert db.read_bytes() == bytes(data)                      # nothing was changed
    r = run_cli("sessions", "recover", "--db", str(db))
    assert r.returncode == 0, r.stderr
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and p.suffix != ".db-wal"]
    assert any(p.read_bytes() == bytes(data) for p in aside), r.stdout   # kept, byte for byte
    assert "moved aside, untouched" in r.stdout and "recovered copy" in r.stdout
    log = SQLiteLog(db)                                        # the copy opens and is checked
    log.close()


def test_a_copy_that_lost_acknowledged_records_is_refused(tmp_path):
    db = tmp_path / "live.db"
    log = SQLiteLog(db)
    s = Session.start(get("great-powers"), ["Ann", "Bo", "Cy"], log, seed=4, clock=FakeClock(),
                      meta={"table": "t"})
    import random
    from companion.core.play import tap
    rng = random.Random(1)
    for _ in range(30):
        seat = min(s.state.prompts, key=lambda x: -1 if x is None else x)
        s.execute(seat, *tap(s.game, s.state, seat, rng))
    copy = tmp_path / "copy.db"                    # copied while in use, the WAL cut short
    shutil.copy(db, copy)
    shutil.copy(str(db) + "-heads", str(copy) + "-heads")
    wal = (tmp_path / "live.db-wal").read_bytes()
    (tmp_path / "copy.db-wal").write_bytes(wal[: len(wal) - 3 * (4096 + 24) - 100])
    log.close()
    with pytest.raises(SessionFileError) as e:
        SQLiteLog(copy)
    msg = str(e.value)
    assert "has lost records" in msg and str(copy) in msg and "recover" in msg
    r = serve_once(copy)
    assert r.returncode == 1 and "has lost records" in one_line(r.stderr)


def test_a_read_only_store_is_refused_at_start(tmp_path):
    db = tmp_path / "ro.db"
    make_store(db, moves=2)
    if os.geteuid() == 0:
        locked = subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode == 0
        assert locked, "chattr +i is needed to make a file read-only for root"
    else:
        os.chmod(db, 0o444)
        os.chmod(tmp_path, 0o555)
    try:
        r = serve_once(db)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(db)])
        else:
            os.chmod(tmp_path, 0o755)
            os.chmod(db, 0o644)
    assert r.returncode == 1
    line = one_line(r.stderr)
    assert str(db) in line and "cannot be written" in line and "resumed" not in r.stdout


FULL_DISK = textwrap.dedent("""
    import json, resource, signal, sys
    from companion.core.clock import FakeClock
    from companion.core.errors import CompanionError
    from companion.core.log import SQLiteLog
    from companion.service.hub import Hub
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a write past the limit fails (EFBIG)
    db = sys.argv[1]
    hub = Hub(SQLiteLog(db), table="t", clock=None)
    hub.configure("great-powers", players=3)
    hub.start(seed=2)
    events = []
    hub.subscribe(events.append)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    import os
    resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(db + "-wal") + 2 * 4120, hard))
    acked, refused = [], []
    orders = [["navy", "army", "colony"], ["industry", "army", "colony"],
              ["population", "navy", "army"]]
    for seat in range(3):
        try:
            hub.submit(seat, "submit_bids", {"traits": orders[seat]}, tx=f"t{seat}")
            acked.append(seat)
        except CompanionError as e:
            refused.append([seat, type(e).__name__, str(e)])
    alerts = [a["message"] for a in hub.public_view()["hub"]["alerts"]]
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))   # room again
    for seat, *_ in refused:
        hub.submit(seat, "submit_bids", {"traits": orders[seat]}, tx=f"t{seat}")
    after = [a["message"] for a in hub.public_view()["hub"]["alerts"]]
    print(json.dumps({"acked": acked, "refused": refused, "alerts": alerts, "after": after,
                      "session": hub.session.id}))
""")


def test_a_full_disk_refuses_moves_in_words_and_loses_nothing(tmp_path):
    db = tmp_path / "full.db"
    r = subprocess.run([sys.executable, "-c", FULL_DISK, str(db)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["refused"], "the limit never bit"
    for seat, kind, message in out["refused"]:
        assert kind == "StorageError" and "Cannot save" in message and "not applied" in message
    assert any("Cannot save" in a for a in out["alerts"])
    assert not any("Cannot save" in a for a in out["after"])     # cleared once it saves
    log = SQLiteLog(db)
    recs = log.read(out["session"])
    txs = [r.get("tx") for r in recs if r.get("tx")]
    assert sorted(txs) == ["t0", "t1", "t2"]                   # every seat once, none lost
    log.close()
