"""Coming back from the join QR on a real phone page (issue 22): a player whose phone dropped
out opens the table's join QR on another phone, types their name and is back in their seat;
a new person, with every seat taken, is offered the seat whose phone is offline and takes it."""
import pytest

from companion.service import hub as hubmod
from .conftest import join_all, start_table, url_from_qr, wait_until
from .zoo import games


@pytest.fixture(autouse=True)
def short_grace(monkeypatch):
    monkeypatch.setattr(hubmod.seats, "CLAIM_GRACE", 0.5)  # test-sized: the phones connect at once


def gone(hub, seat):
    """The seat's phone is offline, as the table sees it."""
    return wait_until(lambda: not hub.seats[seat].has_phone_here(), timeout=15)


def test_a_dropped_phone_comes_back_by_name_and_a_newcomer_takes_an_offline_seat(
        servers, phones, tmp_path):
    srv = start_table(tmp_path, "rejoin", "zoo", 3, games=games, start="now", seed=2)
    servers(srv)
    hub = srv.hub
    ann, bo, cy = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    url = url_from_qr(srv)
    ann.page.wait_for_selector("[data-panel=moves]")
    # Cy's phone dies; Cy scans the join QR on a borrowed phone and types her name
    cy.close()
    assert gone(hub, 2)
    back = phones("Cy")
    back.page.goto(url)
    back.page.fill("#join-name", "cy")
    back.page.click("#join-button")
    back.page.wait_for_selector("#game-screen:not([hidden])")
    back.page.wait_for_function("() => (document.querySelector('#me .name') || {}).textContent === 'Cy'")
    assert wait_until(lambda: hub.seats[2].online, timeout=10)
    back.shot("1-back-by-name")
    # Bo leaves the table; Dee arrives, every seat has a player: she is offered Bo's seat
    bo.close()
    assert gone(hub, 1)
    dee = phones("Dee")
    dee.page.goto(url)
    dee.page.fill("#join-name", "Dee")
    dee.page.click("#join-button")
    dee.page.wait_for_selector("#join-error button[data-seat='1']")
    msg = dee.page.text_content("#join-error")
    assert "Bo\u2019s phone is offline" in msg, msg
    assert not dee.unreadable(), dee.unreadable()
    dee.shot("2-offered-an-offline-seat")
    dee.page.click("#join-error button[data-seat='1']")
    dee.page.wait_for_function("() => (document.querySelector('#me .name') || {}).textContent === 'Dee'")
    assert wait_until(lambda: hub.session.state.players == ["Ann", "Dee", "Cy"])
    ann.page.wait_for_function("() => document.querySelector(\"#players li[data-seat='1'] .pname\")"
                               ".textContent === 'Dee'")
    dee.shot("3-took-the-seat")
