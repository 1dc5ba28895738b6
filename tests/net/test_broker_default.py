"""The broker a table runs when nobody says which (issue 15): ``auto`` is mosquitto when it is
installed (faster round trips and fan-out, measured by benches/bench_broker.py and
bench_hub.py, and out of the hub's process) and the embedded broker otherwise (nothing to
install). `companion serve` and `companion run` default to it."""
import argparse
import json
import os
import signal
import subprocess
import sys

from companion.cli.commands import run as run_cmd
from companion.cli.commands import serve as serve_cmd
from companion.net import brokers
from companion.net.brokers import EmbeddedBroker, MosquittoBroker, free_ports
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOWHERE = "/nonexistent/sbin/mosquitto"


def test_auto_is_mosquitto_where_it_is_installed_else_the_embedded_broker():
    assert brokers.mosquitto_available()                 # this machine has it installed
    assert brokers.auto_mode() == "mosquitto"
    assert isinstance(brokers.make_broker("auto"), MosquittoBroker)
    assert isinstance(brokers.make_broker(), MosquittoBroker)
    assert not brokers.mosquitto_available(NOWHERE)
    assert brokers.auto_mode(NOWHERE) == "embedded"
    assert isinstance(brokers.make_broker("auto", binary=NOWHERE), EmbeddedBroker)


def test_serve_and_run_default_to_auto():
    for module in (serve_cmd, run_cmd):
        ap = argparse.ArgumentParser()
        module.register(ap.add_subparsers())
        name = "serve" if module is serve_cmd else "run"
        args = ap.parse_args([name, "--table", "t"] if name == "serve" else [name])
        assert args.broker == "auto", name


def test_a_table_without_mosquitto_falls_back_to_the_embedded_broker(tmp_path):
    srv = TableServer("fallback", db=tmp_path / "s.db", game="great-powers", players=3,
                      bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                      broker_options={"binary": NOWHERE}).start()
    try:
        assert srv.broker.mode == "embedded"
        phone = SeatClient.join(f"http://127.0.0.1:{srv.web.port}", "Ann",
                                srv.hub.room_code).connect()
        try:
            assert phone.wait_view(lambda v: v.get("seat") == 0)["hub"]["seats"][0]["phone"]
        finally:
            phone.close()
    finally:
        srv.stop()


def test_companion_serve_runs_mosquitto_by_default(tmp_path):
    ports = free_ports(3)
    cmd = [sys.executable, "-m", "companion.cli.main", "serve", "--table", "default",
           "--db", str(tmp_path / "s.db"), "--game", "great-powers", "--players", "3",
           "--bind", "127.0.0.1", "--host", "127.0.0.1", "--http-port", str(ports[0]),
           "--mqtt-port", str(ports[1]), "--ws-port", str(ports[2])]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    try:
        said = []
        for line in proc.stdout:
            said.append(line)
            if line.startswith("{"):
                ready = json.loads(line)
                break
        assert ready["mqtt_port"] == ports[1]
        assert any("(mosquitto broker)" in x for x in said), said
        base = f"http://127.0.0.1:{ports[0]}"
        phone = SeatClient.join(base, "Ann", ready["room"]).connect()
        try:
            assert phone.wait_view(lambda v: v.get("seat") == 0)["hub"]["table"] == "default"
        finally:
            phone.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_free_ports_are_different_and_one_port_for_both_listeners_is_refused_in_words():
    import pytest

    from companion.net.brokers import BrokerError
    ports = free_ports(3, "127.0.0.1")
    assert len(set(ports)) == 3
    with pytest.raises(BrokerError, match="same port"):
        MosquittoBroker(tcp_port=ports[0], ws_port=ports[0]).start()
