"""The timer screen on any game's timer (the core's toy game: a 60 s sealed round with a 0:30
warning), on the session's fake clock: countdown, warning colour and sound once, pause."""
import pytest

from companion.core.log import MemoryLog
from companion.games import get
from companion.service.hub import Hub
from ui import theme
from ui.widgets.common import TButton

from ..core.toy import Toy


@pytest.fixture
def toy_hub(clock):
    h = Hub(MemoryLog(), clock=clock, games=lambda n: Toy() if n == "toy" else get(n))
    h.configure("toy", players=3, names=["Ann", "Bo", "Cy"])
    h.start(seed=1)
    yield h
    h.stop()


def test_countdown_warning_sound_and_pause(toy_hub, clock, start_app):
    d = start_app(toy_hub, catalog={"toy": Toy()})
    app = d.app
    assert app.screen_name == "timer"
    digits = app.screen("timer").ids.digits
    assert digits.text == "1:00" and app.screen("timer").mode == "running"
    clock.advance(29.5)
    app._tick()
    d.pump()
    assert digits.text == "0:31" and app.sounds_played == []
    clock.advance(1.0)
    app._tick()
    d.pump()
    assert digits.text == "0:30"
    assert app.screen("timer").mode == "warning"
    assert tuple(digits.color) == theme.WARN
    assert len(app.sounds_played) == 1
    clock.advance(5)
    app._tick()
    assert len(app.sounds_played) == 1               # once per run of the timer
    d.check("timer-warning")
    d.tap(d.one("Pause", TButton))
    assert toy_hub.public_view()["timers"]["bid"]["paused"]
    assert "Paused" in d.texts() and d.find("Resume", TButton)
    d.check("timer-paused")
    clock.advance(100)
    app._tick()
    assert digits.text == "0:25"                     # a paused clock does not move
    d.tap(d.one("Resume", TButton))
    assert not toy_hub.public_view()["timers"]["bid"]["paused"]
    clock.advance(26)
    toy_hub.start_timers()                            # the hub's thread runs the deadline
    d.wait_for(lambda: app.view.get("round") == 2)
    assert digits.text == "1:00"
    assert app.screen("timer").mode == "running"
    assert len(app.sounds_played) == 1                # a resume is not a new warning


def test_the_top_bar_keeps_the_time_on_other_screens(toy_hub, clock, start_app):
    d = start_app(toy_hub, catalog={"toy": Toy()})
    d.tap(d.one("Round", TButton))
    assert d.app.screen_name == "round"
    clock.advance(12.2)
    d.app._tick()
    d.pump()
    chip = d.app.root.ids.top.ids.timer_chip
    assert chip.text == "0:48"
    d.tap(chip)
    assert d.app.screen_name == "timer"


def test_a_warning_announced_by_the_hub_sounds_once(toy_hub, clock, start_app):
    d = start_app(toy_hub, catalog={"toy": Toy()}, sound=True)
    clock.advance(30)
    toy_hub.start_timers()                            # the hub announces the warning
    d.wait_for(lambda: d.app.sounds_played)
    v = toy_hub.public_view()
    assert d.app.sounds_played == [(v["session"], "bid", 1, "bid")]
    assert d.app._sound is not False                  # the sound loaded (dummy audio)
    clock.advance(1)
    d.app._tick()
    assert len(d.app.sounds_played) == 1


def test_time_is_up_shows_zero_and_time_for_at_least_two_seconds(toy_hub, clock, start_app):
    d = start_app(toy_hub, catalog={"toy": Toy()}, time_hold=2.5)
    app = d.app
    digits = app.screen("timer").ids.digits
    d.tap(d.tid("tab:round"))                         # looking elsewhere when time runs out
    clock.advance(59.5)
    app._tick()
    d.pump()
    assert app.root.ids.top.ids.timer_chip.text == "0:01"
    clock.advance(0.6)
    toy_hub.start_timers()                            # the hub's thread runs the deadline
    d.wait_for(lambda: app.view.get("round") == 2)
    assert app.screen_name == "timer"                 # the buzzer moment, never skipped
    assert digits.text == "0:00" and app.screen("timer").state_text == "Time!"
    assert "Time!" in d.texts()
    m = app.moment
    assert m["kind"] == "time" and m["timer"] == "bid" and m["until"] - m["since"] >= 2.0
    d.check("timer-time-up")
    d.wait_for(lambda: not app.moment, timeout=30)    # then the game's next moment
    assert app.screen_name == "timer" and digits.text == "1:00"
    assert app.screen("timer").state_text == ""


def running_size(hub, clock, start_app):
    """The running digits' size on a Trade Warz trade timer, with no banner."""
    from .harness import play_until
    from .test_trade_warz_ui import tw
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["timers"], clock=clock, bot="greedy")
    d.pump()
    screen = d.app.screen("timer")
    assert screen.mode == "running" and any("placed" in t for t in d.texts())
    return d, float(screen.ids.digits.font_size)


def test_paused_digits_are_as_big_as_running_ones(hub, clock, start_app):
    """Issue 22: "Time!" and the paused digits were much smaller than the running ones: a
    banner above (a restart, a note) or the next phase's question below took the room from
    the digits. The hint and the players' rows give way first, and "Time!" keeps no room
    for the buttons it hides."""
    d, running = running_size(hub, clock, start_app)
    screen = d.app.screen("timer")
    digits = screen.ids.digits
    d.app.note = "Simulated hardware: a note that takes a banner's room above the screen."
    d.app.refresh()
    d.tap(d.tid("timer:pause"))
    assert screen.mode == "paused" and d.app.root.ids.banners.children
    assert float(digits.font_size) >= running - 0.5, (float(digits.font_size), running)
    d.check("timer-paused-under-a-banner")


def test_time_digits_are_as_big_as_running_ones(toy_hub, clock, start_app):
    d2 = start_app(toy_hub, catalog={"toy": Toy()}, time_hold=2.5)
    app = d2.app
    digits = app.screen("timer").ids.digits
    running = float(digits.font_size)                  # no banner yet
    app.note = "Simulated hardware: a banner above the timer."
    app.refresh()
    d2.pump()
    clock.advance(60.1)
    toy_hub.start_timers()
    d2.wait_for(lambda: app.view.get("round") == 2)
    assert app.screen("timer").state_text == "Time!" and app.root.ids.banners.children
    assert float(digits.font_size) >= running - 0.5, (float(digits.font_size), running)
    d2.check("timer-time-up-under-a-banner")
