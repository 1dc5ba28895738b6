"""Touch and rotation (ui/display.py, the [display] section of the hardware config).

Two kinds of test:

* the input configuration: for each setting, the ``[input]`` section Kivy is left with and the
  providers Kivy's own start-up code makes of it (probesysfs on a made-up /sys/class/input);
* taps: six coloured buttons drawn in the real (offscreen) window at 0, 90, 180 and 270
  degrees; where each button lands on the panel is read back from the drawn pixels, and a
  touch at that panel position is fed through Kivy's own provider code (mtdev's and
  hidinput's reader loops on a stand-in device, the mouse provider through the window's
  ``on_mouse_down``) and the event loop's dispatch. It must press that button once and no
  other. The stand-in for the official 7" display is an 800x480 ft5x06 speaking multitouch
  protocol B, as the kernel's edt-ft5x06 driver does.
"""
import collections
import json
import os
import pathlib
import struct
import subprocess
import sys
import types

import pytest
from kivy.base import EventLoop
from kivy.config import Config
from kivy.core.window import Window
from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels
from kivy.input import MotionEventFactory, kivy_postproc_modules
from kivy.input.providers import hidinput as k_hidinput
from kivy.input.providers import mtdev as k_mtdev
from kivy.input.providers import probesysfs as k_probesysfs
from kivy.input.providers.mouse import MouseMotionEventProvider
from kivy.lib import mtdev as k_libmtdev
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout

from hardware.config import DisplayConfig, HardwareConfigError, load_config, parse_config
from ui import display

# -- linux/input-event-codes.h ------------------------------------------------------------------
EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT = 0
BTN_TOUCH = 0x14a
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2f, 0x35, 0x36, 0x39

PANEL = 800, 480
#: the official 7" display's touch controller: axes as the panel's pixels, protocol B
FT5X06 = {ABS_X: (0, 799), ABS_Y: (0, 479), ABS_MT_SLOT: (0, 9),
          ABS_MT_POSITION_X: (0, 799), ABS_MT_POSITION_Y: (0, 479),
          ABS_MT_TRACKING_ID: (0, 65535)}
ROTATIONS = (0, 90, 180, 270)
BOX = {"SDL_VIDEODRIVER": "kmsdrm"}
DESK = {"DISPLAY": ":0"}


# == the [display] section ======================================================================
def test_display_section_defaults_and_values(tmp_path):
    assert load_config(None).display == DisplayConfig(rotation=0, touch="auto", device="",
                                                      invert_x=False, invert_y=False,
                                                      swap_xy=False)
    f = tmp_path / "hardware.toml"
    f.write_text('[display]\nrotation = 180\ntouch = "mtdev"\n'
                 'device = "/dev/input/by-path/platform-ft5x06-event"\ninvert_y = true\n')
    d = load_config(f).display
    assert (d.rotation, d.touch, d.device, d.invert_y) == (
        180, "mtdev", "/dev/input/by-path/platform-ft5x06-event", True)


@pytest.mark.parametrize("section, message", [
    ({"rotation": 45}, r"\[display\] rotation: must be 0, 90, 180 or 270 \(degrees\), not 45"),
    ({"rotation": "180"}, r"\[display\] rotation: must be 0, 90, 180 or 270"),
    ({"touch": "mouse"}, r"\[display\] touch: 'mouse' is not one of 'auto', 'sdl', 'mtdev', "
                         r"'hidinput'"),
    ({"device": "event3"}, r"\[display\] device: must be \"\" or an event device's path"),
    ({"device": "/dev/input/event3,invert_x=1"}, r"\[display\] device: must be"),
    ({"invert_x": 1}, r"\[display\] invert_x: must be bool, not 1"),
    ({"touch": "sdl", "swap_xy": True}, r"\[display\] swap_xy: applies to touch = \"mtdev\" "
                                        r"or \"hidinput\""),
    ({"rotate": 90}, r"\[display\] rotate: unknown key \(known: device, invert_x, invert_y, "
                     r"rotation, swap_xy, touch\)"),
])
def test_display_section_errors_name_file_section_and_key(section, message):
    with pytest.raises(HardwareConfigError, match=r"^box\.toml: " + message):
        parse_config({"display": section}, "box.toml")


# == which path, from the setting and the place ================================================
@pytest.mark.parametrize("env, console", [
    ({"SDL_VIDEODRIVER": "kmsdrm"}, True),
    ({"SDL_VIDEODRIVER": "KMSDRM", "DISPLAY": ":0"}, True),
    ({"SDL_VIDEODRIVER": "x11"}, False),
    ({"SDL_VIDEODRIVER": "wayland,x11"}, False),
    ({"SDL_VIDEODRIVER": "offscreen"}, False),     # the tests' window
    ({"DISPLAY": ":0"}, False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ({}, True),                                     # Linux, no window system: SDL picks KMS/DRM
])
def test_console_or_window_system(env, console, monkeypatch):
    monkeypatch.setattr(display.sys, "platform", "linux")
    assert display.on_console(env) is console


def test_auto_on_a_desktop_is_the_mouse_alone():
    p = display.plan(DisplayConfig(), DESK, mtdev=True)
    assert (p.path, p.providers, p.rotation, p.show_cursor) == (
        "sdl", {"mouse": "mouse,disable_multitouch"}, 0, True)


def test_auto_on_the_box_is_mtdev_on_every_multitouch_screen_and_no_mouse():
    p = display.plan(DisplayConfig(rotation=180), BOX, mtdev=True)
    assert p.path == "mtdev" and p.rotation == 180 and not p.show_cursor
    assert p.providers == {"touch_%(name)s": "probesysfs,provider=mtdev,select_all=0,"
                                             "param=invert_x=0,param=invert_y=0"}
    assert "rotation" not in p.providers["touch_%(name)s"]     # turned once: by the window


def test_auto_on_the_box_without_libmtdev_says_so_and_uses_hidinput():
    p = display.plan(DisplayConfig(), BOX, mtdev=False)
    assert p.path == "hidinput"
    assert p.providers == {"touch_%(name)s": "probesysfs,provider=hidinput,select_all=0,"
                                             "param=invert_x=0,param=invert_y=0"}
    assert any("libmtdev1" in n for n in p.notes)


def test_a_named_device_with_calibration():
    p = display.plan(DisplayConfig(touch="mtdev", device="/dev/input/event3", invert_x=True,
                                   swap_xy=True, rotation=90), BOX, mtdev=True)
    assert p.providers == {"touch": "mtdev,/dev/input/event3,invert_x=1,invert_y=0,rotation=270"}
    assert p.rotation == 90


def test_hidinput_is_always_told_invert_y():
    """hidinput's own default is invert_y=1 (its y comes out upside down, see the taps
    below); the plan always says which."""
    p = display.plan(DisplayConfig(touch="hidinput", device="/dev/input/event1"), BOX)
    assert p.providers == {"touch": "hidinput,/dev/input/event1,invert_x=0,invert_y=0"}


def test_sdl_on_the_console_warns_that_only_a_mouse_works():
    p = display.plan(DisplayConfig(touch="sdl"), BOX)
    assert p.providers == {"mouse": "mouse,disable_multitouch"}
    assert any("finger events" in n for n in p.notes)


def test_calibration_on_a_desktop_is_noted_not_used():
    p = display.plan(DisplayConfig(invert_x=True), DESK)
    assert p.path == "sdl" and p.notes


# == what Kivy is left with =====================================================================
@pytest.fixture
def kivy_config():
    """Kivy's real Config, given back as it was."""
    saved = {s: dict(Config.items(s)) for s in ("input", "graphics", "kivy")}
    yield Config
    for section, items in saved.items():
        for key in Config.options(section):
            if key not in items:
                Config.remove_option(section, key)
        for key, value in items.items():
            Config.set(section, key, value)


def sysfs_device(root, name, event, abs_codes):
    """/sys/class/input/eventN as probesysfs reads it: the name and the abs capability
    bitmap (hex words, most significant first)."""
    d = root / event / "device"
    (d / "capabilities").mkdir(parents=True)
    (d / "name").write_text(name + "\n")
    bits = sum(1 << c for c in abs_codes)
    (d / "capabilities" / "abs").write_text(f"{bits:x}\n")
    return k_probesysfs.Input(str(root / event))


def kivy_providers(monkeypatch, devices):
    """The providers Kivy's start-up makes of ``Config``'s [input] section: the loop of
    ``kivy.base._runTouchApp_prepare`` (Kivy 2.3.1), with probesysfs probing ``devices``
    instead of /sys/class/input and no provider started."""
    made = []
    monkeypatch.setattr(k_probesysfs, "_cache_input", devices)
    monkeypatch.setattr(k_probesysfs, "_cache_xinput", [])
    monkeypatch.setattr(EventLoop, "add_input_provider",
                        lambda p, auto_remove=False: made.append(p))
    for key, value in Config.items("input"):
        args = str(value).split(",", 1)
        if len(args) == 1:
            args.append("")
        provider_id, args = args
        provider = MotionEventFactory.get(provider_id)
        assert provider is not None, f"Kivy knows no provider {provider_id!r}"
        p = provider(key, args)
        if p:
            EventLoop.add_input_provider(p, True)
    return made


@pytest.fixture
def box_devices(tmp_path):
    return [sysfs_device(tmp_path, "generic ft5x06 (79)", "event3", FT5X06),
            sysfs_device(tmp_path, "Dell USB Keyboard", "event1", ())]


def test_kivy_defaults_give_one_touchscreen_two_providers(kivy_config, monkeypatch,
                                                          box_devices):
    """Why: Kivy's default [input] on Linux is the mouse and probesysfs. Where the desktop
    turns a touch into the pointer, one tap arrives through both (Kivy issues 1903, 3801)."""
    for key in Config.options("input"):
        Config.remove_option("input", key)
    Config.set("input", "mouse", "mouse")
    Config.set("input", "%(name)s", "probesysfs")
    made = kivy_providers(monkeypatch, box_devices)
    assert sorted(type(p).__name__ for p in made) == ["MTDMotionEventProvider",
                                                      "MouseMotionEventProvider"]


def test_the_box_gets_one_provider_for_the_touchscreen_and_no_mouse(kivy_config, monkeypatch,
                                                                    box_devices):
    Config.set("input", "%(name)s", "probesysfs")     # as Kivy's config.ini leaves it
    Config.set("input", "mtdev_%(name)s", "probesysfs,provider=mtdev")
    display.configure(DisplayConfig(rotation=270), BOX)
    assert Config.get("graphics", "rotation") == "270"
    assert Config.get("graphics", "show_cursor") == "0"
    made = kivy_providers(monkeypatch, box_devices)
    assert [(type(p).__name__, p.input_fn, p.default_ranges) for p in made] == [
        ("MTDMotionEventProvider", "/dev/input/event3",
         {"invert_x": 0, "invert_y": 0, "rotation": 0})]


def test_a_desktop_gets_the_mouse_alone(kivy_config, monkeypatch, box_devices):
    Config.set("input", "%(name)s", "probesysfs")
    display.configure(DisplayConfig(), DESK)
    assert dict(Config.items("input")) == {"mouse": "mouse,disable_multitouch"}
    made = kivy_providers(monkeypatch, box_devices)
    assert [type(p) for p in made] == [MouseMotionEventProvider]
    assert made[0].disable_multitouch


def test_hidinput_and_a_named_device(kivy_config, monkeypatch, box_devices):
    display.configure(DisplayConfig(touch="hidinput", device="/dev/input/event5",
                                    invert_x=True), BOX)
    made = kivy_providers(monkeypatch, box_devices)
    assert [(type(p).__name__, p.input_fn, p.default_ranges) for p in made] == [
        ("HIDInputMotionEventProvider", "/dev/input/event5",
         {"invert_x": 1, "invert_y": 0, "rotation": 0})]


def test_configure_window_reads_the_hardware_config(kivy_config, monkeypatch, tmp_path):
    from ui.app import configure_window
    f = tmp_path / "hardware.toml"
    f.write_text("[display]\nrotation = 90\n")
    monkeypatch.setenv("TABLE_COMPANION_HARDWARE", str(f))
    configure_window(fullscreen=False, size=(800, 480))
    assert Config.get("graphics", "rotation") == "90"
    assert dict(Config.items("input")) == {"mouse": "mouse,disable_multitouch"}
    f.write_text("[display]\nrotation = 45\n")
    with pytest.raises(HardwareConfigError, match=r"\[display\] rotation"):
        configure_window(fullscreen=False, size=(800, 480))


# == taps through Kivy's own code, at every rotation ============================================
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]


class Pad(Button):
    def __init__(self, rgb):
        super().__init__(background_normal="", background_down="", text="",
                         background_color=[c / 255 for c in rgb] + [1])
        self.presses = self.releases = 0
        self.bind(on_press=lambda *_: setattr(self, "presses", self.presses + 1),
                  on_release=lambda *_: setattr(self, "releases", self.releases + 1))


@pytest.fixture
def pads(window):
    """Six buttons, three by two, filling the window, in six colours."""
    grid = GridLayout(cols=3)
    buttons = [Pad(c) for c in COLOURS]
    for b in buttons:
        grid.add_widget(b)
    Window.add_widget(grid)
    saved_post = EventLoop.postproc_modules
    EventLoop.postproc_modules = list(kivy_postproc_modules.values())   # as the app runs
    yield buttons
    EventLoop.postproc_modules = saved_post
    Window.rotation = 0
    Window.remove_widget(grid)
    EventLoop.idle()


def turn(rotation):
    """Turn the window as it is turned when it opens with ``[graphics] rotation``. (Turning a
    window that is open by 180 degrees changes no size, and Kivy 2.3.1 then forgets to
    recompute the picture's matrix: hence the explicit ``update_viewport``; the box sets the
    rotation before its window opens, see test_the_window_opens_turned.)"""
    Window.rotation = rotation
    Window.update_viewport()
    for _ in range(2):
        EventLoop.idle()


def drawn_centres():
    """Where each button is on the panel: the centre of its colour's pixels, in the panel's
    own pixels (x right, y down from its top-left corner, as a touch controller counts)."""
    w, h = Window.system_size
    assert (w, h) == PANEL
    Window.dispatch("on_draw")
    data = glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE)
    sums = {c: [0, 0, 0] for c in COLOURS}
    for row in range(0, h, 4):          # GL's row 0 is the bottom of the picture
        base = row * w * 4
        for col in range(0, w, 4):
            s = sums.get(tuple(data[base + col * 4: base + col * 4 + 3]))
            if s is not None:
                s[0] += col
                s[1] += h - 1 - row
                s[2] += 1
    assert all(s[2] for s in sums.values()), "a button is not on the screen"
    return [(round(s[0] / s[2]), round(s[1] / s[2])) for s in (sums[c] for c in COLOURS)]


def dispatch(provider):
    """One pass of the event loop's input: the provider's queue, the post-processing
    modules, the window, the widgets."""
    EventLoop.input_providers.append(provider)
    try:
        EventLoop.dispatch_input()
    finally:
        EventLoop.input_providers.remove(provider)


def protocol_b_tap(x, y, tracking_id=7):
    """One finger down and up, as edt-ft5x06 reports it (slot, tracking id, position, the
    pointer emulation of input_mt_sync_frame, SYN_REPORT)."""
    return [(EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, tracking_id),
            (EV_ABS, ABS_MT_POSITION_X, x), (EV_ABS, ABS_MT_POSITION_Y, y),
            (EV_KEY, BTN_TOUCH, 1), (EV_ABS, ABS_X, x), (EV_ABS, ABS_Y, y),
            (EV_SYN, SYN_REPORT, 0),
            (EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0), (EV_SYN, SYN_REPORT, 0)]


def single_touch_tap(x, y):
    """A single-touch (resistive) screen: ABS_X/ABS_Y and BTN_TOUCH."""
    return [(EV_ABS, ABS_X, x), (EV_ABS, ABS_Y, y), (EV_KEY, BTN_TOUCH, 1),
            (EV_SYN, SYN_REPORT, 0), (EV_KEY, BTN_TOUCH, 0), (EV_SYN, SYN_REPORT, 0)]


class Replayed(Exception):
    """The stand-in device has nothing more to say: ends the provider's reader loop."""


class FakeMtdev:
    """``kivy.lib.mtdev.Device`` over a list of events (libmtdev passes protocol B through
    as it is): what Kivy's mtdev reader loop asks of it."""
    AXES = {k_libmtdev.MTDEV_ABS_POSITION_X: ABS_MT_POSITION_X,
            k_libmtdev.MTDEV_ABS_POSITION_Y: ABS_MT_POSITION_Y}

    def __init__(self, events, ranges):
        self.events = collections.deque(
            types.SimpleNamespace(type=t, code=c, value=v) for t, c, v in events)
        self.ranges = ranges

    def get_abs(self, index):
        lo, hi = self.ranges.get(self.AXES.get(index), (0, 0))
        return types.SimpleNamespace(minimum=lo, maximum=hi)

    def idle(self, ms):
        if not self.events:
            raise Replayed
        return False

    def get(self):
        return self.events.popleft() if self.events else None

    def close(self):
        pass


class FakeEvdev:
    """The event device as Kivy's hidinput reads it: the ioctls it asks (EVIOCGNAME,
    EVIOCGBIT, EVIOCGABS), and a file of ``struct input_event``."""

    def __init__(self, ranges, name="stand-in touchscreen"):
        self.ranges, self.name = ranges, name

    def ioctl(self, fd, request, arg):
        nr, size = request & 0xff, len(arg)
        if nr == 0x06:                                      # EVIOCGNAME
            out = self.name.encode()
        elif nr == 0x20:                                    # EVIOCGBIT(0): event types
            out = struct.pack("Q", (1 << EV_SYN) | (1 << EV_KEY) | (1 << EV_ABS))
        elif nr == 0x20 + EV_ABS:                           # EVIOCGBIT(EV_ABS)
            out = struct.pack("Q", sum(1 << c for c in self.ranges))
        elif 0x40 <= nr < 0x80:                             # EVIOCGABS(code)
            lo, hi = self.ranges.get(nr - 0x40, (0, 0))
            out = struct.pack("iiiiii", 0, lo, hi, 0, 0, 0)
        else:
            raise OSError(25, "Inappropriate ioctl for device")
        return out.ljust(size, b"\0")[:size]

    def write(self, path, events):
        with open(path, "wb") as f:
            for t, c, v in events:
                f.write(struct.pack("LLHHi", 0, 0, t, c, v))


def provider_from_plan(p):
    """The one provider of a plan with a named device, made as Kivy makes it from [input]."""
    (key, value), = p.providers.items()
    provider_id, args = value.split(",", 1)
    return MotionEventFactory.get(provider_id)(key, args)


def tap_mtdev(monkeypatch, provider, events, ranges=FT5X06):
    """Run Kivy's mtdev reader loop over ``events``, then dispatch what it queued."""
    monkeypatch.setattr(k_mtdev, "Device", lambda fn: FakeMtdev(events, ranges))
    provider.queue = collections.deque()                # what start() gives its thread
    with pytest.raises(Replayed):                       # the thread's loop, run here
        provider._thread_run(queue=provider.queue, input_fn=provider.input_fn,
                             device=provider.device, default_ranges=provider.default_ranges)
    dispatch(provider)


def tap_hidinput(monkeypatch, tmp_path, cfg, events, ranges):
    dev = FakeEvdev(ranges)
    path = tmp_path / "event9"
    dev.write(path, events)
    monkeypatch.setattr(k_hidinput.fcntl, "ioctl", dev.ioctl)
    p = display.plan(DisplayConfig(**{**vars(cfg), "touch": "hidinput",
                                      "device": str(path)}), BOX)
    provider = provider_from_plan(p)
    provider.uid, provider.queue, provider.dispatch_queue = 0, collections.deque(), []
    provider._thread_run(queue=provider.queue, input_fn=provider.input_fn,
                         device=provider.device, default_ranges=provider.default_ranges)
    dispatch(provider)


def tap_window(x, y):
    """The desktop path: SDL's pointer event at the panel position, as window_sdl2 passes
    it on (``on_mouse_down``/``on_mouse_up`` with SDL's x, y), through Kivy's mouse
    provider configured as the plan says."""
    p = display.plan(DisplayConfig(), DESK)
    provider = provider_from_plan(p)
    provider.start()
    try:
        Window.dispatch("on_mouse_down", x, y, "left", [])
        Window.dispatch("on_mouse_up", x, y, "left", [])
        dispatch(provider)
    finally:
        provider.stop()


def presses(buttons):
    return [(b.presses, b.releases) for b in buttons]


def once(i):
    return [(1, 1) if j == i else (0, 0) for j in range(len(COLOURS))]


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_mtdev_tap_lands_on_the_button_drawn_under_the_finger(rotation, pads, monkeypatch,
                                                              kivy_config, box_devices):
    """The box as configured: ``[display] rotation`` and nothing else, the provider made by
    probesysfs from the [input] section, the window turned by Kivy's Config at start-up."""
    display.configure(DisplayConfig(rotation=rotation), BOX)
    (provider,) = kivy_providers(monkeypatch, box_devices)
    turn(Config.getint("graphics", "rotation"))     # what the window reads when it opens
    for i, (x, y) in enumerate(drawn_centres()):
        for b in pads:
            b.presses = b.releases = 0
        tap_mtdev(monkeypatch, provider, protocol_b_tap(x, y, 10 + i))
        assert presses(pads) == once(i), f"a tap at {x},{y} on the panel, rotation {rotation}"


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_window_tap_lands_on_the_button_drawn_under_the_pointer(rotation, pads):
    turn(rotation)
    for i, (x, y) in enumerate(drawn_centres()):
        for b in pads:
            b.presses = b.releases = 0
        tap_window(x, y)
        assert presses(pads) == once(i), f"a click at {x},{y}, rotation {rotation}"


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_hidinput_single_touch_tap_lands_on_its_button(rotation, pads, monkeypatch, tmp_path):
    """A resistive screen counting 0-4095 on both axes."""
    turn(rotation)
    scale = 4095 / (PANEL[0] - 1), 4095 / (PANEL[1] - 1)
    for i, (x, y) in enumerate(drawn_centres()):
        for b in pads:
            b.presses = b.releases = 0
        tap_hidinput(monkeypatch, tmp_path, DisplayConfig(rotation=rotation),
                     single_touch_tap(round(x * scale[0]), round(y * scale[1])),
                     {ABS_X: (0, 4095), ABS_Y: (0, 4095)})
        assert presses(pads) == once(i), f"a tap at {x},{y} on the panel, rotation {rotation}"


def test_hidinput_reads_nothing_from_a_protocol_b_screen(pads, monkeypatch, tmp_path):
    """Why ``auto`` takes mtdev: Kivy's hidinput reads multitouch type A only (it collects a
    contact at SYN_MT_REPORT, which type B drivers never send)."""
    turn(0)
    x, y = drawn_centres()[4]
    tap_hidinput(monkeypatch, tmp_path, DisplayConfig(), protocol_b_tap(x, y), FT5X06)
    assert presses(pads) == [(0, 0)] * len(COLOURS)


def test_hidinput_left_to_its_own_default_turns_y_upside_down(pads, monkeypatch, tmp_path):
    """Why the plan always passes invert_y: hidinput's default (invert_y=1) puts a touch at
    the panel's top on the bottom row."""
    turn(0)
    centres = drawn_centres()
    x, y = centres[0]                                   # top-left button
    dev = FakeEvdev({ABS_X: (0, 799), ABS_Y: (0, 479)})
    path = tmp_path / "event9"
    dev.write(path, single_touch_tap(x, y))
    monkeypatch.setattr(k_hidinput.fcntl, "ioctl", dev.ioctl)
    provider = MotionEventFactory.get("hidinput")("plain", str(path))
    provider.uid, provider.queue, provider.dispatch_queue = 0, collections.deque(), []
    provider._thread_run(queue=provider.queue, input_fn=provider.input_fn,
                         device=provider.device, default_ranges=provider.default_ranges)
    dispatch(provider)
    assert presses(pads) == once(3)                     # bottom-left


def sensor_reading(x, y, invert_x, invert_y, swap_xy):
    """What a sensor mounted against its panel reports for a finger at panel pixel (x, y),
    with the kernel's meaning of touchscreen-inverted-x/-y and -swapped-x-y (invert the
    reported axes, then swap them): the inverse of that. Returns the reading and the
    sensor's ranges."""
    w, h = PANEL
    rx, ry = (y, x) if swap_xy else (x, y)
    max_x, max_y = (h - 1, w - 1) if swap_xy else (w - 1, h - 1)
    rx = max_x - rx if invert_x else rx
    ry = max_y - ry if invert_y else ry
    ranges = {ABS_MT_SLOT: (0, 9), ABS_MT_TRACKING_ID: (0, 65535),
              ABS_MT_POSITION_X: (0, max_x), ABS_MT_POSITION_Y: (0, max_y)}
    return (rx, ry), ranges


@pytest.mark.parametrize("invert_x", (False, True))
@pytest.mark.parametrize("invert_y", (False, True))
@pytest.mark.parametrize("swap_xy", (False, True))
@pytest.mark.parametrize("rotation", (0, 90))
def test_calibration_then_rotation(invert_x, invert_y, swap_xy, rotation, pads, monkeypatch):
    """A sensor mounted turned or mirrored against its panel, corrected by the three
    calibration keys, with the display rotated on top: every button still gets its own
    tap, once."""
    turn(rotation)
    cfg = DisplayConfig(rotation=rotation, invert_x=invert_x, invert_y=invert_y,
                        swap_xy=swap_xy, device="/dev/input/by-path/platform-touch-event")
    provider = provider_from_plan(display.plan(cfg, BOX, mtdev=True))
    for i, (x, y) in enumerate(drawn_centres()):
        for b in pads:
            b.presses = b.releases = 0
        (rx, ry), ranges = sensor_reading(x, y, invert_x, invert_y, swap_xy)
        tap_mtdev(monkeypatch, provider, protocol_b_tap(rx, ry, 20 + i), ranges)
        assert presses(pads) == once(i), f"panel {x},{y} read as {rx},{ry}"


def test_rotation_turns_the_picture_as_docs_say(pads):
    """docs/hardware.md: rotation = 90 puts the panel's own left edge at the top (the
    picture's top row runs down the left edge), 180 turns it upside down, 270 puts the right
    edge at the top."""
    w, h = PANEL
    turn(0)
    c = drawn_centres()
    assert c[0][0] < w / 2 and c[0][1] < h / 2            # first button: top left
    turn(90)
    c = drawn_centres()
    assert c[0][0] < w / 2 and c[0][1] > h / 2            # bottom left of the panel
    assert c[2][0] < w / 2 and c[2][1] < h / 2            # the top row runs up the left edge
    turn(180)
    c = drawn_centres()
    assert c[0][0] > w / 2 and c[0][1] > h / 2
    turn(270)
    c = drawn_centres()
    assert c[0][0] > w / 2 and c[0][1] < h / 2            # top right
    assert c[2][0] > w / 2 and c[2][1] > h / 2            # the top row runs down the right


OPENS_TURNED = """
import json, sys
sys.path.insert(0, sys.argv[2])
from hardware.config import DisplayConfig
from ui.app import configure_window
configure_window(fullscreen=False, size=(800, 480),
                 display=DisplayConfig(rotation=int(sys.argv[1])))
from kivy.base import EventLoop
from kivy.core.window import Window
from tests.ui import test_display as t
grid = t.GridLayout(cols=3)
for c in t.COLOURS:
    grid.add_widget(t.Pad(c))
Window.add_widget(grid)
for _ in range(3):
    EventLoop.idle()
print("CENTRES " + json.dumps(t.drawn_centres()))
"""


@pytest.mark.parametrize("rotation", (90, 180))
def test_the_window_opens_turned(rotation, pads):
    """The box's way: ``configure_window`` with ``[display] rotation`` before the window
    exists, in a fresh process. The picture is where the in-process tests above see it."""
    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1")
    out = subprocess.run([sys.executable, "-c", OPENS_TURNED, str(rotation), str(root)],
                         env=env, capture_output=True, text=True, timeout=300, cwd=root)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("CENTRES ")]
    assert lines, out.stderr[-2000:]
    turn(rotation)
    assert [tuple(c) for c in json.loads(lines[-1][8:])] == drawn_centres()


# == the console's window: the screen's own mode, never "fullscreen" ===========================
def fake_drm(tmp_path, screens):
    """A made-up /sys/class/drm: ``screens`` maps a connector to (status, modes)."""
    drm = tmp_path / "drm"
    for name, (status, modes) in screens.items():
        d = drm / name
        d.mkdir(parents=True)
        (d / "status").write_text(status + "\n")
        (d / "modes").write_text("".join(m + "\n" for m in modes))
    return drm


def test_on_the_console_the_window_is_the_connected_screens_preferred_mode(tmp_path):
    drm = fake_drm(tmp_path, {"card0-HDMI-A-1": ("disconnected", []),
                              "card0-DSI-1": ("connected", ["800x480", "640x480"]),
                              "card1-HDMI-A-2": ("connected", ["1920x1080i", "1280x720"])})
    assert display.screen_mode(drm) == (800, 480)
    p = display.plan(DisplayConfig(), BOX, mtdev=True, drm=drm)
    assert p.mode == (800, 480) and "screen 800x480" in p.describe()
    config = types.SimpleNamespace(values={}, options=lambda s: [],
                                   remove_option=lambda s, k: None)
    config.set = lambda s, k, v: config.values.__setitem__((s, k), v)
    display.apply(p, config)
    # Kivy's fullscreen left the KMS/DRM screen black on the arm64 box: never asked there
    assert config.values[("graphics", "fullscreen")] == "0"
    assert (config.values[("graphics", "width")], config.values[("graphics", "height")]) == \
        ("800", "480")


def test_a_desktop_keeps_its_window_and_a_console_without_screens_says_so(tmp_path):
    drm = fake_drm(tmp_path, {"card0-HDMI-A-1": ("connected", ["1920x1080"])})
    assert display.plan(DisplayConfig(), DESK, mtdev=True, drm=drm).mode is None
    p = display.plan(DisplayConfig(), BOX, mtdev=True, drm=tmp_path / "none")
    assert p.mode is None and any("/sys/class/drm" in n for n in p.notes)
