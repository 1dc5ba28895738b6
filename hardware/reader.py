"""The card reader driver: serial frames in, neutral events out.

``CardReader(url_or_None, on_event, vid_pid=(0x2E8A, 0x0005), clock=time.monotonic)``:

* ``url_or_None``: a pyserial URL or device (``/dev/ttyACM0``, a pty, ``socket://host:port``,
  a ``/dev/serial/by-id/...`` link); ``None`` finds the first port with ``vid_pid`` (pyserial's
  listing, taken again only when the USB serial ports in /dev change, or every ``RESCAN`` s).
* ``start()`` / ``stop()`` (idempotent; also a context manager). A supervisor thread opens the
  port, runs pyserial's :class:`serial.threaded.ReaderThread` on it, and when the port fails
  (unplugged), goes silent (no frame for ``silence_timeout`` s) or cannot be opened, emits
  :class:`ReaderLost` and retries every ``retry_interval`` s, so a replugged reader is read
  again well within 2 s.
* ``on_event(event)`` is called **on a driver thread** with :mod:`hardware.events` objects:
  ``ReaderConnected`` (after the reader's hello), ``CardScanned``, ``ReaderFault``,
  ``CommandAnswered``, and ``ReaderLost`` (once for each ``ReaderConnected``, when that link
  ends; a port that never said hello is only logged). The hub marshals them onto its own loop. An exception in
  ``on_event`` is logged and never stops the driver.
* the same card (same UID, or same QR payload) is ignored until it has been away for
  ``dedup_window`` s (0.5); garbage on the line is dropped, counted in ``fault_counts`` and logged;
  frames after it are read normally.
* ``beep(ms, n)``, ``set_led(rgb)``, ``write_ndef(text)``, ``who()`` send commands and return the
  frame's seq; the answer arrives as ``CommandAnswered(command_seq=seq, ...)``; a successful
  write's answer is a :class:`TagWritten` (a ``CommandAnswered`` with the message read back).
  :class:`ReaderNotConnected` if no reader is open.
"""
import logging
import os
import threading
import time
from dataclasses import dataclass

import serial
import serial.threaded
from serial.tools import list_ports

from hardware.errors import HardwareError
from firmware import ndef, protocol
from firmware.compat import from_hex, to_hex
from hardware.events import (CardScanned, CommandAnswered, ReaderConnected, ReaderFault,
                             ReaderLost)

log = logging.getLogger(__name__)

PICO_MICROPYTHON = (0x2E8A, 0x0005)


class ReaderNotConnected(HardwareError):
    """A command was sent while no card reader is connected."""


@dataclass(frozen=True)
class TagWritten(CommandAnswered):
    """The ``ack`` of a ``write`` that carries ``ndef``: the hex of the NDEF message the reader
    read back from the tag after writing it (a :class:`CommandAnswered` like any other ack)."""
    ndef: str = ""

    def text(self):
        """The first Text record read back, or None."""
        try:
            return ndef.first_text(from_hex(self.ndef))
        except ValueError:
            return None


USB_SERIAL = ("ttyACM", "ttyUSB", "ttyXRUSB")   # the serial ports that have a USB VID/PID
RESCAN = 5.0        # s: a full listing at least this often while no reader is found


def usb_serial_names(dev="/dev"):
    """The device names of the USB serial ports present: one read of /dev. pyserial's
    ``comports()`` reads sysfs for every serial port, platform UARTs included: 233 ms on the
    arm64 box under QEMU, and the reader looked five times a second while none was plugged in
    (a third of a core, idle). Only these ports can carry a VID/PID."""
    try:
        return frozenset(os.path.join(dev, n) for n in os.listdir(dev) if n.startswith(USB_SERIAL))
    except OSError:
        return frozenset()


def find_reader_port(vid_pid=PICO_MICROPYTHON, comports=None):
    """The device path of the first serial port with this USB VID/PID, or None."""
    ports = (comports or list_ports.comports)()
    for p in sorted(ports, key=lambda p: p.device):
        if p.vid == vid_pid[0] and p.pid == vid_pid[1]:
            return p.device
    return None


class _Protocol(serial.threaded.Protocol):
    def __init__(self, session):
        self.session = session

    def data_received(self, data):
        self.session.bytes_in(data)

    def connection_lost(self, exc):
        self.session.lost = exc or "closed"


class _ReaderThread(serial.threaded.ReaderThread):
    """pyserial's reader thread, ending as it does on a read error when the port's byte count
    fails too: it asks ``in_waiting`` outside its own ``try``, and a USB reader unplugged mid
    read gives EIO there. Its thread then died with a traceback on the console, still
    ``alive``, and the loss was noticed only when the heartbeats stopped."""

    def run(self):
        try:
            super().run()
        except OSError as e:
            self.alive = False
            if self.protocol is not None:
                self.protocol.connection_lost(e)
                self.protocol = None


class _Session:
    """One open port: decoder state and liveness."""

    def __init__(self, reader, port, clock):
        self.reader = reader
        self.port = port
        self.decoder = protocol.Decoder()
        self.last_rx = clock()
        self.last_seq = None
        self.hello = None
        self.lost = None
        self.transport = None

    def bytes_in(self, data):
        self.reader._bytes_in(self, data)


class CardReader:
    def __init__(self, url=None, on_event=None, vid_pid=PICO_MICROPYTHON, clock=time.monotonic,
                 baudrate=115200, dedup_window=0.5, silence_timeout=3.5, retry_interval=0.2,
                 comports=None, usb_names=None):
        self.url = url
        self.on_event = on_event or (lambda e: None)
        self.vid_pid = vid_pid
        self.clock = clock
        self.baudrate = baudrate
        self.dedup_window = dedup_window
        self.silence_timeout = silence_timeout
        self.retry_interval = retry_interval
        self.comports = comports
        # a cheap look before pyserial's full listing; by default only on the real ports (an
        # injected ``comports`` is listed every time unless ``usb_names`` is given too)
        self.usb_names = usb_names if usb_names is not None else (
            usb_serial_names if comports is None else None)
        self._looked = None     # (USB serial names, time) of the last listing that found none
        self.listings = 0       # full listings so far
        self.fault_counts = {}
        self.duplicates = 0
        self.scans = 0
        self._seen = {}                 # card key -> last time seen
        self._fault_emitted = {}        # kind -> last time a fault event went out
        self._tx_seq = protocol.SeqCounter()
        self._tx_lock = threading.Lock()
        self._session = None
        self._stop = threading.Event()
        self._thread = None
        self._started = False

    # -- public --
    @property
    def connected(self) -> bool:
        s = self._session
        return s is not None and s.hello is not None

    @property
    def port(self):
        s = self._session
        return s.port if s else None

    @property
    def firmware(self):
        s = self._session
        return s.hello.firmware if s and s.hello else None

    def start(self):
        if self._started:
            return self
        self._started = True
        self._stop.clear()
        self._thread = threading.Thread(target=self._supervise, name="card-reader", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if not self._started:
            return
        self._started = False
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def send(self, kind, body=None) -> int:
        s = self._session
        if s is None or s.transport is None:
            raise ReaderNotConnected("No card reader is connected.")
        with self._tx_lock:
            seq = self._tx_seq.next()
            frame = protocol.encode(kind, seq, body or {})
            try:
                s.transport.write(frame)
            except (serial.SerialException, OSError) as e:
                raise ReaderNotConnected(f"The card reader went away ({e}).") from None
        return seq

    def who(self) -> int:
        return self.send(protocol.WHO)

    def beep(self, ms=80, n=1) -> int:
        return self.send(protocol.BEEP, {"ms": int(ms), "n": int(n)})

    def set_led(self, rgb) -> int:
        r, g, b = rgb
        return self.send(protocol.LED, {"rgb": "%02X%02X%02X" % (r, g, b)})

    def write_ndef(self, text, timeout_ms=10000, force=False) -> int:
        """Ask the reader to write ``text`` as an NDEF Text record to the next blank tag."""
        body = {"ndef": to_hex(ndef.text_message(text)), "ms": int(timeout_ms)}
        if force:
            body["force"] = True
        return self.send(protocol.WRITE, body)

    def feed(self, data, port="(fed)"):
        """Handle bytes as if they came from a reader on ``port`` (replaying a capture, tests).
        Uses one detached session per reader object, apart from the live port's."""
        if getattr(self, "_fed", None) is None:
            self._fed = _Session(self, port, self.clock)
        self._bytes_in(self._fed, data)

    # -- internals --
    def _emit(self, event):
        try:
            self.on_event(event)
        except Exception:
            log.exception("card reader event handler failed on %r", event)

    def _fault(self, kind, detail, count=None):
        self.fault_counts[kind] = self.fault_counts.get(kind, 0) + 1
        count = self.fault_counts[kind] if count is None else count
        now = self.clock()
        last = self._fault_emitted.get(kind)
        if last is None or now - last >= 1.0:   # a flood of garbage gives one event a second
            self._fault_emitted[kind] = now
            log.warning("card reader: %s: %s (%d so far)", kind, detail, count)
            self._emit(ReaderFault(kind, detail, count))

    def _resolve_port(self):
        if self.url:
            if "://" not in self.url and not os.path.exists(self.url):
                return None
            return self.url
        names = None
        if self.usb_names is not None:
            names = self.usb_names()
            if not names:
                return None             # no USB serial port at all
            if self._looked is not None and self._looked[0] == names and \
                    self.clock() - self._looked[1] < RESCAN:
                return None             # nothing plugged or unplugged since the last listing
        self.listings += 1
        try:
            port = find_reader_port(self.vid_pid, self.comports)
        except Exception:
            log.exception("listing serial ports failed")
            return None
        self._looked = None if port is not None or names is None else (names, self.clock())
        return port

    def _supervise(self):
        missing_reported = False
        while not self._stop.is_set():
            port = self._resolve_port()
            if port is None:
                if not missing_reported:
                    missing_reported = True
                    where = self.url or "USB %04X:%04X" % tuple(self.vid_pid)
                    log.info("card reader: none found at %s; still looking", where)
                self._stop.wait(self.retry_interval)
                continue
            try:
                ser = serial.serial_for_url(port, baudrate=self.baudrate, timeout=0.2,
                                            write_timeout=1.0)
            except (serial.SerialException, OSError, ValueError) as e:
                log.debug("card reader: cannot open %s: %s", port, e)
                self._stop.wait(self.retry_interval)
                continue
            missing_reported = False
            reason = self._run_session(port, ser)
            if reason is not None:
                self._stop.wait(self.retry_interval)

    def _run_session(self, port, ser):
        session = _Session(self, port, self.clock)
        thread = _ReaderThread(ser, lambda: _Protocol(session))
        thread.daemon = True
        thread.start()
        try:
            session.transport, _ = thread.connect()
        except Exception as e:   # the port died at once
            thread.close()
            return str(e)
        self._session = session
        reason = None
        try:
            try:
                self.who()
            except ReaderNotConnected:
                pass
            while True:
                if self._stop.wait(0.05):
                    break
                if session.lost is not None or not thread.alive:
                    lost = session.lost
                    reason = f"the port failed ({lost})" if isinstance(lost, Exception) else \
                        "the port was closed"
                    break
                if self.clock() - session.last_rx > self.silence_timeout:
                    reason = f"no heartbeat for {self.silence_timeout:g} s"
                    break
        finally:
            self._session = None
            try:
                thread.close()
            except Exception:
                log.debug("closing the port failed", exc_info=True)
        if reason is None:
            return None
        log.warning("card reader on %s lost: %s", port, reason)
        if session.hello is not None:
            self._emit(ReaderLost(port, reason))
        return reason

    def _bytes_in(self, session, data):
        now = self.clock()
        session.last_rx = now
        for item in session.decoder.feed(data):
            if isinstance(item, protocol.FrameError):
                self._fault(item.kind, item.detail)
                continue
            try:
                self._frame(session, item, now)
            except Exception:   # a bug here must not kill the reader thread
                log.exception("card reader: handling %r failed", item)
                self._fault("internal", f"a {item.kind} frame could not be handled")

    def _frame(self, session, frame, now):
        body = frame.body
        if frame.kind == protocol.HELLO:
            session.last_seq = frame.seq
            event = ReaderConnected(session.port, body["fw"], tuple(body["caps"]),
                                    str(body.get("id", "")))
            first = session.hello is None
            session.hello = event
            if first:
                log.info("card reader on %s: firmware %s, %s", session.port, event.firmware,
                         ", ".join(event.capabilities))
                self._emit(event)
            return
        if session.last_seq is not None:
            gap = protocol.seq_gap(session.last_seq, frame.seq)
            if gap and gap < protocol.SEQ_MOD // 2:
                self._fault("gap", f"{gap} frame(s) from the reader were lost")
        session.last_seq = frame.seq
        if frame.kind == protocol.SCAN:
            self._scan(frame, now)
        elif frame.kind == protocol.ACK:
            if "ndef" in body:
                self._emit(TagWritten(body["re"], body["ok"], str(body.get("detail", "")),
                                      body.get("uid"), str(body["ndef"])))
            else:
                self._emit(CommandAnswered(body["re"], body["ok"], str(body.get("detail", "")),
                                           body.get("uid")))
        elif frame.kind == protocol.ERROR:
            self._fault("reader-" + body["kind"], str(body.get("detail", "")))
        elif frame.kind == protocol.HEARTBEAT:
            pass
        else:
            self._fault("unknown-kind", f"the reader sent a {frame.kind} frame")

    def _scan(self, frame, now):
        body = frame.body
        src = body["src"]
        code = uid = problem = None
        if body.get("bad"):
            problem = str(body["bad"])
        if src == "nfc":
            uid = body["uid"].upper()
            key = ("nfc", uid)
            raw = body.get("ndef", "")
            if raw and problem is None:
                try:
                    code = ndef.first_text(from_hex(raw))
                    if code is None:
                        problem = "the tag holds NDEF data that is not a card code"
                except ValueError as e:   # NdefError or bad hex
                    problem = f"the tag's data is damaged ({e})"
        else:
            data_hex = body["data"]
            key = ("qr", data_hex)
            if problem is None:
                try:
                    code = from_hex(data_hex).decode("utf-8").strip()
                except ValueError as e:
                    problem = f"the QR code could not be read as text ({e})"
        last = self._seen.get(key)
        self._seen[key] = now
        if len(self._seen) > 256:
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.dedup_window}
        if last is not None and now - last < self.dedup_window:
            self.duplicates += 1
            return
        self.scans += 1
        self._emit(CardScanned(src, code, uid, frame.seq, now, problem))


def probe(url=None, vid_pid=PICO_MICROPYTHON, timeout=2.0, comports=None):
    """Open the reader, ask for its hello and close again: the ReaderConnected event, or None if
    none answered within ``timeout`` seconds."""
    got = threading.Event()
    result = []

    def on_event(e):
        if isinstance(e, ReaderConnected):
            result.append(e)
            got.set()

    reader = CardReader(url, on_event, vid_pid=vid_pid, comports=comports)
    with reader:
        got.wait(timeout)
    return result[0] if result else None
