"""Great Powers screens as the game nights found them: every step of a crowded bid reveal (eight
players, sentences that wrap), the Action cards with two-line titles in three columns, and a
screen that starts in the middle of a turn (a restart) showing the turn as it is now, not the
reveal the table already saw."""
from ui.app import TableApp

from .conftest import kv_app
from .harness import Driver, play_until

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri", "Eleanor", "Fen", "Gus", "Hal"]


def gp(hub, n, seed):
    hub.configure("great-powers", players=n, names=NAMES[:n])
    hub.start(seed=seed)


def test_every_step_of_a_crowded_reveal_is_legible(hub, start_app):
    gp(hub, 8, seed=11)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "action", seed=4)
    d.pump()
    assert d.app.screen_name == "gp_reveal"
    screen = d.app.screen("gp_reveal")
    steps = screen.total
    assert steps >= 16
    for i in range(steps):
        bad = d.problems()
        assert bad == [], (i, screen.detail, bad)
        if i == 0:
            d.check("gp-reveal-crowded-first")
        screen._advance()
        d.pump(1)
    d.check("gp-reveal-crowded-all")
    assert screen.shown == steps
    # the night's sentence, two lines at 800x480: it pushes the columns down, not into them
    screen._steps[-1] = dict(screen._steps[-1], trait="nationalism", nth=3, change=4,
                             lost={"count": 1, "token": "population",
                                   "why": "purges and pogroms"})
    screen._draw()
    d.pump()
    assert "purges and pogroms" in screen.detail
    assert screen.ids.detail.height > d.app.u * 40, screen.ids.detail.height   # two lines
    d.check("gp-reveal-two-line-step")


def test_a_restarted_screen_shows_the_turn_as_it_is_not_the_reveal_again(hub, start_app):
    gp(hub, 4, seed=5)
    first = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "action")
    first.pump()
    assert first.app.screen_name == "gp_reveal"    # live: the moment is shown once
    # the screen's process restarts (same hub and log): a new app on the same game
    from kivy.core.window import Window
    Window.remove_widget(first.app.root)
    first.app.close()
    first.app.dispatch("on_stop")
    app = TableApp(hub, sound=False, reveal_step=None, time_hold=0)
    Window.add_widget(app.build())
    try:
        d = Driver(app)
        d.pump()
        assert kv_app() is app
        assert app.screen_name == "gp_action", app.screen_name
        d.check("gp-after-restart")
    finally:
        Window.remove_widget(app.root)
        app.close()
        app.dispatch("on_stop")


def test_action_cards_with_long_titles_stay_inside_their_tiles(hub, start_app):
    gp(hub, 8, seed=3)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "action")
    d.pump()
    d.tap(d.tid("gp:continue"))
    assert d.app.screen_name == "gp_action"
    screen = d.app.screen("gp_action")
    tiles = [t for t in screen.ids.cards.children]
    assert len(tiles) >= 5
    for t in tiles:                                   # every text inside its card's border
        for lab in t.children:
            if getattr(lab, "text", ""):
                assert t.y - 1 <= lab.y and lab.top <= t.top + 1, (t.title, lab.text)
    d.check("gp-action-8p")
