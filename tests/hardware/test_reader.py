"""The card reader driver: golden frames in -> neutral events out (fed straight in), then the
real thing over a pty / TCP with the simulator running the firmware logic."""
import json
import os
import pathlib
import queue
import time

import pytest
from serial.tools.list_ports_common import ListPortInfo

from companion.cardcodes import format_code
from companion.core.clock import FakeClock
from firmware import protocol as p
from firmware.compat import to_hex
from firmware.version import FW_VERSION
from hardware.events import (CardScanned, CommandAnswered, ReaderConnected, ReaderFault,
                             ReaderLost)
from hardware.reader import (RESCAN, CardReader, ReaderNotConnected, find_reader_port,
                             usb_serial_names)
from hardware.sim import SIM_FIRMWARE, ReaderSim
from ..waiting import wait_until

VECTORS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "firmware" /
                      "vectors.json").read_text())
GOLDEN = {v["name"]: v["line"].encode() for v in VECTORS["frames"]}


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, e):
        self.events.append(e)

    def of(self, cls):
        return [e for e in self.events if isinstance(e, cls)]


def fed_reader(clock=None):
    rec = Recorder()
    clock = clock or FakeClock(100.0)
    return CardReader(None, rec, clock=clock.now), rec, clock


# --- frames -> events (no port) ---------------------------------------------------------------

def test_golden_frames_become_events():
    r, rec, clock = fed_reader()
    for name in ("hello", "scan-nfc", "scan-nfc-blank", "scan-nfc-damaged", "scan-qr",
                 "heartbeat", "error", "ack"):
        r.feed(GOLDEN[name])
        clock.advance(1.0)          # two vectors share a UID: keep them apart
    hello = rec.of(ReaderConnected)[0]
    assert hello.firmware == "1.0.0" and "ndef-write" in hello.capabilities
    assert hello.reader_id == "E6614103E7452D2F"
    nfc, blank, damaged, qr = rec.of(CardScanned)
    assert nfc == CardScanned("nfc", "tc1:trade-warz:export-014:2:2024.11:42E1",
                              "04A1B2C3D4E5F6", 1, 101.0)
    assert blank.code is None and blank.uid == "04112233445566" and blank.problem is None
    assert damaged.code is None and "TLV claims 40 bytes" in damaged.problem
    assert qr.source == "qr" and qr.code == nfc.code and qr.uid is None
    (fault,) = rec.of(ReaderFault)
    assert fault.kind == "reader-nfc" and "200 ms" in fault.detail
    (ack,) = rec.of(CommandAnswered)
    assert ack == CommandAnswered(3, True, "written", "04A1B2C3D4E5F6")


def test_undecodable_ndef_and_non_text_qr_are_problems_not_crashes():
    r, rec, _ = fed_reader()
    r.feed(p.encode("scan", 0, p.nfc_scan_body("04AA", "D1FF")))      # truncated record
    r.feed(p.encode("scan", 1, p.qr_scan_body("FFFE00")))              # not UTF-8
    r.feed(p.encode("scan", 2, p.nfc_scan_body("04AB", "XYZ")))        # not hex
    a, b, c = rec.of(CardScanned)
    assert a.code is None and "damaged" in a.problem
    assert b.code is None and "not be read as text" in b.problem
    assert c.code is None and "damaged" in c.problem


def test_same_card_is_ignored_until_away_for_half_a_second():
    r, rec, clock = fed_reader()
    frame = lambda seq: p.encode("scan", seq, p.qr_scan_body(to_hex(b"tc1:card")))  # noqa: E731
    r.feed(frame(0))
    clock.advance(0.3)
    r.feed(frame(1))            # still in front of the scanner
    clock.advance(0.3)
    r.feed(frame(2))            # 0.3 s after the last sighting: still the same presentation
    clock.advance(0.6)
    r.feed(frame(3))            # away for 0.6 s: a new scan
    r.feed(p.encode("scan", 4, p.qr_scan_body(to_hex(b"tc1:other"))))   # another card: at once
    assert [e.seq for e in rec.of(CardScanned)] == [0, 3, 4]
    assert r.duplicates == 2


def test_nfc_dedup_is_by_uid():
    r, rec, clock = fed_reader()
    r.feed(p.encode("scan", 0, p.nfc_scan_body("04AAAAAAAAAAAA", "")))
    r.feed(p.encode("scan", 1, p.nfc_scan_body("04AAAAAAAAAAAA", "")))
    r.feed(p.encode("scan", 2, p.nfc_scan_body("04BBBBBBBBBBBB", "")))
    assert [e.uid for e in rec.of(CardScanned)] == ["04AAAAAAAAAAAA", "04BBBBBBBBBBBB"]


def test_garbage_is_counted_logged_and_frames_after_it_are_read(caplog):
    r, rec, clock = fed_reader()
    r.feed(b"\x00\xff\x13 line noise \xfe\n@TC1 1 hb {}*0000\n")
    r.feed(p.encode("scan", 2, p.qr_scan_body("41")))
    assert r.fault_counts == {"garbage": 1, "checksum": 1}
    assert [e.kind for e in rec.of(ReaderFault)] == ["garbage", "checksum"]
    assert rec.of(CardScanned)[0].code == "A"
    assert "garbage" in caplog.text


def test_a_flood_of_garbage_gives_one_fault_event_a_second_but_counts_all():
    r, rec, clock = fed_reader()
    for _ in range(50):
        r.feed(b"noise\n")
    assert r.fault_counts["garbage"] == 50
    assert len(rec.of(ReaderFault)) == 1
    clock.advance(1.0)
    r.feed(b"noise\n")
    faults = rec.of(ReaderFault)
    assert len(faults) == 2 and faults[1].count == 51


def test_lost_frames_are_reported_as_a_gap():
    r, rec, _ = fed_reader()
    r.feed(GOLDEN["hello"])                                # seq 0
    r.feed(p.encode("hb", 1, {"up": 1}))
    r.feed(p.encode("hb", 4, {"up": 2}))                   # 2 and 3 lost
    (gap,) = rec.of(ReaderFault)
    assert gap.kind == "gap" and gap.detail.startswith("2 frame")


def test_a_failing_handler_does_not_stop_the_driver(caplog):
    calls = []

    def handler(e):
        calls.append(e)
        raise RuntimeError("hub bug")

    r = CardReader(None, handler, clock=FakeClock().now)
    r.feed(p.encode("scan", 0, p.qr_scan_body("41")))
    r.feed(p.encode("scan", 1, p.qr_scan_body("42")))
    assert len(calls) == 2 and "hub bug" in caplog.text


def test_commands_need_a_connection():
    r = CardReader("/nonexistent", lambda e: None)
    with pytest.raises(ReaderNotConnected, match="No card reader is connected"):
        r.beep()


def test_find_port_by_vid_pid():
    def port(dev, vid, pid):
        info = ListPortInfo(dev, skip_link_detection=True)
        info.vid, info.pid = vid, pid
        return info
    listing = [port("/dev/ttyUSB0", 0x0403, 0x6001), port("/dev/ttyACM1", 0x2E8A, 0x0005),
               port("/dev/ttyACM0", 0x2E8A, 0x0005)]
    assert find_reader_port((0x2E8A, 0x0005), lambda: listing) == "/dev/ttyACM0"
    assert find_reader_port((0x1234, 0x0001), lambda: listing) is None


# --- over a real pty / socket, with the simulator -----------------------------------------------

class Waiter:
    """Collects events from the driver thread; ``next(cls)`` waits (up to 10 s) for one."""

    def __init__(self):
        self.q = queue.Queue()
        self.seen = []

    def __call__(self, e):
        self.q.put(e)

    def next(self, cls, timeout=10.0):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {cls.__name__} event; saw {self.seen}")
            try:
                e = self.q.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(e)
            if isinstance(e, cls):
                return e


@pytest.fixture
def sim(tmp_path):
    s = ReaderSim(link=str(tmp_path / "reader")).start()
    yield s
    s.close()


def test_pty_scan_write_and_commands(sim):
    w = Waiter()
    with CardReader(sim.url, w, retry_interval=0.05) as reader:
        hello = w.next(ReaderConnected)
        assert hello.firmware == SIM_FIRMWARE == f"{FW_VERSION}-sim" and hello.port == sim.url
        assert reader.connected and reader.firmware == SIM_FIRMWARE
        code = format_code("demo", "a")
        sim.show_qr(code)
        e = w.next(CardScanned)
        assert (e.source, e.code, e.uid) == ("qr", code, None)
        sim.tap(text=format_code("demo", "b"))
        e = w.next(CardScanned)
        assert e.source == "nfc" and e.code == format_code("demo", "b") and e.uid
        seq = reader.beep(50, 2)
        ack = w.next(CommandAnswered)
        assert ack.command_seq == seq and ack.ok
        seq = reader.write_ndef(format_code("demo", "c"))
        wait_until(lambda: sim.app.pending_write is not None)   # the command crossed the pty
        sim.tap("04AABBCCDDEEFF")
        ack = w.next(CommandAnswered)
        assert (ack.command_seq, ack.ok, ack.uid) == (seq, True, "04AABBCCDDEEFF")
        sim.tap("04AABBCCDDEEFF")                 # the written tag now reads as that card
        e = w.next(CardScanned)
        assert e.code == format_code("demo", "c") and e.uid == "04AABBCCDDEEFF"


def test_pty_garbage_then_frames(sim):
    w = Waiter()
    with CardReader(sim.url, w) as reader:
        w.next(ReaderConnected)
        sim.send_raw(bytes(range(256)) * 20 + b"\n@TC1 77 hb {}*0000\n")
        sim.show_qr("still here")
        assert w.next(CardScanned).code == "still here"
        assert reader.fault_counts.get("overlong", 0) + reader.fault_counts.get("garbage", 0) >= 1
        assert reader.fault_counts.get("checksum") == 1
        faults = [e for e in w.seen if isinstance(e, ReaderFault)]
        assert faults and {f.kind for f in faults} <= {"overlong", "garbage", "encoding", "checksum"}


def test_unplug_and_replug(sim):
    w = Waiter()
    with CardReader(sim.url, w, retry_interval=0.05):
        w.next(ReaderConnected)
        sim.unplug()
        lost = w.next(ReaderLost)
        assert lost.port == sim.url and "port" in lost.reason
        sim.replug()
        again = w.next(ReaderConnected)
        assert again.port == sim.url
        sim.show_qr("after replug")
        assert w.next(CardScanned).code == "after replug"


def test_a_port_that_fails_its_byte_count_ends_the_session_at_once(monkeypatch):
    """A USB reader unplugged mid-read can fail pyserial's byte count (``in_waiting``: EIO on
    a pseudo-terminal whose other end is gone), which pyserial's reader thread asks outside
    its own ``try``: the thread died with a traceback, still "alive", and the loss waited for
    the heartbeats. Here the port's far end is closed before the thread's first read."""
    import threading

    import serial

    from hardware.reader import _ReaderThread
    crashed = []
    monkeypatch.setattr(threading, "excepthook", crashed.append)
    master, slave = os.openpty()
    ser = serial.serial_for_url(os.ttyname(slave), timeout=0.2)
    os.close(slave)
    os.close(master)                                    # unplugged

    class Lost:
        lost = None

        def __call__(self):
            import serial.threaded

            outer = self

            class P(serial.threaded.Protocol):
                def connection_lost(self, exc):
                    outer.lost = exc or "closed"
            return P()
    seen = Lost()
    t = _ReaderThread(ser, seen)
    t.daemon = True
    t.start()
    t.join(5)
    assert not t.is_alive() and not t.alive
    assert isinstance(seen.lost, OSError), seen.lost
    assert crashed == []
    ser.close()


def test_a_silent_reader_is_lost_and_found_again(tmp_path):
    s = ReaderSim(link=str(tmp_path / "r"), heartbeat=False).start()
    try:
        w = Waiter()
        with CardReader(s.url, w, silence_timeout=0.5, retry_interval=0.05):
            w.next(ReaderConnected)
            lost = w.next(ReaderLost)
            assert "no heartbeat" in lost.reason
            w.next(ReaderConnected)          # reopened; it still answers who with hello
    finally:
        s.close()


def test_found_by_vid_pid(sim):
    info = ListPortInfo(os.path.realpath(sim.url), skip_link_detection=True)
    info.vid, info.pid = 0x2E8A, 0x0005
    w = Waiter()
    with CardReader(None, w, comports=lambda: [info]):
        assert w.next(ReaderConnected).port == os.path.realpath(sim.url)


def test_no_full_listing_of_serial_ports_while_no_usb_serial_port_comes_or_goes(sim):
    """While no reader is plugged in the driver looks for one every ``retry_interval`` s.
    pyserial's full listing reads sysfs for every serial port (233 ms a listing on the arm64
    box under QEMU: a third of a core, idle), so the driver lists only when the USB serial
    ports present change, and at least every RESCAN s; a reader plugged in is still found
    at its next look."""
    clock = FakeClock()
    usb = {"names": frozenset(), "ports": []}
    listed = []

    def comports():
        listed.append(clock.now())
        return usb["ports"]
    info = ListPortInfo(os.path.realpath(sim.url), skip_link_detection=True)
    info.vid, info.pid = 0x2E8A, 0x0005
    w = Waiter()
    with CardReader(None, w, clock=clock.now, comports=comports, retry_interval=0.01,
                    usb_names=lambda: usb["names"]) as reader:
        time.sleep(0.3)                          # some 30 looks: no USB serial port at all
        assert listed == [] and reader.listings == 0
        usb["names"] = frozenset({"/dev/ttyUSB0"})               # someone else's adapter
        wait_until(lambda: len(listed) == 1, what="a listing after a port came")
        time.sleep(0.3)
        assert len(listed) == 1                  # the same ports: not listed again ...
        clock.advance(RESCAN)
        wait_until(lambda: len(listed) == 2, what="the listing every RESCAN s")   # ... for 5 s
        usb["ports"] = [info]                    # the reader is plugged in
        usb["names"] = frozenset({"/dev/ttyUSB0", "/dev/ttyACM0"})
        assert w.next(ReaderConnected).port == os.path.realpath(sim.url)
        assert len(listed) == 3


def test_usb_serial_names_are_the_ports_that_can_carry_a_vid_pid(tmp_path):
    for name in ("ttyACM0", "ttyUSB3", "ttyXRUSB1", "ttyS0", "ttyAMA0", "tty1", "null"):
        (tmp_path / name).touch()
    assert usb_serial_names(str(tmp_path)) == {str(tmp_path / n) for n in
                                               ("ttyACM0", "ttyUSB3", "ttyXRUSB1")}
    assert usb_serial_names(str(tmp_path / "gone")) == frozenset()


def test_socket_url():
    s = ReaderSim(transport="tcp").start()
    try:
        w = Waiter()
        with CardReader(s.url, w):
            assert w.next(ReaderConnected).port.startswith("socket://127.0.0.1:")
            s.tap(text="tc1:x")
            assert w.next(CardScanned).code == "tc1:x"
    finally:
        s.close()


def test_stop_is_idempotent_and_no_events_after(sim):
    w = Waiter()
    reader = CardReader(sim.url, w).start()
    w.next(ReaderConnected)
    reader.stop()
    reader.stop()
    sim.show_qr("nobody listens")
    assert not reader.connected and reader.port is None
    assert all(not isinstance(e, CardScanned) for e in list(w.q.queue))
