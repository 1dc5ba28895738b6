"""A phone that drops off Wi-Fi: how long until the table says so (protocol section 12: "within
about 3 s"), per broker.

A real table (TableServer: hub, bridge, broker, web server) for 8 seats; 8 phones join over
HTTP and connect over MQTT WebSockets with the phone page's keepalive (2 s), each in a process
of its own. Then one phone after another is stopped with SIGSTOP, ``spacing`` seconds apart:
its TCP connection goes silent without a FIN, as a phone's does when it loses Wi-Fi. For each,
the time from the stop to ``hub.seats[i].online`` turning False (what the table screen's
"Phone disconnected" follows) and to the public ``state`` topic saying offline (read by an
unseated login, as any phone reads it).

The stops are spread over 6 s on purpose: mosquitto 2.0 checks keepalives in one sweep every
6 s, so stops at one moment would all see the same phase of that sweep (a fresh broker per
trial, stopped at the same offset each time, hides the problem; companion.net.silence).
On mosquitto it runs twice: with the hub's silence watch, and without it (``watch off``: the
broker's own keepalive check alone, as before the watch).

Run: .venv/bin/python benches/bench_presence.py [--phones N] [--modes embedded,mosquitto]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from companion.net import credentials as cred                  # noqa: E402
from companion.net.client import MqttClient                    # noqa: E402
from companion.net.seat_client import post_join               # noqa: E402
from companion.net.serve import TableServer                    # noqa: E402
from companion.net.silence import SilenceWatch                 # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The phone page's MQTT keepalive (ui/web/js/state.js KEEPALIVE).
KEEPALIVE = 2
#: A phone in a process of its own: joins with the given answer of POST /join, connects over
#: WebSockets with the page's keepalive and Last Will, says "ready", then idles (paho pings).
PHONE = """
import json, sys, time
from companion.net.seat_client import SeatClient
SeatClient(sys.argv[2], json.loads(sys.argv[1]), keepalive=int(sys.argv[3])).connect()
print("ready", flush=True)
while True:
    time.sleep(60)
"""


def _wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError(f"{what} not within {timeout} s")
        time.sleep(0.01)


def silent_phones(mode: str, db, phones: int = 8, spacing: float = 0.75,
                  keepalive: int = KEEPALIVE, give_up: float = 20.0, watch: bool = True) -> dict:
    """Stop ``phones`` phones one after another; ``{"hub": [s...], "state": [s...],
    "others_online": bool}``: seconds from each stop to the hub and the public state saying
    that seat is offline (None: not within ``give_up``), and whether the seats not yet stopped
    stayed online all along (nobody idle but alive is called offline). ``watch=False``: the
    hub's silence watch off (the broker's own keepalive check alone)."""
    opts = {"binary": "/usr/sbin/mosquitto"} if mode == "mosquitto" else {}
    if not watch:
        SilenceWatch.available = lambda self: False     # this process only: the "before"
    try:
        return _silent_phones(mode, db, phones, spacing, keepalive, give_up, opts)
    finally:
        if not watch:
            del SilenceWatch.available                  # the class's own again


def _silent_phones(mode, db, phones, spacing, keepalive, give_up, opts):
    srv = TableServer("presence", db=db, game="great-powers", players=phones, broker=mode,
                      bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                      broker_options=opts, seed=1, start="manual").start()
    procs, watcher = [], None
    try:
        base = f"http://127.0.0.1:{srv.web.port}"
        state = {}
        # an unseated login reads the public state like any phone (the wall lets every seat
        # login read it)
        eye = cred.seat_credential(cred.new_seat_id(99))
        srv.broker.add_user(eye.username, eye.password)
        watcher = MqttClient(srv.broker.url, eye.username, eye.password,
                             on_message=lambda m: state.__setitem__("doc", json.loads(m.payload)))
        watcher.connect()
        watcher.subscribe([(srv.bridge.topics.state, 1)])
        for n in range(phones):
            creds = post_join(base, {"name": f"Phone {n + 1}", "room": srv.hub.room_code})
            p = subprocess.Popen([sys.executable, "-c", PHONE, json.dumps(creds), base,
                                  str(keepalive)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
            procs.append(p)
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a phone did not connect")

        def online(n):
            doc = state.get("doc")
            return doc is not None and doc["hub"]["seats"][n]["online"]

        _wait(lambda: all(s.online for s in srv.hub.seats) and all(map(online, range(phones))),
              15, "every phone online")
        time.sleep(1.5)                     # the state's once-a-second limit is not in play
        hub_at, state_at, stopped = {}, {}, {}
        others_online = True
        start = time.monotonic()
        while len(hub_at) < phones or len(state_at) < phones:
            now = time.monotonic()
            due = int((now - start) // spacing) + 1
            for n in range(len(stopped), min(due, phones)):
                stopped[n] = time.monotonic()
                os.kill(procs[n].pid, signal.SIGSTOP)
            for n, t in stopped.items():
                if n not in hub_at and not srv.hub.seats[n].online:
                    hub_at[n] = time.monotonic() - t
                if n not in state_at and not online(n):
                    state_at[n] = time.monotonic() - t
            if any(not srv.hub.seats[n].online for n in range(phones) if n not in stopped):
                others_online = False
            if stopped and now - max(stopped.values()) > give_up:
                break
            time.sleep(0.005)
        return {"hub": [hub_at.get(n) for n in range(phones)],
                "state": [state_at.get(n) for n in range(phones)],
                "others_online": others_online}
    finally:
        for p in procs:
            p.kill()                        # SIGKILL ends a stopped process too
            p.wait()
            p.stdout.close()
        if watcher is not None:
            watcher.close()
        srv.stop()


def describe(values) -> str:
    got = sorted(v for v in values if v is not None)
    lost = len(values) - len(got)
    if not got:
        return "never"
    text = f"p50 {statistics.median(got):.2f} s, max {got[-1]:.2f} s (n={len(got)})"
    return text + (f", {lost} not within the limit" if lost else "")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--phones", type=int, default=8, help="phones stopped (2-8, default 8)")
    ap.add_argument("--modes", default="embedded,mosquitto")
    ap.add_argument("--quick", action="store_true", help="(the same: it takes ~15 s a mode)")
    a = ap.parse_args(argv)
    out = {}
    runs = [(m, True) for m in a.modes.split(",")]
    if "mosquitto" in a.modes.split(","):
        runs.append(("mosquitto", False))
    for mode, watch in runs:
        with tempfile.TemporaryDirectory() as tmp:
            r = silent_phones(mode, os.path.join(tmp, "s.db"), phones=a.phones, watch=watch)
        label = mode if watch else f"{mode} (watch off)"
        out[label] = r
        print(f"{label}: SIGSTOP -> hub says offline: {describe(r['hub'])}")
        print(f"{label}: SIGSTOP -> public state says offline: {describe(r['state'])}")
        print(f"{label}:   each (s): hub {[round(v, 2) if v else v for v in r['hub']]}, "
              f"state {[round(v, 2) if v else v for v in r['state']]}; idle phones kept "
              f"online: {r['others_online']}", flush=True)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
