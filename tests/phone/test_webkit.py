"""The phone page in WebKit (Debian's WebKitGTK through its WebDriver: tests/phone/webkit.py) at
a phone's size, 390 x 844, against a real table: a player joins by the QR code's URL, locks in a
sealed Great Powers bid by taps beside two protocol seats, and sees every reveal line verified
(the page checks each choice against its commitment: hashing, canonical JSON and Unicode in
WebKit's JavaScriptCore, not V8); and a captive-portal probe, sent through WebKit as a phone on
the box's own Wi-Fi sends it, lands on the join form with the room code filled in.

Screenshots go to screenshots/phone/webkit-join.png and webkit-reveal.png (git-ignored, like the
Chromium tests' own: a run leaves the checkout clean); docs/network/phone-webkit-join.png and
phone-webkit-reveal.png are copies of them, renewed by hand when the page changes."""
import pathlib
import random

import pytest

from companion.net.portal import Portal
from companion.net.seat_client import SeatClient

from ..teardown import close_all
from . import webkit as wk
from .conftest import start_table, url_from_qr, value_sel, wait_until

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "phone"
WIDTH, HEIGHT = 390, 844


@pytest.fixture(scope="module")
def webkit(tmp_path_factory):
    why = wk.available()
    if why:
        pytest.fail(f"WebKit cannot run: {why}")
    w = wk.WebKit(tmp_path_factory.mktemp("webkit"))
    yield w
    w.close()


@pytest.fixture
def windows(webkit):
    """``open(proxy=None)``: a WebKit window at phone size; each must end without a JavaScript
    error."""
    made = []

    def open_(**kw):
        s = webkit.session(WIDTH, HEIGHT, **kw)
        made.append(s)
        return s

    yield open_
    errors = [s.errors() for s in made]
    close_all(made, "a WebKit window")
    assert not any(errors), f"JavaScript errors in WebKit: {errors}"


def fits(s):
    return s.js("return [innerWidth, document.documentElement.scrollWidth]") == [WIDTH, WIDTH]


def test_a_player_joins_locks_in_a_sealed_bid_by_taps_and_sees_it_verified(servers, windows,
                                                                          tmp_path):
    srv = start_table(tmp_path, "wk", "great-powers", 3, seed=11)
    servers(srv)
    room = srv.hub.room_code
    ann = windows()
    ann.goto(url_from_qr(srv))                  # what her camera read off the table's QR code
    ann.wait("document.getElementById('join-room').value === arguments[0]", room,
             what="the room code in the join form")
    ann.type("#join-name", "Ann")
    assert fits(ann)
    ann.screenshot(SHOTS / "webkit-join.png")
    ann.tap("#join-button")
    ann.wait("document.querySelector('#me .name')?.textContent === 'Ann'", what="her seat")
    assert srv.hub.seats[0].name == "Ann"
    base = f"http://127.0.0.1:{srv.web.port}"
    others = [SeatClient.join(base, name, room).connect() for name in ("Bo", "Cy")]
    try:
        assert wait_until(lambda: srv.hub.session is not None)     # all seats taken: it starts
        ann.wait_for("[data-form=submit_bids]")
        [move] = srv.hub.seat_view(0)["legal"]
        [spec] = move["args"]
        assert spec["kind"] == "order"
        allowed = [o["value"] for o in spec["options"] if not o.get("disabled")]
        random.Random(1).shuffle(allowed)
        order = allowed[:spec["max"]]
        assert ann.js("return [...document.querySelectorAll('[data-arg=traits]')]"
                      ".map(b => JSON.parse(b.dataset.value))") == \
            [o["value"] for o in spec["options"]]
        for t in order:                          # her taps, in her order
            ann.tap(value_sel("traits", t))
        assert [ann.js("return document.querySelector(arguments[0]).dataset.rank",
                       value_sel("traits", t)) for t in order] == \
            [str(k + 1) for k in range(len(order))]
        labels = {o["value"]: o["label"] for o in spec["options"]}
        assert ann.text("#send") == "Lock in " + " → ".join(labels[t] for t in order)
        ann.tap("#send")
        ann.wait_for(".locked[data-window=bids-t1]")
        assert "checked on this phone" in ann.text(".locked")
        for c in others:
            v = c.wait_view(lambda v: v.get("legal"))
            [o_spec] = v["legal"][0]["args"]
            pick = [o["value"] for o in o_spec["options"] if not o.get("disabled")]
            assert c.send("submit_bids", {"traits": pick[:o_spec["max"]]})["ok"]
        window = srv.hub.session.state.windows["bids-t1"]
        assert wait_until(window.is_revealed)
        assert window.entries[0].choice == order
        # every line of the reveal, checked in WebKit against the commitment seen at lock-in
        sel = ".reveal[data-window='bids-t1'] li.pcard"
        ann.wait(f"document.querySelectorAll(\"{sel}\").length === 3 && "
                 f"[...document.querySelectorAll(\"{sel} .check\")]"
                 ".every(c => !c.textContent.includes('not seen'))",
                 what="three reveal lines, each checked")
        rows = ann.js(f"return [...document.querySelectorAll(\"{sel}\")].map(r => [r.dataset.seat,"
                      " r.querySelector('.check').textContent,"
                      " r.querySelector('.choice-text').textContent])")
        assert {seat: check for seat, check, _ in rows} == \
            {str(s): "✓ verified" for s in range(3)}
        assert dict((seat, text) for seat, _, text in rows)["0"] == \
            " → ".join(labels[t] for t in order)
        assert fits(ann)
        ann.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
               "scrollBy(0, r.top - document.getElementById('bar').offsetHeight - 8);"
               "const t = document.getElementById('toast');"
               "if (t) { t.style.transition = 'none'; t.classList.remove('show'); }",
               ".reveal[data-window='bids-t1']")
        ann.screenshot(SHOTS / "webkit-reveal.png")
    finally:
        close_all(others, "a seat client")


def test_a_captive_portal_probe_in_webkit_lands_on_the_join_form(servers, windows, tmp_path):
    """On the own Wi-Fi every name resolves to the box. Here WebKit's proxy setting does that:
    a request for any host but the loopback goes to the table's web server, with its own Host
    header, as iOS's captive-portal sheet's probe reaches the box."""
    srv = start_table(tmp_path, "wk-portal", "great-powers", 3)
    servers(srv)
    portal = srv.web.portal = Portal("127.0.0.1")  # the loopback plays the own Wi-Fi's address
    answered = []
    answer = portal.answer
    portal.answer = lambda local, host, path, client: answered.append(
        (host, path, a := answer(local, host, path, client))) or a
    phone = windows(proxy=f"127.0.0.1:{srv.web.port}")
    phone.goto("http://captive.apple.com/hotspot-detect.html")
    join = f"http://127.0.0.1:{srv.web.port}/?room={srv.hub.room_code}"
    assert answered[0] == ("captive.apple.com", "/hotspot-detect.html", ("redirect",))
    assert phone.url() == join                  # the portal's Location, followed by WebKit
    phone.wait("document.getElementById('join-room').value === arguments[0]",
               srv.hub.room_code, what="the room code in the join form")
    assert phone.js("return !document.getElementById('join-screen').hidden")
    assert fits(phone)
