"""A phone on a Wi-Fi network, inside the box VM (tests/box/test_box.py, the own network): run in
the network namespace that holds one simulated radio (mac80211_hwsim), after wpa_supplicant
associated and DHCP gave it an address and a DNS server (its resolv.conf is that namespace's).

    wifi_phone.py probe OUT                 the captive-portal probes, as Android and iOS ask
    wifi_phone.py play BASE ROOM NAME OUT   join a seat, probe again, lock in a sealed move
                                            when the seat has one, stay seated until killed
    wifi_phone.py reclaim BASE TOKEN OUT    take a seat back with its token (a phone on
                                            another network), make its next move, stay

Each step is one JSON line in OUT. Runs with the table's own venv (its protocol client)."""
import http.client
import json
import random
import socket
import sys
import time
import urllib.parse

PROBES = [("connectivitycheck.gstatic.com", "/generate_204"),
          ("captive.apple.com", "/hotspot-detect.html")]


def note(out, **kw):
    with open(out, "a") as f:
        f.write(json.dumps({"t": round(time.monotonic(), 2), **kw}) + "\n")


def get(host, path, port=80):
    addr = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
    c = http.client.HTTPConnection(addr, port, timeout=20)
    c.request("GET", path, headers={"Host": host, "User-Agent": "CaptiveNetworkSupport"})
    r = c.getresponse()
    out = {"host": host, "path": path, "resolved": addr, "status": r.status,
           "location": r.getheader("Location"), "body": r.read().decode("latin-1")}
    c.close()
    return out


def probe(out):
    for host, path in PROBES:
        answer = get(host, path)
        note(out, step="probe", **{**answer, "body": answer["body"][:200]})


def play(base, room, name, out):
    from companion.net.seat_client import SeatClient, post_join
    u = urllib.parse.urlsplit(base)
    page = get(u.hostname, "/?room=" + room, u.port)
    note(out, step="page", status=page["status"], app="app.js" in page["body"] or None)
    t0 = time.monotonic()
    creds = post_join(base, {"name": name, "room": room}, timeout=90)
    seat = SeatClient(base, creds)
    seat.connect()
    note(out, step="seated", seat=creds.get("seat"), token=creds.get("token"),
         ws=creds.get("ws_url"), join_s=round(time.monotonic() - t0, 1))
    probe(out)
    move_and_stay(seat, out)


def move_and_stay(seat, out):
    from companion.net.seat_client import any_legal_move
    rng = random.Random(7)
    view = seat.wait_view(lambda v: bool(v.get("legal")), timeout=1800)
    move = any_legal_move(view, rng)
    answer = seat.send(*move, timeout=120)
    note(out, step="moved", move=move[0], ok=answer.get("ok"))
    while True:                         # seated and online, as a phone on the table
        time.sleep(5)


def reclaim(base, token, out):
    from companion.net.seat_client import SeatClient
    t0 = time.monotonic()
    seat = SeatClient(base, {"token": token})
    seat.reclaim()
    seat.connect()
    note(out, step="seated", seat=seat.seat, ws=seat.creds.get("ws_url"),
         join_s=round(time.monotonic() - t0, 1))
    move_and_stay(seat, out)


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        probe(sys.argv[2])
    elif sys.argv[1] == "reclaim":
        reclaim(*sys.argv[2:5])
    else:
        play(*sys.argv[2:6])
