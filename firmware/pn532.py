"""PN532 NFC controller over its UART (HSU) interface, reading and writing NTAG2xx tags.

The driver takes a *bus object* (``write(bytes)``, ``read(n) -> bytes|None``, ``any() -> int``:
``machine.UART`` on the Pico, a fake in tests) and a clock (``ticks_ms``/``ticks_diff``/
``sleep_ms``), never pin numbers. Frame layout (PN532 User Manual, section 6.2)::

    host -> PN532:  00 00 FF LEN LCS D4 CMD DATA.. DCS 00
    PN532 -> host:  00 00 FF 00 FF 00                      (ACK)
                    00 00 FF LEN LCS D5 CMD+1 DATA.. DCS 00 (response)

``LEN + LCS`` and ``D4/D5 + CMD + DATA + DCS`` are 0 modulo 256; the driver checks both and
raises :class:`PN532FrameError` for a frame that fails, :class:`PN532Timeout` when nothing
answers.
"""
from firmware.compat import RealClock, const
from firmware import ndef

CMD_GET_FIRMWARE_VERSION = const(0x02)
CMD_SAM_CONFIGURATION = const(0x14)
CMD_RF_CONFIGURATION = const(0x32)
CMD_IN_DATA_EXCHANGE = const(0x40)
CMD_IN_LIST_PASSIVE_TARGET = const(0x4A)

NTAG_READ = const(0x30)
NTAG_WRITE = const(0xA2)
USER_START_PAGE = const(4)

ACK = b"\x00\x00\xFF\x00\xFF\x00"
WAKEUP = b"\x55\x55" + b"\x00" * 14


class PN532Error(Exception):
    """The PN532 or the tag did not do what was asked."""


class PN532Timeout(PN532Error):
    """No (complete) answer within the timeout."""


class PN532FrameError(PN532Error):
    """An answer with a bad length or data checksum, or of the wrong command."""


class TagError(PN532Error):
    """The tag answered with an error status (removed mid-read, write-protected page...)."""


def build_frame(cmd, params=b""):
    body = bytes([0xD4, cmd]) + bytes(params)
    n = len(body)
    if n > 254:
        raise ValueError("PN532 command too long")
    dcs = (-sum(body)) & 0xFF
    return b"\x00\x00\xFF" + bytes([n, (-n) & 0xFF]) + body + bytes([dcs, 0x00])


def parse_frames(buf):
    """Split ``buf`` into frames: returns (list of ('ack'|'nack'|bytes body), rest).

    A body is the bytes from D5 to before DCS. Raises PN532FrameError on a checksum failure.
    """
    out = []
    while True:
        i = buf.find(b"\x00\xFF")
        if i < 0:
            return out, buf[-1:] if buf[-1:] == b"\x00" else b""
        if len(buf) < i + 4:
            return out, buf[i:]
        ln, lcs = buf[i + 2], buf[i + 3]
        if ln == 0x00 and lcs == 0xFF:
            out.append("ack")
            buf = buf[i + 4:]
            continue
        if ln == 0xFF and lcs == 0x00:
            out.append("nack")
            buf = buf[i + 4:]
            continue
        if (ln + lcs) & 0xFF:
            raise PN532FrameError("PN532 frame length checksum failed")
        end = i + 4 + ln + 1
        if len(buf) < end:
            return out, buf[i:]
        body = buf[i + 4:i + 4 + ln]
        if (sum(body) + buf[i + 4 + ln]) & 0xFF:
            raise PN532FrameError("PN532 frame data checksum failed")
        out.append(bytes(body))
        buf = buf[end:]


class PN532:
    """One PN532 on a UART. ``poll()`` finds a tag, ``read_ndef_area()``/``write_user()``
    use it. Methods raise PN532Error subclasses; they never hang past their timeout."""

    def __init__(self, uart, clock=None, timeout_ms=200):
        self.uart = uart
        self.clock = clock or RealClock()
        self.timeout_ms = timeout_ms
        self._rx = b""
        self._frames = []
        self.target = None
        self.uid = None

    # -- transport --
    def _read_until(self, timeout_ms):
        """Wait for a frame: 'ack' or a body. Returns the first frame found."""
        clock = self.clock
        start = clock.ticks_ms()
        while True:
            if not self._frames:
                try:
                    self._frames, self._rx = parse_frames(self._rx)
                except PN532FrameError:
                    self._rx = b""
                    raise
            if self._frames:
                return self._frames.pop(0)
            chunk = self.uart.read(64) if self.uart.any() else None
            if chunk:
                self._rx += chunk
                continue
            if clock.ticks_diff(clock.ticks_ms(), start) >= timeout_ms:
                self._rx = b""
                raise PN532Timeout("the PN532 did not answer within %d ms" % timeout_ms)
            clock.sleep_ms(1)

    def command(self, cmd, params=b"", timeout_ms=None):
        """Send one command, wait for its ACK and its response; return the response data."""
        timeout_ms = timeout_ms or self.timeout_ms
        self._rx = b""
        self._frames = []
        while self.uart.any():          # drop anything stale from an earlier, failed command
            self.uart.read(self.uart.any())
        self.uart.write(build_frame(cmd, params))
        first = self._read_until(timeout_ms)
        if not isinstance(first, str) or first != "ack":
            raise PN532FrameError("the PN532 did not acknowledge command 0x%02X" % cmd)
        body = self._read_until(timeout_ms)
        if isinstance(body, str):
            raise PN532FrameError("the PN532 sent %s instead of a response" % body)
        if len(body) < 2 or body[0] != 0xD5 or body[1] != cmd + 1:
            raise PN532FrameError("the PN532 answered 0x%02X to command 0x%02X"
                                  % (body[1] if len(body) > 1 else 0, cmd))
        return body[2:]

    # -- chip --
    def wakeup(self):
        """Wake the chip from power-down (HSU needs a long preamble) and set normal mode."""
        self.uart.write(WAKEUP)
        self._rx = b""
        self._frames = []
        self.sam_configuration()
        self.set_passive_retries(1)

    def firmware_version(self):
        """(ic, version, revision, support), e.g. (0x32, 1, 6, 7) for a PN532 v1.6."""
        d = self.command(CMD_GET_FIRMWARE_VERSION)
        if len(d) < 4:
            raise PN532FrameError("short firmware version answer")
        return d[0], d[1], d[2], d[3]

    def sam_configuration(self):
        self.command(CMD_SAM_CONFIGURATION, b"\x01\x14\x01")

    def set_passive_retries(self, n):
        """How many times InListPassiveTarget retries before answering 'no tag' (0xFF = forever)."""
        self.command(CMD_RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, n]))

    # -- tags --
    def poll(self):
        """The UID (bytes) of one ISO14443A tag in the field, or None."""
        d = self.command(CMD_IN_LIST_PASSIVE_TARGET, b"\x01\x00")
        if not d or d[0] == 0:
            self.target = self.uid = None
            return None
        # NbTg Tg SENS_RES(2) SEL_RES NFCIDLength NFCID1...
        if len(d) < 6 or len(d) < 6 + d[5]:
            raise PN532FrameError("short target answer")
        self.target = d[1]
        self.uid = bytes(d[6:6 + d[5]])
        return self.uid

    def _exchange(self, data):
        if self.target is None:
            raise TagError("no tag selected")
        d = self.command(CMD_IN_DATA_EXCHANGE, bytes([self.target]) + bytes(data))
        if not d:
            raise PN532FrameError("empty exchange answer")
        if d[0] & 0x3F:
            raise TagError("the tag answered with error 0x%02X" % (d[0] & 0x3F))
        return d[1:]

    def read_pages(self, page):
        """16 bytes: four pages from ``page`` on (NTAG READ)."""
        d = self._exchange(bytes([NTAG_READ, page]))
        if len(d) != 16:
            raise TagError("a tag read returned %d bytes, not 16" % len(d))
        return d

    def write_page(self, page, data4):
        self._exchange(bytes([NTAG_WRITE, page]) + bytes(data4))

    def read_ndef_area(self, max_bytes=868):
        """User memory from page 4, as far as the NDEF TLV needs (at most ``max_bytes``)."""
        mem = b""
        page = USER_START_PAGE
        while len(mem) < max_bytes:
            mem += self.read_pages(page)
            page += 4
            need = ndef.tlv_length_needed(mem)
            if need is None or need <= len(mem):
                break
        return mem

    def write_user(self, data):
        """Write ``data`` (padded to whole pages) to user memory from page 4."""
        data = bytes(data)
        if len(data) % 4:
            data += b"\x00" * (4 - len(data) % 4)
        for i in range(0, len(data), 4):
            self.write_page(USER_START_PAGE + i // 4, data[i:i + 4])
