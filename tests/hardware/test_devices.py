"""Buzzer, light and buttons on gpiozero's MockFactory pins (real gpiozero devices, mock pins).

Timing *accuracy* is measured in benches/bench_buzzer.py; here we check which edges happen, in
which order, planned for which deadlines.
"""
import dataclasses
import logging
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin, PinState

from companion.core.clock import FakeClock
from hardware.config import NEUTRAL, HardwareConfig, LightConfig, ButtonsConfig, BuzzerConfig
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.devices import TableDevices, UnknownPatternError
from hardware.events import ButtonPressed
from hardware.timing import EdgeMismatch, absolute_edges, edge_errors, mark_and_clear, percentile


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def table(factory):
    with TableDevices(HardwareConfig(), factory) as t:
        yield t


def states(pin):
    return [s.state for s in pin.states]


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.005)


# --- buzzer -------------------------------------------------------------------------------------

def test_every_pattern_plans_edges_around_its_moment(table):
    for name, pattern in PATTERNS.items():
        edges = table.buzzer.plan(name, at=100.0)
        assert len(edges) == 2 * len(pattern.beeps)
        assert [on for _, on in edges] == [True, False] * len(pattern.beeps)
        assert [t for t, _ in edges] == sorted(t for t, _ in edges)
    reveal = table.buzzer.plan("reveal", at=100.0)
    assert [round(t, 6) for t, on in reveal if on] == [97.0, 98.0, 99.0, 100.0]
    assert table.buzzer.plan("timeout", at=100.0)[0] == (100.0, True)


def test_play_switches_the_pin_on_and_off(factory, table):
    pin = factory.pin(18)
    base = mark_and_clear(pin)
    table.buzzer.play("warning")
    assert table.buzzer.wait_idle(5)
    assert states(pin) == [False, True, False, True, False]
    planned = table.buzzer.history[-1][2]
    errors = edge_errors(pin.states, base, planned)
    assert len(errors) == 4
    assert all(e > -0.001 for e in errors)     # never early (no bound on late: that is the bench)


def test_overlapping_patterns_keep_the_buzzer_on(factory, table):
    pin = factory.pin(18)
    mark_and_clear(pin)
    now = time.monotonic() + 0.05
    table.buzzer.play("timeout", at=now)          # 1.2 s on
    table.buzzer.play("error", at=now + 0.1)      # a blip inside it
    assert table.buzzer.wait_idle(5)
    assert states(pin) == [False, True, False]


def test_cancel_drops_pending_edges_and_silences(factory, table):
    pin = factory.pin(18)
    mark_and_clear(pin)
    h = table.buzzer.play("timeout", at=time.monotonic() + 60)
    assert table.buzzer.scheduler.pending() == 2
    table.buzzer.cancel(h)
    assert table.buzzer.scheduler.pending() == 0
    h = table.buzzer.play("timeout")               # on now, off in 1.2 s
    wait_for(lambda: pin.state)
    table.buzzer.cancel(h)
    assert not pin.state and states(pin) == [False, True, False]


def test_countdown_schedules_warning_and_buzzer(table):
    deadline = time.monotonic() + 180
    handles = table.buzzer.countdown(deadline)
    names = [(n, at) for n, at, _ in table.buzzer.history[-2:]]
    assert names == [("warning", deadline - 30), ("timeout", deadline)]
    table.buzzer.cancel(handles)
    assert table.buzzer.scheduler.pending() == 0
    handles = table.buzzer.countdown(time.monotonic() + 10, tick_every=1.0)
    assert sum(1 for n, _, _ in table.buzzer.history if n == "tick") >= 8
    assert ("warning" not in [n for n, _, _ in table.buzzer.history[-3:]])   # 0:30 already past
    table.buzzer.cancel()
    assert table.buzzer.scheduler.pending() == 0


def test_unknown_pattern(table):
    with pytest.raises(UnknownPatternError, match="no buzzer pattern called 'fanfare'"):
        table.buzzer.play("fanfare")


def test_passive_buzzer_is_a_pwm_tone(factory):
    cfg = HardwareConfig(buzzer=BuzzerConfig(pin=12, kind="passive", frequency=2000))
    with TableDevices(cfg, factory) as t:
        pin = factory.pin(12)
        assert pin.frequency == 2000
        mark_and_clear(pin)
        t.buzzer.play("error")
        assert t.buzzer.wait_idle(5)
        assert states(pin) == [0, 0.5, 0]


# --- edge checking (the bench's tool), on hand-made histories -----------------------------------

def test_edge_errors_rebuilds_absolute_times_from_deltas():
    hist = [PinState(0.0, False), PinState(1.0005, True), PinState(0.1, False)]
    errors = edge_errors(hist, 10.0, [(11.0, True), (11.1, False)])
    assert [round(e, 6) for e in errors] == [0.0005, 0.0005]
    assert absolute_edges(hist, 10.0)[1][0] == pytest.approx(11.1005)


def test_edge_errors_refuses_missing_extra_or_wrong_edges():
    hist = [PinState(0.0, False), PinState(1.0, True)]
    with pytest.raises(EdgeMismatch, match="1 edges on the pin, 2 planned"):
        edge_errors(hist, 0.0, [(1.0, True), (1.1, False)])
    with pytest.raises(EdgeMismatch, match="went on, planned off"):
        edge_errors([PinState(0.0, True), PinState(1.0, True)], 0.0, [(1.0, False)])


def test_percentile_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50 and percentile(values, 99) == 99
    assert percentile(values, 100) == 100 and percentile([3], 99) == 3


# --- light --------------------------------------------------------------------------------------

def rgb_values(factory, pins=(17, 27, 22)):
    return tuple(round(factory.pin(p).state, 3) for p in pins)


def test_phase_colours(factory, table):
    assert table.light.show_phase("Trade") == (0, 200, 83)
    assert rgb_values(factory) == pytest.approx((0.0, 200 / 255, 83 / 255), abs=1e-3)
    assert table.light.showing == ("phase", "trade")
    table.light.off()
    assert rgb_values(factory) == (0, 0, 0)


def test_unknown_phase_is_neutral_and_logged(factory, table, caplog):
    with caplog.at_level(logging.WARNING):
        assert table.light.show_phase("moon-landing") == NEUTRAL
    assert "moon-landing" in caplog.text


def test_common_anode_and_brightness(factory):
    cfg = HardwareConfig(light=LightConfig(common_anode=True, brightness=0.5))
    with TableDevices(cfg, factory) as t:
        t.light.show_colour((255, 0, 0))
        # common anode: the pin goes LOW to light; half brightness -> red pin at 0.5
        assert rgb_values(factory) == (0.5, 1.0, 1.0)


def test_upkeep_alternates_fill_and_ring(factory, table):
    for letter in "CMYK":
        assert table.light.show_upkeep(letter.lower()) is UPKEEP_CUES[letter]
    cue = UPKEEP_CUES["K"]                 # black ring, purple fill
    assert table.light.showing == ("upkeep", "K")
    fill = tuple(round(c / 255, 3) for c in cue.fill)
    red = factory.pin(17)
    wait_for(lambda: {round(s.state, 3) for s in red.states} >= {fill[0], 0.0}, timeout=5)
    assert fill[1] == 0.0 and round(factory.pin(22).state, 3) in (fill[2], 0.0)
    with pytest.raises(ValueError, match="C, M, Y or K"):
        table.light.show_upkeep("Z")


def test_cue_names_and_colours():
    assert [(c.letter, c.name) for c in UPKEEP_CUES.values()] == [
        ("C", "Canary"), ("M", "Mint"), ("Y", "Yeti"), ("K", "Kraken")]
    assert UPKEEP_CUES["C"].ring == (0, 255, 255) and UPKEEP_CUES["M"].ring == (255, 0, 255)
    assert UPKEEP_CUES["K"].ring == (0, 0, 0)


# --- buttons ------------------------------------------------------------------------------------

def test_buttons_call_their_callbacks_with_events(factory):
    clock = FakeClock(42.0)
    seen, everything = [], []
    with TableDevices(HardwareConfig(), factory, clock=clock.now,
                      on_event=everything.append) as t:
        t.when_next = seen.append
        t.when_undo = seen.append
        for pin in (5, 13, 6):
            factory.pin(pin).drive_low()      # pressed: the switch pulls the pin to ground
            factory.pin(pin).drive_high()
    assert seen == [ButtonPressed("next", 42.0), ButtonPressed("undo", 42.0)]
    assert [e.name for e in everything] == ["next", "undo", "pause"]


def test_bounce_is_ignored(factory):
    clock = FakeClock(10.0)
    seen = []
    with TableDevices(HardwareConfig(), factory, clock=clock.now) as t:   # bounce_ms = 30
        t.when_pause = seen.append
        pin = factory.pin(6)
        for _ in range(5):                    # contact chatter within the bounce time
            pin.drive_low()
            pin.drive_high()
            clock.advance(0.005)
        clock.advance(0.5)
        pin.drive_low()                       # a real second press
    assert [e.at for e in seen] == pytest.approx([10.0, 10.525])


def test_a_failing_callback_is_logged_not_raised(factory, caplog):
    with TableDevices(HardwareConfig(), factory) as t:
        t.when_next = lambda e: 1 / 0
        factory.pin(5).drive_low()
    assert "next button callback failed" in caplog.text


def test_parts_not_fitted_are_none_and_press_still_works(factory):
    cfg = HardwareConfig(buzzer=BuzzerConfig(pin=None), light=LightConfig(kind="none"),
                         buttons=ButtonsConfig(undo=None))
    with TableDevices(cfg, factory) as t:
        assert t.buzzer is None and t.light is None and set(t.buttons) == {"next", "pause"}
        got = []
        t.when_undo = got.append
        t.press("undo")                        # the on-screen button
        assert got[0].name == "undo"
        with pytest.raises(ValueError):
            t.press("redo")
        assert [r[2] for r in t.describe()] == ["-", "-", "released", "released", "-"]


def test_close_is_idempotent_and_frees_the_pins(factory):
    t = TableDevices(HardwareConfig(), factory)
    t.close()
    t.close()
    with TableDevices(HardwareConfig(), factory) as again:   # the same pins can be claimed again
        assert again.buzzer is not None


def test_a_pin_factory_is_required():
    with pytest.raises(ValueError, match="pin factory"):
        TableDevices(HardwareConfig(), None)


def test_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        HardwareConfig().buzzer.pin = 3
