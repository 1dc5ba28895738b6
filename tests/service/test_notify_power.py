"""systemd's notify protocol spoken for real (a datagram socket bound by the test, by path and by
abstract name: the messages it receives are the test's evidence), and power requests reaching
their handlers from any thread."""
import doctest
import os
import socket
import threading
import uuid

import pytest

from companion.service import notify, power


@pytest.fixture(params=["path", "abstract"])
def listener(request, tmp_path, monkeypatch):
    """A bound datagram socket, ``$NOTIFY_SOCKET`` naming it; ``recv()`` the next message."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        addr = name = str(tmp_path / "notify.sock")
    else:
        name = f"@tc-test-{uuid.uuid4().hex}"
        addr = "\0" + name[1:]
    s.bind(addr)
    s.settimeout(10)
    monkeypatch.setenv("NOTIFY_SOCKET", name)
    yield Listener(s)
    s.close()


class Listener:
    def __init__(self, sock):
        self.sock = sock

    def recv_text(self):
        return self.sock.recv(4096).decode()


def test_each_message_arrives_as_systemd_reads_it(listener):
    assert notify.ready("Home: choose a game")
    assert listener.recv_text() == "READY=1\nSTATUS=Home: choose a game"
    assert notify.status("Great Powers, round 2,\n4 phones")       # one line, always
    assert listener.recv_text() == "STATUS=Great Powers, round 2, 4 phones"
    assert notify.watchdog()
    assert listener.recv_text() == "WATCHDOG=1"
    assert notify.stopping()
    assert listener.recv_text() == "STOPPING=1"
    assert notify.notify(RELOADING=1, MONOTONIC_USEC=5)
    assert listener.recv_text() == "RELOADING=1\nMONOTONIC_USEC=5"


def test_a_supervisor_that_stops_reading_never_blocks_the_table(listener):
    """A Unix datagram queue holds a few datagrams (net.unix.max_dgram_qlen); once it is full a
    blocking send waits for a reader forever, which froze the table's event loop in a pet.
    Sends do not block: the full queue drops the datagram (False), and the next one after the
    supervisor reads again arrives."""
    sent = [notify.watchdog() for _ in range(2000)]    # on a blocking send this never returns
    assert sent[0] is True and sent[-1] is False       # the queue filled, and nothing waited
    queued = 0
    listener.sock.setblocking(False)
    try:
        while listener.sock.recv(4096) == b"WATCHDOG=1":
            queued += 1
    except BlockingIOError:
        pass
    assert queued == sent.count(True)
    listener.sock.setblocking(True)
    assert notify.status("back")                        # read again: sending again works
    assert listener.recv_text() == "STATUS=back"


def test_without_a_socket_nothing_is_sent_and_nothing_fails(monkeypatch, tmp_path):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify.ready() is False and notify.watchdog() is False
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert notify.stopping() is False                  # the supervisor went away: no error
    monkeypatch.setenv("NOTIFY_SOCKET", "vsock:2:9999")
    assert notify.status("x") is False


def test_the_watchdog_interval_is_for_this_process_only(monkeypatch):
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    assert notify.watchdog_interval() == 30.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert notify.watchdog_interval() == 30.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))     # meant for another process
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    monkeypatch.setenv("WATCHDOG_USEC", "0")
    assert notify.watchdog_interval() is None


def test_a_power_request_from_another_thread_reaches_every_handler():
    seen = []
    offs = [power.on_request(lambda a: seen.append(("first", a, threading.current_thread()))),
            power.on_request(lambda a: 1 / 0),              # a broken one is logged, no more
            power.on_request(lambda a: seen.append(("last", a, threading.current_thread())))]
    try:
        results = []
        t = threading.Thread(target=lambda: results.append(power.request("poweroff")),
                             name="gpio-button")
        t.start()
        t.join()
        assert results == [True]
        assert [(w, a, th.name) for w, a, th in seen] == [("first", "poweroff", "gpio-button"),
                                                           ("last", "poweroff", "gpio-button")]
        with pytest.raises(ValueError, match="poweroff, reboot"):
            power.request("halt")
    finally:
        for off in offs:
            off()
    assert power.request("reboot") is False                  # nobody listens any more
    assert (power.POWEROFF, power.REBOOT) == (70, 71)
    assert power.exit_status("poweroff") == 70 and power.exit_status("reboot") == 71


def test_the_power_module_examples_hold():
    assert doctest.testmod(power).failed == 0
