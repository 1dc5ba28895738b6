"""The whole `companion run` on the box (COMPANION_APPLIANCE=1, under a stand-in for systemd: a
notify socket bound here, a watchdog interval): it says READY=1 once its first frame is drawn,
pings the watchdog, and when Shut down is confirmed on the Menu (or the GPIO button asks for a
restart) it stops cleanly, says STOPPING=1 and exits 70 (71), which the unit turns into
`systemctl poweroff` (`reboot`). The game started by the last tap is in the store, ready to
resume."""
import os
import signal
import socket
import subprocess
import sys
import threading

import pytest

from companion.core.log import SQLiteLog
from companion.net.brokers import free_ports
from companion.service.hub import Hub

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_box(tmp_path, mode):
    sock_path = str(tmp_path / "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(sock_path)
    listener.settimeout(0.2)
    messages, done = [], threading.Event()

    def read():                                 # as systemd does, while the table runs (a
        while not done.is_set():                # queue nobody reads fills at a few datagrams)
            try:
                messages.append(listener.recv(4096).decode())
            except socket.timeout:
                pass
    reader = threading.Thread(target=read, name="notify-reader", daemon=True)
    reader.start()
    db = tmp_path / "box.db"
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="400000",
               COMPANION_APPLIANCE="1", KIVY_HOME=str(tmp_path / "kivy"),
               SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", PYTHONFAULTHANDLER="1")
    env.pop("WATCHDOG_PID", None)
    ports = [a for flag, port in zip(("--http-port", "--mqtt-port", "--ws-port"), free_ports(3))
             for a in (flag, str(port))]
    try:
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "power_child.py"), mode, "--", "--windowed",
             "--size", "800x480", "--hardware", "none", "--broker", "embedded",
             "--db", str(db), "--game", "great-powers", "--players", "3", *ports],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            proc.stdout_text, proc.stderr_text = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:       # a hang is a failure that says where it was
            proc.send_signal(signal.SIGABRT)    # faulthandler: every thread's stack
            out, err = proc.communicate()
            raise AssertionError(f"companion run did not stop:\n{out}\n{err[-4000:]}")
    finally:
        done.set()
        reader.join()
        listener.setblocking(False)             # what came after the last read
        while True:
            try:
                messages.append(listener.recv(4096).decode())
            except BlockingIOError:
                break
        listener.close()
    return proc, messages, db


def resumable(db):
    log = SQLiteLog(db)
    try:
        hub = Hub(log, table="table")
        return hub.resumable()
    finally:
        log.close()


@pytest.mark.parametrize("mode,status,words", [("menu", 70, "Shutting down"),
                                                ("gpio", 71, "Restarting")])
def test_the_box_stops_cleanly_with_the_status_the_unit_acts_on(tmp_path, mode, status, words):
    proc, messages, db = run_box(tmp_path, mode)
    assert proc.returncode == status, proc.stdout_text + proc.stderr_text[-3000:]
    assert f"EXIT {status}" in proc.stdout_text
    ready = [i for i, m in enumerate(messages) if "READY=1" in m.split("\n")]
    assert len(ready) == 1, messages
    assert "STATUS=Great Powers: setting up, 0 of 3 phones joined" in messages[ready[0]]
    pings = [i for i, m in enumerate(messages) if m == "WATCHDOG=1"]
    assert pings, messages
    if mode == "menu":          # (the button is pressed while the start is being written)
        assert "STATUS=Great Powers, round 1, 0 phones" in messages, messages
    assert messages.index(f"STATUS={words}") > ready[0]
    assert messages[-1] == "STOPPING=1", messages          # said last, as the table stops
    games = resumable(db)                                  # the tap's game was written, and
    assert len(games) == 1 and games[0]["game"] == "great-powers"   # the store closed
    assert not os.path.exists(f"{db}-wal") or os.path.getsize(f"{db}-wal") == 0
