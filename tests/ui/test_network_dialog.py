"""The box's network on the touchscreen (issue 33, docs/network.md), in the real window with
real taps: Menu > Network finds the Wi-Fi networks in reach, joins one with the password typed
on the screen's keyboard, says what happened, and brings the box's own Wi-Fi back; the country
and sharing; and the lobby shows the Wi-Fi QR beside the join QR only while the own Wi-Fi is
up (both decoded from a screenshot). The network is ``companion.net.wifi.Network`` over a
simulated radio that records what it was asked and can be held, so the screen is seen while
a look or a join is still under way."""
import doctest
import json
import threading

import pytest
from kivy.core.window import Window
from PIL import Image
from pyzbar.pyzbar import decode

import ui.widgets.network as network_ui
from companion.net.wifi import Network, SimulatedWifi, WifiNetwork
from companion.net.wifi.own import box_ssid
from ui.widgets.menu import JoinDialog, TableMenu
from ui.widgets.network import (NO_COUNTRY, SCAN_STOPS_OWN, LockMark, NetworkDialog,
                                PasswordDialog)

from .harness import plain

MID = "3f1c0d4a9b8e7f6a5b4c3d2e1f0a9b8c"
SSID = box_ssid(MID)                          # Table-8ZBQ


class Radio(SimulatedWifi):
    """The simulated networks, a fourth that refuses every password, a record of every join
    (and the password it carried), and ``hold``: cleared, a look or a join waits for it."""

    def __init__(self):
        super().__init__(networks=[WifiNetwork("Cafe Guest", 72, secure=False),
                                   WifiNetwork("Home", 55),
                                   WifiNetwork("Wrong password", 40),
                                   WifiNetwork("Convention Hall 2", 31)])
        self.joins = []
        self.scans = 0
        self.hold = threading.Event()
        self.hold.set()

    def scan(self):
        self.scans += 1
        assert self.hold.wait(30)
        return super().scan()

    def join(self, ssid, password):
        self.joins.append((ssid, password))
        assert self.hold.wait(30)
        return super().join(ssid, password)


@pytest.fixture
def radio():
    r = Radio()
    yield r
    r.hold.set()


@pytest.fixture
def net(radio, tmp_path):
    return Network(radio, tmp_path, machine_id=MID)


def status(d):
    return plain(d.tid("network:status"))


def wait_status(d, needle, timeout=10):
    d.wait_for(lambda: needle in status(d), timeout)
    return status(d)


def dialog(d, cls):
    hits = [w for w in Window.children if isinstance(w, cls)]
    assert hits, f"no {cls.__name__} open"
    return hits[-1]


def open_network(d):
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:network"))
    return dialog(d, NetworkDialog)


def find_networks(d, radio):
    before = radio.scans
    d.tap(d.tid("network:scan"))
    d.wait_for(lambda: radio.scans > before and not d.tid("network:scan").disabled)


def type_password(d, text):
    """Type ``text`` by taps on the password keyboard: Shift before a capital, the page of
    signs for a sign the letters' page does not have (and back)."""
    kb = dialog(d, PasswordDialog).ids.kb
    for ch in text:
        on_letters = ch == " " or ch.isalpha() or any(ch in row for row in kb.LETTERS)
        if on_letters != (kb.page == "letters"):
            d.tap(d.tid("key:letters" if on_letters else "key:symbols"))
        if ch == " ":
            d.tap(d.tid("key:space"))
            continue
        if ch.isupper():
            d.tap(d.tid("key:shift"))
        d.tap(d.tid(f"key:{ch}"))


def qr_codes(path):
    return sorted(c.data.decode() for c in decode(Image.open(path)))


def test_the_doctests():
    assert doctest.testmod(network_ui, verbose=False).failed == 0


def test_the_menu_has_no_network_button_when_the_network_is_not_the_tables(hub, start_app):
    d = start_app(hub)                                  # network=None: a laptop
    d.tap(d.tid("menu"))
    assert "menu:club" in d.tids() and "menu:network" not in d.tids()


def test_join_a_venue_network_by_taps_then_the_own_wifi_again(net, radio, start_app, hub,
                                                              monkeypatch):
    threads = []
    real_refresh = NetworkDialog.refresh

    def refresh(self):                    # every redraw, whichever thread the news came on
        threads.append(threading.current_thread())
        real_refresh(self)
    monkeypatch.setattr(NetworkDialog, "refresh", refresh)

    net.use_own()                                       # as the box after its 30 s
    d = start_app(hub, network=net)
    d.tap(d.tid("menu"))
    d.check("network-menu")                             # seven buttons, none cut
    d.tap(d.tid("menu:network"))
    dlg = dialog(d, NetworkDialog)
    assert status(d).startswith(f"On its own Wi-Fi {SSID}")
    own = plain(d.tid("network:own-wifi"))
    assert SSID in own and net.own.password in own
    assert d.tid("network:own").disabled                # it is up already
    assert plain(d.tid("network:note")) == SCAN_STOPS_OWN     # said before looking
    # before a look: only the networks the box knows, with no signal yet
    assert [t for t in d.tids() if t.startswith("network:ssid:")] == ["network:ssid:Home"]
    assert d.tid("network:ssid:Home").words == "known"
    d.check("network-dialog-own")

    radio.hold.clear()                                  # a look takes its ten seconds
    d.tap(d.tid("network:scan"))
    d.wait_for(lambda: radio.scans == 1)
    d.pump()
    assert dlg.scanning and d.tid("network:scan").disabled
    assert "the box's own Wi-Fi is off meanwhile" in plain(d.tid("network:note"))
    radio.hold.set()
    d.wait_for(lambda: not dlg.scanning)
    rows = [t for t in d.tids() if t.startswith("network:ssid:")]
    assert sorted(rows) == sorted(f"network:ssid:{s}" for s in
                                  ("Cafe Guest", "Home", "Wrong password", "Convention Hall 2"))
    assert "4 Wi-Fi networks in reach" in plain(d.tid("network:note"))
    home = d.tid("network:ssid:Home")
    assert home.words == "55% \u00b7 password \u00b7 known"
    assert d.tid("network:ssid:Cafe Guest").words == "72% \u00b7 open"
    locks = {row.ssid: next(w for w in row.children if isinstance(w, LockMark)).opacity
             for row in (d.tid(t) for t in rows)}
    assert locks == {"Cafe Guest": 0, "Home": 1, "Wrong password": 1, "Convention Hall 2": 1}
    assert "network:forget:Home" in d.tids()            # known: it can be forgotten
    d.check("network-dialog-list")

    d.tap(d.tid("network:ssid:Convention Hall 2"))     # secure, unknown: its password
    pw = dialog(d, PasswordDialog)
    assert pw.ssid == "Convention Hall 2" and d.tid("network:join").disabled
    type_password(d, "venue-pass-1")
    assert pw.ids.kb.text == "venue-pass-1"
    assert plain(d.tid("network:password")) == "venue-pass-1|"
    assert not d.tid("network:join").disabled
    assert f"Phones on {SSID} must join Convention Hall 2 too." in d.texts()
    d.check("network-password")

    radio.hold.clear()                                  # joining takes its time
    d.tap(d.tid("network:join"))
    assert pw not in Window.children
    wait_status(d, "Joining Convention Hall 2\u2026")   # the busy line
    assert d.tid("network:own").disabled and d.tid("network:scan").disabled
    radio.hold.set()
    said = wait_status(d, "On the Wi-Fi Convention Hall 2")
    assert radio.joins == [("Convention Hall 2", "venue-pass-1")]
    assert radio.now.kind == "wifi" and radio.now.ssid == "Convention Hall 2"
    assert "192.168.7.20" in said
    d.wait_for(lambda: d.tid("network:ssid:Convention Hall 2").active)
    assert "connected" in d.tid("network:ssid:Convention Hall 2").words
    assert not d.tid("network:own").disabled
    d.check("network-dialog-joined")

    d.tap(d.tid("network:own"))                         # the box's own Wi-Fi again
    wait_status(d, f"On its own Wi-Fi {SSID}")
    assert radio.now.kind == "own" and net.status()["own"]["up"]
    assert not d.tid("network:ssid:Convention Hall 2").active
    assert "known" in d.tid("network:ssid:Convention Hall 2").words   # remembered
    assert threads and {t.name for t in threads} == {threading.main_thread().name}
    d.tap(d.tid("network:close"))
    assert dlg not in Window.children


def test_a_refused_password_is_said_and_the_own_wifi_comes_back(net, radio, start_app, hub):
    net.use_own()
    d = start_app(hub, network=net)
    open_network(d)
    find_networks(d, radio)
    d.tap(d.tid("network:ssid:Wrong password"))
    type_password(d, "not-the-one")
    d.tap(d.tid("network:join"))
    said = wait_status(d, "did not take that password")
    assert said.startswith(f"On its own Wi-Fi {SSID}")      # the phones' network is back
    assert radio.now.kind == "own"
    assert "Wrong password did not take that password." in said
    assert plain(d.tid("network:note")) == SCAN_STOPS_OWN     # said once, at the top
    d.check("network-dialog-refused")


def test_a_known_network_joins_without_a_password_and_can_be_forgotten(net, radio, start_app,
                                                                      hub):
    net.use_own()
    d = start_app(hub, network=net)
    open_network(d)
    find_networks(d, radio)
    d.tap(d.tid("network:ssid:Home"))
    assert not [w for w in Window.children if isinstance(w, PasswordDialog)]
    assert "The box knows it: no password needed." in " ".join(d.texts())
    assert f"Phones on {SSID} lose the table" in " ".join(d.texts())
    d.check("network-join-known")
    d.tap(d.tid("network:join"))
    wait_status(d, "On the Wi-Fi Home")
    assert radio.joins == [("Home", None)]
    assert "network:forget:Home" not in d.tids()        # not the one it is on
    d.tap(d.tid("network:own"))
    wait_status(d, f"On its own Wi-Fi {SSID}")
    d.tap(d.tid("network:forget:Home"))
    d.wait_for(lambda: "Home" not in radio.known)
    d.wait_for(lambda: "known" not in d.tid("network:ssid:Home").words)
    assert "network:forget:Home" not in d.tids()


def test_the_password_keyboard_has_both_cases_digits_and_signs(net, radio, start_app, hub):
    d = start_app(hub, network=net)
    open_network(d)
    find_networks(d, radio)
    d.tap(d.tid("network:ssid:Convention Hall 2"))
    kb = dialog(d, PasswordDialog).ids.kb
    assert {"key:a", "key:z", "key:0", "key:9", "key:-", "key:shift", "key:symbols",
            "key:space", "key:back"} <= set(d.tids())
    d.tap(d.tid("key:shift"))
    assert "key:Q" in d.tids() and "key:q" not in d.tids()      # the keys say what they type
    d.tap(d.tid("key:Q"))
    assert "key:q" in d.tids()                          # Shift is for one letter
    type_password(d, "x7 #Z~{\\}")
    assert kb.text == "Qx7 #Z~{\\}"
    d.tap(d.tid("key:back"))
    d.tap(d.tid("key:back"))
    assert kb.text == "Qx7 #Z~{"
    assert kb.page == "signs"                           # where the last sign was typed
    d.check("network-password-signs")
    d.tap(d.tid("key:letters"))
    assert "key:q" in d.tids() and "key:{" not in d.tids()
    d.tap(d.tid("network:cancel"))
    assert radio.joins == []


def test_the_country_the_sharing_and_a_new_password(net, radio, start_app, hub, tmp_path):
    net.use_own()
    d = start_app(hub, network=net)
    dlg = open_network(d)
    assert NO_COUNTRY in d.texts()
    assert plain(d.tid("network:country")) == "Wi-Fi country: not set"
    d.tap(d.tid("network:country"))
    assert {f"country:{c}" for c in ("GB", "US", "DE", "JP")} <= set(d.tids())
    d.check("network-country")
    d.tap(d.tid("country:DE"))
    d.wait_for(lambda: dlg.country == "DE")
    assert radio.country == "DE" and net.status()["country"] == "DE"
    assert json.loads((tmp_path / "wifi.json").read_text())["country"] == "DE"
    assert NO_COUNTRY not in d.texts()
    assert plain(d.tid("network:country")) == "Wi-Fi country: DE (Germany)"

    share = d.tid("network:share")
    assert plain(share) == "Off" and net.status()["share"] is False     # off by default
    d.tap(share)
    d.wait_for(lambda: net.status()["share"] is True and plain(d.tid("network:share")) == "On")
    d.tap(d.tid("network:share"))
    d.wait_for(lambda: net.status()["share"] is False and plain(d.tid("network:share")) == "Off")

    old = net.own.password
    d.tap(d.tid("network:new-password"))
    assert "must join again" in " ".join(d.texts())
    d.check("network-new-password")
    d.tap(d.tid("confirm:new-password"))
    d.wait_for(lambda: net.own.password != old and net.own.password in
               plain(d.tid("network:own-wifi")))
    wait_status(d, f"On its own Wi-Fi {SSID}")          # restarted with it
    assert radio.now.kind == "own"


def test_the_lobby_shows_the_wifi_qr_only_while_the_own_wifi_is_up(net, radio, start_app, hub):
    hub.configure("great-powers", players=4, names=["Ann", "Bo", "Cy", "Di"])
    hub.join_url = url = f"http://10.42.0.1:8080/?room={hub.room_code}"
    d = start_app(hub, network=net)
    assert d.app.screen_name == "lobby"
    assert qr_codes(d.check("lobby-no-own-wifi")) == [url]        # as before: one QR
    assert not [t for t in d.texts() if SSID in t]

    net.use_own()                                       # the box's own Wi-Fi comes up
    d.wait_for(lambda: d.app.screen("lobby").own_wifi)
    wifi = f"WIFI:T:WPA;S:{SSID};P:{net.own.password};;"
    assert qr_codes(d.check("lobby-own-wifi")) == sorted([url, wifi])
    texts = d.texts()
    assert f"1 Scan to join the Wi-Fi {SSID} \u00b7 2 then scan to join the table" in texts
    assert f"Password\n{net.own.password}" in texts
    pair = next(w for w in d.widgets() if isinstance(w, network_ui.OwnWifiPair))
    for qr in (pair.ids.wifi_qr, pair.ids.join_qr):     # each big enough to scan
        assert qr.width >= 150 and qr.height >= 150

    d.tap(d.tid("menu"))                                # the Join dialog shows the pair too
    d.tap(d.tid("menu:join"))
    assert any(isinstance(w, JoinDialog) for w in Window.children)
    assert qr_codes(d.check("join-own-wifi")) == sorted([url, wifi])
    d.tap(d.tid("join:close"))

    net.join("Home")                                    # on the venue's Wi-Fi: as before
    d.wait_for(lambda: not d.app.screen("lobby").own_wifi)
    assert qr_codes(d.check("lobby-venue-wifi")) == [url]
    assert not [t for t in d.texts() if SSID in t]
    assert not any(isinstance(w, TableMenu) for w in Window.children)



@pytest.mark.parametrize("game,players,options", [
    ("great-powers", 8, {"turns": 8}),
    ("market-trading", 6, {"end": "equal-turns"}),
    ("trade-warz", 6, {"edition": "tariff"}),
    ("battle-builder", 4, {"teams": "fixed"})])
def test_the_lobby_with_both_codes_stays_legible(game, players, options, net, start_app, hub):
    """The join panel grows for the Wi-Fi QR: the seats beside it keep every word whole."""
    hub.configure(game, players=players, options=options,
                  names=["Alexandra", "Bartholomew", "Cy", "Di", "Eve", "Fu", "Gil",
                         "Hal"][:players])
    hub.join_url = url = f"http://10.42.0.1:8080/?room={hub.room_code}"
    net.use_own()
    d = start_app(hub, network=net)
    d.wait_for(lambda: d.app.screen("lobby").own_wifi)
    wifi = f"WIFI:T:WPA;S:{SSID};P:{net.own.password};;"
    assert qr_codes(d.check(f"lobby-own-wifi-{game}")) == sorted([url, wifi])
