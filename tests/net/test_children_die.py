"""Children die with the table: a table killed outright (SIGKILL, the OOM killer) takes its
mosquitto child with it (PR_SET_PDEATHSIG), also a child the supervisor restarted, and a child
started from a thread that has ended since is not stopped with that thread (the kernel signals
when the *thread* that forked the child ends: every child is forked by one long-lived thread)."""
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from companion.net import brokers
from companion.net import credentials as cred
from companion.net.brokers import MosquittoBroker, free_ports, listeners

from ..waiting import wait_until
from .conftest import MOSQUITTO
from .test_web import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def gone(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "zombie" in f.read().lower()
    except OSError:
        return True


def mosquitto_children(parent):
    """Pids of the live mosquitto processes whose parent is ``parent``."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if name == "mosquitto" and int(fields[1]) == parent and fields[0] != "Z":
            out.append(int(p))
    return out


def listening(pid, port):
    mine = brokers._socket_inodes(pid)
    return any(inode in mine for _, inode in listeners(port) or ())


class Serve:
    def __init__(self, tmp_path):
        self.ports = free_ports(3, "127.0.0.1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli.main", "serve", "--table", "pdeath",
             "--db", str(tmp_path / "s.db"), "--game", "great-powers", "--players", "3",
             "--quiet", "--broker", "mosquitto", "--bind", "127.0.0.1",
             "--http-port", str(self.ports[0]), "--mqtt-port", str(self.ports[1]),
             "--ws-port", str(self.ports[2])],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True)
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.info = json.loads(line)
                break
        else:
            raise AssertionError(f"serve did not start: {self.proc.stderr.read()}")
        self.broker_pid = self.child()

    def child(self, not_pid=None):
        def found():
            pids = [p for p in mosquitto_children(self.proc.pid) if p != not_pid]
            return pids[0] if len(pids) == 1 and listening(pids[0], self.ports[1]) else None
        return wait_until(found, what="serve's mosquitto child listening")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc.stdout.close()
        self.proc.stderr.close()


def test_a_killed_table_takes_its_mosquitto_with_it(tmp_path):
    table = Serve(tmp_path)
    child = table.broker_pid
    table.kill()
    wait_until(lambda: gone(child), 10, what="the killed table's mosquitto gone")
    assert not listeners(table.ports[1]), "the table's MQTT port is free again"


def test_a_restarted_child_also_dies_with_the_table(tmp_path):
    """The supervisor restarts a dead child from its own thread; the new child is forked by
    the long-lived spawner thread, so it still dies with the table (not with the supervisor)."""
    table = Serve(tmp_path)
    first = table.broker_pid
    os.kill(first, signal.SIGKILL)
    second = table.child(not_pid=first)
    assert second != first
    table.kill()
    wait_until(lambda: gone(second), 10, what="the restarted mosquitto gone")


def test_a_child_started_from_a_thread_outlives_that_thread():
    made = {}

    def start():
        made["b"] = MosquittoBroker(binary=MOSQUITTO, host="127.0.0.1", ws_port=None).start()

    t = threading.Thread(target=start)
    t.start()
    t.join()
    b = made["b"]
    try:
        pid = b.pid
        # a login change is a SIGHUP and a probe login that must see the new file: a child
        # stopped with the thread would fail it (mosquitto exits at once on SIGTERM)
        user = cred.seat_credential(cred.new_seat_id(1))
        b.add_user(user.username, user.password)
        assert b.pid == pid and not gone(pid) and b.restarts == 0
        assert "terminating" not in b.log_path.read_text()
    finally:
        b.stop()
    assert gone(pid)
