"""One broker per port: with another broker already on the table's MQTT or WebSockets port (on
a Pi, Debian's own mosquitto.service holds 127.0.0.1:1883 and [::1]:1883 as soon as the package
is installed), the table's broker refuses to start with one sentence naming the port and who
holds it, instead of saying "ready" while its child restarts in a loop and the hub logs into the
other broker. The "other broker" here is a real mosquitto listening on loopback only."""
import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile

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
    monkeypatch.setattr(brokers.ports, "socket_holder", lambda inodes: None)
    with other_broker(tmp_path, port):
        with pytest.raises(PortTaken) as e:
            make("embedded", host="0.0.0.0", tcp_port=port, ws_port=None).start()
    assert str(e.value) == (f"Port {port} is already taken by a program this user cannot "
                            f"see; the table's broker needs it. Stop that program or start "
                            f"the table with --mqtt-port.")


# -- another user's broker: its /proc/<pid>/fd is closed to us ------------------------------------
# On the box the table runs as table-companion and Debian's mosquitto as user mosquitto: the
# table cannot read the holder's open files, so it names the holder from the socket's owner uid
# (/proc/net/tcp) and what any user may read of a process (status, comm, cmdline, cgroup). The
# tests run as root: the holder runs as another user, and the check runs in a child process
# under a third uid (setpriv), which cannot read the holder's /proc/<pid>/fd either.

PROBE_UID = 4242            # no name, no other process: it sees nobody else's open files


def _others_can_run_this_checkout() -> bool:
    """Whether a process of PROBE_UID can run this checkout's code with this interpreter. These
    tests need it; a checkout (or its .venv) under a home directory only its owner may enter
    (0700, as /root is on Debian) cannot be read by another user, so they cannot run there."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    r = subprocess.run(
        ["setpriv", f"--reuid={PROBE_UID}", f"--regid={PROBE_UID}", "--clear-groups",
         sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                               "import companion.net.brokers"],
        cwd="/", env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), capture_output=True,
        stdin=subprocess.DEVNULL, timeout=60)
    return r.returncode == 0


as_root = pytest.mark.skipif(
    not _others_can_run_this_checkout(),
    reason="runs parts as other users: needs root, setpriv, and a checkout that other users "
           "may read (not under a 0700 home directory such as /root; README, Two commands)")


def setpriv(uid, gid=None):
    gid = uid if gid is None else gid
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]


@contextlib.contextmanager
def world_readable_dir():
    """A directory other users may read (pytest's tmp_path is root's alone)."""
    d = tempfile.mkdtemp(prefix="tc-other-")
    os.chmod(d, 0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def holder_process(argv, port, stdout=subprocess.DEVNULL):
    """``argv`` started (as whoever it says), until it listens on ``port``; yields the Popen."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: proc.poll() is not None or any(
            inode in brokers._socket_inodes(proc.pid) for _, inode in listeners(port) or ()),
            what=f"{argv[0]} listening")
        assert proc.poll() is None, f"{argv} did not start"
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def users_broker(port, run_as=None, conf_user=None):
    """A mosquitto on 127.0.0.1:``port`` with its config at <dir>/etc/mosquitto/mosquitto.conf
    (its command line then reads like Debian's). ``run_as`` (uid): started as that user;
    ``conf_user``: started as root with ``user <name>`` (mosquitto binds as root, then becomes
    that user: Debian's mosquitto.service). Yields the Popen."""
    with world_readable_dir() as d:
        conf = os.path.join(d, "etc", "mosquitto", "mosquitto.conf")
        os.makedirs(os.path.dirname(conf), mode=0o755)
        with open(conf, "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                    f"user {conf_user or 'root'}\n")
        os.chmod(conf, 0o644)
        argv = ([] if run_as is None else setpriv(run_as)) + [MOSQUITTO, "-c", conf]
        with holder_process(argv, port) as proc:
            yield proc


PROBE = """
import os, sys
sys.path.insert(0, {root!r})
from companion.net import brokers
assert os.getuid() == {uid}
try:
    os.listdir("/proc/{holder}/fd")
    sys.exit("this probe can read the holder's open files: it proves nothing")
except PermissionError:
    pass
b = brokers.MosquittoBroker(binary={binary!r}, host="0.0.0.0", tcp_port={port}, ws_port=None)
try:
    b.start()
except brokers.PortTaken as e:
    print(e)
else:
    b.stop()
    print("started")
"""


def check_as_another_user(port, holder_pid, uid=PROBE_UID):
    """What a MosquittoBroker of another user says when it wants ``port``: the check runs in a
    process of uid ``uid`` (it cannot read the holder's open files)."""
    with world_readable_dir() as home:
        code = PROBE.format(root=str(ROOT), uid=uid, holder=holder_pid, binary=MOSQUITTO,
                            port=port)
        r = subprocess.run(setpriv(uid) + [sys.executable, "-c", code], cwd="/",
                           env=dict(os.environ, HOME=home, TMPDIR=home,
                                    PYTHONDONTWRITEBYTECODE="1"),
                           capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


def real_uid(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(x for x in f if x.startswith("Uid:")).split()[1])


def socket_owner(port):
    return {uid for _, _, uid in brokers._listening(port)}


@as_root
def test_another_users_broker_is_named_with_its_user():
    port = free_ports(1, "127.0.0.1")[0]
    with users_broker(port, run_as=65534) as proc:
        assert socket_owner(port) == {65534}
        said = check_as_another_user(port, proc.pid)
    nobody = pwd.getpwuid(65534).pw_name
    assert said == (f"Port {port} is already taken by mosquitto (pid {proc.pid}, user {nobody}, "
                    f"probably Debian's mosquitto.service: sudo systemctl disable --now "
                    f"mosquitto); the table's broker needs it. Stop that broker or start the "
                    f"table with --mqtt-port.")


@as_root
def test_debians_broker_bound_as_root_then_user_mosquitto_is_named():
    """Debian's mosquitto.service as on the box: started as root with ``user mosquitto``, it
    runs as user mosquitto. Named, with its user and how to stop it, to another unprivileged
    user (the table's), by the sentence `companion serve` and the screen say."""
    try:
        pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto user here (the Debian package makes it)")
    port, ws = free_ports(2, "127.0.0.1")
    with users_broker(port, conf_user="mosquitto") as proc:
        wait_until(lambda: real_uid(proc.pid) == pwd.getpwnam("mosquitto").pw_uid,
                   what="the broker dropping to user mosquitto")
        said = check_as_another_user(port, proc.pid)
        with world_readable_dir() as d:     # the strict command, as the table's user
            os.chmod(d, 0o777)
            http = free_ports(1, "127.0.0.1")[0]
            r = subprocess.run(
                setpriv(PROBE_UID) + [sys.executable, "-m", "companion.cli.main", "serve",
                                      "--table", "taken", "--db", os.path.join(d, "s.db"),
                                      "--game", "great-powers", "--players", "3", "--broker",
                                      "mosquitto", "--http-port", str(http), "--mqtt-port",
                                      str(port), "--ws-port", str(ws)],
                cwd=ROOT, env=dict(os.environ, HOME=d, TMPDIR=d, PYTHONDONTWRITEBYTECODE="1"),
                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    sentence = (f"Port {port} is already taken by mosquitto (pid {proc.pid}, user mosquitto, "
                f"probably Debian's mosquitto.service: sudo systemctl disable --now "
                f"mosquitto); the table's broker needs it. Stop that broker or start the table "
                f"with --mqtt-port.")
    assert said == sentence
    assert r.returncode == 1, r.stdout + r.stderr
    assert [x for x in r.stderr.splitlines() if x.strip()] == [f"companion: {sentence}"]


@as_root
def test_a_broker_that_bound_as_root_then_changed_user_is_named(tmp_path):
    """The socket is root's (made before the broker changed user), the process another
    user's: when the socket is root's, the brokers of every user are named (root's own
    mosquittos too, here those of other test runs: from the socket alone it cannot tell)."""
    port = free_ports(1, "127.0.0.1")[0]
    with world_readable_dir() as d:
        fake = os.path.join(d, "mosquitto")
        os.symlink(sys.executable, fake)
        code = ("import os, socket, time; s = socket.socket(); "
                f"s.bind(('127.0.0.1', {port})); s.listen(); os.setgroups([]); "
                "os.setgid(65534); os.setuid(65534); time.sleep(120)")
        with holder_process([fake, "-c", code], port) as proc:
            wait_until(lambda: real_uid(proc.pid) == 65534,
                       what="the fake broker becoming nobody")
            assert socket_owner(port) == {0}
            said = check_as_another_user(port, proc.pid)
    nobody = pwd.getpwuid(65534).pw_name
    assert said.startswith(f"Port {port} is already taken by "), said
    assert f"mosquitto (pid {proc.pid}, user {nobody})" in said, said
    assert said.endswith("; the table's broker needs it. Stop that broker or start the table "
                         "with --mqtt-port."), said


LISTEN = ("import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', {port})); "
          "s.listen(); time.sleep(120)")


@as_root
def test_a_users_only_program_is_named_and_else_the_user():
    """Not a broker: the owner's only process is named (a uid with no name says so); among
    several processes of that user, none stands out: the user is named."""
    port, port2 = free_ports(2, "127.0.0.1")
    uid = PROBE_UID + 1                     # nameless, and nothing else runs as it
    argv = setpriv(uid) + [sys.executable, "-c", LISTEN.format(port=port)]
    with holder_process(argv, port) as proc:
        name = brokers._command_name(proc.pid)
        said = check_as_another_user(port, proc.pid)
    assert said == (f"Port {port} is already taken by {name} (pid {proc.pid}, uid {uid}); the "
                    f"table's broker needs it. Stop that program or start the table with "
                    f"--mqtt-port.")
    sleeper = subprocess.Popen(setpriv(uid) + ["sleep", "120"])
    try:
        argv = setpriv(uid) + [sys.executable, "-c", LISTEN.format(port=port2)]
        with holder_process(argv, port2) as proc:
            said = check_as_another_user(port2, proc.pid)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert said == (f"Port {port2} is already taken by a program of uid {uid}; the table's "
                    f"broker needs it. Stop that program or start the table with --mqtt-port.")


# -- `companion run`: the table starts without phones when its broker cannot ---------------------

def no_phones_sentence(err):
    return (f"Phones cannot join: {err} Meanwhile the table works by touch only; restart it "
            f"once that is done.")


@pytest.mark.parametrize("mode", ["mosquitto", "embedded"])
def test_a_table_with_optional_phones_starts_without_them(tmp_path, mode):
    """Phones optional (`companion run`): the port taken, the table still starts, with the hub
    only (no broker, bridge or phone page), says why in an alert the screen shows, and plays
    by touch."""
    port, ws = free_ports(2, "127.0.0.1")
    with other_broker(tmp_path, port) as pid:
        with pytest.raises(PortTaken) as strict:        # what `companion serve` would say
            make(mode, host="0.0.0.0", tcp_port=port, ws_port=ws).start()
        srv = TableServer("taken", db=tmp_path / "s.db", game="great-powers", players=3,
                          broker=mode, http_port=0, mqtt_port=port, ws_port=ws,
                          start="manual", phones="optional")
        try:
            srv.start()
            assert srv.broker is None and srv.bridge is None and srv.web is None
            assert srv.join_url is None and srv.hub.join_url is None
            assert srv.phones_error == str(strict.value)
            assert_names(strict.value, port, pid)
            message = no_phones_sentence(strict.value)
            assert srv.phones_message == message
            view = srv.hub.public_view()
            assert {"key": "phones", "kind": "phones", "message": message} in \
                view["hub"]["alerts"]
            assert view["hub"]["join_url"] is None
            assert listeners(ws) == [], "nothing listens for phones"
            hub = srv.hub                               # the table screen's commands work
            hub.rename(0, "Ann")
            hub.start(seed=3)
            view = hub.public_view()
            assert view["session"] is not None and view["hub"]["seats"][0]["name"] == "Ann"
            assert srv.check_address() is False         # no phone page to move
            for kind in ("reader", "devices", "button", "timer", "network", "scan"):
                hub.alert(kind, f"{kind} trouble")      # the hub keeps its newest five
            alerts = hub.public_view()["hub"]["alerts"]
            assert len(alerts) == 5, alerts
            assert {"key": "phones", "kind": "phones", "message": message} in alerts
        finally:
            srv.stop()
        assert srv.log is None


def test_a_phone_page_that_cannot_listen_leaves_the_table_without_phones_too(tmp_path):
    """The broker started, the phone page's port is taken: the broker and the bridge are
    stopped again (its port free), and the alert says why."""
    import socket
    port, ws = free_ports(2, "127.0.0.1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        http = s.getsockname()[1]
        srv = TableServer("taken", db=tmp_path / "s.db", game="great-powers", players=3,
                          broker="mosquitto", bind="127.0.0.1", http_port=http,
                          mqtt_port=port, ws_port=ws, start="manual", phones="optional")
        try:
            srv.start()
            assert srv.broker is None and srv.bridge is None and srv.web is None
            assert srv.phones_error.startswith(f"The phone page cannot listen on "
                                               f"127.0.0.1:{http}: "), srv.phones_error
            assert not listeners(port) and not listeners(ws), "the broker was stopped"
            alerts = srv.hub.public_view()["hub"]["alerts"]
            assert [a["message"] for a in alerts if a["key"] == "phones"] == \
                [no_phones_sentence(srv.phones_error)]
        finally:
            srv.stop()


def test_phones_are_required_unless_told_and_the_word_is_checked(tmp_path):
    assert TableServer("t", db=tmp_path / "s.db").phones == "required"
    with pytest.raises(Exception, match="phones must be one of required, optional"):
        TableServer("t", db=tmp_path / "s.db", phones="maybe")
