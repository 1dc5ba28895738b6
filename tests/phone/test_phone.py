"""Phones at a real table, end to end in headless Chromium: join by the QR code's URL, play a
Great Powers bid phase (one phone reloads in the middle and keeps its seat and its locked bid)
and an action card with its target, and a Battle Builder monster vote and sealed attack across
a table restart. Every move is a tap on what the view's ``legal`` list offers; every reveal is
checked on every phone against the commitments it saw at lock-in."""
import random

from companion.net.brokers import free_ports

from .conftest import join_all, reveal_checks, start_table, value_sel, wait_until


# -- Great Powers -------------------------------------------------------------------------------

def test_great_powers_bid_phase_on_four_phones_with_a_reload(servers, phones, tmp_path):
    srv = start_table(tmp_path, "gp-phones", "great-powers", 4, seed=11)
    servers(srv)
    names = ["Ann", "Bo", "Cy", "Di"]
    ps = join_all(phones, srv, names)
    hub = srv.hub
    orders = {}
    for i, ph in enumerate(ps):
        ph.page.wait_for_selector("[data-form=submit_bids]")
        [move] = hub.seat_view(i)["legal"]
        [spec] = move["args"]
        assert spec["kind"] == "order"
        allowed = [o["value"] for o in spec["options"] if not o.get("disabled")]
        random.Random(i).shuffle(allowed)
        orders[i] = allowed[:spec["max"]]
        shown = ph.page.eval_on_selector_all("[data-arg=traits]",
                                             "bs => bs.map(b => JSON.parse(b.dataset.value))")
        assert shown == [o["value"] for o in spec["options"]]
        for o in spec["options"]:
            assert ph.page.is_disabled(value_sel("traits", o["value"])) == bool(o.get("disabled"))
        assert ph.page.is_disabled("#send")
        for t in orders[i]:
            ph.page.click(value_sel("traits", t))
        ranks = [ph.page.get_attribute(value_sel("traits", t), "data-rank") for t in orders[i]]
        assert ranks == [str(k + 1) for k in range(len(orders[i]))]
        assert ph.fits_the_screen() and not ph.unreadable(), ph.unreadable()
        ph.shot("3-bid")
    labels = {o["value"]: o["label"] for o in spec["options"]}
    # Ann changes her mind: she takes back her first bid and taps it again: now it is last
    ann = ps[0]
    ann.page.click(value_sel("traits", orders[0][0]))
    ann.page.click(value_sel("traits", orders[0][0]))
    orders[0] = orders[0][1:] + orders[0][:1]
    assert ann.page.get_attribute(value_sel("traits", orders[0][-1]), "data-rank") == \
        str(len(orders[0]))
    for i in (0, 1):
        assert ps[i].page.text_content("#send") == \
            "Lock in " + " → ".join(labels[t] for t in orders[i])
        ps[i].page.click("#send")
        ps[i].page.wait_for_selector(".locked[data-window=bids-t1]")
    bo = ps[1]
    bo.shot("4-locked")
    before = (bo.page.text_content(".locked .fp"), bo.page.text_content(".locked-choice"))
    assert before[1] == " → ".join(labels[t] for t in orders[1])
    assert "checked on this phone" in bo.page.text_content(".locked")
    # Bo's phone reloads in the middle of the window: it reclaims its seat by its token
    bo.page.reload()
    bo.page.wait_for_selector(".locked[data-window=bids-t1]")
    assert bo.page.text_content("#me .name") == "Bo"
    assert (bo.page.text_content(".locked .fp"), bo.page.text_content(".locked-choice")) == before
    assert wait_until(lambda: srv.hub.seats[1].online)
    bo.shot("5-after-reload")
    # the others see who has locked in
    ps[2].page.wait_for_selector("#players li[data-seat='1'] .tag.lock")
    for i in (2, 3):
        ps[i].page.click("#send")
    window = srv.hub.session.state.windows["bids-t1"]
    assert wait_until(window.is_revealed)
    assert {s: e.choice for s, e in window.entries.items()} == orders
    for i, ph in enumerate(ps):
        checks = reveal_checks(ph, "bids-t1")
        assert {k: c for k, (c, _) in checks.items()} == \
            {str(s): "✓ verified" for s in range(4)}, ph.name
        assert checks["1"][1] == " → ".join(labels[t] for t in orders[1])
        assert ph.fits_the_screen()
        ph.shot("6-reveal")
    # the Action phase: the first player in baton order takes a face-up card (and its target)
    seat = next(s for s, p in hub.session.state.prompts.items()
                if s is not None and "take_action" in p["moves"])
    ph = ps[seat]
    ph.page.wait_for_selector("[data-form=take_action]")
    take = next(m for m in hub.seat_view(seat)["legal"] if m["move"] == "take_action")
    card_spec = take["args"][0]
    shown = ph.page.eval_on_selector_all("[data-arg=card]",
                                         "bs => bs.map(b => b.querySelector('.title').textContent)")
    assert shown == [o["label"] for o in card_spec["options"]]
    # a card that targets a player, if one is offered, to see the target question appear
    option = next((o for o in card_spec["options"] if o.get("target") and not o.get("disabled")),
                  card_spec["options"][0])
    card = option["value"]
    ph.page.click(value_sel("card", card))
    ph.page.click(value_sel("resolve", True))
    target = None
    if option.get("target"):
        target = (seat + 1) % 4
        ph.page.click(value_sel("target", target))
    ph.shot("7-action")
    assert ph.page.text_content("#send").startswith("Take a card: " + option["label"])
    ph.page.click("#send")
    assert wait_until(lambda: seat in hub.session.state.data.taken)
    assert hub.session.state.data.taken[seat]["card"] == card
    assert hub.session.state.data.taken[seat]["target"] == target
    ph.page.wait_for_selector("#status .ok")
    # a phone that vanishes shows as disconnected at the table within 5 s
    ps[3].close()
    assert wait_until(lambda: not srv.hub.seats[3].online, timeout=5.0)
    ann.page.wait_for_selector("#players li[data-seat='3'] .tag.off")
    ann.shot("8-di-disconnected")


# -- Battle Builder: the sealed monster vote (generic form) and attack card + stamina -----------

def test_battle_builder_monster_vote_a_sealed_attack_and_a_table_restart(servers, phones,
                                                                         tmp_path):
    ports = dict(zip(("http_port", "mqtt_port", "ws_port"), free_ports(3)))
    srv = start_table(tmp_path, "bb-phones", "battle-builder", 2, seed=3,
                      options={"turn_seconds": 90}, **ports)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"])
    hub = srv.hub
    vote = hub.seat_view(0)["legal"][0]
    assert vote["move"] == "choose_monster" and vote["sealed"]
    monster = vote["args"][0]["options"][0]
    for ph in ps:                        # the sealed vote: monsters by name, with their numbers
        ph.page.wait_for_selector("[data-form=choose_monster] [data-sealed]")
        assert monster["detail"] in ph.page.text_content(value_sel("monster", monster["value"]))
        ph.page.click(value_sel("monster", monster["value"]))
        assert ph.page.text_content("#send") == "Lock in " + monster["label"]
        ph.page.click("#send")
        ph.page.wait_for_selector("[data-form=play_turn], .locked[data-window='monster-1']")
    ps[0].shot("3-monster-voted")
    state = hub.session.state
    assert state.windows["monster-1"].is_revealed() and state.phase == "battle"
    window = state.prompts[0]["window"]
    # a turn timer runs: every phone shows it counting down, and keeps its screen awake from
    # the player's next tap (plain http has no Wake Lock API: NoSleep's muted video)
    for ph in ps:
        ph.page.wait_for_function("() => /^1:[0-9]{2}$/.test(document.getElementById('bar-timer')"
                                  ".textContent)")
        assert not ph.page.evaluate("window.tc.noSleep.isEnabled")
    plays = {}
    for i, ph in enumerate(ps):
        ph.page.wait_for_selector("[data-form=play_turn]")
        [attack] = hub.seat_view(i)["legal"]
        card = attack["args"][0]["options"][-1]
        assert "Against: " in ph.page.text_content("[data-form=play_turn] [data-panel=context]")
        assert not ph.page.query_selector("[data-spec=stamina]")     # asked once a card is
        ph.page.click(value_sel("card", card["value"]))
        ph.page.wait_for_function("() => window.tc.noSleep.isEnabled")
        top = next(a for a in attack["args"] if a["name"] == "stamina")["max"]
        for _ in range(3):
            ph.page.click("[data-spec=stamina] [data-step='1']")
        plays[i] = (card["value"], min(3, top))
        assert ph.page.get_attribute("[data-spec=stamina] .stepper", "data-value") == \
            str(plays[i][1])
        if i == 0:
            assert not ph.unreadable(), ph.unreadable()
            ph.shot("4-attack")
        ph.page.click("#send")
    assert wait_until(lambda: hub.session.state.windows[window].is_revealed())
    revealed = hub.session.state.windows[window].revealed()
    assert {s: (c["card"], c["stamina"]) for s, c in revealed.items()} == plays
    for ph in ps:
        checks = reveal_checks(ph, window)
        assert all(c == "✓ verified" for c, _ in checks.values()), checks
        assert checks["0"][1].startswith(plays[0][0].replace("-", " ").title())
        assert ph.fits_the_screen()
        ph.shot("5-attack-revealed")
    # the table restarts (power cut, Ctrl-C and start again): both phones reclaim their seats
    # by themselves (their old passwords are refused) and carry on in the same session
    session = hub.session.id
    srv.stop()
    for ph in ps:
        ph.page.wait_for_selector("#bar-conn:not(.on)")
    srv2 = start_table(tmp_path, "bb-phones", "battle-builder", 2, **ports)
    servers(srv2)
    assert srv2.resumed is not None and srv2.hub.session.id == session
    assert wait_until(lambda: all(s.online for s in srv2.hub.seats), timeout=15)
    for i, ph in enumerate(ps):
        ph.page.wait_for_selector("#bar-conn.on", timeout=15_000)
        ph.page.wait_for_selector("[data-form=play_turn]")
        assert ph.page.text_content("#me .name") == ["Ann", "Bo"][i]
    ps[1].shot("6-after-table-restart")
    [attack] = srv2.hub.seat_view(0)["legal"]
    ps[0].page.click(value_sel("card", attack["args"][0]["options"][0]["value"]))
    ps[0].page.click("#send")
    ps[0].page.wait_for_selector(".locked, #status .ok")
