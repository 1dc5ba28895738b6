"""Coming back from the join QR over HTTP, with real phones on a real broker (issue 22;
protocol section 9.3): a player whose phone dropped out types their name and has their seat
back, the old login cut off; a seat whose phone is connected is refused; a new person chooses a
seat whose phone is offline (``table_full`` lists them, ``"seat"`` takes one)."""
import pytest

from companion.net.client import MqttClient
from companion.net.seat_client import JoinFailed, SeatClient, post_join
from companion.net.serve import TableServer
from companion.service import hub as hubmod
from ..waiting import wait_until


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setattr(hubmod.seats, "CLAIM_GRACE", 0.2)   # test-sized: a phone connects at once
    srv = TableServer("rejoin", db=tmp_path / "s.db", game="great-powers", players=3,
                      broker="embedded", bind="127.0.0.1", http_port=0, mqtt_port=0,
                      ws_port=0).start()
    srv.base = f"http://127.0.0.1:{srv.web.port}"
    phones = [SeatClient.join(srv.base, n, srv.hub.room_code, keepalive=2).connect()
              for n in ("Ann", "Bo", "Cy")]
    assert wait_until(lambda: srv.hub.session is not None
                      and all(s.online for s in srv.hub.seats), timeout=10)
    yield srv, phones
    for p in phones:
        p.close()
    srv.stop()


def refused(base, body):
    with pytest.raises(JoinFailed) as e:
        post_join(base, body)
    return e.value


def test_a_player_whose_phone_dropped_out_scans_the_join_qr_and_comes_back(table):
    srv, (ann, bo, cy) = table
    room = srv.hub.room_code
    old = dict(ann.creds)
    ann.kill()                                    # out of Wi-Fi: the Will says offline
    assert wait_until(lambda: not srv.hub.seats[0].has_phone_here(), timeout=10)
    creds = post_join(srv.base, {"name": "ann", "room": room})
    assert creds["seat"] == 0 and creds["name"] == "Ann" and creds["token"] != old["token"]
    back = SeatClient(srv.base, creds).connect()
    try:
        view = back.wait_view(lambda v: v.get("seat") == 0)
        assert view["seat"] == 0
        assert wait_until(lambda: srv.hub.seats[0].online, timeout=10)
    finally:
        back.close()
    e = refused(srv.base, {"token": old["token"]})            # the old phone wakes up
    assert (e.status, e.code) == (404, "moved")
    with pytest.raises(Exception):                             # its password is gone
        MqttClient(srv.broker.url, old["username"], old["password"]).connect(timeout=3)


def test_a_seat_whose_phone_is_connected_is_refused_as_before(table):
    srv, _ = table
    room = srv.hub.room_code
    e = refused(srv.base, {"name": "Bo", "room": room})
    assert (e.status, e.code) == (409, "name_taken")
    assert "tap your seat on the table screen" in str(e)
    e = refused(srv.base, {"name": "Dee", "room": room, "seat": 1})
    assert (e.status, e.code) == (409, "seat_taken")
    e = refused(srv.base, {"name": "Dee", "room": room})
    assert (e.status, e.code, e.seats) == (409, "table_full", [])
    for bad in ("1", True, 7, -1):
        e = refused(srv.base, {"name": "Dee", "room": room, "seat": bad})
        assert (e.status, e.code) == (400, "bad_request")


def test_a_new_person_takes_over_a_seat_whose_phone_is_offline(table):
    srv, (ann, bo, cy) = table
    room = srv.hub.room_code
    cy.kill()
    assert wait_until(lambda: not srv.hub.seats[2].has_phone_here(), timeout=10)
    e = refused(srv.base, {"name": "Dee", "room": room})
    assert (e.status, e.code) == (409, "table_full")
    assert e.seats == [{"seat": 2, "name": "Cy"}] and "Cy\u2019s phone is offline" in str(e)
    creds = post_join(srv.base, {"name": "Dee", "room": room, "seat": 2})
    assert creds["seat"] == 2 and creds["name"] == "Dee"
    bo.wait_state(lambda s: s["players"][2] == "Dee")        # every screen shows the new name


def test_the_next_game_leaves_out_the_phone_that_was_offline_and_tells_it_why(table):
    srv, (ann, bo, cy) = table
    hub = srv.hub
    old = dict(bo.creds)
    bo.kill()
    assert wait_until(lambda: not hub.seats[1].has_phone_here(), timeout=10)
    hub.end_game()
    hub.configure("great-powers", players=3)
    assert [(s.name, s.phone) for s in hub.seats] == [("Ann", True), ("Bo", False), ("Cy", True)]
    srv.bridge.wait_idle()
    state = ann.wait_state(lambda s: s.get("session") is None
                           and [x["phone"] for x in s["hub"]["seats"]] == [True, False, True])
    assert [x["name"] for x in state["hub"]["seats"]] == ["Ann", "Bo", "Cy"]
    with pytest.raises(Exception):                 # its login went with the seat's phone
        MqttClient(srv.broker.url, old["username"], old["password"]).connect(timeout=3)
    e = refused(srv.base, {"token": old["token"]})
    assert (e.status, e.code) == (404, "unknown_token")
    assert str(e) == ("This phone was offline when the table set up a new game. Tap Join to "
                      "sit down again as Bo.")
    creds = post_join(srv.base, {"name": "Bo", "room": hub.room_code})
    assert creds["seat"] == 1
