"""Market Trading from the phones, by taps only: a forage tile picked by name from the board, a
trade whose "give" choices follow the "take" chosen (the spec's ``when``), a move without
arguments as one tap; no raw form unless the page is opened with ``?dev=1``."""
import random

from .conftest import drive, join_all, start_table, value_sel, values, wait_until


def active_seat(hub):
    return next(s for s in hub.session.state.prompts if s is not None)


def test_market_trading_by_taps(servers, phones, tmp_path):
    srv = start_table(tmp_path, "mt-phones", "market-trading", 2, seed=3)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"])
    hub = srv.hub
    rng = random.Random(4)
    seat = active_seat(hub)
    ph = ps[seat]
    p = ph.page
    # Forage: the tiles as the board names them; tapping one shows what the send will do
    p.wait_for_selector("[data-form=forage]")
    forage = next(m for m in hub.seat_view(seat)["legal"] if m["move"] == "forage")
    tiles = forage["args"][0]["options"]
    # the tiles where they lie on the board, each named in full for a screen reader
    shown = p.eval_on_selector_all("[data-arg=tile]",
                                   "ts => ts.map(t => t.getAttribute('aria-label'))")
    assert shown == [t["label"] + ", " + t["detail"] for t in tiles]
    assert not p.query_selector("textarea") and "JSON" not in ph.visible_text("body")
    tile = max((t for t in tiles if not t.get("disabled")), key=lambda t: t["pile"])
    p.click(value_sel("tile", tile["value"]))
    assert p.text_content("#send") == "Forage: " + tile["label"]
    assert p.text_content(".board-pick") == tile["label"] + " — " + tile["detail"]
    assert not ph.unreadable(), ph.unreadable()
    ph.shot("3-forage")
    version = hub.session.version
    p.click("#send")
    assert wait_until(lambda: hub.session.version > version)
    p.wait_for_selector("#status .ok")
    rec = hub.session.records[version]
    assert (rec["seat"], rec["move"], rec["args"]) == (seat, "forage", {"tile": tile["value"]})

    # Trade: what to give depends on what is taken
    def trade_with_choices(st):
        for s, pr in st.prompts.items():
            if s is not None and "trade" in pr["moves"]:
                spec = next(m for m in hub.seat_view(s)["legal"] if m["move"] == "trade")["args"]
                return bool(spec[0]["options"])
        return False
    drive(hub, trade_with_choices, rng)
    seat = active_seat(hub)
    ph = ps[seat]
    p = ph.page
    trade = next(m for m in hub.seat_view(seat)["legal"] if m["move"] == "trade")
    take, give = trade["args"]
    p.wait_for_selector("[data-move=trade]")
    if not p.query_selector("[data-form=trade]"):
        p.click("[data-move=trade]")
    assert "First choose: Take from the market" in p.text_content("[data-spec=give]")
    want = take["options"][0]
    p.click(value_sel("take", want["value"]))
    fits = [o["value"] for o in give["options"]
            if want["value"] in o.get("when", {}).get("take", [want["value"]])]
    assert values(p, "[data-arg=give]") == fits
    first = next(o for o in give["options"] if o["value"] == fits[0])
    p.click(value_sel("give", fits[0]))
    assert p.text_content("#send") == f"Trade: take {want['label']}, give {first['label']}"
    ph.shot("4-trade")
    version = hub.session.version
    p.click("#send")
    assert wait_until(lambda: hub.session.version > version)
    rec = hub.session.records[version]
    assert (rec["seat"], rec["move"], rec["args"]) == \
        (seat, "trade", {"take": want["value"], "give": fits[0]})
    p.wait_for_selector("#status .ok")
    # a move without arguments is one tap
    version = hub.session.version
    p.click("[data-move=end_step]")
    assert wait_until(lambda: hub.session.version > version)
    assert ph.fits_the_screen()
    ph.shot("5-step-ended")

    # the raw form exists for developers only
    dev = phones("Dev")
    dev.page.goto(ps[0].page.url.split("?")[0] + "?dev=1")
    dev.page.wait_for_selector("#join-screen")
    assert not dev.page.query_selector("[data-panel=dev]")     # no seat: no moves at all
    ps[0].page.goto(ps[0].page.url.split("?")[0] + "?dev=1")
    ps[0].page.wait_for_selector("[data-panel=dev] textarea", state="attached")


def test_market_trading_hand_under_your_name_is_your_own(servers, phones, tmp_path):
    """The harvest goes into the active player's hand; under your own name the phone shows
    your hand (empty while another player takes their turn), never the active player's as if
    it were yours (issue 22)."""
    srv = start_table(tmp_path, "mt-hand", "market-trading", 2, seed=3)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    active = active_seat(hub)
    hand = hub.public_view()["game_view"]["hand"]
    assert any(hand.values()), "the active player harvested nothing"
    words = ", ".join(f"{n} {k.replace('_', ' ').replace('-', ' ').title()}"
                      for k, n in hand.items() if n)
    me, other = ps[active], ps[1 - active]
    for ph in ps:
        ph.page.wait_for_selector("#me [data-stat=hand]")
    assert me.page.text_content("#me [data-stat=hand]") == "Your hand: " + words
    theirs = other.page.text_content("#me [data-stat=hand]")
    assert words not in theirs and theirs.startswith("Your hand: nothing"), theirs
    # whose hand it is, said apart from yours
    assert other.page.text_content("[data-stat=active-hand]") == \
        f"{['Ann', 'Bo'][active]}’s hand: {words}"
    assert not other.unreadable(), other.unreadable()
    other.shot("hand-not-mine")
    me.shot("hand-mine")
