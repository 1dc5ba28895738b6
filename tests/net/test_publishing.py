"""What the hub publishes after a change, and in which order (protocol sections 6 and 12), on
real brokers (embedded amqtt and a mosquitto child) with real seat clients: a command's reply
leaves after its events and the seat's own view and before everyone else's views; every phone
has every lock-in before a view that shows the reveal, even when all the bids come at once;
commands already waiting get their replies before one fan-out covers them all; a document
whose content did not change is not published again. An observer logged in as the hub
(``tc/v1/<table>/#``) sees every message in the order the hub sent them."""
import itertools
import json
import threading
import time

import pytest

from companion.net.client import MqttClient
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer
from tests.core.toy import Toy
from tests.waiting import wait_until

MODES = ["embedded", "mosquitto"]
_tables = itertools.count(1)


def toy(name):
    return Toy()


class Observer:
    """Every message under the table's base, in arrival order, as (kind, seat id, payload)."""

    def __init__(self, srv):
        self.base = srv.bridge.topics.base
        self.got = []
        self.cond = threading.Condition()
        self.client = MqttClient(srv.broker.url, "hub", srv.bridge._hub_cred.password,
                                 on_message=self._on).connect()
        self.client.subscribe([(self.base + "/#", 1)])
        seats = len(srv.hub.seats)                   # the retained documents come first
        self.wait(lambda g: len({(k, w) for k, w, _ in g if k in ("view", "state")}) ==
                  seats + 1)
        self.settle(srv)

    def settle(self, srv, quiet=0.3, timeout=10.0):
        """Forget everything seen so far once the table has gone quiet: nothing queued in the
        hub, no deferred public state pending, and no message for ``quiet`` seconds (a state
        published just as this client subscribed arrives after the retained copy; a CI run
        once saw it land inside a test's window)."""
        deadline = time.monotonic() + timeout
        while True:
            srv.bridge.wait_idle()
            with self.cond:
                seen = len(self.got)
                self.cond.wait_for(lambda: len(self.got) != seen, quiet)
                if len(self.got) == seen and not srv.bridge._state_timer:
                    self.got.clear()
                    return
            assert time.monotonic() < deadline, "the table never went quiet"

    def _on(self, m):
        rest = m.topic[len(self.base) + 1:].split("/")
        kind, who = (rest[2], rest[1]) if rest[0] == "seat" else ("/".join(rest), None)
        if kind in ("presence", "cmd", "hub/status"):
            return
        with self.cond:
            self.got.append((kind, who, json.loads(m.payload) if m.payload else None))
            self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.got)

    def wait(self, pred, timeout=10.0):
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.got), timeout), \
                [(k, w) for k, w, _ in self.got]
            return list(self.got)

    def close(self):
        self.client.close()


BOTH_ORDERS = pytest.mark.parametrize(
    "table", [(m, o) for m in MODES for o in ("ack-first", "legacy")], indirect=True,
    ids=lambda p: f"{p[0]}-{p[1]}")
ACK_FIRST = pytest.mark.parametrize("table", [(m, "ack-first") for m in MODES], indirect=True,
                                    ids=lambda p: p[0])


@pytest.fixture
def table(request, tmp_path):
    mode, order = request.param
    opts = {"binary": "/usr/sbin/mosquitto"} if mode == "mosquitto" else {}
    srv = TableServer(f"pub-{next(_tables)}", db=tmp_path / "s.db", game="toy", players=3,
                      broker=mode, bind="127.0.0.1", http_port=0, mqtt_port=0, ws_port=0,
                      broker_options=opts, seed=3, games=toy, publish_order=order).start()
    base = f"http://127.0.0.1:{srv.web.port}"
    srv.phones = [SeatClient.join(base, n, srv.hub.room_code).connect()
                  for n in ("Ann", "Bo", "Cy")]
    assert wait_until(lambda: srv.hub.session is not None)
    for p in srv.phones:
        p.wait_view(lambda v: v.get("prompt") is not None)
    # the phones' presence is in, and its deferred public state is out: from here on only
    # what a test does publishes anything
    assert wait_until(lambda: all(s.online for s in srv.hub.seats))
    assert wait_until(lambda: not srv.bridge._state_timer)
    srv.bridge.wait_idle()
    srv.observer = Observer(srv)
    yield srv
    srv.observer.close()
    for p in srv.phones:
        p.close()
    srv.stop()


def after(got, start):
    return [(k, w, doc) for k, w, doc in got[start:]]


def ids(srv):
    return [p.creds["seat_id"] for p in srv.phones]


@BOTH_ORDERS
def test_the_reply_leaves_after_its_events_and_own_view_and_before_the_others(table):
    ann, bo, cy = ids(table)
    obs = table.observer
    start = obs.mark()
    tx = table.phones[0].publish_command("bid", {"n": 4})
    assert table.phones[0].wait_reply(tx)["ok"]
    got = after(obs.wait(lambda g: {"state", "reply"} <= {k for k, _, _ in g[start:]}), start)
    order = [(k, w) for k, w, _ in got]
    if table.bridge.order == "legacy":
        assert order[0] == ("events", None)
        assert order[-2:] == [("state", None), ("reply", ann)]
        assert sorted(order[1:-2]) == sorted([("view", ann), ("view", bo), ("view", cy)])
        return
    assert order[:3] == [("events", None), ("view", ann), ("reply", ann)], order
    assert sorted(order[3:-1]) == sorted([("view", bo), ("view", cy)]) and \
        order[-1] == ("state", None), order
    event, own = got[0][2], got[1][2]
    assert event["type"] == "ChoiceLocked" and event["seat"] == 0
    assert own["windows"][0]["locked"]["0"]["choice"] == 4          # the lock-in, before "ok"
    assert own["prompt"] is None and own["legal"] == []
    for k, w, doc in got[3:]:                    # the others: the commitment, not the choice
        assert "choice" not in doc["windows"][0]["locked"]["0"]


@BOTH_ORDERS
def test_every_phone_has_every_lock_in_before_a_view_that_shows_the_reveal(table):
    """All three bids at once (the worker takes them one after the other): on every phone,
    each seat's ChoiceLocked and the ChoicesRevealed come before any view revealing them."""
    go = threading.Barrier(3)
    replies = {}

    def bid(p, n):
        go.wait()
        replies[p.seat] = p.send("bid", {"n": n}, timeout=10)

    threads = [threading.Thread(target=bid, args=(p, n)) for p, n in zip(table.phones, (3, 7, 5))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r["ok"] for r in replies.values()), replies
    for p in table.phones:
        p.wait_view(lambda v: any(w["id"] == "r1" and w["revealed"] for w in v["windows"]),
                    timeout=10)
        seen = set()
        for m in list(p.received):
            kind = m.topic.rsplit("/", 1)[-1]
            if kind not in ("events", "view", "state"):
                continue
            doc = json.loads(m.payload)
            if kind == "events":
                if doc["type"] == "ChoiceLocked" and doc["window"] == "r1":
                    seen.add(doc["seat"])
                elif doc["type"] == "ChoicesRevealed" and doc["window"] == "r1":
                    seen.add("revealed")
                continue
            shown = [w for w in doc.get("windows") or () if w["id"] == "r1"]
            if shown and shown[0]["revealed"]:
                assert seen == {0, 1, 2, "revealed"}, (p.creds["name"], kind, seen)
            elif shown:                    # a lock-in shown only after its ChoiceLocked
                assert set(map(int, shown[0]["locked"])) <= seen, (p.creds["name"], seen)


@ACK_FIRST
def test_commands_waiting_get_their_replies_before_one_fan_out(table):
    """Three bids queue behind a busy worker: each gets its events, its own view and its reply;
    then one fan-out publishes the views that changed and the public state."""
    release = threading.Event()
    table.bridge.call_soon(release.wait, 10)             # the worker is busy
    obs = table.observer
    start = obs.mark()
    txs = [p.publish_command("bid", {"n": n}) for p, n in zip(table.phones, (1, 2, 3))]
    # three commands queued (qsize() alone also counted the busy job while the worker had
    # not yet taken it, so on a loaded machine the third bid came after the release: 2 groups)
    handle = table.bridge._handle_command
    assert wait_until(lambda: sum(1 for j in list(table.bridge._jobs.queue)
                                  if j and j[0] == handle) >= 3)
    release.set()
    for p, tx in zip(table.phones, txs):
        assert p.wait_reply(tx, timeout=10)["ok"]
    got = after(obs.wait(lambda g: any(k == "state" for k, _, _ in g[start:])), start)
    order = [(k, w) for k, w, _ in got]
    replies = [i for i, (k, _) in enumerate(order) if k == "reply"]
    views = [i for i, (k, _) in enumerate(order) if k == "view"]
    assert len(replies) == 3 and order[-1] == ("state", None), order
    # before the last reply: only events, each commanding seat's own view and the replies
    for i, (k, w) in enumerate(order[:replies[-1]]):
        if k == "view":
            assert order[i + 1] == ("reply", w), order
    # the fan-out after the last reply: at most one view per seat, then the state
    tail = [w for k, w in order[replies[-1] + 1:] if k == "view"]
    assert len(tail) == len(set(tail)) and len(views) <= 3 + 3, order


@ACK_FIRST
def test_a_change_nobody_can_see_publishes_no_document(table):
    """Ann whispers (the toy game keeps it out of every view) while the bid timer runs: the
    log grows and the session clock moves, but no view and no state is published again; the
    retained documents keep their content and the rev of their last change."""
    obs = table.observer
    ann = table.phones[0]
    # the first whisper empties the documents' "notices" (the last command's public notices)
    assert ann.send("whisper", {"words": "psst"})["ok"]
    obs.wait(lambda g: ("state", None, ) in [(k, w) for k, w, _ in g])
    rev = table.hub.session.version
    assert ann.latest["view"]["timers"]["bid"]["deadline"] is not None     # a timer runs
    start = obs.mark()
    assert ann.send("whisper", {"words": "again"})["ok"]
    assert table.hub.session.version == rev + 1
    # a visible change as the sentinel: everything the whisper caused came before it
    assert table.phones[1].send("bid", {"n": 2})["ok"]
    got = obs.wait(lambda g: any(k == "state" for k, _, _ in g[start:]))
    order = [(k, w) for k, w, _ in after(got, start)]
    first_event = order.index(("events", None))
    assert order[:first_event] == [("reply", ids(table)[0])], order
    assert table.bridge.stats["unchanged"] >= 4        # Ann's own view, then 3 views + state
    # a late subscriber still gets every document, whole
    assert table.bridge.retained_revs()[0] == rev + 2 == table.hub.session.version
    late = SeatClient(ann.base_url, ann.creds).connect()
    try:
        view = late.wait_view(lambda v: v.get("rev", 0) >= rev + 2)
        assert view["windows"][0]["locked"]["1"]["commitment"]
        assert set(view) >= {"rev", "now", "timers", "legal", "private", "seat", "hub"}
        assert "left" in view["timers"]["bid"]
    finally:
        late.client.close()


@ACK_FIRST
def test_commands_that_arrive_together_are_saved_by_one_commit(table):
    """Three bids queue behind a busy worker: the three are applied one after the other and
    made durable by one COMMIT (one fsync), and every reply leaves after that save."""
    commits = []
    table.hub.log._db.set_trace_callback(
        lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    table.bridge.trace = []
    release = threading.Event()
    table.bridge.call_soon(release.wait, 10)             # the worker is busy
    txs = [p.publish_command("bid", {"n": n}) for p, n in zip(table.phones, (1, 2, 3))]
    # three commands queued (qsize() alone also counted the busy job while the worker had
    # not yet taken it, so on a loaded machine the third bid came after the release: 2 groups)
    handle = table.bridge._handle_command
    assert wait_until(lambda: sum(1 for j in list(table.bridge._jobs.queue)
                                  if j and j[0] == handle) >= 3)
    release.set()
    for p, tx in zip(table.phones, txs):
        assert p.wait_reply(tx, timeout=10)["ok"]
    table.bridge.wait_idle()
    rows = [r for r in table.bridge.trace if r[0] in txs]
    assert sorted(r[0] for r in rows) == sorted(txs)
    assert len({r[2] for r in rows}) == 1 and len({r[4] for r in rows}) == 1    # one group
    assert all(r[3] <= r[4] <= r[5] for r in rows)       # applied, saved, then replied
    assert commits == ["COMMIT"]
    assert table.bridge.stats["grouped"] >= 2


LOST_GROUP = """
import json, os, resource, signal, sys, threading, time
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer
from tests.core.toy import Toy
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)          # a write past the limit fails (EFBIG)
db = sys.argv[1]
srv = TableServer("lost", db=db, game="toy", players=3, broker="embedded", bind="127.0.0.1",
                  http_port=0, mqtt_port=0, ws_port=0, seed=3, games=lambda n: Toy()).start()
base = f"http://127.0.0.1:{srv.web.port}"
phones = [SeatClient.join(base, n, srv.hub.room_code).connect() for n in ("Ann", "Bo", "Cy")]
for p in phones:
    p.wait_view(lambda v: v.get("prompt") is not None, timeout=20)
srv.bridge.wait_idle()
release = threading.Event()
srv.bridge.call_soon(release.wait, 10)                  # the worker is busy
txs = [p.publish_command("bid", {"n": n}) for p, n in zip(phones, (1, 2, 3))]
deadline = time.monotonic() + 10
while srv.bridge._jobs.qsize() < 3 and time.monotonic() < deadline:
    time.sleep(0.01)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(db + "-wal"), hard))
release.set()
first = [p.wait_reply(tx, timeout=10) for p, tx in zip(phones, txs)]
srv.bridge.wait_idle()
time.sleep(0.3)                                         # anything published would be in
seen = [[e.get("type") for e in p.events] for p in phones]
locked = [p.latest["view"]["windows"][0]["locked"] for p in phones]
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))   # room again
again = [p.send("bid", {"n": n}, tx=tx, timeout=10) for p, n, tx in zip(phones, (1, 2, 3), txs)]
session = srv.hub.session.id
lost = srv.bridge.stats["groups_lost"]
for p in phones:
    p.close()
srv.stop()
print(json.dumps({"first": first, "again": again, "seen": seen, "locked": locked,
                  "lost": lost, "session": session, "txs": txs}))
"""


def test_a_group_the_disk_cannot_save_is_answered_not_saved_and_can_be_sent_again(tmp_path):
    """The disk fills while three bids wait: none is kept, each phone is told its bid was not
    saved (in words, safe to retry), no phone sees a lock-in that was never saved, and the
    same commands sent again with the same tx are applied once each."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    db = tmp_path / "full.db"
    r = subprocess.run([sys.executable, "-c", LOST_GROUP, str(db)], cwd=root,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["lost"] >= 1
    for reply in out["first"]:
        assert not reply["ok"] and reply["error"]["code"] == "cannot_save", reply
        assert "Cannot save" in reply["error"]["message"]
    assert all("ChoiceLocked" not in kinds for kinds in out["seen"]), out["seen"]
    assert out["locked"] == [{}, {}, {}]
    assert all(reply["ok"] for reply in out["again"]), out["again"]
    from companion.core.log import SQLiteLog
    log = SQLiteLog(db)
    txs = [x.get("tx") for x in log.read(out["session"]) if x.get("tx")]
    log.close()
    assert sorted(txs) == sorted(out["txs"])            # each once, none twice
