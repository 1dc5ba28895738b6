"""The child side of the device process: what runs in the fresh interpreter. Its entry point
(:func:`_subprocess_main`, then :func:`_child_main`: signals, the log records piped to the
parent, the "ready" or "failed" message, the loop that answers commands) and :class:`_Worker`,
the devices, the reader and one ``op_<name>`` handler per command, built whatever fails (a
part that cannot be opened is a sentence in ``problems``). The parent never imports gpiozero:
the devices are imported only inside :class:`_Worker`.
"""
import logging
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection

from companion.core.errors import CompanionError
from hardware.errors import NotSimulatedError, UnknownCommandError

from .shared import DeviceWorkerError


class _PipeLogHandler(logging.Handler):
    def __init__(self, send):
        super().__init__(logging.INFO)
        self._send = send

    def emit(self, record):
        try:
            self._send(("log", record.levelno, record.name, self.format(record)))
        except Exception:
            self.handleError(record)


class _Worker:
    """What runs in the child: the devices, the reader, and the command handlers. It is built
    whatever fails (see :mod:`hardware.worker`): ``problems`` holds the sentences."""

    def __init__(self, config, mock, reader, reader_url, send):
        from hardware.devices import TableDevices
        from hardware.pinlib import PinLibrary, open_pin_library
        self.config = config
        self.mock = mock
        self.send = send
        if mock:
            from gpiozero.pins.mock import MockFactory, MockPWMPin
            library = PinLibrary(MockFactory(pin_class=MockPWMPin), "mock",
                                 "gpiozero's mock pins", "simulated hardware")
        else:
            library = open_pin_library()
        self.library = library
        self.factory = library.factory
        if self.factory is None:
            logging.getLogger("hardware.pinlib").warning("%s", library.problem)
            self.devices = TableDevices.without_gpio(config, library.problem,
                                                     on_event=self._event)
        else:
            logging.getLogger("hardware.pinlib").info(
                "pin library: %s, %s%s", library.where, library.why,
                "".join(f"; not {n}: {why}" for n, why in library.skipped))
            self.devices = TableDevices(config, self.factory, on_event=self._event,
                                        pwm_fix=library.pwm_fix())
        self.problems = self.devices.summary()
        self.countdowns = {}        # name -> (deadline, handles)
        self.bases = {}             # pin number -> monotonic time its history starts
        if mock:
            for pin in self._pins():
                self._mark(pin)
        self.reader = None
        if reader:
            from hardware.reader import CardReader
            url = reader_url or config.reader.port or None
            try:
                self.reader = CardReader(url, self._event, vid_pid=config.reader.vid_pid,
                                         baudrate=config.reader.baudrate)
                self.reader.start()
            except Exception as e:
                self.reader = None
                sentence = (f"The card reader driver could not start ({type(e).__name__}: {e}); "
                            f"it is left out: use the touchscreen.")
                logging.getLogger("hardware.reader").warning("%s", sentence)
                self.problems.append(sentence)

    def missing(self) -> list:
        """The parts left out: ``"buzzer"``, ``"light"``, ``"button undo"``... (``"gpio"``: all
        of them, no pin library), ``"reader"``."""
        d = self.devices
        out = ["gpio"] if d.no_gpio else [p.part for p in d.problems if not p.degraded]
        if self.reader is None and any(p.startswith("The card reader") for p in self.problems):
            out.append("reader")
        return out

    # -- plumbing --
    def _event(self, event):
        self.send(("event", event))

    def _pins(self):
        c = self.config
        pins = []
        if c.buzzer.pin is not None:
            pins.append(c.buzzer.pin)
        if c.light.kind == "rgb":
            pins += list(c.light.pins)
        pins += list(c.buttons.all_pins().values())
        return pins

    def _mark(self, pin_no):
        from hardware.timing import mark_and_clear
        self.bases[pin_no] = mark_and_clear(self.factory.pin(pin_no))
        return self.bases[pin_no]

    def housekeeping(self):
        """Mock pins keep every change: start long histories afresh (hours of blinking)."""
        if self.mock:
            for pin in self._pins():
                if len(self.factory.pin(pin).states) > 20000:
                    self._mark(pin)

    def close(self):
        if self.reader is not None:
            self.reader.stop()
            self.reader = None
        self.devices.close()

    # -- commands (op name -> method "op_<name>") --
    def handle(self, op, args, kwargs):
        fn = getattr(self, f"op_{op}", None)
        if fn is None:
            raise UnknownCommandError(f"the device process has no command {op!r}")
        return fn(*args, **kwargs)

    def op_play(self, name, at=None):
        b = self.devices.buzzer
        return None if b is None else b.play(name, at)

    def op_countdown(self, name, deadline, warn_before=30.0, tick_every=None):
        b = self.devices.buzzer
        if b is None:
            return None
        old = self.countdowns.pop(name, None)
        if old is not None and old[0] > time.monotonic():
            b.cancel(old[1])            # replaced before it ran out
        handles = b.countdown(deadline, warn_before, tick_every)
        self.countdowns[name] = (deadline, handles)
        return len(handles)

    def op_cancel_countdown(self, name=None):
        b = self.devices.buzzer
        names = list(self.countdowns) if name is None else [name]
        for n in names:
            old = self.countdowns.pop(n, None)
            if old is not None and b is not None:
                b.cancel(old[1])

    def op_cancel(self):
        self.countdowns.clear()
        if self.devices.buzzer is not None:
            self.devices.buzzer.cancel()

    def op_show_phase(self, name):
        if self.devices.light is not None:
            self.devices.light.show_phase(name)

    def op_show_upkeep(self, letter):
        if self.devices.light is not None:
            self.devices.light.show_upkeep(letter)

    def op_show_colour(self, rgb):
        if self.devices.light is not None:
            self.devices.light.show_colour(tuple(rgb))

    def op_light_off(self):
        if self.devices.light is not None:
            self.devices.light.off()

    def op_press(self, name):
        """A button press: on mock pins the pin itself is driven (gpiozero's real path)."""
        button = self.devices.buttons.get(name)
        if self.mock and button is not None:
            pin = button.pin
            if self.config.buttons.pull_up:
                pin.drive_low()
                pin.drive_high()
            else:
                pin.drive_high()
                pin.drive_low()
        else:
            self.devices.press(name)

    def op_reader(self, kind, body):
        from hardware.reader import ReaderNotConnected
        r = self.reader
        if r is None:
            raise ReaderNotConnected("This table runs without a card reader.")
        calls = {"beep": r.beep, "led": r.set_led, "write": r.write_ndef, "who": r.who}
        if kind not in calls:
            raise UnknownCommandError(f"no reader command {kind!r} (commands: "
                                      f"{', '.join(calls)})")
        return calls[kind](**body)

    def op_status(self):
        d = self.devices
        b, r = d.buzzer, self.reader
        return {
            "pid": os.getpid(), "mock": self.mock, "pin_factory": type(self.factory).__name__
            if self.factory is not None else None,
            "pin_library": self.library.summary(), "problems": list(self.problems),
            "missing": self.missing(), "kivy": "kivy" in sys.modules,
            "realtime": b.scheduler.realtime if b is not None else None,
            "pending_edges": b.scheduler.pending() if b is not None else 0,
            "countdowns": {n: dl for n, (dl, _) in self.countdowns.items()   # still to
                           if dl > time.monotonic()},                          # run out
            "light": d.light.showing if d.light is not None else None,
            "reader": None if r is None else {"connected": r.connected, "port": r.port,
                                              "firmware": r.firmware, "scans": r.scans},
        }

    def op_describe(self):
        return self.devices.describe()

    def op_plans(self, since=0):
        """The buzzer's plays from index ``since``: ``[(pattern, anchor, edges)]`` (it keeps
        the newest 1000, so indexes shift after that; for tests and benches)."""
        b = self.devices.buzzer
        return [] if b is None else list(b.history[since:])

    def op_wait_idle(self, timeout=10.0):
        b = self.devices.buzzer
        return True if b is None else b.wait_idle(timeout)

    def op_mark_pins(self, pins=None):
        self._need_mock()
        return {p: self._mark(p) for p in (pins or self._pins())}

    def op_pin_edges(self, pin):
        """``(base, [(monotonic time, state)...])`` of a mock pin since it was last marked."""
        from hardware.timing import absolute_edges
        self._need_mock()
        states = list(self.factory.pin(pin).states)
        base = self.bases.get(pin)
        if base is None:
            base = self._mark(pin)
            states = list(self.factory.pin(pin).states)
        return base, absolute_edges(states, base), [s.state for s in states]

    def op_drive_pin(self, pin, high):
        """Mock pins: drive an input pin high or low, as a switch would (a held button)."""
        self._need_mock()
        p = self.factory.pin(pin)
        p.drive_high() if high else p.drive_low()

    def _need_mock(self):
        if not self.mock:
            raise NotSimulatedError("pin histories exist only on mock pins (simulated hardware)")


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def _subprocess_main(fd):
    """The child's entry point (see :class:`~hardware.worker.process._ChildProcess`)."""
    conn = Connection(fd)
    try:
        args = conn.recv()
    except (EOFError, OSError):
        return
    _child_main(conn, *args)


def _child_main(conn, config, mock, reader, reader_url):
    """Entry point of the device process.

    Ctrl-C in a terminal reaches the whole process group: the child ignores SIGINT (its parent
    stops it). SIGTERM becomes a clean exit that switches the parts off (a pin left high would
    keep a real buzzer sounding), with exit code 143.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminated)
    send_lock = threading.Lock()

    def send(msg):
        with send_lock:
            try:
                conn.send(msg)
            except (OSError, EOFError, ValueError):
                pass                 # the parent is gone; the recv loop ends too

    root = logging.getLogger()
    root.handlers[:] = [_PipeLogHandler(send)]
    root.setLevel(logging.INFO)
    try:
        worker = _Worker(config, mock, reader, reader_url, send)
    except Exception as e:
        msg = str(e) if isinstance(e, CompanionError) else f"{type(e).__name__}: {e}"
        send(("failed", msg))
        return
    send(("ready", {"pid": os.getpid(), "pin_factory": type(worker.factory).__name__
                    if worker.factory is not None else None,
                    "pin_library": worker.library.summary(), "problems": list(worker.problems),
                    "missing": worker.missing(), "kivy": "kivy" in sys.modules}))
    housekeeping = time.monotonic() + 30.0
    try:
        while True:
            if time.monotonic() >= housekeeping:
                housekeeping = time.monotonic() + 30.0
                worker.housekeeping()
            try:
                if not conn.poll(30.0):
                    continue
                msg = conn.recv()
            except (EOFError, OSError):
                break                       # the parent went away: stop the devices
            op, rid, args, kwargs = msg
            if op == "close":
                worker.close()
                send(("reply", rid, True, None))
                break
            try:
                value, ok = worker.handle(op, args, kwargs), True
            except Exception as e:
                value, ok = e, False
                if rid is None:
                    logging.getLogger("hardware.worker").warning(
                        "device command %s failed: %s", op, e)
            if rid is not None:
                try:
                    with send_lock:
                        conn.send(("reply", rid, ok, value))
                except (OSError, EOFError, ValueError):
                    break
                except Exception:          # an answer that cannot be pickled
                    send(("reply", rid, False, DeviceWorkerError(f"{op}: {value!r}")))
    finally:
        worker.close()
