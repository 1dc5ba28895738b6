"""The card reader's serial protocol, version 1: one frame codec for the firmware and the hub.

Runs unchanged under MicroPython and CPython (no dataclasses, no f-strings, no dict order
assumptions). ``docs/serial-protocol.md`` is the full description; in short, a frame is one
ASCII line::

    @TC1 <seq> <kind> <json-object>*<CRC>\\n

* ``@`` starts a frame. It never appears inside one (the encoder writes ``@`` in strings as
  ``\\u0040``), so after garbage the decoder starts again at the last ``@`` of a line.
* ``TC1`` names the protocol and its major version. Another major version is reported as a
  ``version`` error and ignored.
* ``seq`` is the sender's frame counter, 0..65535, wrapping.
* ``kind`` is 1-16 characters of ``a-z 0-9 -`` (``hello``, ``scan``, ``hb``, ``err``, ``ack``;
  from the hub ``who``, ``beep``, ``led``, ``write``).
* the body is a JSON object; the encoder writes it canonically (sorted keys, no spaces, ASCII
  only, integers only) so a frame is byte-exact on both interpreters.
* ``CRC`` is CRC-16/CCITT-FALSE of the bytes between ``@`` and ``*``, four upper-case hex digits.

Encoding: :func:`encode` (kind, seq, body) -> bytes. Decoding: :class:`Decoder` takes any bytes
in any chunks and returns :class:`Frame` objects and :class:`FrameError` objects (never raises
for bad input), counting errors per kind in ``Decoder.counts``.

>>> f = decode_frame(encode("hb", 7, {"up": 1000})[1:-1])
>>> (f.kind, f.seq, f.body["up"])
('hb', 7, 1000)
"""
import json

PROTOCOL = 1
MAGIC = "TC1"
MAX_LINE = 2048          # bytes, including "@" and the line end
SEQ_MOD = 65536

# reader -> hub
HELLO = "hello"
SCAN = "scan"
HEARTBEAT = "hb"
ERROR = "err"
ACK = "ack"
# hub -> reader
WHO = "who"
BEEP = "beep"
LED = "led"
WRITE = "write"

# error kinds the decoder reports
E_GARBAGE = "garbage"        # bytes that are not part of any frame
E_OVERLONG = "overlong"      # a line longer than MAX_LINE
E_ENCODING = "encoding"      # a non-ASCII or control byte inside a frame
E_VERSION = "version"        # a frame of another protocol version
E_MALFORMED = "malformed"    # the header is not "TC1 <seq> <kind> "
E_CHECKSUM = "checksum"      # the CRC does not match
E_BODY = "body"              # the body is not a JSON object, or lacks a required field

_KIND_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
_HEX = "0123456789ABCDEF"


def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

    >>> "%04X" % crc16(b"123456789")
    '29B1'
    """
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


class FrameError(ValueError):
    """A line that is not a valid frame. ``kind`` is one of the E_* names; ``detail`` says why
    in a sentence; ``raw`` holds (at most 80 bytes of) the offending bytes."""

    def __init__(self, kind, detail, raw=b""):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.raw = bytes(raw[:80])

    def __repr__(self):
        return "FrameError(%r, %r)" % (self.kind, self.detail)


class Frame:
    """One decoded frame: ``kind``, ``seq``, ``body`` (a dict) and the protocol ``version``."""

    def __init__(self, kind, seq, body, version=PROTOCOL):
        self.kind = kind
        self.seq = seq
        self.body = body
        self.version = version

    def __eq__(self, other):
        return (isinstance(other, Frame) and self.kind == other.kind and self.seq == other.seq
                and self.body == other.body and self.version == other.version)

    def __repr__(self):
        return "Frame(%r, %r, %r)" % (self.kind, self.seq, self.body)


# --- canonical JSON ---------------------------------------------------------------------------

def _esc(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o >= 0x7F or ch == "@":
            if o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def encode_json(obj):
    """Canonical JSON: sorted keys, no spaces, ASCII only, ``@`` escaped, integers only.

    >>> encode_json({"b": [1, True, None], "a": "x@y"})
    '{"a":"x\\\\u0040y","b":[1,true,null]}'
    """
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, int):
        return str(obj)
    if isinstance(obj, str):
        return _esc(obj)
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join([encode_json(x) for x in obj]) + "]"
    if isinstance(obj, dict):
        keys = sorted(obj.keys())
        parts = []
        for k in keys:
            if not isinstance(k, str):
                raise TypeError("frame body keys must be text")
            parts.append(_esc(k) + ":" + encode_json(obj[k]))
        return "{" + ",".join(parts) + "}"
    raise TypeError("a frame body can hold text, integers, booleans, null, lists and objects, "
                    "not %s" % type(obj).__name__)


# --- encoding ---------------------------------------------------------------------------------

def check_kind(kind):
    if not isinstance(kind, str) or not 1 <= len(kind) <= 16:
        return False
    for c in kind:
        if c not in _KIND_CHARS:
            return False
    return True


def encode(kind, seq, body=None):
    """One frame as bytes, ending in ``\\n``. Raises ValueError/TypeError for a bad kind, seq or
    body (that is a bug in the caller, not bad input from the line)."""
    if not check_kind(kind):
        raise ValueError("bad frame kind %r" % (kind,))
    if not isinstance(seq, int) or not 0 <= seq < SEQ_MOD:
        raise ValueError("seq must be an integer 0..65535, not %r" % (seq,))
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise TypeError("a frame body is a dict")
    content = "%s %d %s %s" % (MAGIC, seq, kind, encode_json(body))
    data = content.encode()
    if len(data) + 7 > MAX_LINE:
        raise ValueError("frame of %d bytes is longer than %d" % (len(data) + 7, MAX_LINE))
    return b"@" + data + ("*%04X\n" % crc16(data)).encode()


class SeqCounter:
    """The sender's frame counter: 0, 1, ... 65535, 0, ..."""

    def __init__(self, start=0):
        self.value = start % SEQ_MOD

    def next(self):
        v = self.value
        self.value = (v + 1) % SEQ_MOD
        return v


def seq_gap(previous, current):
    """How many frames were lost between two consecutive sequence numbers (0 if none)."""
    return (current - previous - 1) % SEQ_MOD


# --- decoding ---------------------------------------------------------------------------------

def decode_frame(data):
    """Decode the bytes between ``@`` and the line end (``\\r`` already removed).

    Returns a :class:`Frame` or raises :class:`FrameError`; any other exception is a bug.
    """
    data = bytes(data)
    for b in data:
        if b < 0x20 or b > 0x7E:
            raise FrameError(E_ENCODING, "byte 0x%02X is not printable ASCII" % b, data)
    if len(data) < 2 or data[0:2] != b"TC":
        raise FrameError(E_MALFORMED, "a frame starts with 'TC<version> '", data)
    sp = data.find(b" ")
    ver = data[2:sp] if sp > 2 else b""
    if not ver or not ver.isdigit():
        raise FrameError(E_MALFORMED, "a frame starts with 'TC<version> '", data)
    if int(ver) != PROTOCOL:
        raise FrameError(E_VERSION, "protocol version %s is not supported (this side speaks %d)"
                         % (ver.decode(), PROTOCOL), data)
    if len(data) < 6 or data[-5:-4] != b"*":
        raise FrameError(E_MALFORMED, "a frame ends with '*' and four hex digits", data)
    content = data[:-5]
    check = data[-4:].decode().upper()
    for c in check:
        if c not in _HEX:
            raise FrameError(E_MALFORMED, "the checksum is not four hex digits", data)
    if int(check, 16) != crc16(content):
        raise FrameError(E_CHECKSUM, "checksum %s does not match (expected %04X)"
                         % (check, crc16(content)), data)
    parts = content.decode().split(" ", 3)
    if len(parts) != 4:
        raise FrameError(E_MALFORMED, "a frame has four fields: version, seq, kind, body", data)
    seq_text, kind, body_text = parts[1], parts[2], parts[3]
    if not seq_text.isdigit() or len(seq_text) > 5 or int(seq_text) >= SEQ_MOD:
        raise FrameError(E_MALFORMED, "seq %r is not a number 0..65535" % seq_text, data)
    if not check_kind(kind):
        raise FrameError(E_MALFORMED, "kind %r is not 1-16 of a-z 0-9 -" % kind, data)
    try:
        body = json.loads(body_text)
    except Exception:  # ValueError on CPython, ValueError/other on MicroPython
        raise FrameError(E_BODY, "the body of a %s frame is not JSON" % kind, data)
    if not isinstance(body, dict):
        raise FrameError(E_BODY, "the body of a %s frame is not a JSON object" % kind, data)
    problem = check_body(kind, body)
    if problem:
        raise FrameError(E_BODY, problem, data)
    return Frame(kind, int(seq_text), body)


# required fields per kind: name -> type (int excludes bool)
SCHEMA = {
    HELLO: {"fw": str, "proto": int, "caps": list},
    SCAN: {"src": str},
    HEARTBEAT: {"up": int},
    ERROR: {"kind": str},
    ACK: {"re": int, "ok": bool},
    BEEP: {"ms": int},
    LED: {"rgb": str},
    WRITE: {"ndef": str},
}


def check_body(kind, body):
    """None if the body has the fields its kind requires, else a sentence saying what is wrong.
    Unknown kinds and extra fields pass (a newer minor version may add them)."""
    need = SCHEMA.get(kind)
    if not need:
        return None
    for name in need:
        want = need[name]
        if name not in body:
            return "a %s frame needs the field %r" % (kind, name)
        v = body[name]
        if want is int:
            ok = isinstance(v, int) and not isinstance(v, bool)
        else:
            ok = isinstance(v, want)
        if not ok:
            return "field %r of a %s frame must be %s" % (name, kind, want.__name__)
    if kind == SCAN:
        src = body["src"]
        if src == "nfc":
            if not isinstance(body.get("uid"), str):
                return "an nfc scan needs the field 'uid'"
        elif src == "qr":
            if not isinstance(body.get("data"), str):
                return "a qr scan needs the field 'data'"
        else:
            return "scan source %r is neither 'nfc' nor 'qr'" % src
    return None


class Decoder:
    """Bytes in (any chunking, any garbage), frames and errors out. Never raises on input.

    ``counts`` maps each error kind to how many times it happened; ``errors`` is the total.
    """

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self.buf = b""
        self.counts = {}
        self.errors = 0
        self.frames = 0

    def _err(self, out, e):
        self.counts[e.kind] = self.counts.get(e.kind, 0) + 1
        self.errors += 1
        out.append(e)

    def feed(self, data):
        out = []
        buf = self.buf + bytes(data)
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line = buf[:nl]
            buf = buf[nl + 1:]
            if len(line) + 1 > self.max_line:
                at = line.rfind(b"@")
                if at >= 0 and len(line) - at + 1 <= self.max_line:
                    # garbage ran long, but a frame of legal size ends the line
                    self._err(out, FrameError(E_GARBAGE, "%d bytes of garbage before a frame"
                                              % at, line[:at]))
                    self._line(line[at:], out, count_prefix=False)
                else:
                    self._err(out, FrameError(E_OVERLONG, "a line of %d bytes is longer than %d"
                                              % (len(line) + 1, self.max_line), line))
                continue
            self._line(line, out)
        if len(buf) >= self.max_line:
            # no line end in sight: keep only a possible frame start, drop the rest
            at = buf.rfind(b"@")
            if at > 0 and len(buf) - at < self.max_line:
                dropped, buf = buf[:at], buf[at:]
            else:
                dropped, buf = buf, b""
            self._err(out, FrameError(E_OVERLONG, "%d bytes without a line end were dropped"
                                      % len(dropped), dropped))
        self.buf = buf
        return out

    def _line(self, line, out, count_prefix=True):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return
        at = line.rfind(b"@")
        if at < 0:
            self._err(out, FrameError(E_GARBAGE, "a line of %d bytes with no frame in it"
                                      % len(line), line))
            return
        if at > 0 and count_prefix:
            self._err(out, FrameError(E_GARBAGE, "%d bytes of garbage before a frame" % at,
                                      line[:at]))
        try:
            frame = decode_frame(line[at + 1:])
        except FrameError as e:
            self._err(out, e)
            return
        self.frames += 1
        out.append(frame)


# --- message bodies ---------------------------------------------------------------------------
# Small constructors so both sides spell the fields the same way.

def hello_body(fw, caps, board="pico", reader_id=""):
    return {"fw": fw, "proto": PROTOCOL, "caps": list(caps), "board": board, "id": reader_id}


def nfc_scan_body(uid_hex, ndef_hex, bad=None):
    body = {"src": "nfc", "uid": uid_hex, "ndef": ndef_hex}
    if bad:
        body["bad"] = bad
    return body


def qr_scan_body(data_hex, bad=None):
    body = {"src": "qr", "data": data_hex}
    if bad:
        body["bad"] = bad
    return body


def heartbeat_body(uptime_ms, scans, errors):
    return {"up": uptime_ms, "scans": scans, "errs": errors}


def error_body(kind, detail, count=None):
    body = {"kind": kind, "detail": detail}
    if count is not None:
        body["count"] = count
    return body


def ack_body(re, ok, detail="", **extra):
    body = {"re": re, "ok": bool(ok), "detail": detail}
    for k in extra:
        body[k] = extra[k]
    return body
