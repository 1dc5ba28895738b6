"""The phones' timer follows the table's (issue 22): the same time left as the table screen
while it runs, through a table restart during the Trade Warz trade timer (it stops counting
while the table is gone, says "paused" while paused, and the feed says what happened), and
after a document that the table publishes later than the record it shows."""
import random
import time

from companion.net.brokers import free_ports
from ui.model import timer_left

from .conftest import drive, join_all, start_table, wait_until


def table_left(hub, name="trade"):
    """What the table screen shows: the view's timer at the session clock now."""
    return timer_left(hub.public_view()["timers"][name], hub.session_time())


def phone_left(ph):
    """Seconds left on the phone's timer (its m:ss read as text)."""
    digits = ph.page.evaluate("(document.querySelector('#bar-timer [data-clock]')"
                              " || document.getElementById('bar-timer')).textContent").strip()
    m, s = digits.split(":")
    return int(m) * 60 + int(s)


def agree(ph, hub, slack=1.6):
    """The phone reads what the table reads (give a redraw a moment)."""
    def close():
        return abs(phone_left(ph) - table_left(hub)) <= slack
    try:
        ph.page.wait_for_timeout(300)
        assert wait_until(close, timeout=3)
    except AssertionError:
        raise AssertionError(f"{ph.name} reads {phone_left(ph)} s, the table "
                             f"{table_left(hub):.1f} s") from None


def trade_running(st):
    t = st.timers.get("trade")
    return t is not None and not t.is_paused()


def test_phone_timer_follows_the_table_through_a_restart(servers, phones, tmp_path):
    ports = dict(zip(("http_port", "mqtt_port", "ws_port"), free_ports(3)))
    srv = start_table(tmp_path, "tw-timer", "trade-warz", 3, seed=13, **ports)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    drive(hub, trade_running, random.Random(5))
    tv = phones("TV", tv=True)                     # the spectator page follows it too
    tv.page.goto(f"http://127.0.0.1:{ports['http_port']}/watch")
    for ph in ps + [tv]:
        ph.page.wait_for_selector("#bar-timer[data-timer=trade]")
        agree(ph, hub)

    # a document published long after the record it shows: Cy's phone dies and the seat moves
    # to a new phone (no record; its view is published on a new topic): the new phone must
    # not take the time left at the last record as the time left now
    time.sleep(4)
    ho = hub.handover(2)
    new = phones("Cy2")
    new.page.goto(ho["url"])
    new.page.wait_for_selector("#bar-timer[data-timer=trade]")
    ps[2].page.wait_for_selector("#join-screen:not([hidden])", timeout=15_000)
    ps[2] = new
    for ph in ps + [tv]:
        agree(ph, hub)

    # the table dies mid-timer: the phones stop counting and say the table is gone
    session = hub.session.id
    srv.stop()
    for ph in ps:
        ph.page.wait_for_selector("#bar-conn:not(.on)")
    tv.page.wait_for_selector("#bar-conn:not(.on)")
    frozen = [phone_left(ps[0]), phone_left(tv)]
    ps[0].page.wait_for_timeout(2500)
    assert [phone_left(ps[0]), phone_left(tv)] == frozen, \
        "the phone (or the TV) kept counting while the table was gone"
    assert "stopped" in ps[0].page.text_content("#bar-timer")
    ps[0].shot("0-table-offline")
    time.sleep(3)

    # it comes back: the trade timer is paused with the time it had; every phone says so
    srv2 = start_table(tmp_path, "tw-timer", "trade-warz", 3, **ports)
    servers(srv2)
    hub = srv2.hub
    assert srv2.resumed is not None and hub.session.id == session
    assert hub.session.state.timers["trade"].is_paused()
    for ph in ps:
        ph.page.wait_for_selector("#bar-conn.on", timeout=20_000)
        ph.page.wait_for_selector("#bar-timer.paused", timeout=10_000)
        assert "paused" in ph.page.text_content("#bar-timer")
        agree(ph, hub)
        ph.page.wait_for_function(
            "() => [...document.querySelectorAll('#feed li')].some("
            "l => l.textContent.includes('The table restarted'))")
    tv.page.wait_for_selector("#bar-timer.paused", timeout=20_000)
    agree(tv, hub)
    ps[0].shot("1-paused-after-restart")
    time.sleep(3)                                  # people get ready
    hub.toggle_pause()                             # Resume on the table
    assert trade_running(hub.session.state)
    for ph in ps:
        ph.page.wait_for_selector("#bar-timer:not(.paused)")
        agree(ph, hub)
        assert "Timer running again" in ph.page.text_content("#feed") or \
            "running again" in ph.page.text_content("#feed")
    agree(tv, hub)
    ps[0].shot("2-running-after-resume")
    time.sleep(4)
    for ph in ps:
        agree(ph, hub)
    # a phone reloaded now gets the retained view, published at the Resume: it must count
    # from the table's clock, not from when the page read that document
    ps[1].page.reload()
    ps[1].page.wait_for_selector("#bar-timer[data-timer=trade]")
    agree(ps[1], hub)
    hub.toggle_pause()                              # Pause on the table
    for ph in ps:
        ph.page.wait_for_selector("#bar-timer.paused")
        assert "paused" in ph.page.text_content("#bar-timer")
        agree(ph, hub)
        assert "paused" in ph.page.text_content("#feed")
