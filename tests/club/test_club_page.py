"""The club page (issue 24, parts 2 and 4) against a real club broker: mosquitto with TCP and
WebSockets listeners, the club's web server, and a publisher putting real public states on the
club's topics (games played a few moves by real hubs, wrapped as the bridge publishes them),
read by headless Chromium (Playwright). Also the join address: the right code gives the record
and a broker login that works, a wrong one a 403 with a sentence.

Screenshots: /tmp/club-page-3.png (three tables) and /tmp/club-page-100.png (100 tables).
"""
import json
import random
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

from companion.club.broker import ClubBroker
from companion.club.server import VIEWER_USER, ClubServer
from companion.core.choices import sample
from companion.core.clock import SessionClock
from companion.core.log import MemoryLog
from companion.games import get
from companion.net import credentials as cred
from companion.net import protocol
from companion.net.brokers import mosquitto_available
from companion.net.client import MqttClient
from companion.net.topics import TableTopics
from companion.service.hub import Hub
from tests.phone.conftest import CHROMIUM, FLAGS     # launched as the phone tests do


pytestmark = pytest.mark.skipif(not mosquitto_available(), reason="mosquitto is not installed")

RECORD = "postgresql://club@127.0.0.1:5432/club"
PAGE_WAIT = 120_000         # ms: generous, the machine is shared (and see test_a_hundred_tables)


@pytest.fixture(scope="module")
def broker():
    """The club's own broker (companion.club.broker): its wall, its logins."""
    b = ClubBroker(host="127.0.0.1", tcp_port=0, ws_port=0, persistence=False)
    b.start()
    yield b
    b.stop()


@pytest.fixture(scope="module")
def logins(broker):
    return {VIEWER_USER: broker.viewer.password}


@pytest.fixture(scope="module")
def club(broker, logins):
    server = ClubServer("Friday Club", RECORD, "127.0.0.1", broker.tcp_port,
                        f"ws://{{host}}:{broker.ws_port}/mqtt", logins[VIEWER_USER],
                        broker.claim, host="127.0.0.1", port=0, public_host="127.0.0.1",
                        known=broker.tables, proven=broker.proven,
                        remove_table=broker.remove_table)
    server.start()
    yield server
    server.stop()


class Bridges:
    """What the boxes' bridges do on the club broker: each table's topics published with
    that table's own login (the club's wall lets a table write its own public topics only)."""

    def __init__(self, broker):
        self.broker, self.clients = broker, {}

    def publish(self, topic, payload, **kw):
        table = topic.split("/")[2]
        c = self.clients.get(table)
        if c is None:
            c = self.clients[table] = MqttClient(self.broker.url, table,
                                                 self.broker.add_table(table)).connect()
        return c.publish(topic, payload, **kw)

    def close(self):
        for c in self.clients.values():
            c.close()


@pytest.fixture(scope="module")
def publisher(broker):
    b = Bridges(broker)
    yield b
    b.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


# -- real tables ----------------------------------------------------------------------------------

NAMES = ["Ann", "Bo", "Cy", "Di"]


def play(table, game, players, until, seed=2, steps=80):
    """A hub at ``table`` playing ``game``: each seat the table waits for plays its first legal
    move with random arguments, until ``until(public view)``."""
    hub = Hub(MemoryLog(), table=table, games=get, clock=SessionClock())
    hub.configure(game, players=players)
    for name in NAMES[:players]:
        hub.join(name, hub.room_code)
    hub.start(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        v = hub.public_view()
        if until(v):
            return hub
        if not v["waiting"]:
            hub.next()
            continue
        seat = v["waiting"][0]
        move = hub.session.seat_view(seat)["legal"][0]
        hub.submit(seat, move["move"], sample(move["args"], rng, skip_optional=0))
    raise AssertionError(f"{game} at {table} did not get there in {steps} moves")


def state_doc(hub, seat_ids, table=None):
    """The public state as the bridge publishes it (Publishing._decorate and _clock_now): the
    table and seat ids added, ``now`` and a running timer's ``left`` as of the sending."""
    doc = hub.public_view()
    doc["table"] = table or hub.table
    doc["seat_ids"] = seat_ids
    now = hub.session_time()
    if now is not None and "now" in doc:
        doc["now"] = round(now, 3)
        doc["timers"] = {n: dict(t, left=round(max(0.0, t["deadline"] - now), 3))
                         if not t.get("paused") and isinstance(t.get("deadline"), (int, float))
                         else t for n, t in doc["timers"].items()}
    return doc


def publish_table(client, table, doc, online, link=True, hub_online=True):
    """Everything a box's bridge puts on the club broker for one table: hub status, each
    seat's presence (``online``: per seat), the state, and the link notice."""
    t = TableTopics(table)
    client.publish(t.hub_status, protocol.encode(protocol.hub_status(
        hub_online, doc.get("session"), "boot1")), retain=True)
    for sid, on in zip(doc["seat_ids"], online):
        client.publish(t.presence(sid), protocol.encode(protocol.presence(on)), retain=True)
    client.publish(t.state, protocol.encode(doc), retain=True)
    client.publish(f"{t.base}/club/link", b"1" if link else b"0", retain=True)


def seat_ids(n):
    return [cred.new_seat_id(i + 1) for i in range(n)]


@pytest.fixture(scope="module")
def three(publisher):
    """attic: Trade Warz in its trade phase, timer running, 3 of 4 phones connected;
    garden: Market Trading, its link to the club lost; kitchen: Great Powers, over in round 2."""
    attic = play("attic", "trade-warz", 4, lambda v: v["timers"])
    garden = play("garden", "market-trading", 4, lambda v: v["phase"] != "lobby")
    kitchen = play("kitchen", "great-powers", 3, lambda v: v["round"] >= 2)
    kitchen.end_game()
    docs = {}
    for hub, n, online, link in ((attic, 4, [True, True, False, True], True),
                                 (garden, 4, [True] * 4, False),
                                 (kitchen, 3, [True, False, False], True)):
        doc = docs[hub.table] = state_doc(hub, seat_ids(n))
        publish_table(publisher, hub.table, doc, online, link=link)
    return docs


def open_page(browser, club, width=1920, height=1080):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(PAGE_WAIT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"http://127.0.0.1:{club.port}/")
    return ctx, page, errors


def wait_for_tables(page, n):
    """Until the page has ``n`` tables with everything their publisher sent (state, hub
    status, link, every seat's presence) and has drawn it."""
    page.wait_for_function("""(n) => window.club && !window.club.pending &&
        Object.keys(window.club.tables).length === n &&
        Object.values(window.club.tables).every(t => t.state && t.hub && t.link !== null &&
            (t.state.seat_ids || []).every(s => s in t.presence))""", arg=n)


def cards(page):
    return page.eval_on_selector_all(".t-card", """cs => cs.map(c => ({
        table: c.dataset.table, silent: c.dataset.silent, over: c.dataset.over,
        round: c.dataset.round,
        game: c.querySelector('.t-game').textContent,
        phase: c.querySelector('.t-phase').textContent,
        status: c.querySelector('.t-status').textContent,
        timer: c.querySelector('.t-timer').textContent,
        winner: c.querySelector('.t-winner').hidden ? null : c.querySelector('.t-winner').textContent,
        players: [...c.querySelectorAll('.t-players li')].map(li => ({
            name: li.querySelector('.t-name').textContent,
            score: (li.querySelector('.t-score') || {}).textContent || null,
            online: li.dataset.online === '1'}))}))""")


# -- the page ---------------------------------------------------------------------------------

def test_the_page_shows_every_table_live(browser, club, three):
    ctx, page, errors = open_page(browser, club)
    try:
        wait_for_tables(page, 3)
        # the timer counts down once drawn
        page.wait_for_function("() => document.querySelector('[data-table=attic] .t-timer .digits')")
        got = {c["table"]: c for c in cards(page)}
        assert [c["table"] for c in cards(page)] == ["attic", "garden", "kitchen"]

        attic, garden, kitchen = got["attic"], got["garden"], got["kitchen"]
        a = three["attic"]
        assert attic["game"] == (a["game_view"].get("edition_title") or a["title"])
        assert attic["phase"] == f"Round {a['round']} · {a['phase_label']}"
        assert attic["silent"] == "" and attic["status"] == "live"
        assert [p["name"] for p in attic["players"]] == a["players"]
        assert [p["score"] for p in attic["players"]] == [f"{x} GDP" for x in a["game_view"]["gdp"]]
        assert [p["online"] for p in attic["players"]] == [True, True, False, True]
        left = a["timers"]["trade"]["left"]
        mins, secs = attic["timer"][:4].split(":")
        assert 0 < int(mins) * 60 + int(secs) <= left + 1

        g = three["garden"]
        assert garden["silent"] == "link" and "link to the club lost" in garden["status"]
        assert garden["game"] == g["title"] and g["phase_label"] in garden["phase"]
        assert all(p["online"] for p in garden["players"])
        # Market Trading's points during the game (the card showed none, issue 35)
        assert [p["score"] for p in garden["players"]] == [
            f"{x} pts" for x in three["garden"]["game_view"]["earned"]]

        k = three["kitchen"]
        o = k["outcome"]
        assert kitchen["over"] == "1" and kitchen["phase"].startswith("Game over")
        winners = " and ".join(k["players"][s] for s in o["winners"])
        assert kitchen["winner"] == ("Winners: " if len(o["winners"]) > 1 else "Winner: ") + winners
        assert [p["score"] for p in kitchen["players"]] == [str(o["scores"][str(i)])
                                                           for i in range(3)]
        assert [p["online"] for p in kitchen["players"]] == [True, False, False]

        assert page.text_content("#club-name") == "Friday Club"
        assert club.code not in page.content()          # the organiser gives it, not the wall
        assert page.evaluate("document.body.dataset.loaded") == "1"
        assert "3 tables · 1 silent" in page.text_content("#club-count")
        page.screenshot(path="/tmp/club-page-3.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1920
        assert errors == []
    finally:
        ctx.close()


def test_a_message_redraws_its_own_card_only(browser, club, three, publisher):
    """A presence change reaches its card; the other cards' nodes are not replaced."""
    ctx, page, errors = open_page(browser, club)
    try:
        wait_for_tables(page, 3)
        page.evaluate("""() => { window.__kept = [...document.querySelectorAll(
            '[data-table=garden] li, [data-table=kitchen] li')]; }""")
        sid = three["attic"]["seat_ids"][2]
        publisher.publish(TableTopics("attic").presence(sid),
                          protocol.encode(protocol.presence(True)), retain=True)
        page.wait_for_function("() => document.querySelector('[data-table=attic] li[data-seat=\"2\"]')"
                               ".dataset.online === '1'")
        assert page.evaluate("window.__kept.every(li => li.isConnected)")
        assert errors == []
    finally:
        ctx.close()
        publisher.publish(TableTopics("attic").presence(three["attic"]["seat_ids"][2]),
                          protocol.encode(protocol.presence(False)), retain=True)


def test_a_hundred_tables(browser, club, three, publisher):
    """97 more tables published by a loop (real states of six games in play, each under its
    own table id and seat ids), a few of them with their hub offline.

    mosquitto 2.0's WebSockets listener hands the page the first burst slowly: ~600 retained
    messages took ~17 s here, against 0.05 s on its TCP listener (upstream
    eclipse-mosquitto/mosquitto#2252, libwebsockets), hence the generous wait."""
    shapes = [play("x", "trade-warz", 4, lambda v: v["timers"], seed=3),
              play("x", "great-powers", 3, lambda v: v["round"] >= 2, seed=4),
              play("x", "market-trading", 4, lambda v: v["phase"] != "lobby", seed=5),
              play("x", "battle-builder", 2, lambda v: v["phase"] != "lobby", seed=6),
              play("x", "great-powers", 4, lambda v: v["phase"] != "lobby", seed=7),
              play("x", "trade-warz", 3, lambda v: v["phase"] != "lobby", seed=8)]
    rng = random.Random(1)
    offline = set()
    for i in range(97):
        table = f"t{i:03d}"
        hub = shapes[i % len(shapes)]
        doc = state_doc(hub, seat_ids(len(hub.seats)), table=table)
        hub_online = i % 25 != 7
        if not hub_online:
            offline.add(table)
        publish_table(publisher, table, doc, [rng.random() < 0.8 for _ in hub.seats],
                      hub_online=hub_online)
    ctx, page, errors = open_page(browser, club)
    try:
        wait_for_tables(page, 100)
        got = cards(page)
        ids = [c["table"] for c in got]
        assert ids == sorted(ids) and len(ids) == 100
        assert {c["table"] for c in got if c["silent"] == "offline"} == offline
        assert page.evaluate("document.body.dataset.density") == "dense"
        page.screenshot(path="/tmp/club-page-100.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1920
        assert errors == []
    finally:
        ctx.close()


# -- joining ----------------------------------------------------------------------------------------

def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_join_with_the_right_code_gives_the_record_and_a_working_login(club, broker, three):
    ask = {"table": "cellar", "request": "r" * 32}
    status, answer = post(club.join_url("127.0.0.1"), ask)
    assert status == 202 and answer["asking"] and answer["table"] == "cellar"
    assert "broker" not in answer and "record" not in answer
    assert "cellar" not in broker.tables()          # no login before the organiser says so
    status, _ = post(club.join_url("127.0.0.1"), {"table": "cellar", "request": "x" * 32})
    assert status == 202                            # another asker is another request
    assert club.allow("cellar")
    status, answer = post(club.join_url("127.0.0.1"), dict(ask, request="y" * 32))
    assert status == 202                            # not the token that asked: no answer
    status, answer = post(club.join_url("127.0.0.1"), ask)
    assert status == 200
    assert answer["club"] == "Friday Club" and answer["record"] == RECORD
    b = answer["broker"]
    assert (b["host"], b["port"], b["username"]) == ("127.0.0.1", broker.tcp_port, "cellar")
    c = MqttClient(f"mqtt://{b['host']}:{b['port']}", b["username"], b["password"]).connect()
    watch = MqttClient(broker.url, broker.club.username, broker.club.password).connect()
    try:                            # the login works: what it publishes reaches the club
        c.publish(TableTopics("cellar").state, json.dumps({"table": "cellar"}), retain=True)
        watch.subscribe([(TableTopics("cellar").state, 1)])
        got = watch.wait_for(lambda m: m.topic == TableTopics("cellar").state, timeout=30)
        assert json.loads(got[-1].payload)["table"] == "cellar"
        c.subscribe([(TableTopics("attic").state, 1)])          # and reads no other table
        with pytest.raises(TimeoutError):
            c.wait_for(lambda m: m.topic == TableTopics("attic").state, timeout=2)
        c.publish(TableTopics("cellar").state, b"", retain=True)     # not a table on the page
    finally:
        c.close()
        watch.close()


def test_join_refusals(club):
    base = f"http://127.0.0.1:{club.port}/join/"
    status, answer = post(base + "WRONGCODE", {"table": "cellar"})
    assert status == 403
    message = answer["error"]["message"]
    assert message.endswith(".") and " " in message and "join code" in message
    status, answer = post(club.join_url("127.0.0.1"), {"table": "Bad Table"})
    assert status == 400 and "table id" in answer["error"]["message"]
    status, answer = post(club.join_url("127.0.0.1"), {"table": "hub"})
    assert status == 400


def test_join_address_in_a_browser_and_the_config(club, logins, broker):
    with urllib.request.urlopen(club.join_url("127.0.0.1"), timeout=30) as r:
        text = r.read().decode()
    assert "table's settings" in text and club.join_url("127.0.0.1") in text
    with urllib.request.urlopen(f"http://127.0.0.1:{club.port}/club/config", timeout=30) as r:
        cfg = json.loads(r.read())
    assert cfg["username"] == VIEWER_USER and cfg["password"] == logins[VIEWER_USER]
    assert cfg["ws_url"] == f"ws://127.0.0.1:{broker.ws_port}/mqtt"
    assert "join" not in cfg and club.code not in json.dumps(cfg)


# -- the organiser ----------------------------------------------------------------------------------

def test_the_organiser_lets_a_table_in_and_takes_it_out_of_the_page(browser, club, broker):
    """The organiser's page (behind its login) shows the join address and a table asking;
    Allow lets it in, its card comes on the wall; Remove takes it out: the card goes, and a
    reloaded page does not show its retained state either."""
    join = club.join_url("127.0.0.1")
    ask = {"table": "porch", "request": "p" * 32}
    assert post(join, ask)[0] == 202
    org = browser.new_context(viewport={"width": 1280, "height": 800}, http_credentials={
        "username": "organiser", "password": club.organiser_password})
    wall_ctx = c = None
    try:
        page = org.new_page()
        page.set_default_timeout(PAGE_WAIT)
        page.goto(f"http://127.0.0.1:{club.port}/organiser")
        page.wait_for_selector('#org-asking li[data-table="porch"]')
        assert page.text_content("#club-join-url") == join
        page.click('#org-asking li[data-table="porch"] button.primary')     # Allow
        page.wait_for_selector('#org-asking li[data-table="porch"]', state="detached")
        status, answer = post(join, ask)            # the box asks again: its logins
        assert status == 200 and answer["table"] == "porch"
        page.wait_for_selector('#org-tables li[data-table="porch"]')
        c = MqttClient(broker.url, "porch", answer["broker"]["password"]).connect()
        c.publish(TableTopics("porch").state, json.dumps(
            {"v": 1, "table": "porch", "session": "s-porch", "rev": 1}), retain=True)
        wall_ctx, wall, errors = open_page(browser, club)
        wall.wait_for_function("() => window.club && window.club.tables.porch && "
                               "document.querySelector('[data-table=porch]')")
        page.once("dialog", lambda d: d.accept())
        page.click('#org-tables li[data-table="porch"] button')             # Remove
        page.wait_for_selector('#org-tables li[data-table="porch"]', state="detached")
        assert "porch" not in broker.tables()
        wall.wait_for_function("() => !window.club.tables.porch && "
                               "!document.querySelector('[data-table=porch]')", timeout=30000)
        wall.reload()
        wall.wait_for_function("() => document.body.dataset.loaded === '1'")
        wall.wait_for_timeout(1000)
        assert wall.evaluate("() => Object.keys(window.club.tables)").count("porch") == 0
        assert errors == []
    finally:
        if c is not None:
            c.close()
        if wall_ctx is not None:
            wall_ctx.close()
        org.close()
