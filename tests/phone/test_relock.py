"""The table undoes a sealed lock-in and the seat locks in again: every phone forgets the
withdrawn commitment and checks the reveal against the new one, whether it stayed open, was
reloaded after the undo, slept through the undo and the new lock-in, or is a fresh device;
the spectator page (which reads documents only, never events) too; in Great Powers' bids and
Trade Warz's round 2 Policy. The undo is an entry in every phone's feed, and a "sent." note
never sits above a question asked again (a Market Trading forage undone) or under the next
unsent Lock-in (Battle Builder's last monster vote). A hub that changes a choice after
lock-in still sets off the alarm, undo or not."""
import random

from companion.core.sealed import commitment

from .conftest import (drive, join_all, reveal_checks, shows_rev, start_table,
                       value_sel, wait_until)

W = "bids-t1"


def bid_order(hub, seat, k=0):
    """A legal bid for ``seat``: its allowed traits, rotated by ``k``, as many as it may rank."""
    [move] = [m for m in hub.seat_view(seat)["legal"] if m["move"] == "submit_bids"]
    [spec] = move["args"]
    allowed = [o["value"] for o in spec["options"] if not o.get("disabled")]
    allowed = allowed[k:] + allowed[:k]
    return allowed[:spec["max"]], {o["value"]: o["label"] for o in spec["options"]}


def lock(ph, traits):
    """Tap the traits in order and lock them in; wait for the lock-in panel and the reply."""
    p = ph.page
    p.wait_for_selector("[data-form=submit_bids]")
    for t in traits:
        p.click(value_sel("traits", t))
    p.click("#send")
    p.wait_for_selector(f".locked[data-window={W}]")
    p.wait_for_selector("#status .ok")


def asked_again(ph):
    """The prompt is back, with no note of the lock-in that was taken back."""
    p = ph.page
    p.wait_for_selector("[data-form=submit_bids]")
    assert not p.query_selector(f".locked[data-window={W}]")
    assert p.text_content("#status") == "", p.text_content("#status")


def replied(ph):
    """The page has the table's answer to its last move."""
    ph.page.wait_for_function("() => !window.tc.pending")


def feed_says(ph, text):
    ph.page.wait_for_function(
        "(t) => document.getElementById('feed').innerText.includes(t)", arg=text)


def seen_by_all(hub, pages):
    """Every page drew the hub's latest documents (so it noted every lock-in in them)."""
    rev = hub.public_view()["rev"]
    for ph, box in pages:
        shows_rev(ph.page, rev, box=box)


def test_relock_great_powers_lock_undo_lock_again_verifies_on_every_phone(servers, phones,
                                                                          tmp_path):
    srv = start_table(tmp_path, "gp-relock", "great-powers", 5, seed=11)
    servers(srv)
    ann, bo, cy, di, ed = join_all(phones, srv, ["Ann", "Bo", "Cy", "Di", "Ed"], shots=False)
    hub = srv.hub
    url = srv.hub.join_url
    tv = phones("TV", tv=True)                # the spectator page: documents only, no events
    tv.page.goto(f"http://127.0.0.1:{srv.web.port}/watch")
    tv.page.wait_for_selector("#bar-conn.on")
    bids = {s: bid_order(hub, s)[0] for s in range(5)}
    labels = bid_order(hub, 0)[1]

    # Bo locks in; every page notes his commitment
    lock(bo, bids[1])
    bo.shot("1-locked")
    seen_by_all(hub, [(p, "game-screen") for p in (ann, cy, di, ed)] + [(tv, "watch")])
    # Di's phone sleeps (the page is gone; its stored commitments stay)
    di.page.goto("about:blank")
    # the table undoes Bo's lock-in
    hub.undo()
    assert not hub.session.state.windows[W].has_locked(1)
    asked_again(bo)
    # one story on every screen: the same words on Bo's phone (its toast says "your"), the
    # others' and /watch
    for ph in (ann, bo, cy, ed, tv):
        feed_says(ph, "The table undid Bo’s lock-in.")
    bo.shot("2-undone")
    ann.shot("2-undone-feed")
    ann.page.wait_for_selector("#players li[data-seat='1'] .tag.wait")
    # Cy's phone reloads after the undo, before the new lock-in
    cy.page.reload()
    cy.page.wait_for_selector("[data-form=submit_bids]")
    # Bo locks in the same bid again (a new salt: a new commitment)
    lock(bo, bids[1])
    bo.shot("3-locked-again")
    # Di's phone wakes: it missed the undo and the new lock-in
    di.page.goto(url)
    di.page.wait_for_selector("[data-form=submit_bids]")
    seen_by_all(hub, [(p, "game-screen") for p in (ann, cy, di, ed)] + [(tv, "watch")])

    # Ann locks in, the table undoes it, Ann locks in another bid
    lock(ann, bids[0])
    seen_by_all(hub, [(p, "game-screen") for p in (bo, cy, di, ed)] + [(tv, "watch")])
    hub.undo()
    assert not hub.session.state.windows[W].has_locked(0)
    asked_again(ann)
    for ph in (ann, bo, cy, di, ed, tv):
        feed_says(ph, "The table undid Ann’s lock-in.")
    cy.page.reload()
    cy.page.wait_for_selector("[data-form=submit_bids]")
    bids[0] = bid_order(hub, 0, k=1)[0]
    assert bids[0] != bid_order(hub, 0)[0]
    lock(ann, bids[0])

    # Ed's seat moves to a fresh phone (nothing stored) before the reveal
    ho = hub.handover(4)
    ed2 = phones("Ed2")
    ed2.page.goto(ho["url"])
    ed2.page.wait_for_selector("[data-form=submit_bids]")
    lock(cy, bids[2])
    lock(di, bids[3])
    window = hub.session.state.windows[W]
    assert not window.is_revealed()
    ed2.page.wait_for_selector("#players li[data-seat='3'] .tag.lock")
    p = ed2.page                              # the last lock-in: the reveal
    for t in bids[4]:
        p.click(value_sel("traits", t))
    p.click("#send")
    assert wait_until(window.is_revealed)
    assert {s: e.choice for s, e in window.entries.items()} == bids
    for ph in (ann, bo, cy, di, ed2, tv):
        checks = reveal_checks(ph, W)
        want = {str(s): "✓ verified" for s in range(5)}
        if ph is tv:        # documents only: the last lock-in came with the reveal itself
            want["4"] = "✓ consistent (lock-in not seen here)"
        assert {k: c for k, (c, _) in checks.items()} == want, (ph.name, checks)
        assert checks["0"][1] == " → ".join(labels[t] for t in bids[0])
        assert checks["1"][1] == " → ".join(labels[t] for t in bids[1])
        assert "does not match" not in ph.visible_text("#reveal" if ph is not tv else "body")
    ann.shot("4-revealed")
    bo.shot("4-revealed")
    di.shot("4-revealed")


def test_relock_cheat_a_choice_changed_after_a_lock_in_again_sets_off_the_alarm(servers, phones,
                                                                                tmp_path):
    """The hub cheats after an honest undo and lock-in: it swaps Bo's choice for another and
    recomputes the commitment, which the later documents carry with the lock-in's own rev. No
    withdrawal was announced, so every phone keeps the commitment it saw and the reveal fails
    for Bo (a device that never saw the lock-in can only say it is consistent)."""
    srv = start_table(tmp_path, "gp-cheat", "great-powers", 3, seed=11)
    servers(srv)
    ann, bo, cy = ps = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    bids = {s: bid_order(hub, s)[0] for s in range(3)}
    other = bid_order(hub, 1, k=1)[0]
    assert other != bids[1]
    lock(bo, bids[1])
    hub.undo()
    asked_again(bo)
    lock(bo, bids[1])
    seen_by_all(hub, [(p, "game-screen") for p in ps])
    with hub.session.lock:                           # the cheat: the choice, after lock-in
        e = hub.session.state.windows[W].entries[1]
        e.choice = other
        e.commitment = commitment(W, 1, other, e.salt)
    lock(ann, bids[0])
    seen_by_all(hub, [(p, "game-screen") for p in ps])   # the swapped commitment is shown
    cy.page.wait_for_selector("[data-form=submit_bids]")
    for t in bids[2]:
        cy.page.click(value_sel("traits", t))
    cy.page.click("#send")
    assert wait_until(hub.session.state.windows[W].is_revealed)
    for ph in ps:
        checks = reveal_checks(ph, W)
        assert {k: c for k, (c, _) in checks.items()} == \
            {"0": "✓ verified", "1": "✗ changed after lock-in!", "2": "✓ verified"}, \
            (ph.name, checks)
        assert "A choice does not match its commitment!" in ph.visible_text("#reveal")
    ann.shot("5-alarm")


def test_relock_market_trading_undo_asks_again_without_the_old_sent_note(servers, phones,
                                                                         tmp_path):
    """Not sealed: the table undoes a forage; the phone asks again with no "Forage: sent."
    and every phone's feed says what was undone."""
    srv = start_table(tmp_path, "mt-relock", "market-trading", 2, seed=3)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    seat = next(s for s in hub.session.state.prompts if s is not None)
    ph = ps[seat]
    p = ph.page
    p.wait_for_selector("[data-form=forage]")
    forage = next(m for m in hub.seat_view(seat)["legal"] if m["move"] == "forage")
    tile = next(t for t in forage["args"][0]["options"] if not t.get("disabled"))
    p.click(value_sel("tile", tile["value"]))
    version = hub.session.version
    p.click("#send")
    p.wait_for_selector("#status .ok")
    assert hub.session.records[version]["move"] == "forage"
    assert "Forage: sent." in p.text_content("#status")
    hub.undo()
    for page in (ph, ps[1 - seat]):
        feed_says(page, f"The table undid {['Ann', 'Bo'][seat]}’s move: Forage.")
    p.wait_for_selector("[data-form=forage]")
    shows_rev(p, hub.seat_view(seat)["rev"])
    assert p.text_content("#status") == "", p.text_content("#status")
    ph.shot("1-forage-undone")


def test_relock_battle_builder_no_old_sent_note_under_the_next_lock_in(servers, phones,
                                                                        tmp_path):
    """The last monster vote completes the window: the phone that sent it shows the reveal
    and the battle's first attack to lock in, with no "sent." of the vote under that unsent
    Lock-in; neither does the phone that voted first, once the attack is asked."""
    srv = start_table(tmp_path, "bb-relock", "battle-builder", 2, seed=3)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    vote = hub.seat_view(0)["legal"][0]
    assert vote["move"] == "choose_monster"
    monster = vote["args"][0]["options"][0]["value"]
    for i, ph in enumerate(ps):
        ph.page.wait_for_selector("[data-form=choose_monster]")
        ph.page.click(value_sel("monster", monster))
        ph.page.click("#send")
        replied(ph)
        if i == 0:
            ph.page.wait_for_selector(".locked[data-window='monster-1'] ~ #status .ok")
    assert hub.session.state.phase == "battle"
    for ph in ps:
        ph.page.wait_for_selector("[data-form=play_turn]")
        shows_rev(ph.page, hub.seat_view(ps.index(ph))["rev"])
        assert ph.page.text_content("#status") == "", (ph.name, ph.page.text_content("#status"))
    ps[1].shot("1-attack-asked")


def test_relock_trade_warz_round_2_policy_undone_and_locked_again(servers, phones, tmp_path):
    """Trade Warz's face-down Policy of round 2 (a window of the same id pattern as round 1's
    before it): a seat locks in no Policy, the table undoes it, one phone reloads, the seat
    locks in the same again; every phone verifies every seat at the reveal."""
    srv = start_table(tmp_path, "tw-relock", "trade-warz", 3, seed=13)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub

    def asked(st):
        return st.round == 2 and sorted(s for s, p in st.prompts.items()
                                        if s is not None and "choose_policy" in p["moves"])
    seats = drive(hub, asked, random.Random(5)) and asked(hub.session.state)
    assert len(seats) >= 2, seats
    window = hub.session.state.prompts[seats[0]].get("window") or next(
        w for w in hub.session.state.windows if w.startswith("policy-r2"))
    first, rest = ps[seats[0]], [ps[s] for s in seats[1:]]
    other = next(ph for ph in ps if ph is not first)

    def lock_none(ph):
        ph.page.wait_for_selector("[data-form=choose_policy]")
        ph.page.click(value_sel("card", None))
        ph.page.click("#send")
        replied(ph)

    lock_none(first)
    first.page.wait_for_selector(f".locked[data-window='{window}']")
    rev = hub.public_view()["rev"]
    for ph in ps:
        shows_rev(ph.page, rev)
    hub.undo()
    assert not hub.session.state.windows[window].has_locked(seats[0])
    first.page.wait_for_selector("[data-form=choose_policy]")
    assert first.page.text_content("#status") == ""
    for ph in (first, other):
        feed_says(ph, "The table undid " + ["Ann", "Bo", "Cy"][seats[0]] + "’s lock-in.")
    other.page.reload()
    other.page.wait_for_selector("#me .name")
    lock_none(first)
    for ph in rest:
        lock_none(ph)
    assert wait_until(hub.session.state.windows[window].is_revealed)
    for ph in ps:
        checks = reveal_checks(ph, window)
        assert {k: c for k, (c, _) in checks.items()} == \
            {str(s): "✓ verified" for s in hub.session.state.windows[window].seats}, \
            (ph.name, checks)
    first.shot("1-policy-revealed")


def test_a_secret_choice_s_sent_note_goes_when_the_game_moves_on(servers, phones, tmp_path):
    """Ann locks in first: "Your secret choice: sent." under her lock-in. The others lock in,
    the bids are revealed and the Action phase waits for someone else: the note is old news
    and goes (it sat under "Waiting for Bo." as if it answered the Action)."""
    srv = start_table(tmp_path, "gp-sent", "great-powers", 3, seed=5)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    lock(ps[0], bid_order(hub, 0)[0])
    assert "sent." in ps[0].page.text_content("#status")
    for seat in (1, 2):
        hub.submit(seat, "submit_bids", {"traits": bid_order(hub, seat)[0]})
    assert wait_until(lambda: hub.public_view()["phase"] != "bid")
    shows_rev(ps[0].page, hub.seat_view(0)["rev"])
    ps[0].page.wait_for_selector(f".reveal[data-window={W}]")
    assert "sent." not in ps[0].page.text_content("#status"), \
        ps[0].page.text_content("#status")
