"""The phone page draws every move from the view's ``legal`` list (protocol section 4.7): a
picker per argument kind, tapped in headless Chromium against a real table running the spec
zoo (tests/phone/zoo.py), and what the hub received compared with what was tapped."""
from .conftest import join_all, start_table, value_sel, wait_until
from .zoo import games

INTERNAL = ("influencer-merch", "crypto-isle", "pass_turn", "vinyl-records", "solar-panels",
            "true", "false", "null", "undefined", "[object")


def got(srv, move):
    return [g["args"] for g in srv.hub.session.state.data["got"] if g["move"] == move]


def send_label(ph):
    return ph.page.text_content("#send").strip()


def no_ids(ph):
    text = ph.visible_text("#act")
    assert not [w for w in INTERNAL if w in text], text


def test_every_spec_kind_is_a_tap(servers, phones, tmp_path):
    srv = start_table(tmp_path, "zoo-phones", "zoo", 2, games=games, seed=1)
    servers(srv)
    ann, bo = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    p = ann.page
    p.wait_for_selector("[data-panel=moves]")
    legal = hub.seat_view(0)["legal"]
    # the prompted moves first, the any-time move apart, each labelled as legal says
    prompted = p.eval_on_selector_all("[data-group=prompted] [data-move]",
                                      "bs => bs.map(b => [b.dataset.move, b.textContent])")
    assert [m for m, _ in prompted] == ["place", "rank", "pick", "draw", "pass_turn"]
    labels = {m["move"]: m["label"] for m in legal}
    assert all(labels[m] in text for m, text in prompted)
    assert p.eval_on_selector_all("[data-group=any-time] [data-move]",
                                  "bs => bs.map(b => b.dataset.move)") == ["cheer"]
    no_ids(ann)
    ann.shot("1-moves")

    # one + dependent one + number with `when` + flag + optional text
    p.click("[data-move=place]")
    assert p.is_disabled("#send") and send_label(ann).startswith("Still to choose")
    assert p.is_disabled(value_sel("card", "vinyl-records"))
    assert "You have 5 GDP; it costs 9." in p.text_content(value_sel("card", "vinyl-records"))
    assert "cost 3" in p.text_content(value_sel("card", "influencer-merch"))
    assert "First choose: Trade Partner" in p.text_content("[data-spec=slot]")
    assert not p.query_selector("[data-spec=boost]")          # asked only for Influencer Merch
    p.click(value_sel("card", "influencer-merch"))
    p.wait_for_selector("[data-spec=boost]")
    p.click(value_sel("partner", "maple"))
    slots = p.eval_on_selector_all("[data-arg=slot]", "bs => bs.map(b => b.dataset.value)")
    assert slots == ["2"]                                     # Maple Dominion has slot 2 only
    p.click(value_sel("partner", "crypto-isle"))
    assert p.eval_on_selector_all("[data-arg=slot]", "bs => bs.map(b => b.dataset.value)") == \
        ["1", "2"]
    p.click(value_sel("slot", 2))
    assert p.get_attribute("[data-spec=boost] .stepper", "data-value") == "0"
    for _ in range(5):                                        # the stepper stops at its max
        if p.is_enabled("[data-spec=boost] [data-step='1']"):
            p.click("[data-spec=boost] [data-step='1']")
    assert p.get_attribute("[data-spec=boost] .stepper", "data-value") == "3"
    assert p.is_disabled("[data-spec=boost] [data-step='1']")
    p.click("[data-spec=boost] [data-step='-1']")
    p.click("[data-arg=rush]")
    assert p.get_attribute("[data-arg=rush]", "aria-pressed") == "true"
    assert p.get_attribute("[data-arg=note]", "maxlength") == "40"
    assert p.is_enabled("#send")                              # the note is optional
    label = send_label(ann)
    assert label.startswith("Place an Export: Influencer Merch") and "Crypto Isle" in label \
        and "Slot 2" in label and "Boost: 2" in label and "Rush it" in label, label
    no_ids(ann)
    assert not ann.unreadable(), ann.unreadable()
    ann.shot("2-place")
    p.click("#send")
    assert wait_until(lambda: got(srv, "place"))
    assert got(srv, "place") == [{"card": "influencer-merch", "partner": "crypto-isle",
                                  "slot": 2, "boost": 2, "rush": True}]
    p.wait_for_selector("#status .ok")

    # order: tap in order, tap again to take back
    p.click("[data-move=rank]")
    for r in ("north", "south", "east"):
        p.click(value_sel("routes", r))
    ranks = lambda: {r: p.get_attribute(value_sel("routes", r), "data-rank")  # noqa: E731
                     for r in ("north", "south", "east", "west")}
    assert ranks() == {"north": "1", "south": "2", "east": "3", "west": None}
    p.click(value_sel("routes", "south"))
    assert ranks() == {"north": "1", "south": None, "east": "2", "west": None}
    p.click(value_sel("routes", "west"))
    assert send_label(ann) == "Rank routes: North → East → West"
    ann.shot("3-order")
    p.click("#send")
    assert wait_until(lambda: got(srv, "rank"))
    assert got(srv, "rank") == [{"routes": ["north", "east", "west"]}]

    # subset: toggles and a counter; a third is refused by the picker itself
    p.click("[data-move=pick]")
    assert p.is_disabled("#send")
    p.click(value_sel("goods", "wheat"))
    p.click(value_sel("goods", "ore"))
    p.click(value_sel("goods", "wool"))
    assert p.get_attribute(value_sel("goods", "wool"), "aria-pressed") == "false"
    assert "2 chosen" in p.text_content("[data-spec=goods] .count")
    p.click(value_sel("goods", "wheat"))                      # and back
    p.click(value_sel("goods", "wool"))
    ann.shot("4-subset")
    p.click("#send")
    assert wait_until(lambda: got(srv, "pick"))
    assert got(srv, "pick") == [{"goods": ["ore", "wool"]}]

    # counts: per-option steppers, each capped, the total against the required total
    p.click("[data-move=draw]")
    row = lambda v: value_sel("split", v)                     # noqa: E731
    assert p.is_disabled(f"{row('policy')} [data-step='1']")
    assert "The pile is empty." in p.text_content(row("policy"))
    p.click(f"{row('export')} [data-step='1']")
    p.click(f"{row('export')} [data-step='1']")
    assert p.is_disabled(f"{row('export')} [data-step='1']")    # its own max: 2
    assert p.is_disabled("#send")
    p.click(f"{row('tactic')} [data-step='1']")
    assert p.text_content("[data-spec=split] .count").strip() == "3 of 3"
    assert p.is_disabled(f"{row('tactic')} [data-step='1']")    # the total is reached
    assert send_label(ann) == "Draw cards: 2 × Export pile, 1 × Tactic pile"
    ann.shot("5-counts")
    p.click("#send")
    assert wait_until(lambda: got(srv, "draw"))
    assert got(srv, "draw") == [{"split": {"export": 2, "tactic": 1}}]

    # an any-time move: a seat by the player's name
    p.click("[data-move=cheer]")
    assert p.text_content(value_sel("who", 1)).strip() == "Bo"
    p.click(value_sel("who", 1))
    p.click("#send")
    assert wait_until(lambda: got(srv, "cheer"))
    assert got(srv, "cheer") == [{"who": 1}]
    # the page sends one move at a time: until the cheer's reply is in, another tap is held
    # back ("Still sending your last move…"), so wait for the reply as a player would
    p.wait_for_selector("text=/^Sending /", state="detached", timeout=30_000)

    # a move without arguments is one tap
    p.click("[data-move=pass_turn]")
    assert wait_until(lambda: 0 not in hub.session.state.prompts)
    p.wait_for_selector("[data-panel=waiting]")
    assert "Waiting for Bo" in p.text_content("[data-panel=waiting]")
    bo.page.click("[data-move=pass_turn]")

    # the sealed bid: the only move, so its stepper is shown at once, from its default
    for ph in (ann, bo):
        ph.page.wait_for_selector("[data-form=bid] [data-sealed]")
        assert not ph.page.query_selector("[data-move]")
        assert ph.page.get_attribute("[data-spec=n] .stepper", "data-value") == "2"
    assert "Secret" in p.text_content("[data-form=bid]")
    p.click("[data-spec=n] [data-step='5']")
    p.click("[data-spec=n] [data-step='5']")
    assert p.get_attribute("[data-spec=n] .stepper", "data-value") == "12"    # clamped
    p.click("[data-spec=n] [data-step='-1']")
    assert send_label(ann) == "Lock in bid: 11"
    assert not ann.unreadable(), ann.unreadable()
    ann.shot("6-sealed-number")
    p.click("#send")
    p.wait_for_selector(".locked[data-window='bid-1']")
    assert p.text_content(".locked .locked-choice") == "bid: 11"
    ann.shot("7-locked")
    bo.page.click("#send")
    window = hub.session.state.windows["bid-1"]
    assert wait_until(window.is_revealed)
    assert {s: e.choice for s, e in window.entries.items()} == {0: 11, 1: 2}
    for ph in (ann, bo):
        ph.page.wait_for_selector(".reveal[data-window='bid-1']")
    assert p.text_content(".reveal li[data-seat='0'] .choice-text") == "11"
    assert bo.page.text_content(".reveal li[data-seat='0'] .choice-text") == "11"
