"""A broker outage on the console of `companion serve`: mosquitto killed under a running table
is one sentence (no traceback), and the table recovers by itself (a seat's command is answered
after)."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

from companion.net.brokers import free_ports
from companion.net.seat_client import SeatClient
from ..teardown import close_all
from ..waiting import wait_until
from .test_children_die import listening, mosquitto_children

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_killed_mosquitto_is_one_sentence_on_the_console_and_the_table_recovers(tmp_path):
    ports = free_ports(3, "127.0.0.1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "serve", "--table", "outage",
         "--db", str(tmp_path / "s.db"), "--game", "great-powers", "--players", "3", "--quiet",
         "--broker", "mosquitto", "--bind", "127.0.0.1", "--host", "127.0.0.1",
         "--http-port", str(ports[0]), "--mqtt-port", str(ports[1]),
         "--ws-port", str(ports[2])],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True)
    err_lines = []
    phones = []
    try:
        for line in proc.stdout:
            if line.startswith("{"):
                info = json.loads(line)
                break
        else:
            raise AssertionError(f"serve did not start: {proc.stderr.read()}")
        reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)
        reader.start()
        base = f"http://127.0.0.1:{ports[0]}"
        phones = [SeatClient.join(base, n, info["room"]).connect() for n in ("Ann", "Bo", "Cy")]
        ann = phones[0]
        view = ann.wait_view(lambda v: v.get("prompt") is not None)
        child = wait_until(lambda: (mosquitto_children(proc.pid) or [None])[0],
                           what="serve's mosquitto child")
        time.sleep(1.5)              # no public state in the last second: the alert's goes now
        os.kill(child, signal.SIGKILL)
        wait_until(lambda: [p for p in mosquitto_children(proc.pid) if p != child and
                            listening(p, ports[1]) and listening(p, ports[2])], 20,
                   what="the restarted mosquitto")
        for p in phones:             # the phones connect again with the same logins
            p.client.kill()
            p.connect()
        prompt = view["prompt"]
        args = {"traits": prompt["allowed"][:prompt["count"]]}
        reply = None
        for _ in range(10):          # as the phone page does: the same tx until answered
            try:
                reply = ann.send("submit_bids", args, tx="after-the-outage", timeout=2)
                break
            except TimeoutError:
                continue
        assert reply is not None and reply["ok"], reply
    finally:
        close_all(phones, "a phone")
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    reader.join(5)
    err = "".join(err_lines)
    assert "Traceback" not in err, err
    said = [line for line in err_lines if "cannot reach its message broker" in line]
    assert len(said) == 1, err
    assert said[0].strip().endswith("(it is restarted by itself).")
