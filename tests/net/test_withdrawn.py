"""The table undoes a sealed lock-in, over real brokers and real MQTT seat clients: every seat
is told (ChoiceWithdrawn with the withdrawn commitment, then Undone), the documents drop the
lock-in, the seat's lock-in made again has a new commitment and a higher ``rev``, and a client
that keeps commitments by the rules of docs/protocol.md section 4.4 verifies the reveal for
every seat, whether it read events and documents live or documents only. Nothing of a choice
(the choice, the salt) is on a public topic before the reveal, and the withdrawn choice's salt
never is, not even after it."""
import itertools
import json

import pytest

from companion.net import protocol
from companion.net.client import MqttClient
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer
from ..teardown import close_all
from ..waiting import wait_until

MODES = ["embedded", "mosquitto"]
W = "bids-t1"
HUB_PASSWORD = "withdrawn-test-hub-password-0123"
_tables = itertools.count(1)


class Book:
    """The commitments a client keeps, by the rules of protocol section 4.4 ("Keeping the
    commitments you saw"), written from the document alone: session -> window -> seat ->
    (commitment, rev)."""

    def __init__(self):
        self.kept = {}
        self.revs = {}                          # topic -> the rev of the document shown

    def _page(self, session, window):
        return self.kept.setdefault(session, {}).setdefault(window, {})

    def _lock(self, page, seat, digest, rev):
        if not digest:
            return
        rev = rev if isinstance(rev, int) else 0
        k = page.get(seat)
        if k is None or rev > k[1]:             # new, or locked in again after an undo
            page[seat] = (digest, rev)
        # else: the same, or another commitment under the same lock-in: keep what was seen

    def event(self, session, ev):
        if ev["type"] == "ChoiceLocked":
            self._lock(self._page(session, ev["window"]), ev["seat"], ev["commitment"],
                       ev.get("rev"))
        elif ev["type"] == "ChoiceWithdrawn":
            page = self._page(session, ev["window"])
            if page.get(ev["seat"], (None,))[0] == ev["commitment"]:
                del page[ev["seat"]]

    def document(self, topic, doc):
        rev = doc.get("rev")
        if isinstance(rev, int) and rev < self.revs.get(topic, -1):
            return                              # stale (section 6)
        self.revs[topic] = rev
        for w in doc.get("windows") or ():
            if w["revealed"]:
                continue
            page = self._page(doc["session"], w["id"])
            locked = {int(k): v for k, v in w["locked"].items()}
            for seat in list(page):
                if seat not in locked and isinstance(rev, int) and rev >= page[seat][1]:
                    del page[seat]              # withdrawn while this client was away
            for seat, item in locked.items():
                self._lock(page, seat, item.get("commitment"), item.get("rev"))

    def expected(self, session, window):
        return {s: c for s, (c, _) in self._page(session, window).items()}


def replay(phone, session, documents_only=False):
    """A Book fed with what ``phone`` received, in order (events skipped if
    ``documents_only``: a client that missed them all)."""
    book = Book()
    t = phone.topics
    for m in phone.received:
        try:
            msg = json.loads(m.payload)
        except ValueError:
            continue
        if m.topic == t["events"] and not documents_only:
            book.event(session, msg)
        elif m.topic in (t["state"], t["view"]) and msg.get("session") == session:
            book.document(m.topic, msg)
    return book


@pytest.fixture(params=MODES)
def table(request, tmp_path):
    opts = {"binary": "/usr/sbin/mosquitto"} if request.param == "mosquitto" else {}
    srv = TableServer(f"withdrawn-{next(_tables)}", db=tmp_path / "s.db", game="great-powers",
                      players=3, broker=request.param, bind="127.0.0.1", http_port=0,
                      mqtt_port=0, ws_port=0, broker_options=opts, seed=7,
                      hub_password=HUB_PASSWORD).start()
    base = f"http://127.0.0.1:{srv.web.port}"
    made = []
    srv.join = lambda name: made.append(SeatClient.join(base, name, srv.hub.room_code)
                                        .connect()) or made[-1]
    yield srv
    close_all(made, "a seat client")
    srv.stop()


def bid(view, k):
    """A legal bid, in an order no public list has (the allowed traits from the k-th on, last
    first), so the choice could be recognised in any payload."""
    p = view["prompt"]
    allowed = p["allowed"][k:] + p["allowed"][:k]
    return {"traits": list(reversed(allowed[:p["count"]]))}


def events_of(phone, kind):
    return [e for e in phone.events if e["type"] == kind]


def test_a_withdrawn_lock_in_reaches_every_seat_and_no_secret_leaks(table):
    t = table.bridge.topics
    # a spy with the hub's own login reads every topic; only the public ones are checked
    spy_messages = []
    spy = MqttClient(table.broker.url, "hub", HUB_PASSWORD,
                     on_message=spy_messages.append).connect()
    spy.subscribe([(f"{t.base}/#", 1)])
    ann = table.join("Ann")
    # Ann tries every wildcard a curious player could (section 3.2: she gets nothing extra)
    ann.client.subscribe([("#", 1), (f"{t.base}/#", 1), (f"{t.base}/seat/+/view", 1),
                          (f"{t.base}/seat/+/reply", 1), (f"{t.base}/seat/+/cmd", 1)])
    bo, cy = table.join("Bo"), table.join("Cy")
    seats = (ann, bo, cy)
    assert wait_until(lambda: table.hub.session is not None)
    for p in seats:
        p.wait_view(lambda v: v.get("prompt") is not None)
    session = table.hub.session.id
    first = bid(bo.latest["view"], 0)
    assert bo.send("submit_bids", first)["ok"]
    mine = bo.wait_view(lambda v: "1" in v["windows"][0]["locked"])["windows"][0]["locked"]["1"]
    salt1, c1, r1 = mine["salt"], mine["commitment"], mine["rev"]
    for p in seats:                  # everyone has Bo's commitment, and the lock-in's rev
        p.wait_state(lambda s: "1" in s["windows"][0]["locked"])
        [ev] = events_of(p, "ChoiceLocked")
        assert (ev["seat"], ev["commitment"], ev["rev"]) == (1, c1, r1)
        assert set(ev) == {"v", "seq", "type", "window", "seat", "commitment", "rev"}

    # the table undoes Bo's lock-in (its Undo button: through the hub, as the screen does)
    table.bridge.call(table.hub.undo)
    for p in seats:
        p.wait_state(lambda s: s["rev"] > r1 and "1" not in s["windows"][0]["locked"])
        withdrawn = [e for e in p.events if e["type"] in ("ChoiceWithdrawn", "Undone")]
        assert [e["type"] for e in withdrawn] == ["ChoiceWithdrawn", "Undone"], p.seat
        gone, undone = withdrawn
        assert gone == {"v": 1, "seq": gone["seq"], "type": "ChoiceWithdrawn", "window": W,
                        "seat": 1, "commitment": c1}
        assert undone == {"v": 1, "seq": gone["seq"], "type": "Undone", "what": "BidsSealed",
                          "seat": 1, "label": "Bid on traits"}
    view = bo.wait_view(lambda v: v["prompt"] is not None)      # Bo is asked again
    assert "1" not in view["windows"][0]["locked"] and view["rev"] > r1

    # Bo locks in the same bid again: a new salt, so a new commitment, and a higher rev
    assert bo.send("submit_bids", first)["ok"]
    mine = bo.wait_view(lambda v: "1" in v["windows"][0]["locked"])["windows"][0]["locked"]["1"]
    salt2, c2, r2 = mine["salt"], mine["commitment"], mine["rev"]
    assert salt2 != salt1 and c2 != c1 and r2 > r1
    assert mine["choice"] == first["traits"]
    for p in (ann, cy):
        p.wait_state(lambda s: s["windows"][0]["locked"].get("1", {}).get("rev") == r2)

    # nothing of Bo's choice on a public topic, nor anything of his that Ann may not read
    seq = table.hub.session.state.seq
    ann.wait_state(lambda s: s["seq"] == seq)
    choice_text = json.dumps(first["traits"], separators=(",", ":")).encode()
    public = (t.state, t.events, t.hub_status)

    def leaks(messages, salts):
        out = []
        for m in messages:
            if not (m.topic in public or m.topic.endswith("/presence")
                    or m.topic in (ann.topics["view"], cy.topics["view"])):
                if m.topic.startswith(f"{t.base}/seat/") and m in ann.received:
                    out.append(f"Ann received {m.topic}")
                continue
            out += [f"a salt on {m.topic}" for s in salts if s.encode() in m.payload]
            if choice_text in m.payload:
                out.append(f"Bo's choice on {m.topic}")
            doc = json.loads(m.payload)
            for w in doc.get("windows") or ():
                for k, item in w["locked"].items():
                    if not w["revealed"] and k != str(doc.get("seat")) and \
                            ("choice" in item or "salt" in item):
                        out.append(f"seat {k}'s choice in {m.topic}")
        return out

    spied = list(spy_messages)
    assert len(spied) > 10 and any(m.topic == t.events for m in spied)
    assert not leaks(spied, [salt1, salt2])
    assert not leaks(ann.received, [salt1, salt2])

    # Ann and Cy lock in: the reveal. A client that kept commitments by the rules verifies
    # every seat, from events and documents or from documents alone
    assert ann.send("submit_bids", bid(ann.latest["view"], 1))["ok"]
    assert cy.send("submit_bids", bid(cy.latest["view"], 2))["ok"]
    for p in seats:
        revealed = p.wait_state(lambda s: s["windows"] and s["windows"][0]["revealed"])
        [ev] = [e for e in p.events if e["type"] == "ChoicesRevealed"]
        assert ev["choices"]["1"]["commitment"] == c2
        for documents_only in (False, True):
            book = replay(p, session, documents_only)
            assert book.expected(session, W)[1] == c2
            assert protocol.verify_reveal(ev, book.expected(session, W)) == \
                {0: True, 1: True, 2: True}, (p.seat, documents_only)
        # the first lock-in's commitment would have failed: the check can see a change
        assert protocol.verify_reveal(ev, {1: c1})[1] is False
        assert revealed["windows"][0]["locked"]["1"]["rev"] == r2
    # the revealed salt is public now; the withdrawn one never is
    assert wait_until(lambda: any(salt2.encode() in m.payload for m in spy_messages
                                  if m.topic in public))
    others = (ann.topics["view"], cy.topics["view"])
    assert not any(salt1.encode() in m.payload for m in spy_messages
                   if m.topic in public + others or m.topic.endswith("/presence"))
    assert not any(salt1.encode() in m.payload for m in ann.received + cy.received)
    spy.close()
