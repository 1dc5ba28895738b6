"""The box (appliance mode): the table's Menu shuts the box down or restarts it, each asked once
more in words; a tap beside the question only closes it; confirmed, the screen says what is
happening and the app stops with the exit status the systemd unit turns into a power off (70)
or a restart (71). The GPIO button's request (another thread, no question) does the same. On a
dev machine the two entries are not there. Under systemd the screen says how the table is doing
and pets the watchdog only while the hub answers (a real datagram socket, real messages)."""
import os
import socket
import threading
import uuid

import pytest
from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch

from companion.service import power
from ui.notifier import ServiceNotifier
from ui.widgets.menu import ConfirmDialog, PowerCover, TableMenu

from .harness import SHOTS, walk

NAMES = ["Ann", "Bo", "Cy", "Di"]


@pytest.fixture(autouse=True)
def tidy_event_loop():
    """App.stop() (what the power entries end in) asks Kivy's event loop to stop; the tests'
    window runs no loop, so it only leaves a flag behind: put it back for the next test."""
    yield
    EventLoop.stopping = False


def start_gp(hub):
    hub.configure("great-powers", players=4, names=NAMES)
    hub.start(seed=5)


def dialogs(d, cls):
    return [w for w in d.tops() if isinstance(w, cls)]


def tap_at(d, x, y):
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()
    d.pump()


def stop_by_hand(d, action, shot=None):
    """Confirmed: the cover is drawn, then the app stops. Returns the cover's texts."""
    go = d.tid(f"confirm:{action}")
    x, y = go.to_window(*go.center)
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()                                   # the cover is up before any frame
    covers = dialogs(d, PowerCover)
    assert len(covers) == 1 and not dialogs(d, ConfirmDialog)
    texts = d.texts()
    EventLoop.idle()                               # one frame: the cover on the screen
    if shot:
        SHOTS.mkdir(parents=True, exist_ok=True)
        os.replace(Window.screenshot(name=str(SHOTS / f"{shot}.png")), SHOTS / f"{shot}.png")
    for _ in range(5):                             # then the table stops by itself
        if d.app.closed:
            break
        EventLoop.idle()
    return texts


def test_shut_down_is_asked_once_more_and_stops_the_app_with_70(hub, start_app):
    start_gp(hub)
    d = start_app(hub, appliance=True)
    d.tap(d.tid("menu"))
    assert {"menu:poweroff", "menu:reboot"} <= set(d.tids())
    d.check("menu-appliance")
    entry = d.tid("menu:poweroff")
    ex, ey = entry.to_window(*entry.center)
    d.tap(entry)
    assert len(dialogs(d, ConfirmDialog)) == 1
    texts = d.texts()
    assert "Shut the box down?" in texts
    assert any("the game in progress is kept" in t for t in texts)
    d.check("menu-poweroff-confirm")
    go = d.tid("confirm:poweroff")
    gx, gy = go.to_window(*go.pos)
    assert not (gx <= ex <= gx + go.width and gy <= ey <= gy + go.height)   # a double tap
    tap_at(d, ex, ey)                        # beside the question: it closes, nothing else
    assert not dialogs(d, ConfirmDialog) and not dialogs(d, PowerCover)
    assert d.app.power_action is None and not d.app.closed and d.app.exit_status == 0
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:poweroff"))
    panel = dialogs(d, ConfirmDialog)[0]
    title = d.one("Shut the box down?")
    tap_at(d, *title.to_window(*title.center))     # on the question's words: nothing
    assert dialogs(d, ConfirmDialog) == [panel] and d.app.power_action is None
    d.tap(d.tid("confirm:cancel"))                 # a second thought: nothing happens
    assert not dialogs(d, ConfirmDialog) and d.app.power_action is None
    assert not d.app.closed and hub.session is not None
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:poweroff"))
    covered = stop_by_hand(d, "poweroff", shot="power-cover-shutting-down")
    assert "Shutting down\u2026" in covered
    assert "Unplug the box after half a minute." in covered
    assert d.app.closed and d.app.exit_status == power.POWEROFF == 70
    assert d.app.power_action == "poweroff"
    assert power.handlers == []                    # the app let go of the power requests
    assert hub.session is not None and hub.session.state.outcome is None   # kept to resume


def test_restart_is_asked_once_more_and_stops_the_app_with_71(hub, start_app):
    hub.configure("great-powers", players=4, names=NAMES)          # the lobby: no game yet
    d = start_app(hub, appliance=True)
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:reboot"))
    texts = d.texts()
    assert "Restart the box?" in texts
    assert not any("game in progress" in t for t in texts)        # there is none
    d.check("menu-reboot-confirm")
    d.tap(d.tid("confirm:cancel"))
    assert d.app.power_action is None and not d.app.closed
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:reboot"))
    covered = stop_by_hand(d, "reboot", shot="power-cover-restarting")
    assert "Restarting\u2026" in covered
    assert d.app.closed and d.app.exit_status == power.REBOOT == 71


def test_the_gpio_buttons_request_stops_the_table_without_a_question(hub, start_app):
    start_gp(hub)
    d = start_app(hub, appliance=True)
    d.tap(d.tid("menu"))                           # whatever is open goes away
    t = threading.Thread(target=power.request, args=("poweroff",), name="gpio-button")
    t.start()
    t.join()
    assert not d.app.closed                        # the main thread does the stopping
    EventLoop.idle()                               # the request reaches the main thread
    assert dialogs(d, PowerCover) and not dialogs(d, ConfirmDialog)
    assert "Shutting down\u2026" in d.texts()
    power.request("reboot")                        # a second request: the first one wins
    for _ in range(6):
        EventLoop.idle()
    assert d.app.closed and d.app.exit_status == 70


def test_off_the_box_the_menu_has_no_power_entries(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    d.tap(d.tid("menu"))
    assert not {"menu:poweroff", "menu:reboot"} & set(d.tids())
    assert not {"Shut down", "Restart the box"} & set(d.texts())
    assert "menu:close" in d.tids()
    d.check("menu-dev-machine")
    fresh = TableMenu()                            # not even for the frame before it opens
    assert not [w for w in walk(fresh) if getattr(w, "tid", "") in ("menu:poweroff",
                                                                      "menu:reboot")]


# -- systemd: status and watchdog ------------------------------------------------------------------
@pytest.fixture
def systemd(monkeypatch):
    """A datagram socket bound as systemd's notify socket; ``messages()`` drains it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"@tc-ui-{uuid.uuid4().hex}"
    s.bind("\0" + name[1:])
    s.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", name)

    def messages():
        out = []
        while True:
            try:
                out.append(s.recv(4096).decode())
            except BlockingIOError:
                return out
    yield messages
    s.close()


def test_the_status_line_follows_the_table_and_the_watchdog_needs_the_hub(hub, start_app,
                                                                          systemd):
    notifier = ServiceNotifier(hub, interval=0, answer_within=0.05)
    d = start_app(hub, notifier=notifier)
    notifier.first_frame()
    assert systemd() == ["STATUS=Home: choose a game", "READY=1\nSTATUS=Home: choose a game"]
    hub.configure("great-powers", players=4, names=NAMES)
    d.pump()
    assert systemd() == ["STATUS=Great Powers: setting up, 0 of 4 phones joined"]
    for name in NAMES[:2]:
        hub.join(name, hub.room_code)
    hub.start(seed=5)
    d.pump()
    assert systemd()[-1] == "STATUS=Great Powers, round 1, 0 phones"
    hub.set_presence(0, True)
    hub.set_presence(1, True)
    d.pump()
    assert systemd() == ["STATUS=Great Powers, round 1, 2 phones"]
    d.pump()
    assert systemd() == []                         # said when it changes, not every frame
    assert notifier.pet() is True
    assert systemd()[-1] == "WATCHDOG=1"
    held, release = threading.Event(), threading.Event()

    def stuck():                                   # a command that never finishes
        with hub._lock:
            held.set()
            release.wait(30)
    t = threading.Thread(target=stuck)
    t.start()
    held.wait(10)
    try:
        assert notifier.pet() is False             # the hub does not answer: no ping
        assert systemd() == [] and notifier.missed == 1
    finally:
        release.set()
        t.join()
    assert notifier.pet() is True and systemd() == ["WATCHDOG=1"]
