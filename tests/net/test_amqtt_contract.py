"""The embedded broker's hold on amqtt's private parts (companion.net.amqtt_glue): the version
check passes on the installed amqtt and refuses another with a sentence that says what to do;
every private method we replace or call exists with the parameters we rely on; and each patch
does its job on a real embedded broker (a client that vanishes is dropped and its Will fires,
an oversized publish is dropped, retained messages go only to who asked and may read them, a
subscribe while a message is being delivered loses nothing). The same behaviours are checked on
mosquitto by test_broker_contract.py, so both brokers keep one wall."""
import inspect
import itertools
import socket
import threading

import pytest

from companion.net import amqtt_glue, brokers, protocol
from companion.net import credentials as cred
from companion.net.client import MqttClient
from companion.net.topics import TableTopics


def test_the_installed_amqtt_is_the_tested_one_and_passes_the_check():
    assert amqtt_glue.installed_version() in amqtt_glue.TESTED_VERSIONS
    assert amqtt_glue.problems() == []
    assert amqtt_glue.check() == amqtt_glue.installed_version()


def test_another_amqtt_version_is_refused_with_what_to_do():
    with pytest.raises(amqtt_glue.AmqttMismatch) as e:
        amqtt_glue.check(version="0.13.0")
    text = str(e.value)
    assert "amqtt 0.13.0 is installed" in text and "0.12.1" in text
    assert "pip install 'amqtt==0.12.1'" in text and "mosquitto" in text


def test_every_private_method_we_touch_has_the_parameters_we_rely_on():
    for (owner, name), params in amqtt_glue.PRIVATE_METHODS.items():
        cls = amqtt_glue._resolve(owner)
        fn = getattr(cls, name)
        if getattr(fn, "tc_patch", False):            # our replacement: ask amqtt's original
            fn = next(getattr(k, name) for k in cls.__mro__[1:] if name in vars(k))
            assert name == "handle_read_timeout"
        got = tuple(inspect.signature(fn).parameters)
        assert got[:len(params)] == params, (owner, name, got)


def test_a_broker_of_another_version_does_not_start(monkeypatch):
    monkeypatch.setattr(amqtt_glue, "installed_version", lambda: "0.11.0")
    b = brokers.EmbeddedBroker()
    with pytest.raises(brokers.BrokerError) as e:
        b.start()
    assert "checked with 0.12.1" in str(e.value) and not b.running


@pytest.fixture(scope="module")
def hub_cred():
    return cred.hub_credential()


@pytest.fixture(scope="module")
def broker(hub_cred):
    with brokers.EmbeddedBroker(users=[hub_cred]) as b:
        yield b


_serial = itertools.count(1)
N = 300


def remaining_length(n):
    out = b""
    while True:
        byte, n = n % 128, n // 128
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def seat(broker):
    c = cred.seat_credential(cred.new_seat_id(next(_serial)))
    broker.add_user(c.username, c.password)
    return c


def test_the_patched_broker_and_its_plugins_are_what_runs(broker):
    auth, wall, walled = amqtt_glue.classes()
    assert isinstance(broker._broker, walled)
    assert isinstance(broker._broker._subscriptions, amqtt_glue._SnapshotDict)
    assert broker.amqtt_version == amqtt_glue.installed_version()


def test_a_client_that_goes_silent_is_dropped_and_its_will_fires(broker, hub_cred):
    """handle_read_timeout: a client that stops sending (no TCP close) is dropped after its
    keepalive plus the grace, and its Last Will is published."""
    t = TableTopics("contract")
    s = seat(broker)
    hub = MqttClient(broker.url, hub_cred.username, hub_cred.password).connect()
    try:
        hub.subscribe([(t.presence(s.username), 1)])
        # a raw MQTT CONNECT with keepalive 1 s and a Will, then silence
        will_topic = t.presence(s.username).encode()
        will = protocol.encode(protocol.presence(False))
        body = (brokers._mqtt_string("MQTT") + bytes([4, 0x02 | 0x04 | 0x08 | 0x20 | 0x80
                                                      | 0x40, 0, 1]) +
                brokers._mqtt_string(f"{s.username}-silent") +
                len(will_topic).to_bytes(2, "big") + will_topic +
                len(will).to_bytes(2, "big") + will +
                brokers._mqtt_string(s.username) + brokers._mqtt_string(s.password))
        sock = socket.create_connection(("127.0.0.1", broker.tcp_port))
        sock.sendall(b"\x10" + remaining_length(len(body)) + body)
        assert sock.recv(4)[3] == 0                       # CONNACK accepted
        got = hub.wait_for(lambda m: m.payload == will, timeout=10)
        assert got[-1].topic == t.presence(s.username)
        sock.close()
    finally:
        hub.close()


def test_an_oversized_publish_is_dropped_and_the_connection_kept(broker, hub_cred):
    t = TableTopics("contract")
    hub = MqttClient(broker.url, hub_cred.username, hub_cred.password).connect()
    try:
        hub.subscribe([(t.events, 1)])
        hub.publish(t.events, b"x" * (protocol.MAX_PAYLOAD_BYTES + 1))
        hub.publish(t.events, b"small")
        got = hub.wait_for(lambda m: m.payload == b"small")
        assert [m.payload for m in got] == [b"small"] and hub.is_connected()
    finally:
        hub.close()


def test_retained_messages_go_only_to_who_asked_and_may_read(broker, hub_cred):
    t = TableTopics("contract")
    a, b = seat(broker), seat(broker)
    hub = MqttClient(broker.url, hub_cred.username, hub_cred.password).connect()
    try:
        hub.publish(t.view(a.username), b'{"secret":"a"}', retain=True)
        hub.publish(t.state, b'{"public":1}', retain=True)
        ca = MqttClient(broker.url, a.username, a.password).connect()
        ca.subscribe([(t.view(a.username), 1)])
        ca.wait_for(lambda m: m.topic == t.view(a.username))
        cb = MqttClient(broker.url, b.username, b.password).connect()
        cb.subscribe([(t.state, 1)])
        # retained messages come with the subscription, so before a live one published after
        hub.publish(t.state, b'{"public":2}', retain=True)
        got = cb.wait_for(lambda m: m.payload == b'{"public":2}')
        assert [(m.topic, m.payload) for m in got] == [(t.state, b'{"public":1}'),
                                                        (t.state, b'{"public":2}')]
        ca.close()
        cb.close()
    finally:
        hub.close()


def test_the_subscription_table_may_change_while_a_delivery_walks_it():
    """amqtt walks ``_subscriptions.items()`` while each delivery awaits the topic check; a
    subscribe meanwhile adds a key. Our table walks a snapshot, so the walk survives."""
    from amqtt.broker import Broker
    walk = inspect.getsource(Broker._run_broadcast)
    assert "self._subscriptions.items()" in walk and "await self._topic_filtering" in walk
    table = amqtt_glue._SnapshotDict({"a": [1], "b": [2]})
    seen = []
    for key, subs in table.items():
        seen.append(key)
        table[f"new-{key}"] = []                    # a plain dict raises here
    assert seen == ["a", "b"] and len(table) == 4
    assert list(iter(table)) == ["a", "b", "new-a", "new-b"]
    # a client leaving during the walk of a filter's subscribers (amqtt pops its entry from
    # the live list) must not make the walk skip the subscriber after it
    table = amqtt_glue._SnapshotDict({"events": ["ann", "bo", "cy"]})
    walked = []
    for _, subs in table.items():
        for who in subs:
            walked.append(who)
            if who == "ann":
                dict.__getitem__(table, "events").pop(0)      # as _del_subscription does
    assert walked == ["ann", "bo", "cy"] and table["events"] == ["bo", "cy"]


def test_subscribing_while_messages_are_delivered_loses_none(broker, hub_cred):
    """Clients subscribing to new filters during a burst of deliveries do not make the broker
    lose a message for the others."""
    t = TableTopics("contract")
    readers = [seat(broker) for _ in range(3)]
    clients = []
    try:
        for r in readers:
            c = MqttClient(broker.url, r.username, r.password).connect()
            c.subscribe([(t.events, 1)])
            clients.append(c)
        hub = MqttClient(broker.url, hub_cred.username, hub_cred.password,
                         max_inflight=1000).connect()
        clients.append(hub)
        stop = threading.Event()

        def churn():
            while not stop.is_set():
                s = seat(broker)
                c = MqttClient(broker.url, s.username, s.password).connect()
                # a filter nobody had: a new key in the broker's subscription table
                c.subscribe([(t.events, 1), (t.view(s.username), 1)])
                c.close()

        th = threading.Thread(target=churn)
        th.start()
        try:
            for i in range(N):
                hub.publish(t.events, str(i).encode(), wait=False)
        finally:
            stop.set()
            th.join()
        for c in clients[:3]:
            got = c.wait_for(lambda m: m.payload == str(N - 1).encode(), timeout=30)
            assert [m.payload for m in got] == [str(i).encode() for i in range(N)]
    finally:
        for c in clients:
            c.close()


def test_a_paho_client_over_websockets_stays_connected_past_the_ping_interval(broker, hub_cred):
    """_create_server_instance: websockets pings every client every 20 s by default, and paho
    (2.2) answers with an unmasked pong, which the server must refuse ("incorrect masking"):
    every Python client over WebSockets was cut off after 20 s (one test failed on it under
    load). The WebSocket listener now sends no pings; MQTT's keepalive finds dead clients."""
    import time
    server = broker._broker._servers["ws"].instance
    c = MqttClient(broker.ws_url, "hub", hub_cred.password, keepalive=10).connect()
    try:
        conns = list(server.connections)
        assert conns and all(x.ping_interval is None for x in conns)
        end = time.monotonic() + 22                     # past websockets' 20 s default
        while time.monotonic() < end:
            assert not c._disconnected.is_set(), "disconnected by the server"
            time.sleep(0.25)
        c2 = MqttClient(broker.url, "hub", hub_cred.password).connect()
        try:                                            # and it still gets what is published
            c.subscribe([("tc/v1/pings/state", 1)])
            c2.publish("tc/v1/pings/state", b'{"after":22}', qos=1, retain=False, wait=True)
            got = c.wait_for(lambda m: m.topic == "tc/v1/pings/state", 5)
            assert got[-1].payload == b'{"after":22}'
        finally:
            c2.close()
    finally:
        c.close()
