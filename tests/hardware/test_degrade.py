"""Parts that cannot be built are left out with a sentence; the rest of the table works.

Real gpiozero devices on gpiozero's own mock pins: ``MockPin`` (no PWM, as gpiozero's native
pins), ``MockPWMPin``, a pin already claimed by another device on the same factory, and an old
board whose header lacks our pins. The shutdown button is held on a FakeClock.
"""
import queue

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from companion.core.clock import FakeClock
from hardware.config import NEUTRAL, ButtonsConfig, BuzzerConfig, HardwareConfig
from hardware.devices import (HoldWatch, TableDevices, _open_sentence, _why_not_opened,
                              summarize)
from hardware.events import ButtonPressed, PowerRequested
from hardware import pinlib
from hardware.pinlib import LGPIO_INSTALL, PinLibraryError, open_pin_library, revision_override

LIGHT_ON_OFF = ("The light on GPIO 17/27/22 shows 8 plain colours only, not every shade: this "
                "pin library (gpiozero's mock pins) has no PWM; install lgpio (pip install "
                "'lgpio>=0.2.2.0').")


@pytest.fixture
def plain():
    """Pins without PWM, like gpiozero's native pin library on a Pi."""
    f = MockFactory(pin_class=MockPin)
    yield f
    f.reset()


@pytest.fixture
def pwm():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def rgb(factory):
    return tuple(int(factory.pin(p).state) for p in (17, 27, 22))


# --- the light without PWM -----------------------------------------------------------------------

def test_without_pwm_the_light_shows_plain_colours_and_says_so(plain):
    seen = []
    with TableDevices(HardwareConfig(), plain, on_event=seen.append) as t:
        assert t.summary() == [LIGHT_ON_OFF]
        assert LGPIO_INSTALL in t.summary()[0]
        assert t.light is not None and t.light.pwm is False
        t.light.show_phase("trade")                 # (0, 200, 83): green only
        assert rgb(plain) == (0, 1, 0)
        t.light.show_phase("event")                 # (255, 140, 0): orange -> red and green
        assert rgb(plain) == (1, 1, 0)
        t.light.show_colour(NEUTRAL)                # (60, 60, 60): below half -> dark
        assert rgb(plain) == (0, 0, 0)
        t.light.show_upkeep("M")                    # blinks between two plain colours
        assert t.light.showing == ("upkeep", "M")
        rows = {part: state for part, _, state in t.describe()}
        assert rows["light"] == "on/off colours" and rows["buzzer"] == "ok"
        plain.pin(5).drive_low()                    # the rest works: a button press
        assert [e.name for e in seen if isinstance(e, ButtonPressed)] == ["next"]
        t.buzzer.play("error")
        assert t.buzzer.wait_idle(5)
        assert [s.state for s in plain.pin(18).states][-2:] == [True, False]


def test_with_pwm_nothing_is_said(pwm):
    with TableDevices(HardwareConfig(), pwm) as t:
        assert t.summary() == [] and t.problems == [] and t.light.pwm is True


def test_a_passive_buzzer_without_pwm_is_left_out_and_the_rest_works(plain):
    cfg = HardwareConfig(buzzer=BuzzerConfig(kind="passive"))
    with TableDevices(cfg, plain) as t:
        assert t.buzzer is None and t.light is not None and len(t.buttons) == 3
        assert t.summary()[0] == (
            "The passive buzzer on GPIO 18 is off, the rest works: this pin library (gpiozero's "
            "mock pins) has no PWM; install lgpio (pip install 'lgpio>=0.2.2.0').")
        assert dict((p, s) for p, _, s in t.describe())["buzzer"] == "missing"


# --- parts that cannot be opened -----------------------------------------------------------------

def test_a_pin_claimed_by_another_device_leaves_that_part_out(pwm):
    other = LED(13, pin_factory=pwm)                # something else holds the undo pin
    seen = []
    with TableDevices(HardwareConfig(), pwm, on_event=seen.append) as t:
        assert "undo" not in t.buttons and set(t.buttons) == {"next", "pause"}
        assert t.summary() == [
            "The undo button on GPIO 13 could not be opened (its pin is already claimed by "
            "another device): give each part a pin of its own in the hardware config. It is "
            "left out; the rest works."]
        [p] = t.problems
        assert (p.part, p.what, p.degraded) == ("button undo", "the undo button on GPIO 13",
                                                False)
        assert dict((part, s) for part, _, s in t.describe())["button undo"] == "missing"
        pwm.pin(6).drive_low()                      # the other buttons work
        t.press("undo")                             # and the on-screen Undo still does
        assert [e.name for e in seen] == ["pause", "undo"]
        t.light.show_phase("trade")
        assert t.light.showing == ("phase", "trade")
    other.close()


def test_parts_that_fail_alike_are_said_in_one_sentence(pwm):
    claimed = [LED(5, pin_factory=pwm), LED(13, pin_factory=pwm)]
    with TableDevices(HardwareConfig(), pwm) as t:
        assert t.summary() == [
            "The next button on GPIO 5 and the undo button on GPIO 13 could not be opened "
            "(their pins are already claimed by other devices): give each part a pin of its "
            "own in the hardware config. They are left out; the rest works."]
        assert [p.sentence.split(" could")[0] for p in t.problems] == [
            "The next button on GPIO 5", "The undo button on GPIO 13"]
    for led in claimed:
        led.close()


def test_pins_an_old_board_lacks_are_left_out_and_freed():
    f = MockFactory(revision="0002", pin_class=MockPWMPin)     # Pi 1 Model B rev 1: 26 pins
    try:
        with TableDevices(HardwareConfig(), f) as t:
            assert t.buzzer is not None and t.light is None and t.buttons == {}
            assert t.summary() == [
                "The light on GPIO 17/27/22, the next button on GPIO 5, the pause button on "
                "GPIO 6 and the undo button on GPIO 13 could not be opened (not a pin of this "
                "board): change the hardware config. They are left out; the rest works."]
            red = LED(17, pin_factory=f)            # the half-built light let go of its red pin
            red.close()
    finally:
        f.reset()


def test_without_gpio_there_are_no_parts_and_one_sentence():
    seen = []
    reason = pinlib.no_gpio_sentence("this machine has no GPIO chip (no /dev/gpiochip*)")
    t = TableDevices.without_gpio(HardwareConfig(), reason, on_event=seen.append)
    assert reason == ("No buzzer, light or buttons: this machine has no GPIO chip (no "
                      "/dev/gpiochip*). The rest of the table works.")
    assert t.summary() == [reason]
    assert (t.buzzer, t.light, t.buttons) == (None, None, {})
    assert {s for _, _, s in t.describe()} == {"missing"}
    t.press("next")
    assert [e.name for e in seen] == ["next"]
    t.close()


def test_summarize_keeps_the_order_of_the_parts(plain):
    other = LED(6, pin_factory=plain)
    with TableDevices(HardwareConfig(), plain) as t:
        said = summarize(t.problems)
    other.close()
    assert said[0] == LIGHT_ON_OFF and said[1].startswith("The pause button on GPIO 6 could")


# --- the shutdown button -------------------------------------------------------------------------

class Powered:
    """Collects PowerRequested events; ``wait()`` for the next one (a bounded wait)."""

    def __init__(self):
        self.q = queue.Queue()
        self.all = []

    def __call__(self, event):
        if isinstance(event, PowerRequested):
            self.all.append(event)
            self.q.put(event)

    def wait(self):
        return self.q.get(timeout=10)


def shutdown_config(hold=3.0):
    return HardwareConfig(buttons=ButtonsConfig(shutdown=26, shutdown_hold_s=hold))


def test_holding_the_shutdown_button_asks_to_power_off_once(pwm):
    clock = FakeClock(100.0)
    power = Powered()
    with TableDevices(shutdown_config(), pwm, clock=clock.now, on_event=power) as t:
        pin = pwm.pin(26)
        pin.drive_low()                             # pressed (pulled to ground)
        clock.advance(2.9)
        assert t.shutdown_watch.poll() is False     # not yet
        clock.advance(0.1)
        t.shutdown_watch.poll()                     # (or the watch's own thread did it)
        assert power.wait() == PowerRequested("poweroff", "button", 103.0)
        clock.advance(30)                           # still held: nothing more
        assert t.shutdown_watch.poll() is False
        pin.drive_high()
        assert power.all == [PowerRequested("poweroff", "button", 103.0)]
        rows = {part: state for part, _, state in t.describe()}
        assert rows["button shutdown"] == "released"


def test_a_short_press_of_the_shutdown_button_does_nothing(pwm):
    clock = FakeClock(0.0)
    power, pressed = Powered(), []
    with TableDevices(shutdown_config(), pwm, clock=clock.now,
                      on_event=lambda e: (power(e), pressed.append(e))) as t:
        pin = pwm.pin(26)
        for _ in range(3):                          # bumps: pressed, released at once
            pin.drive_low()
            clock.advance(0.5)
            pin.drive_high()
            clock.advance(10)
            assert t.shutdown_watch.poll() is False
        assert power.all == [] and pressed == []    # not a Next, Pause or Undo either


def test_the_hold_starts_again_with_each_press():
    clock = FakeClock(0.0)
    fired = []
    watch = HoldWatch(3.0, lambda: fired.append(clock.now()), clock=clock.now)
    try:
        watch.pressed()
        clock.advance(2)
        watch.released()
        watch.pressed()                             # a new press: 3 s from here
        clock.advance(2)
        assert watch.poll() is False
        clock.advance(1)
        assert watch.poll() is True and fired == [5.0]
        watch.released()
        watch.pressed()
        clock.advance(3)
        assert watch.poll() is True and fired == [5.0, 8.0]
    finally:
        watch.close()


def test_a_shutdown_button_that_cannot_be_opened_is_said(pwm):
    other = LED(26, pin_factory=pwm)
    with TableDevices(shutdown_config(), pwm) as t:
        assert t.shutdown is None and t.summary() == [
            "The shutdown button on GPIO 26 could not be opened (its pin is already claimed "
            "by another device): give each part a pin of its own in the hardware config. It "
            "is left out; the rest works."]
    other.close()


# --- the pin library -----------------------------------------------------------------------------

def test_the_revision_code_names_a_board():
    assert revision_override({}) is None
    assert revision_override({"GPIOZERO_PI_REVISION": "c03114"}) == 0xC03114
    assert revision_override({"GPIOZERO_PI_REVISION": "0xD04170"}) == 0xD04170
    with pytest.raises(PinLibraryError, match="'Pi4' is not a Raspberry Pi revision code"):
        revision_override({"GPIOZERO_PI_REVISION": "Pi4"})


def test_a_bad_revision_code_means_no_gpio_in_one_sentence():
    lib = open_pin_library(env={"GPIOZERO_PI_REVISION": "Pi4"})
    assert lib.factory is None and lib.problem == (
        "No buzzer, light or buttons: GPIOZERO_PI_REVISION='Pi4' is not a Raspberry Pi "
        "revision code (hex, such as c03114 for a Pi 4 Model B). The rest of the table works.")


def test_the_factory_applies_the_revision_code():
    from gpiozero.pins.native import NativeFactory
    cls = pinlib._factory_class("native", 0xC03114, {})
    assert issubclass(cls, NativeFactory) and cls.__name__ == "NativeFactory"
    assert cls._get_revision(object.__new__(cls)) == 0xC03114


def test_gpiozero_pin_factory_chooses_and_a_wrong_name_is_said():
    lib = open_pin_library(env={"GPIOZERO_PIN_FACTORY": "mock"})
    try:
        assert lib.name == "mock" and lib.why == "chosen by GPIOZERO_PIN_FACTORY=mock"
        assert lib.summary()["factory"] == "MockFactory"
    finally:
        lib.factory.close()
    lib = open_pin_library(env={"GPIOZERO_PIN_FACTORY": "nope"})
    assert lib.factory is None and lib.problem == (
        "No buzzer, light or buttons: GPIOZERO_PIN_FACTORY=nope names no pin library gpiozero "
        "has (lgpio, rpigpio, pigpio, native, mock). The rest of the table works.")


def test_why_a_library_was_passed_over():
    from gpiozero.exc import PinUnknownPi
    assert pinlib.why_not("lgpio", ModuleNotFoundError("No module named 'lgpio'",
                                                        name="lgpio")) == \
        "lgpio is not installed (pip install 'lgpio>=0.2.2.0')"
    assert pinlib.why_not("rpigpio", ModuleNotFoundError("x", name="RPi")) == \
        "RPi.GPIO is not installed"
    assert pinlib.why_not("native", PinUnknownPi("unable to locate Pi revision")).startswith(
        "this machine is not a Raspberry Pi that gpiozero knows")


def test_lgpio_gets_a_directory_of_its_own(tmp_path):
    env = {"XDG_RUNTIME_DIR": str(tmp_path)}
    d = pinlib._lgpio_workdir(env)
    assert env["LG_WD"] == d and d.startswith(str(tmp_path / "table-lgpio-"))
    assert pinlib._lgpio_workdir({"LG_WD": "/somewhere"}) == "/somewhere"   # a choice stays


def test_chip_problems_name_the_device(tmp_path):
    assert pinlib.chip_problem(0, dev=str(tmp_path)) == \
        f"this machine has no GPIO chip (no {tmp_path}/gpiochip*)"
    (tmp_path / "gpiochip0").write_text("")
    assert pinlib.chip_problem(4, dev=str(tmp_path)) == \
        f"{tmp_path}/gpiochip4 does not exist (this machine has {tmp_path}/gpiochip0)"


def test_what_lgpio_says_becomes_a_reason_and_a_fix():
    # lgpio raises its own ``lgpio.error`` with these texts (lgpio.error_text -79 and -73);
    # there is no GPIO chip on a test machine to make it say them, so the texts are given here
    f = MockFactory()
    try:
        busy = _why_not_opened(Exception("GPIO busy"), f)
        no_line = _why_not_opened(Exception("bad GPIO number"), f)
    finally:
        f.reset()
    assert busy == ("busy", "") and no_line == ("no-line", "")    # not lgpio: no chip to ask
    assert _open_sentence(["the undo button on GPIO 13"], busy) == (
        "The undo button on GPIO 13 could not be opened (line busy: another program or a "
        "kernel driver holds it): free it (gpioinfo names the holder) or move it to a free pin "
        "in the hardware config. It is left out; the rest works.")
    assert _open_sentence(["the buzzer on GPIO 18", "the light on GPIO 17/27/22"],
                          ("no-line", "/dev/gpiochip0 has only lines 0-7")) == (
        "The buzzer on GPIO 18 and the light on GPIO 17/27/22 could not be opened "
        "(/dev/gpiochip0 has only lines 0-7): wire them to lines the chip has and change the "
        "hardware config. They are left out; the rest works.")
    assert _why_not_opened(PermissionError(13, "Permission denied"), None) == ("permission", "")
    # gpiozero wraps lgpio's words as "error: '...'"; a line beyond an lgpio chip is judged by
    # its number first (lgpio said "not permitted" for line 13 of QEMU's 8 lines: tests/box)
    assert _why_not_opened(Exception("error: 'GPIO busy'"), None) == ("busy", "")


def test_when_lgpio_is_there_but_cannot_be_used_the_light_says_why(plain):
    lib = pinlib.PinLibrary(plain, "mock", skipped=[
        ("lgpio", "the user table may not open /dev/gpiochip0: add it to the group gpio (sudo "
                  "usermod -aG gpio table) and restart the table")])
    with TableDevices(HardwareConfig(), plain, pwm_fix=lib.pwm_fix()) as t:
        assert t.summary() == [
            "The light on GPIO 17/27/22 shows 8 plain colours only, not every shade: this pin "
            "library (gpiozero's mock pins) has no PWM; lgpio has PWM but could not be used: "
            "the user table may not open /dev/gpiochip0: add it to the group gpio (sudo "
            "usermod -aG gpio table) and restart the table."]
    missing = pinlib.PinLibrary(plain, "mock", skipped=[
        ("lgpio", "lgpio is not installed (pip install 'lgpio>=0.2.2.0')")])
    assert missing.pwm_fix() == "install lgpio (pip install 'lgpio>=0.2.2.0')"
