"""The screen's touch and rotation: one input path, rotation in one place.

:func:`configure` runs before Kivy creates its window and input providers (``configure_window``
calls it). It reads the ``[display]`` section of the hardware config
(:class:`hardware.config.DisplayConfig`) and writes Kivy's ``[input]`` and ``[graphics]``
settings so that:

* **one provider reads each touch.** The ``[input]`` section is emptied (Kivy's defaults and
  any ``config.ini`` put ``mouse`` and ``probesysfs`` there, the double touch of Kivy issues
  1903 and 3801) and exactly one path is written back:

  - ``sdl``: Kivy's ``mouse`` provider only. For a desktop (X11, Wayland, SDL's offscreen
    driver in the tests): the window system turns a touch into the pointer.
  - ``mtdev``: Kivy's ``mtdev`` provider (libmtdev) on the touchscreen's event device, and no
    mouse provider. For the box. Under KMS/DRM the wheel's SDL 2.30 reads the touchscreen
    itself but sends finger events only (its evdev code passes no window, so it synthesises
    no mouse events) and Kivy 2.3.1 drops SDL finger events on Linux: without a provider of
    its own a touch never reaches the table.
  - ``hidinput``: Kivy's ``hidinput`` provider, for single-touch screens (ABS_X/ABS_Y and
    BTN_TOUCH: many resistive ones). Its multitouch reading wants protocol A (SYN_MT_REPORT)
    and gets nothing from protocol B (slots), which the official displays' drivers
    (edt-ft5x06, goodix) and USB screens (hid-multitouch) speak: ``auto`` takes it only when
    libmtdev is missing.

* **rotation is Kivy's window rotation and nothing else** (``[graphics] rotation``). Kivy
  turns the picture and every provider's touches with the same rotation
  (``Window.transform_motion_event_2d``), so the providers get no ``rotation`` of their own.
  Calibration (``invert_x``, ``invert_y``, ``swap_xy``) is the sensor against its own panel,
  before the rotation, and is passed to the provider.

``auto`` picks ``sdl`` under a window system and ``mtdev`` (else ``hidinput``) on the console.

* **on the console the window is the screen's own mode, not "full screen".** Under KMS/DRM
  there are no windows: SDL sets the display to a mode of the window's size (Kivy's default
  800x600 turned a 800x480 panel into 800x600), and Kivy's ``fullscreen`` (``auto`` or ``1``)
  left the screen black there (seen on the arm64 test box: the table drew, nothing reached
  the screen; a plain window of the panel's size showed). So on the console the window is
  the connected screen's preferred mode (``/sys/class/drm/*/modes``, first line), not
  fullscreen.
"""
import ctypes
import logging
import os
import pathlib
import re
import sys
from dataclasses import dataclass

log = logging.getLogger("companion.ui")

MOUSE = "mouse,disable_multitouch"      # one pointer, no red multitouch-simulation dots
#: The provider's own ``rotation`` that swaps the sensor's axes. Kivy's hidinput and mtdev
#: "rotation" 90/270 are reflections (they exchange x and y and may flip both); 270 is exactly
#: the kernel's touchscreen-swapped-x-y after the inversions (tests/ui/test_display.py).
SWAP_ROTATION = 270
#: SDL video drivers that draw on the console, with no window system around the table.
CONSOLE_DRIVERS = ("kmsdrm", "kmsdrm_legacy", "rpi", "vivante", "evdev")


@dataclass(frozen=True)
class InputPlan:
    """What Kivy is told: ``providers`` is the whole ``[input]`` section."""
    path: str                   # "sdl", "mtdev" or "hidinput"
    providers: dict
    rotation: int
    show_cursor: bool
    notes: tuple = ()           # sentences for the log: a fallback, a setting that does nothing
    mode: tuple | None = None   # on the console: the screen's (width, height), not fullscreen

    def describe(self) -> str:
        where = ", ".join(f"{k} = {v}" for k, v in self.providers.items())
        screen = f", screen {self.mode[0]}x{self.mode[1]}" if self.mode else ""
        return f"touch through {self.path} ({where}), rotation {self.rotation}{screen}"


def screen_mode(drm="/sys/class/drm"):
    """(width, height) of the first connected screen's preferred mode (the first line of its
    ``modes``), or None when no connected screen says."""
    for status in sorted(pathlib.Path(drm).glob("card*-*/status")):
        try:
            if status.read_text().strip() != "connected":
                continue
            first = (status.parent / "modes").read_text().split()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)x(\d+)\w*", first[0]) if first else None
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def on_console(env=None) -> bool:
    """Does SDL draw on the console (KMS/DRM, the box) rather than in a window system?"""
    env = os.environ if env is None else env
    drivers = [d.strip().lower() for d in env.get("SDL_VIDEODRIVER", "").split(",") if d.strip()]
    if drivers:
        return drivers[0] in CONSOLE_DRIVERS
    if sys.platform != "linux":
        return False
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def mtdev_available() -> bool:
    """Can Kivy's mtdev provider load libmtdev (Debian's libmtdev1)?"""
    try:
        ctypes.CDLL("libmtdev.so.1")
    except OSError:
        return False
    return True


def plan(display, env=None, mtdev=None, drm="/sys/class/drm") -> InputPlan:
    """The input and graphics settings for ``display`` (a ``DisplayConfig``). ``env``: the
    environment (default ``os.environ``); ``mtdev``: whether libmtdev loads (default: try);
    ``drm``: where the screens are listed (sysfs)."""
    console = on_console(env)
    notes = []
    path = display.touch
    calibrated = display.invert_x or display.invert_y or display.swap_xy or display.device
    if path == "auto":
        path = "mtdev" if console else "sdl"
        if path == "sdl" and calibrated:
            notes.append("[display] device and calibration are not used in a window: the "
                         "desktop's own touch settings apply")
    if path == "mtdev" and not (mtdev_available() if mtdev is None else mtdev):
        path = "hidinput"
        notes.append("libmtdev is not installed (Debian: libmtdev1): reading the touchscreen "
                     "with hidinput, which reads single-touch and type A screens only; the "
                     "official displays need libmtdev")
    if path == "sdl":
        if console:
            notes.append('touch = "sdl" on the console: SDL sends finger events only there and '
                         'Kivy ignores them, so only a mouse works')
        providers = {"mouse": MOUSE}
    else:
        params = [f"invert_x={int(display.invert_x)}", f"invert_y={int(display.invert_y)}"]
        if display.swap_xy:
            params.append(f"rotation={SWAP_ROTATION}")
        if display.device:
            providers = {"touch": ",".join([path, display.device] + params)}
        else:       # probesysfs: every event device with ABS_MT_POSITION_X, one provider each
            providers = {"touch_%(name)s": ",".join(
                ["probesysfs", f"provider={path}", "select_all=0"]
                + [f"param={p}" for p in params])}
    mode = None
    if console:
        mode = screen_mode(drm)
        if mode is None:
            notes.append("no connected screen lists its modes in /sys/class/drm: the window "
                         "keeps its configured size")
    return InputPlan(path=path, providers=providers, rotation=display.rotation,
                     show_cursor=not console, notes=tuple(notes), mode=mode)


def apply(p: InputPlan, config=None):
    """Write ``p`` into Kivy's config (``kivy.config.Config``): before the window exists."""
    if config is None:
        from kivy.config import Config as config
    for key in list(config.options("input")):
        config.remove_option("input", key)
    for key, value in p.providers.items():
        config.set("input", key, value)
    config.set("graphics", "rotation", str(p.rotation))
    if p.mode:                     # the console: the screen's own mode, never "fullscreen"
        config.set("graphics", "fullscreen", "0")
        config.set("graphics", "width", str(p.mode[0]))
        config.set("graphics", "height", str(p.mode[1]))
    if not p.show_cursor:          # the console: no arrow left wherever the last mouse was
        config.set("graphics", "show_cursor", "0")


def load(path=None):
    """The ``[display]`` section of the hardware config at ``path`` (default: the one
    ``companion run`` reads, ``hardware.config.default_path()``)."""
    from hardware.config import default_path, load_config
    return load_config(path if path is not None else default_path()).display


def configure(display=None, env=None, config=None) -> InputPlan:
    """Plan and apply (``display``: a ``DisplayConfig``; default: :func:`load`)."""
    p = plan(display if display is not None else load(), env)
    apply(p, config)
    for note in p.notes:
        log.warning("Display: %s.", note)
    log.info("Display: %s.", p.describe())
    return p
