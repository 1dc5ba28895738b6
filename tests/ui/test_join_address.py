"""The join QR follows the network, with no restart: a table switched on before its Wi-Fi says
"No network yet" instead of a 127.0.0.1 code; when the address comes (the server's address
source switched to 10.1.2.3) the lobby's QR, the Join QR dialog and an open seat handover QR
decode to the new address. A real TableServer (embedded broker) under the real screen."""
from urllib.parse import parse_qs, urlsplit

import pytest
from PIL import Image
from pyzbar.pyzbar import decode

from companion.net.serve import TableServer
from ui.model import NO_NETWORK
from ui.widgets.menu import HandoverDialog, JoinDialog


class Network:
    def __init__(self, ip):
        self.ip = ip

    def __call__(self):
        return self.ip


@pytest.fixture
def table(tmp_path):
    net = Network("127.0.0.1")
    srv = TableServer("addr", db=tmp_path / "a.db", game="great-powers", players=4,
                      broker="embedded", http_port=0, mqtt_port=0, ws_port=0, start="manual",
                      address_source=net, address_poll=3600.0)   # polled by hand below
    srv.start()
    srv.net = net
    yield srv
    srv.stop()


def qr_codes(path):
    return [c.data.decode() for c in decode(Image.open(path))]


def move_to(d, srv, ip):
    srv.net.ip = ip
    assert srv.check_address()
    url = f"http://{ip}:{srv.web.port}/?room={srv.hub.room_code}"
    assert srv.join_url == url
    d.wait_for(lambda: (d.app.view.get("hub") or {}).get("join_url") == url)
    return url


def test_the_lobby_says_no_network_then_shows_the_new_address(table, start_app):
    d = start_app(table.hub, address_feed=table.on_address)
    assert d.app.screen_name == "lobby"
    assert NO_NETWORK in d.texts()
    assert not [t for t in d.texts() if "127.0.0.1" in t]
    assert qr_codes(d.check("lobby-no-network")) == []            # no useless code
    url = move_to(d, table, "10.1.2.3")                            # the Wi-Fi is up
    assert NO_NETWORK not in d.texts() and url in [t.replace("\n", "") for t in d.texts()]
    assert qr_codes(d.check("lobby-network-up")) == [url]


def test_the_join_and_handover_dialogs_follow_the_address_while_open(table, start_app):
    hub = table.hub
    d = start_app(hub, address_feed=table.on_address)
    d.tap(d.tid("seat:0"))
    d.tap(d.tid("seat:handover"))
    dlg = next(w for w in d.tops() if isinstance(w, HandoverDialog))
    code = parse_qs(urlsplit(dlg.url).query)["seat"][0]
    assert NO_NETWORK in d.texts() and qr_codes(d.check("handover-no-network")) == []
    move_to(d, table, "10.1.2.3")
    want = f"http://10.1.2.3:{table.web.port}/?seat={code}"       # the same one-seat code
    assert dlg.url == want and NO_NETWORK not in d.texts()
    assert qr_codes(d.check("handover-network-up")) == [want]
    d.tap(d.tid("handover:cancel"))
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:join"))
    assert any(isinstance(w, JoinDialog) for w in d.tops())
    url = move_to(d, table, "192.168.1.40")                        # a new lease, dialog open
    assert qr_codes(d.check("join-dialog-moved")) == [url]
    move_to(d, table, "127.0.0.1")                                 # the Wi-Fi went away
    assert NO_NETWORK in d.texts() and qr_codes(d.shot("join-dialog-no-network")) == []


def test_a_loopback_address_given_with_host_is_a_choice_and_shows_its_qr(tmp_path, start_app):
    # phones on this very machine (a test night, a demo): --host 127.0.0.1 is meant, not "no
    # network yet", so the QR is there
    srv = TableServer("given", db=tmp_path / "g.db", game="great-powers", players=4,
                      broker="embedded", http_port=0, mqtt_port=0, ws_port=0, start="manual",
                      public_host="127.0.0.1", address_source=Network("10.9.9.9"))
    srv.start()
    try:
        assert srv.hub.public_view()["hub"]["join_offline"] is False
        d = start_app(srv.hub, address_feed=srv.on_address)
        assert NO_NETWORK not in d.texts()
        assert qr_codes(d.check("lobby-given-loopback")) == [srv.join_url]
        assert srv.join_url.startswith("http://127.0.0.1:")
    finally:
        srv.stop()


@pytest.mark.parametrize("url", ["http://10.0.2.15:8080/?room=XFLAPA",
                                 "http://192.168.100.200:54321/?room=XFLAPA",
                                 "http://table-companion.local:65535/j/XFLAPA?room=XFLAPA"])
def test_the_lobby_shows_the_whole_join_address_port_and_all(hub, start_app, url):
    """Issue 22: the link under the lobby's QR was shortened in its middle
    ("http://10.0.2.15:...?room=X"), so a phone that cannot scan could not type it. It is
    shown whole: on one line when it fits, else broken after host:port, never shortened."""
    from ui.widgets.common import AddressLabel
    hub.join_url = url
    d = start_app(hub)
    d.app.go_home()
    d.tap(d.tid("home:setup"))
    d.wait_for(lambda: d.app.screen_name == "lobby")
    d.app.refresh()
    d.pump()
    shown = [w for w in d.widgets(AddressLabel) if w.text]
    assert len(shown) == 1
    w = shown[0]
    assert w.text.replace("\n", "") == url
    host_port = url.split("/")[2]
    assert any(host_port in line for line in w.text.split("\n"))     # never cut in two
    assert not w.is_shortened and not w.shorten
    assert float(w.font_size) >= 18 * d.app.u
    assert d.check(f"lobby-address-{len(url)}") and d.problems() == []
