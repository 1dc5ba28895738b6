"""The box's own network (companion.net.wifi): the own Wi-Fi's name, password and QR; the boot's
fallback on a clock of our own; the Menu's actions and what the screen is told, on the
simulated backend. NetworkManager itself is proven on arm64 with simulated radios
(tests/box/test_network.py)."""
import doctest
import importlib
import json
import os
import stat
import threading

import pytest

from companion.net.wifi import Network, NetworkError, OwnWifi, SimulatedWifi, box_ssid, wifi_qr


@pytest.mark.parametrize("name", ["companion.net.wifi.own", "companion.net.wifi.manager",
                                  "companion.net.wifi.nm"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_the_own_wifi_is_made_once_and_kept_private(tmp_path):
    own = OwnWifi(tmp_path, "machine-a")
    assert own.ssid == box_ssid("machine-a") and own.ssid.startswith("Table-")
    assert len(own.ssid) == 10 and box_ssid("machine-b") != own.ssid
    assert 8 <= len(own.password) <= 63
    again = OwnWifi(tmp_path, "machine-a")
    assert (again.ssid, again.password) == (own.ssid, own.password)
    mode = stat.S_IMODE(os.stat(tmp_path / "wifi.json").st_mode)
    assert mode == 0o600, oct(mode)
    old = own.password
    assert own.renew_password() != old
    assert json.loads((tmp_path / "wifi.json").read_text())["password"] == own.password
    assert own.qr == f"WIFI:T:WPA;S:{own.ssid};P:{own.password};;"
    assert own.country is None and own.share is False


def test_wifi_qr_escapes_what_the_format_reserves():
    assert wifi_qr("a;b", "p:w\\") == "WIFI:T:WPA;S:a\\;b;P:p\\:w\\\\;;"


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def wait(fn, timeout=10.0):
    ev = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if fn():
            return True
        ev.wait(0.02)
    return False


def test_no_known_network_in_30_s_brings_the_own_wifi_up(tmp_path, monkeypatch):
    import companion.net.wifi.manager as m
    monkeypatch.setattr(m, "POLL_S", 0.01)
    clock = Clock()
    net = Network(SimulatedWifi(), tmp_path, clock=clock, machine_id="box")
    seen = []
    net.on_change(lambda n: seen.append(n.status()["said"]))
    net.start()
    try:
        assert wait(lambda: any("own Wi-Fi in 30 s" in s for s in seen))
        assert net.link.kind == "none" and net.address() is None
        clock.t = 30.0
        assert wait(lambda: net.link.kind == "own")
        st = net.status()
        assert st["own"]["up"] and st["address"] == "10.42.0.1" and net.address() == "10.42.0.1"
        assert st["said"] == f"On its own Wi-Fi {net.own.ssid}: phones join it first, then the table."
    finally:
        net.stop()


def test_a_known_network_at_boot_keeps_the_own_wifi_down(tmp_path, monkeypatch):
    import companion.net.wifi.manager as m
    monkeypatch.setattr(m, "POLL_S", 0.01)
    backend = SimulatedWifi()
    backend.join("Home", None)                  # NetworkManager joined it by itself
    clock = Clock()
    net = Network(backend, tmp_path, clock=clock, machine_id="box")
    net.start()
    try:
        assert wait(lambda: net.link.kind == "wifi")
        clock.t = 100.0
        assert not wait(lambda: net.link.kind == "own", timeout=0.3)
        assert net.status()["said"] == "On the Wi-Fi Home (192.168.7.20)."
    finally:
        net.stop()


def test_join_choose_and_fail_are_said(tmp_path):
    backend = SimulatedWifi(known=())
    net = Network(backend, tmp_path, machine_id="box")
    net.use_own()
    assert net.link.kind == "own"
    with pytest.raises(NetworkError, match="needs its password"):
        net.join("Home", "")
    # a failed join puts the phones' network back
    assert net.link.kind == "own" and "needs its password" in net.status()["error"]
    net.join("Home", "correct horse")
    assert net.link.kind == "wifi" and net.status()["error"] is None
    assert [n.ssid for n in backend.scan() if n.known] == ["Home"]
    net.forget("Home")
    assert net.link.known == []


def test_submit_runs_off_the_calling_thread_and_says_errors(tmp_path):
    net = Network(SimulatedWifi(), tmp_path, machine_id="box")
    results = []
    done = threading.Event()
    net.submit("set_country", "gbr", done=lambda err: (results.append(err), done.set()))
    assert done.wait(5)
    assert "not a country code" in results[0]
    done.clear()
    net.submit("set_country", "gb", done=lambda err: (results.append(err), done.set()))
    assert done.wait(5) and results[1] is None and net.own.country == "GB"
    assert OwnWifi(tmp_path, "box").country == "GB"        # kept for the root helper


def test_a_new_password_restarts_the_own_wifi(tmp_path):
    net = Network(SimulatedWifi(), tmp_path, machine_id="box")
    net.use_own()
    old = net.own.qr
    net.renew_password()
    assert net.own.qr != old and net.link.kind == "own"


class Flaky(SimulatedWifi):
    """A radio that is not ready for the first own Wi-Fi (as a Pi's right after its
    wpa_supplicant was installed)."""

    def __init__(self):
        super().__init__(known=())
        self.tries = 0

    def own_up(self, ssid, password):
        self.tries += 1
        if self.tries == 1:
            raise NetworkError("The box's own Wi-Fi did not start: No suitable device found.")
        return super().own_up(ssid, password)


def test_an_own_wifi_that_did_not_start_is_tried_again_and_said(tmp_path, monkeypatch):
    import companion.net.wifi.manager as m
    monkeypatch.setattr(m, "POLL_S", 0.01)
    clock = Clock()
    backend = Flaky()
    net = Network(backend, tmp_path, clock=clock, machine_id="box")
    net.start()
    try:
        clock.t = 30.0
        assert wait(lambda: backend.tries == 1 and net.status()["error"])
        assert "did not start" in net.status()["error"] and net.link.kind == "none"
        assert net._thread.is_alive()                    # the thread goes on
        clock.t = 30.0 + m.RETRY_S
        assert wait(lambda: net.link.kind == "own")
        assert backend.tries == 2 and net.status()["error"] is None
    finally:
        net.stop()


def test_a_venue_wifi_that_goes_away_falls_back_to_the_own_wifi(tmp_path, monkeypatch):
    import companion.net.wifi.manager as m
    monkeypatch.setattr(m, "POLL_S", 0.01)
    backend = SimulatedWifi()
    backend.join("Home", None)
    clock = Clock()
    net = Network(backend, tmp_path, clock=clock, machine_id="box")
    net.start()
    try:
        assert wait(lambda: net.link.kind == "wifi")
        backend.now = type(backend.now)()                # Home went out of reach
        assert wait(lambda: net.status()["waiting_s"] == 30)
        clock.t += 30.0
        assert wait(lambda: net.link.kind == "own")
    finally:
        net.stop()


def test_the_join_address_is_where_the_phones_are(tmp_path):
    from companion.net.wifi.backends import Link
    net = Network(SimulatedWifi(), tmp_path, machine_id="box", lan_ip=lambda: "10.0.2.15")
    net.link = Link("own", "Table-X", "10.42.0.1", ethernet="10.0.2.15")
    assert net.address() == "10.42.0.1"
    net.link = Link("wifi", "CafeNet", "192.168.50.42", ethernet="10.0.2.15")
    assert net.address() == "192.168.50.42"          # not the cable's default route
    net.link = Link("ethernet", ethernet="10.0.2.15")
    assert net.address() == "10.0.2.15"
    net.link = Link()
    assert net.address() == "10.0.2.15"
