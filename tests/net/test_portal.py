"""The own Wi-Fi's captive portal on the table's real web server: a phone's probes, for any
host name, land on the join page until that phone takes a seat, then say "online"; the table's
own page, by its address, is untouched. (On the box the portal's address is 10.42.0.1, reached
through NetworkManager's DNS and the own Wi-Fi's port-80 redirect: tests/box/test_network.py.
Here it is the loopback, which the server sees as the own Wi-Fi's address.)"""
import http.client
import json

import pytest

from companion.net.portal import ONLINE, Portal
from companion.net.serve import TableServer

PROBES = [("connectivitycheck.gstatic.com", "/generate_204"),
          ("captive.apple.com", "/hotspot-detect.html"),
          ("www.msftconnecttest.com", "/connecttest.txt"),
          ("detectportal.firefox.com", "/canonical.html"),
          ("example.org", "/anything/at/all")]


@pytest.fixture
def table(tmp_path):
    srv = TableServer("portal", db=tmp_path / "s.db", game="great-powers", players=3,
                      bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                      public_host="127.0.0.1").start()
    srv.web.portal = Portal("127.0.0.1")
    yield srv
    srv.stop()


def request(srv, method, path, host, body=None):
    c = http.client.HTTPConnection("127.0.0.1", srv.web.port, timeout=5)
    headers = {"Host": host}
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    out = r.status, dict(r.getheaders()), r.read()
    c.close()
    return out


def test_probes_land_on_the_join_page_until_the_phone_takes_a_seat(table):
    join = f"http://127.0.0.1:{table.web.port}/?room={table.hub.room_code}"
    for host, path in PROBES:
        status, headers, body = request(table, "GET", path, host)
        assert (status, headers["Location"]) == (302, join), (host, path)
        assert join.encode() in body
    # the join page itself, by the box's address: the page, as always
    status, headers, body = request(table, "GET", "/?room=" + table.hub.room_code,
                                    f"127.0.0.1:{table.web.port}")
    assert status == 200 and b"app.js" in body
    # the phone takes a seat (the page's own POST /join) ...
    status, _, body = request(table, "POST", "/join", f"127.0.0.1:{table.web.port}",
                              json.dumps({"v": 1, "name": "Ann",
                                          "room": table.hub.room_code}).encode())
    assert status == 200, body
    # ... and now its probes say "online", in each system's own words
    for host, path in PROBES[:4]:
        status, _, body = request(table, "GET", path, host)
        assert (status, body) == ONLINE[path][:2], (host, path)
    # a page that is not a probe still leads to the table
    assert request(table, "GET", "/anything/at/all", "example.org")[0] == 302


def test_a_refused_join_does_not_open_the_portal(table):
    status, _, _ = request(table, "POST", "/join", f"127.0.0.1:{table.web.port}",
                           json.dumps({"v": 1, "name": "Eve", "room": "ZZZZ"}).encode())
    assert status in (403, 404)
    assert request(table, "GET", "/generate_204", "connectivitycheck.gstatic.com")[0] == 302


def test_off_the_own_wifi_there_is_no_portal(tmp_path):
    srv = TableServer("portal2", db=tmp_path / "s.db", game="great-powers", players=3,
                      bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                      public_host="127.0.0.1").start()
    try:                            # the default portal is 10.42.0.1's: not this address
        status, _, _ = request(srv, "GET", "/generate_204", "connectivitycheck.gstatic.com")
        assert status == 404
    finally:
        srv.stop()
