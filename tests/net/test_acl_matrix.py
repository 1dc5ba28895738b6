"""The wall, tested as delivery on both real brokers: an 8-seat table, every ordered pair of
seats (a, b), a != b, with real paho clients; then the same wall through mosquitto's own CLI.

Nothing waits on silence. Causality is used instead:
* every seat's forbidden publishes are followed, on the same connection, by a legal command
  (a "cmd sentinel"). The hub subscribes to ``tc/v1/#``; when it has every cmd sentinel, each
  broker has already routed (or dropped) everything the seats sent before.
* only then the hub sends each seat a reply sentinel, after its own private traffic; when a
  phone has its sentinel, anything that could have reached it has.
"""
import itertools
import subprocess

import pytest

from companion.net import credentials as cred
from companion.net import topics
from companion.net.brokers import MosquittoBroker
from companion.net.topics import TableTopics

from .conftest import MOSQUITTO

SEATS = 8
_tables = itertools.count(1)


def wildcard_filters(t: TableTopics):
    return ["#", "tc/#", "+", "+/+/+/+/+/+", "tc/v1/+/#", f"{t.base}/#", f"{t.base}/+/+/+",
            f"{t.base}/seat/#", f"{t.base}/seat/+/+", f"{t.base}/seat/+/view",
            f"{t.base}/seat/+/reply", f"{t.base}/seat/+/cmd", "tc/v1/+/seat/+/view"]


def text(messages):
    return [m.payload.decode() for m in messages]


def test_no_seat_sees_or_forges_another_seats_traffic(broker, hub_cred, clients):
    t = TableTopics(f"matrix-{next(_tables)}")
    seats = [cred.seat_credential(cred.new_seat_id(i + 1)) for i in range(SEATS)]
    ids = [s.username for s in seats]
    for s in seats:
        broker.add_user(s.username, s.password)
    hub = clients(broker, hub_cred)
    hub.subscribe([("tc/v1/#", 1)])

    # retained private and public messages exist before any phone subscribes
    hub.publish(t.state, b"legit-state", retain=True)
    hub.publish(t.hub_status, b"legit-status", retain=True)
    for b in ids:
        hub.publish(t.view(b), f"secret-view-{b}".encode(), retain=True)

    phones = {}
    for a, s in zip(ids, seats):
        p = clients(broker, s)
        subs = t.seat_subscriptions(a) + [(w, 1) for w in wildcard_filters(t)]
        for b in ids:
            if b != a:
                subs += [(t.view(b), 1), (t.reply(b), 1), (t.cmd(b), 1)]
        granted = p.subscribe(subs)
        # the legal subscriptions are granted on both brokers (the rest: see module doc)
        assert granted[:len(t.seat_subscriptions(a))] == [1] * len(t.seat_subscriptions(a))
        p.publish(t.presence(a), f"legit-presence-{a}".encode(), retain=True)
        phones[a] = p

    # live private traffic from the hub to every seat
    for b in ids:
        hub.publish(t.view(b), f"secret-view-live-{b}".encode())
        hub.publish(t.reply(b), f"secret-reply-{b}".encode())

    # every seat tries to forge: other seats' topics, the hub's public topics, retained or not
    for a in ids:
        p = phones[a]
        for b in ids:
            if b == a:
                continue
            for kind in ("cmd", "view", "reply", "presence"):
                p.publish(t.seat_topic(b, kind), f"forged-by-{a}-{kind}-{b}".encode(),
                          retain=kind != "cmd")
        for topic in (t.state, t.events, t.hub_status, f"{t.base}/seat/{a}/other", "tc/v1",
                      "other/topic"):
            p.publish(topic, f"forged-by-{a}-{topic}".encode(), retain=True)
        p.publish(t.cmd(a), f"cmd-sentinel-{a}".encode())

    want = {f"cmd-sentinel-{a}" for a in ids}
    seen_by_hub = text(hub.wait_for(
        lambda m: want.discard(m.payload.decode()) or not want, timeout=10))
    assert not [x for x in seen_by_hub if x.startswith("forged")]

    for a in ids:
        hub.publish(t.reply(a), f"reply-sentinel-{a}".encode())
    for a in ids:
        got = text(phones[a].wait_for(lambda m, a=a: m.payload == f"reply-sentinel-{a}".encode()))
        leaked = [x for x in got if x.startswith(("secret", "forged")) and not x.endswith(a)]
        assert not leaked, f"seat {a} received {leaked}"
        forged = [x for x in got if x.startswith("forged")]
        assert not forged, f"seat {a} received forged {forged}"
        # and the wall did not block what is theirs
        assert {f"secret-view-{a}", f"secret-view-live-{a}", f"secret-reply-{a}",
                "legit-state"} <= set(got), got

    # retained messages were not overwritten by any forgery
    auditor = clients(broker, hub_cred)
    expected = {t.state: "legit-state", t.hub_status: "legit-status"}
    for b in ids:
        expected[t.view(b)] = f"secret-view-{b}"
        expected[t.presence(b)] = f"legit-presence-{b}"
    auditor.subscribe([(topic, 1) for topic in expected])
    retained = {}
    for m in auditor.wait_for(lambda m: retained.setdefault(m.topic, m.payload.decode())
                              is not None and len(retained) == len(expected), timeout=10):
        assert m.retain
    assert retained == expected


def test_may_is_what_the_brokers_enforce_for_every_pair():
    """The pure decision behind the matrix, for every ordered pair, both directions."""
    t = TableTopics("matrix")
    ids = [f"s{i}-aaaa" for i in range(1, SEATS + 1)]
    for a, b in itertools.permutations(ids, 2):
        for kind in topics.SEAT_KINDS:
            assert topics.may(a, "read", t.seat_topic(b, kind)) is (kind == "presence")
            assert not topics.may(a, "write", t.seat_topic(b, kind))
        for f in wildcard_filters(t):
            assert topics.may(a, "read", f) is False, f
    for a in ids:
        assert topics.may(a, "read", t.view(a)) and topics.may(a, "read", t.reply(a))
        assert topics.may(a, "write", t.cmd(a)) and topics.may(a, "write", t.presence(a))
        assert not topics.may(a, "read", t.cmd(a))
        assert not topics.may(a, "write", t.view(a)) and not topics.may(a, "write", t.reply(a))


# -- the same wall through mosquitto's own command-line clients --------------------------------

@pytest.fixture(scope="module")
def mosq(hub_cred):
    with MosquittoBroker(binary=MOSQUITTO, users=[hub_cred]) as b:
        yield b


def cli_auth(b, c):
    return ["-h", "127.0.0.1", "-p", str(b.tcp_port), "-u", c.username, "-P", c.password,
            "-V", "mqttv311"]


def run_sub_until_exit(args, hub, sentinel_topic, sentinel, timeout=10.0):
    """Start mosquitto_sub; keep sending the sentinel until it exits (it subscribes at a moment
    we cannot see). Returns its output lines."""
    proc = subprocess.Popen(["mosquitto_sub", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(int(timeout / 0.02)):
            if proc.poll() is not None:
                break
            sentinel()
            try:
                proc.wait(0.02)
            except subprocess.TimeoutExpired:
                pass
        out, err = proc.communicate(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return out.splitlines()


def test_mosquitto_cli_clients_hit_the_same_wall(mosq, hub_cred, clients):
    t = TableTopics("cli")
    a, b = cred.seat_credential("s1-c11a"), cred.seat_credential("s2-c11b")
    for s in (a, b):
        mosq.add_user(s.username, s.password)
    hub = clients(mosq, hub_cred)
    hub.subscribe([("tc/v1/#", 1)])
    hub.publish(t.state, b"legit-state", retain=True)
    hub.publish(t.view(a.username), b"own-view", retain=True)
    hub.publish(t.view(b.username), b"secret-view-b", retain=True)
    sneaky = ["-t", "#", "-t", "tc/v1/+/seat/+/view", "-t", t.view(b.username),
              "-t", t.reply(b.username), "-t", t.cmd(b.username)]

    # retained: everything a's subscriptions could replay, until the first live message
    lines = run_sub_until_exit(cli_auth(mosq, a) + sneaky + ["-v", "--retained-only"], hub,
                               t.events, lambda: hub.publish(t.events, b"go", wait=False))
    assert f"{t.view(a.username)} own-view" in lines and f"{t.state} legit-state" in lines
    assert not [x for x in lines if "secret" in x], lines

    # live: b's private traffic then a sentinel, over and over; three printed messages must be
    # three sentinels, so at least two full rounds after the subscription leaked nothing
    def round_():
        hub.publish(t.view(b.username), b"secret-live-view-b", wait=False)
        hub.publish(t.reply(b.username), b"secret-reply-b", wait=False)
        hub.publish(t.reply(a.username), b"sentinel", wait=False)
    lines = run_sub_until_exit(cli_auth(mosq, a) + sneaky + ["-R", "-C", "3"], hub, None, round_)
    assert lines == ["sentinel"] * 3, lines

    # mosquitto_pub as seat a: forged publishes, then a legal command as the sentinel
    for topic, retain in ((t.cmd(b.username), False), (t.state, True), (t.events, False),
                          (t.view(b.username), True), (t.presence(b.username), True)):
        subprocess.run(["mosquitto_pub", *cli_auth(mosq, a), "-q", "1", "-t", topic,
                        "-m", "forged-by-cli", *(["-r"] if retain else [])],
                       check=True, timeout=10, capture_output=True)
    subprocess.run(["mosquitto_pub", *cli_auth(mosq, a), "-q", "1", "-t", t.cmd(a.username),
                    "-m", "cli-sentinel"], check=True, timeout=10, capture_output=True)
    got = text(hub.wait_for(lambda m: m.payload == b"cli-sentinel"))
    assert "forged-by-cli" not in got, got

    # anonymous and wrong-password CLI logins are refused
    for args in (["-h", "127.0.0.1", "-p", str(mosq.tcp_port)],
                 cli_auth(mosq, cred.Credential(a.username, "wrong"))):
        r = subprocess.run(["mosquitto_sub", *args, "-t", t.state, "-C", "1", "-W", "5"],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode != 0 and "not authorised" in r.stderr.lower(), r.stderr
