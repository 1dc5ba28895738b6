"""The device process: buzzer, light, buttons and card reader in a child process of their own.

Why: the buzzer's edges are timed by a Python thread. Beside a busy UI thread in the same
process (Kivy at 60 fps) that thread waits for the GIL and its edges land 2-9 ms late; in a
process of its own it keeps its ~0.1 ms (``benches/bench_devices.py``). Linux's monotonic clock
is the same in every process, so the parent can hand the child absolute deadlines.

Parent side (the ``companion run`` process; it never imports gpiozero)::

    link = DeviceLink(config, mock=True, reader_url=sim.url, on_event=print)
    link.start()                                   # spawns the child, waits for "ready"
    link.countdown(time.monotonic() + 180, 30)     # 0:30 chirp and 0:00 buzzer
    link.show_phase("trade"); link.show_upkeep("M"); link.play("reveal")
    link.close()                                   # idempotent; also a context manager

Commands are small tuples over a socket pair (:class:`multiprocessing.connection.Connection`);
``play``, ``countdown``, ``show_*`` are fire-and-forget (they never block the caller on the
child), ``status``,
``reader_command``, ``pin_edges`` wait for the answer. Events from the child
(:mod:`hardware.events`: ``ButtonPressed``, ``CardScanned``, ``ReaderConnected``,
``ReaderLost``, ``ReaderFault``, ``CommandAnswered``) and the link's own :class:`WorkerStarted`
/ :class:`WorkerLost` reach ``on_event`` (and every :meth:`DeviceLink.subscribe` listener) on one
parent thread, ``device-events``, in order. The child's log records are re-logged in the parent
under their own logger names.

Child side: a fresh interpreter (``python -c``, :class:`_ChildProcess`: nothing of the UI is
inherited, and no multiprocessing resource tracker beside it) running
:class:`hardware.devices.TableDevices` on the pin library :func:`hardware.pinlib.open_pin_library`
picks (lgpio first), or on ``MockFactory(pin_class=MockPWMPin)`` with ``mock=True`` (simulated
hardware on a machine that is not a Raspberry Pi), and optionally
:class:`hardware.reader.CardReader`. **The child starts whatever fails:** a part that cannot be
opened is left out, no pin library at all means no GPIO parts, a reader driver that cannot start
means no reader; each is a sentence in ``link.problems`` (and in :meth:`DeviceLink.description`,
which the screen shows), and ``link.status()["pin_library"]`` says which library is in use and
why the others were not. If the parent dies
the child sees its pipe close and exits; if the child dies the parent emits
:class:`WorkerLost` and, with ``auto_restart``, starts a new one (then :class:`WorkerStarted`).

The child imports only this module and what the devices need (not the parent's main script:
``status()["kivy"]`` checks that no Kivy came along, and a warning is logged if it did).
"""
import dataclasses
import itertools
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection

from companion.core.errors import CompanionError
from hardware.errors import (HardwareError, NotSimulatedError, UnknownButtonError,
                             UnknownCommandError, UnknownCueError, UnknownPatternError)
from hardware.config import HardwareConfig
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.pinlib import REVISION_ENV

log = logging.getLogger(__name__)

MODEL_FILES = ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model")


def is_raspberry_pi(model_files=MODEL_FILES, env=None) -> bool:
    """True when the device tree names a Raspberry Pi board ("Raspberry Pi 4 Model B Rev
    1.4"), or ``GPIOZERO_PI_REVISION`` names one (a stand-in board such as the QEMU test VM,
    whose device tree says "linux,dummy-virt"). Any other machine is not one."""
    env = os.environ if env is None else env
    if (env.get(REVISION_ENV) or "").strip():
        return True
    for path in model_files:
        try:
            with open(path, "rb") as f:
                model = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        return "Raspberry Pi" in model
    return False


class DeviceWorkerError(HardwareError):
    """The device process could not start, did not answer, or went away."""


@dataclasses.dataclass(frozen=True)
class WorkerStarted:
    """A device process is running (the first one, or a restart). Re-send any state."""
    pid: int
    mock: bool
    pin_factory: str
    restarts: int


@dataclasses.dataclass(frozen=True)
class WorkerLost:
    """The device process ended without being asked to (crashed, killed)."""
    pid: int
    exitcode: int | None
    reason: str
    restarting: bool


# ================================================================================================
# the child
# ================================================================================================

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
    whatever fails (see the module docstring): ``problems`` holds the sentences."""

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


class _ChildProcess:
    """The device process: a fresh interpreter (``python -c``) that talks to us over a socket
    pair with :class:`multiprocessing.connection.Connection` (pickled tuples, as a ``spawn``
    Process's pipe). Not a ``multiprocessing`` spawn Process, because that also starts the
    resource tracker, a third Python process of about 13 MB that tracks shared memory and
    semaphores this child never makes, and re-imports the parent's main module. Offers what
    :class:`DeviceLink` uses of a Process: ``pid``, ``is_alive``, ``join``, ``exitcode``
    (negative: the signal that killed it), ``terminate``, ``kill``."""

    def __init__(self):
        self._popen = None

    def start(self, args):
        """Start the child and hand it ``args`` for :func:`_child_main`; returns our end."""
        ours, theirs = socket.socketpair()
        fd = theirs.fileno()
        code = (f"import sys; sys.path[:0] = {list(sys.path)!r}; "
                f"from hardware.worker import _subprocess_main; _subprocess_main({fd})")
        try:
            self._popen = subprocess.Popen([sys.executable, "-c", code], pass_fds=(fd,),
                                           stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        conn = Connection(ours.detach())
        conn.send(args)
        return conn

    @property
    def pid(self):
        return self._popen.pid

    @property
    def exitcode(self):
        return self._popen.poll()

    def is_alive(self):
        return self._popen.poll() is None

    def join(self, timeout=None):
        try:
            self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def terminate(self):
        if self.is_alive():
            self._popen.send_signal(signal.SIGTERM)

    def kill(self):
        if self.is_alive():
            self._popen.kill()


def _subprocess_main(fd):
    """The child's entry point (see :class:`_ChildProcess`)."""
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


# ================================================================================================
# the parent
# ================================================================================================

_STOP = object()


class DeviceLink:
    """The parent's handle on the device process. See the module docstring.

    ``mock``: simulated pins (MockFactory) instead of the machine's GPIO. ``reader``: run the
    card reader driver (on ``reader_url``, else the config's port, else found by USB VID/PID).
    ``simulator``: a started :class:`hardware.sim.ReaderSim` this link owns (closed with it).
    ``auto_restart``: start a new child when one dies, at most ``max_restarts`` times within
    ``restart_window`` seconds.
    """

    def __init__(self, config: HardwareConfig | None = None, *, mock=False, reader=True,
                 reader_url=None, on_event=None, simulator=None, auto_restart=False,
                 max_restarts=3, restart_window=60.0, start_timeout=30.0):
        self.config = config or HardwareConfig()
        self.mock = bool(mock)
        self.reader_enabled = bool(reader)
        self.reader_url = reader_url
        self.simulator = simulator
        self.glue = None                    # set by hardware.hubglue.attach
        self.reader = None                  # the reader's last ReaderConnected, or None
        self.auto_restart = auto_restart
        self.max_restarts = max_restarts
        self.restart_window = restart_window
        self.start_timeout = start_timeout
        self.restarts = 0
        self.info = {}
        self._listeners = [on_event] if on_event is not None else []
        self._close_hooks = []
        self._life = threading.RLock()
        self._send_lock = threading.Lock()
        self._proc = None
        self._conn = None
        self._gen = 0
        self._rids = itertools.count(1)
        self._pending = {}                  # request id -> [Event, ok, value]
        self._restart_times = []
        self._closed = False
        self._events = queue.Queue()
        self._dispatcher = None

    # -- life --------------------------------------------------------------------------------------
    @property
    def pid(self):
        p = self._proc
        return p.pid if p is not None else None

    @property
    def alive(self) -> bool:
        p = self._proc
        return p is not None and p.is_alive() and self._conn is not None

    def start(self):
        """Start the device process and wait until its devices are built. Raises
        :class:`DeviceWorkerError` with the child's reason if they cannot be."""
        with self._life:
            if self._closed:
                raise DeviceWorkerError("This device link is closed; make a new one.")
            if self._dispatcher is None:
                self._dispatcher = threading.Thread(target=self._dispatch, daemon=True,
                                                    name="device-events")
                self._dispatcher.start()
            if not self.alive:
                self._spawn()
        return self

    def _spawn(self):
        proc = _ChildProcess()
        parent_conn = proc.start((self.config, self.mock, self.reader_enabled, self.reader_url))
        end = time.monotonic() + self.start_timeout
        try:
            while True:
                left = end - time.monotonic()
                if left <= 0 or not parent_conn.poll(left):
                    raise DeviceWorkerError(f"The device process did not start within "
                                            f"{self.start_timeout:g} s.")
                msg = parent_conn.recv()
                if msg[0] == "ready":
                    self.info = msg[1]
                    break
                if msg[0] == "failed":
                    raise DeviceWorkerError(f"The table's devices could not start: {msg[1]}")
                self._incoming(msg)
        except EOFError:
            proc.join(2)
            parent_conn.close()
            raise DeviceWorkerError(f"The device process exited while starting (exit code "
                                    f"{proc.exitcode}).") from None
        except BaseException:
            parent_conn.close()
            self._stop_process(proc)
            raise
        if self.info.get("kivy"):
            log.warning("the device process imported kivy (the main script imports it at its "
                        "top); the buzzer shares a GIL with nothing, but memory is wasted")
        self._gen += 1
        self._proc, self._conn = proc, parent_conn
        threading.Thread(target=self._read, args=(parent_conn, proc, self._gen), daemon=True,
                         name=f"device-link-{self._gen}").start()
        self._events.put(WorkerStarted(proc.pid, self.mock, self.info.get("pin_factory", "?"),
                                       self.restarts))

    def _read(self, conn, proc, gen):
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                break
            except Exception:       # an event class the parent cannot unpickle: log, go on
                log.exception("a message from the device process could not be read")
                continue
            self._incoming(msg)
        with self._life:
            if gen != self._gen or self._closed:
                return              # closed or replaced on purpose
            self._conn = None
            self.reader = None
        proc.join(2)
        exitcode = proc.exitcode
        reason = (f"killed by signal {-exitcode}" if exitcode is not None and exitcode < 0
                  else f"exited with code {exitcode}")
        self._fail_pending(DeviceWorkerError(f"The device process {reason}."))
        restarting = self._may_restart()
        log.warning("device process %s %s%s", proc.pid, reason,
                    "; starting a new one" if restarting else "")
        self._events.put(WorkerLost(proc.pid, exitcode, reason, restarting))
        if restarting:
            threading.Thread(target=self._restart_after_loss, args=(gen,), daemon=True,
                             name="device-restart").start()

    def _may_restart(self):
        if not self.auto_restart:
            return False
        now = time.monotonic()
        self._restart_times = [t for t in self._restart_times if now - t < self.restart_window]
        return len(self._restart_times) < self.max_restarts

    def _restart_after_loss(self, gen):
        with self._life:
            if self._closed or gen != self._gen:
                return
            self._restart_times.append(time.monotonic())
            self.restarts += 1
            try:
                self._spawn()
            except DeviceWorkerError as e:
                log.error("the device process could not be restarted: %s", e)
                self._events.put(WorkerLost(0, None, str(e), False))

    def restart(self):
        """Stop the device process (if running) and start a new one."""
        with self._life:
            if self._closed:
                raise DeviceWorkerError("This device link is closed; make a new one.")
            self._shutdown_child()
            self.restarts += 1
            self._spawn()
        return self

    def _incoming(self, msg):
        kind = msg[0]
        if kind == "event":
            event = msg[1]
            name = type(event).__name__
            if name == "ReaderConnected":
                self.reader = event
            elif name == "ReaderLost":
                self.reader = None
            self._events.put(event)
        elif kind == "reply":
            _, rid, ok, value = msg
            slot = self._pending.pop(rid, None)
            if slot is not None:
                slot[1], slot[2] = ok, value
                slot[0].set()
        elif kind == "log":
            _, level, name, text = msg
            logging.getLogger(name).log(level, "[device process] %s", text)

    def _fail_pending(self, error):
        for rid in list(self._pending):
            slot = self._pending.pop(rid, None)
            if slot is not None:
                slot[1], slot[2] = False, error
                slot[0].set()

    def _dispatch(self):
        while True:
            event = self._events.get()
            if event is _STOP:
                return
            for fn in list(self._listeners):
                try:
                    fn(event)
                except Exception:
                    log.exception("a device event listener failed on %r", event)

    def subscribe(self, fn):
        """Call ``fn(event)`` for every event, on the ``device-events`` thread. Returns a
        function that unsubscribes."""
        self._listeners.append(fn)
        return lambda: fn in self._listeners and self._listeners.remove(fn)

    def on_close(self, fn):
        """Run ``fn()`` first thing in :meth:`close` (e.g. detaching the hub glue)."""
        self._close_hooks.append(fn)

    def _stop_process(self, proc, timeout=3.0):
        proc.join(timeout)
        if proc.is_alive():
            proc.terminate()
            proc.join(2)
        if proc.is_alive():
            proc.kill()
            proc.join(2)

    def _shutdown_child(self):
        proc, conn = self._proc, self._conn
        self._gen += 1                      # the reader thread of this child ends quietly
        self._proc = self._conn = self.reader = None
        if conn is not None:
            try:
                with self._send_lock:
                    conn.send(("close", None, (), {}))
            except (OSError, ValueError):
                pass
        if proc is not None:
            self._stop_process(proc)
        if conn is not None:
            conn.close()
        self._fail_pending(DeviceWorkerError("The device process was stopped."))

    def close(self):
        """Stop everything this link owns: hooks (the hub glue), the child, the simulator.
        Idempotent."""
        with self._life:
            if self._closed:
                return
            self._closed = True
        for fn in reversed(self._close_hooks):
            try:
                fn()
            except Exception:
                log.exception("a device link close hook failed")
        with self._life:
            self._shutdown_child()
        self._events.put(_STOP)
        d = self._dispatcher
        if d is not None and d is not threading.current_thread():
            d.join(5)
        if self.simulator is not None:
            self.simulator.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # -- sending -----------------------------------------------------------------------------------
    def _cast(self, op, *args, **kwargs) -> bool:
        """Fire and forget. False if no device process is running (the command is dropped:
        after a restart, :class:`WorkerStarted` tells the sender to send its state again)."""
        conn = self._conn
        if conn is None:
            return False
        try:
            with self._send_lock:
                conn.send((op, None, args, kwargs))
            return True
        except (OSError, ValueError):
            return False

    def _call(self, op, *args, timeout=5.0, **kwargs):
        conn = self._conn
        if conn is None:
            raise DeviceWorkerError("The device process is not running.")
        rid = next(self._rids)
        slot = self._pending[rid] = [threading.Event(), None, None]
        try:
            with self._send_lock:
                conn.send((op, rid, args, kwargs))
        except (OSError, ValueError):
            self._pending.pop(rid, None)
            raise DeviceWorkerError("The device process is not running.") from None
        if not slot[0].wait(timeout):
            self._pending.pop(rid, None)
            raise DeviceWorkerError(f"The device process did not answer {op!r} within "
                                    f"{timeout:g} s.")
        if slot[1]:
            return slot[2]
        raise slot[2]

    # -- buzzer --
    def play(self, pattern, at=None) -> bool:
        """Play a named pattern (:data:`hardware.cues.PATTERNS`) with its moment at ``at``
        (monotonic seconds; default: start now)."""
        if pattern not in PATTERNS:
            raise UnknownPatternError(pattern, PATTERNS)
        return self._cast("play", pattern, at)

    def countdown(self, deadline_monotonic, warn_before=30.0, *, name="timer", tick_every=None):
        """A timer's cues: the warning chirp ``warn_before`` s ahead (if still to come) and the
        0:00 buzzer at ``deadline_monotonic``. A countdown of the same ``name`` that has not run
        out yet is replaced."""
        return self._cast("countdown", name, float(deadline_monotonic), float(warn_before or 0),
                          tick_every)

    def cancel_countdown(self, name=None):
        """Drop a countdown's pending cues (every countdown if ``name`` is None)."""
        return self._cast("cancel_countdown", name)

    def cancel_all(self):
        """Silence the buzzer and drop everything pending."""
        return self._cast("cancel")

    # -- light --
    def show_phase(self, name):
        return self._cast("show_phase", str(name))

    def show_upkeep(self, letter):
        letter = str(letter).upper()
        if letter not in UPKEEP_CUES:
            raise UnknownCueError(f"upkeep letter must be C, M, Y or K, not {letter!r}")
        return self._cast("show_upkeep", letter)

    def show_colour(self, rgb):
        return self._cast("show_colour", tuple(int(c) for c in rgb))

    def light_off(self):
        return self._cast("light_off")

    # -- buttons and reader --
    def press(self, name):
        """Press a button in the child (on mock pins: drive the pin, as a finger would)."""
        if name not in ("next", "pause", "undo"):
            raise UnknownButtonError(f"no button called {name!r}")
        return self._cast("press", name)

    def reader_command(self, kind, timeout=5.0, **body) -> int:
        """Send a command to the card reader: ``beep`` (ms, n), ``led`` (rgb), ``write``
        (text, timeout_ms, force) or ``who``. Returns the frame's seq; the reader's answer
        arrives as a ``CommandAnswered`` event. ``ReaderNotConnected`` if no reader is open."""
        return self._call("reader", kind, body, timeout=timeout)

    def type_card(self, line) -> str:
        """Type a line into the reader simulator (a card name, ``nfc <name>``, ``unplug``...);
        returns what it did. Only with simulated hardware."""
        if self.simulator is None:
            raise DeviceWorkerError("There is no reader simulator on this table.")
        return self.simulator.handle_line(line)

    # -- questions --
    def status(self, timeout=5.0) -> dict:
        return self._call("status", timeout=timeout)

    def describe_parts(self, timeout=5.0) -> list:
        return self._call("describe", timeout=timeout)

    def plans(self, since=0, timeout=5.0) -> list:
        """What the buzzer was asked to play: ``[(pattern, anchor, [(time, on?)...])...]``."""
        return self._call("plans", since, timeout=timeout)

    def wait_idle(self, timeout=10.0) -> bool:
        """Wait until the buzzer has no edge pending (tests, benches; blocks the child's
        command loop meanwhile)."""
        return self._call("wait_idle", timeout, timeout=timeout + 5)

    def mark_pins(self, pins=None, timeout=5.0) -> dict:
        """Mock pins: start their histories afresh; ``{pin: monotonic time}``."""
        return self._call("mark_pins", pins, timeout=timeout)

    def pin_edges(self, pin, timeout=5.0):
        """Mock pins: ``(base, [(monotonic time, state)...], states)`` since the last mark."""
        return self._call("pin_edges", pin, timeout=timeout)

    @property
    def problems(self) -> list:
        """Sentences for the parts the running device process left out or runs in a lesser
        way (empty when everything configured works, or before it has started)."""
        return list(self.info.get("problems") or ())

    def drive_pin(self, pin, high, timeout=5.0):
        """Mock pins: drive input pin ``pin`` high or low in the child (a button held down is
        low with the default pull-up); returns when it is done."""
        return self._call("drive_pin", pin, bool(high), timeout=timeout)

    def description(self) -> str:
        """For the screen: where the buzzer and reader are, then a sentence for each part that
        is missing (:attr:`problems`)."""
        c = self.config
        missing = set(self.info.get("missing") or ())
        if self.mock:
            head = "Simulated hardware: mock pins"
        else:
            head = (f"Buzzer on GPIO {c.buzzer.pin}" if c.buzzer.pin is not None and
                    not missing & {"buzzer", "gpio"} else "No buzzer")
        if not self.reader_enabled:
            reader = "no card reader"
        elif self.simulator is not None:
            reader = f"reader simulator on {self.simulator.url}"
        elif self.reader_url:
            reader = f"reader on {self.reader_url}"
        else:
            reader = f"reader on USB {c.reader.vid_pid_text()} (found when plugged in)"
        text = f"{head} and {reader}" if self.mock else f"{head}, {reader}"
        where = (self.info.get("pin_library") or {}).get("where")
        if where and not self.mock:         # which pin library drives them (the log, doctor)
            text = f"{text}; pin library: {where}"
        if "gpio" in missing:               # the sentence says there is no buzzer
            text = reader[0].upper() + reader[1:]
        problems = self.problems
        return f"{text}. {' '.join(problems)}" if problems else text
