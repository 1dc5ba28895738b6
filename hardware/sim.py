"""A card reader for people without one: the real firmware logic on fake parts, on a pty.

:class:`ReaderSim` runs :class:`firmware.app.ReaderApp` (the code the Pico runs) with a fake
PN532 and a fake GM65 (:mod:`firmware.fakes`) and puts its USB side on a pseudo-terminal
(``url`` is the slave's path, e.g. ``/dev/pts/7``) or on a TCP port (``url`` is
``socket://127.0.0.1:PORT``). Anything that opens ``url`` with pyserial sees a reader:
hello, heartbeats, scans, answers to commands.

Drive it from Python (``show_qr``, ``tap``, ``send_raw``, ``unplug``/``replug``) or let
``companion reader-sim`` read typed lines (:meth:`handle_line`). Uses only the standard
library and the firmware package, no pyserial.
"""
import errno
import hashlib
import os
import random
import select
import socket
import threading
import tty

from firmware import ndef
from firmware.app import ReaderApp
from firmware.compat import RealClock, to_hex
from firmware.fakes import FakeGM65Bus, FakePN532Bus, FakeTag
from firmware.gm65 import GM65
from firmware.pn532 import PN532
from firmware.version import FW_VERSION

SIM_FIRMWARE = f"{FW_VERSION}-sim"      # the firmware it runs, marked as simulated


class _PtyStream:
    """The USB side on a pty master; ``path`` is the slave's name (optionally a symlink)."""

    def __init__(self, link=None):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.link = link
        if link:
            tmp = f"{link}.tmp{os.getpid()}"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, link)
        self.url = link or self.path
        self.closed = False

    def fileno(self):
        return self.master

    def read(self):
        try:
            return os.read(self.master, 4096) or None
        except BlockingIOError:
            return None
        except OSError as e:
            if e.errno == errno.EIO:   # nobody has the slave open right now
                return None
            raise

    def write(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                select.select([], [self.master], [], 0.05)
                continue
            view = view[n:]
        return len(data)

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self.link and os.path.islink(self.link) and os.readlink(self.link) == self.path:
            os.unlink(self.link)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class _SocketStream:
    """The USB side on a TCP port (pyserial's ``socket://``); one client at a time."""

    def __init__(self, port=0, host="127.0.0.1"):
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(1)
        self.server.setblocking(False)
        self.url = "socket://%s:%d" % self.server.getsockname()
        self.path = self.url
        self.client = None
        self.closed = False

    def fileno(self):
        return self.client.fileno() if self.client else self.server.fileno()

    def read(self):
        if self.client is None:
            try:
                self.client, _ = self.server.accept()
                self.client.setblocking(False)
                self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except BlockingIOError:
                return None
            return None
        try:
            data = self.client.recv(4096)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            self.client.close()
            self.client = None
            return None
        return data

    def write(self, data):
        if self.client is None:
            return 0   # nobody listening: the frame is lost, as on an unplugged cable
        try:
            self.client.setblocking(True)
            self.client.sendall(data)
            self.client.setblocking(False)
        except OSError:
            self.client.close()
            self.client = None
        return len(data)

    def close(self):
        if self.closed:
            return
        self.closed = True
        for s in (self.client, self.server):
            if s is not None:
                s.close()


class _SimBeeper:
    def __init__(self, say):
        self.say = say

    def beep(self, ms, n=1):
        self.say("reader: beep %d x %d ms" % (n, ms))

    def step(self):
        pass


class _SimLed:
    def __init__(self, say):
        self.say = say
        self.rgb = (0, 0, 0)

    def set(self, r, g, b):
        self.rgb = (r, g, b)
        self.say("reader: LED #%02X%02X%02X" % (r, g, b))


def uid_for(text: str) -> bytes:
    """A stable 7-byte NTAG-style UID (first byte 0x04, NXP) for a card, from its code."""
    return b"\x04" + hashlib.sha256(text.encode()).digest()[:6]


class ReaderSim:
    def __init__(self, transport="pty", link=None, port=0, game=None, catalog=None,
                 say=None, heartbeat=True):
        self.say = say or (lambda text: None)
        self.game = game
        self.catalog = catalog
        self._link = link
        self._transport = transport
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = None
        self.tags = {}
        self.stream = _PtyStream(link) if transport == "pty" else _SocketStream(port)
        self._build()
        self.heartbeat = heartbeat

    def _build(self):
        self.nfc_bus = FakePN532Bus()
        self.qr_bus = FakeGM65Bus()
        self.led = _SimLed(self.say)
        clock = RealClock()
        self.app = ReaderApp(self.stream, nfc=PN532(self.nfc_bus, clock=clock),
                             qr=GM65(self.qr_bus), beeper=_SimBeeper(self.say), led=self.led,
                             clock=clock, fw=SIM_FIRMWARE, board="sim", reader_id="SIM0001")

    @property
    def url(self):
        return self.stream.url

    # -- running --
    def start(self):
        with self._lock:
            self.app.start()
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="reader-sim", daemon=True)
        self._thread.start()
        return self

    def _loop(self):
        while not self._stop.is_set():
            try:
                select.select([self.stream], [], [], 0.02)
            except (OSError, ValueError):
                if self._stop.wait(0.02):
                    break
            with self._lock:
                if self.stream.closed:
                    continue
                if not self.heartbeat:
                    self.app.last_hb = self.app.clock.ticks_ms()
                try:
                    self.app.step()
                except OSError:
                    pass

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        self.stream.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def unplug(self):
        """Pull the cable: the port disappears (the driver sees the failure)."""
        with self._lock:
            self.stream.close()

    def replug(self):
        """Plug back in: a new port (a new pty; the same link if one was given), fresh boot."""
        with self._lock:
            self.stream.close()
            self.stream = _PtyStream(self._link) if self._transport == "pty" else _SocketStream()
            self._build()
            self.app.start()

    # -- scanning --
    def show_qr(self, payload):
        """Hold a QR code in front of the scanner (text or bytes)."""
        data = payload.encode() if isinstance(payload, str) else bytes(payload)
        with self._lock:
            self.qr_bus.show(data)
            self.app.step()

    def tap(self, uid=None, text=None):
        """Tap an NFC tag: one carrying ``text`` as an NDEF Text record, or the blank (or
        earlier written) tag with this ``uid``. Returns the UID as hex."""
        if uid is None:
            uid = uid_for(text) if text else bytes([4]) + bytes(random.getrandbits(8) for _ in range(6))
        uid = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        tag = self.tags.get(uid)
        if tag is None:
            memory = ndef.wrap_tlv(ndef.text_message(text)) if text else None
            tag = self.tags[uid] = FakeTag(uid, memory)
        with self._lock:
            self.nfc_bus.place(tag)
            self.app.present_uid = None if self.app.present_uid == uid else self.app.present_uid
            self.app.step()
            self.nfc_bus.remove()
        return to_hex(uid)

    def place(self, uid=None, text=None):
        """Put a tag down on the reader and leave it there (until :meth:`lift`): a blank tag
        (new or earlier written) with this ``uid``, or one carrying ``text``. The reader sees
        it on its next pass, as it would a real tag; a write armed while it lies there writes
        it. Returns the UID as hex."""
        if uid is None:
            uid = uid_for(text) if text else bytes([4]) + bytes(random.getrandbits(8) for _ in range(6))
        uid = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        with self._lock:
            tag = self.tags.get(uid)
            if tag is None:
                memory = ndef.wrap_tlv(ndef.text_message(text)) if text else None
                tag = self.tags[uid] = FakeTag(uid, memory)
            self.nfc_bus.place(tag)
        return to_hex(uid)

    def lift(self):
        """Take the tag lying on the reader away."""
        with self._lock:
            self.nfc_bus.remove()

    def tag_text(self, uid):
        """The first NDEF Text record on the tag with this UID (None: blank or unknown)."""
        tag = self.tags.get(bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid))
        if tag is None:
            return None
        try:
            message = ndef.find_message(tag.user())
        except ndef.NdefError:
            return None
        return ndef.first_text(message) if message else None

    def send_raw(self, data):
        """Put raw bytes on the line (garbage, hand-made frames)."""
        with self._lock:
            self.stream.write(bytes(data))

    # -- typed lines (companion reader-sim) --
    def find_card(self, words):
        cards = (self.catalog or {}).get("cards") or {}
        w = words.strip().lower()
        exact = [cid for cid, name in cards.items() if w in (cid.lower(), str(name).lower())]
        if exact:
            return exact[0]
        hits = [cid for cid, name in cards.items()
                if cid.lower().startswith(w) or str(name).lower().startswith(w)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise LookupError("%r matches %d cards: %s" % (words, len(hits),
                                                          ", ".join(sorted(hits)[:8])))
        raise LookupError("no card called %r%s" % (
            words, " in " + self.game if self.game else " (no game card list loaded)"))

    def code_for(self, card_id, copy=1):
        """The code a printed copy of this card carries (``companion cards print``)."""
        from companion.cardcodes import deck_version, format_code
        return format_code(self.game, card_id, copy, deck_version(self.catalog))

    def handle_line(self, line):
        """Act on one typed line; returns a sentence saying what happened."""
        line = line.strip()
        if not line:
            return ""
        word, _, rest = line.partition(" ")
        cmd = word.lower()
        if cmd in ("help", "?"):
            return HELP
        if cmd == "cards":
            cards = (self.catalog or {}).get("cards") or {}
            if not cards:
                return "no card list loaded; type tc1:... codes or 'qr <text>'"
            return "\n".join("  %s  %s" % (cid, name) for cid, name in sorted(cards.items()))
        if cmd == "qr":
            self.show_qr(rest)
            return "scanned QR %r" % rest
        if cmd == "garbage":
            n = int(rest) if rest.isdigit() else 64
            self.send_raw(bytes(random.getrandbits(8) for _ in range(n)))
            return "sent %d random bytes" % n
        if cmd in ("tag", "blank"):
            uid = self.tap(rest.strip() or None)
            return "tapped tag %s" % uid
        if cmd == "place":
            uid = self.place(rest.strip() or None)
            text = self.tag_text(uid)
            return "placed tag %s on the reader (%s); 'lift' takes it away" % (
                uid, "it holds %s" % text if text else "blank")
        if cmd == "lift":
            self.lift()
            return "lifted the tag"
        if cmd == "unplug":
            self.unplug()
            return "unplugged"
        if cmd == "replug":
            self.replug()
            return "plugged in again at %s" % self.url
        if line.lower().startswith("tc1:"):
            self.show_qr(line)
            return "scanned QR %s" % line
        nfc = cmd == "nfc"
        card_words = rest if nfc else line
        try:
            card_id = self.find_card(card_words)
        except LookupError as e:
            return str(e)
        code = self.code_for(card_id)
        if nfc:
            uid = self.tap(text=code)
            return "tapped NFC tag %s: %s (%s)" % (uid, card_id, code)
        self.show_qr(code)
        return "scanned QR card %s (%s)" % (card_id, code)


HELP = """type one of:
  <card name or id>      scan that card's QR code (needs a game with a card list)
  nfc <card name or id>  tap an NFC tag carrying that card's code
  tc1:...                scan a raw card code as QR
  qr <text>              scan any text as QR
  tag [UID]              tap a blank tag (or a tag written earlier); random UID if none
  place [UID]            put a tag down and leave it (companion cards write-tags writes it)
  lift                   take the placed tag away
  garbage [N]            put N random bytes on the line
  unplug / replug        pull and re-insert the USB cable
  cards                  list the game's cards
  quit                   stop"""
