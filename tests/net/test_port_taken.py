"""One broker per port: with another broker already on the table's MQTT or WebSockets port (on
a Pi, Debian's own mosquitto.service holds 127.0.0.1:1883 and [::1]:1883 as soon as the package
is installed), the table's broker refuses to start with one sentence naming the port and who
holds it, instead of saying "ready" while its child restarts in a loop and the hub logs into the
other broker. The "other broker" here is a real mosquitto listening on loopback only."""
import contextlib
import os
import signal
import subprocess
import sys

import pytest

from companion.net import brokers
from companion.net.brokers import (BrokerError, EmbeddedBroker, MosquittoBroker, PortTaken,
                                   free_ports, listeners)
from companion.net.serve import TableServer

from ..waiting import wait_until
from .conftest import MOSQUITTO
from .test_web import ROOT


def gone(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "zombie" in f.read().lower()
    except OSError:
        return True


@contextlib.contextmanager
def other_broker(tmp_path, port, address="127.0.0.1"):
    """A plain mosquitto on ``address``:``port`` (someone else's broker); yields its pid."""
    conf = tmp_path / f"other-{port}.conf"
    conf.write_text(f"listener {port} {address}\nallow_anonymous true\n"
                    + ("user root\n" if os.geteuid() == 0 else ""))
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: proc.poll() is not None or any(
            inode in brokers._socket_inodes(proc.pid) for _, inode in listeners(port) or ()),
            what="the other broker listening")
        assert proc.poll() is None, "the other broker did not start"
        yield proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


def assert_names(err, port, pid):
    text = str(err)
    assert isinstance(err, PortTaken) and err.port == port
    assert f"Port {port} is already taken by mosquitto (pid {pid})" in text, text


def make(mode, **kw):
    if mode == "mosquitto":
        return MosquittoBroker(binary=MOSQUITTO, **kw)
    return EmbeddedBroker(**kw)


@pytest.mark.parametrize("mode", ["mosquitto", "embedded"])
def test_a_taken_mqtt_port_is_refused_naming_the_port_and_its_holder(tmp_path, mode):
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, port) as pid:
        b = make(mode, host="0.0.0.0", tcp_port=port, ws_port=ws)
        with pytest.raises(BrokerError) as e:
            b.start()
        assert_names(e.value, port, pid)
        assert str(e.value).endswith("the table's broker needs it. Stop that broker or start "
                                     "the table with --mqtt-port.")
        assert not b.running
        if mode == "mosquitto":
            assert b.pid is None and b.run_dir is None      # nothing left behind


@pytest.mark.parametrize("mode", ["mosquitto", "embedded"])
def test_a_taken_websockets_port_is_refused_naming_the_port_and_its_holder(tmp_path, mode):
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, ws) as pid:
        b = make(mode, host="0.0.0.0", tcp_port=port, ws_port=ws)
        with pytest.raises(BrokerError) as e:
            b.start()
        assert_names(e.value, ws, pid)
        assert "(MQTT over WebSockets)" in str(e.value) and "--ws-port" in str(e.value)
        assert not b.running


def test_an_ipv6_loopback_broker_counts_when_we_bind_every_address(tmp_path):
    """Debian's broker also holds [::1]: binding 0.0.0.0 succeeds, but local clients asking
    for localhost would meet the other broker."""
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, port, "::1") as pid:
        with pytest.raises(BrokerError) as e:
            make("mosquitto", host="0.0.0.0", tcp_port=port, ws_port=ws).start()
        assert_names(e.value, port, pid)
        # bound to one other address, the same port is ours to take
        with make("mosquitto", host="127.0.0.1", tcp_port=port, ws_port=None) as b:
            assert b.alive()


def test_the_readiness_probe_checks_that_it_probed_its_own_child(tmp_path, monkeypatch):
    """Taken after the check (a race), or missed by it: the child's bind on 0.0.0.0 succeeds
    beside a broker on [::1], the probe is answered, but a listener on our port is not the
    child's: that is the same error, never "ready"."""
    real = MosquittoBroker._taken
    calls = []

    def first_check_misses(self, mine=()):
        calls.append(mine)
        return None if len(calls) == 1 else real(self, mine)

    monkeypatch.setattr(MosquittoBroker, "_taken", first_check_misses)
    port = free_ports(1, "127.0.0.1")[0]
    with other_broker(tmp_path, port, "::1") as pid:
        b = make("mosquitto", host="0.0.0.0", tcp_port=port, ws_port=None)
        with pytest.raises(BrokerError) as e:
            b.start()
        assert_names(e.value, port, pid)
        assert any(calls[1:]), "the readiness probe compared the listeners with the child's"
        assert b.pid is None and not b.running


def test_a_child_that_loses_its_port_to_another_broker_is_reported_once(tmp_path):
    """The supervisor does not restart in a loop on "Address already in use": it says who
    holds the port once (the table's screen shows it) and stops trying."""
    port = free_ports(1, "127.0.0.1")[0]
    b = make("mosquitto", host="127.0.0.1", tcp_port=port, ws_port=None).start()
    said = []
    b.on_change(lambda up, message: said.append((up, message)))
    b.restart_delay = 0.05
    stack = contextlib.ExitStack()
    try:
        with b._lock:                          # the supervisor cannot restart it meanwhile
            child = b.pid
            os.kill(child, signal.SIGKILL)
            wait_until(lambda: gone(child), what="the child gone")
            pid = stack.enter_context(other_broker(tmp_path, port))
        wait_until(lambda: b.gave_up is not None, what="the supervisor giving up")
        wait_until(lambda: not b._supervisor.is_alive(), what="the supervisor stopping")
        assert_names(b.gave_up, port, pid)
        assert b.restarts == 0 and not b.alive() and b.pid is None
        assert [up for up, _ in said] == [False, False]
        assert said[-1][1] == str(b.gave_up)
    finally:
        stack.close()
        b.stop()


def serve(tmp_path, broker, mqtt_port, ws_port):
    http = free_ports(1, "127.0.0.1")[0]
    return subprocess.run(
        [sys.executable, "-m", "companion.cli.main", "serve", "--table", "taken",
         "--db", str(tmp_path / "s.db"), "--game", "great-powers", "--players", "3",
         "--broker", broker, "--http-port", str(http), "--mqtt-port", str(mqtt_port),
         "--ws-port", str(ws_port)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("mode", ["mosquitto", "embedded"])
def test_serve_exits_with_the_sentence_instead_of_ready(tmp_path, mode):
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, port) as pid:
        r = serve(tmp_path, mode, port, ws)
    assert r.returncode == 1, r.stdout + r.stderr
    assert '"ready"' not in r.stdout and "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert lines == [f"companion: Port {port} is already taken by mosquitto (pid {pid}); the "
                     f"table's broker needs it. Stop that broker or start the table with "
                     f"--mqtt-port."], r.stderr


def test_table_server_refuses_and_leaves_nothing_running(tmp_path):
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, ws) as pid:
        srv = TableServer("taken", db=tmp_path / "s.db", game="great-powers", players=3,
                          broker="mosquitto", http_port=0, mqtt_port=port, ws_port=ws)
        with pytest.raises(PortTaken) as e:
            srv.start()
        assert_names(e.value, ws, pid)
        assert srv.broker is None and srv.web is None and srv.log is None


def test_debians_own_broker_is_named_with_how_to_stop_it(tmp_path):
    """A stand-in for Debian's mosquitto.service (this machine runs no systemd): a process
    named mosquitto, started with /etc/mosquitto/mosquitto.conf, holding the port."""
    port = free_ports(1, "127.0.0.1")[0]
    fake = tmp_path / "mosquitto"
    fake.symlink_to(sys.executable)
    code = ("import socket, sys, time; s = socket.socket(); "
            f"s.bind(('127.0.0.1', {port})); s.listen(); print(flush=True); time.sleep(60)")
    proc = subprocess.Popen([str(fake), "-c", code, "-c", "/etc/mosquitto/mosquitto.conf"],
                            stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        with pytest.raises(PortTaken) as e:
            make("mosquitto", host="0.0.0.0", tcp_port=port, ws_port=None).start()
        assert str(e.value) == (
            f"Port {port} is already taken by mosquitto (pid {proc.pid}, probably Debian's "
            f"mosquitto.service: sudo systemctl disable --now mosquitto); the table's broker "
            f"needs it. Stop that broker or start the table with --mqtt-port.")
    finally:
        proc.kill()
        proc.wait()


def test_a_holder_this_user_cannot_see_is_not_named(tmp_path, monkeypatch):
    port = free_ports(1, "127.0.0.1")[0]
    monkeypatch.setattr(brokers, "socket_holder", lambda inodes: None)
    with other_broker(tmp_path, port):
        with pytest.raises(PortTaken) as e:
            make("embedded", host="0.0.0.0", tcp_port=port, ws_port=None).start()
    assert str(e.value) == (f"Port {port} is already taken by a program this user cannot "
                            f"see; the table's broker needs it. Stop that program or start "
                            f"the table with --mqtt-port.")
