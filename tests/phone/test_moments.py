"""The moments on the phones: a timer that runs out shows "Time!" with 0:00 for at least two
seconds on every phone, even though the next phase's view arrives at once, and the reveal
that follows says who made no choice; the final scores appear at once at the end."""
from .conftest import join_all, outcome_rows, start_table, wait_until
from .zoo import games


def test_time_up_and_the_final_scores(servers, phones, tmp_path):
    srv = start_table(tmp_path, "moments", "zoo", 2, games=games, seed=4,
                      options={"seconds": 5})
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    for ph in ps:
        ph.page.click("[data-move=pass_turn]")
    for ph in ps:
        ph.page.wait_for_selector("[data-form=bid]")
        ph.page.wait_for_function("() => /^0:0[1-5]$/.test(document.getElementById('bar-timer')"
                                  ".textContent)")
    ps[0].page.click("#send")                    # Ann bids; Bo lets the time run out
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=time-up]", timeout=15_000)
        assert ph.page.text_content("#bar-timer") == "0:00"
        assert ph.page.get_attribute("#bar-timer", "data-timer") == "up"
        assert "Time!" in ph.page.text_content("[data-panel=time-up]")
    assert not ps[1].unreadable(), ps[1].unreadable()
    ps[1].shot("1-time-up")
    w = hub.session.state.windows["bid-1"]
    assert w.is_revealed() and w.entries[1].defaulted
    assert hub.session.state.phase == "build"    # the next phase is already on
    for ph in ps:                                # the moment stays its full time, then goes
        ph.page.wait_for_selector("[data-panel=time-up]", state="detached", timeout=15_000)
        assert ph.page.evaluate("window.tc.moments")[0]["ms"] >= 2000
        ph.page.wait_for_selector(".reveal[data-window='bid-1']")
    assert "no choice" in ps[0].page.text_content(".reveal li.pcard[data-seat='1']")
    ps[0].shot("2-after-time-up")
    # round 2, to the end: the final scores on every phone at once
    for ph in ps:
        ph.page.click("[data-move=pass_turn]")
    for ph in ps:
        ph.page.wait_for_selector("[data-form=bid]")
        ph.page.click("[data-spec=n] [data-step='5']")
        ph.page.click("#send")
    assert wait_until(lambda: hub.session.state.outcome is not None)
    o = hub.session.state.outcome
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=outcome]")
        assert outcome_rows(ph.page) == sorted((str(s), str(v)) for s, v in o.scores.items())
        assert not ph.unreadable(), ph.unreadable()
    ps[0].shot("3-final-scores")


def test_what_happened_is_said_in_words_on_every_phone_and_to_whom_it_concerns(servers, phones,
                                                                             tmp_path):
    """Issue 22, "a moment for every outcome": a notice that says itself in words (``says``)
    goes into every phone's feed (a public event), and one addressed to a seat into that seat's
    feed only, with a toast (Great Powers' Assassination told the target nothing)."""
    srv = start_table(tmp_path, "says", "zoo", 3, games=games, seed=2)
    servers(srv)
    ann, bo, cy = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    p = ann.page
    p.wait_for_selector("[data-panel=moves]")
    p.click("[data-move=cheer]")
    p.click("[data-arg=who][data-value='1']")
    p.click("#send")
    feed = "(t) => (document.getElementById('feed') || {}).innerText.includes(t)"
    for ph in (ann, bo, cy):
        ph.page.wait_for_function(feed, arg="Ann cheered for Bo.", timeout=15_000)
    bo.page.wait_for_function(feed, arg="Ann cheered for you.", timeout=15_000)
    for ph in (ann, cy):
        assert "cheered for you" not in ph.page.text_content("#feed")
    bo.shot("1-told")


FEED = """() => ({public: [...document.querySelectorAll('#feed li:not(.mine)')].map(l => l.textContent),
               mine: [...document.querySelectorAll('#feed li.mine')].map(l => l.textContent)})"""


def test_a_reloaded_phone_shows_the_same_story_as_one_kept_open_and_watch(servers, phones,
                                                                         tmp_path):
    """Issue 22, "one story": the feed is the table's story, kept by the table and carried in
    the documents, so a phone reloaded (or opened late) shows what a phone kept open shows,
    /watch shows the same public lines, and a seat's own line stays on its phone alone."""
    srv = start_table(tmp_path, "story", "zoo", 3, games=games, seed=2)
    servers(srv)
    ann, bo, cy = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    ann.page.wait_for_selector("[data-panel=moves]")
    ann.page.click("[data-move=cheer]")
    ann.page.click("[data-arg=who][data-value='1']")
    ann.page.click("#send")
    assert wait_until(lambda: any(r.get("move") == "cheer" for r in hub.session.records))
    hub.undo()                                   # the table takes Ann's cheer back
    rev = hub.public_view()["rev"]
    tv = phones("TV", tv=True)
    tv.page.goto(f"http://127.0.0.1:{srv.web.port}/watch")
    want = [e["says"] for e in reversed(hub.public_view()["story"])]
    assert "Ann cheered for Bo." in want and any(x.startswith("The table undid") for x in want)
    own = "Ann cheered for you."
    for ph in (ann, bo, cy, tv):
        ph.page.wait_for_function("(n) => [...document.querySelectorAll('#feed li')].length >= n",
                                  arg=len(want), timeout=15_000)
    kept = {ph.name: ph.page.evaluate(FEED) for ph in (ann, bo, cy, tv)}
    bo.page.reload()
    bo.page.wait_for_function("(r) => Number(document.getElementById('game-screen')"
                              ".dataset.rev) >= r", arg=rev, timeout=15_000)
    bo.page.wait_for_function("(n) => [...document.querySelectorAll('#feed li')].length >= n",
                              arg=len(want) + 1, timeout=15_000)
    again = bo.page.evaluate(FEED)
    assert hub.public_view()["rev"] == rev
    for name, f in kept.items():
        assert f["public"] == want, (name, f, want)
        assert f["mine"] == ([own] if name == "Bo" else []), (name, f)
    assert again == kept["Bo"], (again, kept["Bo"])
    bo.shot("1-reloaded-feed")
    tv.shot("1-watch-feed")
