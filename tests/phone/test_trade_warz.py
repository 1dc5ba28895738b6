"""Trade Warz from four phones, by taps only: the blind Leader pick as one ordered pick (wish,
then back-ups), the draw split between piles, a face-down Policy (or none) and the reveal per
player, an Export placed face down on a partner's open slot, and a dispute's blind bid on a
stepper, with the Export flip and the dispute's result shown on every phone."""
import random

from .conftest import (drive, join_all, prompted, reveal_checks, shows_rev, start_table, value_sel,
                       values, wait_until)


def prompted_seats(hub, move):
    return sorted(s for s, p in hub.session.state.prompts.items()
                  if s is not None and move in p["moves"])


def offered(option, arg, answer):
    """An option that can be picked once ``arg`` is ``answer``."""
    when = option.get("when", {}).get(arg, [answer["value"]])
    return not option.get("disabled") and answer["value"] in when


def legal_move(hub, seat, move):
    return next(m for m in hub.seat_view(seat)["legal"] if m["move"] == move)


def test_trade_warz_by_taps_on_four_phones(servers, phones, tmp_path):
    srv = start_table(tmp_path, "tw-phones", "trade-warz", 4, seed=13)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy", "Di"])
    hub = srv.hub
    rng = random.Random(5)
    leaders = legal_move(hub, 0, "pick_leader")["args"][0]["options"]
    names = {o["value"]: o["label"] for o in leaders}
    wishes = [["usa", "eu"], ["china"], ["russia"], ["eu", "usa"]]
    for i, ph in enumerate(ps):
        ph.page.wait_for_selector("[data-form=pick_leader]")
        for lead in wishes[i]:
            ph.page.click(value_sel("leader", lead))
        assert [ph.page.get_attribute(value_sel("leader", x), "data-rank") for x in wishes[i]] == \
            [str(k + 1) for k in range(len(wishes[i]))]
        assert ph.page.text_content("#send") == \
            "Lock in " + " → ".join(names[x] for x in wishes[i])
        if i == 0:
            assert not ph.unreadable(), ph.unreadable()
            ph.shot("3-leader")
        ph.page.click("#send")
        ph.page.wait_for_selector(".locked[data-window=leaders], .reveal[data-window=leaders]")
    got = hub.session.state.windows["leaders"].revealed()
    assert got[0] == {"leader": "usa", "ranking": ["eu"]} and got[1]["leader"] == "china"
    pick = {r["seat"]: r for r in hub.public_view()["game_view"]["leader_pick"]["seats"]}
    for ph in ps:
        checks = reveal_checks(ph, "leaders")
        assert all(c == "✓ verified" for c, _ in checks.values()), checks
        for seat, r in pick.items():
            row = ph.page.text_content(f".reveal[data-window=leaders] li.pcard[data-seat='{seat}']")
            assert r["name"] in row and ("by lot" in row if r["by_lot"] else "wish" in row), row
    ps[0].shot("4-leaders-revealed")

    # the draw: how many from each pile, steppers up to the total
    drive(hub, prompted("draw_cards"), rng)
    seat = prompted_seats(hub, "draw_cards")[0]
    ph = ps[seat]
    ph.page.wait_for_selector("[data-form=draw_cards]")
    [split] = legal_move(hub, seat, "draw_cards")["args"]
    total, want = split["total"], {}
    for o in split["options"]:
        while sum(want.values()) < total and want.get(o["value"], 0) < min(o["max"], 2):
            ph.page.click(f"{value_sel('split', o['value'])} [data-step='1']")
            want[o["value"]] = want.get(o["value"], 0) + 1
    assert ph.page.text_content("[data-spec=split] .count").strip() == f"{total} of {total}"
    ph.shot("5-draw")
    hand = len(hub.seat_view(seat)["private"]["hand"])
    ph.page.click("#send")
    assert wait_until(lambda: len(hub.seat_view(seat)["private"]["hand"]) == hand + total)

    # the Policy, face down: each phone that is asked chooses none, or its first Policy
    drive(hub, prompted("choose_policy"), rng)
    chose = {}
    for seat in prompted_seats(hub, "choose_policy"):
        ph = ps[seat]
        ph.page.wait_for_selector("[data-form=choose_policy]")
        [card] = [a for a in legal_move(hub, seat, "choose_policy")["args"] if a["name"] == "card"]
        assert values(ph.page, "[data-arg=card]") == [o["value"] for o in card["options"]]
        ph.page.click(value_sel("card", None))
        chose[seat] = None
        if seat == 0:
            ph.shot("6-policy")
        ph.page.click("#send")
        ph.page.wait_for_selector(".locked[data-window^=policy], .reveal[data-window^=policy]")
    assert wait_until(lambda: hub.session.state.phase != "policy" or not any(
        "choose_policy" in p["moves"] for p in hub.session.state.prompts.values()))

    # Trade: an Export face down on a partner's open slot, chosen card → partner → slot
    drive(hub, prompted("place_export"), rng)
    seat = prompted_seats(hub, "place_export")[0]
    ph = ps[seat]
    ph.page.wait_for_selector("[data-move=place_export]")
    if not ph.page.query_selector("[data-form=place_export]"):
        ph.page.click("[data-move=place_export]")
    specs = {a["name"]: a for a in legal_move(hub, seat, "place_export")["args"]}
    card = next(o for o in specs["card"]["options"] if not o.get("disabled"))
    ph.page.click(value_sel("card", card["value"]))
    partner = next(o for o in specs["partner"]["options"] if offered(o, "card", card))
    ph.page.click(value_sel("partner", partner["value"]))
    slot = next(o for o in specs["slot"]["options"] if offered(o, "partner", partner))
    ph.page.click(value_sel("slot", slot["value"]))
    label = ph.page.text_content("#send")
    want = " → ".join(o["label"] for o in (card, partner, slot))
    assert label.startswith("Lock in " + want), label
    assert not ph.unreadable(), ph.unreadable()
    ph.shot("7-place-export")
    ph.page.click("#send")
    assert wait_until(lambda: any(p["seat"] == seat and p["partner"] == partner["value"]
                                  and p["slot"] == slot["value"]
                                  for p in hub.session.state.data.trade.placements))
    ph.page.wait_for_selector("#status .ok")

    # a dispute: each bidder's phone bids on a stepper (never more than it has)
    st = drive(hub, prompted("bid"), rng)
    for ph in ps:                                 # the flip lists every face-up Export
        ph.page.wait_for_selector("[data-panel=flip]")
    flip = hub.public_view()["game_view"]["flip"]
    text = ps[0].page.text_content("[data-panel=flip]")
    assert all(x["partner_name"] in text and (x["name"] or "void") in text for x in flip), text
    ps[0].shot("8-flip")
    bidders = prompted_seats(hub, "bid")
    window = st.prompts[bidders[0]]["window"]
    amounts = {}
    for k, seat in enumerate(bidders[:2]):
        ph = ps[seat]
        ph.page.wait_for_selector("[data-form=bid]")
        [spec] = legal_move(hub, seat, "bid")["args"]
        stepper = ph.page.get_attribute("[data-spec=amount] .stepper", "data-value")
        assert stepper == str(spec["min"])
        assert "slot" in ph.page.text_content("[data-form=bid] [data-panel=context]")
        for _ in range(k + 1):
            ph.page.click("[data-spec=amount] [data-step='1']")
        amounts[seat] = min(spec["min"] + k + 1, spec["max"])
        if k == 0:
            ph.shot("9-bid")
        ph.page.click("#send")
    for seat in bidders[2:]:
        hub.submit(seat, "bid", {"amount": 0})
        amounts[seat] = 0
    assert wait_until(lambda: hub.session.state.windows[window].is_revealed())
    assert {s: e.choice for s, e in hub.session.state.windows[window].entries.items()} == amounts
    for ph in ps:
        checks = reveal_checks(ph, window)
        assert {s: c for s, (c, _) in checks.items()} == {str(s): "✓ verified" for s in amounts}
        ph.page.wait_for_selector(f".reveal[data-window='{window}'] [data-panel=dispute]")
        assert ph.fits_the_screen()
    ps[bidders[0]].shot("10-dispute-revealed")


def test_tariff_warz_says_tariff_warz(servers, phones, tmp_path):
    """The phone's header and /watch name the edition being played (issue 22: they said
    "Trade Warz" in a Tariff Warz game), before the start as in the game."""
    srv = start_table(tmp_path, "tariff-title", "trade-warz", 3, seed=2,
                      options={"edition": "tariff"})
    servers(srv)
    first = phones("Ann")
    first.page.goto(srv.hub.join_url)
    first.page.fill("#join-name", "Ann")
    first.page.click("#join-button")
    first.page.wait_for_selector("[data-panel=lobby]")
    first.page.wait_for_function("() => document.getElementById('bar-title').textContent"
                                 " === 'Tariff Warz'")
    first.close()
    ps = join_all(phones, srv, ["Bo", "Cy"], shots=False)
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=moves], [data-panel=waiting], .locked")
        assert ph.page.text_content("#bar-title") == "Tariff Warz"
    ps[0].shot("tariff-header")
    tv = phones("TV", tv=True)
    tv.page.goto(srv.hub.join_url.split("?")[0] + "watch")
    tv.page.wait_for_function("() => document.getElementById('bar-title').textContent"
                              ".startsWith('Tariff Warz')")


def test_an_idle_player_s_optional_tactic_stays_closed(servers, phones, tmp_path):
    """A seat the table is not waiting for, whose only legal move is a Tactic it may play,
    sees a closed "Play a Tactic" under "You may" and what the table waits for; no open form
    whose "Still to choose: Which Tactic" looks required (issue 22). Tapping it opens it."""
    srv = start_table(tmp_path, "tw-idle", "trade-warz", 4, seed=13)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy", "Di"], shots=False)
    hub = srv.hub

    def idle_with_a_tactic(st):
        for seat in range(4):
            legal = [m["move"] for m in hub.seat_view(seat)["legal"]]
            if legal == ["play_tactic"] and seat not in st.prompts:
                return seat
        return None
    st = drive(hub, lambda st: idle_with_a_tactic(st) is not None, random.Random(3), limit=600)
    seat = idle_with_a_tactic(st)
    ph = ps[seat]
    shows_rev(ph.page, hub.seat_view(seat)["rev"])
    ph.page.wait_for_selector("[data-panel=moves] [data-move=play_tactic]")
    assert ph.page.query_selector("#send") is None            # nothing open, nothing "to choose"
    assert "Still to choose" not in ph.visible_text("#act")
    assert ph.page.text_content("[data-group=any-time] h3") == "You may"
    assert ph.page.get_attribute("[data-move=play_tactic]", "aria-expanded") == "false"
    assert "Waiting for" in ph.visible_text("[data-panel=waiting]")
    ph.shot("idle-tactic")
    ph.page.click("[data-move=play_tactic]")
    ph.page.wait_for_selector("[data-form=play_tactic] #send")
    assert "Still to choose" in ph.page.text_content("#send")
