"""A dead mosquitto child (issue 11, item 7): the table notices within a few seconds and says
so, `/join` refuses without taking a seat and without showing internals while it is down, the
broker comes back on the same ports with the same logins, and the hub and the phones reconnect
by themselves."""
import os
import signal
import time

import pytest

from companion.net.brokers import find_mosquitto
from companion.net.client import MqttClient
from companion.net.seat_client import JoinFailed, SeatClient, post_join
from companion.net.serve import TableServer
from ..waiting import wait_until


def test_a_dead_mosquitto_is_noticed_restarted_and_the_table_plays_on(tmp_path):
    find_mosquitto(None)                       # installed by table.sh for the tests
    srv = TableServer("sup", db=tmp_path / "s.db", game="great-powers", players=3,
                      broker="mosquitto", start="now", seed=3, bind="127.0.0.1",
                      http_port=0, mqtt_port=0, ws_port=0).start()
    base = f"http://127.0.0.1:{srv.web.port}"
    try:
        broker = srv.broker
        broker.restart_delay = 3.0             # a window to try /join while it is down
        ann = SeatClient.join(base, "Ann", srv.hub.room_code).connect()
        ann.wait_view(lambda v: v.get("prompt"))
        ports = (broker.tcp_port, broker.ws_port)
        seen = []
        srv.hub.subscribe(lambda e: seen.append(e) if e.get("kind") == "alert" else None)
        t0 = time.monotonic()
        os.kill(broker.pid, signal.SIGKILL)
        assert wait_until(lambda: any(a["key"] == "broker" for a in srv.hub.alerts), 5)
        assert time.monotonic() - t0 < 5
        assert "restarting" in [a for a in srv.hub.alerts if a["key"] == "broker"][0]["message"]
        with pytest.raises(JoinFailed) as e:
            post_join(base, {"name": "Bo", "room": srv.hub.room_code})
        assert e.value.status == 503 and e.value.code == "unavailable"
        assert "mosquitto" not in str(e.value).lower() and "|" not in str(e.value)
        assert sum(s.token_hash is not None for s in srv.hub.seats) == 1   # no seat taken
        assert wait_until(broker.alive, 15)
        assert (broker.tcp_port, broker.ws_port) == ports and broker.restarts == 1
        assert wait_until(lambda: not any(a["key"] == "broker" for a in srv.hub.alerts), 5)
        assert any("back" in (e.get("message") or "") for e in seen)
        # the hub reconnected by itself and republished; a phone's old login still works
        assert wait_until(lambda: srv.bridge.stats["reconnects"] >= 1, 10)
        again = MqttClient(broker.url, ann.creds["username"], ann.creds["password"]).connect()
        again.close()
        bo = SeatClient.join(base, "Bo", srv.hub.room_code).connect()
        assert bo.wait_view(lambda v: v.get("seat") == 1)
        ann.close(), bo.close()
    finally:
        srv.stop()
