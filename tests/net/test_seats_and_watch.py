"""Seats over HTTP (issue 10): a seat handed over to a new phone with a one-seat code (the old
phone's login stops working and its reclaim says the seat moved), renames from a phone, and the
spectator stream `/watch/state` (the public state, nothing private, after every change)."""
import http.client
import json
import time

import pytest

from companion.net.client import MqttClient
from companion.net.seat_client import JoinFailed, post_join
from companion.net.serve import TableServer
from ..waiting import wait_until


@pytest.fixture
def table(tmp_path):
    srv = TableServer("seats", db=tmp_path / "s.db", game="great-powers", players=3,
                      bind="0.0.0.0", http_port=0, mqtt_port=0, ws_port=0).start()
    srv.base = f"http://127.0.0.1:{srv.web.port}"
    yield srv
    srv.stop()


def post(base, path, obj):
    host, port = base.split("//")[1].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=5)
    c.request("POST", path, body=json.dumps(obj).encode(),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    out = r.status, json.loads(r.read() or b"{}")
    c.close()
    return out


def test_handover_moves_the_seat_and_cuts_the_old_phone_off(table):
    room = table.hub.room_code
    old = post_join(table.base, {"name": "Dan", "room": room})
    status, body = post(table.base, "/join", {"v": 1, "name": "dan", "room": room})
    assert status == 409 and body["error"]["code"] == "name_taken"
    assert "tap your seat on the table screen" in body["error"]["message"]
    h = table.hub.handover(old["seat"])
    assert h["url"].endswith(f"/?seat={h['code']}")
    new = post_join(table.base, {"handover": h["code"]})
    assert new["seat"] == old["seat"] and new["token"] != old["token"]
    assert new["name"] == "Dan"
    with pytest.raises(JoinFailed) as e:                   # the dead phone comes back
        post_join(table.base, {"token": old["token"]})
    assert e.value.status == 404 and e.value.code == "moved"
    assert "moved to another phone" in str(e.value)
    c = MqttClient(table.broker.url, old["username"], old["password"])
    with pytest.raises(Exception):                          # its old password is gone
        c.connect(timeout=3)
    with pytest.raises(JoinFailed) as e:
        post_join(table.base, {"handover": h["code"]})     # single use
    assert e.value.code == "unknown_code"


def test_rename_from_a_phone(table):
    room = table.hub.room_code
    a = post_join(table.base, {"name": "Ann", "room": room})
    post_join(table.base, {"name": "Bo", "room": room})
    status, body = post(table.base, "/rename", {"v": 1, "token": a["token"], "name": " Annie "})
    assert status == 200 and body == {"v": 1, "ok": True, "seat": 0, "name": "Annie"}
    assert table.hub.seats[0].name == "Annie"
    status, body = post(table.base, "/rename", {"v": 1, "token": a["token"], "name": "bo"})
    assert status == 409 and body["error"]["code"] == "name_taken"
    status, body = post(table.base, "/rename", {"v": 1, "token": "nope", "name": "X"})
    assert status == 404 and body["error"]["code"] == "unknown_token"
    status, body = post(table.base, "/rename", {"v": 1, "token": a["token"],
                                                "name": "A\u202eB"})
    assert status == 400 and body["error"]["message"].endswith(".")


def read_events(resp, want, timeout=8.0):
    """Parse SSE `state` events from a streaming response until ``want(doc)`` is true."""
    buf = b""
    end = time.monotonic() + timeout
    docs = []
    resp.fp.raw._sock.settimeout(timeout)
    while time.monotonic() < end:
        line = resp.fp.readline()
        if not line:
            break
        buf += line
        if line == b"\n":
            block, buf = buf, b""
            data = [x[6:] for x in block.split(b"\n") if x.startswith(b"data: ")]
            if data:
                doc = json.loads(b"".join(data))
                docs.append(doc)
                if want(doc):
                    return docs
    raise AssertionError(f"no matching state in {len(docs)} events")


def test_watch_streams_the_public_state_and_nothing_private(table):
    room = table.hub.room_code
    joins = [post_join(table.base, {"name": n, "room": room}) for n in ("Ann", "Bo", "Cy")]
    assert wait_until(lambda: table.hub.session is not None)
    host, port = table.base.split("//")[1].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    c.request("GET", "/watch/state")
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")
    first = read_events(r, lambda d: d.get("phase") == "bid")[-1]
    assert first["players"] == ["Ann", "Bo", "Cy"] and "rev" in first
    table.hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    docs = read_events(r, lambda d: d.get("rev", 0) > first["rev"])
    text = json.dumps(docs)
    locked = [e for d in docs for w in d["windows"] if not w["revealed"]
              for e in w["locked"].values()]
    assert locked and all("choice" not in e and "salt" not in e for e in locked)
    for j in joins:
        assert j["token"] not in text and j["password"] not in text
    assert all("private" not in d and "legal" not in d for d in docs)
    c.close()
