"""The table's hardware settings: which pins and parts, and where the card reader is.

A TOML file, every key optional (the defaults below are the wiring in docs/wiring.md)::

    [buzzer]
    pin = 18                 # BCM number; false = no buzzer fitted
    kind = "active"          # "active" (on/off) or "passive" (PWM tone at `frequency`)
    frequency = 2700         # Hz, passive buzzers only
    active_high = true
    part = "Adafruit 1536 (5 V active buzzer) via 2N3904"

    [light]
    kind = "rgb"             # "rgb" (one RGB LED on three pins) or "none"
    pins = [17, 27, 22]      # red, green, blue
    common_anode = false
    brightness = 1.0         # 0.0-1.0, scales every colour
    part = "SparkFun COM-09264 (5 mm RGB LED, common cathode), 3 x 220 ohm"
    [light.phases]           # phase name -> "#RRGGBB" or [r, g, b]; added to the defaults
    trade = "#00C853"

    [buttons]
    next = 5                 # BCM numbers; false = not fitted
    pause = 6
    undo = 13
    shutdown = false         # a BCM number to fit a shutdown button (held, it powers off)
    shutdown_hold_s = 3.0    # how long it must be held (a bump does nothing)
    pull_up = true           # buttons switch to ground
    bounce_ms = 30
    part = "Omron B3F-4055 (12 mm tactile)"

    [reader]
    port = ""                # "" = find by vid_pid; or "/dev/ttyACM0", "socket://host:port", ...
    vid_pid = "2E8A:0005"    # MicroPython on a Raspberry Pi Pico
    baudrate = 115200

    [display]
    rotation = 0             # degrees, 0/90/180/270: how the screen is mounted (turns touch too)
    touch = "auto"           # "auto", "sdl", "mtdev" or "hidinput" (docs/hardware.md)
    device = ""              # "" = every multitouch screen found; or "/dev/input/by-path/..."
    invert_x = false         # calibration of a touch sensor that disagrees with its panel
    invert_y = false
    swap_xy = false

:func:`load_config` reads a file (``None`` = defaults only). Every mistake raises
:class:`HardwareConfigError` naming the file, the section and the key.
"""
import dataclasses
import os
import tomllib
from pathlib import Path

from companion.core.args import is_whole
from companion.core.datafile import is_kind
from hardware.errors import HardwareConfigError

ENV_VAR = "TABLE_COMPANION_HARDWARE"

# phase -> RGB. Any phase not named here shows NEUTRAL. Names are matched case-insensitively.
DEFAULT_PHASE_COLOURS = {
    "setup": (255, 255, 255),
    "event": (255, 140, 0),      # orange
    "upkeep": (255, 255, 255),   # replaced by the C/M/Y/K cues while upkeep runs
    "draw": (0, 90, 255),        # blue
    "policy": (150, 0, 255),     # violet: face-down, then 3-2-1 reveal
    "bid": (150, 0, 255),
    "reveal": (255, 255, 255),
    "trade": (0, 200, 83),       # green: the timer runs
    "income": (255, 200, 0),     # gold
    "cleanup": (90, 90, 90),     # dim grey
    "paused": (255, 0, 0),
    "game-over": (255, 255, 255),
}
NEUTRAL = (60, 60, 60)

VALID_PINS = range(0, 28)   # BCM GPIO numbers on the 40-pin header


@dataclasses.dataclass(frozen=True)
class BuzzerConfig:
    pin: int | None = 18
    kind: str = "active"
    frequency: int = 2700
    active_high: bool = True
    part: str = "Adafruit 1536 (5 V active buzzer) switched by a 2N3904 NPN transistor"


@dataclasses.dataclass(frozen=True)
class LightConfig:
    kind: str = "rgb"
    pins: tuple = (17, 27, 22)
    common_anode: bool = False
    brightness: float = 1.0
    part: str = "SparkFun COM-09264 (5 mm RGB LED, common cathode) with 3 x 220 ohm resistors"
    phases: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_PHASE_COLOURS))


@dataclasses.dataclass(frozen=True)
class ButtonsConfig:
    next: int | None = 5
    pause: int | None = 6
    undo: int | None = 13
    pull_up: bool = True
    bounce_ms: int = 30
    part: str = "Omron B3F-4055 12 mm tactile switch (x3)"
    shutdown: int | None = None         # not fitted unless the config names a pin
    shutdown_hold_s: float = 3.0

    def pins(self) -> dict:
        """``{name: pin}`` for the Next, Pause and Undo buttons that are fitted (the shutdown
        button is not one of them: it is held, not pressed)."""
        return {n: p for n, p in (("next", self.next), ("pause", self.pause),
                                  ("undo", self.undo)) if p is not None}

    def all_pins(self) -> dict:
        """:meth:`pins` and the shutdown button, if fitted."""
        pins = self.pins()
        if self.shutdown is not None:
            pins["shutdown"] = self.shutdown
        return pins


@dataclasses.dataclass(frozen=True)
class ReaderConfig:
    port: str = ""
    vid_pid: tuple = (0x2E8A, 0x0005)
    baudrate: int = 115200

    def vid_pid_text(self) -> str:
        return "%04X:%04X" % self.vid_pid


ROTATIONS = (0, 90, 180, 270)
TOUCH_PATHS = ("auto", "sdl", "mtdev", "hidinput")


@dataclasses.dataclass(frozen=True)
class DisplayConfig:
    """The screen: how it is mounted and where its touches come from. ``ui.display`` turns it
    into Kivy's input and graphics settings before the window opens (docs/hardware.md,
    "Display and touch")."""
    rotation: int = 0            # degrees the picture and the touches are turned
    touch: str = "auto"          # one of TOUCH_PATHS
    device: str = ""             # the touch's event device; "" = every multitouch screen
    invert_x: bool = False       # the sensor's own X axis runs the other way
    invert_y: bool = False
    swap_xy: bool = False        # the sensor's X axis runs along the panel's height


@dataclasses.dataclass(frozen=True)
class HardwareConfig:
    buzzer: BuzzerConfig = dataclasses.field(default_factory=BuzzerConfig)
    light: LightConfig = dataclasses.field(default_factory=LightConfig)
    buttons: ButtonsConfig = dataclasses.field(default_factory=ButtonsConfig)
    reader: ReaderConfig = dataclasses.field(default_factory=ReaderConfig)
    display: DisplayConfig = dataclasses.field(default_factory=DisplayConfig)
    source: str = "(defaults)"


def default_path() -> Path | None:
    """The config file to use when none is given: ``$TABLE_COMPANION_HARDWARE`` if set, else
    ``/etc/table-companion/hardware.toml`` if it exists, else None (defaults)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    p = Path("/etc/table-companion/hardware.toml")
    return p if p.exists() else None


def load_config(path=None) -> HardwareConfig:
    """Read ``path`` (a TOML file) over the defaults; ``None`` gives the defaults."""
    if path is None:
        return HardwareConfig()
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise HardwareConfigError(f"{path}: no such hardware config file.") from None
    except OSError as e:
        raise HardwareConfigError(f"{path}: cannot be read ({e.strerror}).") from None
    except tomllib.TOMLDecodeError as e:
        raise HardwareConfigError(f"{path}: is not valid TOML ({e}).") from None
    return parse_config(data, str(path))


def parse_config(data: dict, source: str = "(config)") -> HardwareConfig:
    p = _Parser(source)
    known = {"buzzer", "light", "buttons", "reader", "display"}
    for key in data:
        if key not in known:
            p.fail(None, key, f"unknown section (known: {', '.join(sorted(known))})")
    cfg = HardwareConfig(
        buzzer=p.buzzer(p.section(data, "buzzer")),
        light=p.light(p.section(data, "light")),
        buttons=p.buttons(p.section(data, "buttons")),
        reader=p.reader(p.section(data, "reader")),
        display=p.display(p.section(data, "display")),
        source=source)
    p.check_pins_unique(cfg)
    return cfg


class _Parser:
    def __init__(self, source):
        self.source = source

    def fail(self, section, key, problem):
        where = f"[{section}] {key}" if section else f"[{key}]"
        raise HardwareConfigError(f"{self.source}: {where}: {problem}.")

    def section(self, data, name):
        sec = data.get(name, {})
        if not isinstance(sec, dict):
            self.fail(None, name, "must be a table of settings")
        return sec

    def only(self, sec, name, keys):
        for k in sec:
            if k not in keys:
                self.fail(name, k, f"unknown key (known: {', '.join(sorted(keys))})")

    def pin(self, sec, name, key, default, optional=True):
        v = sec.get(key, default)
        if v is False and optional:
            return None
        if isinstance(v, str) and v.upper().startswith("GPIO") and v[4:].isdigit():
            v = int(v[4:])
        if not is_whole(v) or v not in VALID_PINS:
            self.fail(name, key, f"{v!r} is not a BCM GPIO number 0-27"
                      + (" (or false for none)" if optional else ""))
        return v

    def choice(self, sec, name, key, default, choices):
        v = sec.get(key, default)
        if v not in choices:
            self.fail(name, key, f"{v!r} is not one of {', '.join(map(repr, choices))}")
        return v

    def typed(self, sec, name, key, default, kind, check=None, what=None):
        v = sec.get(key, default)
        if kind is float and is_whole(v):
            v = float(v)
        if not is_kind(v, kind):
            self.fail(name, key, f"must be {what or kind.__name__}, not {v!r}")
        if check and not check(v):
            self.fail(name, key, f"must be {what}, not {v!r}")
        return v

    def colour(self, name, key, v):
        if isinstance(v, str):
            t = v[1:] if v.startswith("#") else v
            if len(t) == 6:
                try:
                    return (int(t[0:2], 16), int(t[2:4], 16), int(t[4:6], 16))
                except ValueError:
                    pass
        elif (isinstance(v, list) and len(v) == 3
              and all(is_whole(c) and 0 <= c <= 255 for c in v)):
            return tuple(v)
        self.fail(name, key, f"{v!r} is not a colour (\"#RRGGBB\" or [r, g, b] with 0-255)")

    def buzzer(self, sec):
        d = BuzzerConfig()
        self.only(sec, "buzzer", {"pin", "kind", "frequency", "active_high", "part"})
        return BuzzerConfig(
            pin=self.pin(sec, "buzzer", "pin", d.pin),
            kind=self.choice(sec, "buzzer", "kind", d.kind, ("active", "passive")),
            frequency=self.typed(sec, "buzzer", "frequency", d.frequency, int,
                                 lambda f: 20 <= f <= 20000, "a frequency 20-20000 Hz"),
            active_high=self.typed(sec, "buzzer", "active_high", d.active_high, bool),
            part=self.typed(sec, "buzzer", "part", d.part, str))

    def light(self, sec):
        d = LightConfig()
        self.only(sec, "light", {"kind", "pins", "common_anode", "brightness", "part", "phases"})
        kind = self.choice(sec, "light", "kind", d.kind, ("rgb", "none"))
        pins = sec.get("pins", list(d.pins))
        if not isinstance(pins, list) or len(pins) != 3:
            self.fail("light", "pins", f"{pins!r} is not three pins [red, green, blue]")
        pins = tuple(self.pin({"pins": p}, "light", "pins", None, optional=False) for p in pins)
        phases = dict(DEFAULT_PHASE_COLOURS)
        extra = sec.get("phases", {})
        if not isinstance(extra, dict):
            self.fail("light", "phases", "must be a table of phase = colour")
        for k, v in extra.items():
            phases[k.lower()] = self.colour("light.phases", k, v)
        return LightConfig(
            kind=kind, pins=pins,
            common_anode=self.typed(sec, "light", "common_anode", d.common_anode, bool),
            brightness=self.typed(sec, "light", "brightness", d.brightness, float,
                                  lambda b: 0.0 <= b <= 1.0, "a number 0.0-1.0"),
            part=self.typed(sec, "light", "part", d.part, str),
            phases=phases)

    def buttons(self, sec):
        d = ButtonsConfig()
        self.only(sec, "buttons", {"next", "pause", "undo", "shutdown", "shutdown_hold_s",
                                   "pull_up", "bounce_ms", "part"})
        return ButtonsConfig(
            next=self.pin(sec, "buttons", "next", d.next),
            pause=self.pin(sec, "buttons", "pause", d.pause),
            undo=self.pin(sec, "buttons", "undo", d.undo),
            shutdown=self.pin(sec, "buttons", "shutdown", d.shutdown if d.shutdown is not None
                              else False),
            shutdown_hold_s=self.typed(sec, "buttons", "shutdown_hold_s", d.shutdown_hold_s,
                                       float, lambda s: 0.5 <= s <= 30.0,
                                       "a number of seconds 0.5-30"),
            pull_up=self.typed(sec, "buttons", "pull_up", d.pull_up, bool),
            bounce_ms=self.typed(sec, "buttons", "bounce_ms", d.bounce_ms, int,
                                 lambda b: 0 <= b <= 1000, "a whole number of ms 0-1000"),
            part=self.typed(sec, "buttons", "part", d.part, str))

    def reader(self, sec):
        d = ReaderConfig()
        self.only(sec, "reader", {"port", "vid_pid", "baudrate"})
        vp = sec.get("vid_pid", d.vid_pid_text())
        vid_pid = parse_vid_pid(vp) if isinstance(vp, str) else None
        if vid_pid is None:
            self.fail("reader", "vid_pid", f"{vp!r} is not VVVV:PPPP in hex (e.g. \"2E8A:0005\")")
        return ReaderConfig(
            port=self.typed(sec, "reader", "port", d.port, str),
            vid_pid=vid_pid,
            baudrate=self.typed(sec, "reader", "baudrate", d.baudrate, int,
                                lambda b: 1200 <= b <= 4_000_000, "a baud rate"))

    def display(self, sec):
        d = DisplayConfig()
        keys = ("rotation", "touch", "device", "invert_x", "invert_y", "swap_xy")
        self.only(sec, "display", set(keys))
        cfg = DisplayConfig(
            rotation=self.typed(sec, "display", "rotation", d.rotation, int,
                                lambda r: r in ROTATIONS, "0, 90, 180 or 270 (degrees)"),
            touch=self.choice(sec, "display", "touch", d.touch, TOUCH_PATHS),
            device=self.typed(sec, "display", "device", d.device, str,
                              lambda p: p == "" or (p.startswith("/") and "," not in p),
                              "\"\" or an event device's path such as /dev/input/event0"),
            invert_x=self.typed(sec, "display", "invert_x", d.invert_x, bool),
            invert_y=self.typed(sec, "display", "invert_y", d.invert_y, bool),
            swap_xy=self.typed(sec, "display", "swap_xy", d.swap_xy, bool))
        if cfg.touch == "sdl":      # SDL's touches are the desktop's pointer: nothing to set
            for key in keys[2:]:
                if getattr(cfg, key) != getattr(d, key):
                    self.fail("display", key, 'applies to touch = "mtdev" or "hidinput" (with '
                              '"sdl" the desktop turns touches into the mouse)')
        return cfg

    def check_pins_unique(self, cfg):
        used = {}
        if cfg.buzzer.pin is not None:
            used.setdefault(cfg.buzzer.pin, []).append("buzzer.pin")
        if cfg.light.kind == "rgb":
            for colour, p in zip(("red", "green", "blue"), cfg.light.pins):
                used.setdefault(p, []).append(f"light.pins ({colour})")
        for name, p in cfg.buttons.all_pins().items():
            used.setdefault(p, []).append(f"buttons.{name}")
        for p, who in used.items():
            if len(who) > 1:
                raise HardwareConfigError(
                    f"{self.source}: GPIO{p} is given to both {who[0]} and {who[1]}.")


def parse_vid_pid(text: str):
    """``"2E8A:0005"`` -> ``(0x2E8A, 0x0005)``; None if it is not that shape."""
    parts = text.split(":")
    if len(parts) != 2 or not all(1 <= len(x) <= 4 for x in parts):
        return None
    try:
        return int(parts[0], 16), int(parts[1], 16)
    except ValueError:
        return None
