"""Every screen at 800x480 (the official 7" display), saved as a screenshot (screenshots/,
git-ignored; UI_SHOTS_DIR to move it) and checked for cut-off text; Home, Round and Timer also
at 1280x720 and 1920x1080."""
import pytest
from kivy.core.window import Window

from companion.core.log import MemoryLog
from companion.games import get
from companion.service.hub import Hub
from ui.widgets.common import TButton

from ..core.toy import Toy
from .harness import play_until

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri", "Eleanor of Aquitaine", "Fen", "Gus", "Hal"]


def gp(hub, n=5, seed=3):
    hub.configure("great-powers", players=n, names=NAMES[:n])
    hub.start(seed=seed)


def check(d, name):
    d.shot(name)
    assert d.clipped() == [], name


def test_home_and_lobby(hub, start_app):
    d = start_app(hub)
    check(d, "800x480-home")
    d.tap(d.one("Great Powers", TButton))
    d.tap(d.one("8", TButton))
    d.tap(d.one("Set up a new game", TButton))
    for name in NAMES[:5]:
        hub.join(name, hub.room_code)
    hub.set_presence(0, True)
    hub.set_presence(1, True)
    hub.set_presence(1, False)
    hub.join_url = f"http://table.local:8080/j/{hub.room_code}"
    d.app.refresh()
    d.pump()
    d.app.dismissed.add(("phone_disconnected", "Bo's phone is disconnected."))
    d.app.refresh()
    check(d, "800x480-lobby")


def test_great_powers_screens(hub, start_app):
    gp(hub)
    d = start_app(hub)
    hub.submit(1, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d.pump()
    check(d, "800x480-gp-powers")
    play_until(hub, lambda v: v["phase"] == "action")
    d.pump()
    assert d.app.screen_name == "gp_reveal"
    d.app.screen("gp_reveal").show_all()
    check(d, "800x480-gp-reveal")
    d.tap(d.one("Continue", TButton))
    check(d, "800x480-gp-action")
    d.tap(d.one("Round", TButton))
    check(d, "800x480-round")
    d.tap(d.one("Now", TButton))
    play_until(hub, lambda v: v["phase"] == "score" and v["waiting"])
    d.pump()
    assert d.app.screen_name == "gp_score"
    check(d, "800x480-gp-score")
    play_until(hub, lambda v: v["phase"] == "bid")
    d.pump()
    assert d.app.screen_name == "gp_score"
    check(d, "800x480-gp-score-recap")
    play_until(hub, lambda v: v["phase"] == "event" and (v["game_view"]["war"] or {})
               .get("sides", [[], []])[1])
    d.pump()
    assert d.app.screen_name == "gp_war"
    check(d, "800x480-gp-war")
    play_until(hub, lambda v: v["round"] >= 4 and v["phase"] == "bid")
    d.tap(d.one("Scores", TButton))
    check(d, "800x480-scores")
    play_until(hub, lambda v: v["outcome"] is not None)
    d.tap(d.one("Now", TButton))
    assert d.app.screen_name == "gp_score"          # the last turn's scoring is held first
    d.tap(d.one("Continue", TButton))
    assert d.app.screen_name == "victory"
    check(d, "800x480-victory")
    summary = [t for t in d.texts() if t.startswith("Played in")]   # the game's summary
    assert len(summary) == 1 and "\nBid (10×): " in summary[0], summary


@pytest.mark.parametrize("n", [3, 8])
def test_the_powers_board_holds_three_to_eight_players(hub, start_app, n):
    gp(hub, n=n)
    d = start_app(hub)
    play_until(hub, lambda v: v["round"] == 3 and v["phase"] == "bid")
    d.pump()
    d.tap(d.one("Powers", TButton))
    check(d, f"800x480-gp-powers-{n}p")
    texts = d.texts()
    for name in NAMES[:n]:
        assert any(t == name for t in texts), name


def test_dialogs(hub, start_app):
    gp(hub)
    d = start_app(hub)
    hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d.pump()
    d.tap(d.one("Undo", TButton))
    check(d, "800x480-undo")
    d.tap(d.one("Cancel", TButton))
    d.tap(d.one("Fix", TButton))
    check(d, "800x480-fix")


@pytest.fixture
def toy_hub(clock):
    h = Hub(MemoryLog(), clock=clock, games=lambda n: Toy() if n == "toy" else get(n))
    h.configure("toy", players=4, names=NAMES[:4])
    h.start(seed=1)
    yield h
    h.stop()


def test_timer(toy_hub, clock, start_app):
    d = start_app(toy_hub, catalog={"toy": Toy()})
    clock.advance(12)
    d.app._tick()
    check(d, "800x480-timer")


SIZES = [(1280, 720), (1920, 1080)]


@pytest.mark.parametrize("size", SIZES)
def test_home_bigger(hub, start_app, size):
    Window.size = size
    d = start_app(hub)
    check(d, "%dx%d-home" % size)


@pytest.mark.parametrize("size", SIZES)
def test_round_and_powers_bigger(hub, start_app, size):
    Window.size = size
    gp(hub)
    d = start_app(hub)
    d.tap(d.one("Round", TButton))
    check(d, "%dx%d-round" % size)
    d.tap(d.one("Powers", TButton))
    check(d, "%dx%d-gp-powers" % size)


@pytest.mark.parametrize("size", SIZES)
def test_timer_bigger(toy_hub, clock, start_app, size):
    Window.size = size
    d = start_app(toy_hub, catalog={"toy": Toy()})
    clock.advance(40)
    d.app._tick()
    check(d, "%dx%d-timer" % size)


def test_the_victory_summary_gives_the_game_length_and_time_per_phase_longest_first():
    from ui.screens.victory import time_lines
    summary = {"seconds": 3725.4, "phases": [
        {"phase": "bid", "label": "Bid", "count": 10, "seconds": 610.0},
        {"phase": "trade", "label": "Trade", "count": 1, "seconds": 1800.0},
        {"phase": "score", "label": "Score", "count": 10, "seconds": 59.6},
        {"phase": "check", "label": "PvP check", "count": 9, "seconds": 0.1},   # passed at once
        {"phase": "roles", "label": "Roles and bets", "count": 0, "seconds": 0.0}]}   # unused
    assert time_lines(summary).split("\n") == [
        "Played in 1:02:05; time per phase:", "Trade: 30:00", "Bid (10×): 10:10",
        "Score (10×): 1:00"]
    assert time_lines(None) == "" and time_lines({"phases": []}) == ""
