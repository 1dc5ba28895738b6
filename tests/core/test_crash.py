"""Crash test: a child playing a game is killed with SIGKILL at random points. On restart no
acknowledged command is lost and the state equals the replay of the log."""
import os
import pathlib
import random
import signal
import subprocess
import sys

from companion.core.log import SQLiteLog
from companion.core.session import Session, fold
from companion.games import get

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHILD = pathlib.Path(__file__).with_name("crash_child.py")


def _spawn(db, sid, seed):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, str(CHILD), str(db), sid, str(seed)],
                            stdout=subprocess.PIPE, text=True, env=env)


def test_sigkill_at_random_points_loses_no_acknowledged_command(tmp_path):
    db = tmp_path / "crash.db"
    rng = random.Random(2026)
    sid, last_ack, kills, done = "new", -1, 0, False
    while not done and kills < 12:
        child = _spawn(db, sid, 42)
        stop_after = rng.randint(3, 25)
        acks = 0
        for line in child.stdout:
            if line.startswith("SESSION "):
                sid = line.split()[1]
            elif line.startswith("ACK "):
                last_ack = int(line.split()[1])
                acks += 1
                if acks >= stop_after:
                    child.send_signal(signal.SIGKILL)
                    kills += 1
                    break
            elif line.startswith("DONE"):
                done = True
        child.stdout.close()
        child.wait(timeout=30)
        log = SQLiteLog(db)
        records = log.read(sid)
        assert len(records) - 1 >= last_ack, "an acknowledged command was lost"
        s = Session.load(log, sid, games=get)
        assert s.state.fingerprint() == fold(s.game, records).fingerprint()
        log.close()
    assert kills >= 3
