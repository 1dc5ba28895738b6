"""The reader's behaviour, independent of the board: polls the NFC and QR drivers, speaks the
protocol on a byte stream, answers the hub's commands.

``ReaderApp(usb, nfc=PN532|None, qr=GM65|None, beeper=None, led=None, clock=...)``: ``usb``
has ``read() -> bytes|None`` (non-blocking) and ``write(bytes)``; ``beeper`` has
``beep(ms, n)`` and ``step()``; ``led`` has ``set(r, g, b)``. Call :meth:`start` once, then
:meth:`step` in a loop (``main.py`` does that on the Pico; the PC simulator and the tests do it
with fake buses).

Behaviour in short:

* a hello on start and on every ``who``; a heartbeat every second;
* a tag is reported once when it arrives (UID + raw NDEF message) and again only after it has
  been away for ``absent_ms``; a QR code is reported each time the module decodes one;
* a ``write`` command arms a one-shot write: the next *blank* tag gets the NDEF message, is read
  back and verified, and the hub gets an ``ack`` with its UID and the message read back; a tag that is not blank is
  refused (unless ``force``), and no tag within ``ms`` gives a failed ``ack``;
* bad frames from the hub, driver failures and damaged tags become ``err`` frames; the loop
  itself never stops.
"""
from firmware import ndef, protocol
from firmware.version import FW_VERSION
from firmware.compat import RealClock, from_hex, to_hex
from firmware.gm65 import QRError
from firmware.pn532 import PN532Error, TagError

HEARTBEAT_MS = 1000
ABSENT_MS = 300
WRITE_TIMEOUT_MS = 10000


class ReaderApp:
    def __init__(self, usb, nfc=None, qr=None, beeper=None, led=None, clock=None,
                 fw=FW_VERSION, board="pico", reader_id=""):
        self.usb = usb
        self.nfc = nfc
        self.qr = qr
        self.beeper = beeper
        self.led = led
        self.clock = clock or RealClock()
        self.fw = fw
        self.board = board
        self.reader_id = reader_id
        self.seq = protocol.SeqCounter()
        self.decoder = protocol.Decoder()
        self.scans = 0
        self.errors = 0
        self.started = self.clock.ticks_ms()
        self.last_hb = self.started
        self.present_uid = None
        self.last_seen = 0
        self.pending_write = None   # (cmd seq, message bytes, start ms, timeout ms, force)
        self.nfc_ok = nfc is not None

    # -- output --
    def caps(self):
        caps = []
        if self.nfc is not None:
            caps.append("nfc")
            caps.append("ndef-write")
        if self.qr is not None:
            caps.append("qr")
        if self.beeper is not None:
            caps.append("beep")
        if self.led is not None:
            caps.append("led")
        return caps

    def send(self, kind, body):
        self.usb.write(protocol.encode(kind, self.seq.next(), body))

    def report_error(self, kind, detail):
        self.errors += 1
        self.send(protocol.ERROR, protocol.error_body(kind, detail, self.errors))

    def hello(self):
        self.send(protocol.HELLO, protocol.hello_body(self.fw, self.caps(), self.board,
                                                      self.reader_id))

    def start(self):
        if self.nfc is not None:
            try:
                self.nfc.wakeup()
            except PN532Error as e:
                self.nfc_ok = False
                self.report_error("nfc-init", str(e))
        self.hello()

    # -- loop --
    def step(self):
        """One pass: commands, QR, NFC, heartbeat, beeper. Never raises for bad input."""
        now = self.clock.ticks_ms()
        self._read_commands()
        if self.qr is not None:
            self._poll_qr()
        if self.nfc is not None:
            self._poll_nfc(now)
        pw = self.pending_write
        if pw is not None and self.clock.ticks_diff(now, pw[2]) >= pw[3]:
            re = self.pending_write[0]
            self.pending_write = None
            self.send(protocol.ACK, protocol.ack_body(re, False, "no blank tag was presented in time"))
        if self.clock.ticks_diff(now, self.last_hb) >= HEARTBEAT_MS:
            self.last_hb = now
            self.send(protocol.HEARTBEAT, protocol.heartbeat_body(
                self.clock.ticks_diff(now, self.started), self.scans, self.errors))
        if self.beeper is not None:
            self.beeper.step()

    def run(self, idle_ms=2):
        self.start()
        while True:
            self.step()
            self.clock.sleep_ms(idle_ms)

    # -- commands --
    def _read_commands(self):
        data = self.usb.read()
        if not data:
            return
        for item in self.decoder.feed(data):
            if isinstance(item, protocol.FrameError):
                self.report_error("frame-" + item.kind, item.detail)
            else:
                self._command(item)

    def _command(self, frame):
        kind, body, re = frame.kind, frame.body, frame.seq
        if kind == protocol.WHO:
            self.hello()
        elif kind == protocol.BEEP:
            if self.beeper is None:
                self.send(protocol.ACK, protocol.ack_body(re, False, "this reader has no beeper"))
                return
            ms = body["ms"]
            n = body.get("n", 1)
            if not (isinstance(n, int) and 1 <= n <= 10 and 1 <= ms <= 5000):
                self.send(protocol.ACK, protocol.ack_body(re, False, "beep needs ms 1..5000 and n 1..10"))
                return
            self.beeper.beep(ms, n)
            self.send(protocol.ACK, protocol.ack_body(re, True))
        elif kind == protocol.LED:
            if self.led is None:
                self.send(protocol.ACK, protocol.ack_body(re, False, "this reader has no LED"))
                return
            try:
                rgb = from_hex(body["rgb"])
                if len(rgb) != 3:
                    raise ValueError("three bytes")
            except ValueError:
                self.send(protocol.ACK, protocol.ack_body(re, False, "led needs rgb as RRGGBB hex"))
                return
            self.led.set(rgb[0], rgb[1], rgb[2])
            self.send(protocol.ACK, protocol.ack_body(re, True))
        elif kind == protocol.WRITE:
            if self.nfc is None:
                self.send(protocol.ACK, protocol.ack_body(re, False, "this reader has no NFC"))
                return
            try:
                message = from_hex(body["ndef"])
                ndef.parse(message)
                ndef.wrap_tlv(message)
            except ValueError as e:   # NdefError is a ValueError
                self.send(protocol.ACK, protocol.ack_body(re, False, "not an NDEF message: %s" % e))
                return
            ms = body.get("ms", WRITE_TIMEOUT_MS)
            if not isinstance(ms, int) or not 1 <= ms <= 60000:
                ms = WRITE_TIMEOUT_MS
            self.pending_write = (re, message, self.clock.ticks_ms(), ms, bool(body.get("force", False)))
            self.present_uid = None   # a tag already lying there counts as newly presented
        elif kind in (protocol.HELLO, protocol.SCAN, protocol.HEARTBEAT, protocol.ACK, protocol.ERROR):
            self.report_error("unexpected", "the reader does not accept %s frames" % kind)
        else:
            self.send(protocol.ACK, protocol.ack_body(re, False, "unknown command %s" % kind))

    # -- QR --
    def _poll_qr(self):
        try:
            code = self.qr.poll()
        except QRError as e:
            self.report_error("qr-overflow", str(e))
            return
        if code:
            self.scans += 1
            self.send(protocol.SCAN, protocol.qr_scan_body(to_hex(code)))

    # -- NFC --
    def _poll_nfc(self, now):
        if not self.nfc_ok:
            return
        try:
            uid = self.nfc.poll()
        except PN532Error as e:
            self.report_error("nfc", str(e))
            return
        if uid is None:
            if self.present_uid is not None and self.clock.ticks_diff(now, self.last_seen) >= ABSENT_MS:
                self.present_uid = None
            return
        self.last_seen = now
        if uid == self.present_uid:
            return
        self.present_uid = uid
        if self.pending_write is not None:
            self._write_tag(uid)
            return
        try:
            mem = self.nfc.read_ndef_area()
        except TagError as e:
            self.present_uid = None   # read again next time it answers
            self.report_error("nfc-read", "the tag left before it was read (%s)" % e)
            return
        except PN532Error as e:
            self.present_uid = None
            self.report_error("nfc", str(e))
            return
        self.scans += 1
        try:
            message = ndef.find_message(mem)
            body = protocol.nfc_scan_body(to_hex(uid), to_hex(message) if message else "")
        except ndef.NdefError as e:
            body = protocol.nfc_scan_body(to_hex(uid), "", bad="damaged tag: %s" % e)
        self.send(protocol.SCAN, body)

    def _write_tag(self, uid):
        re, message, _start, _ms, force = self.pending_write
        try:
            mem = self.nfc.read_ndef_area()
            blank = True
            try:
                blank = ndef.is_blank(mem)
            except ndef.NdefError:
                blank = False
            if not blank and not force:
                self.pending_write = None
                self.send(protocol.ACK, protocol.ack_body(
                    re, False, "tag %s is not blank; nothing was written" % to_hex(uid), uid=to_hex(uid)))
                return
            data = ndef.wrap_tlv(message)
            self.nfc.write_user(data)
            back = ndef.find_message(self.nfc.read_ndef_area())
            if back != message:
                raise TagError("read-back differs from what was written")
        except (PN532Error, ndef.NdefError) as e:
            self.present_uid = None
            self.pending_write = None
            self.send(protocol.ACK, protocol.ack_body(re, False, "writing tag %s failed: %s" % (to_hex(uid), e),
                                                      uid=to_hex(uid)))
            return
        self.pending_write = None
        self.send(protocol.ACK, protocol.ack_body(re, True, "written", uid=to_hex(uid),
                                                  ndef=to_hex(back)))
