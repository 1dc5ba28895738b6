"""Nothing moves under a finger (issue 22): in a Trade Warz Flip, a card scanned that nobody
asked for offered "Keep the scanned card: Bulk Coal" as the main button, in the place of
"Next: on to the disputes", and a tap meant for Next replaced a flipped Export. Now the
scanned card is settled in its own row above, with no primary button; Next stays where it
was, disabled, until it is settled; and a button that has just appeared where another was
ignores taps for a moment (``tap_guard``)."""
import threading
import time

import pytest
from kivy.tests.common import UnitTestTouch

from .harness import play_until, window_rect
from .test_pickers import Quiz, quiz_hub, settle  # noqa: F401  (quiz_hub: a fixture)

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri"]


def phone(fn, *args):
    t = threading.Thread(target=fn, args=args)
    t.start()
    t.join()


def at_the_flip(hub, clock, seed):
    hub.configure("trade-warz", players=4, names=NAMES, options=dict(edition="trade"))
    hub.start(seed=seed)
    play_until(hub, lambda v: v["phase"] == "exports" and v["table_prompt"], clock=clock,
               bot="greedy")


def stray_cards(hub, options_wanted):
    """Exports in a hand that no face-up Export is, whose scan flags a mismatch with
    ``options_wanted(n)`` flipped Exports it could be."""
    st = hub.session.state
    ix = hub.session.game.ix(st)
    pl = st.data.trade.placements
    live = [i for i, p in enumerate(pl) if p["state"] == "up" and not p.get("checked")]
    up = {pl[i]["card"] for i in live}
    out = []
    for s in range(st.n):
        for c in st.data.hands[s]:
            if c not in ix.exports or c in up:
                continue
            holders = {x for x in range(st.n) if c in st.data.hands[x]}
            n = sum(1 for i in live if pl[i]["seat"] in holders)
            if options_wanted(n):
                out.append(c)
    return out


def tap_at(d, x, y):
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()
    d.pump()


def flip_with_stray(hub, clock, start_app, wanted, **kw):
    at_the_flip(hub, clock, 7)
    cards = stray_cards(hub, wanted)
    assert cards, "seed 7 has no such stray card at its first Flip"
    return start_app(hub, **kw), cards[0]


@pytest.mark.parametrize("options", ["one", "several"])
def test_a_stray_scan_never_takes_the_place_of_next(hub, clock, start_app, options):
    d, card = flip_with_stray(hub, clock, start_app,
                              (lambda n: n == 1) if options == "one" else (lambda n: n > 1))
    d.pump()
    assert d.app.screen_name == "tw_flip"
    nxt = d.tid("table:resolve_exports")
    assert nxt.tone == "primary" and not nxt.disabled
    x, y = nxt.to_window(*nxt.center)
    before_rect = window_rect(nxt)
    placements = [dict(p) for p in hub.session.state.data.trade.placements]
    phone(hub.scan, card)                 # a card nobody asked for
    d.pump()
    assert hub.public_view()["table_prompt"]["step"] == "mismatch"
    # Next is where it was, disabled; the scanned card's choices are elsewhere, none primary
    held = d.tid("table:resolve_exports")
    assert held.disabled and window_rect(held) == before_rect
    settle = [w for w in d.widgets() if getattr(w, "tid", "").startswith("table:settle")]
    assert settle
    for w in settle:
        assert w.tone != "primary"
        assert not w.collide_point(*w.to_widget(x, y))
    d.check(f"tw-flip-stray-scan-{options}")
    records = len(hub.session.records)
    tap_at(d, x, y)                       # the tap meant for Next
    assert len(hub.session.records) == records, hub.session.records[-1]
    assert [dict(p) for p in hub.session.state.data.trade.placements] == placements
    assert not [w for w in d.tops()[1:]], "a dialog opened under the finger"
    # settled (the phone's choice kept), Next is back in its place and goes on
    if options == "one":
        d.tap(d.tid("table:settle_mismatch:keep=chosen"))
    else:
        d.tap(d.tid("table:settle_mismatch"))
        d.tap(d.tid("pick:placement=" + str(hub.session.state.data.mismatch["options"][0])))
        d.tap(d.tid("pick:keep=chosen"))
        d.tap(d.tid("pick:send"))
    assert hub.session.records[-1]["move"] == "settle_mismatch"
    nxt = d.tid("table:resolve_exports")
    assert not nxt.disabled and window_rect(nxt) == before_rect
    assert not [w for w in d.widgets() if getattr(w, "tid", "").startswith("table:settle")]
    d.check(f"tw-flip-stray-settled-{options}")
    d.tap(nxt)
    assert hub.session.records[-1]["move"] == "resolve_exports"


def test_a_button_that_just_appeared_ignores_taps_for_a_moment(hub, clock, start_app):
    # the table's guard is 0.5 s; 3 s here, so a slow machine still taps inside it
    d, card = flip_with_stray(hub, clock, start_app, lambda n: n == 1, tap_guard=3.0)
    d.pump()
    phone(hub.scan, card)
    d.pump()
    keep = d.tid("table:settle_mismatch:keep=chosen")
    assert keep.guard_until > time.monotonic()
    records = len(hub.session.records)
    d.tap(keep)                              # at once: it has only just appeared
    assert len(hub.session.records) == records
    time.sleep(max(0.0, keep.guard_until - time.monotonic()) + 0.05)
    d.tap(d.tid("table:settle_mismatch:keep=chosen"))
    assert hub.session.records[-1]["move"] == "settle_mismatch"
    # Next was there before the scan, in its place: it counts at once, never guarded
    nxt = d.tid("table:resolve_exports")
    assert not nxt.guard_until or nxt.guard_until <= time.monotonic()
    d.tap(nxt)
    assert hub.session.records[-1]["move"] == "resolve_exports"


def test_a_table_bar_that_appears_under_a_finger_ignores_taps_for_a_moment(quiz_hub,
                                                                         start_app):
    """The table bar (the table's question on a screen that does not ask it itself) rises
    under the screen when a question comes, lifting the screen's own buttons: its new
    buttons ignore taps for the guard's time too."""
    d = start_app(quiz_hub, catalog={"quiz": Quiz()}, tap_guard=3.0)
    settle(quiz_hub)
    d.pump()
    assert d.app.screen_name == "timer" and d.app.root.ids.table_bar.shown
    bell = d.tid("table:ring")
    assert bell.guard_until > time.monotonic()
    records = len(quiz_hub.session.records)
    d.tap(bell)
    assert len(quiz_hub.session.records) == records
    time.sleep(max(0.0, bell.guard_until - time.monotonic()) + 0.05)
    d.tap(d.tid("table:ring"))
    assert quiz_hub.session.records[-1]["move"] == "ring"


def test_an_alert_that_pushes_the_screen_down_guards_what_moved(hub, clock, start_app):
    """An alert banner comes under the top bar and what is below it slides down: for a
    moment a tap on a button that moved (in its new place) does nothing, and a tap at its old
    place finds no button; the Menu above the alerts and Start at the bottom did not move
    and count at once. The same when the banner goes; after the guard's time all count."""
    hub.configure("trade-warz", players=4, names=NAMES, options=dict(edition="trade"))
    hub.start(seed=3)
    play_until(hub, lambda v: v["phase"] == "trade", clock=clock, bot="greedy")
    d = start_app(hub, tap_guard=3.0)
    d.pump()
    if d.app.screen_name == "tw_leaders":
        d.tap(d.tid("tw:leaders:continue"))
    tab = d.tid("tab:scores")
    was = window_rect(tab)
    start_was = window_rect(d.tid("timer:start"))
    time.sleep(max(0.0, getattr(d.app, "moved_until", 0) - time.monotonic()) + 0.05)   # the first layout's
    phone(hub.alert, "reader", "The card reader was unplugged.", "reader")
    d.pump()
    tab = d.tid(tab.tid)
    assert window_rect(tab) != was, "the banner did not move the rail"
    screen = d.app.screen_name
    d.tap(tab)                                  # on the moved tab, at once: nothing
    assert d.app.screen_name == screen
    d.tap(d.tid("menu"))                        # above the alerts: not moved, counts
    assert [w for w in d.tops()[1:]], "the Menu did not open"
    d.tops()[1].dismiss(animation=False)
    d.pump()
    start = d.tid("timer:start")
    assert window_rect(start) == start_was      # at the bottom: not moved, counts at once
    d.tap(start)
    assert hub.session.records[-1]["move"] == "start_trade_timer"
    time.sleep(max(0.0, getattr(d.app, "moved_until", 0) - time.monotonic()) + 0.05)
    d.tap(d.tid("tab:scores"))                  # the guard's time is over: it counts
    assert d.app.screen_name == "scores"
    phone(hub.clear_alert, "reader")            # the banner goes: the rail moves up again
    d.pump()
    assert window_rect(d.tid("tab:scores")) == was
    d.tap(d.tid("tab:now"))
    assert d.app.screen_name == "scores"        # moved a moment ago: nothing
