"""The Menu's Club (issue 24, docs/club.md): a table joins a club by typing its address on the
screen's keyboard; the dialog says what happened in words. Against a real club broker and club
page (their PostgreSQL is away: the table is in the club, its records wait, and the dialog says
so), and against an address where nothing answers (the table stays out and says why)."""
import time
from types import SimpleNamespace

import pytest

from companion.club.broker import ClubBroker
from companion.club.membership import ClubLink
from companion.club.server import ClubServer
from companion.core.log import SQLiteLog
from companion.net.brokers import free_port, mosquitto_available
from companion.service.hub import Hub

pytestmark = pytest.mark.skipif(not mosquitto_available(), reason="mosquitto is not installed")


@pytest.fixture
def table(tmp_path, clock):
    log = SQLiteLog(tmp_path / "sessions.db")
    hub = Hub(log, table="kitchen", clock=clock)
    hub.configure("great-powers", players=4, names=["Ann", "Bo", "Cy", "Di"])
    hub.start(seed=3)
    server = SimpleNamespace(hub=hub, table="kitchen", store_path=log.path, broker=None)
    hub.club = ClubLink(server).start()
    yield hub
    hub.club.stop()
    hub.stop()
    log.close()


def type_address(d, text):
    for ch in text:
        d.tap(d.tid(f"key:{ch}"), pump=False)
    d.pump()


def open_club(d):
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:club"))


def wait_text(d, needle, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        d.pump()
        status = d.tid("club:status").text
        if needle in status:
            return status
        time.sleep(0.1)
    raise AssertionError(f"the Club dialog never said {needle!r}: "
                         f"{d.tid('club:status').text!r}")


def test_a_table_joins_a_club_by_typing_its_address(table, start_app):
    broker = ClubBroker("127.0.0.1", 0, 0, persistence=False).start()
    dead_record = f"postgresql://tc_box:x@127.0.0.1:{free_port('127.0.0.1')}/club"
    page = ClubServer("Thursday club", dead_record, "127.0.0.1", broker.tcp_port,
                      f"ws://{{host}}:{broker.ws_port}/mqtt", broker.viewer.password,
                      broker.claim, host="127.0.0.1", port=0,
                      public_host="127.0.0.1", known=broker.tables,
                      proven=broker.proven).start()
    try:
        d = start_app(table)
        open_club(d)
        assert "in no club" in d.tid("club:status").text
        d.check("club-dialog-none")
        address = f"127.0.0.1:{page.port}/join/{page.code.lower()}"
        type_address(d, address)
        assert d.tid("club:join").disabled is False
        d.tap(d.tid("club:join"))
        wait_text(d, "Waiting for the organiser")          # joining is the organiser's call
        assert broker.tables() == []
        assert page.allow("kitchen")
        status = wait_text(d, "In the club Thursday club")
        assert "waiting" in status or "none waiting" in status
        status = wait_text(d, "the club is away")        # its PostgreSQL is not there
        d.check("club-dialog-joined-record-away")
        assert broker.tables() == ["kitchen"]              # its login at the club
        kept = table.kept("club")
        assert kept["club"] == "Thursday club" and kept["broker"]["username"] == "kitchen"
        assert table.log.table_meta("kitchen")["club"] == kept       # kept with the room
        assert table.log.table_meta("kitchen")["room"] == table.room_code
        d.tap(d.tid("club:leave"))
        d.tap(d.tid("confirm:leave-club"))
        end = time.monotonic() + 10
        while table.kept("club") is not None and time.monotonic() < end:
            d.pump()
        assert table.kept("club") is None
    finally:
        page.stop()
        broker.stop()


def test_an_address_where_nothing_answers_is_said_and_the_table_plays_on(table, start_app):
    d = start_app(table)
    open_club(d)
    type_address(d, f"127.0.0.1:{free_port('127.0.0.1')}/join/abcd")
    d.tap(d.tid("club:join"))
    status = wait_text(d, "did not answer")
    assert "the table plays on" in status and "is in no club" in status
    d.check("club-dialog-no-answer")
    assert table.kept("club") is None
    assert table.session is not None and table.public_view()["outcome"] is None
