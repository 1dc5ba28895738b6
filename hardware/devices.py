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
"""
import heapq
import itertools
import logging
import os
import threading
import time

from gpiozero import Button, DigitalOutputDevice, PWMOutputDevice, RGBLED

from hardware.config import NEUTRAL, HardwareConfig
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.errors import (DeviceClosedError, PinFactoryError, UnknownButtonError,
                             UnknownCueError, UnknownPatternError)
from hardware.events import ButtonPressed

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
    """One RGB LED showing the phase colour, or the C/M/Y/K upkeep cue."""

    def __init__(self, config, pin_factory):
        self.config = config
        r, g, b = config.pins
        self.device = RGBLED(r, g, b, active_high=not config.common_anode, pwm=True,
                             pin_factory=pin_factory)
        self.showing = ("off", None)
        self._closed = False

    def _scaled(self, rgb):
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


class TableDevices:
    """Every GPIO part of the table, built from a :class:`HardwareConfig`."""

    BUTTONS = ("next", "pause", "undo")

    def __init__(self, config: HardwareConfig, pin_factory, clock=time.monotonic, on_event=None):
        if pin_factory is None:
            raise PinFactoryError("pass a gpiozero pin factory (e.g. MockFactory() in tests)")
        self.config = config
        self.pin_factory = pin_factory
        self.clock = clock
        self.on_event = on_event
        self.when_next = self.when_pause = self.when_undo = None
        self.buzzer = self.light = None
        self.buttons = {}
        self._last_press = {}
        self._closed = False
        try:
            if config.buzzer.pin is not None:
                self.buzzer = TableBuzzer(config.buzzer, pin_factory, clock=clock)
            if config.light.kind == "rgb":
                self.light = TableLight(config.light, pin_factory)
            bounce = config.buttons.bounce_ms / 1000 or None
            for name, pin in config.buttons.pins().items():
                button = Button(pin, pull_up=config.buttons.pull_up, bounce_time=bounce,
                                pin_factory=pin_factory)
                button.when_pressed = self._make_handler(name)
                self.buttons[name] = button
        except Exception:
            self.close()
            raise

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
        """``[(part, where, state)]`` for ``companion doctor``."""
        rows = []
        c = self.config
        rows.append(("buzzer", f"GPIO{c.buzzer.pin} ({c.buzzer.kind}; {c.buzzer.part})"
                     if self.buzzer else "not fitted",
                     "ok" if self.buzzer else "-"))
        rows.append(("light", "GPIO{}/{}/{} R/G/B ({})".format(*c.light.pins, c.light.part)
                     if self.light else "not fitted", "ok" if self.light else "-"))
        for name in self.BUTTONS:
            b = self.buttons.get(name)
            rows.append((f"button {name}", f"GPIO{c.buttons.pins()[name]}" if b else "not fitted",
                         ("pressed" if b.is_pressed else "released") if b else "-"))
        return rows

    def close(self):
        if self._closed:
            return
        self._closed = True
        for b in self.buttons.values():
            b.close()
        for part in (self.light, self.buzzer):
            if part is not None:
                part.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
