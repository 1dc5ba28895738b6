"""GM65-style QR/barcode scanner module on a UART.

In its serial output mode the module sends each decoded code as raw bytes followed by a
suffix (carriage return by default). The driver takes a bus object (``read``/``any``/``write``)
and collects bytes until the suffix; a code that never ends within ``max_len`` bytes is
dropped and reported as an overflow.

Settings are written with the module's serial command frame (GM65 manual, "serial port
instructions")::

    7E 00 08 <n> <addr hi> <addr lo> <data..> AB CD     ("AB CD" = do not check the CRC)

and answered ``02 00 00 <n> <data..> <crc hi> <crc lo>``.
"""

SUFFIXES = (b"\r", b"\n")


class QRError(Exception):
    pass


class QROverflow(QRError):
    """A code longer than the driver accepts (or bytes with no suffix): dropped."""


def zone_write_frame(addr, data):
    data = bytes(data)
    return bytes([0x7E, 0x00, 0x08, len(data), (addr >> 8) & 0xFF, addr & 0xFF]) + data + b"\xAB\xCD"


class GM65:
    def __init__(self, uart, max_len=512):
        self.uart = uart
        self.max_len = max_len
        self._buf = b""
        self._overflow = False

    def poll(self):
        """One complete code (bytes, suffix removed) if one has arrived, else None.

        Raises :class:`QROverflow` once for a code that ran past ``max_len`` (its bytes are
        dropped up to the next suffix).
        """
        if self.uart.any():
            chunk = self.uart.read(self.uart.any())
            if chunk:
                self._buf += chunk
        while True:
            cut = -1
            for s in SUFFIXES:
                i = self._buf.find(s)
                if i >= 0 and (cut < 0 or i < cut):
                    cut = i
            if cut < 0:
                if len(self._buf) > self.max_len:
                    self._buf = b""
                    self._overflow = True
                return None
            code, self._buf = self._buf[:cut], self._buf[cut + 1:]
            if self._overflow:
                self._overflow = False
                raise QROverflow("a QR code longer than %d bytes was dropped" % self.max_len)
            if code:
                return code
            # an empty line (CR LF pairs): keep looking

    def write_zone(self, addr, data):
        """Send a settings write; the module's answer is left for :meth:`read_reply`."""
        self.uart.write(zone_write_frame(addr, data))

    def read_reply(self):
        """True if the module acknowledged a settings write (``02 00 00 ...``)."""
        data = self.uart.read(self.uart.any()) if self.uart.any() else b""
        return bool(data) and data[:3] == b"\x02\x00\x00"
