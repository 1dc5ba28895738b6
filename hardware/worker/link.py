"""The parent side of the device process: :class:`DeviceLink`, the handle the table holds. It
starts the child and waits for its devices, sends it commands (fire-and-forget casts, calls
that wait for the answer), re-logs its log records, hands its events to the listeners on one
thread (``device-events``), notices when it dies (and starts another with ``auto_restart``),
and closes it cleanly.
"""
import itertools
import logging
import queue
import threading
import time

from hardware.config import HardwareConfig
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.errors import UnknownButtonError, UnknownCueError, UnknownPatternError

from .process import _ChildProcess
from .shared import DeviceWorkerError, WorkerLost, WorkerStarted

log = logging.getLogger("hardware.worker")       # the link's records keep the package's name

_STOP = object()


class DeviceLink:
    """The parent's handle on the device process. See :mod:`hardware.worker`.

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
