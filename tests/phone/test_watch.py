"""The spectator page (/watch) on a TV-sized browser: the public table from the Server-Sent
Events stream, read-only, no seat: game, phase, who is choosing and who has locked in, the
reveals in the game's words, the scores, the timer with its Time! moment, the table's alerts,
the final scores; and nothing that only a seat's view holds (hands, sealed choices before the
reveal)."""
import json
import random

from companion.core.play import tap

from .conftest import outcome_rows, shows_rev as page_rev, start_table, wait_until
from .zoo import games


def watch(phones, srv):
    tv = phones("TV", tv=True)
    tv.page.goto(f"http://127.0.0.1:{srv.web.port}/watch")
    tv.page.wait_for_selector("#bar-conn.on")
    return tv


def small_watch(phones, srv):
    """/watch on a 360 px phone (a spectator with no seat): the same page, narrow."""
    ph = phones("Watcher")
    ph.page.goto(f"http://127.0.0.1:{srv.web.port}/watch")
    ph.page.wait_for_selector("#bar-conn.on")
    return ph


def readable_both(tv, small, rev, step):
    """The TV and the phone-sized /watch at ``rev``: no text cut by its box, off the screen
    or too small, nothing wider than the screen; both photographed."""
    for page, least in ((tv, 18), (small, 16)):
        shows_rev(page, rev)
        bad = page.unreadable(least=least)
        assert not bad, (page.name, step, bad)
        assert page.fits_the_screen(), (page.name, step)
    small.shot(f"360-{step}")


def shows_rev(tv, rev):
    page_rev(tv.page, rev, box="watch")


def text(tv):
    return tv.visible_text("body")


def only_private(hub, strings):
    """The strings that a seat's view holds and the public state does not."""
    public = json.dumps(hub.public_view(), ensure_ascii=False)
    return [s for s in strings if s and s not in public]


def test_watch_shows_the_table_and_nothing_private(servers, phones, tmp_path):
    srv = start_table(tmp_path, "tw-watch", "trade-warz", 3, seed=21, start="now",
                      names=["Ann", "Bo", "Cy"])
    servers(srv)
    hub = srv.hub
    assert wait_until(lambda: hub.session is not None)
    game = hub.session.game
    rng = random.Random(2)
    tv = watch(phones, srv)
    small = small_watch(phones, srv)
    shows_rev(tv, hub.public_view()["rev"])
    readable_both(tv, small, hub.public_view()["rev"], "leader-pick")
    t = text(tv)
    assert "Trade Warz" in t and "Leader pick" in t
    assert "Ann, Bo and Cy are choosing" in t
    assert not tv.unreadable(least=18), tv.unreadable(least=18)
    tv.shot("1-leader-pick")
    # two lock in: the TV says so, and shows nothing of what they chose
    chosen = {}
    for seat in (0, 1):
        move, args = tap(game, hub.session.state, seat, rng)
        hub.submit(seat, move, args)
        chosen[seat] = args
    shows_rev(tv, hub.public_view()["rev"])
    t = text(tv)
    assert "Cy is choosing" in t and "Locked in: Ann and Bo" in t
    ix = game.ix(hub.session.state)
    secret = only_private(hub, [ix.name_of(a["leader"]) for a in chosen.values()])
    assert secret and not [s for s in secret if s in t], t
    tv.shot("2-locked")
    move, args = tap(game, hub.session.state, 2, rng)
    hub.submit(2, move, args)
    shows_rev(tv, hub.public_view()["rev"])
    tv.page.wait_for_selector(".reveal[data-window=leaders]")
    pick = hub.public_view()["game_view"]["leader_pick"]
    for r in pick["seats"]:
        row = tv.page.text_content(
            f".reveal[data-window=leaders] li.pcard[data-seat='{r['seat']}']")
        assert r["name"] in row and r["player"] in row
    tv.shot("3-leaders-revealed")
    readable_both(tv, small, hub.public_view()["rev"], "leaders-revealed")
    # on to the Policy phase: the hands are private, the sealed Policies too until the reveal
    st = hub.session.state
    for _ in range(300):
        st = hub.session.state
        if any(s is not None and "choose_policy" in p["moves"] for s, p in st.prompts.items()):
            break
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        if seat is None:
            hub.table_move(*game.table_bot(game, game.observe(st, None), rng))
        else:
            hub.submit(seat, *game.bots["greedy"](game, game.observe(st, seat), rng))
    shows_rev(tv, hub.public_view()["rev"])
    hands = [c["name"] for s in range(3) for c in hub.seat_view(s)["private"]["hand"]]
    secret = only_private(hub, hands)
    assert secret
    t = text(tv)
    assert not [s for s in secret if s in t], t
    doc = tv.page.evaluate("window.tcWatch.state")
    assert "private" not in doc and "legal" not in doc and "prompt" not in doc
    assert doc["players"] == ["Ann", "Bo", "Cy"] and doc["rev"] == hub.public_view()["rev"]
    assert tv.fits_the_screen()
    tv.shot("4-policy")
    readable_both(tv, small, hub.public_view()["rev"], "policy")


def test_watch_time_up_alerts_and_the_final_scores(servers, phones, tmp_path):
    srv = start_table(tmp_path, "zoo-watch", "zoo", 2, games=games, seed=6, start="now",
                      names=["Ann", "Bo"], options={"seconds": 5})
    servers(srv)
    hub = srv.hub
    assert wait_until(lambda: hub.session is not None)
    tv = watch(phones, srv)
    small = small_watch(phones, srv)
    for seat in (0, 1):
        hub.submit(seat, "pass_turn", {})
    tv.page.wait_for_function(
        "() => /^0:0[1-5]$/.test(document.getElementById('bar-timer').textContent)")
    assert "Bid 1: Ann and Bo are choosing" in text(tv)
    big = tv.page.evaluate(
        "parseFloat(getComputedStyle(document.getElementById('bar-timer')).fontSize)")
    assert big >= 60                                # a clock to read across the room
    hub.submit(0, "bid", {"n": 4})
    hub.alert("test", "Bo's phone is disconnected.", key="presence-1")
    tv.page.wait_for_selector("[data-panel=time-up]", timeout=15_000)
    assert tv.page.text_content("#bar-timer") == "0:00"
    tv.page.wait_for_selector("[data-alert='presence-1']")
    assert not tv.unreadable(least=18), tv.unreadable(least=18)
    tv.shot("1-time-up")
    tv.page.wait_for_selector("[data-panel=time-up]", state="detached", timeout=15_000)
    assert tv.page.evaluate("window.tc.moments")[0]["ms"] >= 2000
    row = tv.page.text_content(".reveal[data-window='bid-1'] li.pcard[data-seat='0']")
    assert "4" in row
    hub.clear_alert("presence-1")
    tv.page.wait_for_selector("[data-alert='presence-1']", state="detached")
    for seat in (0, 1):
        hub.submit(seat, "pass_turn", {})
    for seat in (0, 1):
        hub.submit(seat, "bid", {"n": 3 + seat})
    assert wait_until(lambda: hub.session.state.outcome is not None)
    tv.page.wait_for_selector("[data-panel=outcome]")
    o = hub.session.state.outcome
    assert outcome_rows(tv.page) == sorted((str(s), str(v)) for s, v in o.scores.items())
    assert tv.fits_the_screen()
    tv.shot("2-final-scores")
    readable_both(tv, small, hub.public_view()["rev"], "final-scores")
