"""Degrade, don't die: a table whose broker cannot start (another mosquitto holds its port, as
Debian's mosquitto.service did on the box) starts without phones. The screen says why in a
banner ("Phones cannot join: ..."), the lobby says phones cannot join instead of a QR and a
room code, the Menu's Join entry says why instead of a QR, no seat can be moved to a phone,
and the game is played by touch. The real `companion run` stays up (READY=1 to systemd, so
the unit has nothing to restart) and stops on SIGTERM. A real mosquitto holds the port."""
import os
import signal
import socket
import subprocess
import sys

import pytest
from kivy.uix.label import Label
from PIL import Image
from pyzbar.pyzbar import decode

from companion.net import serve
from companion.net.brokers import free_ports
from companion.net.serve import TableServer
from ui.screens.lobby import NO_PHONES
from ui.widgets.menu import PHONES_ALERT, JoinDialog, SeatDialog

from ..net.test_port_taken import other_broker
from .harness import walk
from ..waiting import wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def qr_codes(path):
    return [c.data.decode() for c in decode(Image.open(path))]


@pytest.fixture
def taken(tmp_path):
    """Another mosquitto on the table's MQTT port; yields (port, its pid)."""
    port = free_ports(1, "127.0.0.1")[0]
    with other_broker(tmp_path, port) as pid:
        yield port, pid


@pytest.fixture
def table(tmp_path, taken):
    port, _ = taken
    ws = free_ports(1, "127.0.0.1")[0]
    srv = TableServer("nophones", db=tmp_path / "n.db", game="great-powers", players=3,
                      broker="mosquitto", http_port=0, mqtt_port=port, ws_port=ws,
                      start="manual", phones="optional", address_source=lambda: "10.1.2.3",
                      address_poll=3600.0)
    srv.start()
    yield srv
    srv.stop()


def test_the_screen_says_phones_cannot_join_and_plays_by_touch(table, taken, start_app):
    port, pid = taken
    assert PHONES_ALERT == serve.PHONES_ALERT
    assert table.web is None and table.hub.join_url is None
    message = table.phones_message
    assert message.startswith(f"Phones cannot join: Port {port} is already taken by mosquitto "
                              f"(pid {pid}); the table's broker needs it. Stop that broker or "
                              f"start the table with --mqtt-port. ")
    d = start_app(table.hub, address_feed=table.on_address)
    assert d.app.screen_name == "lobby"
    d.in_banner("Phones", message)                              # the banner says why
    texts = d.texts()
    assert NO_PHONES in texts and not [t for t in texts if "http" in t], texts
    lobby = d.app.root.ids.sm.current_screen            # no room code to type in either
    assert not [w.text for w in walk(lobby) if isinstance(w, Label) and "Room" in w.text]
    assert qr_codes(d.check("no-phones-lobby")) == []          # nothing useless to scan

    d.tap(d.tid("seat:0"))                                      # no phone can take a seat
    dlg = next(w for w in d.tops() if isinstance(w, SeatDialog))
    assert dlg.ids.handover.disabled
    d.tap(d.tid("seat:cancel"))

    d.tap(d.tid("menu"))                                        # Menu > why, not a QR
    assert not d.tid("menu:join").disabled
    d.one("Why phones cannot join")
    d.tap(d.tid("menu:join"))
    join = next(w for w in d.tops() if isinstance(w, JoinDialog))
    assert join.no_phones == message and join.url == "" and join.room == ""
    assert message in d.texts()
    assert "Phones cannot join right now: the table works by touch only." in d.texts()
    assert qr_codes(d.check("no-phones-join-dialog")) == []
    d.tap(d.tid("join:close"))

    d.tap(d.tid("lobby:start"))                                 # touch play works
    d.wait_for(lambda: table.hub.session is not None and d.app.screen_name != "lobby")
    assert d.app.view.get("session") is not None
    d.in_banner("Phones", message)                              # still said in the game
    d.shot("no-phones-playing")


def test_companion_run_stays_up_without_phones(tmp_path, taken):
    """What the box's unit sees: the sentence once on stderr, READY=1 (the table is on the
    screen), and no exit until it is told to stop: nothing to restart every 3 s."""
    port, pid = taken
    http, ws = free_ports(2, "127.0.0.1")
    sock_path = str(tmp_path / "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(sock_path)
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, KIVY_HOME=str(tmp_path / "kivy"),
               SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", PYTHONFAULTHANDLER="1")
    for k in ("WATCHDOG_PID", "WATCHDOG_USEC", "COMPANION_APPLIANCE"):
        env.pop(k, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "run", "--windowed", "--size", "800x480",
         "--hardware", "none", "--broker", "mosquitto", "--db", str(tmp_path / "run.db"),
         "--game", "great-powers", "--players", "3", "--http-port", str(http),
         "--mqtt-port", str(port), "--ws-port", str(ws)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    messages = []
    try:
        def ready():
            listener.setblocking(False)
            try:
                while True:
                    messages.append(listener.recv(4096).decode())
            except BlockingIOError:
                pass
            assert proc.poll() is None, f"companion run exited {proc.returncode}"
            return any("READY=1" in m.split("\n") for m in messages)
        wait_until(ready, timeout=240, what="READY=1 from companion run")
        assert proc.poll() is None                  # up, not restarting
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        listener.close()
    assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
    said = [x for x in err.splitlines() if x.startswith("companion: ")]
    sentence = (f"companion: table table. Phones cannot join: Port {port} is already taken by "
                f"mosquitto (pid {pid}); the table's broker needs it. Stop that broker or start "
                f"the table with --mqtt-port. Meanwhile the table works by touch only; restart "
                f"it once that is done.")
    assert sentence in said, err[-3000:]
    assert not [x for x in said if "phones join at" in x], said
    assert "Traceback" not in err, err[-3000:]


def test_the_longest_sentence_the_box_gives_is_legible(hub, start_app):
    """What the box said (Debian's broker, found through its user): the banner grows to hold
    it, every word legible at 800x480, the lobby beside it."""
    message = ("Phones cannot join: Port 1883 is already taken by mosquitto (pid 412, user "
               "mosquitto, probably Debian's mosquitto.service: sudo systemctl disable --now "
               "mosquitto); the table's broker needs it. Stop that broker or start the table "
               "with --mqtt-port. Meanwhile the table works by touch only; restart it once "
               "that is done.")
    hub.configure("great-powers", 3)
    hub.alert(PHONES_ALERT, message, key=PHONES_ALERT)
    d = start_app(hub)
    assert d.app.screen_name == "lobby"
    d.in_banner("Phones", message)
    assert NO_PHONES in d.texts()
    d.check("no-phones-debian-lobby")
