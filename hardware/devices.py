"""The table's GPIO devices over gpiozero, with the pin factory passed in (never a global).

``TableDevices(config, pin_factory)`` builds what the config says is fitted:

* ``buzzer``: :class:`TableBuzzer`. ``play(name, at=None)`` plays a named pattern
  (:data:`hardware.cues.PATTERNS`: ``reveal``, ``warning``, ``timeout``, ``error``, ``tick``,
  ``ok``); ``at`` is the monotonic time of the pattern's moment (the reveal, the 0:00), default
  now. ``countdown(deadline, warning_before=30)`` schedules the 0:30 chirp and the 0:00 buzzer
  of a timer. ``cancel(handle=None)`` drops pending edges. Edges are scheduled on the monotonic
  clock by the buzzer's own thread, not by any UI frame.
* ``light``: :class:`TableLight`. ``show_phase(name)``, ``show_upkeep("C"|"M"|"Y"|"K")``
  (fill colour alternating with ring colour on a single RGB LED), ``show_colour(rgb)``, ``off()``.
* buttons: assign ``when_next``, ``when_pause``, ``when_undo`` (each called with a
  :class:`hardware.events.ButtonPressed`, on gpiozero's thread); ``on_event`` gets every event.

``close()`` is idempotent and the object is a context manager. Parts that are not fitted (pin
``false`` in the config) are None; calling the others is always safe.

**A part that cannot be built is left out, not fatal.** Each part (buzzer, light, each button)
is built on its own; one that fails (a line busy, a pin the chip does not have, no permission)
is None, and ``problems`` holds a :class:`PartProblem` with a sentence that says what is missing
and what to do. ``summary()`` gives the sentences for the screen, parts that failed alike in
one sentence. The RGB light on a pin library without PWM falls back to on/off colours (8
colours: a channel is on when its value is at least half) and says so. ``without_gpio(config,
reason)`` makes the object for a machine whose GPIO could not be opened at all: no parts, one
sentence.

The optional shutdown button (``[buttons] shutdown``) sends
``PowerRequested("poweroff")`` to ``on_event`` once it has been held ``shutdown_hold_s`` seconds
of the devices' clock (:class:`HoldWatch`); a shorter press does nothing.
"""
import dataclasses
import gc
import heapq
import itertools
import logging
import os
import re
import threading
import time

from gpiozero import Button, DigitalOutputDevice, PWMOutputDevice, RGBLED
from gpiozero.exc import GPIOPinInUse, PinFixedPull, PinInvalidPin, PinPWMUnsupported

from hardware.config import NEUTRAL, HardwareConfig
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.errors import (DeviceClosedError, PinFactoryError, UnknownButtonError,
                             UnknownCueError, UnknownPatternError)
from hardware.events import ButtonPressed, PowerRequested
from hardware.pinlib import LGPIO_INSTALL, library_label, library_name

log = logging.getLogger(__name__)


class EdgeScheduler:
    """Drives one on/off output at absolute monotonic deadlines, from its own thread.

    It waits on a condition until ``approach`` seconds before the next edge (so new or cancelled
    edges wake it), then sleeps the rest with ``time.sleep`` (nanosleep on the monotonic clock)
    and switches the output. Deadlines are absolute, so errors never accumulate.
    """

    def __init__(self, switch, clock=time.monotonic, approach=0.003, name="buzzer"):
        self._switch = switch
        self._clock = clock
        self._approach = approach
        self._heap = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._live = {}          # token -> is on
        self._tokens = itertools.count(1)
        self._output = False
        self._closed = False
        self._busy = False
        self.realtime = None
        self._thread = threading.Thread(target=self._run, name=f"{name}-edges", daemon=True)
        self._thread.start()

    def add(self, edges):
        """Schedule ``[(time, on?)...]``; returns a token for :meth:`cancel`."""
        token = next(self._tokens)
        with self._cond:
            if self._closed:
                raise DeviceClosedError("the buzzer is closed")
            self._live[token] = False
            for t, on in edges:
                heapq.heappush(self._heap, (t, next(self._order), on, token))
            self._cond.notify()
        return token

    def cancel(self, token=None):
        """Drop the pending edges of ``token`` (all if None) and silence what it switched on."""
        with self._cond:
            if token is None:
                self._live.clear()
                self._heap.clear()
            else:
                self._live.pop(token, None)
                self._heap = [e for e in self._heap if e[3] != token]
                heapq.heapify(self._heap)
            self._apply()
            self._cond.notify()

    def pending(self) -> int:
        with self._cond:
            return len(self._heap)

    def wait_idle(self, timeout=None) -> bool:
        """Block until no edge is pending (True) or ``timeout`` passes (False)."""
        end = None if timeout is None else self._clock() + timeout
        with self._cond:
            while self._heap or self._busy:
                left = None if end is None else end - self._clock()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 0.5)
            return True

    def close(self):
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._heap.clear()
            self._live.clear()
            self._apply()
            self._cond.notify_all()
        self._thread.join(2)

    def _apply(self):
        out = any(self._live.values())
        if out != self._output:
            self._output = out
            try:
                self._switch(out)
            except Exception:  # a closed device: nothing left to drive
                log.exception("buzzer output failed")

    def _realtime(self):
        """Ask Linux for real-time priority for this thread (root or CAP_SYS_NICE): other
        processes then cannot delay an edge. Without the right, it runs as a normal thread."""
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            self.realtime = True
        except (AttributeError, OSError):
            self.realtime = False
            log.debug("buzzer thread runs without real-time priority")

    def _run(self):
        self._realtime()
        cond = self._cond
        with cond:
            while not self._closed:
                if not self._heap:
                    cond.notify_all()          # wake wait_idle
                    cond.wait()
                    continue
                due = self._heap[0][0]
                left = due - self._clock()
                if left > self._approach:
                    cond.wait(left - self._approach)
                    continue
                _, _, on, token = heapq.heappop(self._heap)
                self._busy = True
                cond.release()
                try:
                    left = due - self._clock()
                    if left > 0:
                        time.sleep(left)
                finally:
                    cond.acquire()
                    self._busy = False
                if token in self._live and not self._closed:
                    self._live[token] = on
                    self._apply()
                    if not on and not any(e[3] == token for e in self._heap):
                        del self._live[token]   # finished


class TableBuzzer:
    """A buzzer playing named patterns at exact monotonic times. See the module docstring."""

    def __init__(self, config, pin_factory, clock=time.monotonic):
        self.config = config
        self.clock = clock
        if config.kind == "passive":
            self.device = PWMOutputDevice(config.pin, active_high=config.active_high,
                                          initial_value=0, frequency=config.frequency,
                                          pin_factory=pin_factory)
            switch = self._switch_pwm
        else:
            self.device = DigitalOutputDevice(config.pin, active_high=config.active_high,
                                              initial_value=False, pin_factory=pin_factory)
            switch = self._switch_digital
        self.scheduler = EdgeScheduler(switch, clock=clock)
        self.history = []   # (pattern name, anchor time, edges) of everything played, newest last
        self._closed = False

    def _switch_digital(self, on):
        self.device.on() if on else self.device.off()

    def _switch_pwm(self, on):
        self.device.value = 0.5 if on else 0

    def plan(self, name, at=None):
        """The edges ``play`` would schedule: ``[(monotonic time, on?)...]``."""
        try:
            pattern = PATTERNS[name]
        except KeyError:
            raise UnknownPatternError(name, PATTERNS) from None
        if at is None:
            at = self.clock() + pattern.anchor
        return pattern.edges(at)

    def play(self, name, at=None):
        """Play pattern ``name`` with its moment at ``at`` (monotonic seconds; default: start
        now). Returns a handle for :meth:`cancel`."""
        edges = self.plan(name, at)
        self.history.append((name, at, edges))
        del self.history[:-1000]
        return self.scheduler.add(edges)

    def countdown(self, deadline, warning_before=30.0, tick_every=None):
        """Schedule a timer's cues: the warning chirp ``warning_before`` seconds before
        ``deadline`` (if still ahead), optional ticks, and the buzzer at ``deadline``.
        Returns the handles (cancel them when the timer is paused or stopped)."""
        handles = []
        now = self.clock()
        if tick_every:
            t = deadline - tick_every
            ticks = []
            while t > now:
                if abs(t - (deadline - warning_before)) > 0.2:
                    ticks.append(t)
                t -= tick_every
            for t in sorted(ticks):
                handles.append(self.play("tick", at=t))
        if warning_before and deadline - warning_before > now:
            handles.append(self.play("warning", at=deadline - warning_before))
        handles.append(self.play("timeout", at=deadline))
        return handles

    def cancel(self, handle=None):
        """Cancel one handle, a list of handles, or (None) everything pending."""
        if isinstance(handle, (list, tuple)):
            for h in handle:
                self.scheduler.cancel(h)
        else:
            self.scheduler.cancel(handle)

    def wait_idle(self, timeout=None):
        return self.scheduler.wait_idle(timeout)

    def close(self):
        if self._closed:
            return
        self._closed = True
        self.scheduler.close()
        self.device.close()


class TableLight:
    """One RGB LED showing the phase colour, or the C/M/Y/K upkeep cue.

    ``pwm=False`` (a pin library without PWM): on/off colours, 8 of them; a channel is on when
    its 0-255 value is at least half (128), and ``brightness`` cannot dim it."""

    def __init__(self, config, pin_factory, pwm=True):
        self.config = config
        self.pwm = pwm
        r, g, b = config.pins
        self.device = RGBLED(r, g, b, active_high=not config.common_anode, pwm=pwm,
                             pin_factory=pin_factory)
        self.showing = ("off", None)
        self._closed = False

    def _scaled(self, rgb):
        if not self.pwm:
            return tuple(1 if c >= 128 else 0 for c in rgb)
        k = self.config.brightness / 255.0
        return tuple(round(c * k, 4) for c in rgb)

    def colour_of(self, phase):
        """The colour ``show_phase`` uses for a phase name (NEUTRAL if the config has none)."""
        return self.config.phases.get(str(phase).lower(), NEUTRAL)

    def show_colour(self, rgb):
        self.device.color = self._scaled(rgb)
        self.showing = ("colour", tuple(rgb))

    def show_phase(self, name):
        """Steady phase colour. An unknown phase shows the neutral colour (and is logged)."""
        key = str(name).lower()
        if key not in self.config.phases:
            log.warning("no colour configured for phase %r; showing neutral", name)
        rgb = self.colour_of(key)
        self.device.color = self._scaled(rgb)
        self.showing = ("phase", key)
        return rgb

    def show_upkeep(self, letter):
        """The upkeep cue: fill colour, alternating with the ring colour (0.7 s / 0.3 s)."""
        cue = UPKEEP_CUES.get(str(letter).upper())
        if cue is None:
            raise UnknownCueError(f"upkeep letter must be C, M, Y or K, not {letter!r}")
        self.device.blink(on_time=0.7, off_time=0.3, on_color=self._scaled(cue.fill),
                          off_color=self._scaled(cue.ring), background=True)
        self.showing = ("upkeep", cue.letter)
        return cue

    def off(self):
        self.device.off()
        self.showing = ("off", None)

    def close(self):
        if self._closed:
            return
        self._closed = True
        self.device.close()


@dataclasses.dataclass(frozen=True)
class PartProblem:
    """A part that is left out (or works in a lesser way), and why.

    ``part``: ``"buzzer"``, ``"light"``, ``"button undo"``...; ``what``: the part in words with
    its pins (``"the undo button on GPIO 13"``); ``sentence``: the whole sentence for this part
    alone; ``degraded``: the part works, in a lesser way (the light's plain colours); ``why``:
    ``(kind, detail)`` of a part that could not be opened, so that :func:`summarize` can say it
    once for every part that failed alike (None for a sentence of its own)."""
    part: str
    what: str
    sentence: str
    degraded: bool = False
    why: tuple | None = None


def _chip_lines(factory):
    """``(chip path, number of lines)`` of an lgpio factory's chip, else None."""
    if library_name(factory) != "lgpio":
        return None
    try:
        import lgpio
        info = lgpio.gpio_get_chip_info(factory._handle)
        return f"/dev/gpiochip{factory.chip}", int(info[1])
    except Exception:       # an lgpio without chip info, a closed chip
        return None


def _why_not_opened(exc, factory, pins=()) -> tuple:
    """``(kind, detail)`` of a part that could not be opened, from what gpiozero (or the pin
    library under it) raised, and the part's ``pins`` against the chip's lines."""
    text = str(exc)
    m = re.fullmatch(r"error: '(.*)'", text)       # gpiozero's wrapping of lgpio's words
    text = m.group(1) if m else text
    chip = _chip_lines(factory) if pins else None
    if chip and any(p >= chip[1] for p in pins):
        # lgpio says "GPIO operation not permitted" for a line the chip lacks (seen on
        # QEMU's 8-line PL061): not a permission problem, so check the number first
        return ("no-line", "%s has only lines 0-%d" % (chip[0], chip[1] - 1))
    if isinstance(exc, GPIOPinInUse):
        return ("in-use", "")
    if text == "GPIO busy":                         # lgpio: the kernel lent the line elsewhere
        return ("busy", "")
    if text == "bad GPIO number":                   # lgpio: beyond the chip's lines
        chip = _chip_lines(factory)
        return ("no-line", "%s has only lines 0-%d" % (chip[0], chip[1] - 1) if chip else "")
    if isinstance(exc, PinInvalidPin):
        return ("bad-pin", "")
    if isinstance(exc, PinFixedPull):
        return ("fixed-pull", "")
    if isinstance(exc, PermissionError) or text in ("GPIO operation not permitted",
                                                    "no permission to perform action"):
        return ("permission", "")
    return ("other", f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def _render_why(why, many) -> tuple:
    """``(reason, fix)`` in words for :func:`_why_not_opened`'s answer."""
    kind, detail = why
    it, its = ("them", "their") if many else ("it", "its")
    if kind == "in-use":
        return (f"{its} pin is already claimed by another device" if not many else
                "their pins are already claimed by other devices",
                "give each part a pin of its own in the hardware config")
    if kind == "busy":
        return (f"line busy: another program or a kernel driver holds {it}",
                f"free {it} (gpioinfo names the holder) or move {it} to "
                f"{'free pins' if many else 'a free pin'} in the hardware config")
    if kind == "no-line":
        return (detail or "the GPIO chip has no such line",
                f"wire {it} to lines the chip has and change the hardware config")
    if kind == "bad-pin":
        return ("not a pin of this board", "change the hardware config")
    if kind == "fixed-pull":
        return ("the pin has a fixed pull-up resistor", "set pull_up = true or use another pin")
    if kind == "permission":
        return ("no permission", "add the table's user to the group gpio and restart the table")
    return (detail, "companion doctor shows more")


def _open_sentence(whats, why) -> str:
    many = len(whats) > 1
    reason, fix = _render_why(why, many)
    names = whats[0] if not many else ", ".join(whats[:-1]) + " and " + whats[-1]
    left = "They are" if many else "It is"
    return f"{names[0].upper()}{names[1:]} could not be opened ({reason}): {fix}. {left} left " \
           f"out; the rest works."


def summarize(problems) -> list:
    """The sentences for the screen: one per part with a sentence of its own, one for every
    group of parts that could not be opened for the same reason (in the order of the parts)."""
    out, groups = [], {}
    for p in problems:
        if p.why is None:
            out.append(p.sentence)
        elif p.why in groups:
            groups[p.why].append(p.what)
        else:
            groups[p.why] = [p.what]
            out.append(p.why)
    return [_open_sentence(groups[x], x) if isinstance(x, tuple) else x for x in out]


class HoldWatch:
    """Calls ``on_held()`` once when a button has stayed pressed ``hold_s`` seconds of ``clock``.

    gpiozero's own ``hold_time`` counts real seconds on gpiozero's thread; this one reads the
    clock the devices were given, so a test holds a button 3 s on a FakeClock without waiting.
    ``pressed()`` and ``released()`` come from the button's edges; while it is down, a thread
    looks at the clock every ``step`` seconds (:meth:`poll`, which a test may also call)."""

    def __init__(self, hold_s, on_held, clock=time.monotonic, step=0.05, name="hold"):
        self.hold_s = float(hold_s)
        self._on_held = on_held
        self._clock = clock
        self._step = step
        self._since = None
        self._fired = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"{name}-hold", daemon=True)
        self._thread.start()

    def pressed(self):
        with self._cond:
            self._since, self._fired = self._clock(), False
            self._cond.notify_all()

    def released(self):
        with self._cond:
            self._since = None
            self._cond.notify_all()

    def poll(self) -> bool:
        """Fire if the button has been held long enough (once per press). True if it fired."""
        with self._cond:
            if self._closed or self._since is None or self._fired or \
                    self._clock() - self._since < self.hold_s:
                return False
            self._fired = True
        try:
            self._on_held()
        except Exception:
            log.exception("a hold callback failed")
        return True

    def _run(self):
        while True:
            with self._cond:
                while not self._closed and (self._since is None or self._fired):
                    self._cond.wait()
                if self._closed:
                    return
                self._cond.wait(self._step)
            self.poll()

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(2)


class TableDevices:
    """Every GPIO part of the table, built from a :class:`HardwareConfig`. See the module
    docstring; ``problems`` lists the parts left out."""

    BUTTONS = ("next", "pause", "undo")

    def __init__(self, config: HardwareConfig, pin_factory, clock=time.monotonic, on_event=None,
                 pwm_fix=None):
        if pin_factory is None:
            raise PinFactoryError("pass a gpiozero pin factory (e.g. MockFactory() in tests)")
        self._setup(config, pin_factory, clock, on_event)
        self.pwm_fix = pwm_fix or f"install lgpio ({LGPIO_INSTALL})"   # PinLibrary.pwm_fix
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    @classmethod
    def without_gpio(cls, config: HardwareConfig, reason: str, clock=time.monotonic,
                     on_event=None):
        """No GPIO at all (no pin library could open it): no parts, and ``reason`` (a
        sentence) says why. ``press()`` still works for the on-screen buttons."""
        self = cls.__new__(cls)
        self._setup(config, None, clock, on_event)
        self.no_gpio = reason
        return self

    def _setup(self, config, pin_factory, clock, on_event):
        self.config = config
        self.pin_factory = pin_factory
        self.clock = clock
        self.on_event = on_event
        self.when_next = self.when_pause = self.when_undo = None
        self.buzzer = self.light = None
        self.buttons = {}
        self.shutdown = None                # the shutdown Button, if fitted and opened
        self.shutdown_watch = None
        self.problems = []                  # PartProblem for every part left out or degraded
        self.no_gpio = None                 # the sentence when there is no GPIO at all
        self._last_press = {}
        self._closed = False

    # -- building, part by part ---------------------------------------------------------------------
    def _left_out(self, part, what, exc=None, sentence=None, degraded=False, pins=()):
        why = None
        if sentence is None:
            why = _why_not_opened(exc, self.pin_factory, pins)
            sentence = _open_sentence([what], why)
        self.problems.append(PartProblem(part, what, sentence, degraded, why))
        log.warning("%s", sentence)
        gc.collect()        # a device that failed half-built lets go of the pins it had claimed

    def _no_pwm(self, what, consequence):
        return (f"{what[0].upper()}{what[1:]} {consequence}: this pin library "
                f"({library_label(self.pin_factory)}) has no PWM; {self.pwm_fix}.")

    def _build(self):
        c, f = self.config, self.pin_factory
        if c.buzzer.pin is not None:
            what = f"the buzzer on GPIO {c.buzzer.pin}"
            try:
                self.buzzer = TableBuzzer(c.buzzer, f, clock=self.clock)
            except PinPWMUnsupported:
                self._left_out("buzzer", what, sentence=self._no_pwm(
                    f"the passive buzzer on GPIO {c.buzzer.pin}", "is off, the rest works"))
            except Exception as e:
                self._left_out("buzzer", what, e, pins=(c.buzzer.pin,))
        if c.light.kind == "rgb":
            what = "the light on GPIO {}/{}/{}".format(*c.light.pins)
            try:
                self.light = TableLight(c.light, f)
            except PinPWMUnsupported:
                try:
                    self.light = TableLight(c.light, f, pwm=False)
                except Exception as e:
                    self._left_out("light", what, e, pins=c.light.pins)
                else:
                    self._left_out("light", what, degraded=True, sentence=self._no_pwm(
                        what, "shows 8 plain colours only, not every shade"))
            except Exception as e:
                self._left_out("light", what, e, pins=c.light.pins)
        bounce = c.buttons.bounce_ms / 1000 or None
        for name, pin in c.buttons.pins().items():
            try:
                button = Button(pin, pull_up=c.buttons.pull_up, bounce_time=bounce,
                                pin_factory=f)
            except Exception as e:
                self._left_out(f"button {name}", f"the {name} button on GPIO {pin}", e,
                               pins=(pin,))
                continue
            button.when_pressed = self._make_handler(name)
            self.buttons[name] = button
        if c.buttons.shutdown is not None:
            pin = c.buttons.shutdown
            try:
                button = Button(pin, pull_up=c.buttons.pull_up, bounce_time=bounce,
                                pin_factory=f)
            except Exception as e:
                self._left_out("button shutdown", f"the shutdown button on GPIO {pin}", e,
                               pins=(pin,))
            else:
                self.shutdown = button
                self.shutdown_watch = HoldWatch(c.buttons.shutdown_hold_s, self._held_shutdown,
                                                clock=self.clock, name="shutdown")
                button.when_pressed = self.shutdown_watch.pressed
                button.when_released = self.shutdown_watch.released

    def summary(self) -> list:
        """The sentences for the screen (empty when every fitted part works fully)."""
        return [self.no_gpio] if self.no_gpio else summarize(self.problems)

    def _held_shutdown(self):
        event = PowerRequested("poweroff", "button", self.clock())
        log.warning("the shutdown button was held %g s: asking to power off",
                    self.config.buttons.shutdown_hold_s)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:
                log.exception("the power-off callback failed")

    def _make_handler(self, name):
        def handler():
            self._pressed(name)
        return handler

    def _pressed(self, name, debounce=True):
        now = self.clock()
        if debounce:
            # gpiozero's bounce_time depends on the pin library (MockFactory ignores it), so
            # presses of the same button closer than bounce_ms are also dropped here
            last = self._last_press.get(name)
            if last is not None and now - last < self.config.buttons.bounce_ms / 1000:
                return
            self._last_press[name] = now
        event = ButtonPressed(name, now)
        for cb in (getattr(self, f"when_{name}"), self.on_event):
            if cb is not None:
                try:
                    cb(event)
                except Exception:
                    log.exception("a %s button callback failed", name)

    def press(self, name):
        """Act as if button ``name`` was pressed (for the screen's on-screen buttons, tests)."""
        if name not in self.BUTTONS:
            raise UnknownButtonError(f"no button called {name!r}")
        self._pressed(name, debounce=False)

    def describe(self) -> list:
        """``[(part, where, state)]`` for ``companion doctor``: state ``ok``, ``pressed`` /
        ``released``, ``on/off colours`` (the light without PWM), ``missing`` (configured,
        left out: ``problems`` says why) or ``-`` (not fitted)."""
        rows = []
        c = self.config
        missing = {p.part for p in self.problems if not p.degraded}
        if self.no_gpio:
            missing = {"buzzer", "light", "button shutdown"} | {
                f"button {n}" for n in self.BUTTONS}

        def state(part, fitted, ok):
            return "-" if not fitted else "missing" if part in missing else ok

        rows.append(("buzzer", f"GPIO{c.buzzer.pin} ({c.buzzer.kind}; {c.buzzer.part})"
                     if c.buzzer.pin is not None else "not fitted",
                     state("buzzer", c.buzzer.pin is not None, "ok")))
        light_ok = "ok" if self.light is None or self.light.pwm else "on/off colours"
        rows.append(("light", "GPIO{}/{}/{} R/G/B ({})".format(*c.light.pins, c.light.part)
                     if c.light.kind == "rgb" else "not fitted",
                     state("light", c.light.kind == "rgb", light_ok)))
        pins = c.buttons.pins()
        for name in self.BUTTONS:
            b = self.buttons.get(name)
            rows.append((f"button {name}", f"GPIO{pins[name]}" if name in pins else
                         "not fitted", state(f"button {name}", name in pins,
                                             ("pressed" if b.is_pressed else "released")
                                             if b is not None else "-")))
        if c.buttons.shutdown is not None:
            b = self.shutdown
            rows.append(("button shutdown", f"GPIO{c.buttons.shutdown} (hold "
                         f"{c.buttons.shutdown_hold_s:g} s)",
                         state("button shutdown", True, ("pressed" if b.is_pressed else
                                                         "released") if b is not None else "-")))
        return rows

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self.shutdown_watch is not None:
            self.shutdown_watch.close()
        for b in list(self.buttons.values()) + ([self.shutdown] if self.shutdown else []):
            b.close()
        for part in (self.light, self.buzzer):
            if part is not None:
                part.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
