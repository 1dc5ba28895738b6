"""What differs between the broker modes: mosquitto's files and child process, the embedded
broker keeping secrets off the disk, the external broker refusing to manage logins."""
import os
import pathlib
import re
import socket
import stat
import subprocess
import sys
import threading

import pytest

from companion.net import brokers
from companion.net import credentials as cred
from companion.net.brokers import BrokerError, EmbeddedBroker, ExternalBroker, MosquittoBroker
from companion.net.client import MqttClient
from companion.net.topics import TableTopics, mosquitto_acl

from .conftest import MOSQUITTO

ME = re.escape(brokers._command_name(os.getpid()))   # python, or pytest when run as a script


def hub_client(b, hub):
    return MqttClient(b.url, hub.username, hub.password).connect()


# -- mosquitto -------------------------------------------------------------------------------

def test_mosquitto_writes_a_private_run_dir_and_cleans_it_up():
    hub, seat = cred.hub_credential(), cred.seat_credential("s1-f11e")
    b = MosquittoBroker(binary=MOSQUITTO, users=[hub], max_payload=20000).start()
    try:
        run = b.run_dir
        assert stat.S_IMODE(os.stat(run).st_mode) == 0o700
        conf = b.config_path.read_text()
        for line in ("allow_anonymous false", f"password_file {run}/passwd",
                     f"acl_file {run}/acl", "set_tcp_nodelay true", "persistence true",
                     f"persistence_location {run}/data/", "max_queued_messages 100000",
                     "message_size_limit 20000", "max_packet_size 24096",
                     f"listener {b.tcp_port} 127.0.0.1", "protocol websockets",
                     f"listener {b.ws_port} 127.0.0.1"):
            assert line in conf.splitlines(), line
        assert ("user root" in conf.splitlines()) == (os.geteuid() == 0)
        assert (run / "acl").read_text() == mosquitto_acl()
        b.add_user(seat.username, seat.password)
        passwd = run / "passwd"
        assert stat.S_IMODE(os.stat(passwd).st_mode) == 0o600
        text = passwd.read_text()
        assert hub.password not in text and seat.password not in text
        assert {x.split(":")[0] for x in text.splitlines()} == {"hub", seat.username, "_probe"}
        assert all(x.split(":", 1)[1].startswith("$7$") for x in text.splitlines())
        proc = b._proc
    finally:
        b.stop()
    assert proc.returncode is not None          # the child was waited for
    assert not run.exists()
    b.stop()                                    # idempotent


def test_mosquitto_keeps_retained_messages_across_a_restart_in_a_given_run_dir(tmp_path):
    hub = cred.hub_credential()
    t = TableTopics("persist")
    run = tmp_path / "run"
    with MosquittoBroker(binary=MOSQUITTO, users=[hub], run_dir=run) as b:
        c = hub_client(b, hub)
        c.publish(t.state, b"state-before-restart", retain=True)
        c.close()
    assert (run / "data" / "mosquitto.db").exists()
    with MosquittoBroker(binary=MOSQUITTO, users=[hub], run_dir=run) as b:
        c = hub_client(b, hub)
        c.subscribe([(t.state, 1)])
        assert c.wait_for(lambda m: m.topic == t.state)[-1].payload == b"state-before-restart"
        c.close()
    assert run.exists()                         # not ours to delete


def test_mosquitto_on_a_busy_port_fails_with_a_sentence():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(BrokerError, match=rf"^Port {port} is already taken by {ME} "
                                              rf"\(pid {os.getpid()}\); .* --mqtt-port\.$"):
            MosquittoBroker(binary=MOSQUITTO, tcp_port=port, ws_port=None).start()


def test_missing_mosquitto_binary_is_a_clear_error():
    with pytest.raises(BrokerError, match="is not an executable mosquitto"):
        MosquittoBroker(binary="/nonexistent/mosquitto").start()


def test_runtime_user_changes_validate_names():
    b = MosquittoBroker(binary=MOSQUITTO)
    with pytest.raises(cred.CredentialError):
        b.add_user("Not A Seat", "pw")
    with pytest.raises(cred.CredentialError):
        EmbeddedBroker().add_user("_probe", "pw")


# -- embedded --------------------------------------------------------------------------------

_watch = threading.Event()
_writes: list = []


def _audit(event, args):
    if not _watch.is_set() or event != "open":
        return
    path, mode, flags = args
    if isinstance(path, int):
        return
    writing = (mode is not None and any(c in mode for c in "wax+")) or \
              (mode is None and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
    if writing:
        _writes.append(path)


sys.addaudithook(_audit)


def test_embedded_broker_writes_nothing_to_disk(tmp_path):
    """From start to stop, with logins added, checked, used and removed, the process opens no
    file for writing (checked with a Python audit hook on every thread)."""
    hub, seat = cred.hub_credential(), cred.seat_credential("s1-d15c")
    t = TableTopics("nodisk")
    _watch.set()
    (tmp_path / "probe").write_text("x")          # the hook does see writes
    assert _writes == [str(tmp_path / "probe")]
    _writes.clear()
    try:
        with EmbeddedBroker(users=[hub]) as b:
            b.add_user(seat.username, seat.password)
            h = hub_client(b, hub)
            h.subscribe([(t.all_cmds, 1)])
            p = MqttClient(b.ws_url, seat.username, seat.password).connect()
            p.publish(t.cmd(seat.username), b"hello")
            h.wait_for(lambda m: m.payload == b"hello")
            b.remove_user(seat.username)
            assert p.wait_disconnected(5)
            h.close()
    finally:
        _watch.clear()
    assert _writes == []


def test_embedded_broker_on_a_busy_port_fails_with_a_sentence():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(BrokerError, match=rf"^Port {port} is already taken by {ME} "
                                              rf"\(pid {os.getpid()}\); .* --mqtt-port\.$"):
            EmbeddedBroker(tcp_port=port).start()


def test_embedded_broker_on_all_interfaces_is_reachable_locally():
    hub = cred.hub_credential()
    with EmbeddedBroker(host="0.0.0.0", users=[hub], ws_port=None) as b:
        assert b.url == f"mqtt://127.0.0.1:{b.tcp_port}" and b.ws_url is None
        assert b.ws_url_for("192.168.1.20") is None
        hub_client(b, hub).close()
    b2 = EmbeddedBroker(ws_port=9001)
    assert b2.ws_url_for("192.168.1.20") == "ws://192.168.1.20:9001/mqtt"


# -- external and the factory ----------------------------------------------------------------

def test_external_broker_uses_an_operators_broker_but_manages_no_logins():
    hub = cred.hub_credential()
    with MosquittoBroker(binary=MOSQUITTO, users=[hub]) as real:
        ext = ExternalBroker(real.url, ws_url=f"ws://pi.local:{real.ws_port}/mqtt")
        with ext:
            assert ext.running and ext.mode == "external" and not ext.manages_users
            assert ext.url == real.url and ext.ws_url == f"ws://pi.local:{real.ws_port}/mqtt"
            assert ext.ws_url_for("10.0.0.9") == ext.ws_url
            hub_client(ext, hub).close()
            with pytest.raises(BrokerError, match="manages its own logins"):
                ext.add_user("s1-ab", "pw")
            with pytest.raises(BrokerError, match="manages its own logins"):
                ext.remove_user("s1-ab")
    with pytest.raises(BrokerError, match="Nothing answers at mqtt://127.0.0.1"):
        ExternalBroker(f"mqtt://127.0.0.1:{brokers.free_port()}").start()
    for bad in ("http://x", "ws://x:1/mqtt", "mqtt://", "nonsense"):
        with pytest.raises(BrokerError):
            ExternalBroker(bad)


def test_make_broker_picks_the_mode():
    assert isinstance(brokers.make_broker("embedded"), EmbeddedBroker)
    assert isinstance(brokers.make_broker("mosquitto"), MosquittoBroker)
    assert isinstance(brokers.make_broker("mqtt://10.0.0.2:1883"), ExternalBroker)
    with pytest.raises(BrokerError, match="Unknown broker 'rabbit'"):
        brokers.make_broker("rabbit")


def test_probe_login_speaks_raw_mqtt(broker, hub_cred):
    host, port = "127.0.0.1", broker.tcp_port
    assert brokers.probe_login(host, port, hub_cred.username, hub_cred.password) == 0
    assert brokers.probe_login(host, port, hub_cred.username, "wrong") in (4, 5)
    assert brokers.probe_login(host, port, None, None) in (4, 5)


def test_a_hub_that_exits_without_stop_leaves_no_mosquitto_behind():
    script = ("from companion.net.brokers import MosquittoBroker\n"
              f"b = MosquittoBroker(binary={MOSQUITTO!r}).start()\n"
              "print(b.pid, b.run_dir)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=30, cwd=str(pathlib.Path(__file__).resolve().parents[2]))
    assert r.returncode == 0, r.stderr
    pid, run_dir = r.stdout.split()
    assert not os.path.exists(f"/proc/{pid}")
    assert not os.path.exists(run_dir)


def test_a_reconnecting_client_subscribes_again_after_a_broker_restart(tmp_path):
    hub = cred.hub_credential()
    t = TableTopics("restart")
    port = brokers.free_port()
    run = tmp_path / "run"
    with MosquittoBroker(binary=MOSQUITTO, users=[hub], tcp_port=port, ws_port=None,
                         run_dir=run) as b:
        listener = MqttClient(b.url, hub.username, hub.password, reconnect=True).connect()
        listener.subscribe([(t.events, 1)])
    assert listener.wait_disconnected(5)
    with MosquittoBroker(binary=MOSQUITTO, users=[hub], tcp_port=port, ws_port=None,
                         run_dir=run) as b:
        sender = hub_client(b, hub)
        # paho retries after 1 s; publish until the resubscribed listener hears one
        for i in range(100):
            sender.publish(t.events, b"after-restart")
            try:
                listener.wait_for(lambda m: m.payload == b"after-restart", timeout=0.1)
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("the listener never came back")
        sender.close()
        listener.close()
