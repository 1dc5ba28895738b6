"""Group commit (issue 15): the commands waiting at the hub together are saved by one
transaction and one fsync (``SQLiteLog.batch``, ``Hub.batch``), and the promise holds: nothing
of a group is on disk (or may be acknowledged) before the group ends, a refused append inside
takes back only itself, and a group whose save fails is forgotten whole, by the log and by the
hub's session, so the same commands can be sent again."""
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import ConcurrencyError
from companion.core.log import MemoryLog, SQLiteLog
from companion.service.hub import Hub

ROOT = Path(__file__).resolve().parents[2]


def on_disk(path, session_id):
    """The records another reader of the file sees (what a power cut would leave)."""
    db = sqlite3.connect(path)
    try:
        return [json.loads(r[0]) for r in db.execute(
            "SELECT data FROM events WHERE session_id=? ORDER BY version", (session_id,))]
    finally:
        db.close()


def started(path):
    """A store with one session of one record."""
    log = SQLiteLog(path)
    log.create("s1", "g", {})
    log.append("s1", 0, [{"type": "SessionStarted"}])
    return log


def test_a_group_is_on_disk_only_when_it_ends_and_then_all_of_it(tmp_path):
    path = str(tmp_path / "s.db")
    log = started(path)
    with log.batch():
        assert log.append("s1", 1, [{"type": "A"}]) == 2
        assert log.append("s1", 2, [{"type": "B"}]) == 3
        log.put_reply("s1", 0, "tx-9", '{"ok":false}')
        assert [r["type"] for r in on_disk(path, "s1")] == ["SessionStarted"]
        assert Path(path + "-heads").read_text().split() == ["s1", "1"]
    assert [r["type"] for r in on_disk(path, "s1")] == ["SessionStarted", "A", "B"]
    assert Path(path + "-heads").read_text().split() == ["s1", "3"]   # once, at the end
    assert log.get_reply("s1", 0, "tx-9") == '{"ok":false}'
    log.close()


def test_a_refused_append_in_a_group_takes_back_only_itself(tmp_path):
    log = started(str(tmp_path / "s.db"))
    with log.batch():
        log.append("s1", 1, [{"type": "A"}])
        with pytest.raises(ConcurrencyError):
            log.append("s1", 1, [{"type": "stale"}])
        log.append("s1", 2, [{"type": "B"}])
    assert [r["type"] for r in log.read("s1")] == ["SessionStarted", "A", "B"]
    log.close()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_group_that_raises_keeps_nothing_and_a_group_in_a_group_joins_it(tmp_path, kind):
    log = MemoryLog() if kind == "memory" else SQLiteLog(tmp_path / "s.db")
    log.create("s1", "g", {})
    log.append("s1", 0, [{"type": "SessionStarted"}])
    with log.batch():
        with log.batch():
            log.append("s1", 1, [{"type": "A"}])
        log.append("s1", 2, [{"type": "B"}])
    assert len(log.read("s1")) == 3
    if kind == "sqlite":                     # the memory log has nothing to take back
        with pytest.raises(RuntimeError):
            with log.batch():
                log.append("s1", 3, [{"type": "C"}])
                raise RuntimeError("a bug in the middle of a group")
        assert [r["type"] for r in log.read("s1")][-1] == "B"
        assert log.append("s1", 3, [{"type": "C"}]) == 4        # and the log carries on


def test_a_hub_group_saves_every_command_in_one_transaction(tmp_path):
    path = str(tmp_path / "s.db")
    hub = Hub(SQLiteLog(path), table="t", clock=FakeClock())
    hub.configure("great-powers", players=3)
    s = hub.start(seed=2)
    orders = [["navy", "army", "colony"], ["industry", "army", "colony"],
              ["population", "navy", "army"]]
    commits = []
    hub.log._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    with hub.batch():
        for seat in range(3):
            hub.submit(seat, "submit_bids", {"traits": orders[seat]}, tx=f"t{seat}")
        assert not [r for r in on_disk(path, s.id) if r.get("tx")]
    assert commits == ["COMMIT"]
    assert [r.get("tx") for r in on_disk(path, s.id) if r.get("tx")] == ["t0", "t1", "t2"]


LOST_GROUP = textwrap.dedent("""
    import json, os, resource, signal, sys
    from companion.core.errors import StorageError
    from companion.core.log import SQLiteLog
    from companion.service.hub import Hub
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a write past the limit fails (EFBIG)
    db = sys.argv[1]
    hub = Hub(SQLiteLog(db), table="t")
    hub.configure("great-powers", players=3)
    s = hub.start(seed=2)
    events = []
    hub.subscribe(events.append)
    before = (s.version, s.state.seq)
    orders = [["navy", "army", "colony"], ["industry", "army", "colony"],
              ["population", "navy", "army"]]
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(db + "-wal"), hard))
    applied, error = [], None
    try:
        with hub.batch():
            for seat in range(3):
                hub.submit(seat, "submit_bids", {"traits": orders[seat]}, tx=f"t{seat}")
                applied.append(seat)
    except StorageError as e:
        error = str(e)
    after = (hub.session.version, hub.session.state.seq)
    alerts = [a["message"] for a in hub.public_view()["hub"]["alerts"]]
    locked = hub.public_view()["windows"]
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))   # room again
    for seat in range(3):
        hub.submit(seat, "submit_bids", {"traits": orders[seat]}, tx=f"t{seat}")
    print(json.dumps({"applied": applied, "error": error, "before": before, "after": after,
                      "alerts": alerts, "locked": locked, "last": events[-1]["kind"],
                      "session": s.id}))
""")


def test_a_group_whose_save_fails_is_forgotten_whole_and_can_be_sent_again(tmp_path):
    db = tmp_path / "full.db"
    r = subprocess.run([sys.executable, "-c", LOST_GROUP, str(db)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["applied"] == [0, 1, 2]              # in memory, each command went through
    assert out["error"] and "Cannot save" in out["error"]        # the COMMIT did not
    assert out["after"] == out["before"]            # the session is back to what is saved
    assert any("Cannot save" in a for a in out["alerts"])
    assert all(not w.get("locked") for w in out["locked"])       # no lock-in survives
    log = SQLiteLog(db)
    txs = [x.get("tx") for x in log.read(out["session"]) if x.get("tx")]
    assert txs == ["t0", "t1", "t2"]                # sent again: each once, none twice
    log.close()
