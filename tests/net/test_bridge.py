"""The hub's bridge through real brokers (embedded amqtt and a mosquitto child), real HTTP joins
and real MQTT seat clients: commands reach the session and replies echo tx, duplicates are
answered but not applied twice, bad payloads get error replies, presence follows the phones,
reclaim rotates the login, the wall keeps every seat's secrets off the others' topics, and a
restarted `companion serve` resumes its session with the phones reclaiming their seats."""
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from companion.core.session import command_digest
from companion.net import protocol
from companion.net.brokers import free_ports
from companion.net.client import ConnectError, MqttClient
from companion.net.seat_client import JoinFailed, SeatClient, post_join
from companion.net.serve import TableServer
from ..teardown import close_all
from ..waiting import wait_until

MODES = ["embedded", "mosquitto"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_tables = itertools.count(1)


@pytest.fixture(params=MODES)
def mode(request):
    return request.param


@pytest.fixture
def table(mode, tmp_path):
    """A Great Powers table for three phones on the given broker, started when all joined."""
    opts = {"binary": "/usr/sbin/mosquitto"} if mode == "mosquitto" else {}
    srv = TableServer(f"bridge-{next(_tables)}", db=tmp_path / "s.db", game="great-powers",
                      players=3, broker=mode, bind="127.0.0.1", http_port=0, mqtt_port=0,
                      ws_port=0, broker_options=opts, seed=7).start()
    srv.base = f"http://127.0.0.1:{srv.web.port}"
    phones = []

    def join(name, **kw):
        p = SeatClient.join(srv.base, name, srv.hub.room_code, **kw).connect()
        phones.append(p)
        return p

    srv.join = join
    yield srv
    close_all(phones, "a seat client")
    srv.stop()


def seated(table, names=("Ann", "Bo", "Cy")):
    phones = [table.join(n) for n in names]
    assert wait_until(lambda: table.hub.session is not None)
    for p in phones:
        p.wait_view(lambda v: v.get("prompt") is not None)
    return phones


def bids(view):
    p = view["prompt"]
    return {"traits": p["allowed"][:p["count"]]}


def test_command_reaches_the_session_and_the_reply_echoes_tx(table):
    ann, bo, cy = seated(table)
    first = ann.latest["view"]
    [move] = first["legal"]                     # what the phone draws its pickers from
    assert move["move"] == "submit_bids" and move["sealed"] is True
    assert move["args"][0]["name"] == "traits" and move["args"][0]["kind"] == "order"
    args = bids(first)
    ann.received.clear()
    tx = ann.publish_command("submit_bids", args, tx="first-bid")
    reply = ann.wait_reply(tx)
    assert reply == {"v": 1, "tx": "first-bid", "ok": True, "result": {"seq": 1}}
    w = table.hub.session.state.windows["bids-t1"]
    assert w.has_locked(0) and not w.is_revealed()
    # the protocol's order for one command: its events, the seat's own view, the reply; the
    # public state (and the other seats' views) after it
    seq = table.hub.session.state.seq
    ann.wait_state(lambda s: s["seq"] == seq)
    got = [m for m in ann.received if not m.topic.endswith("/presence")]
    kinds = [m.topic.rsplit("/", 1)[-1] for m in got]
    got = got[kinds.index("events"):]               # (the others' presence may come before)
    kinds = kinds[kinds.index("events"):]
    assert kinds[:3] == ["events", "view", "reply"] and "state" in kinds, kinds
    event = json.loads(got[0].payload)
    assert event["type"] == "ChoiceLocked" and event["seat"] == 0 and event["seq"] == 1
    assert json.loads(got[1].payload)["windows"][0]["locked"]["0"]["choice"] == args["traits"]
    view = ann.wait_view(lambda v: v["seq"] == 1)
    assert view["windows"][0]["locked"]["0"]["choice"] == args["traits"]
    assert view["prompt"] is None and view["legal"] == []
    assert view["table"] == table.table and view["seat_ids"] == table.bridge.seat_ids()
    assert [s is not None for s in view["seat_ids"]] == [True, True, True]


def test_a_repeated_tx_is_answered_again_but_applied_once(table):
    ann, bo, cy = seated(table)
    args = bids(ann.latest["view"])
    first = ann.send("submit_bids", args, tx="same-tx")
    version = table.hub.session.version
    again = ann.send("submit_bids", args, tx="same-tx")
    assert again == first and first["ok"]
    assert table.hub.session.version == version
    # an error is remembered too: the same refused tx gets the same refusal
    bad = bo.send("submit_bids", {"traits": ["navy"]}, tx="short")
    assert not bad["ok"] and bad["error"]["code"] == "illegal_move"
    assert bo.send("submit_bids", {"traits": ["navy"]}, tx="short") == bad
    assert table.bridge.stats["duplicates"] == 2


def test_a_reused_tx_with_another_command_is_refused_and_changes_nothing(table):
    """Issue 37: a tx names one command. Another command under a known tx (accepted or
    refused the first time) gets ``tx_reused``: it is not applied, not kept, and the tx still
    answers its own command's resend with the first answer."""
    ann, bo, cy = seated(table)
    hub = table.hub
    args = bids(ann.latest["view"])
    first = ann.send("submit_bids", args, tx="gp-1")
    assert first["ok"]
    version, seq = hub.session.version, hub.session.state.seq
    other = {"traits": list(reversed(args["traits"]))}
    for move, a in (("submit_bids", other), ("pass_turn", {}), ("submit_bids", {})):
        r = ann.send(move, a, tx="gp-1")
        assert r["ok"] is False and r["error"]["code"] == "tx_reused", r
        assert r["tx"] == "gp-1" and r["error"]["message"] == protocol.TX_REUSED_MESSAGE
    # the same command written another way (fields in another order, spaces): a resend
    raw = json.dumps({"args": args, "move": "submit_bids", "tx": "gp-1", "v": 1.0}, indent=1)
    ann.publish_command(None, tx="gp-1", raw=raw.encode())
    assert ann.wait_reply("gp-1") == first
    w = hub.session.state.windows["bids-t1"]
    assert w.entries[0].choice == args["traits"]
    assert (hub.session.version, hub.session.state.seq) == (version, seq)
    # a refused first command: another under its tx is refused as reused, the resend gets
    # the first refusal, and the store keeps only that first refusal
    bad = bo.send("submit_bids", {"traits": ["navy"]}, tx="bo-1")
    assert bad["error"]["code"] == "illegal_move"
    reused = bo.send("submit_bids", bids(bo.latest["view"]), tx="bo-1")
    assert reused["error"]["code"] == "tx_reused"
    assert bo.send("submit_bids", {"traits": ["navy"]}, tx="bo-1") == bad
    assert not hub.session.state.windows["bids-t1"].has_locked(1)
    kept = hub.log.find_reply(hub.session.id, 1, "bo-1")
    assert kept[0] == json.dumps(bad, separators=(",", ":"))
    assert kept[1] == command_digest("submit_bids", {"traits": ["navy"]})
    assert table.bridge.stats["tx_reused"] == 4 and table.bridge.stats["duplicates"] == 2
    # Bo's real bids under a new tx are taken
    assert bo.send("submit_bids", bids(bo.latest["view"]), tx="bo-2")["ok"]
    assert hub.session.state.windows["bids-t1"].has_locked(1)
    assert [r.get("tx") for r in hub.session.records].count("gp-1") == 1


def test_a_refusal_kept_before_digests_answers_its_tx_as_it_did(table):
    """A store of schema 3 kept refusals without their command's digest: a repeat of such a
    tx gets that refusal again, whatever it carries (never an "ok", never applied)."""
    ann, bo, cy = seated(table)
    hub = table.hub
    old = protocol.encode(protocol.error_reply("old-1", "illegal_move", "Rank your traits."))
    hub.log.put_reply(hub.session.id, 0, "old-1", old.decode())       # as schema 3 kept it
    assert ann.send("submit_bids", bids(ann.latest["view"]), tx="old-1") == json.loads(old)
    assert not hub.session.state.windows["bids-t1"].has_locked(0)


def test_bad_payloads_get_error_replies_and_the_hub_carries_on(table):
    ann, bo, cy = seated(table)

    def raw(data):
        ann.publish_command(None, raw=data)
        with ann._cond:
            assert ann._cond.wait_for(lambda: None in ann.replies or len(ann.replies) > 0, 5)
            return ann.replies.pop(next(iter(ann.replies)))

    r = raw(b"{not json")
    assert r["tx"] is None and r["error"]["code"] == "malformed_json"
    r = raw(b"\xff\xfe")
    assert r["error"]["code"] == "malformed_json"
    r = raw(json.dumps({"v": 1, "tx": "big", "move": "submit_bids",
                        "args": {"pad": "x" * 5000}}).encode())
    assert r["error"]["code"] == "too_large" and "4096" in r["error"]["message"]
    r = raw(b'{"v": 2, "tx": "v2", "move": "submit_bids"}')
    assert r == {"v": 1, "tx": "v2", "ok": False, "error": r["error"]}
    assert r["error"]["code"] == "unsupported_version"
    r = raw(b'{"v": 1, "tx": "no spaces allowed", "move": "submit_bids"}')
    assert r["error"]["code"] == "bad_command"
    assert ann.send("fly_away", {})["error"]["code"] == "unknown_move"
    assert ann.send("take_action", {"card": "x"})["error"]["code"] == "not_your_turn"
    assert ann.send("submit_bids", {"traits": "navy"})["error"]["code"] == "illegal_move"
    wrong = ann.send("submit_bids", {"wrong": 1})["error"]       # a sentence, not Python's
    assert wrong["code"] == "bad_command" and "does not take 'wrong'" in wrong["message"]
    assert "keyword" not in wrong["message"] and "positional" not in wrong["message"]
    r = raw(b"")                                     # every payload gets an answer
    assert r["error"]["code"] == "malformed_json" and "empty" in r["error"]["message"]
    r = raw(b'{"v":1,"tx":"deep","move":"submit_bids","args":{"a":' + b"[" * 3000 +
            b"]" * 3000 + b"}}")
    assert r["error"]["code"] in ("too_deep", "too_large")
    r = raw(b'{"v":1,"tx":"deep2","move":"submit_bids","args":{"a":' + b"[" * 20 +
            b"]" * 20 + b"}}")
    assert r["tx"] == "deep2" and r["error"]["code"] == "too_deep"
    r = raw(b'{"v":1,"tx":"sur","move":"submit_bids","args":{"traits":["\\ud800"]}}')
    assert r["tx"] == "sur" and r["error"]["code"] == "malformed_json"
    assert "surrogate" in r["error"]["message"]
    good = bids(ann.latest["view"])
    assert ann.send("submit_bids", good)["ok"]
    again = ann.send("submit_bids", good)
    assert again["error"]["code"] == "sealed_choice"
    assert table.hub.session.state.seq == 1          # only the one good bid was applied


def test_oversize_payload_never_reaches_the_hub(table):
    """Over 64 KiB the broker drops the publish (protocol section 2): no reply, no change;
    the next command still works."""
    ann, bo, cy = seated(table)
    ann.publish_command(None, raw=b'{"v":1,"tx":"huge","move":"x","args":{"p":"' +
                        b"x" * 70_000 + b'"}}')
    ok = ann.send("submit_bids", bids(ann.latest["view"]), tx="after-huge")
    assert ok["ok"] and "huge" not in ann.replies


def test_a_retained_command_is_never_replayed_into_the_game(table, mode):
    ann, bo, cy = seated(table)
    table.bridge.stop()                      # the hub is away
    ann.publish_command("submit_bids", bids(ann.latest["view"]), tx="retained", retain=True,
                        wait=True)              # stored by the broker while nobody listens
    before = table.hub.session.version
    from companion.net.bridge import Bridge
    table.bridge = Bridge(table.hub, table.broker).start()   # comes back: the broker replays it
    assert wait_until(lambda: table.bridge.stats["retained_ignored"] == 1)
    assert wait_until(lambda: table.bridge.stats["retained_cleared"] == 1)
    assert table.hub.session.version == before, table.hub.session.records[-1]
    assert "retained" not in ann.replies
    # and it was cleared: a new subscriber to that topic gets nothing retained
    probe = MqttClient(table.broker.url, "hub", table.bridge._hub_cred.password).connect()
    try:
        probe.subscribe([(ann.topics["cmd"], 1)])
        probe.publish(ann.topics["cmd"], b"sentinel")
        got = probe.wait_for(lambda m: m.payload == b"sentinel")
        assert [m.payload for m in got] == [b"sentinel"]
    finally:
        probe.close()


def test_presence_goes_offline_within_5_s_when_a_phone_vanishes(table):
    ann, bo, cy = seated(table)
    assert wait_until(lambda: all(s.online for s in table.hub.seats))
    t0 = time.monotonic()
    bo.kill()                                   # no DISCONNECT: the broker fires the Will
    assert wait_until(lambda: not table.hub.seats[1].online, timeout=5.0)
    took = time.monotonic() - t0
    assert took < 5.0
    # the public state follows within a second (table facts are published at most once a
    # second), with the alert
    ann.wait_state(lambda s: not s["hub"]["seats"][1]["online"] and
                   s["hub"]["seats"][0]["online"] and s["hub"]["alerts"])
    # a clean goodbye says offline too (no Will is needed)
    cy.close()
    assert wait_until(lambda: not table.hub.seats[2].online)


def test_reclaim_gives_the_same_seat_a_new_password_and_drops_the_old_device(table):
    ann, bo, cy = seated(table)
    old = dict(bo.creds)
    new = post_join(table.base, {"token": old["token"]})
    assert (new["seat"], new["seat_id"], new["token"]) == (1, old["seat_id"], old["token"])
    assert new["password"] != old["password"]
    assert bo.client.wait_disconnected(5)           # one seat, one device
    with pytest.raises(ConnectError):
        MqttClient(table.broker.url, old["username"], old["password"]).connect()
    assert wait_until(lambda: not table.hub.seats[1].online)
    bo.client.close()
    bo.creds = new
    bo.connect()
    assert wait_until(lambda: table.hub.seats[1].online)
    assert bo.send("submit_bids", bids(bo.wait_view(lambda v: v["prompt"] is not None)))["ok"]
    with pytest.raises(JoinFailed) as e:
        post_join(table.base, {"token": "not-a-token"})
    assert (e.value.status, e.value.code) == (404, "unknown_token")


def test_no_seat_ever_receives_another_seats_sealed_choice_or_view_before_the_reveal(table):
    """The leak check at the broker: Ann subscribes to everything she could try (wildcards
    included) and watches Bo and Cy lock in; nothing of theirs reaches her before the reveal."""
    t = table.bridge.topics
    ann = table.join("Ann")
    ann.client.subscribe([("#", 1), (f"{t.base}/#", 1), (f"{t.base}/seat/+/view", 1),
                          (f"{t.base}/seat/+/reply", 1), (f"{t.base}/seat/+/cmd", 1)])
    bo, cy = table.join("Bo"), table.join("Cy")
    for p in (ann, bo, cy):
        p.wait_view(lambda v: v.get("prompt") is not None)
    assert bo.send("submit_bids", bids(bo.latest["view"]))["ok"]
    assert cy.send("submit_bids", bids(cy.latest["view"]))["ok"]
    secrets_ = {}
    for p in (bo, cy):
        mine = p.wait_view(lambda v: str(p.seat) in v["windows"][0]["locked"])
        secrets_[p.seat] = mine["windows"][0]["locked"][str(p.seat)]["salt"]
    seq = table.hub.session.state.seq
    ann.wait_state(lambda s: s["seq"] == seq)        # the sentinel: published after their views
    others = {bo.creds["seat_id"], cy.creds["seat_id"]}

    def leaked(messages):
        out = []
        for m in messages:
            parts = m.topic.split("/")
            if len(parts) > 4 and parts[3] == "seat" and parts[4] in others \
                    and parts[-1] != "presence":
                out.append(m.topic)
            text = m.payload.decode("utf-8", "replace")
            out += [f"salt of seat {s} on {m.topic}" for s, salt in secrets_.items()
                    if salt in text]
            try:
                doc = json.loads(text)
            except ValueError:
                continue
            if isinstance(doc, dict) and "private" in doc and doc.get("seat") != ann.seat:
                out.append(f"a private view of seat {doc.get('seat')} on {m.topic}")
        return out

    before = list(ann.received)
    assert len(before) > 5 and not leaked(before)
    # the check can see a leak: after Ann's own lock-in everything is revealed, salts included
    assert ann.send("submit_bids", bids(ann.latest["view"]))["ok"]
    revealed = ann.wait_state(lambda s: s["windows"] and s["windows"][0]["revealed"])
    assert leaked([m for m in ann.received if m not in before])
    assert protocol.verify_reveal(
        {"window": "bids-t1", "choices": revealed["windows"][0]["locked"]},
        {int(k): v["commitment"] for k, v in revealed["windows"][0]["locked"].items()}) \
        == {0: True, 1: True, 2: True}


def _serve(mode, db, ports, *extra):
    cmd = [sys.executable, "-m", "companion.cli.main", "serve", "--table", "restart",
           "--db", str(db), "--broker", mode, "--bind", "127.0.0.1", "--host", "127.0.0.1",
           "--http-port", str(ports[0]), "--mqtt-port", str(ports[1]),
           "--ws-port", str(ports[2]), "--quiet", *extra]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        if line.startswith("{"):
            return proc, json.loads(line)
    raise AssertionError(f"serve did not start: {proc.stderr.read()}")


def _stop(proc):
    proc.send_signal(signal.SIGINT)                  # Ctrl-C
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    return out


def _port_closed(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_a_restarted_serve_resumes_the_session_and_the_phone_reclaims_its_seat(mode, tmp_path):
    db = tmp_path / "sessions.db"
    ports = free_ports(3, "127.0.0.1")
    proc, info = _serve(mode, db, ports, "--game", "great-powers", "--players", "3",
                        "--seed", "3")
    base = f"http://127.0.0.1:{ports[0]}"
    try:
        phones = [SeatClient.join(base, n, info["room"]).connect() for n in ("Ann", "Bo", "Cy")]
        ann = phones[0]
        view = ann.wait_view(lambda v: v.get("prompt") is not None)
        assert ann.send("submit_bids", bids(view))["ok"]
        locked = ann.wait_view(lambda v: "0" in v["windows"][0]["locked"])
        session, mine = locked["session"], locked["windows"][0]["locked"]["0"]
    finally:
        out = _stop(proc)
    assert f"Session {session} is saved" in out
    assert all(_port_closed(p) for p in ports)       # broker (and mosquitto child) gone
    for p in phones:
        p.client.close()

    proc, info2 = _serve(mode, db, ports)            # no --game: resume from the log
    try:
        assert info2["room"] == info["room"]
        old_password = ann.creds["password"]
        creds = ann.reclaim()
        assert (creds["seat"], creds["seat_id"]) == (0, phones[0].creds["seat_id"])
        assert creds["password"] != old_password
        ann.connect()
        again = ann.wait_view(lambda v: v.get("session") == session and v["windows"])
        assert again["windows"][0]["locked"]["0"] == mine   # the locked bid survived
        bo = phones[1]
        bo.reclaim()
        bo.connect()
        assert bo.send("submit_bids", bids(bo.wait_view(lambda v: v["prompt"] is not None)))["ok"]
    finally:
        _stop(proc)
        for p in phones:
            if p.client is not None:
                p.client.close()


def test_the_hub_reconnects_by_itself_and_says_it_is_back(table):
    """The hub's own connection drops (its Will says offline): paho reconnects, subscribes
    again, and the bridge republishes its status and every retained document."""
    ann, bo, cy = seated(table)
    sock = table.bridge._client._client.socket()
    before = table.bridge.stats["reconnects"]
    getattr(sock, "_socket", sock).shutdown(socket.SHUT_RDWR)   # no DISCONNECT: the Will fires
    assert wait_until(lambda: table.bridge.stats["reconnects"] > before, timeout=10)
    assert wait_until(lambda: [json.loads(m.payload)["online"] for m in ann.received
                               if m.topic.endswith("/hub/status")][-1] is True, timeout=5)
    seen = [json.loads(m.payload)["online"] for m in ann.received
            if m.topic.endswith("/hub/status")]
    assert False in seen and seen[-1] is True
    # and commands flow again
    assert ann.send("submit_bids", bids(ann.latest["view"]), timeout=10)["ok"]


def test_a_seats_own_story_entry_never_reaches_the_public_or_another_seat(mode, tmp_path):
    """The story (protocol 4.1 ``story``) at the broker: Ann cheers for Cy; the public state,
    every page's feed, says so, and Cy's own view also holds "Ann cheered for you." (an entry
    with ``to``). Ann and Bo subscribe to everything they could try (wildcards included):
    that sentence never reaches them, on any topic, nor the public state or the events."""
    from tests.phone.zoo import games
    opts = {"binary": "/usr/sbin/mosquitto"} if mode == "mosquitto" else {}
    srv = TableServer(f"story-{next(_tables)}", db=tmp_path / "s.db", game="zoo", players=3,
                      games=games, broker=mode, bind="127.0.0.1", http_port=0, mqtt_port=0,
                      ws_port=0, broker_options=opts, seed=2).start()
    base = f"http://127.0.0.1:{srv.web.port}"
    phones = []
    try:
        t = srv.bridge.topics
        snoop = [("#", 1), (f"{t.base}/#", 1), (f"{t.base}/seat/+/view", 1),
                 (f"{t.base}/seat/+/reply", 1), (f"{t.base}/events", 1)]
        for name in ("Ann", "Bo", "Cy"):
            phones.append(SeatClient.join(base, name, srv.hub.room_code).connect())
        ann, bo, cy = phones
        for p in (ann, bo):
            p.client.subscribe(snoop)
        assert wait_until(lambda: srv.hub.session is not None)
        for p in phones:
            p.wait_view(lambda v: v.get("prompt") is not None)
        assert ann.send("cheer", {"who": cy.seat})["ok"]
        private = "Ann cheered for you."
        mine = cy.wait_view(lambda v: any(e["says"] == private for e in v.get("story") or ()))
        [entry] = [e for e in mine["story"] if e["says"] == private]
        assert entry["to"] == cy.seat and entry["rev"] == mine["rev"]
        # the public story has the public sentence, and is Cy's story without its own entries
        rev = mine["rev"]
        for p in phones:
            st = p.wait_state(lambda s: s.get("rev", 0) >= rev and any(
                e["says"] == "Ann cheered for Cy." for e in s.get("story") or ()))
            assert [e for e in mine["story"] if "to" not in e] == st["story"]
        for p in (ann, bo):
            v = p.wait_view(lambda v: v.get("rev", 0) >= rev)
            assert [e["says"] for e in v["story"]] == [e["says"] for e in st["story"]]
        time.sleep(0.5)                   # anything still in flight arrives
        for p in (ann, bo):
            text = [(m.topic, m.payload.decode("utf-8", "replace")) for m in p.received]
            assert len(text) > 5 and any("Ann cheered for Cy." in x for _, x in text)
            assert not [tp for tp, x in text if "cheered for you" in x], p.seat
        # the check can see it: Cy's own topic carried it
        assert any("cheered for you" in m.payload.decode("utf-8", "replace")
                   for m in cy.received)
        assert "cheered for you" not in json.dumps(srv.bridge.public_state())
    finally:
        close_all(phones, "a seat client")
        srv.stop()
