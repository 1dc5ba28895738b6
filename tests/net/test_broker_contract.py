"""One contract, two real brokers (embedded amqtt and mosquitto), real paho clients.

Absence of a message is never waited for: after the forbidden traffic, a message the client IS
allowed to see (a sentinel) is sent the same way, and the test checks that only it arrived.
"""
import itertools
import json
import time

import pytest

from companion.net import credentials as cred
from companion.net import protocol
from companion.net.client import ConnectError
from companion.net.topics import TableTopics

_tables = itertools.count(1)


@pytest.fixture
def t():
    """A fresh table per test, so retained messages of one test never reach another."""
    return TableTopics(f"contract-{next(_tables)}")


def payloads(messages):
    return [m.payload for m in messages]


def test_retained_public_state_reaches_a_late_subscriber(broker, hub_cred, clients, new_seat, t):
    hub = clients(broker, hub_cred)
    state = protocol.encode({"v": 1, "seq": 3, "phase": "policy"})
    hub.publish(t.state, state, qos=1, retain=True)
    seat = new_seat()
    phone = clients(broker, seat)              # connects after the publish
    assert phone.subscribe([(t.state, 1)]) == [1]
    got = phone.wait_for(lambda m: m.topic == t.state)
    assert got[-1].payload == state and got[-1].retain and got[-1].qos == 1


def test_private_view_is_retained_for_its_seat_only(broker, hub_cred, clients, new_seat, t):
    a, b = new_seat(), new_seat()
    hub = clients(broker, hub_cred)
    hub.publish(t.view(a.username), b"view-of-a", retain=True)
    hub.publish(t.view(b.username), b"view-of-b", retain=True)
    pa = clients(broker, a)
    pa.subscribe([(t.view(b.username), 1), (t.view(a.username), 1), (t.reply(a.username), 1)])
    first = pa.wait_for(lambda m: m.topic == t.view(a.username))
    assert first[-1].retain and first[-1].payload == b"view-of-a"
    hub.publish(t.reply(a.username), b"sentinel")
    rest = pa.wait_for(lambda m: m.payload == b"sentinel")
    assert b"view-of-b" not in payloads(first + rest)
    pb = clients(broker, b)
    pb.subscribe([(t.view(b.username), 1)])
    assert pb.wait_for(lambda m: m.topic == t.view(b.username))[-1].payload == b"view-of-b"


def test_last_will_fires_on_abrupt_disconnect(broker, hub_cred, clients, new_seat, t):
    seat = new_seat()
    hub = clients(broker, hub_cred)
    hub.subscribe([(t.all_presence, 1)])
    offline, online = protocol.encode(protocol.presence(False)), protocol.encode(protocol.presence(True))
    phone = clients(broker, seat, will=(t.presence(seat.username), offline, 1, True))
    phone.publish(t.presence(seat.username), online, retain=True)
    assert hub.wait_for(lambda m: m.payload == online)[-1].topic == t.presence(seat.username)
    phone.kill()                               # no DISCONNECT packet: a phone losing Wi-Fi
    got = hub.wait_for(lambda m: m.payload == offline)
    assert got[-1].topic == t.presence(seat.username)
    # the will was retained: a latecomer sees the seat offline
    late = clients(broker, new_seat())
    late.subscribe([(t.presence(seat.username), 1)])
    assert late.wait_for(lambda m: m.topic == t.presence(seat.username))[-1].payload == offline


def test_clean_disconnect_sends_no_will(broker, hub_cred, clients, new_seat, t):
    seat = new_seat()
    hub = clients(broker, hub_cred)
    hub.subscribe([(t.all_presence, 1), (t.all_cmds, 1)])
    phone = clients(broker, seat, will=(t.presence(seat.username), b"will", 1, False))
    phone.close()
    other = clients(broker, new_seat())
    other.publish(t.cmd(other.username), b"sentinel")
    assert b"will" not in payloads(hub.wait_for(lambda m: m.payload == b"sentinel"))


def test_anonymous_client_is_refused(broker, clients):
    with pytest.raises(ConnectError, match="refused an anonymous login"):
        clients(broker, None)


def test_wrong_password_and_unknown_user_are_refused(broker, clients, new_seat):
    seat = new_seat()
    with pytest.raises(ConnectError, match="refused"):
        clients(broker, cred.Credential(seat.username, seat.password + "x"))
    with pytest.raises(ConnectError, match="refused"):
        clients(broker, cred.seat_credential("s9-nobody"))
    with pytest.raises(ConnectError, match="refused"):
        clients(broker, cred.Credential(seat.username, ""))
    assert clients(broker, seat).is_connected()


def test_oversized_payload_is_not_delivered(broker, hub_cred, clients, new_seat, t):
    limit = broker.max_payload
    assert limit == protocol.MAX_PAYLOAD_BYTES
    seat = new_seat()
    hub = clients(broker, hub_cred)
    hub.subscribe([(t.all_cmds, 1)])
    phone = clients(broker, seat)
    phone.subscribe([(t.events, 1)])
    # a seat's oversized command: dropped; the seat stays connected
    phone.publish(t.cmd(seat.username), b"x" * (limit + 1))
    phone.publish(t.cmd(seat.username), b"sentinel")
    got = hub.wait_for(lambda m: m.payload == b"sentinel")
    assert [len(m.payload) for m in got] == [len(b"sentinel")]
    assert phone.is_connected()
    # the hub's oversized event: dropped too; exactly the limit still goes through
    hub.publish(t.events, b"y" * (limit + 1))
    hub.publish(t.events, b"z" * limit)
    got = phone.wait_for(lambda m: m.topic == t.events)
    assert [len(m.payload) for m in got] == [limit]
    # an oversized retained state is not retained either
    hub.publish(t.state, b"s" * (limit + 1), retain=True)
    hub.publish(t.hub_status, b"sentinel", retain=True)
    late = clients(broker, new_seat())
    late.subscribe([(t.state, 1), (t.hub_status, 1)])
    assert payloads(late.wait_for(lambda m: m.topic == t.hub_status)) == [b"sentinel"]


def test_users_are_added_and_removed_at_runtime(broker, hub_cred, clients, t):
    seat = cred.seat_credential(cred.new_seat_id(77))
    with pytest.raises(ConnectError):
        clients(broker, seat)
    broker.add_user(seat.username, seat.password)
    assert seat.username in broker.users()
    hub = clients(broker, hub_cred)
    hub.subscribe([(t.all_presence, 1), (t.all_cmds, 1)])
    phone = clients(broker, seat)
    phone.publish(t.cmd(seat.username), b"hello")
    hub.wait_for(lambda m: m.payload == b"hello")
    # removing the login drops the live connection and refuses new ones. (The Last Will
    # fires on the embedded broker, not on mosquitto: the hub publishes presence itself.)
    assert broker.remove_user(seat.username) is True
    assert phone.wait_disconnected(5)
    assert seat.username not in broker.users()
    with pytest.raises(ConnectError):
        clients(broker, seat)
    assert broker.remove_user(seat.username) is False
    # a new password for the same seat (a reclaim) works, the old one does not
    fresh = cred.seat_credential(seat.username)
    broker.add_user(fresh.username, fresh.password)
    assert clients(broker, fresh).is_connected()
    with pytest.raises(ConnectError):
        clients(broker, seat)


def test_forged_last_will_never_reaches_anyone(broker, hub_cred, clients, new_seat, t):
    """A seat may not smuggle a publish through its Last Will: amqtt would publish any will
    unchecked, so our auth plugin refuses the login; mosquitto accepts it and drops the will."""
    a, b = new_seat(), new_seat()
    hub = clients(broker, hub_cred)
    hub.subscribe([("tc/v1/#", 1)])
    forged = (t.cmd(b.username), b"forged-will", 1, True)
    if broker.mode == "embedded":
        with pytest.raises(ConnectError, match="refused"):
            clients(broker, a, will=forged)
        assert clients(broker, a, will=(t.presence(a.username), b"ok", 1, True)).is_connected()
        return
    # mosquitto accepts the login and drops the will when it fires. Proof without waiting on
    # silence: once mosquitto has logged the disconnect, the will has been handled (queued to
    # the hub or dropped); a sentinel the hub then sends itself comes after it. The legit will
    # shows the method sees a will that does go through.
    for n, (will, must_arrive) in enumerate(((forged, False),
                                             ((t.presence(a.username), b"legit-will", 1, False),
                                              True))):
        cid = f"{a.username}-will{n}"
        clients(broker, a, client_id=cid, will=will).kill()
        wait_for_log(broker, f"Client {cid} closed its connection")
        hub.publish(t.events, f"sentinel-{n}".encode())
        seen = payloads(hub.wait_for(lambda m: m.payload == f"sentinel-{n}".encode()))
        assert (will[1] in seen) is must_arrive, seen


def wait_for_log(broker, text, timeout=5.0):
    deadline = time.monotonic() + timeout
    while text not in broker.log_path.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"mosquitto never logged {text!r}"
        time.sleep(0.005)


def test_websockets_listener_carries_the_protocol(broker, hub_cred, clients, new_seat, t):
    seat = new_seat()
    hub = clients(broker, hub_cred)
    hub.subscribe([(t.all_cmds, 1)])
    hub.publish(t.state, b'{"v":1}', retain=True)
    phone = clients(broker, seat, ws=True)
    assert broker.ws_url.startswith("ws://") and broker.ws_url.endswith("/mqtt")
    phone.subscribe(t.seat_subscriptions(seat.username))
    assert phone.wait_for(lambda m: m.topic == t.state)[-1].payload == b'{"v":1}'
    cmd = protocol.encode({"v": 1, "tx": "a1b2", "move": "submit_bids", "args": {"navy": 2}})
    phone.publish(t.cmd(seat.username), cmd)
    got = hub.wait_for(lambda m: m.topic == t.cmd(seat.username))[-1]
    assert protocol.parse_command(got.payload).args == {"navy": 2}
    hub.publish(t.reply(seat.username), protocol.encode(protocol.ok_reply("a1b2")))
    reply = phone.wait_for(lambda m: m.topic == t.reply(seat.username))[-1]
    assert json.loads(reply.payload) == {"v": 1, "tx": "a1b2", "ok": True}


def test_retained_messages_go_only_to_the_subscriber_that_asked(broker, hub_cred, clients,
                                                                new_seat, t):
    """Regression for amqtt 0.12.1, which on every CONNECT replays the retained messages of
    every filter anybody subscribed to, to the newcomer, unchecked."""
    a, b = new_seat(), new_seat()
    hub = clients(broker, hub_cred)
    hub.publish(t.view(b.username), b"view-of-b", retain=True)
    pb = clients(broker, b)
    pb.subscribe([(t.view(b.username), 1)])
    pb.wait_for(lambda m: m.payload == b"view-of-b")
    pa = clients(broker, a)                    # b's subscription exists when a connects
    pa.subscribe([(t.events, 1)])
    hub.publish(t.events, b"sentinel")
    assert payloads(pa.wait_for(lambda m: m.payload == b"sentinel")) == [b"sentinel"]
