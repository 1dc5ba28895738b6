"""Seats from the phones: a rename before the start and during the game (by the player's own
name field, the one thing a player types), a late joiner naming their seat, a new phone whose
name is taken told how to move the seat, and a seat handed over from the table screen to a
fresh phone (the code's URL), the old phone cut off with a sentence saying why."""
from .conftest import start_table, url_from_qr, wait_until
from .zoo import games


def rename(ph, name):
    ph.page.click("[data-action=rename]")
    ph.page.fill("#rename-name", name)
    ph.page.click("#rename-save")


def name_at(ph, seat):
    return ph.page.text_content(f"#players li[data-seat='{seat}'] .pname")


def test_rename_late_joiner_and_a_seat_moved_to_a_new_phone(servers, phones, tmp_path):
    srv = start_table(tmp_path, "seats", "zoo", 3, games=games, start="manual", seed=2)
    servers(srv)
    hub = srv.hub
    url = url_from_qr(srv)
    ann, bo = phones("Ann"), phones("Bo")
    for ph in (ann, bo):
        ph.page.goto(url)
        ph.page.fill("#join-name", ph.name)
        ph.page.click("#join-button")
        ph.page.wait_for_selector("[data-panel=lobby]")
    # before the start: Ann is Annie
    rename(ann, "Annie")
    assert wait_until(lambda: hub.seats[0].name == "Annie")
    ann.page.wait_for_selector("[data-action=rename]")          # the form closed
    # the new name comes with the next state, which may land just after the rename's answer
    ann.page.wait_for_function("() => document.querySelector('#me .name').textContent "
                               "=== 'Annie'")
    bo.page.wait_for_function("() => document.querySelector(\"#players li[data-seat='0'] .pname\")"
                              ".textContent === 'Annie'")
    # a name someone else has is refused, in words, and nothing changes
    rename(bo, "annie")
    bo.page.wait_for_selector("[data-panel=rename] .error")
    assert "already called Annie" in bo.page.text_content("[data-panel=rename] .error")
    assert hub.seats[1].name == "Bo"
    assert not bo.unreadable(), bo.unreadable()
    bo.shot("1-name-taken")
    bo.page.click("#rename-cancel")
    hub.start()
    assert wait_until(lambda: hub.session is not None)
    ann.page.wait_for_selector("[data-panel=moves]")
    # a late joiner names the free seat: every screen shows the name, not "Seat 3"
    cy = phones("Cy")
    cy.page.goto(url)
    cy.page.fill("#join-name", "Cy")
    cy.page.click("#join-button")
    cy.page.wait_for_selector("[data-panel=moves]")
    assert hub.session.state.players == ["Annie", "Bo", "Cy"]
    ann.page.wait_for_function("() => document.querySelector(\"#players li[data-seat='2'] .pname\")"
                               ".textContent === 'Cy'")
    # during the game: Bo is Bobby, in the game's own record too
    rename(bo, "Bobby")
    assert wait_until(lambda: hub.session.state.players[1] == "Bobby")
    ann.page.wait_for_function("() => document.querySelector(\"#players li[data-seat='1'] .pname\")"
                               ".textContent === 'Bobby'")
    assert any(r.get("kind") == "rename" and r.get("name") == "Bobby"
               for r in hub.session.records)
    # a new phone with a name that is taken is told how to move the seat
    stranger = phones("Stranger")
    stranger.page.goto(url)
    stranger.page.fill("#join-name", "Annie")
    stranger.page.click("#join-button")
    stranger.page.wait_for_selector("#join-error:not(:empty)")
    msg = stranger.page.text_content("#join-error")
    assert "tap your seat on the table screen" in msg and "Move to a new phone" in msg, msg
    assert not stranger.unreadable(), stranger.unreadable()
    stranger.shot("2-name-taken-at-join")
    # Annie's phone died: the table screen shows a one-seat code; a fresh phone opens its URL
    ho = hub.handover(0)
    new = phones("Annie2")
    new.page.goto(ho["url"])
    new.page.wait_for_selector("[data-panel=moves]")
    assert new.page.text_content("#me .name") == "Annie"
    assert "seat=" not in new.page.url                     # the code works once: not kept
    new.shot("3-handed-over")
    # the old phone is cut off and says why
    ann.page.wait_for_selector("#join-screen:not([hidden])", timeout=15_000)
    ann.page.wait_for_function("() => document.getElementById('join-error').textContent"
                               ".includes('Your seat moved to another phone')")
    assert not ann.unreadable(), ann.unreadable()
    ann.shot("4-seat-moved")
    # the new phone plays the seat, and keeps it across a reload
    new.page.click("[data-move=pass_turn]")
    assert wait_until(lambda: 0 not in hub.session.state.prompts)
    new.page.reload()
    new.page.wait_for_selector("[data-panel=waiting]")
    assert new.page.text_content("#me .name") == "Annie"
    # a used code does not work again
    again = phones("Again")
    again.page.goto(ho["url"])
    again.page.wait_for_selector("#join-error:not(:empty)")
    assert "not valid" in again.page.text_content("#join-error")
