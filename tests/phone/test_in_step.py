"""Every phone shows the hub's view after an undo, a correction, the table going Home and
resuming, abandoning the game and starting another, with no reload: the page keeps the newest
document by ``rev`` (which only grows) rather than ``seq`` (which an undo sets back). Four
phones at a Great Powers table; after each change every phone's rendered waiting line, offered
moves and choices, and its own token counts are compared with the hub's seat view."""
import random

from companion.core.play import tap

from .conftest import join_all, shows_rev, start_table, value_sel, values, wait_until


def assert_in_step(hub, ps):
    """Each phone draws what the hub's seat view says, at the hub's rev."""
    views = {i: hub.seat_view(i) for i in range(len(ps))}
    rev = views[0]["rev"]
    for i, ph in enumerate(ps):
        shows_rev(ph.page, rev)
    for i, ph in enumerate(ps):
        v = views[i]
        p = ph.page
        assert p.get_attribute("#game-screen", "data-rev") == str(rev), ph.name
        legal = v["legal"]
        if legal:
            if len(legal) == 1:
                assert p.get_attribute("[data-form]", "data-form") == legal[0]["move"]
            else:
                shown = p.eval_on_selector_all("[data-move]", "bs => bs.map(b => b.dataset.move)")
                assert shown == [m["move"] for m in legal], (ph.name, shown)
            form = p.query_selector("[data-form]")
            if form is not None:
                move = next(m for m in legal if m["move"] == form.get_attribute("data-form"))
                first = move["args"][0]
                offered = values(p, f"[data-arg='{first['name']}']")
                assert offered == [o["value"] for o in first["options"]], ph.name
        else:
            assert not p.query_selector("[data-move], [data-form]"), ph.name
            names = [v["players"][s] for s in v["waiting"] if s != i]
            if names and not any(not w["revealed"] for w in v["windows"]):
                text = p.text_content("[data-panel=waiting]")
                assert text.startswith("Waiting for ") and all(n in text for n in names), \
                    (ph.name, text, names)
                others = [n for n in v["players"] if n not in names and n != v["players"][i]]
                assert not any(n in text for n in others), (ph.name, text)
        tokens = v["private"]["tokens"]
        stats = dict(p.eval_on_selector_all(
            "#me [data-stat]",
            "ss => ss.map(s => [s.dataset.stat, s.querySelector('.v').textContent])"))
        assert stats["VP"] == str(tokens["vp"])
        assert {k.lower(): int(n) for k, n in stats.items() if k != "VP"} == \
            {k: n for k, n in tokens.items() if k != "vp"}, ph.name


def test_phones_follow_undo_correction_resume_abandon_and_a_new_game(servers, phones, tmp_path):
    srv = start_table(tmp_path, "gp-undo", "great-powers", 4, seed=5)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy", "Di"], shots=False)
    hub = srv.hub
    game = hub.session.game
    rng = random.Random(3)
    for seat in range(4):                     # the bids, straight to the hub
        hub.submit(seat, *tap(game, hub.session.state, seat, rng))
    while not any(s is not None and "take_action" in p["moves"]
                  for s, p in hub.session.state.prompts.items()):
        st = hub.session.state
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        if seat is None:
            hub.table_move(*game.table_bot(game, game.observe(st, None), rng))
        else:
            hub.submit(seat, *tap(game, st, seat, rng))
    assert_in_step(hub, ps)
    first = next(s for s, p in hub.session.state.prompts.items() if s is not None)
    ph = ps[first]
    # the first player takes a card that changes their tokens, from the phone
    take = next(m for m in hub.seat_view(first)["legal"] if m["move"] == "take_action")
    card = next(o for o in take["args"][0]["options"]
                if not o.get("target") and not o.get("disabled") and "Gain" in o.get("detail", ""))
    before = dict(hub.session.state.data.tokens[first])
    ph.page.click(value_sel("card", card["value"]))
    ph.page.click(value_sel("resolve", True))
    ph.page.click("#send")
    assert wait_until(lambda: first in hub.session.state.data.taken)
    assert hub.session.state.data.tokens[first] != before
    second = next(s for s, p in hub.session.state.prompts.items() if s is not None)
    assert second != first
    assert_in_step(hub, ps)
    seq = hub.session.state.seq
    ps[0].shot("1-after-move")
    # the table undoes it: seq goes back, rev goes on; every phone follows, no reload
    hub.undo()
    assert hub.session.state.seq == seq - 1
    assert hub.session.state.data.tokens[first] == before
    assert_in_step(hub, ps)
    assert ps[second].page.query_selector("[data-move], [data-form]") is None
    ps[first].page.wait_for_selector(value_sel("card", card["value"]))
    ps[second].shot("2-after-undo-waiting")
    ps[first].shot("3-after-undo-prompted")
    # a correction changes a count on one phone only
    hub.correct(2, "navy", 2, "miscounted")
    assert_in_step(hub, ps)
    assert ps[2].page.text_content("#me [data-stat=Navy] .v") == \
        str(hub.session.state.data.tokens[2]["navy"])
    # and the first player, offered the cards again, can take one: the hub accepts it
    ph.page.click(value_sel("card", card["value"]))
    ph.page.click(value_sel("resolve", True))
    ph.page.click("#send")
    assert wait_until(lambda: first in hub.session.state.data.taken)
    ph.page.wait_for_selector("#status .ok")
    assert_in_step(hub, ps)
    # the table goes Home (the game stays open) and comes back to it: the phones follow
    session = hub.session.id
    hub.suspend()
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=home]")
    ps[0].shot("4-home")
    hub.resume(session)
    assert_in_step(hub, ps)
    # the table abandons the game (Great Powers cannot score a game cut short): Home again
    hub.abandon()
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=home]")
    # and starts another game: the same phones, the same seats, a new session (every seat
    # has its phone, so the table starts it at once)
    hub.configure("great-powers", 4)
    assert wait_until(lambda: hub.session is not None and hub.session.id != session)
    for ph in ps:
        ph.page.wait_for_selector("[data-form=submit_bids]")
    assert_in_step(hub, ps)
