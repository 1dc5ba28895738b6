"""A hub killed outright (SIGKILL, the OOM killer) cannot stop its mosquitto child, which runs in
a session of its own and keeps the ports and the old logins. The next start on those ports stops
that mosquitto and starts its own (issue 15: mosquitto became the default broker, and
`companion serve` restarted after a SIGKILL could not start: its probe login was refused by the
old mosquitto). On Linux the child now dies with its table (PR_SET_PDEATHSIG); this stays as the
second line of defence."""
import os
import subprocess
import sys
from pathlib import Path

from companion.net import credentials as cred
from companion.net.brokers import MosquittoBroker, free_port, probe_login

ROOT = Path(__file__).resolve().parents[2]


def alive(pid):
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return False


def test_a_mosquitto_left_by_a_killed_hub_is_stopped_at_the_next_start():
    port = free_port("127.0.0.1")
    # the child dies with its table (tests/net/test_children_die.py); where that cannot work
    # (not Linux), this second line of defence stops it: here as if it were not Linux
    code = ("import time; from companion.net import brokers; "
            "brokers.DIE_WITH_PARENT = False; "
            f"b = brokers.MosquittoBroker(tcp_port={port}, ws_port=None).start(); "
            "print(b.pid, b.run_dir, flush=True); time.sleep(120)")
    hub = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                           text=True)
    pid, run_dir = hub.stdout.readline().split()
    hub.kill()
    hub.wait(10)
    assert alive(int(pid)), "the killed hub's mosquitto should outlive it"
    user = cred.seat_credential(cred.new_seat_id(1))
    b = MosquittoBroker(tcp_port=port, ws_port=None, users=[user]).start()
    try:
        assert not alive(int(pid))
        assert not os.path.exists(run_dir)          # its logins went with it
        assert b.pid != int(pid) and b.alive()
        assert probe_login("127.0.0.1", port, user.username, user.password) == 0
    finally:
        b.stop()


def test_a_process_that_is_not_our_mosquitto_is_left_alone():
    """A stale note whose pid is now some other process: nothing is killed."""
    port = free_port("127.0.0.1")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        from companion.net import brokers
        brokers._note_child(port, other.pid, Path("/tmp/tc-mosquitto-gone"))
        b = MosquittoBroker(tcp_port=port, ws_port=None).start()
        b.stop()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()
