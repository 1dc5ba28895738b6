"""Fake buses that behave like the real parts, for the PC: tests (CPython and the MicroPython
unix port) and ``companion reader-sim``.

* :class:`FakeTag`: an NTAG213 (7-byte UID, 45 pages, user memory pages 4-39).
* :class:`FakePN532Bus`: a UART with a PN532 behind it. It parses the host's frames, checks
  their checksums and answers with ACK + response frames like the chip (GetFirmwareVersion,
  SAMConfiguration, RFConfiguration, InListPassiveTarget, InDataExchange with NTAG READ/WRITE).
  Faults can be switched on: ``silent`` (no answer), ``corrupt`` (next response's checksum is
  wrong), ``fail_reads`` (the tag "leaves" during the next N reads).
* :class:`FakeGM65Bus`: a UART with a QR module behind it: :meth:`show` makes it send a code.
* :class:`FakeUsb`: the USB CDC stream as two byte queues.
* :class:`FakeBeeper`, :class:`FakeLed`: record what they were told.
"""
from firmware.compat import to_hex

NTAG213_PAGES = 45
NTAG213_USER_END = 40     # first page after user memory


class FakeTag:
    def __init__(self, uid, memory=None, pages=NTAG213_PAGES, user_end=NTAG213_USER_END):
        uid = bytes(uid)
        if len(uid) != 7:
            raise ValueError("an NTAG UID has 7 bytes")
        self.uid = uid
        self.user_end = user_end
        self.mem = bytearray(pages * 4)
        self.mem[0:3] = uid[0:3]
        self.mem[3] = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        self.mem[4:8] = uid[3:7]
        self.mem[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        self.mem[12:16] = b"\xE1\x10\x12\x00"          # capability container: NDEF, 144 bytes
        self.mem[16:20] = b"\x03\x00\xFE\x00"          # factory state: empty NDEF TLV
        if memory is not None:
            self.set_user(memory)

    def set_user(self, data):
        data = bytes(data)
        end = 16 + len(data)
        if end > self.user_end * 4:
            raise ValueError("does not fit in user memory")
        self.mem[16:end] = data

    def user(self):
        return bytes(self.mem[16:self.user_end * 4])

    def read(self, page):
        n = len(self.mem)
        return bytes([self.mem[(page * 4 + i) % n] for i in range(16)])

    def write(self, page, data):
        if not 4 <= page < self.user_end or len(data) != 4:
            return False
        self.mem[page * 4:page * 4 + 4] = bytes(data)
        return True


def _frame(body):
    n = len(body)
    return b"\x00\x00\xFF" + bytes([n, (-n) & 0xFF]) + bytes(body) + bytes([(-sum(body)) & 0xFF, 0])


ACK = b"\x00\x00\xFF\x00\xFF\x00"


class FakePN532Bus:
    def __init__(self, tag=None):
        self.tag = tag
        self.rx = b""        # bytes the host wrote, not yet parsed
        self.tx = b""        # bytes for the host to read
        self.silent = False
        self.corrupt = 0
        self.fail_reads = 0
        self.commands = []   # command codes received, in order
        self.writes = 0

    # UART side seen by the driver
    def write(self, data):
        self.rx += bytes(data)
        self._parse()
        return len(data)

    def any(self):
        return len(self.tx)

    def read(self, n=None):
        if not self.tx:
            return None
        n = len(self.tx) if n is None else n
        out, self.tx = self.tx[:n], self.tx[n:]
        return out

    # the world
    def place(self, tag):
        self.tag = tag

    def remove(self):
        self.tag = None

    def _parse(self):
        while True:
            i = self.rx.find(b"\x00\xFF")
            if i < 0 or len(self.rx) < i + 4:
                return
            ln, lcs = self.rx[i + 2], self.rx[i + 3]
            if (ln + lcs) & 0xFF or ln == 0:
                self.rx = self.rx[i + 2:]
                continue
            end = i + 4 + ln + 1
            if len(self.rx) < end:
                return
            body = self.rx[i + 4:i + 4 + ln]
            dcs = self.rx[i + 4 + ln]
            self.rx = self.rx[end:]
            if (sum(body) + dcs) & 0xFF or body[0] != 0xD4:
                self.tx += b"\x00\x00\xFF\xFF\x00\x00"   # NACK
                continue
            self._answer(body[1], body[2:])

    def _reply(self, cmd, data):
        if self.silent:
            return
        frame = bytearray(_frame(bytes([0xD5, cmd + 1]) + bytes(data)))
        if self.corrupt:
            self.corrupt -= 1
            frame[-2] ^= 0x5A
        self.tx += ACK + bytes(frame)

    def _answer(self, cmd, p):
        self.commands.append(cmd)
        if cmd == 0x02:
            self._reply(cmd, b"\x32\x01\x06\x07")
        elif cmd in (0x14, 0x32):
            self._reply(cmd, b"")
        elif cmd == 0x4A:
            if self.tag is None:
                self._reply(cmd, b"\x00")
            else:
                uid = self.tag.uid
                self._reply(cmd, b"\x01\x01\x00\x44\x00" + bytes([len(uid)]) + uid)
        elif cmd == 0x40:
            self._exchange(cmd, p)
        else:
            if not self.silent:
                self.tx += ACK + _frame(b"\x7F")   # application error frame

    def _exchange(self, cmd, p):
        if self.tag is None or len(p) < 3:
            self._reply(cmd, b"\x01")        # timeout: no target
            return
        op, page = p[1], p[2]
        if op == 0x30:
            if self.fail_reads:
                self.fail_reads -= 1
                self._reply(cmd, b"\x01")
                return
            self._reply(cmd, b"\x00" + self.tag.read(page))
        elif op == 0xA2:
            if len(p) == 7 and self.tag.write(page, p[3:7]):
                self.writes += 1
                self._reply(cmd, b"\x00")
            else:
                self._reply(cmd, b"\x14")    # NAK from the tag
        else:
            self._reply(cmd, b"\x27")


class FakeGM65Bus:
    def __init__(self, suffix=b"\r"):
        self.suffix = suffix
        self.tx = b""
        self.rx = b""

    def show(self, payload):
        """Hold a code in front of the module: it sends the payload and the suffix."""
        self.tx += bytes(payload) + self.suffix

    def inject(self, data):
        self.tx += bytes(data)

    def write(self, data):
        self.rx += bytes(data)
        if bytes(data[:3]) == b"\x7E\x00\x08":
            self.tx += b"\x02\x00\x00\x01\x00\x33\x31"
        return len(data)

    def any(self):
        return len(self.tx)

    def read(self, n=None):
        if not self.tx:
            return None
        n = len(self.tx) if n is None else n
        out, self.tx = self.tx[:n], self.tx[n:]
        return out


class FakeUsb:
    """The CDC stream: ``to_reader`` is what the hub sent, ``from_reader`` what the reader wrote."""

    def __init__(self):
        self.to_reader = b""
        self.from_reader = b""

    def read(self):
        data, self.to_reader = self.to_reader, b""
        return data or None

    def write(self, data):
        self.from_reader += bytes(data)
        return len(data)

    def send(self, data):
        self.to_reader += bytes(data)

    def take(self):
        data, self.from_reader = self.from_reader, b""
        return data


class FakeBeeper:
    def __init__(self):
        self.beeps = []
        self.steps = 0

    def beep(self, ms, n=1):
        self.beeps.append((ms, n))

    def step(self):
        self.steps += 1


class FakeLed:
    def __init__(self):
        self.colours = []

    def set(self, r, g, b):
        self.colours.append((r, g, b))

    def hex(self):
        return to_hex(bytes(self.colours[-1])) if self.colours else None
